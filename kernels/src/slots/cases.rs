//! Seeded verification inputs for every slot: values that give O(1) outputs, rows of
//! varied scale, ragged sequence lengths, and KV cache tails (past `seq_lens`) filled with
//! large values so reading them is visible. The special-value sets (zeros, large
//! magnitudes, denormals) belong to the qualification step and build on these.

use crate::rng::Rng;
use crate::slots::args::{Buffer, SlotArgs};
use crate::slots::SlotId;

/// Value written past each sequence's length in the KV caches.
pub const CACHE_TAIL_VALUE: f32 = 1.0e4;

/// A product's input rows `[tokens, width]`, of varied scale (1/4 to 2, by row).
fn product_rows(rng: &mut Rng, tokens: usize, width: usize) -> Vec<f32> {
    (0..tokens)
        .flat_map(|t| {
            let scale = 2f32.powi((t % 4) as i32 - 2);
            rng.fill_uniform(width, 2.0)
                .into_iter()
                .map(move |v| v * scale)
        })
        .collect()
}

/// Inputs for one call of `slot` at `shape` (values per shape symbol, ABI order).
pub fn generate(slot: SlotId, shape: &[i64], seed: u64) -> SlotArgs {
    let mut rng = Rng::derive(seed, slot.as_str());
    let s: Vec<usize> = shape.iter().map(|&v| v as usize).collect();
    let (inputs, scalars) = match slot {
        SlotId::SiluAndMul => silu_and_mul(&mut rng, &s),
        SlotId::RmsNorm | SlotId::FusedAddRmsNorm => norm(&mut rng, &s, slot),
        SlotId::Rope => rope(&mut rng, &s),
        SlotId::AttentionDecode => attention_decode(&mut rng, &s),
        SlotId::AttentionPrefill => attention_prefill(&mut rng, &s),
        SlotId::LinearMatmul | SlotId::GateUpSilu => products(&mut rng, &s, slot),
        SlotId::AllReduce | SlotId::ArResidualRmsNorm => collective(&mut rng, &s, slot),
        SlotId::MoeFusedExperts => moe_fused_experts(&mut rng, &s),
    };
    SlotArgs::new(slot, shape.to_vec(), inputs, scalars).expect("generated inputs fit the ABI")
}

/// A call's inputs (ABI order) and its `float` scalars.
type Inputs = (Vec<Buffer>, Vec<f32>);

/// `activation.silu_and_mul`: the gate half of each row wide (within ±6), the up half
/// within ±2.
fn silu_and_mul(rng: &mut Rng, s: &[usize]) -> Inputs {
    let (tokens, d) = (s[0], s[1]);
    let mut x = Vec::with_capacity(tokens * 2 * d);
    for _ in 0..tokens {
        x.extend(rng.fill_uniform(d, 6.0));
        x.extend(rng.fill_uniform(d, 2.0));
    }
    (vec![Buffer::F32(x)], vec![])
}

/// `norm.rmsnorm` and `norm.fused_add_rmsnorm`: rows of varied scale, weights near 1.
fn norm(rng: &mut Rng, s: &[usize], slot: SlotId) -> Inputs {
    let (tokens, hidden) = (s[0], s[1]);
    let rows = |rng: &mut Rng| -> Vec<f32> {
        // Row t has scale 2^(t mod 7 - 3): per-row work cannot be copied.
        (0..tokens)
            .flat_map(|t| {
                let scale = 2f32.powi((t % 7) as i32 - 3);
                rng.fill_uniform(hidden, 2.0)
                    .into_iter()
                    .map(move |v| v * scale)
            })
            .collect()
    };
    let x = rows(rng);
    let w: Vec<f32> = (0..hidden).map(|_| rng.uniform(0.25, 1.75)).collect();
    let eps = 1e-6;
    if slot == SlotId::RmsNorm {
        (vec![Buffer::F32(x), Buffer::F32(w)], vec![eps])
    } else {
        let r = rows(rng);
        (
            vec![Buffer::F32(x), Buffer::F32(r), Buffer::F32(w)],
            vec![eps],
        )
    }
}

