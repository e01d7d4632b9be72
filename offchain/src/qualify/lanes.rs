//! The speed step's two resident lanes: the exact incumbent (baseline) and the incumbent
//! plus this proposal only (candidate).

use std::time::Instant;

use cacheon_kernels::rng::Rng;
use cacheon_kernels::SlotId;

use super::findings::{lane_outcome, Outcome, Stage};
use super::stage_times::StageTimes;
use super::AttemptOptions;
use crate::arena::{Arena, LaneBackend};
use crate::lane::protocol::BuildCounts;
use crate::lane::{BuildOutcome, Lane, LaneError};

/// Both lanes, sealed, frozen, with the engine's vocabulary size and the weight bytes one
/// forward pass reads.
pub struct Lanes {
    pub base: Lane,
    pub cand: Lane,
    pub vocab: usize,
    pub weight_bytes: u64,
    /// Both lanes' NVRTC builds: read back from the build cache, and compiled.
    pub builds: BuildCounts,
}

/// Whether an attempt's first lanes start the baseline first: drawn from the secret seed.
/// The order matters: on the CPU arena of the real model, stock against itself read about
/// 3 % faster in whichever lane started second (2026-12-05). Where the arena sets
/// `Judging::order_block`, the speed step restarts both lanes in the other order every that
/// many pairs, so each order serves as many pairs (`session.rs`).
pub fn base_first(seed: u64) -> bool {
    Rng::secret(seed, "lane-order").below(2) == 0
}

/// Starts both lanes for a candidate (`canonical` bundle bytes serving `candidate_slots`),
/// the baseline first when `base_first`; how long each part took goes to `times`
/// (`lane_start`, and its parts as `lane_start.part`).
pub fn start(
    canonical: &[u8],
    candidate_slots: &[SlotId],
    arena: Arena,
    opts: &AttemptOptions,
    base_first: bool,
    times: &mut StageTimes,
) -> Result<Lanes, Outcome> {
    let started = Instant::now();
    let lanes = start_both(canonical, candidate_slots, arena, opts, base_first, times);
    times.add("lane_start", started.elapsed());
    lanes
}

fn start_both(
    canonical: &[u8],
    candidate_slots: &[SlotId],
    arena: Arena,
    opts: &AttemptOptions,
    base_first: bool,
    times: &mut StageTimes,
) -> Result<Lanes, Outcome> {
    // Two resident lanes: the exact incumbent, and the incumbent plus this proposal only.
    // They are built alike, so that nothing but the candidate's code differs between them:
    // the baseline lane builds the incumbent kernels of the candidate's slots through the
    // same path (compile, seal, load, install over the engine's own copy) that the
    // candidate lane builds the candidate through.
    let incumbent = incumbent_of(candidate_slots, &opts.stack, arena.backend)
        .map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e)))?;
    let start_base = |times: &mut StageTimes| {
        let started = engine_lane(arena, opts, times).and_then(|mut l| {
            let t = Instant::now();
            let built = incumbent_kernels(&mut l.0, &incumbent);
            times.add("lane_start.bundle", t.elapsed());
            built.map(|()| l)
        });
        started.map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e.to_string())))
    };
    let start_cand = |times: &mut StageTimes| {
        let started = engine_lane(arena, opts, times).and_then(|mut l| {
            let t = Instant::now();
            let built = candidate_kernels(&mut l.0, canonical);
            times.add("lane_start.bundle", t.elapsed());
            built.map(|()| l)
        });
        started.map_err(|e| lane_outcome(Stage::Speed, e))
    };
    let ((base, vocab, weight_bytes), (cand, _, _)) = if base_first {
        let b = start_base(times)?;
        (b, start_cand(times)?)
    } else {
        let c = start_cand(times)?;
        (start_base(times)?, c)
    };
    let (b, c) = (base.builds(), cand.builds());
    Ok(Lanes {
        base,
        cand,
        vocab,
        weight_bytes,
        builds: BuildCounts {
            cached: b.cached + c.cached,
            compiled: b.compiled + c.compiled,
        },
    })
}

