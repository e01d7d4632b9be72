//! The registry's table (DESIGN 5 and 5.1): every slot's id, ABI parameter list, shape
//! symbols, correctness check and fixed verification shapes, and what a [`SlotId`] learns
//! from its row (its catalog id, whether it is a seam or a collective).

use std::fmt;

use cacheon_primitives::catalog::slot;

use super::spec::{Check, Dim, Elem, Param, ParamKind, SlotId, SlotSpec, SLOT_COUNT};

impl SlotId {
    /// The catalog id, e.g. `activation.silu_and_mul`.
    pub fn as_str(self) -> &'static str {
        self.spec().id
    }

    /// Parses a catalog id; `None` for anything not in the registry.
    pub fn parse(id: &str) -> Option<SlotId> {
        SlotId::ALL.into_iter().find(|s| s.as_str() == id)
    }

    /// The slot's full specification.
    pub fn spec(self) -> &'static SlotSpec {
        &SLOTS[self.index()]
    }

    /// Whether it is a fused seam ([`SlotSpec::seam_of`]): no stock kernel, its members
    /// serve it until a kernel for it is installed.
    pub fn is_seam(self) -> bool {
        !self.spec().seam_of.is_empty()
    }

    /// Whether only an engine split over several ranks calls it: its ABI takes the
    /// caller's `rank` (`collective.*`).
    pub fn is_collective(self) -> bool {
        self.spec().symbol_index("rank").is_some()
    }

    /// The slots with a stock kernel (all but the seams), in registry order.
    pub fn with_stock() -> impl Iterator<Item = SlotId> {
        SlotId::ALL.into_iter().filter(|s| !s.is_seam())
    }
}

impl fmt::Display for SlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const fn d(symbol: &'static str) -> Dim {
    Dim { factor: 1, symbol }
}

const fn out(name: &'static str, dims: &'static [Dim]) -> Param {
    Param {
        name,
        kind: ParamKind::Output,
        elem: Some(Elem::T),
        dims,
    }
}
const fn inp(name: &'static str, dims: &'static [Dim]) -> Param {
    Param {
        name,
        kind: ParamKind::Input,
        elem: Some(Elem::T),
        dims,
    }
}
const fn inp_i32(name: &'static str, dims: &'static [Dim]) -> Param {
    Param {
        name,
        kind: ParamKind::Input,
        elem: Some(Elem::I32),
        dims,
    }
}
const fn scalar(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::ScalarF32,
        elem: None,
        dims: &[],
    }
}
const fn shape(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Shape,
        elem: None,
        dims: &[],
    }
}

/// The collective slots' verification shapes (tokens, hidden, world, rank): every rank
/// index of each (tokens, hidden, world), so that the ranks' results are compared with each
/// other at every shape a kernel's domain keeps (a domain cannot name `rank` or `world`):
/// worlds of 2, 3 and 4, a ragged width, a prefill block and a decode row of Llama-3-8B's
/// width.
const COLLECTIVE_SHAPES: &[&[i64]] = &[
    &[1, 8, 2, 0],
    &[1, 8, 2, 1],
    &[7, 1001, 3, 0],
    &[7, 1001, 3, 1],
    &[7, 1001, 3, 2],
    &[5, 256, 4, 0],
    &[5, 256, 4, 1],
    &[5, 256, 4, 2],
    &[5, 256, 4, 3],
    &[128, 4096, 2, 0],
    &[128, 4096, 2, 1],
    &[1, 4096, 4, 0],
    &[1, 4096, 4, 1],
    &[1, 4096, 4, 2],
    &[1, 4096, 4, 3],
];

