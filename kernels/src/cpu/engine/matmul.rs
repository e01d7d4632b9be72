//! The engine's own GEMMs (on CPU; cuBLAS on CUDA): `y = x · Wᵀ` with `W` in HF layout
//! `[out_features, in_features]`. Blocked over weight rows so a block stays in cache while
//! every input row passes over it, with an 8-lane dot product the compiler vectorizes,
//! and split across threads for large products. Every output element is computed by the
//! same code in the same order whatever the split, so results are bitwise deterministic.

/// Weight rows per cache block.
const BLOCK: usize = 16;
/// Multiply-adds below which one thread does the whole product.
const MIN_PARALLEL_WORK: usize = 1 << 22;

/// Dot product with eight independent accumulators, summed in a fixed order.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// `out[r * out_stride + o] = dot(x[r, :], w[o, :])` for `r < rows`, `o < out_dim`.
/// `out_stride >= out_dim` lets callers fill a column range of a wider buffer.
pub fn matmul(
    out: &mut [f32],
    out_stride: usize,
    x: &[f32],
    w: &[f32],
    rows: usize,
    in_dim: usize,
    out_dim: usize,
) {
    assert!(out_stride >= out_dim);
    assert_eq!(x.len(), rows * in_dim);
    assert_eq!(w.len(), out_dim * in_dim);
    if rows == 0 || out_dim == 0 {
        return;
    }
    assert!(out.len() >= (rows - 1) * out_stride + out_dim);
    let work = rows * in_dim * out_dim;
    let threads = threads().min(work / MIN_PARALLEL_WORK).max(1);
    if threads == 1 {
        return serial(out, out_stride, x, w, rows, in_dim, 0, out_dim);
    }
    std::thread::scope(|s| {
        if rows >= threads {
            // Split rows: each thread owns whole output rows.
            let per = rows.div_ceil(threads);
            for (i, chunk) in out.chunks_mut(per * out_stride).enumerate() {
                let r0 = i * per;
                let n = per.min(rows - r0);
                let xs = &x[r0 * in_dim..(r0 + n) * in_dim];
                s.spawn(move || serial(chunk, out_stride, xs, w, n, in_dim, 0, out_dim));
            }
        } else {
            // Few rows (decode): split output columns; each thread owns a column range of
            // every row, so give each row its own disjoint slices.
            let per = out_dim.div_ceil(threads);
            let mut parts: Vec<Vec<&mut [f32]>> = (0..threads).map(|_| Vec::new()).collect();
            for row in out.chunks_mut(out_stride).take(rows) {
                let mut rest = &mut row[..out_dim];
                for part in parts.iter_mut() {
                    let n = per.min(rest.len());
                    let (head, tail) = rest.split_at_mut(n);
                    part.push(head);
                    rest = tail;
                }
            }
            for (t, part) in parts.into_iter().enumerate() {
                let o0 = t * per;
                s.spawn(move || {
                    for (r, dst) in part.into_iter().enumerate() {
                        let xr = &x[r * in_dim..(r + 1) * in_dim];
                        for (j, v) in dst.iter_mut().enumerate() {
                            let o = o0 + j;
                            *v = dot(xr, &w[o * in_dim..(o + 1) * in_dim]);
                        }
                    }
                });
            }
        }
    });
}

#[allow(clippy::too_many_arguments)]
fn serial(
    out: &mut [f32],
    out_stride: usize,
    x: &[f32],
    w: &[f32],
    rows: usize,
    in_dim: usize,
    o_start: usize,
    o_end: usize,
) {
    let mut o0 = o_start;
    while o0 < o_end {
        let o1 = (o0 + BLOCK).min(o_end);
        for r in 0..rows {
            let xr = &x[r * in_dim..(r + 1) * in_dim];
            let dst = &mut out[r * out_stride..];
            for o in o0..o1 {
                dst[o] = dot(xr, &w[o * in_dim..(o + 1) * in_dim]);
            }
        }
        o0 = o1;
    }
}

static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The threads a matmul may use: the machine's, read once per process (asking costs a
/// file read and a system call), unless [`use_one_thread`] came first.
pub fn threads() -> usize {
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Every matmul of this process runs on the calling thread (a CPU lane: one core, and no
/// thread may be created once it is sealed). Returns false if the count was already read.
pub fn use_one_thread() -> bool {
    THREADS.set(1).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn naive(x: &[f32], w: &[f32], rows: usize, in_dim: usize, out_dim: usize) -> Vec<f64> {
        let mut y = vec![0f64; rows * out_dim];
        for r in 0..rows {
            for o in 0..out_dim {
                y[r * out_dim + o] = (0..in_dim)
                    .map(|i| x[r * in_dim + i] as f64 * w[o * in_dim + i] as f64)
                    .sum();
            }
        }
        y
    }

    #[test]
    fn matches_naive_with_stride_and_ragged_sizes() {
        let mut rng = Rng::new(4);
        let (rows, in_dim, out_dim) = (3, 37, 21);
        let x = rng.fill_uniform(rows * in_dim, 1.0);
        let w = rng.fill_uniform(out_dim * in_dim, 1.0);
        let mut out = vec![f32::NAN; rows * 30];
        matmul(&mut out[5..], 30, &x, &w, rows, in_dim, out_dim);
        let want = naive(&x, &w, rows, in_dim, out_dim);
        for r in 0..rows {
            for o in 0..out_dim {
                let got = out[5 + r * 30 + o] as f64;
                assert!((got - want[r * out_dim + o]).abs() < 1e-5);
            }
            assert!(out[r * 30..r * 30 + 5].iter().all(|v| v.is_nan()));
        }
    }

    #[test]
    fn threaded_paths_equal_serial_bitwise() {
        let mut rng = Rng::new(5);
        for (rows, in_dim, out_dim) in [(1, 512, 8200), (64, 256, 300)] {
            let x = rng.fill_uniform(rows * in_dim, 1.0);
            let w = rng.fill_uniform(out_dim * in_dim, 1.0);
            let mut a = vec![0f32; rows * out_dim];
            let mut b = vec![0f32; rows * out_dim];
            matmul(&mut a, out_dim, &x, &w, rows, in_dim, out_dim);
            serial(&mut b, out_dim, &x, &w, rows, in_dim, 0, out_dim);
            assert_eq!(a, b);
        }
    }
}
