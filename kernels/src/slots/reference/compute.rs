//! The reference of a whole call: its slot's function run on its arguments.

use super::activation::silu_and_mul;
use super::attention::{attention_decode, attention_prefill};
use super::collective::all_reduce;
use super::linear::linear_matmul;
use super::mlp::gate_up_silu;
use super::moe::{moe_fused_experts, moe_inputs, moe_shape};
use super::norm::{fused_add_rmsnorm, rmsnorm};
use super::position::rope;
use crate::slots::args::SlotArgs;
use crate::slots::SlotId;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::reference::scales::error_scales;

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
}
