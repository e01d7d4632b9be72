//! What each target is worth in an arena: the share of a workload read its slots take, and
//! the largest end-to-end speedup a proposal for it could give (Amdahl: the target's time
//! gone entirely, `1 / (1 - share)`). A target whose bound is under `1 + margin` can never
//! PASS there, whatever its kernel.
//!
//! On the CPU arena the shares are measured here and now: one workload read of the stock
//! engine with every slot call timed. The GPU arena's are the committed H200 measurement
//! ([`H200_LLAMA8B_DECODE`]), taken with `cacheon-engine-bench --breakdown`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use cacheon_kernels::cpu::engine::{CallPhase, Engine, SlotObserver, SlotTable};
use cacheon_kernels::model::sampler::argmax;
use cacheon_kernels::model::{Logits, ModelConfig, Weights};
use cacheon_kernels::slots::call::SlotCall;
use cacheon_kernels::slots::{self, SlotId, SLOT_COUNT};
use cacheon_kernels::CpuBuildOptions;

use super::{Arena, LaneBackend};

/// One target's worth.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TargetShare {
    pub target: &'static str,
    /// Fraction of the read's time spent in the target's slots.
    pub share: f64,
    /// `1 / (1 - share)`: the end-to-end speedup if the target took no time at all.
    pub max_speedup: f64,
    /// Whether even that bound clears the arena's margin.
    pub can_pass: bool,
}

/// Where the shares come from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Profile {
    /// How they were measured (machine, workload, date or "now").
    pub source: String,
    /// Seconds of the whole read (or step) the shares are fractions of.
    pub total_seconds: f64,
    pub targets: Vec<TargetShare>,
}

/// Seconds per slot of one batch-1 decode step of `llama8b-8l` on an H200 (the rest of the
/// step: the q|k|v GEMV, which is the engine's own fused seam, the KV write, embedding,
/// argmax, launch gaps), and the whole graph-replayed step. Measured with
/// `cacheon-engine-bench --breakdown` (graph-replayed per-operation times × launches per
/// step) on 2026-12-05 at commit 11fdc13; `linear.matmul` is the o, gate|up, down and
/// LM-head products (93.8 + 450.1 + 272.6 + 239.5 µs).
pub const H200_LLAMA8B_DECODE: (f64, [(SlotId, f64); SLOT_COUNT]) = (
    1.3845e-3,
    [
        (SlotId::SiluAndMul, 12.2e-6),
        (SlotId::RmsNorm, 1.7e-6),
        (SlotId::FusedAddRmsNorm, 30.7e-6),
        (SlotId::Rope, 18.7e-6),
        (SlotId::AttentionDecode, 102.9e-6),
        (SlotId::LinearMatmul, 1_056.0e-6),
        (SlotId::AttentionPrefill, 0.0),
    ],
);

/// The arena's profile: measured now on the CPU arena (`seed` names the weights and the
/// prompt), the committed H200 measurement on the GPU arena.
pub fn profile(arena: Arena, seed: u64) -> Result<Profile, String> {
    match arena.backend {
        LaneBackend::Cpu => measure_cpu(arena, seed),
        LaneBackend::Cuda => {
            let (total, per_slot) = H200_LLAMA8B_DECODE;
            let mut seconds = [0f64; SLOT_COUNT];
            for (slot, s) in per_slot {
                seconds[slot.index()] = s;
            }
            Ok(Profile {
                source: "H200, batch-1 decode step at context 2048 \
                         (cacheon-engine-bench --breakdown, 2026-12-05)"
                    .into(),
                total_seconds: total,
                targets: shares(arena, &seconds, total),
            })
        }
    }
}

