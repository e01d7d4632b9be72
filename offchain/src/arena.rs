//! The arenas this tool knows how to screen for and measure in, off chain: which backend runs
//! a bundle, which element type its kernels take, the timed workload and how it is judged.
//! Ids, engine names and the policy's margin and noise bound come from the genesis catalog
//! (`cacheon_primitives::catalog`); a validator compares them with the arena's config on
//! chain ([`Arena::disagreement`]) before it leases anything there.

pub mod profile;

use cacheon_kernels::bundle::manifest::Backend;
use cacheon_kernels::model::llama_gguf;
use cacheon_kernels::slots::Dtype;
use cacheon_primitives::catalog::{self, ArenaSpec, EngineDigests};

/// Which kind of lane process runs an arena's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneBackend {
    Cpu,
    Cuda,
}

impl LaneBackend {
    /// The lane for an arena's on-chain backend.
    pub const fn of(backend: cacheon_primitives::Backend) -> LaneBackend {
        match backend {
            cacheon_primitives::Backend::Cpu => LaneBackend::Cpu,
            cacheon_primitives::Backend::Cuda => LaneBackend::Cuda,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LaneBackend::Cpu => "cpu",
            LaneBackend::Cuda => "cuda",
        }
    }

    /// The manifest backend bundles for this lane declare.
    pub fn manifest_backend(self) -> Backend {
        match self {
            LaneBackend::Cpu => Backend::Cpu,
            LaneBackend::Cuda => Backend::Cuda,
        }
    }

    /// The element type the arena's kernels compute in.
    pub fn dtype(self) -> Dtype {
        match self {
            LaneBackend::Cpu => Dtype::F32,
            LaneBackend::Cuda => Dtype::Bf16,
        }
    }
}

/// A model file an arena's engine loads its weights from, named by content.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ModelFile {
    /// Its file name in the model folder (`cacheon_kernels::model::llama_gguf::model_dir`).
    pub name: &'static str,
    /// Its SHA-256, hex: every lane checks it before it builds the engine.
    pub sha256: &'static str,
}

/// The timed workload of an arena (DESIGN 7 step 7) and its audit reads (step 8).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Workload {
    /// Named model shape (`cacheon_kernels::model::ModelConfig::named`; the arena's
    /// `model_digest` names it). Without a `model_file`, its weights are synthesized
    /// afresh for every attempt from the attempt's secret seed
    /// ([`crate::qualify::AttemptOptions::weights_seed`]): a kernel that knew them could
    /// compute them instead of reading them.
    pub model: &'static str,
    /// A real model's weights (public, and far larger than any bundle).
    pub model_file: Option<ModelFile>,
    /// Rank processes the engine is split over (tensor parallelism, `docs/tensor-parallel.md`):
    /// 1 for a whole engine. A lane is then a group of that many processes, one a core.
    pub world: usize,
    /// The validator-owned prompt corpus (one prompt a line), for a model with a tokenizer:
    /// each read's prompt is a line drawn with the attempt's secret seed, in the model's
    /// chat format, its last `prompt_len` tokens. Without one, prompts are random token ids.
    #[serde(skip)]
    pub corpus: Option<&'static str>,
    pub prompt_len: usize,
    pub decode_steps: usize,
    /// The batched part of a read, after the single sequence (`None`: none).
    pub batch: Option<BatchPhase>,
    pub max_seq: usize,
    /// Audit reads per attempt (extra reads of the workload at secret positions among the
    /// timed reads, with a sample of the candidate's calls recorded).
    pub audit_reads: usize,
    /// Calls of each candidate slot one audit read records (every call if it has fewer).
    pub audit_calls_per_slot: usize,
}

/// The batched part of a workload read: what serving several requests at once runs.
/// `rows` fresh prompts of `prompt_len` tokens each (drawn like the single sequence's)
/// are prefilled one after another, then decoded together for `steps` greedy steps, every
/// step one pass of `rows` token rows through the model.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BatchPhase {
    pub rows: usize,
    pub prompt_len: usize,
    pub steps: usize,
}

impl Workload {
    /// Sequences the engine holds at once.
    pub fn max_batch(&self) -> usize {
        self.batch.map_or(1, |b| b.rows.max(1))
    }

