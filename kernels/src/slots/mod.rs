//! The slot registry (DESIGN 5 and 5.1): every slot's id, its ABI parameter list, shape
//! symbols, correctness check and fixed verification shapes, plus the atomic targets.
//!
//! Everything here is backend-neutral: the same table drives the CPU arena (`T = float`)
//! and the CUDA arena (`T = __nv_bfloat16`).

pub mod args;
pub mod call;
pub mod cases;
pub mod compare;
pub mod probe;
pub mod reference;
pub mod stacks;

use std::fmt;

use cacheon_primitives::catalog::{slot, MOE_EPILOGUE, ROPE_DECODE};

/// The ABI version string every bundle manifest must carry.
pub const ABI_VERSION: &str = "cacheon-slot-abi-v1";

/// One of the engine's typed kernel boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SlotId {
    SiluAndMul,
    RmsNorm,
    FusedAddRmsNorm,
    Rope,
    AttentionDecode,
    LinearMatmul,
    AttentionPrefill,
    GateUpSilu,
    AllReduce,
    ArResidualRmsNorm,
    MoeFusedExperts,
}

/// How many slots the registry has.
pub const SLOT_COUNT: usize = 11;

impl SlotId {
    /// All slots, in registry order (`index()` is the position here).
    pub const ALL: [SlotId; SLOT_COUNT] = [
        SlotId::SiluAndMul,
        SlotId::RmsNorm,
        SlotId::FusedAddRmsNorm,
        SlotId::Rope,
        SlotId::AttentionDecode,
        SlotId::LinearMatmul,
        SlotId::AttentionPrefill,
        SlotId::GateUpSilu,
        SlotId::AllReduce,
        SlotId::ArResidualRmsNorm,
        SlotId::MoeFusedExperts,
    ];

    /// The catalog id, e.g. `activation.silu_and_mul`.
    pub fn as_str(self) -> &'static str {
        self.spec().id
    }

    /// Parses a catalog id; `None` for anything not in the registry.
    pub fn parse(id: &str) -> Option<SlotId> {
        SlotId::ALL.into_iter().find(|s| s.as_str() == id)
    }

    /// Position in [`SlotId::ALL`]; handy for per-slot arrays.
    pub fn index(self) -> usize {
        self as usize
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

/// Which side of the call a parameter is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A tensor the kernel writes (allocated by the validator).
    Output,
    /// A tensor the kernel reads and must not change.
    Input,
    /// A `float` scalar.
    ScalarF32,
    /// An `int64_t` shape symbol.
    Shape,
}

/// Element type of a tensor parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// The arena's element type (`float` on CPU, `__nv_bfloat16` on CUDA).
    T,
    /// `int32_t`.
    I32,
}

/// One dimension of a tensor parameter: `factor * symbol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    pub factor: i64,
    pub symbol: &'static str,
}

const fn d(symbol: &'static str) -> Dim {
    Dim { factor: 1, symbol }
}

/// One ABI parameter, in ABI order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    /// Element type for tensors; `None` for scalars and shape symbols.
    pub elem: Option<Elem>,
    /// Tensor dimensions (row-major, contiguous); empty for scalars and shape symbols.
    pub dims: &'static [Dim],
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

/// Element types a slot can be instantiated with (`bf16`, `f16`, `f32` in manifests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Bf16,
    F16,
    F32,
}

impl Dtype {
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::Bf16 => "bf16",
            Dtype::F16 => "f16",
            Dtype::F32 => "f32",
        }
    }

    /// The slot tolerance for this element type (DESIGN 5).
    pub fn tolerance(self) -> Tolerance {
        match self {
            Dtype::Bf16 => Tolerance {
                atol: 2e-2,
                rtol: 2e-2,
            },
            Dtype::F16 => Tolerance {
                atol: 1e-2,
                rtol: 1e-2,
            },
            Dtype::F32 => Tolerance {
                atol: 1e-5,
                rtol: 1e-5,
            },
        }
    }
}

/// `|actual - expected| <= atol + rtol * |expected|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

/// How a slot's outputs are judged against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Every element within tolerance.
    AllClose,
    /// At least `min_ppm` parts per million of the elements within tolerance.
    MatchedRatio { min_ppm: u32 },
}

/// Everything the registry knows about one slot.
#[derive(Debug)]
pub struct SlotSpec {
    pub slot: SlotId,
    /// Catalog id, e.g. `norm.rmsnorm`.
    pub id: &'static str,
    /// Function name used when rendering prototypes and by the stock kernels.
    pub c_name: &'static str,
    /// ABI parameters: outputs, inputs, scalars, shape symbols (DESIGN 5.1).
    pub params: &'static [Param],
    pub check: Check,
    /// Fixed verification shapes; each row gives a value per shape symbol, in ABI order.
    pub verification_shapes: &'static [&'static [i64]],
    /// For a fused seam, the slots whose calls it stands for, in the order the engine makes
    /// them. A seam has no stock kernel: where no kernel's domain takes a call, the engine
    /// makes the member calls instead (the seam's validator-owned builtin). Empty for a
    /// plain slot, which always has a stock kernel.
    pub seam_of: &'static [SlotId],
}

