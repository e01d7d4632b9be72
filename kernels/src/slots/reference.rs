//! Trusted references for every slot: f32 in and out, f64 inside.
//!
//! These are the ground truth that stock and candidate kernels are compared with
//! (DESIGN 7 step 5 and the audit in step 8). They are written for clarity, not speed.
//! Each function takes exactly the slot's ABI parameters, as slices.

use crate::rng::Rng;
use crate::slots::args::SlotArgs;
use crate::slots::SlotId;

pub use crate::slots::compare::{allclose, check, check_scaled, matched_ratio, CompareReport};
use crate::slots::Tolerance;

fn silu(g: f64) -> f64 {
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

/// Rotate-half RoPE of one head vector: pairs `(i, i + D/2)`,
/// `inv_freq = theta^(-2i/D)`, `angle = pos * inv_freq`.
fn rope_head(out: &mut [f32], x: &[f32], pos: i32, theta: f32) {
    let dim = x.len();
    let half = dim / 2;
    for i in 0..half {
        let inv_freq = (theta as f64).powf(-2.0 * i as f64 / dim as f64);
        let angle = pos as f64 * inv_freq;
        let (sin, cos) = angle.sin_cos();
        let x1 = x[i] as f64;
        let x2 = x[i + half] as f64;
        out[i] = (x1 * cos - x2 * sin) as f32;
        out[i + half] = (x2 * cos + x1 * sin) as f32;
    }
}

/// `position.rope`: rotate-half RoPE applied to every head of `q` and `k`.
#[allow(clippy::too_many_arguments)]
pub fn rope(
    q_out: &mut [f32],
    k_out: &mut [f32],
    q: &[f32],
    k: &[f32],
    positions: &[i32],
    theta: f32,
    tokens: usize,
    q_heads: usize,
    kv_heads: usize,
    head_dim: usize,
) {
    assert_eq!(head_dim % 2, 0, "rotate-half RoPE needs an even head_dim");
    assert_eq!(q.len(), tokens * q_heads * head_dim);
    assert_eq!(k.len(), tokens * kv_heads * head_dim);
    assert_eq!(q_out.len(), q.len());
    assert_eq!(k_out.len(), k.len());
    assert_eq!(positions.len(), tokens);
    for (src, dst, heads) in [(q, q_out, q_heads), (k, k_out, kv_heads)] {
        for (t, &pos) in positions.iter().enumerate() {
            for h in 0..heads {
                let at = (t * heads + h) * head_dim;
                let span = at..at + head_dim;
                rope_head(&mut dst[span.clone()], &src[span], pos, theta);
            }
        }
    }
}

/// `attention.prefill`: causal attention of a prompt's `tokens` rows over one sequence's
/// caches `[kv_len, kv_heads, head_dim]`; row t is the one-row [`attention_decode`] over
/// the first `positions[t] + 1` cache rows (clamped to `[0, kv_len]`).
pub fn attention_prefill(
    out: &mut [f32],
    q: &[f32],
    k_cache: &[f32],
    v_cache: &[f32],
    positions: &[i32],
    scale: f32,
    [tokens, q_heads, kv_heads, head_dim, kv_len]: [usize; 5],
) {
    assert_eq!(positions.len(), tokens);
    let row = q_heads * head_dim;
    for (t, &pos) in positions.iter().enumerate() {
        let len = (pos.max(-1) as i64 + 1).min(kv_len as i64) as i32;
        attention_decode(
            &mut out[t * row..][..row],
            &q[t * row..][..row],
            k_cache,
            v_cache,
            &[len],
            scale,
            1,
            q_heads,
            kv_heads,
            head_dim,
            kv_len,
        );
    }
}

/// `attention.decode`: one query per sequence against its KV cache.
/// Cache layout `[batch, max_seq, kv_heads, head_dim]`; query head `h` reads KV head
/// `h / (q_heads / kv_heads)`; softmax over the first `seq_lens[b]` positions (clamped to
/// `[0, max_seq]`; an empty sequence gives zeros).
#[allow(clippy::too_many_arguments)]
pub fn attention_decode(
    out: &mut [f32],
    q: &[f32],
    k_cache: &[f32],
    v_cache: &[f32],
    seq_lens: &[i32],
    scale: f32,
    batch: usize,
    q_heads: usize,
    kv_heads: usize,
    head_dim: usize,
    max_seq: usize,
) {
    assert!(
        kv_heads > 0 && q_heads.is_multiple_of(kv_heads),
        "GQA needs q_heads.is_multiple_of(kv_heads)"
    );
    assert_eq!(out.len(), batch * q_heads * head_dim);
    assert_eq!(q.len(), out.len());
    assert_eq!(k_cache.len(), batch * max_seq * kv_heads * head_dim);
    assert_eq!(v_cache.len(), k_cache.len());
    assert_eq!(seq_lens.len(), batch);
    let group = q_heads / kv_heads;
    let mut scores = vec![0f64; max_seq];
    let mut acc = vec![0f64; head_dim];
    for b in 0..batch {
        let len = (seq_lens[b].max(0) as usize).min(max_seq);
        for h in 0..q_heads {
            let kvh = h / group;
            let qv = &q[(b * q_heads + h) * head_dim..][..head_dim];
            let at = |s: usize| ((b * max_seq + s) * kv_heads + kvh) * head_dim;
            for (s, score) in scores.iter_mut().enumerate().take(len) {
                let kv = &k_cache[at(s)..][..head_dim];
                let dot: f64 = qv.iter().zip(kv).map(|(&a, &c)| a as f64 * c as f64).sum();
                *score = dot * scale as f64;
            }
            let max = scores[..len]
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, f64::max);
            acc.fill(0.0);
            let mut denom = 0.0;
            for (s, &score) in scores.iter().enumerate().take(len) {
                let p = (score - max).exp();
                denom += p;
                let vv = &v_cache[at(s)..][..head_dim];
                for (a, &v) in acc.iter_mut().zip(vv) {
                    *a += p * v as f64;
                }
            }
            let o = &mut out[(b * q_heads + h) * head_dim..][..head_dim];
            for (o, &a) in o.iter_mut().zip(&acc) {
                *o = if len == 0 { 0.0 } else { (a / denom) as f32 };
            }
        }
    }
}

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

