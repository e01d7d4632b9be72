//! `linear.*`: the projection product.

/// `linear.matmul`: `y[t, o] = sum_i x[t, i] * w[o, i]` (`w` is `[out_features,
/// in_features]`, the checkpoints' layout).
pub fn linear_matmul(
    y: &mut [f32],
    x: &[f32],
    w: &[f32],
    tokens: usize,
    out_features: usize,
    in_features: usize,
) {
    assert_eq!(y.len(), tokens * out_features);
    assert_eq!(x.len(), tokens * in_features);
    assert_eq!(w.len(), out_features * in_features);
    for t in 0..tokens {
        let xr = &x[t * in_features..(t + 1) * in_features];
        for o in 0..out_features {
            let wr = &w[o * in_features..(o + 1) * in_features];
            let sum: f64 = xr.iter().zip(wr).map(|(&a, &b)| a as f64 * b as f64).sum();
            y[t * out_features + o] = sum as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_matmul_known_values() {
        // x = [[1, 2], [3, -1]], w = [[1, 0], [0.5, 2], [-1, 1]]: y = x · wᵀ.
        let (x, w) = ([1.0, 2.0, 3.0, -1.0], [1.0, 0.0, 0.5, 2.0, -1.0, 1.0]);
        let mut y = [0f32; 6];
        linear_matmul(&mut y, &x, &w, 2, 3, 2);
        assert_eq!(y, [1.0, 4.5, 1.0, 3.0, -0.5, -4.0]);
    }
}
