//! `mlp.*`: the MLP's fused seam (both projections and the SwiGLU).

use super::activation::silu;

/// `mlp.gate_up_silu`: `out[t, o] = silu(g) * u` with `g = sum_i x[t, i] * w[o, i]` and
/// `u = sum_i x[t, i] * w[inter + o, i]` (`w` is gate_proj over up_proj), all in f64.
pub fn gate_up_silu(
    out: &mut [f32],
    x: &[f32],
    w: &[f32],
    tokens: usize,
    inter: usize,
    hidden: usize,
) {
    assert_eq!(out.len(), tokens * inter);
    assert_eq!(x.len(), tokens * hidden);
    assert_eq!(w.len(), 2 * inter * hidden);
    let dot = |xr: &[f32], o: usize| -> f64 {
        let wr = &w[o * hidden..(o + 1) * hidden];
        xr.iter().zip(wr).map(|(&a, &b)| a as f64 * b as f64).sum()
    };
    for t in 0..tokens {
        let xr = &x[t * hidden..(t + 1) * hidden];
        for o in 0..inter {
            out[t * inter + o] = (silu(dot(xr, o)) * dot(xr, inter + o)) as f32;
        }
    }
}