/// The shape of a `moe.fused_experts` call: `[tokens, hidden, inter, experts, topk,
/// first_expert]`.
#[derive(Clone, Copy, Debug)]
pub struct MoeShape {
    pub tokens: usize,
    pub hidden: usize,
    pub inter: usize,
    pub experts: usize,
    pub topk: usize,
    pub first_expert: usize,
}

/// The held expert row `t`'s `j`-th choice names, if any (another rank's expert, or an id
/// out of any range, adds nothing here).
fn held_expert(ids: &[i32], t: usize, j: usize, s: &MoeShape) -> Option<usize> {
    let id = ids[t * s.topk + j] as i64 - s.first_expert as i64;
    (0..s.experts as i64).contains(&id).then_some(id as usize)
}

/// Expert `e`'s SwiGLU activations for row `x` (`[inter]`, f64), and each one's error scale
/// (as `mlp.gate_up_silu`'s: the magnitudes of the two products through silu's slope).
fn expert_activations(x: &[f32], wgu: &[f32], s: &MoeShape, e: usize) -> Vec<(f64, f64)> {
    let (f, h) = (s.inter, s.hidden);
    let w = &wgu[e * 2 * f * h..(e + 1) * 2 * f * h];
    let sums = |o: usize| -> (f64, f64) {
        x.iter()
            .zip(&w[o * h..(o + 1) * h])
            .fold((0.0, 0.0), |(v, a), (&x, &w)| {
                let p = x as f64 * w as f64;
                (v + p, a + p.abs())
            })
    };
    (0..f)
        .map(|o| {
            let ((g, sg), (u, su)) = (sums(o), sums(f + o));
            let sig = 1.0 / (1.0 + (-g).exp());
            let d_silu = sig * (1.0 + g * (1.0 - sig));
            (silu(g) * u, (d_silu * u).abs() * sg + silu(g).abs() * su)
        })
        .collect()
}