/// `position.rope`: random positions below 8192, theta 10 000 or 500 000.
fn rope(rng: &mut Rng, s: &[usize]) -> Inputs {
    let (tokens, q_heads, kv_heads, head_dim) = (s[0], s[1], s[2], s[3]);
    let q = rng.fill_uniform(tokens * q_heads * head_dim, 2.0);
    let k = rng.fill_uniform(tokens * kv_heads * head_dim, 2.0);
    let positions: Vec<i32> = (0..tokens).map(|_| rng.below(8192) as i32).collect();
    let theta = if rng.below(2) == 0 {
        10_000.0
    } else {
        500_000.0
    };
    let inputs = vec![Buffer::F32(q), Buffer::F32(k), Buffer::I32(positions)];
    (inputs, vec![theta])
}

/// `attention.decode`: ragged sequence lengths (the first at the cache's length), the
/// caches' tails past them large.
fn attention_decode(rng: &mut Rng, s: &[usize]) -> Inputs {
    let (batch, q_heads, kv_heads, head_dim, max_seq) = (s[0], s[1], s[2], s[3], s[4]);
    let q = rng.fill_uniform(batch * q_heads * head_dim, 3.0);
    let seq_lens: Vec<i32> = (0..batch)
        .map(|b| {
            if b == 0 {
                max_seq
            } else {
                1 + rng.below(max_seq as u64) as usize
            }
        })
        .map(|n| n as i32)
        .collect();
    let row = kv_heads * head_dim;
    let cache = |rng: &mut Rng| -> Vec<f32> {
        let mut c = rng.fill_uniform(batch * max_seq * row, 2.0);
        for (b, &len) in seq_lens.iter().enumerate() {
            let tail = (b * max_seq + len as usize) * row..(b + 1) * max_seq * row;
            c[tail].fill(CACHE_TAIL_VALUE);
        }
        c
    };
    let (k, v) = (cache(rng), cache(rng));
    let scale = 1.0 / (head_dim as f32).sqrt();
    let inputs = vec![
        Buffer::F32(q),
        Buffer::F32(k),
        Buffer::F32(v),
        Buffer::I32(seq_lens),
    ];
    (inputs, vec![scale])
}

/// `attention.prefill`: a prompt's rows at the cache's end, some moved earlier, the cache
/// past the last position large.
fn attention_prefill(rng: &mut Rng, s: &[usize]) -> Inputs {
    let (tokens, q_heads, kv_heads, head_dim, kv_len) = (s[0], s[1], s[2], s[3], s[4]);
    let q = rng.fill_uniform(tokens * q_heads * head_dim, 3.0);
    // A prompt's positions (the last `tokens` of the cache, as the engine calls
    // it), with every fifth row moved to a random earlier position: the rows'
    // positions are the ABI's, not implied by their order.
    let positions: Vec<i32> = (0..tokens)
        .map(|t| {
            let natural = (kv_len + t).saturating_sub(tokens);
            if t % 5 == 2 {
                rng.below(kv_len as u64) as usize
            } else {
                natural
            }
        })
        .map(|p| p as i32)
        .collect();
    let row = kv_heads * head_dim;
    // Cache rows past every position are never attended to: large values there
    // make reading them visible.
    let last = positions.iter().copied().max().unwrap_or(0) as usize;
    let cache = |rng: &mut Rng| -> Vec<f32> {
        let mut c = rng.fill_uniform(kv_len * row, 2.0);
        let tail = ((last + 1) * row).min(c.len());
        c[tail..].fill(CACHE_TAIL_VALUE);
        c
    };
    let (k, v) = (cache(rng), cache(rng));
    let scale = 1.0 / (head_dim as f32).sqrt();
    let inputs = vec![
        Buffer::F32(q),
        Buffer::F32(k),
        Buffer::F32(v),
        Buffer::I32(positions),
    ];
    (inputs, vec![scale])
}

/// `linear.matmul` and `mlp.gate_up_silu`. The seam's weight is two products' stacked:
/// generated like `linear.matmul`'s over `2 * inter` output features.
fn products(rng: &mut Rng, s: &[usize], slot: SlotId) -> Inputs {
    let (tokens, in_features) = (s[0], s[2]);
    let out_features = if slot == SlotId::GateUpSilu {
        2 * s[1]
    } else {
        s[1]
    };
    // Rows of varied scale (1/4 to 2); weights scaled by 1/sqrt(in) so outputs
    // stay O(1) at every width, with every 97th output feature 4x larger. (Wider
    // ranges make honest f32 accumulation miss the f32 tolerance by cancellation.)
    let x: Vec<f32> = product_rows(rng, tokens, in_features);
    let ws = 1.0 / (in_features as f32).sqrt();
    // The weights are most of a large case's inputs (the LM head's 525 M): generated on
    // several threads, the same numbers as one.
    let w = rng.fill_scaled_rows(out_features, in_features, 2.0, |o| {
        if o % 97 == 5 {
            4.0 * ws
        } else {
            ws
        }
    });
    (vec![Buffer::F32(x), Buffer::F32(w)], vec![])
}

