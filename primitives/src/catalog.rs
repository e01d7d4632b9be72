//! The catalog and the genesis arenas: every slot, target and arena id, and every number of
//! an arena's policy, written once. The runtime's genesis presets register them on chain;
//! the kernel registry (`cacheon_kernels::slots`) names its slots with them; the off-chain
//! tools' arena table takes its ids, engine names and margins from them; and a validator
//! compares a served arena's on-chain engine digests with [`ArenaSpec::engine_digests`]
//! before it leases anything there.

use crate::verdict::{Backend, TargetKind};

/// Slot ids, one per kernel boundary of the engine.
pub mod slot {
    pub const SILU_AND_MUL: &str = "activation.silu_and_mul";
    pub const RMSNORM: &str = "norm.rmsnorm";
    pub const FUSED_ADD_RMSNORM: &str = "norm.fused_add_rmsnorm";
    pub const ROPE: &str = "position.rope";
    pub const ATTENTION_DECODE: &str = "attention.decode";
    pub const LINEAR_MATMUL: &str = "linear.matmul";
    pub const ATTENTION_PREFILL: &str = "attention.prefill";
    /// A fused seam: the MLP's gate|up product and SwiGLU in one call.
    pub const GATE_UP_SILU: &str = "mlp.gate_up_silu";
    /// Tensor parallelism's sum over the ranks' partial results (called only by engines
    /// split over several ranks).
    pub const ALL_REDUCE: &str = "collective.all_reduce";
    /// A fused seam: the all-reduce, the residual add and the RMSNorm after it in one call.
    pub const AR_RESIDUAL_RMSNORM: &str = "collective.ar_residual_rmsnorm";
    /// A mixture-of-experts layer's experts (those an engine or a rank holds), weighted by
    /// the router's choice.
    pub const MOE_FUSED_EXPERTS: &str = "moe.fused_experts";
}

/// Every slot, in registry order (the order of `cacheon_kernels::slots::SlotId::ALL`).
pub const SLOTS: [&str; 11] = [
    slot::SILU_AND_MUL,
    slot::RMSNORM,
    slot::FUSED_ADD_RMSNORM,
    slot::ROPE,
    slot::ATTENTION_DECODE,
    slot::LINEAR_MATMUL,
    slot::ATTENTION_PREFILL,
    slot::GATE_UP_SILU,
    slot::ALL_REDUCE,
    slot::AR_RESIDUAL_RMSNORM,
    slot::MOE_FUSED_EXPERTS,
];

/// The atomic target: RoPE and decode attention replaced together.
pub const ROPE_DECODE: &str = "attention.rope_decode.v1";

/// The atomic target of a mixture-of-experts layer's epilogue on a rank: the experts and the
/// all-reduce of their partial sums fused with the residual add and the norm after it.
pub const MOE_EPILOGUE: &str = "collective.moe_epilogue.v1";

/// A target of the genesis catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub id: &'static str,
    pub kind: TargetKind,
    /// Slots a proposal for this target replaces.
    pub members: &'static [&'static str],
    /// Targets whose incumbents a crown here retires (empty for a singleton).
    pub displaces: &'static [&'static str],
}