    /// Passes of the engine over its weights in one read: each prefill and each decode
    /// step (a batched step is one pass for all its rows). The physical floor of a read is
    /// this many times the weight bytes over the copy bandwidth.
    pub fn passes(&self) -> usize {
        1 + self.decode_steps + self.batch.map_or(0, |b| b.rows + b.steps)
    }
}

/// How a speed verdict and the behaviour checks are decided. The margin and noise bound
/// are the arena's on-chain policy (the catalog's genesis values).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Judging {
    /// A PASS needs the speedup interval's lower end at or above `1 + margin`.
    pub min_margin_ppm: u32,
    /// Baseline bookends further apart than this are NoDecision.
    pub max_noise_ppm: u32,
    /// Runs of the workload behind one read: the read is the fastest of them (interference
    /// only ever slows a run, so the fastest is the least disturbed).
    pub runs_per_read: usize,
    /// Pairs of reads before a decision may be taken, and the read budget.
    pub min_pairs: usize,
    pub max_pairs: usize,
    /// Pairs of reads between fresh starts of both lanes, each start in the order opposite
    /// to the one before (the first drawn from the secret seed), where a lane's speed
    /// depends on whether it started first or second: a decision then waits for as many
    /// pairs of each order (`qualify/speed.rs`); `min_pairs` and `max_pairs` are multiples of
    /// twice it. `None`: one start of both lanes serves the whole attempt (the arena's null
    /// attempts showed no start-order effect, and a restart moves both lanes' speed by more
    /// than its noise bound allows between the baseline's bookends).
    pub order_block: Option<usize>,
    /// Mean KL (nats) of the candidate's next-token distributions from the pristine
    /// engine's above which behaviour changed, whatever the envelope.
    pub kl_bound: f64,
    /// The stock envelope: the candidate may also not exceed
    /// `envelope_factor × KL(baseline) + envelope_floor`.
    pub envelope_factor: f64,
    pub envelope_floor: f64,
    /// Where every timed read sends its logits: the largest KL (nats) a read's next-token
    /// distribution may have from the baseline read's at any position (`reads.rs`).
    /// `None`: reads are judged by their tokens only.
    pub read_kl_bound: Option<f64>,
    /// Rows of every read whose distributions are judged, where a read's logits are too
    /// large to send whole (the GPU arena: 1,161 positions of 128,256 logits): both lanes
    /// hold their read's logits (on the GPU) and send the rows the referee draws in secret
    /// once the read is over, among those where both generated the same context, and every
    /// sequence's first position where their tokens differ. `None`: every row travels with
    /// the read.
    pub read_kl_rows: Option<usize>,
}

/// One arena, as the off-chain tools see it.
#[derive(Clone, Copy, Debug)]
pub struct Arena {
    /// The catalog entry genesis registers on chain (its id is the arena's name).
    pub spec: &'static ArenaSpec,
    pub backend: LaneBackend,
    pub workload: Workload,
    pub judging: Judging,
}

/// `cpu-tiny`: the synthetic model on one core (the fast tests' arena).
const CPU_TINY_ARENA: Arena = Arena {
    spec: &catalog::CPU_TINY,
    backend: LaneBackend::of(catalog::CPU_TINY.backend),
    workload: Workload {
        model: catalog::CPU_TINY.model,
        model_file: None,
        world: 1,
        corpus: None,
        prompt_len: 160,
        decode_steps: 32,
        // A small batched part, so that every path of a read runs in CI.
        batch: Some(BatchPhase {
            rows: 4,
            prompt_len: 16,
            steps: 8,
        }),
        max_seq: 288,
        audit_reads: 2,
        audit_calls_per_slot: 128,
    },
    judging: Judging {
        min_margin_ppm: catalog::CPU_TINY.min_margin_ppm,
        max_noise_ppm: catalog::CPU_TINY.max_noise_ppm,
        runs_per_read: 5,
        min_pairs: 6,
        max_pairs: 20,
        // Restarted every 3 pairs, cpu-tiny's baseline moved by 17-54 % between
        // generations in 3 of 20 attempts of a clear win (NoDecision Noise).
        order_block: None,
        kl_bound: 1e-3,
        envelope_factor: 4.0,
        envelope_floor: 1e-4,
        // Calibrated on this arena (f32): the passing CPU examples' reads stay under
        // 1.3e-13 nats; a kernel 0.03 % off where it guesses it is not audited reads
        // 2.7e-8. A per-element error of about twice the f32 slot tolerance reaches it.
        read_kl_bound: Some(1e-10),
        read_kl_rows: None,
    },
};