/// `collective.all_reduce` and `collective.ar_residual_rmsnorm`. Every rank's partials, of
/// varied scale by rank and row, drawn from the seed and the shape's (tokens, hidden,
/// world) only: every rank of one shape sees the same rows, so their results can be
/// compared with each other.
fn collective(rng: &mut Rng, s: &[usize], slot: SlotId) -> Inputs {
    let (tokens, hidden, world) = (s[0], s[1], s[2]);
    let partials: Vec<f32> = (0..world * tokens)
        .flat_map(|rt| {
            let scale = 2f32.powi((rt % 5) as i32 - 2);
            rng.fill_uniform(hidden, 2.0)
                .into_iter()
                .map(move |v| v * scale)
        })
        .collect();
    if slot == SlotId::AllReduce {
        (vec![Buffer::F32(partials)], vec![])
    } else {
        let residual = rng.fill_uniform(tokens * hidden, 4.0);
        let w: Vec<f32> = rng
            .fill_uniform(hidden, 0.2)
            .into_iter()
            .map(|v| 1.0 + v)
            .collect();
        let inputs = vec![Buffer::F32(partials), Buffer::F32(residual), Buffer::F32(w)];
        (inputs, vec![1e-5])
    }
}

/// `moe.fused_experts`. Rows of varied scale; each row's chosen experts distinct, drawn
/// from more experts than are held here (ids below `first_expert` and past the held block
/// belong to other ranks), weights a softmax of random scores; expert weights scaled like
/// `linear.matmul`'s.
fn moe_fused_experts(rng: &mut Rng, s: &[usize]) -> Inputs {
    let (tokens, hidden, inter, experts, topk, first) = (s[0], s[1], s[2], s[3], s[4], s[5]);
    let total = (first + experts + 2).max(topk);
    let x: Vec<f32> = product_rows(rng, tokens, hidden);
    let mut ids = Vec::with_capacity(tokens * topk);
    let mut weights = Vec::with_capacity(tokens * topk);
    for _ in 0..tokens {
        let mut chosen: Vec<i32> = Vec::with_capacity(topk);
        while chosen.len() < topk {
            let id = rng.below(total as u64) as i32;
            if !chosen.contains(&id) {
                chosen.push(id);
            }
        }
        let scores: Vec<f32> = (0..topk).map(|_| rng.uniform(-2.0, 2.0)).collect();
        let sum: f32 = scores.iter().map(|v| v.exp()).sum();
        weights.extend(scores.iter().map(|v| v.exp() / sum));
        ids.extend(chosen);
    }
    let (wh, wf) = (1.0 / (hidden as f32).sqrt(), 1.0 / (inter as f32).sqrt());
    let w_gate_up: Vec<f32> = rng
        .fill_uniform(experts * 2 * inter * hidden, 2.0)
        .into_iter()
        .map(|v| v * wh)
        .collect();
    let w_down: Vec<f32> = rng
        .fill_uniform(experts * hidden * inter, 2.0)
        .into_iter()
        .map(|v| v * wf)
        .collect();
    let inputs = vec![
        Buffer::F32(x),
        Buffer::I32(ids),
        Buffer::F32(weights),
        Buffer::F32(w_gate_up),
        Buffer::F32(w_down),
    ];
    (inputs, vec![])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verification_shape_generates_valid_args() {
        for slot in SlotId::ALL {
            for shape in slot.spec().verification_shapes {
                let a = generate(slot, shape, 1);
                let b = generate(slot, shape, 1);
                assert_eq!(a.inputs, b.inputs, "{slot} not deterministic");
                assert!(a.outputs.iter().all(|o| o.iter().all(|v| v.is_nan())));
            }
        }
        let a = generate(SlotId::Rope, &[3, 2, 1, 8], 1);
        let b = generate(SlotId::Rope, &[3, 2, 1, 8], 2);
        assert_ne!(a.inputs, b.inputs);
    }
}
