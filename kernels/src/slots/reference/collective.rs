//! `collective.*`: the sum of the ranks' partials (the fused seam after it is in
//! `compute.rs`, as its members' references in a row).

/// `collective.all_reduce`: `out[t, i] = sum_r partials[r, t, i]` (rank `rank` of `world`
/// gets the same sums as every other).
pub fn all_reduce(out: &mut [f32], partials: &[f32], tokens: usize, hidden: usize, world: usize) {
    let n = tokens * hidden;
    assert_eq!(out.len(), n);
    assert_eq!(partials.len(), world * n);
    for (e, o) in out.iter_mut().enumerate() {
        *o = (0..world).map(|r| partials[r * n + e] as f64).sum::<f64>() as f32;
    }
}
