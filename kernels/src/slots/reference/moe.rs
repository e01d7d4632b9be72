//! `moe.*`: a mixture-of-experts MLP over the experts one engine holds.

use super::activation::silu;
use crate::slots::args::SlotArgs;

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

/// The inputs of a `moe.fused_experts` call, in ABI order: `x`, `topk_ids`, `topk_weights`,
/// `w_gate_up`, `w_down`.
pub type MoeInputs<'a> = (&'a [f32], &'a [i32], &'a [f32], &'a [f32], &'a [f32]);

/// `moe.fused_experts`: each row's weighted sum over its chosen experts held here of the
/// expert's SwiGLU MLP (f64, rounded once). With `scale`, the error scale of each output
/// instead: the magnitudes of every term through the down projection.
pub fn moe_fused_experts(out: &mut [f32], args: MoeInputs<'_>, s: &MoeShape, scale: bool) {
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

/// A call's inputs, in ABI order.
pub(super) fn moe_inputs(args: &SlotArgs) -> MoeInputs<'_> {
    (
        args.input_f32(0),
        args.input_i32(1),
        args.input_f32(2),
        args.input_f32(3),
        args.input_f32(4),
    )
}
