//! How far each output's rounding error may grow: the error scales the checks widen
//! their relative term by.

use super::activation::silu;
use super::moe::{moe_fused_experts, moe_inputs, moe_shape};
use crate::slots::args::SlotArgs;
use crate::slots::SlotId;

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
