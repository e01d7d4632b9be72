//! One qualification attempt (DESIGN 7), the same for `cacheon qualify` and the validator:
//! the screens (steps 1-6), then the speed reads on two resident lanes (7) with the audit
//! reads of the candidate's calls drawn in secret among them (8), and, once the candidate
//! lanes are gone, the pristine reference (9). The result is one report with a verdict.
//!
//! Both arenas run the same steps: CPU lanes hold the f32 engine with C kernels, CUDA
//! lanes the bf16 engine with decode replayed from CUDA graphs. The physical floor uses the
//! copy bandwidth the referee measures itself (host memory, or the GPU's).

pub mod audit;
pub mod copy;
mod lanes;
pub mod pristine;
pub mod reads;
mod report;
pub mod speed;

pub use report::{AttemptReport, PristineRecord, SpeedRecord};

use std::path::PathBuf;
use std::time::Instant;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::SlotId;
use cacheon_primitives::{FailReason, NoDecisionReason, PPM_ONE};

use crate::arena::Arena;
use crate::lane::{Deadlines, Lane, LaneError};
use crate::screens::{self, fail, lane_outcome, Outcome, Progress, ScreenOptions, Stage};
use reads::{read_prompt, timed_pair, tokens_agree};

/// Options of one attempt.
#[derive(Clone, Debug)]
pub struct AttemptOptions {
    pub lane_exe: PathBuf,
    /// Secret seed: verification inputs and the workload's prompt derive from it.
    pub seed: u64,
    /// The incumbent stack above the genesis stock kernels, canonical bundle bytes in the
    /// order they were crowned.
    pub stack: Vec<Vec<u8>>,
    pub deadlines: Deadlines,
    /// Every earlier proposal with a known fingerprint, for the copy screen (`None`
    /// offline).
    pub earlier: Option<Vec<crate::fingerprint::Earlier>>,
    /// The copy rate (read + written bytes per second) the physical floor uses; `None`
    /// measures it, as validators and `cacheon qualify` always do. Tests set a rate far
    /// below the machine's to show a read under the floor FAILing `Cheating`.
    pub copy_bandwidth: Option<f64>,
}