/// `moe.fused_experts`: each row's weighted sum over its chosen experts held here of the
/// expert's SwiGLU MLP (f64, rounded once). With `scale`, the error scale of each output
/// instead: the magnitudes of every term through the down projection.
pub fn moe_fused_experts(
    out: &mut [f32],
    args: (&[f32], &[i32], &[f32], &[f32], &[f32]),
    s: &MoeShape,
    scale: bool,
) {
    let (x, ids, weights, wgu, wd) = args;
    let (h, f) = (s.hidden, s.inter);
    assert_eq!(out.len(), s.tokens * h);
    for t in 0..s.tokens {
        let xr = &x[t * h..(t + 1) * h];
        let mut acc = vec![0f64; h];
        for j in 0..s.topk {
            let Some(e) = held_expert(ids, t, j, s) else {
                continue;
            };
            let wj = weights[t * s.topk + j] as f64;
            let act = expert_activations(xr, wgu, s, e);
            let down = &wd[e * h * f..(e + 1) * h * f];
            for (o, a) in acc.iter_mut().enumerate() {
                let row = &down[o * f..(o + 1) * f];
                let term: f64 = if scale {
                    row.iter()
                        .zip(&act)
                        .map(|(&d, &(v, sv))| (d as f64).abs() * (v.abs() + sv))
                        .sum::<f64>()
                        * wj.abs()
                } else {
                    row.iter()
                        .zip(&act)
                        .map(|(&d, &(v, _))| d as f64 * v)
                        .sum::<f64>()
                        * wj
                };
                *a += term;
            }
        }
        for (o, a) in out[t * h..(t + 1) * h].iter_mut().zip(acc) {
            *o = a as f32;
        }
    }
}

/// The shape of a `moe.fused_experts` call from its arguments.
pub fn moe_shape(args: &SlotArgs) -> MoeShape {
    let s = |name: &str| args.shape_value(name) as usize;
    MoeShape {
        tokens: s("tokens"),
        hidden: s("hidden"),
        inter: s("inter"),
        experts: s("experts"),
        topk: s("topk"),
        first_expert: s("first_expert"),
    }
}

fn moe_inputs(args: &SlotArgs) -> (&[f32], &[i32], &[f32], &[f32], &[f32]) {
    (
        args.input_f32(0),
        args.input_i32(1),
        args.input_f32(2),
        args.input_f32(3),
        args.input_f32(4),
    )
}

