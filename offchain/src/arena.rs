//! The arenas this tool knows how to screen for, off chain: which backend runs a bundle,
//! and which element type its kernels take. They mirror the genesis arenas of the runtime
//! (`cpu-tiny`, `h200-llama8b`).

use cacheon_kernels::manifest::Backend;
use cacheon_kernels::slots::Dtype;

/// Which kind of lane process runs an arena's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneBackend {
    Cpu,
    Cuda,
}

impl LaneBackend {
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

/// The timed workload of an arena (DESIGN 7 step 7) and its audit reads (step 8).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Workload {
    /// Named model shape (`cacheon_kernels::engine::ModelConfig::named`).
    pub model: &'static str,
    /// Seed the weights are synthesized from (the arena's `model_digest` names the shape).
    pub weights_seed: u64,
    pub prompt_len: usize,
    pub decode_steps: usize,
    pub max_seq: usize,
    /// Audit reads per attempt (extra reads of the workload at secret positions among the
    /// timed reads, with a sample of the candidate's calls recorded).
    pub audit_reads: usize,
    /// Calls of each candidate slot one audit read records (every call if it has fewer).
    pub audit_calls_per_slot: usize,
}

/// How a speed verdict and the behaviour checks are decided. The margin and noise bound
/// mirror the arena's on-chain policy (genesis values of `runtime/src/genesis.rs`).
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
    /// Mean KL (nats) of the candidate's next-token distributions from the pristine
    /// engine's above which behaviour changed, whatever the envelope.
    pub kl_bound: f64,
    /// The stock envelope: the candidate may also not exceed
    /// `envelope_factor × KL(baseline) + envelope_floor`.
    pub envelope_factor: f64,
    pub envelope_floor: f64,
}

/// One arena, as the off-chain tools see it.
#[derive(Clone, Copy, Debug)]
pub struct Arena {
    pub name: &'static str,
    pub backend: LaneBackend,
    pub workload: Workload,
    pub judging: Judging,
}

pub const ARENAS: [Arena; 2] = [
    Arena {
        name: "cpu-tiny",
        backend: LaneBackend::Cpu,
        workload: Workload {
            model: "tiny",
            weights_seed: 0,
            prompt_len: 160,
            decode_steps: 32,
            max_seq: 288,
            audit_reads: 2,
            audit_calls_per_slot: 128,
        },
        judging: Judging {
            min_margin_ppm: 20_000,
            max_noise_ppm: 150_000,
            runs_per_read: 5,
            min_pairs: 6,
            max_pairs: 20,
            kl_bound: 1e-3,
            envelope_factor: 4.0,
            envelope_floor: 1e-4,
        },
    },
    Arena {
        name: "h200-llama8b",
        backend: LaneBackend::Cuda,
        workload: Workload {
            model: "llama8b-8l",
            weights_seed: 0,
            prompt_len: 2048,
            decode_steps: 128,
            max_seq: 2304,
            audit_reads: 2,
            audit_calls_per_slot: 16,
        },
        judging: Judging {
            min_margin_ppm: 10_000,
            max_noise_ppm: 20_000,
            runs_per_read: 1,
            min_pairs: 6,
            max_pairs: 40,
            kl_bound: 2e-2,
            envelope_factor: 4.0,
            envelope_floor: 1e-3,
        },
    },
];

impl Arena {
    /// The shapes at which the arena's engine calls `slot` in its workload (and audit) reads:
    /// prefill (every prompt length) and decode (one token), attention over the engine's
    /// own cache length. Verification runs these too, so a kernel cannot behave at the
    /// engine's shapes otherwise than at the ones it was checked at.
    pub fn engine_shapes(&self, slot: cacheon_kernels::SlotId) -> Vec<Vec<i64>> {
        use cacheon_kernels::SlotId;
        let Some(cfg) = cacheon_kernels::engine::ModelConfig::named(self.workload.model) else {
            return vec![];
        };
        let w = self.workload;
        let i = |v: usize| v as i64;
        let tokens = [w.prompt_len, 1];
        let (h, inter) = (i(cfg.hidden_size), i(cfg.intermediate_size));
        let (heads, kv, hd) = (
            i(cfg.num_attention_heads),
            i(cfg.kv_heads()),
            i(cfg.head_dim()),
        );
        match slot {
            SlotId::SiluAndMul => tokens.iter().map(|&t| vec![i(t), inter]).collect(),
            SlotId::RmsNorm | SlotId::FusedAddRmsNorm => {
                tokens.iter().map(|&t| vec![i(t), h]).collect()
            }
            SlotId::Rope => tokens.iter().map(|&t| vec![i(t), heads, kv, hd]).collect(),
            SlotId::AttentionDecode => vec![vec![1, heads, kv, hd, i(w.max_seq)]],
        }
    }
}

/// The arena named `name`.
pub fn arena(name: &str) -> Option<Arena> {
    ARENAS.iter().copied().find(|a| a.name == name)
}

/// The arena screened for by default on a device.
pub fn default_arena(backend: LaneBackend) -> Arena {
    *ARENAS
        .iter()
        .find(|a| a.backend == backend)
        .expect("one arena per backend")
}