/// A lane with the arena's engine (the stock kernels and the incumbent stack) loaded:
/// the lane, the vocabulary and the weight bytes a pass reads. Its parts' times (the
/// lane's own figures among them) go to `times`.
fn engine_lane(
    arena: Arena,
    opts: &AttemptOptions,
    times: &mut StageTimes,
) -> Result<(Lane, usize, u64), LaneError> {
    let w = arena.workload;
    let t = Instant::now();
    let mut lane = Lane::spawn_ranks(&opts.lane_exe, arena.backend, opts.deadlines, w.world)?;
    times.add("lane_start.spawn", t.elapsed());
    let t = Instant::now();
    let (vocab, weight_bytes) = lane.load_engine(
        w.model,
        arena.engine_weights(opts.weights_seed()),
        w.max_seq,
        w.max_batch(),
        &opts.stack,
    )?;
    times.add("lane_start.engine", t.elapsed());
    for (name, ms) in lane.engine_load_ms() {
        times.add_ms(&format!("lane_start.engine.{name}"), *ms);
    }
    Ok((lane, vocab, weight_bytes))
}

/// The baseline lane's side: the incumbent kernels of the candidate's slots built through
/// the candidate's path, sealed, installed; the lane frozen.
fn incumbent_kernels(lane: &mut Lane, incumbent: &[Vec<u8>]) -> Result<(), LaneError> {
    for bytes in incumbent {
        match lane.build(bytes, "incumbent")? {
            BuildOutcome::Built { .. } => {}
            BuildOutcome::Failed { log, .. } => {
                return Err(LaneError::Infrastructure(format!(
                    "an incumbent bundle did not build in the baseline lane: {log}"
                )))
            }
        }
    }
    lane.seal()?;
    // A seam no kernel was crowned for has no incumbent bundle: the baseline engine's
    // member calls serve it.
    if !incumbent.is_empty() {
        lane.install_candidate()?;
    }
    lane.freeze();
    Ok(())
}

/// The candidate lane's side: the candidate built, sealed (its code loaded: the lane is
/// the candidate's from here), installed; the lane frozen.
fn candidate_kernels(lane: &mut Lane, canonical: &[u8]) -> Result<(), LaneError> {
    match lane.build(canonical, "candidate")? {
        BuildOutcome::Built { .. } => {}
        // The bundle's own doing (its screened build succeeded: a build that depends on
        // when or where it runs), never NoDecision, which would let a bundle choose to be
        // requeued. Disputable (Incorrect): a second operator must agree before it sticks.
        BuildOutcome::Failed { log, .. } => {
            return Err(LaneError::CandidateFault {
                during: "its build in the speed lane".into(),
                message: format!(
                    "it built in the screens, but not again (a build must not depend on when or where it runs): {log}"
                ),
            })
        }
    }
    lane.mark_candidate();
    lane.seal()?;
    lane.install_candidate()?;
    lane.freeze();
    Ok(())
}

/// The canonical bytes of the bundles that serve `slots` in the incumbent stack: for each
/// slot the last stack bundle with an op for it, else the arena's stock bundle (none for a
/// fused seam); each once.
fn incumbent_of(
    slots: &[SlotId],
    stack: &[Vec<u8>],
    backend: LaneBackend,
) -> Result<Vec<Vec<u8>>, String> {
    use cacheon_kernels::bundle::{canonical_bytes, from_canonical_bytes, MAX_BUNDLE_BYTES};
    let mut out: Vec<Vec<u8>> = Vec::new();
    for &slot in slots {
        let mut found = None;
        for bytes in stack.iter().rev() {
            let files = from_canonical_bytes(bytes, MAX_BUNDLE_BYTES).map_err(|e| e.to_string())?;
            let manifest =
                cacheon_kernels::Manifest::from_bundle(&files).map_err(|e| e.to_string())?;
            if manifest.ops.iter().any(|o| o.slot == slot) {
                found = Some(bytes.clone());
                break;
            }
        }
        let bytes = match found {
            Some(b) => b,
            None => {
                let stock = match backend {
                    LaneBackend::Cpu => cacheon_kernels::bundle::stock::cpu_bundle(slot),
                    LaneBackend::Cuda => cacheon_kernels::bundle::stock::cuda_bundle(slot),
                };
                // A seam nobody was crowned for is served by its members: no bundle.
                let Some(stock) = stock else { continue };
                canonical_bytes(&stock.files(), MAX_BUNDLE_BYTES).map_err(|e| e.to_string())?
            }
        };
        if !out.contains(&bytes) {
            out.push(bytes);
        }
    }
    Ok(out)
}
