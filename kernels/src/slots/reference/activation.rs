//! `activation.*`: the SwiGLU activation.

pub(super) fn silu(g: f64) -> f64 {
    g / (1.0 + (-g).exp())
}

/// `activation.silu_and_mul`: `out[t, i] = silu(x[t, i]) * x[t, d + i]`.
pub fn silu_and_mul(out: &mut [f32], x: &[f32], tokens: usize, d: usize) {
    assert_eq!(out.len(), tokens * d);
    assert_eq!(x.len(), tokens * 2 * d);
    for t in 0..tokens {
        let row = &x[t * 2 * d..(t + 1) * 2 * d];
        for i in 0..d {
            out[t * d + i] = (silu(row[i] as f64) * row[d + i] as f64) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silu_and_mul_known_values() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let mut out = [0f32; 2];
        silu_and_mul(&mut out, &x, 1, 2);
        assert_eq!(out[0], 0.0);
        let silu1 = 1.0 / (1.0 + (-1f64).exp());
        assert!((out[1] as f64 - silu1 * 3.0).abs() < 1e-6);
    }
}