/// Runs the reference for a whole argument set and returns the expected outputs, one
/// vector per output parameter in ABI order. `args`' own output buffers are not touched,
/// so a kernel's outputs never see the reference's.
pub fn compute(args: &SlotArgs) -> Vec<Vec<f32>> {
    let s = |name: &str| args.shape_value(name) as usize;
    let mut outs: Vec<Vec<f32>> = args
        .output_lens()
        .into_iter()
        .map(|n| vec![0f32; n])
        .collect();
    match args.slot {
        SlotId::SiluAndMul => {
            silu_and_mul(&mut outs[0], args.input_f32(0), s("tokens"), s("d"));
        }
        SlotId::RmsNorm => {
            let (x, w) = (args.input_f32(0), args.input_f32(1));
            rmsnorm(
                &mut outs[0],
                x,
                w,
                args.scalars[0],
                s("tokens"),
                s("hidden"),
            );
        }
        SlotId::FusedAddRmsNorm => {
            let (a, b) = outs.split_at_mut(1);
            let (x, r, w) = (args.input_f32(0), args.input_f32(1), args.input_f32(2));
            let eps = args.scalars[0];
            fused_add_rmsnorm(&mut a[0], &mut b[0], x, r, w, eps, s("tokens"), s("hidden"));
        }
        SlotId::Rope => {
            let (a, b) = outs.split_at_mut(1);
            let (q, k, pos) = (args.input_f32(0), args.input_f32(1), args.input_i32(2));
            rope(
                &mut a[0],
                &mut b[0],
                q,
                k,
                pos,
                args.scalars[0],
                s("tokens"),
                s("q_heads"),
                s("kv_heads"),
                s("head_dim"),
            );
        }
        SlotId::AttentionDecode => {
            let (q, kc, vc) = (args.input_f32(0), args.input_f32(1), args.input_f32(2));
            attention_decode(
                &mut outs[0],
                q,
                kc,
                vc,
                args.input_i32(3),
                args.scalars[0],
                s("batch"),
                s("q_heads"),
                s("kv_heads"),
                s("head_dim"),
                s("max_seq"),
            );
        }
        SlotId::LinearMatmul => {
            let (x, w) = (args.input_f32(0), args.input_f32(1));
            let (t, o, i) = (s("tokens"), s("out_features"), s("in_features"));
            linear_matmul(&mut outs[0], x, w, t, o, i);
        }
        SlotId::GateUpSilu => {
            let (x, w) = (args.input_f32(0), args.input_f32(1));
            let (t, f, h) = (s("tokens"), s("inter"), s("hidden"));
            gate_up_silu(&mut outs[0], x, w, t, f, h);
        }
        SlotId::AllReduce => {
            let (t, h, world) = (s("tokens"), s("hidden"), s("world"));
            all_reduce(&mut outs[0], args.input_f32(0), t, h, world);
        }
        SlotId::MoeFusedExperts => {
            moe_fused_experts(&mut outs[0], moe_inputs(args), &moe_shape(args), false);
        }
        // The seam is its members' references in a row: the sum rounded to f32, as the
        // all-reduce's output would be.
        SlotId::ArResidualRmsNorm => {
            let (t, h, world) = (s("tokens"), s("hidden"), s("world"));
            let mut x = vec![0f32; t * h];
            all_reduce(&mut x, args.input_f32(0), t, h, world);
            let (r, w, eps) = (args.input_f32(1), args.input_f32(2), args.scalars[0]);
            let (a, b) = outs.split_at_mut(1);
            fused_add_rmsnorm(&mut a[0], &mut b[0], &x, r, w, eps, t, h);
        }
        SlotId::AttentionPrefill => {
            let (q, kc, vc) = (args.input_f32(0), args.input_f32(1), args.input_f32(2));
            attention_prefill(
                &mut outs[0],
                q,
                kc,
                vc,
                args.input_i32(3),
                args.scalars[0],
                [
                    s("tokens"),
                    s("q_heads"),
                    s("kv_heads"),
                    s("head_dim"),
                    s("kv_len"),
                ],
            );
        }
    }
    outs
}