/// The GPU arena's bound on a judged row's KL (nats) from the baseline's distribution.
/// Calibrated on an H100 (2026-12-07, `offchain/tools/gpu-qualify.sh`, docs/validator.md):
/// a kernel against its own bytes reads exactly 0 (62 judged reads of 16 rows); an honest
/// kernel that rounds otherwise (`examples/cuda/matmul-rows8-mma`: the batched rows on
/// tensor cores instead of cuBLAS) at most 9.2e-5 (median of its reads' largest 8.5e-5,
/// 96 rows); the LM head's logits 1/32 larger (`examples/cuda/fail-logit-temperature`,
/// tokens unchanged) 4.8e-4 on the rows it changes. The bound sits between, about twice
/// the honest figure and half the perturbed one.
const GPU_READ_KL_BOUND: f64 = 2e-4;

pub const ARENAS: [Arena; 4] = [
    CPU_TINY_ARENA,
    Arena {
        spec: &catalog::H200_LLAMA8B,
        backend: LaneBackend::of(catalog::H200_LLAMA8B.backend),
        workload: Workload {
            model: catalog::H200_LLAMA8B.model,
            model_file: None,
            world: 1,
            corpus: None,
            prompt_len: 2048,
            decode_steps: 128,
            // Serving several requests at once: 8 chat-length prompts prefilled, then 128
            // steps that decode all 8 together (batched rows go to linear.matmul's builtin,
            // cuBLAS, in the stock engine). On an H100 the batched part takes about half
            // of a read (docs/arenas.md).
            batch: Some(BatchPhase {
                rows: 8,
                prompt_len: 512,
                steps: 128,
            }),
            max_seq: 2304,
            audit_reads: 2,
            audit_calls_per_slot: 16,
        },
        judging: Judging {
            min_margin_ppm: catalog::H200_LLAMA8B.min_margin_ppm,
            max_noise_ppm: catalog::H200_LLAMA8B.max_noise_ppm,
            runs_per_read: 1,
            min_pairs: 6,
            max_pairs: 30,
            // On an H100 the start order moved the null: the first 6 pairs of 27 nulls of
            // one start each read 0.99984 with the baseline started first and 0.99663 with
            // the candidate first (docs/validator.md). Restarted in the other order after 3
            // pairs, every decision holds as many pairs of each order; a restart costs
            // about 3.3 s (both lanes' starts and a warm pair), so the budget is 30 pairs.
            order_block: Some(3),
            kl_bound: 2e-2,
            envelope_factor: 4.0,
            envelope_floor: 1e-3,
            read_kl_bound: Some(GPU_READ_KL_BOUND),
            read_kl_rows: Some(16),
        },
    },
    Arena {
        spec: &catalog::CPU_SMOLLM2,
        backend: LaneBackend::of(catalog::CPU_SMOLLM2.backend),
        workload: Workload {
            model: catalog::CPU_SMOLLM2.model,
            model_file: Some(ModelFile {
                name: llama_gguf::SMOLLM2_FILE,
                sha256: llama_gguf::SMOLLM2_SHA256,
            }),
            world: 1,
            corpus: Some(include_str!("arena/cpu-smollm2-prompts.txt")),
            // A short chat turn: the read takes about 0.6 s with the stock kernels on one
            // core of the development machine, so an attempt fits in about 40 s.
            prompt_len: 24,
            decode_steps: 6,
            // None yet: the demo's crown time is this arena's read.
            batch: None,
            max_seq: 32,
            audit_reads: 2,
            audit_calls_per_slot: 64,
        },
        judging: Judging {
            min_margin_ppm: catalog::CPU_SMOLLM2.min_margin_ppm,
            max_noise_ppm: catalog::CPU_SMOLLM2.max_noise_ppm,
            // A run takes about half a second, far above scheduling noise: one run a read,
            // and the pairs' interval does the rest (as on the GPU arena).
            runs_per_read: 1,
            min_pairs: 6,
            max_pairs: 18,
            // Stock against itself read about 3 % faster in whichever lane started second
            // (the sign followed the seed that drew the order, 11 of 11 attempts).
            order_block: Some(3),
            // Calibrated on this model (2026-12-05, `cacheon qualify --arena cpu-smollm2
            // --bundle examples/cpu/matmul-avx2 --seed 1`): an honest kernel summing in
            // another order reads a pristine KL of 2.2e-12 nats and a largest read KL of
            // 2.0e-11. The bounds leave that 1000x and 50x room, and still catch a change of
            // a thousandth of a token's probability (a KL of about 5e-7).
            kl_bound: 1e-8,
            envelope_factor: 4.0,
            envelope_floor: 1e-9,
            read_kl_bound: Some(1e-9),
            read_kl_rows: None,
        },
    },
    Arena {
        spec: &catalog::CPU_TP2,
        backend: LaneBackend::of(catalog::CPU_TP2.backend),
        // cpu-tiny's read on tiny-moe over two ranks; every pass makes two exchanges a
        // layer.
        workload: Workload {
            model: catalog::CPU_TP2.model,
            world: 2,
            audit_calls_per_slot: 64,
            ..CPU_TINY_ARENA.workload
        },
        // cpu-tiny's (the same model family in f32): the split only changes the order of
        // the o, down and experts' sums.
        judging: Judging {
            min_margin_ppm: catalog::CPU_TP2.min_margin_ppm,
            max_noise_ppm: catalog::CPU_TP2.max_noise_ppm,
            ..CPU_TINY_ARENA.judging
        },
    },
];

