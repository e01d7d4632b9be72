//! One qualification attempt (DESIGN 7), the same for `cacheon qualify` and the validator:
//! the screens (steps 1-6), then the speed reads on two resident lanes (7) with the audit
//! reads of the candidate's calls drawn in secret among them (8), and, once the candidate
//! lanes are gone, the pristine reference (9). The result is one report with a verdict.
//!
//! Both arenas run the same steps: CPU lanes hold the f32 engine with C kernels, CUDA
//! lanes the bf16 engine with decode replayed from CUDA graphs. The physical floor uses the
//! copy bandwidth the referee measures itself (host memory, or the GPU's).

pub mod audit;
pub mod copy_bandwidth;
pub mod findings;
mod lanes;
pub mod pristine;
pub mod reads;
mod report;
pub mod screens;
mod session;
pub mod speed;
pub mod stage_times;
mod verify;

pub use report::{AttemptReport, PristineRecord, SpeedRecord};

use std::path::PathBuf;
use std::time::Instant;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::SlotId;
use cacheon_primitives::{FailReason, NoDecisionReason, PPM_ONE};

use crate::arena::Arena;
use crate::lane::{Deadlines, LaneError};
use findings::{fail, lane_outcome, Outcome, Progress, ScreenOptions, Stage};
use session::Reads;

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

impl AttemptOptions {
    /// The seed the attempt's engines synthesize their weights from: secret like the
    /// prompts, so no kernel can know the weights without reading them (a projection that
    /// regenerated public synthetic weights from their formula would skip the memory
    /// traffic that is the whole cost of decode). Every lane of the attempt uses it, so
    /// the baseline, the candidate and the pristine engine run the same model.
    pub fn weights_seed(&self) -> u64 {
        cacheon_kernels::rng::Rng::secret(self.seed, "weights").next_u64()
    }
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
        stage_ms: screens.stage_ms.clone(),
        screens,
        speed: None,
        audit: None,
        pristine: None,
        workload: arena.workload,
    };
    if let (Outcome::Pass, Some(packed)) = (&report.outcome, report.screens.packed.clone()) {
        report.outcome = measure(&packed, arena, opts, &mut report, progress);
    }
    let wall = started.elapsed();
    report.wall_ms = wall.as_millis() as u64;
    let other = wall.as_secs_f64() * 1e3 - report.stage_ms.top_level_ms();
    report.stage_ms.add_ms("other", other.max(0.0));
    report
}

/// Steps 7-9 for a bundle that passed the screens.
fn measure(
    packed: &findings::Packed,
    arena: Arena,
    opts: &AttemptOptions,
    report: &mut AttemptReport,
    progress: &mut dyn FnMut(Progress),
) -> Outcome {
    let (w, j) = (arena.workload, arena.judging);
    let slots: Vec<SlotId> = packed.manifest.ops.iter().map(|o| o.slot).collect();
    progress(Progress::Stage(Stage::Speed));
    let base_first = lanes::base_first(opts.seed);
    let started = lanes::start(
        &packed.canonical,
        &slots,
        arena,
        opts,
        base_first,
        &mut report.stage_ms,
    );
    let lanes = match started {
        Ok(l) => l,
        Err(outcome) => return outcome,
    };
    let measured = report
        .stage_ms
        .time("copy_bandwidth", || match opts.copy_bandwidth {
            Some(rate) => Ok(rate),
            None => copy_bandwidth::floor_bandwidth(arena.backend, lanes.weight_bytes as usize),
        });
    let copy = match measured {
        Ok(c) => c,
        Err(e) => return lane_outcome(Stage::Speed, LaneError::Infrastructure(e)),
    };
    let mut rec = SpeedRecord {
        min_margin_ppm: j.min_margin_ppm,
        max_noise_ppm: j.max_noise_ppm,
        floor_ms: w.passes() as f64 * lanes.weight_bytes as f64 / copy * 1e3,
        copy_gb_per_s: copy / 1e9,
        base_started_first: base_first,
        lane_builds: lanes.builds,
        ..Default::default()
    };

    // Step 7, with step 8's audit reads at secret positions among the timed ones.
    let mut reads = match Reads::warm(lanes, base_first, arena, opts, &packed.canonical, &slots) {
        Ok(r) => r,
        Err(outcome) => return outcome,
    };
    let decided = reads.speed(&mut rec, progress);
    rec.lane_starts = reads.lane_starts;
    report.stage_ms.merge(&std::mem::take(&mut reads.times));
    if reads.audit.reads > 0 {
        report.audit = Some(reads.audit.clone());
    }
    let decision = match decided {
        Ok(d) => d,
        Err(outcome) => {
            report.speed = Some(rec);
            return outcome;
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
    progress(Progress::Stage(Stage::Audit));
    let audited = reads.remaining_audits();
    report.audit = Some(reads.audit.clone());
    report.stage_ms.merge(&std::mem::take(&mut reads.times));
    if let Err(outcome) = audited {
        return outcome;
    }

    // Step 9: both engines' tokens and distributions from one more read, for the pristine
    // reference T, once the candidate lanes are gone.
    let pristine_started = std::time::Instant::now();
    let vocab = reads.vocab;
    let (read, b_run, c_run) = match reads.last_read() {
        Ok(r) => r,
        Err(outcome) => return outcome,
    };
    progress(Progress::Stage(Stage::Pristine));
    let (outcome, record) = pristine::check(&read, &b_run, &c_run, arena, opts, vocab);
    report.stage_ms.add("pristine", pristine_started.elapsed());
    report.pristine = record;
    outcome
}