/// Per output, the magnitude each element's rounding error grows with, where that can be
/// far above the element itself: for `linear.matmul`, `sum_i |x[t, i] * w[o, i]|` (a sum
/// of large terms that cancel is exact only to a fraction of the terms); for
/// `mlp.gate_up_silu` those sums of its two products carried through `silu(g) · u`
/// (`|silu'(g) · u| · S_g + |silu(g)| · S_u`); for `collective.all_reduce` the sum of the
/// ranks' magnitudes (partials that cancel leave an f32 sum exact only to a fraction of
/// them); `None` for the other slots' outputs.
pub fn error_scales(args: &SlotArgs) -> Vec<Option<Vec<f32>>> {
    let s = |name: &str| args.shape_value(name) as usize;
    match args.slot {
        SlotId::LinearMatmul => {
            let (x, w) = (args.input_f32(0), args.input_f32(1));
            let (tokens, n, k) = (s("tokens"), s("out_features"), s("in_features"));
            let mut scale = vec![0f32; tokens * n];
            for t in 0..tokens {
                let xr = &x[t * k..(t + 1) * k];
                for o in 0..n {
                    let wr = &w[o * k..(o + 1) * k];
                    let sum: f64 = xr
                        .iter()
                        .zip(wr)
                        .map(|(&a, &b)| (a as f64 * b as f64).abs())
                        .sum();
                    scale[t * n + o] = sum as f32;
                }
            }
            vec![Some(scale)]
        }
        SlotId::GateUpSilu => {
            let (x, w) = (args.input_f32(0), args.input_f32(1));
            let (tokens, inter, k) = (s("tokens"), s("inter"), s("hidden"));
            let sums = |xr: &[f32], o: usize| -> (f64, f64) {
                let wr = &w[o * k..(o + 1) * k];
                xr.iter().zip(wr).fold((0.0, 0.0), |(v, a), (&x, &w)| {
                    let p = x as f64 * w as f64;
                    (v + p, a + p.abs())
                })
            };
            let mut scale = vec![0f32; tokens * inter];
            for t in 0..tokens {
                let xr = &x[t * k..(t + 1) * k];
                for o in 0..inter {
                    let ((g, sg), (u, su)) = (sums(xr, o), sums(xr, inter + o));
                    let sig = 1.0 / (1.0 + (-g).exp());
                    let d_silu = sig * (1.0 + g * (1.0 - sig));
                    scale[t * inter + o] = ((d_silu * u).abs() * sg + silu(g).abs() * su) as f32;
                }
            }
            vec![Some(scale)]
        }
        SlotId::MoeFusedExperts => {
            let mut scale = vec![0f32; args.output_lens()[0]];
            moe_fused_experts(&mut scale, moe_inputs(args), &moe_shape(args), true);
            vec![Some(scale)]
        }
        SlotId::AllReduce => {
            let p = args.input_f32(0);
            let n = s("tokens") * s("hidden");
            let scale = (0..n)
                .map(|e| (0..s("world")).map(|r| p[r * n + e].abs()).sum())
                .collect();
            vec![Some(scale)]
        }
        // The seam: the residual output's error grows with the magnitudes summed into it
        // (the ranks' partials and the residual), the normed output's with those times the
        // row's RMS scale and the weight.
        SlotId::ArResidualRmsNorm => {
            let (p, res, w) = (args.input_f32(0), args.input_f32(1), args.input_f32(2));
            let (tokens, hidden, world) = (s("tokens"), s("hidden"), s("world"));
            let n = tokens * hidden;
            let magnitude = |e: usize| -> f64 {
                (0..world).map(|r| p[r * n + e].abs() as f64).sum::<f64>() + res[e].abs() as f64
            };
            let value = |e: usize| -> f64 {
                (0..world).map(|r| p[r * n + e] as f64).sum::<f64>() + res[e] as f64
            };
            let mut norm_scale = vec![0f32; n];
            let mut res_scale = vec![0f32; n];
            for t in 0..tokens {
                let row = t * hidden..(t + 1) * hidden;
                let ms = row.clone().map(|e| value(e).powi(2)).sum::<f64>() / hidden as f64;
                let rms = 1.0 / (ms + args.scalars[0] as f64).sqrt();
                for (i, e) in row.enumerate() {
                    res_scale[e] = magnitude(e) as f32;
                    norm_scale[e] = (magnitude(e) * rms * w[i].abs() as f64) as f32;
                }
            }
            vec![Some(norm_scale), Some(res_scale)]
        }
        _ => vec![None; args.output_lens().len()],
    }
}

/// Judges one call: its outputs (`actual`, ABI order) against the reference's (`expected`,
/// from [`compute`]) by the slot's check, with [`error_scales`]. One report per output.
pub fn judge(
    args: &SlotArgs,
    actual: &[Vec<f32>],
    expected: &[Vec<f32>],
    tol: Tolerance,
) -> Vec<CompareReport> {
    let check = args.slot.spec().check;
    let scales = error_scales(args);
    actual
        .iter()
        .zip(expected)
        .zip(&scales)
        .map(|((a, e), scale)| check_scaled(check, a, e, scale.as_deref(), tol))
        .collect()
}

/// The most work (the product of a call's shape values: for `linear.matmul` its
/// multiply-adds) the f64 reference does for one call on the referee's CPU. A larger call
/// (the GPU arena's 2048-token prefill products, up to 2^38) is judged on a secret sample
/// of its rows instead of being skipped: a kernel that saves work on large calls saves it
/// on most of their rows, and cannot know which rows are checked.
pub const MAX_REFERENCE_WORK: u64 = 1 << 30;

/// What the reference says a call gives, with the error scales its outputs are judged
/// with ([`error_scales`]): everything a judgement needs that does not depend on the
/// kernel's outputs, so it can be computed while the kernel runs.
#[derive(Clone, Debug)]
pub struct Expectation {
    pub expected: Vec<Vec<f32>>,
    pub scales: Vec<Option<Vec<f32>>>,
}

/// The reference's outputs and error scales for `args`.
pub fn expect(args: &SlotArgs) -> Expectation {
    Expectation {
        expected: compute(args),
        scales: error_scales(args),
    }
}