impl Arena {
    /// The arena's id, as the chain names it.
    pub fn name(&self) -> &'static str {
        self.spec.id
    }

    /// Where this machine keeps the arena's model file, if it has one.
    pub fn model_path(&self) -> Option<std::path::PathBuf> {
        let f = self.workload.model_file?;
        Some(if f.name == llama_gguf::SMOLLM2_FILE {
            llama_gguf::smollm2_path()
        } else {
            llama_gguf::model_dir().join(f.name)
        })
    }

    /// Where the arena's engines take their weights from in an attempt whose secret weight
    /// seed is `weights_seed`.
    pub fn engine_weights(&self, weights_seed: u64) -> crate::lane::protocol::EngineWeights {
        use crate::lane::protocol::EngineWeights;
        match (self.workload.model_file, self.model_path()) {
            (Some(f), Some(path)) => EngineWeights::File {
                path: path.display().to_string(),
                sha256: f.sha256.to_string(),
            },
            _ => EngineWeights::Synthesized { seed: weights_seed },
        }
    }

    /// The shapes at which the arena's engine calls `slot` in its workload (and audit) reads:
    /// prefill (every prompt length) and decode (one token), attention over the engine's
    /// own cache length. Verification runs these too, so a kernel cannot behave at the
    /// engine's shapes otherwise than at the ones it was checked at.
    pub fn engine_shapes(&self, slot: cacheon_kernels::SlotId) -> Vec<Vec<i64>> {
        use cacheon_kernels::SlotId;
        let Some(cfg) = cacheon_kernels::model::ModelConfig::named(self.workload.model) else {
            return vec![];
        };
        let w = self.workload;
        let i = |v: usize| v as i64;
        // A rank's engine runs its shard: a smaller model of the same family, whose shapes
        // its calls have (the whole model where the world is 1).
        let Ok(cfg) = cacheon_kernels::model::shard::local_config(&cfg, w.world) else {
            return vec![];
        };
        let world = i(w.world);
        let mut tokens = vec![w.prompt_len, 1];
        if let Some(b) = w.batch {
            tokens.extend([b.prompt_len, b.rows]);
        }
        tokens.dedup();
        let (h, inter) = (i(cfg.hidden_size), i(cfg.intermediate_size));
        let (heads, kv, hd) = (
            i(cfg.num_attention_heads),
            i(cfg.kv_heads()),
            i(cfg.head_dim()),
        );
        match slot {
            // Only an engine split over ranks makes collective calls: the o and down
            // outputs of every pass, each of the pass's rows, at every rank index.
            SlotId::AllReduce | SlotId::ArResidualRmsNorm if w.world == 1 => vec![],
            SlotId::AllReduce | SlotId::ArResidualRmsNorm => tokens
                .iter()
                .flat_map(|&t| (0..world).map(move |r| vec![i(t), h, world, r]))
                .collect(),
            // Every rank's block of whole experts.
            SlotId::MoeFusedExperts => match &cfg.moe {
                None => vec![],
                Some(m) => {
                    let held = i(m.num_local_experts / w.world);
                    let (f, k) = (i(m.moe_intermediate_size), i(m.num_experts_per_tok));
                    tokens
                        .iter()
                        .flat_map(|&t| (0..world).map(move |r| vec![i(t), h, f, held, k, r * held]))
                        .collect()
                }
            },
            SlotId::SiluAndMul => tokens.iter().map(|&t| vec![i(t), inter]).collect(),
            SlotId::GateUpSilu => tokens.iter().map(|&t| vec![i(t), inter, h]).collect(),
            SlotId::RmsNorm | SlotId::FusedAddRmsNorm => {
                tokens.iter().map(|&t| vec![i(t), h]).collect()
            }
            SlotId::Rope => tokens.iter().map(|&t| vec![i(t), heads, kv, hd]).collect(),
            SlotId::AttentionDecode => {
                let rows = w.max_batch();
                let mut shapes = vec![vec![1, heads, kv, hd, i(w.max_seq)]];
                if rows > 1 {
                    shapes.push(vec![i(rows), heads, kv, hd, i(w.max_seq)]);
                }
                shapes
            }
            // Each prompt in one pass; the CPU engine's last layer attends its last row only.
            SlotId::AttentionPrefill => {
                let mut prompts = vec![w.prompt_len];
                prompts.extend(w.batch.map(|b| b.prompt_len));
                let mut shapes = Vec::new();
                for p in prompts.into_iter().map(i) {
                    shapes.push(vec![p, heads, kv, hd, p]);
                    if self.backend == LaneBackend::Cpu {
                        shapes.push(vec![1, heads, kv, hd, p]);
                    }
                }
                shapes
            }
            SlotId::LinearMatmul => {
                // (out, in) of every projection: the CPU engine's q, k and v apart, the
                // CUDA engine's stacked q|k|v (its decode row goes to the engine's own
                // fused GEMV, not the slot); the LM head takes one row in both passes (a
                // row a sequence in a batched step).
                let (q, kvd, vocab) = (i(cfg.q_dim()), i(cfg.kv_dim()), i(cfg.vocab_size));
                let mut products = match self.backend {
                    LaneBackend::Cpu => vec![(q, h), (kvd, h)],
                    LaneBackend::Cuda => vec![(q + 2 * kvd, h)],
                };
                products.extend([(h, q), (2 * inter, h), (h, inter)]);
                // A mixture-of-experts layer's router scores every expert.
                if let Some(m) = &cfg.moe {
                    products.push((i(m.num_local_experts), h));
                }
                let mut shapes: Vec<Vec<i64>> = tokens
                    .iter()
                    .flat_map(|&t| products.iter().map(move |&(o, k)| vec![i(t), o, k]))
                    .collect();
                shapes.push(vec![1, vocab, h]);
                if w.max_batch() > 1 {
                    shapes.push(vec![i(w.max_batch()), vocab, h]);
                }
                // Products past the reference's budget (the GPU arena's 2048-token
                // prefill) are judged on a secret sample of their rows.
                shapes
            }
        }
    }
}