impl SlotSpec {
    /// The shape symbols, in ABI order.
    pub fn shape_symbols(&self) -> Vec<&'static str> {
        self.params_of(ParamKind::Shape).map(|p| p.name).collect()
    }

    /// Parameters of one kind, in ABI order.
    pub fn params_of(&self, kind: ParamKind) -> impl Iterator<Item = &'static Param> {
        self.params.iter().filter(move |p| p.kind == kind)
    }

    /// Element count of a tensor parameter under a shape (values in shape-symbol order).
    /// A count that overflows (shape values reported by a lane are not trusted) is
    /// `usize::MAX`, a length no buffer has.
    pub fn tensor_len(&self, param: &Param, shape: &[i64]) -> usize {
        param
            .dims
            .iter()
            .try_fold(1usize, |n, dim| {
                let at = self
                    .symbol_index(dim.symbol)
                    .expect("registry dims use the slot's own symbols");
                let d = dim.factor.checked_mul(shape[at])?.max(0);
                n.checked_mul(usize::try_from(d).ok()?)
            })
            .unwrap_or(usize::MAX)
    }

    /// The value of a shape symbol in `shape` (ABI order); panics on a symbol the slot
    /// does not have.
    pub fn shape_value(&self, shape: &[i64], symbol: &str) -> i64 {
        let at = self.symbol_index(symbol);
        shape[at.unwrap_or_else(|| panic!("{} has no shape symbol {symbol}", self.id))]
    }

    /// Where a shape symbol stands among the shape values (ABI order).
    pub fn symbol_index(&self, symbol: &str) -> Option<usize> {
        self.params_of(ParamKind::Shape)
            .position(|p| p.name == symbol)
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

/// Whether a catalog target is one slot or an atomic group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Slot,
    Atomic,
}

/// A catalog target (DESIGN 4.1): a singleton slot or an atomic group of slots.
#[derive(Debug, PartialEq, Eq)]
pub struct TargetSpec {
    pub id: &'static str,
    pub kind: TargetKind,
    pub members: &'static [SlotId],
    /// Targets whose incumbents this target replaces when crowned.
    pub displaces: &'static [&'static str],
}

static TARGETS: [TargetSpec; 13] = [
    singleton(SlotId::SiluAndMul, slot::SILU_AND_MUL),
    singleton(SlotId::RmsNorm, slot::RMSNORM),
    singleton(SlotId::FusedAddRmsNorm, slot::FUSED_ADD_RMSNORM),
    singleton(SlotId::Rope, slot::ROPE),
    singleton(SlotId::AttentionDecode, slot::ATTENTION_DECODE),
    singleton(SlotId::LinearMatmul, slot::LINEAR_MATMUL),
    singleton(SlotId::AttentionPrefill, slot::ATTENTION_PREFILL),
    // A fused seam displaces nothing: its members serve what its domain leaves them.
    singleton(SlotId::GateUpSilu, slot::GATE_UP_SILU),
    singleton(SlotId::AllReduce, slot::ALL_REDUCE),
    singleton(SlotId::ArResidualRmsNorm, slot::AR_RESIDUAL_RMSNORM),
    singleton(SlotId::MoeFusedExperts, slot::MOE_FUSED_EXPERTS),
    TargetSpec {
        id: ROPE_DECODE,
        kind: TargetKind::Atomic,
        members: &[SlotId::Rope, SlotId::AttentionDecode],
        displaces: &[slot::ROPE, slot::ATTENTION_DECODE],
    },
    // A mixture-of-experts layer's epilogue on a rank: its experts, then the all-reduce
    // of their partial sums fused with the residual add and the next norm.
    TargetSpec {
        id: MOE_EPILOGUE,
        kind: TargetKind::Atomic,
        members: &[SlotId::MoeFusedExperts, SlotId::ArResidualRmsNorm],
        displaces: &[slot::MOE_FUSED_EXPERTS, slot::AR_RESIDUAL_RMSNORM],
    },
];

const fn singleton(slot: SlotId, id: &'static str) -> TargetSpec {
    let members: &'static [SlotId] = match slot {
        SlotId::SiluAndMul => &[SlotId::SiluAndMul],
        SlotId::RmsNorm => &[SlotId::RmsNorm],
        SlotId::FusedAddRmsNorm => &[SlotId::FusedAddRmsNorm],
        SlotId::Rope => &[SlotId::Rope],
        SlotId::AttentionDecode => &[SlotId::AttentionDecode],
        SlotId::LinearMatmul => &[SlotId::LinearMatmul],
        SlotId::AttentionPrefill => &[SlotId::AttentionPrefill],
        SlotId::GateUpSilu => &[SlotId::GateUpSilu],
        SlotId::AllReduce => &[SlotId::AllReduce],
        SlotId::ArResidualRmsNorm => &[SlotId::ArResidualRmsNorm],
        SlotId::MoeFusedExperts => &[SlotId::MoeFusedExperts],
    };
    TargetSpec {
        id,
        kind: TargetKind::Slot,
        members,
        displaces: &[],
    }
}