/// [`judge`] with the expectation computed beforehand ([`expect`]) for a call of `slot`.
pub fn judge_expected(
    slot: SlotId,
    actual: &[Vec<f32>],
    e: &Expectation,
    tol: Tolerance,
) -> Vec<CompareReport> {
    let check = slot.spec().check;
    actual
        .iter()
        .zip(&e.expected)
        .zip(&e.scales)
        .map(|((a, x), scale)| check_scaled(check, a, x, scale.as_deref(), tol))
        .collect()
}

/// The work of a call's reference, as [`MAX_REFERENCE_WORK`] counts it: the product of its
/// shape values, twice that for the MLP seam (two products a feature).
pub fn reference_work(args: &SlotArgs) -> u64 {
    let products = if args.slot == SlotId::GateUpSilu {
        2
    } else {
        1
    };
    args.shape
        .iter()
        .map(|&v| v.max(1) as u64)
        .fold(products, |a, v| a.saturating_mul(v))
}

/// The rows (of the slot's leading symbol, `tokens` or `batch`) a call is judged on:
/// `None` (every row) when its reference fits `max_work`, else as many distinct rows as
/// fit (at least two, or every row there is), drawn from `rng`, in ascending order.
pub fn sampled_rows(args: &SlotArgs, max_work: u64, rng: &mut Rng) -> Option<Vec<usize>> {
    let work = reference_work(args);
    if work <= max_work {
        return None;
    }
    let lead = args.shape.first().copied().unwrap_or(0).max(0) as u64;
    let per_row = (work / lead.max(1)).max(1);
    let k = (max_work / per_row).clamp(2, lead.max(1));
    if k >= lead {
        return None;
    }
    let mut rows = std::collections::BTreeSet::new();
    while (rows.len() as u64) < k {
        rows.insert(rng.below(lead) as usize);
    }
    Some(rows.into_iter().collect())
}

/// One call as judged against the reference: whole, or on some rows only.
#[derive(Clone, Debug)]
pub struct Judged {
    /// One report per output, by the slot's check.
    pub reports: Vec<CompareReport>,
    /// The kernel's outputs on the judged rows (ABI order).
    pub actual: Vec<Vec<f32>>,
    /// The reference's outputs on the same rows.
    pub expected: Vec<Vec<f32>>,
}