const fn singleton(id: &'static str, members: &'static [&'static str]) -> Target {
    Target {
        id,
        kind: TargetKind::Slot,
        members,
        displaces: &[],
    }
}

/// One singleton target per slot (the fused seams' included), then the atomic targets. The
/// seam displaces nothing: its kernel serves only the calls inside its `when` domain, and its
/// members (`linear.matmul`, `activation.silu_and_mul`) keep serving the rest, so their
/// crowns stay in the engine that was measured and keep earning.
pub const TARGETS: [Target; 13] = [
    singleton(slot::SILU_AND_MUL, &[slot::SILU_AND_MUL]),
    singleton(slot::RMSNORM, &[slot::RMSNORM]),
    singleton(slot::FUSED_ADD_RMSNORM, &[slot::FUSED_ADD_RMSNORM]),
    singleton(slot::ROPE, &[slot::ROPE]),
    singleton(slot::ATTENTION_DECODE, &[slot::ATTENTION_DECODE]),
    singleton(slot::LINEAR_MATMUL, &[slot::LINEAR_MATMUL]),
    singleton(slot::ATTENTION_PREFILL, &[slot::ATTENTION_PREFILL]),
    singleton(slot::GATE_UP_SILU, &[slot::GATE_UP_SILU]),
    singleton(slot::ALL_REDUCE, &[slot::ALL_REDUCE]),
    singleton(slot::AR_RESIDUAL_RMSNORM, &[slot::AR_RESIDUAL_RMSNORM]),
    singleton(slot::MOE_FUSED_EXPERTS, &[slot::MOE_FUSED_EXPERTS]),
    Target {
        id: ROPE_DECODE,
        kind: TargetKind::Atomic,
        members: &[slot::ROPE, slot::ATTENTION_DECODE],
        displaces: &[slot::ROPE, slot::ATTENTION_DECODE],
    },
    Target {
        id: MOE_EPILOGUE,
        kind: TargetKind::Atomic,
        members: &[slot::MOE_FUSED_EXPERTS, slot::AR_RESIDUAL_RMSNORM],
        displaces: &[slot::MOE_FUSED_EXPERTS, slot::AR_RESIDUAL_RMSNORM],
    },
];

/// An arena as genesis registers it: the engine it measures in (named components, whose
/// digests go on chain) and its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaSpec {
    pub id: &'static str,
    pub backend: Backend,
    /// The hardware class validators must run (`x86-64-v3`, `sm90a`).
    pub hardware: &'static str,
    /// The model shape (`cacheon_kernels::model::ModelConfig::named`).
    pub model: &'static str,
    /// The timed workload (the off-chain arena table of the same id), named with its
    /// version: a new name whenever what a read runs changes, so that validators on
    /// builds that read differently never count as measuring the same engine.
    pub workload: &'static str,
    /// The stock kernel set the engine starts from, named with its version: a new name
    /// whenever the slot calls a read makes change (the versions are listed in CHANGELOG.md).
    pub stock: &'static str,
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
    pub noise_multiplier: u32,
    pub lease_blocks: u32,
    pub max_attempts: u32,
    pub required_distinct_validators: u32,
    /// The largest whole-engine speedup an attestation may claim here (ppm of 1.0), at most
    /// the chain's ceiling (10×): a claim above it is refused as implausible.
    pub max_speedup_ppm: u32,
    /// The machine time of the arena's median qualification attempt (ms), measured on the
    /// machine named beside each value: what the evaluation fee prices (the genesis quote is
    /// this times the chain's price per machine-second).
    pub median_attempt_ms: u32,
}

/// The CPU arena: the tiny model in f32 with the scalar C11 stock kernels.
pub const CPU_TINY: ArenaSpec = ArenaSpec {
    id: "cpu-tiny",
    backend: Backend::Cpu,
    hardware: "x86-64-v3",
    model: "tiny",
    workload: "cpu-tiny/batched-v2",
    stock: "cpu-c11-scalar/v3",
    min_margin_ppm: 20_000,
    max_noise_ppm: 150_000,
    noise_multiplier: 3,
    lease_blocks: 300,
    max_attempts: 3,
    required_distinct_validators: 2,
    // Scalar stock kernels: a vectorized matmul alone may make the engine several times faster.
    max_speedup_ppm: 10_000_000,
    median_attempt_ms: CPU_TINY_ATTEMPT_MS,
};

/// The GPU arena: eight Llama-3-8B layers in bf16 on one H200.
pub const H200_LLAMA8B: ArenaSpec = ArenaSpec {
    id: "h200-llama8b",
    backend: Backend::Cuda,
    hardware: "sm90a",
    model: "llama8b-8l",
    workload: "h200-llama8b/batched-v2",
    stock: "cuda-bf16-hopper/v10",
    min_margin_ppm: 10_000,
    max_noise_ppm: 20_000,
    noise_multiplier: 3,
    lease_blocks: 600,
    max_attempts: 3,
    required_distinct_validators: 2,
    // The stock engine decodes at ~97 % of the copy floor: no crown of one boundary makes it
    // twice as fast.
    max_speedup_ppm: 2_000_000,
    // 30.6 s of an H100: the *mean* of the 22 NotFaster nulls without an audit read (27.7–
    // 37.7 s; the stock `linear.matmul` as its own candidate, the release `cacheon`,
    // docs/validator.md; all 27 nulls: mean 33.1 s). Their times were not kept one by one, so
    // no median: this is the nearest figure measured.
    median_attempt_ms: 30_600,
};

/// The CPU arena on a real model: SmolLM2-135M-Instruct (its GGUF file, named by content
/// off chain) in f32 with the same stock kernels, prompts from a validator-owned corpus.
/// Its margin is 5 %: the stock kernel measured as its own candidate read 0.95 to 1.03,
/// consistently by seed (docs/validator.md), more than `cpu-tiny`'s 2 % margin absorbs.
pub const CPU_SMOLLM2: ArenaSpec = ArenaSpec {
    id: "cpu-smollm2",
    backend: Backend::Cpu,
    hardware: "x86-64-v3",
    model: "smollm2-135m",
    workload: "cpu-smollm2",
    stock: "cpu-c11-scalar/v3",
    min_margin_ppm: 50_000,
    max_noise_ppm: 150_000,
    noise_multiplier: 3,
    lease_blocks: 600,
    max_attempts: 3,
    required_distinct_validators: 2,
    max_speedup_ppm: 10_000_000,
    median_attempt_ms: CPU_SMOLLM2_ATTEMPT_MS,
};