/// Every registered target: one singleton per slot, then the atomic groups.
pub fn targets() -> &'static [TargetSpec] {
    &TARGETS
}

/// Looks up a target by id.
pub fn target(id: &str) -> Option<&'static TargetSpec> {
    TARGETS.iter().find(|t| t.id == id)
}

/// Renders the C prototype of a slot for the CPU arena (`T = float`), e.g.
/// `void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d)`.
/// `name` overrides the function name (a bundle's entry).
pub fn c_prototype(slot: SlotId, name: Option<&str>) -> String {
    let spec = slot.spec();
    let name = name.unwrap_or(spec.c_name);
    format!("void {name}({})", render_params(spec, "float"))
}

/// Renders the CUDA prototype of a slot for the CUDA arena (`T = __nv_bfloat16`).
pub fn cuda_prototype(slot: SlotId, name: Option<&str>) -> String {
    let spec = slot.spec();
    let name = name.unwrap_or(spec.c_name);
    format!(
        "extern \"C\" __global__ void {name}({})",
        render_params(spec, "__nv_bfloat16")
    )
}

fn render_params(spec: &SlotSpec, t: &str) -> String {
    let rendered: Vec<String> = spec
        .params
        .iter()
        .map(|p| {
            let elem = match p.elem {
                Some(Elem::T) => t,
                Some(Elem::I32) => "int32_t",
                None => "",
            };
            match p.kind {
                ParamKind::Output => format!("{elem}* {}", p.name),
                ParamKind::Input => format!("const {elem}* {}", p.name),
                ParamKind::ScalarF32 => format!("float {}", p.name),
                ParamKind::Shape => format!("int64_t {}", p.name),
            }
        })
        .collect();
    rendered.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn prototypes_match_design_5_1() {
        assert_eq!(
            c_prototype(SlotId::SiluAndMul, None),
            "void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d)"
        );
        assert_eq!(
            c_prototype(SlotId::FusedAddRmsNorm, Some("f")),
            "void f(float* out_norm, float* out_residual, const float* x, \
             const float* residual, const float* w, float eps, int64_t tokens, int64_t hidden)"
        );
        assert_eq!(
            c_prototype(SlotId::Rope, None),
            "void rope(float* q_out, float* k_out, const float* q, const float* k, \
             const int32_t* positions, float theta, int64_t tokens, int64_t q_heads, \
             int64_t kv_heads, int64_t head_dim)"
        );
        assert_eq!(
            cuda_prototype(SlotId::AttentionDecode, None),
            "extern \"C\" __global__ void attention_decode(__nv_bfloat16* out, \
             const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, \
             const int32_t* seq_lens, float scale, int64_t batch, int64_t q_heads, \
             int64_t kv_heads, int64_t head_dim, int64_t max_seq)"
        );
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

    #[test]
    fn atomic_targets_displace_their_members() {
        let t = target("attention.rope_decode.v1").unwrap();
        assert_eq!(t.kind, TargetKind::Atomic);
        assert_eq!(t.members, &[SlotId::Rope, SlotId::AttentionDecode]);
        let moe = target("collective.moe_epilogue.v1").unwrap();
        assert_eq!(
            moe.members,
            &[SlotId::MoeFusedExperts, SlotId::ArResidualRmsNorm]
        );
        for t in [t, moe] {
            for m in t.members {
                assert!(t.displaces.contains(&m.as_str()));
            }
        }
    }

    #[test]
    fn the_registry_is_the_catalog_in_the_same_order() {
        use cacheon_primitives::catalog;
        let ids: Vec<&str> = SlotId::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(ids, catalog::SLOTS);
        assert_eq!(targets().len(), catalog::TARGETS.len());
        for (ours, theirs) in targets().iter().zip(catalog::TARGETS) {
            assert_eq!(ours.id, theirs.id);
            let members: Vec<&str> = ours.members.iter().map(|m| m.as_str()).collect();
            assert_eq!(members, theirs.members, "{}", ours.id);
            assert_eq!(ours.displaces, theirs.displaces, "{}", ours.id);
            let atomic = cacheon_primitives::TargetKind::Atomic;
            assert_eq!(ours.kind == TargetKind::Atomic, theirs.kind == atomic);
        }
    }

    #[test]
    fn tolerances() {
        assert_eq!(Dtype::Bf16.tolerance().atol, 2e-2);
        assert_eq!(Dtype::F16.tolerance().rtol, 1e-2);
        assert_eq!(Dtype::F32.tolerance().atol, 1e-5);
    }
}