/// Judges one call: whole (`rows` is `None`), or on `rows` of its leading symbol only
/// (from [`sampled_rows`]), the kernel's outputs restricted to the same rows.
pub fn judge_rows(
    args: &SlotArgs,
    actual: &[Vec<f32>],
    rows: Option<&[usize]>,
    tol: Tolerance,
) -> Judged {
    // The whole call is judged on `args` itself (no copy of its inputs: the audit's calls
    // carry whole weight matrices).
    let sub;
    let (args, actual) = match rows {
        None => (args, actual.to_vec()),
        Some(rows) => {
            sub = args.select_rows(rows);
            let part = actual
                .iter()
                .enumerate()
                .map(|(i, a)| args.output_rows(i, a, rows))
                .collect();
            (&sub, part)
        }
    };
    let expected = compute(args);
    Judged {
        reports: judge(args, &actual, &expected, tol),
        actual,
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ar_residual_rmsnorm_is_its_members_references_in_a_row() {
        let (t, h, world) = (3, 20, 3);
        let args = crate::slots::cases::generate(SlotId::ArResidualRmsNorm, &[3, 20, 3, 1], 4);
        let mut x = vec![0f32; t * h];
        all_reduce(&mut x, args.input_f32(0), t, h, world);
        let (mut norm, mut res) = (vec![0f32; t * h], vec![0f32; t * h]);
        let (r, w) = (args.input_f32(1), args.input_f32(2));
        fused_add_rmsnorm(&mut norm, &mut res, &x, r, w, args.scalars[0], t, h);
        assert_eq!(compute(&args), vec![norm, res]);
        // The two outputs' error scales: the magnitudes summed into each element.
        let scales = error_scales(&args);
        assert!(scales
            .iter()
            .all(|s| s.as_ref().is_some_and(|v| v.len() == t * h)));
        let p = args.input_f32(0);
        let want = p[0].abs() + p[t * h].abs() + p[2 * t * h].abs() + r[0].abs();
        assert!((scales[1].as_ref().unwrap()[0] - want).abs() <= 1e-6 * want);
    }

    #[test]
    fn gate_up_silu_is_its_members_references_in_a_row() {
        let (tokens, inter, hidden) = (3, 5, 7);
        let args = crate::slots::cases::generate(SlotId::GateUpSilu, &[3, 5, 7], 2);
        let (x, w) = (args.input_f32(0), args.input_f32(1));
        let mut gate_up = vec![0f32; tokens * 2 * inter];
        linear_matmul(&mut gate_up, x, w, tokens, 2 * inter, hidden);
        let mut members = vec![0f32; tokens * inter];
        silu_and_mul(&mut members, &gate_up, tokens, inter);
        let fused = compute(&args).remove(0);
        for (f, m) in fused.iter().zip(&members) {
            // The members round the products to f32 before SwiGLU; the seam does not.
            assert!((f - m).abs() <= 1e-6 * (1.0 + m.abs()), "{f} vs {m}");
        }
        // One known value: x = [1, 2], gate row [1, 1] (g = 3), up row [0, 2] (u = 4).
        let mut out = [0f32; 1];
        gate_up_silu(&mut out, &[1.0, 2.0], &[1.0, 1.0, 0.0, 2.0], 1, 1, 2);
        let want = 3.0 / (1.0 + (-3.0f64).exp()) * 4.0;
        assert!((out[0] as f64 - want).abs() < 1e-6);
    }

    #[test]
    fn silu_and_mul_known_values() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let mut out = [0f32; 2];
        silu_and_mul(&mut out, &x, 1, 2);
        assert_eq!(out[0], 0.0);
        let silu1 = 1.0 / (1.0 + (-1f64).exp());
        assert!((out[1] as f64 - silu1 * 3.0).abs() < 1e-6);
    }

    #[test]
    fn attention_prefill_at_position_zero_returns_the_first_value_row() {
        // tokens 3, q_heads 4, kv_heads 2, head_dim 2, kv_len 3: every row sees key 0 only.
        let q: Vec<f32> = (0..3 * 4 * 2).map(|i| i as f32 * 0.37 - 2.0).collect();
        let k: Vec<f32> = (0..3 * 2 * 2).map(|i| i as f32).collect();
        let v: Vec<f32> = (0..3 * 2 * 2).map(|i| 10.0 + i as f32).collect();
        let mut out = vec![f32::NAN; q.len()];
        attention_prefill(&mut out, &q, &k, &v, &[0, 0, 0], 0.5, [3, 4, 2, 2, 3]);
        for t in 0..3 {
            for h in 0..4 {
                let kvh = h / 2;
                assert_eq!(
                    &out[(t * 4 + h) * 2..][..2],
                    &v[kvh * 2..][..2],
                    "t {t} h {h}"
                );
            }
        }
        // Row 1 at position 1 averages the first two value rows by their softmax weights.
        attention_prefill(&mut out, &q, &k, &v, &[0, 1, 0], 0.5, [3, 4, 2, 2, 3]);
        let (qv, k0, k1) = (&q[8..10], &k[0..2], &k[4..6]);
        let s = |kk: &[f32]| 0.5 * (qv[0] * kk[0] + qv[1] * kk[1]) as f64;
        let (a, b) = (s(k0).exp(), s(k1).exp());
        let want = (a * v[0] as f64 + b * v[4] as f64) / (a + b);
        assert!((out[8] as f64 - want).abs() < 1e-4, "{} vs {want}", out[8]);
    }

    #[test]
    fn rmsnorm_unit_rows() {
        let x = [3.0, 4.0];
        let mut out = [0f32; 2];
        rmsnorm(&mut out, &x, &[1.0, 2.0], 0.0, 1, 2);
        let r = (12.5f64).sqrt();
        assert!((out[0] as f64 - 3.0 / r).abs() < 1e-6);
        assert!((out[1] as f64 - 8.0 / r).abs() < 1e-6);
    }

    #[test]
    fn rope_at_position_zero_is_identity_and_preserves_norm() {
        let q: Vec<f32> = (0..8).map(|i| i as f32 - 3.5).collect();
        let k = q.clone();
        let (mut qo, mut ko) = (vec![0f32; 8], vec![0f32; 8]);
        rope(&mut qo, &mut ko, &q, &k, &[0], 10000.0, 1, 1, 1, 8);
        assert_eq!(qo, q);
        rope(&mut qo, &mut ko, &q, &k, &[37], 10000.0, 1, 1, 1, 8);
        let n = |v: &[f32]| v.iter().map(|&a| a as f64 * a as f64).sum::<f64>();
        assert!((n(&qo) - n(&q)).abs() < 1e-4);
        // Pair (0, 4) rotates by 37 rad exactly.
        let (s, c) = 37f64.sin_cos();
        assert!((qo[0] as f64 - (-3.5 * c - 0.5 * s)).abs() < 1e-6);
    }

    #[test]
    fn large_calls_are_judged_on_a_secret_sample_of_rows() {
        use crate::slots::cases::generate;
        let args = generate(SlotId::LinearMatmul, &[64, 40, 24], 3);
        let good = compute(&args);
        let mut rng = Rng::new(1);
        // Small enough for the whole reference: every row.
        assert_eq!(sampled_rows(&args, 64 * 40 * 24, &mut rng), None);
        // Room for 8 rows of 40 x 24: 8 distinct rows, ascending.
        let rows = sampled_rows(&args, 8 * 40 * 24, &mut rng).unwrap();
        assert_eq!(rows.len(), 8);
        assert!(rows.windows(2).all(|w| w[0] < w[1]) && rows[7] < 64);
        // Never fewer than two rows, whatever the budget.
        assert_eq!(sampled_rows(&args, 1, &mut rng).unwrap().len(), 2);
        let tol = crate::slots::Dtype::F32.tolerance();
        let judged = judge_rows(&args, &good, Some(&rows), tol);
        assert!(judged.reports.iter().all(|r| r.passed));
        assert_eq!(judged.actual[0].len(), 8 * 40);
        // A kernel that skips half of every row's products is caught on any row.
        let lazy: Vec<f32> = {
            let mut half = args.clone();
            let x = half.input_f32(0).to_vec();
            let x: Vec<f32> = x
                .chunks(24)
                .flat_map(|r| {
                    r.iter()
                        .enumerate()
                        .map(|(i, &v)| if i < 12 { v } else { 0.0 })
                })
                .collect();
            half.inputs[0] = crate::slots::args::Buffer::F32(x);
            compute(&half).remove(0)
        };
        let judged = judge_rows(&args, &[lazy], Some(&rows), tol);
        assert!(!judged.reports[0].passed);
    }

    #[test]
    fn linear_matmul_known_values() {
        // x = [[1, 2], [3, -1]], w = [[1, 0], [0.5, 2], [-1, 1]]: y = x · wᵀ.
        let (x, w) = ([1.0, 2.0, 3.0, -1.0], [1.0, 0.0, 0.5, 2.0, -1.0, 1.0]);
        let mut y = [0f32; 6];
        linear_matmul(&mut y, &x, &w, 2, 3, 2);
        assert_eq!(y, [1.0, 4.5, 1.0, 3.0, -0.5, -4.0]);
    }

    #[test]
    fn attention_single_position_returns_value_and_respects_gqa() {
        // batch 1, q_heads 2, kv_heads 1, head_dim 2, max_seq 2, seq_len 1.
        let q = [1.0, 0.0, 0.0, 1.0];
        let k = [0.5, 0.5, 9.0, 9.0];
        let v = [2.0, -1.0, 100.0, 100.0];
        let mut out = [0f32; 4];
        attention_decode(&mut out, &q, &k, &v, &[1], 1.0, 1, 2, 1, 2, 2);
        assert_eq!(out, [2.0, -1.0, 2.0, -1.0]);
        // Two equal scores average the values.
        let k = [1.0, 1.0, 1.0, 1.0];
        attention_decode(&mut out, &q, &k, &v, &[2], 1.0, 1, 2, 1, 2, 2);
        assert_eq!(out, [51.0, 49.5, 51.0, 49.5]);
    }
}