/// The tensor-parallel CPU arena: `tiny-moe` (the tiny model with its second layer a
/// mixture of 8 experts) split over two rank processes (attention heads, dense MLP features
/// and whole experts; the o, down and experts' outputs summed by `collective.all_reduce`),
/// on a machine with at least two cores, one a rank. The split is the workload's (its name
/// says so); the stock kernels and the policy are `cpu-tiny`'s.
pub const CPU_TP2: ArenaSpec = ArenaSpec {
    id: "cpu-tp2",
    hardware: "x86-64-v3x2",
    model: "tiny-moe",
    workload: "cpu-tp2/ranks2-v1",
    median_attempt_ms: CPU_TP2_ATTEMPT_MS,
    ..CPU_TINY
};

/// `cpu-tiny`'s median attempt: 5.0 s, the median of the seven single-attempt tests of
/// `offchain/tests/qualify.rs` on this arena (4.7–11.0 s each, medians of five runs on a
/// 2-core machine, debug build; docs/e2e.md).
const CPU_TINY_ATTEMPT_MS: u32 = 5_000;
/// `cpu-smollm2`'s median attempt: 46 s, the median of three PASSes of
/// `examples/cpu/matmul-avx2` (39, 46 and 55 s, 6 pairs each, a 2-core machine, debug build;
/// docs/validator.md). Its nulls took 27–84 s.
const CPU_SMOLLM2_ATTEMPT_MS: u32 = 46_000;
/// `cpu-tp2`'s median attempt: 19.2 s, the two attempts of `offchain/tests/qualify.rs` on
/// this arena (13.2 and 25.1 s, medians of five runs; docs/e2e.md).
const CPU_TP2_ATTEMPT_MS: u32 = 19_150;

/// The genesis arenas; each allows every target of [`TARGETS`].
pub const ARENAS: [ArenaSpec; 4] = [CPU_TINY, H200_LLAMA8B, CPU_SMOLLM2, CPU_TP2];

/// The digest naming an engine component on chain: SHA-256 of
/// `cacheon/<kind>/v1/<name>`, e.g. `engine_digest("model", "tiny")`.
pub fn engine_digest(kind: &str, name: &str) -> [u8; 32] {
    let mut text = alloc::vec::Vec::with_capacity(16 + kind.len() + name.len());
    text.extend_from_slice(b"cacheon/");
    text.extend_from_slice(kind.as_bytes());
    text.extend_from_slice(b"/v1/");
    text.extend_from_slice(name.as_bytes());
    sp_crypto_hashing::sha2_256(&text)
}

/// An arena's three engine digests, as its on-chain config carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineDigests {
    pub model: [u8; 32],
    pub workload: [u8; 32],
    pub stock: [u8; 32],
}

impl ArenaSpec {
    pub fn engine_digests(&self) -> EngineDigests {
        EngineDigests {
            model: engine_digest("model", self.model),
            workload: engine_digest("workload", self.workload),
            stock: engine_digest("stock", self.stock),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::is_valid_id;

    #[test]
    fn every_id_is_valid_and_unique() {
        let ids: alloc::vec::Vec<&str> = TARGETS
            .iter()
            .map(|t| t.id)
            .chain(ARENAS.iter().map(|a| a.id))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(is_valid_id(id.as_bytes()), "{id}");
            assert!(!ids[..i].contains(id), "{id} twice");
        }
    }

    #[test]
    fn targets_name_only_catalog_slots_and_each_slot_has_its_singleton() {
        for t in TARGETS {
            assert!(t.members.iter().all(|m| SLOTS.contains(m)), "{}", t.id);
            assert!(t
                .displaces
                .iter()
                .all(|d| TARGETS.iter().any(|x| x.id == *d)));
        }
        for s in SLOTS {
            assert!(TARGETS
                .iter()
                .any(|t| t.id == s && t.kind == TargetKind::Slot && t.members == [s]));
        }
    }

    #[test]
    fn engine_digests_are_the_hash_of_their_name() {
        // `printf 'cacheon/model/v1/tiny' | sha256sum`
        let tiny = "c931bd75fcbe8967823885e50b494f3919efa8b6325bc7cf7bd707e12d736d00";
        let d = CPU_TINY.engine_digests();
        let hex: alloc::string::String =
            d.model.iter().map(|b| alloc::format!("{b:02x}")).collect();
        assert_eq!(hex, tiny);
        assert_ne!(d.model, H200_LLAMA8B.engine_digests().model);
        assert_ne!(d.model, d.workload);
    }
}
