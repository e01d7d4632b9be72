//! `norm.*`: RMS normalization, alone and after a residual add.

fn rms_scale(row: &[f32], eps: f32) -> f64 {
    let ss: f64 = row.iter().map(|&v| v as f64 * v as f64).sum();
    1.0 / (ss / row.len() as f64 + eps as f64).sqrt()
}

/// `norm.rmsnorm`: `out = x * rsqrt(mean(x^2) + eps) * w`, row by row.
pub fn rmsnorm(out: &mut [f32], x: &[f32], w: &[f32], eps: f32, tokens: usize, hidden: usize) {
    assert_eq!(out.len(), tokens * hidden);
    assert_eq!(x.len(), tokens * hidden);
    assert_eq!(w.len(), hidden);
    for t in 0..tokens {
        let row = &x[t * hidden..(t + 1) * hidden];
        let r = rms_scale(row, eps);
        for i in 0..hidden {
            out[t * hidden + i] = (row[i] as f64 * r * w[i] as f64) as f32;
        }
    }
}

/// `norm.fused_add_rmsnorm`: `s = x + residual` (rounded to f32), `out_residual = s`,
/// `out_norm = rmsnorm(s) * w`.
#[allow(clippy::too_many_arguments)]
pub fn fused_add_rmsnorm(
    out_norm: &mut [f32],
    out_residual: &mut [f32],
    x: &[f32],
    residual: &[f32],
    w: &[f32],
    eps: f32,
    tokens: usize,
    hidden: usize,
) {
    assert_eq!(out_residual.len(), tokens * hidden);
    assert_eq!(residual.len(), tokens * hidden);
    assert_eq!(x.len(), tokens * hidden);
    for i in 0..tokens * hidden {
        out_residual[i] = x[i] + residual[i];
    }
    rmsnorm(out_norm, out_residual, w, eps, tokens, hidden);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmsnorm_unit_rows() {
        let x = [3.0, 4.0];
        let mut out = [0f32; 2];
        rmsnorm(&mut out, &x, &[1.0, 2.0], 0.0, 1, 2);
        let r = (12.5f64).sqrt();
        assert!((out[0] as f64 - 3.0 / r).abs() < 1e-6);
        assert!((out[1] as f64 - 8.0 / r).abs() < 1e-6);
    }
}