static SLOTS: [SlotSpec; SLOT_COUNT] = [
    SlotSpec {
        slot: SlotId::SiluAndMul,
        id: slot::SILU_AND_MUL,
        c_name: "silu_and_mul",
        params: &[
            out("out", &[d("tokens"), d("d")]),
            inp(
                "x",
                &[
                    d("tokens"),
                    Dim {
                        factor: 2,
                        symbol: "d",
                    },
                ],
            ),
            shape("tokens"),
            shape("d"),
        ],
        check: Check::AllClose,
        // tokens, d
        verification_shapes: &[&[1, 8], &[1, 4096], &[7, 1001], &[33, 2048], &[128, 14336]],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::RmsNorm,
        id: slot::RMSNORM,
        c_name: "rmsnorm",
        params: &[
            out("out", &[d("tokens"), d("hidden")]),
            inp("x", &[d("tokens"), d("hidden")]),
            inp("w", &[d("hidden")]),
            scalar("eps"),
            shape("tokens"),
            shape("hidden"),
        ],
        check: Check::AllClose,
        // tokens, hidden
        verification_shapes: &[&[1, 4096], &[5, 1000], &[3, 7], &[17, 256], &[256, 4096]],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::FusedAddRmsNorm,
        id: slot::FUSED_ADD_RMSNORM,
        c_name: "fused_add_rmsnorm",
        params: &[
            out("out_norm", &[d("tokens"), d("hidden")]),
            out("out_residual", &[d("tokens"), d("hidden")]),
            inp("x", &[d("tokens"), d("hidden")]),
            inp("residual", &[d("tokens"), d("hidden")]),
            inp("w", &[d("hidden")]),
            scalar("eps"),
            shape("tokens"),
            shape("hidden"),
        ],
        check: Check::AllClose,
        // tokens, hidden
        verification_shapes: &[&[1, 4096], &[5, 1000], &[3, 7], &[17, 256], &[256, 4096]],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::Rope,
        id: slot::ROPE,
        c_name: "rope",
        params: &[
            out("q_out", &[d("tokens"), d("q_heads"), d("head_dim")]),
            out("k_out", &[d("tokens"), d("kv_heads"), d("head_dim")]),
            inp("q", &[d("tokens"), d("q_heads"), d("head_dim")]),
            inp("k", &[d("tokens"), d("kv_heads"), d("head_dim")]),
            inp_i32("positions", &[d("tokens")]),
            scalar("theta"),
            shape("tokens"),
            shape("q_heads"),
            shape("kv_heads"),
            shape("head_dim"),
        ],
        check: Check::AllClose,
        // tokens, q_heads, kv_heads, head_dim (head_dim is always even: rotate-half)
        verification_shapes: &[
            &[1, 32, 8, 128],
            &[13, 4, 2, 64],
            &[5, 3, 1, 10],
            &[9, 6, 3, 38],
            &[256, 32, 8, 128],
        ],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::AttentionDecode,
        id: slot::ATTENTION_DECODE,
        c_name: "attention_decode",
        params: &[
            out("out", &[d("batch"), d("q_heads"), d("head_dim")]),
            inp("q", &[d("batch"), d("q_heads"), d("head_dim")]),
            inp(
                "k_cache",
                &[d("batch"), d("max_seq"), d("kv_heads"), d("head_dim")],
            ),
            inp(
                "v_cache",
                &[d("batch"), d("max_seq"), d("kv_heads"), d("head_dim")],
            ),
            inp_i32("seq_lens", &[d("batch")]),
            scalar("scale"),
            shape("batch"),
            shape("q_heads"),
            shape("kv_heads"),
            shape("head_dim"),
            shape("max_seq"),
        ],
        check: Check::MatchedRatio { min_ppm: 990_000 },
        // batch, q_heads, kv_heads, head_dim, max_seq
        verification_shapes: &[
            &[1, 4, 2, 64, 1],
            &[1, 32, 8, 128, 300],
            &[3, 6, 3, 40, 77],
            &[5, 4, 1, 13, 19],
            &[4, 32, 8, 128, 1024],
        ],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::LinearMatmul,
        id: slot::LINEAR_MATMUL,
        c_name: "linear_matmul",
        // y = x · wᵀ with w in the checkpoints' `[out_features, in_features]` layout; f32
        // accumulation whatever T is.
        params: &[
            out("y", &[d("tokens"), d("out_features")]),
            inp("x", &[d("tokens"), d("in_features")]),
            inp("w", &[d("out_features"), d("in_features")]),
            shape("tokens"),
            shape("out_features"),
            shape("in_features"),
        ],
        check: Check::AllClose,
        // tokens, out_features, in_features: a decode row of a Llama-3-8B projection, a
        // ragged product, tiny ones, batched decode rows (8 and 5, inputs a multiple of 32,
        // features past a tile of 32, steps past a block's 8 warps), a SmolLM2-sized
        // prefill block and a wide one. The largest last: the special-value cases skip it.
        verification_shapes: &[
            &[7, 1001, 333],
            &[3, 24, 40],
            &[1, 13, 8],
            &[8, 272, 96],
            &[5, 1000, 2080],
            &[33, 1536, 576],
            &[128, 512, 256],
            &[1, 4096, 4096],
        ],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::AttentionPrefill,
        id: slot::ATTENTION_PREFILL,
        c_name: "attention_prefill",
        // Causal attention of a prompt's rows over one sequence's KV cache: row t (at
        // position positions[t], in [0, kv_len)) attends to cache rows 0..=positions[t]
        // of its KV head h / (q_heads / kv_heads).
        params: &[
            out("out", &[d("tokens"), d("q_heads"), d("head_dim")]),
            inp("q", &[d("tokens"), d("q_heads"), d("head_dim")]),
            inp("k_cache", &[d("kv_len"), d("kv_heads"), d("head_dim")]),
            inp("v_cache", &[d("kv_len"), d("kv_heads"), d("head_dim")]),
            inp_i32("positions", &[d("tokens")]),
            scalar("scale"),
            shape("tokens"),
            shape("q_heads"),
            shape("kv_heads"),
            shape("head_dim"),
            shape("kv_len"),
        ],
        check: Check::MatchedRatio { min_ppm: 990_000 },
        // tokens, q_heads, kv_heads, head_dim, kv_len: one row, a prompt after cached
        // rows, two query tiles of head dim 128, odd head dims, and a chunk of rows at a
        // long context (a 2^20-element cache).
        verification_shapes: &[
            &[1, 4, 2, 64, 7],
            &[37, 4, 2, 64, 42],
            &[70, 2, 1, 128, 70],
            &[5, 3, 1, 10, 9],
            &[9, 6, 3, 38, 20],
            &[16, 32, 8, 128, 1024],
        ],
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::GateUpSilu,
        id: slot::GATE_UP_SILU,
        c_name: "gate_up_silu",
        // The MLP's seam: `g = x · w[..inter]ᵀ`, `u = x · w[inter..]ᵀ`, `out = silu(g) · u`
        // (w is gate_proj over up_proj, each `[inter, hidden]`); f32 accumulation.
        params: &[
            out("out", &[d("tokens"), d("inter")]),
            inp("x", &[d("tokens"), d("hidden")]),
            inp(
                "w",
                &[
                    Dim {
                        factor: 2,
                        symbol: "inter",
                    },
                    d("hidden"),
                ],
            ),
            shape("tokens"),
            shape("inter"),
            shape("hidden"),
        ],
        check: Check::AllClose,
        // tokens, inter, hidden: a ragged product, tiny ones, batched decode rows (8 and 5,
        // hidden a multiple of 32, features past a tile), a SmolLM2-sized prefill block and
        // a decode row of Llama-3-8B's (a 235 M-element weight).
        verification_shapes: &[
            &[7, 501, 333],
            &[3, 12, 40],
            &[1, 7, 8],
            &[8, 136, 96],
            &[5, 500, 2080],
            &[33, 768, 576],
            &[1, 14336, 4096],
        ],
        seam_of: &[SlotId::LinearMatmul, SlotId::SiluAndMul],
    },
    SlotSpec {
        slot: SlotId::AllReduce,
        id: slot::ALL_REDUCE,
        c_name: "all_reduce",
        // Rank `rank` of a tensor-parallel engine of `world` ranks: `out[t, i] = sum over
        // r of partials[r, t, i]`, every rank's partial sums as rows in rank order (the
        // validator's exchange puts them there; the kernel only reads them). Every rank
        // must get the same bits (the engine's state after the sum is replicated).
        params: &[
            out("out", &[d("tokens"), d("hidden")]),
            inp("partials", &[d("world"), d("tokens"), d("hidden")]),
            shape("tokens"),
            shape("hidden"),
            shape("world"),
            shape("rank"),
        ],
        check: Check::AllClose,
        verification_shapes: COLLECTIVE_SHAPES,
        seam_of: &[],
    },
    SlotSpec {
        slot: SlotId::ArResidualRmsNorm,
        id: slot::AR_RESIDUAL_RMSNORM,
        c_name: "ar_residual_rmsnorm",
        // The seam of a tensor-parallel layer's o or down output: `x = sum over r of
        // partials[r]` (collective.all_reduce), then norm.fused_add_rmsnorm of x and the
        // residual: `s = x + residual` (rounded), `out_residual = s`, `out_norm =
        // rmsnorm(s) * w`. The same bits on every rank.
        params: &[
            out("out_norm", &[d("tokens"), d("hidden")]),
            out("out_residual", &[d("tokens"), d("hidden")]),
            inp("partials", &[d("world"), d("tokens"), d("hidden")]),
            inp("residual", &[d("tokens"), d("hidden")]),
            inp("w", &[d("hidden")]),
            scalar("eps"),
            shape("tokens"),
            shape("hidden"),
            shape("world"),
            shape("rank"),
        ],
        check: Check::AllClose,
        verification_shapes: COLLECTIVE_SHAPES,
        seam_of: &[SlotId::AllReduce, SlotId::FusedAddRmsNorm],
    },
    SlotSpec {
        slot: SlotId::MoeFusedExperts,
        id: slot::MOE_FUSED_EXPERTS,
        c_name: "moe_fused_experts",
        // A mixture-of-experts MLP over the experts this engine holds, `first_expert ..
        // first_expert + experts`: row t's output is the sum over its chosen experts j
        // (`topk_ids[t, j]`, global ids; one another rank holds adds nothing here) of
        // `topk_weights[t, j] * down_e(silu(x · gate_eᵀ) * (x · up_eᵀ))`, where expert e's
        // `w_gate_up[e]` is its gate over its up projection (`[2 * inter, hidden]`) and
        // `w_down[e]` its down projection (`[hidden, inter]`); f32 accumulation.
        params: &[
            out("out", &[d("tokens"), d("hidden")]),
            inp("x", &[d("tokens"), d("hidden")]),
            inp_i32("topk_ids", &[d("tokens"), d("topk")]),
            inp("topk_weights", &[d("tokens"), d("topk")]),
            inp(
                "w_gate_up",
                &[
                    d("experts"),
                    Dim {
                        factor: 2,
                        symbol: "inter",
                    },
                    d("hidden"),
                ],
            ),
            inp("w_down", &[d("experts"), d("hidden"), d("inter")]),
            shape("tokens"),
            shape("hidden"),
            shape("inter"),
            shape("experts"),
            shape("topk"),
            shape("first_expert"),
        ],
        check: Check::AllClose,
        // tokens, hidden, inter, experts held, experts a row, the first held: the whole
        // model's experts and a rank's block of them, rows whose experts are all elsewhere,
        // one expert a row, a prefill block, experts of 1.5 M weights.
        verification_shapes: &[
            &[3, 16, 8, 4, 2, 0],
            &[2, 512, 384, 4, 2, 0],
            &[5, 64, 24, 2, 2, 2],
            &[1, 48, 40, 8, 3, 0],
            &[16, 32, 16, 3, 1, 1],
            &[9, 40, 12, 1, 2, 5],
            &[33, 128, 64, 4, 2, 4],
        ],
        seam_of: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::targets::target;

    #[test]
    fn ids_round_trip_and_index_matches_order() {
        for (i, slot) in SlotId::ALL.into_iter().enumerate() {
            assert_eq!(slot.index(), i);
            assert_eq!(slot.spec().slot, slot);
            assert_eq!(SlotId::parse(slot.as_str()), Some(slot));
            assert!(target(slot.as_str()).is_some());
        }
        assert_eq!(SlotId::parse("activation.gelu"), None);
    }

    #[test]
    fn abi_order_is_outputs_inputs_scalars_shapes() {
        for slot in SlotId::ALL {
            let ranks: Vec<u8> = slot
                .spec()
                .params
                .iter()
                .map(|p| match p.kind {
                    ParamKind::Output => 0,
                    ParamKind::Input => 1,
                    ParamKind::ScalarF32 => 2,
                    ParamKind::Shape => 3,
                })
                .collect();
            assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{slot}");
        }
    }

    #[test]
    fn verification_shapes_have_ragged_single_and_large() {
        for slot in SlotId::ALL {
            let spec = slot.spec();
            let n = spec.shape_symbols().len();
            let shapes = spec.verification_shapes;
            assert!(shapes.iter().all(|s| s.len() == n), "{slot}");
            // T = 1: the leading (token/batch) symbol is 1 in some shape.
            assert!(shapes.iter().any(|s| s[0] == 1), "{slot} lacks T=1");
            // ragged: some symbol is not a multiple of 8.
            assert!(
                shapes.iter().any(|s| s.iter().any(|v| v % 8 != 0)),
                "{slot}"
            );
            // large: some tensor has at least 2^20 elements.
            let large = shapes.iter().any(|s| {
                spec.params
                    .iter()
                    .filter(|p| !p.dims.is_empty())
                    .any(|p| spec.tensor_len(p, s) >= 1 << 20)
            });
            assert!(large, "{slot} lacks a large shape");
        }
    }
}