/// Times every slot call of one workload read (prefill, then the greedy decode steps) of
/// the stock CPU engine, on this machine, one thread.
fn measure_cpu(arena: Arena, seed: u64) -> Result<Profile, String> {
    let w = arena.workload;
    let cfg = ModelConfig::named(w.model).ok_or_else(|| format!("unknown model `{}`", w.model))?;
    let slots = SlotTable::genesis_cpu(&CpuBuildOptions::default()).map_err(|e| e.to_string())?;
    let weights = Weights::synthesize(&cfg, seed);
    let vocab = cfg.vocab_size as u64;
    let mut engine = Engine::new(cfg, weights, slots, 1, w.max_seq).map_err(|e| e.to_string())?;
    let timer = Arc::new(SlotTimer::default());
    engine.slots_mut().set_observer(Some(timer.clone()));
    let mut rng = cacheon_kernels::rng::Rng::derive(seed, "profile-prompt");
    let prompt: Vec<u32> = (0..w.prompt_len).map(|_| rng.below(vocab) as u32).collect();
    let start = Instant::now();
    let logits = engine
        .prefill(0, &prompt, Logits::Last)
        .map_err(|e| e.to_string())?;
    let mut next = argmax(&logits);
    for _ in 0..w.decode_steps {
        next = argmax(&engine.decode(&[next]).map_err(|e| e.to_string())?);
    }
    let total = start.elapsed().as_secs_f64();
    let seconds = *timer.seconds.lock().expect("timer lock");
    Ok(Profile {
        source: format!(
            "this machine, now: one read of the {} workload ({} prompt tokens, {} decode steps), stock kernels",
            arena.name(),
            w.prompt_len,
            w.decode_steps
        ),
        total_seconds: total,
        targets: shares(arena, &seconds, total),
    })
}

/// Per target: its slots' share of `total` and its Amdahl bound against the margin.
fn shares(arena: Arena, seconds: &[f64; SLOT_COUNT], total: f64) -> Vec<TargetShare> {
    let margin = arena.spec.min_margin_ppm as f64 / 1e6;
    slots::targets()
        .iter()
        .map(|t| {
            let spent: f64 = t.members.iter().map(|m| seconds[m.index()]).sum();
            let share = (spent / total).clamp(0.0, 1.0);
            let max_speedup = if share < 1.0 {
                1.0 / (1.0 - share)
            } else {
                f64::INFINITY
            };
            TargetShare {
                target: t.id,
                share,
                max_speedup,
                can_pass: max_speedup > 1.0 + margin,
            }
        })
        .collect()
}

/// Adds up the wall time of every slot call (the engine runs them one at a time).
#[derive(Default)]
struct SlotTimer {
    started: Mutex<Option<Instant>>,
    seconds: Mutex<[f64; SLOT_COUNT]>,
}

impl SlotObserver for SlotTimer {
    fn observe(&self, phase: CallPhase, call: &SlotCall<'_>, _outputs: &[&[f32]]) {
        let mut started = self.started.lock().expect("timer lock");
        match phase {
            CallPhase::Before => *started = Some(Instant::now()),
            CallPhase::After => {
                if let Some(t) = started.take() {
                    self.seconds.lock().expect("timer lock")[call.slot.index()] +=
                        t.elapsed().as_secs_f64();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_arena_profile_covers_the_read_and_bounds_every_target() {
        let arena = crate::arena::arena("cpu-tiny").unwrap();
        let p = profile(arena, 3).unwrap();
        assert_eq!(p.targets.len(), slots::targets().len());
        let singles: f64 = p
            .targets
            .iter()
            .filter(|t| SlotId::parse(t.target).is_some())
            .map(|t| t.share)
            .sum();
        // The slots are nearly all of a read (the rest: embedding rows, the KV writes).
        assert!(singles > 0.5 && singles <= 1.0, "{p:?}");
        let matmul = p
            .targets
            .iter()
            .find(|t| t.target == "linear.matmul")
            .unwrap();
        assert!(matmul.share > 0.3 && matmul.can_pass, "{p:?}");
        for t in &p.targets {
            assert!((t.max_speedup - 1.0 / (1.0 - t.share)).abs() < 1e-9);
            assert_eq!(t.can_pass, t.max_speedup > 1.02);
        }
    }

    #[test]
    fn the_gpu_arena_profile_is_the_committed_measurement() {
        let arena = crate::arena::arena("h200-llama8b").unwrap();
        let p = profile(arena, 0).unwrap();
        let get = |id: &str| p.targets.iter().find(|t| t.target == id).unwrap().clone();
        // silu_and_mul is 0.9 % of the step: not even a free kernel clears the 1 % margin.
        assert!(!get("activation.silu_and_mul").can_pass);
        assert!(get("linear.matmul").share > 0.7);
        let atomic = get("attention.rope_decode.v1");
        assert!(
            (atomic.share - get("position.rope").share - get("attention.decode").share).abs()
                < 1e-12
        );
    }
}