/// What the chain says of an arena, as far as a validator must agree with it to measure there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainArena {
    pub backend: cacheon_primitives::Backend,
    pub digests: EngineDigests,
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
}

impl Arena {
    /// Why this validator must not measure for the arena as the chain configures it: another
    /// backend, another model, workload or stock kernel set (by their digests), or another
    /// margin or noise bound than it judges with. `None` when they agree.
    pub fn disagreement(&self, chain: &ChainArena) -> Option<String> {
        let ours = self.spec.engine_digests();
        let hex = |d: &[u8; 32]| {
            d[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        let digest = |what: &str, name: &str, theirs: &[u8; 32], mine: &[u8; 32]| {
            (theirs != mine).then(|| {
                format!(
                    "the chain's {what} digest is {}…, this build runs {what} `{name}` ({}…)",
                    hex(theirs),
                    hex(mine)
                )
            })
        };
        let j = self.judging;
        let why: Vec<String> = [
            (LaneBackend::of(chain.backend) != self.backend).then(|| {
                format!(
                    "the chain's backend is {:?}, this build measures on {}",
                    chain.backend,
                    self.backend.as_str()
                )
            }),
            digest("model", self.spec.model, &chain.digests.model, &ours.model),
            digest(
                "workload",
                self.spec.workload,
                &chain.digests.workload,
                &ours.workload,
            ),
            digest("stock", self.spec.stock, &chain.digests.stock, &ours.stock),
            (chain.min_margin_ppm != j.min_margin_ppm).then(|| {
                format!(
                    "the chain's margin is {} ppm, this build judges with {}",
                    chain.min_margin_ppm, j.min_margin_ppm
                )
            }),
            (chain.max_noise_ppm != j.max_noise_ppm).then(|| {
                format!(
                    "the chain's noise bound is {} ppm, this build judges with {}",
                    chain.max_noise_ppm, j.max_noise_ppm
                )
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!why.is_empty()).then(|| format!("arena `{}`: {}", self.name(), why.join("; ")))
    }
}

/// The arena named `name`.
pub fn arena(name: &str) -> Option<Arena> {
    ARENAS.iter().copied().find(|a| a.name() == name)
}

/// The arena screened for by default on a device.
pub fn default_arena(backend: LaneBackend) -> Arena {
    arena_of(backend, 1).expect("a whole-engine arena per backend")
}

/// The first arena on `backend` whose engine is split over `world` ranks.
pub fn arena_of(backend: LaneBackend, world: usize) -> Option<Arena> {
    ARENAS
        .iter()
        .copied()
        .find(|a| a.backend == backend && a.workload.world == world)
}

/// The arenas' names, for messages: `cpu-tiny, h200-llama8b, …`.
pub fn names() -> String {
    ARENAS.map(|a| a.name()).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_budgets_hold_as_many_pairs_of_each_start_order() {
        for a in ARENAS {
            let j = a.judging;
            let Some(block) = j.order_block else { continue };
            let both = 2 * block;
            assert!(block >= 1, "{}", a.name());
            assert!(
                j.min_pairs.is_multiple_of(both) && j.max_pairs.is_multiple_of(both),
                "{}: pairs {}..{} against blocks of {}",
                a.name(),
                j.min_pairs,
                j.max_pairs,
                block
            );
        }
    }

    fn genesis_view(spec: &ArenaSpec) -> ChainArena {
        ChainArena {
            backend: spec.backend,
            digests: spec.engine_digests(),
            min_margin_ppm: spec.min_margin_ppm,
            max_noise_ppm: spec.max_noise_ppm,
        }
    }

    #[test]
    fn every_arena_agrees_with_its_genesis_config() {
        for a in ARENAS {
            assert_eq!(a.disagreement(&genesis_view(a.spec)), None, "{}", a.name());
        }
    }

    #[test]
    fn another_engine_or_policy_on_chain_is_named() {
        let a = arena("cpu-tiny").unwrap();
        let mut chain = genesis_view(a.spec);
        chain.digests.model = catalog::engine_digest("model", "llama8b-8l");
        chain.max_noise_ppm += 1;
        let why = a.disagreement(&chain).unwrap();
        assert!(
            why.starts_with("arena `cpu-tiny`: the chain's model digest is "),
            "{why}"
        );
        assert!(why.contains("this build runs model `tiny`"), "{why}");
        assert!(
            why.contains("noise bound is 150001 ppm, this build judges with 150000"),
            "{why}"
        );
        assert!(!why.contains("workload"), "{why}");

        let mut chain = genesis_view(a.spec);
        chain.backend = cacheon_primitives::Backend::Cuda;
        assert!(a
            .disagreement(&chain)
            .unwrap()
            .contains("backend is Cuda, this build measures on cpu"));
        // The other genesis arena is not this one.
        assert!(a
            .disagreement(&genesis_view(&catalog::H200_LLAMA8B))
            .is_some());
    }
}