/// A fresh secret seed for an attempt, from the operating system's random source. A
/// machine that cannot give one runs no attempt: a guessable seed is a public one.
pub fn fresh_seed() -> std::io::Result<u64> {
    use std::io::Read;
    let mut b = [0u8; 8];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Runs one attempt.
pub fn attempt(
    files: &[BundleFile],
    arena: Arena,
    opts: &AttemptOptions,
    progress: &mut dyn FnMut(Progress),
) -> AttemptReport {
    let started = Instant::now();
    let mut screen_opts = ScreenOptions::new(opts.lane_exe.clone(), opts.seed);
    screen_opts.deadlines = opts.deadlines;
    screen_opts.earlier = opts.earlier.clone();
    let screens = screens::run_screens(files, arena, &screen_opts, progress);
    let mut report = AttemptReport {
        arena: arena.name(),
        content_hash: screens.content_hash.clone(),
        seed: opts.seed,
        outcome: screens.outcome.clone(),
        speedup_ppm: None,
        machine: screens.machine.clone(),
        wall_ms: 0,
        screens,
        speed: None,
        audit: None,
        pristine: None,
        workload: arena.workload,
    };
    if report.outcome == Outcome::Pass {
        report.outcome = measure(files, arena, opts, &mut report, progress);
    }
    report.wall_ms = started.elapsed().as_millis() as u64;
    report
}

/// Steps 7-9 for a bundle that passed the screens.
fn measure(
    files: &[BundleFile],
    arena: Arena,
    opts: &AttemptOptions,
    report: &mut AttemptReport,
    progress: &mut dyn FnMut(Progress),
) -> Outcome {
    let w = arena.workload;
    let j = arena.judging;
    let canonical = match cacheon_kernels::bundle::canonical_bytes(
        files,
        cacheon_kernels::bundle::MAX_BUNDLE_BYTES,
    ) {
        Ok(c) => c,
        Err(e) => return Outcome::Fail(fail(Stage::Pack, FailReason::Policy, e.to_string())),
    };
    let manifest = match cacheon_kernels::Manifest::from_bundle(files) {
        Ok(m) => m,
        Err(e) => return Outcome::Fail(fail(Stage::Policy, FailReason::Policy, e.to_string())),
    };
    let candidate_slots: Vec<SlotId> = manifest.ops.iter().map(|o| o.slot).collect();
    progress(Progress::Stage(Stage::Speed));
    let lanes::Lanes {
        mut base,
        mut cand,
        vocab,
        weight_bytes,
    } = match lanes::start(&canonical, &candidate_slots, arena, opts) {
        Ok(l) => l,
        Err(outcome) => return outcome,
    };

    // Every read gets a fresh secret prompt (no cache keyed on inputs can hit), the same
    // for both lanes of a pair, and its tokens are checked against the baseline's.
    let mut reads = 0u64;
    let mut next_prompt = || {
        reads += 1;
        read_prompt(opts.seed, reads, w.prompt_len, vocab)
    };
    let measured = match opts.copy_bandwidth {
        Some(rate) => Ok(rate),
        None => copy::floor_bandwidth(arena.backend, weight_bytes as usize),
    };
    let copy = match measured {
        Ok(c) => c,
        Err(e) => return lane_outcome(Stage::Speed, LaneError::Infrastructure(e)),
    };
    let mut rec = SpeedRecord {
        min_margin_ppm: j.min_margin_ppm,
        max_noise_ppm: j.max_noise_ppm,
        floor_ms: (1 + w.decode_steps) as f64 * weight_bytes as f64 / copy * 1e3,
        copy_gb_per_s: copy / 1e9,
        ..Default::default()
    };

    // Warm both lanes, then pairs of reads in alternating order (B C, C B, B C, …): each
    // lane is as often first as second, so whatever the order costs falls on both.
    let warm_prompt = next_prompt();
    let keep_logits = j.read_kl_bound.is_some();
    let warm = match timed_pair(
        &mut base,
        &mut cand,
        &warm_prompt,
        w.decode_steps,
        false,
        keep_logits,
    ) {
        Ok(p) => p,
        Err(outcome) => return outcome,
    };
    // Audit A: extra reads at secret positions among the timed ones (`audit.rs`), each
    // recording a secret sample of the candidate's calls, sized by a read's counts.
    let mut audit_at = audit::draw_reads(opts.seed, &w, &j);
    let mut summary = audit::AuditSummary::default();
    let mut audit = |base: &mut Lane, cand: &mut Lane, prompt: &[u32], at: u64| {
        let sample = audit::draw_sample(opts.seed, at, &candidate_slots, &warm.dispatch, &w);
        let outcome = audit::audit_read(base, cand, prompt, &sample, arena, &mut summary);
        (outcome, summary.clone())
    };
    let mut order = 0u64;
    let decision = loop {
        progress(Progress::Cases {
            done: rec.baseline_ms.len(),
            total: j.max_pairs,
        });
        // One read per lane: the fastest of `runs_per_read` runs.
        let (mut b_ms, mut c_ms) = (f64::INFINITY, f64::INFINITY);
        let mut dispatch = Vec::new();
        for _ in 0..j.runs_per_read.max(1) {
            order += 1;
            if audit_at.remove(&order) {
                let prompt = next_prompt();
                if let (Err(outcome), seen) = audit(&mut base, &mut cand, &prompt, order) {
                    report.audit = Some(seen);
                    return outcome;
                }
                // An audit read runs eagerly and moves data to the host: one untimed pair
                // puts both lanes back as a timed read finds them (graphs, caches, clocks).
                let prompt = next_prompt();
                if let Err(outcome) = timed_pair(
                    &mut base,
                    &mut cand,
                    &prompt,
                    w.decode_steps,
                    false,
                    keep_logits,
                ) {
                    return outcome;
                }
            }
            let read_prompt = next_prompt();
            let pair = match timed_pair(
                &mut base,
                &mut cand,
                &read_prompt,
                w.decode_steps,
                order.is_multiple_of(2),
                keep_logits,
            ) {
                Ok(p) => p,
                Err(outcome) => return outcome,
            };
            b_ms = b_ms.min(pair.base_ms);
            c_ms = c_ms.min(pair.cand_ms);
            if let Err(detail) = tokens_agree(
                &mut base,
                &read_prompt,
                &pair.base_tokens,
                &pair.cand_tokens,
                arena.backend,
            ) {
                report.speed = Some(rec.clone());
                return match detail {
                    Ok(detail) => {
                        Outcome::Fail(fail(Stage::Speed, FailReason::BehaviourChanged, detail))
                    }
                    Err(e) => lane_outcome(Stage::Speed, LaneError::Infrastructure(e.to_string())),
                };
            }
            if let Some(bound) = j.read_kl_bound {
                match reads::distributions_agree(&pair, vocab, bound) {
                    Ok(kl) => rec.max_read_kl = Some(rec.max_read_kl.unwrap_or(0.0).max(kl)),
                    Err(detail) => {
                        report.speed = Some(rec.clone());
                        return Outcome::Fail(fail(
                            Stage::Speed,
                            FailReason::BehaviourChanged,
                            detail,
                        ));
                    }
                }
            }
            dispatch = pair.dispatch;
        }
        rec.baseline_ms.push(b_ms);
        rec.candidate_ms.push(c_ms);
        rec.candidate_dispatch = SlotId::ALL
            .iter()
            .zip(&dispatch)
            .map(|(s, &n)| (s.as_str().to_string(), n))
            .collect();
        if c_ms < rec.floor_ms {
            report.speed = Some(rec.clone());
            return Outcome::Fail(fail(
                Stage::Speed,
                FailReason::Cheating,
                format!(
                    "a read took {c_ms:.3} ms, below the physical floor of {:.3} ms",
                    rec.floor_ms
                ),
            ));
        }
        if let Some(s) = candidate_slots
            .iter()
            .find(|s| dispatch.get(s.index()).copied().unwrap_or(0) == 0)
        {
            report.speed = Some(rec.clone());
            return Outcome::Fail(fail(
                Stage::Speed,
                FailReason::NotFaster,
                format!("the candidate's {s} kernel never ran in the workload (dispatch count 0)"),
            ));
        }
        let d = speed::decide(
            &rec.baseline_ms,
            &rec.candidate_ms,
            j.min_margin_ppm,
            j.max_noise_ppm,
            j.min_pairs,
            j.max_pairs,
        );
        if d != speed::Decision::Continue {
            break d;
        }
    };
    let iv = speed::interval(&rec.baseline_ms, &rec.candidate_ms);
    rec.interval = Some(iv);
    rec.decision = Some(decision);
    rec.baseline_drift_ppm = speed::baseline_drift_ppm(&rec.baseline_ms);
    report.speedup_ppm = Some((iv.low * PPM_ONE as f64).clamp(0.0, u32::MAX as f64) as u32);
    report.speed = Some(rec);
    match decision {
        speed::Decision::Faster => {}
        speed::Decision::NotFaster => {
            return Outcome::Fail(fail(
                Stage::Speed,
                FailReason::NotFaster,
                format!(
                    "speedup {:.4} (95 % interval {:.4}..{:.4} over {} pairs) is not proven above {:.4}",
                    iv.speedup,
                    iv.low,
                    iv.high,
                    iv.pairs,
                    1.0 + j.min_margin_ppm as f64 / 1e6
                ),
            ))
        }
        speed::Decision::Noise { drift_ppm } => {
            return Outcome::NoDecision {
                reason: NoDecisionReason::Noise,
                detail: format!("the baseline drifted by {drift_ppm} ppm, more than {}", j.max_noise_ppm),
            }
        }
        speed::Decision::Continue => unreachable!("the loop only ends decided"),
    }
    // The audit reads the decision came before run now, where a timed read would be.
    progress(Progress::Stage(Stage::Audit));
    for at in std::mem::take(&mut audit_at) {
        let prompt = next_prompt();
        if let (Err(outcome), seen) = audit(&mut base, &mut cand, &prompt, at) {
            report.audit = Some(seen);
            return outcome;
        }
    }
    report.audit = Some(summary);

    // Token sequences and next-token distributions of both engines from one more read,
    // for the pristine reference T, once the candidate lanes are gone.
    let prompt = next_prompt();
    let runs = (
        base.run(&prompt, w.decode_steps, true),
        cand.run(&prompt, w.decode_steps, true),
    );
    base.shutdown();
    cand.shutdown();
    let (b_run, c_run) = match runs {
        (Ok(b), Ok(c)) => (b, c),
        (Err(e), _) => {
            return lane_outcome(Stage::Pristine, LaneError::Infrastructure(e.to_string()))
        }
        (_, Err(e)) => return lane_outcome(Stage::Pristine, e),
    };
    progress(Progress::Stage(Stage::Pristine));
    let (outcome, record) = pristine::check(&prompt, &b_run, &c_run, arena, opts, vocab);
    report.pristine = record;
    outcome
}
