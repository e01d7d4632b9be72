//! One qualification attempt (DESIGN 7), the same for `cacheon qualify` and the validator:
//! the screens (steps 1-6), then the speed reads on two resident lanes (7) with the audit
//! reads of the candidate's calls drawn in secret among them (8), and, once the candidate
//! lanes are gone, the pristine reference (9). The result is one report with a verdict.
//!
//! Both arenas run the same steps: CPU lanes hold the f32 engine with C kernels, CUDA
//! lanes the bf16 engine with decode replayed from CUDA graphs. The physical floor uses the
//! copy bandwidth the referee measures itself (host memory, or the GPU's).

pub mod audit;
pub mod behaviour;
pub mod speed;

use std::path::PathBuf;
use std::time::Instant;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::rng::Rng;
use cacheon_kernels::SlotId;
use cacheon_primitives::{FailReason, NoDecisionReason, PPM_ONE};
use serde::Serialize;

use crate::arena::{Arena, LaneBackend};
use crate::lane::engine_lane::AuditSample;
use crate::lane::{BuildOutcome, Deadlines, Lane, LaneError};
use crate::screens::{
    self, fail, lane_outcome, Outcome, Progress, ScreenOptions, ScreenReport, Stage,
};

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

/// The speed step's record.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpeedRecord {
    pub baseline_ms: Vec<f64>,
    pub candidate_ms: Vec<f64>,
    pub interval: Option<speed::Interval>,
    pub decision: Option<speed::Decision>,
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
    pub baseline_drift_ppm: u64,
    /// Lower bound on a read's time: weight bytes of every forward pass at the measured
    /// copy bandwidth of a buffer that size.
    pub floor_ms: f64,
    pub copy_gb_per_s: f64,
    /// Each slot's dispatch count in the candidate's reads.
    pub candidate_dispatch: Vec<(String, u64)>,
}

/// The pristine reference's record.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PristineRecord {
    pub kl_baseline: f64,
    pub kl_candidate: f64,
    pub kl_bound: f64,
    pub envelope: f64,
}

/// Everything one attempt found; stored as evidence.
#[derive(Clone, Debug, Serialize)]
pub struct AttemptReport {
    pub arena: &'static str,
    pub content_hash: Option<String>,
    pub seed: u64,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The lower end of the speedup's 95 % interval in ppm: what a PASS attests (set
    /// whenever the speed step decided, for the record).
    pub speedup_ppm: Option<u32>,
    pub machine: String,
    pub wall_ms: u64,
    pub screens: ScreenReport,
    pub speed: Option<SpeedRecord>,
    pub audit: Option<audit::AuditSummary>,
    pub pristine: Option<PristineRecord>,
    pub workload: crate::arena::Workload,
}

impl AttemptReport {
    /// The verdict's short name: `pass`, `fail` or `no_decision`.
    pub fn verdict(&self) -> &'static str {
        match self.outcome {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "fail",
            Outcome::NoDecision { .. } => "no_decision",
        }
    }
}

/// A fresh secret seed for an attempt, from the operating system's random source.
pub fn fresh_seed() -> u64 {
    let mut b = [0u8; 8];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut b);
    }
    u64::from_le_bytes(b) ^ std::process::id() as u64
}

/// The prompt of an attempt: `len` tokens drawn from the attempt's seed.
pub fn prompt(seed: u64, len: usize, vocab: usize) -> Vec<u32> {
    let mut rng = Rng::derive(seed, "workload-prompt");
    (0..len).map(|_| rng.below(vocab as u64) as u32).collect()
}

/// The physical floor's bandwidth, measured by the referee itself (read + written bytes
/// per second): host memory for CPU arenas, GPU 0's memory for CUDA arenas (buffers of at
/// most 1 GiB, far beyond any cache).
pub fn floor_bandwidth(backend: LaneBackend, bytes: usize) -> Result<f64, String> {
    match backend {
        LaneBackend::Cpu => Ok(copy_bandwidth(bytes)),
        LaneBackend::Cuda => {
            let dev = cacheon_kernels::CudaDevice::open(0).map_err(|e| e.to_string())?;
            cacheon_kernels::cuda::timing::copy_bandwidth(&dev, bytes.min(1 << 30), 4, 10)
                .map(|c| c.best())
                .map_err(|e| format!("measuring the GPU's copy bandwidth: {e}"))
        }
    }
}

/// Best copy rate over a host buffer of `bytes` (read + written bytes per second).
pub fn copy_bandwidth(bytes: usize) -> f64 {
    let n = bytes.max(1 << 16) / 4;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        dst.copy_from_slice(&src);
        std::hint::black_box(&mut dst);
        best = best.min(t.elapsed().as_secs_f64());
    }
    (2 * n * 4) as f64 / best.max(1e-9)
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
        arena: arena.name,
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

    // Two resident lanes: the exact incumbent, and the incumbent plus this proposal only.
    // They are built alike, so that nothing but the candidate's code differs between them:
    // the baseline lane builds the incumbent kernels of the candidate's slots through the
    // same path (compile, seal, load, install over the engine's own copy) that the
    // candidate lane builds the candidate through.
    let incumbent = match incumbent_of(&candidate_slots, &opts.stack, arena.backend) {
        Ok(b) => b,
        Err(e) => return lane_outcome(Stage::Speed, LaneError::Infrastructure(e)),
    };
    let start_lane = |candidate: bool| -> Result<(Lane, usize, u64), LaneError> {
        let mut lane = Lane::spawn(&opts.lane_exe, arena.backend, opts.deadlines)?;
        let (vocab, weight_bytes) =
            lane.load_engine(w.model, w.weights_seed, w.max_seq, &opts.stack)?;
        if !candidate {
            for bytes in &incumbent {
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
            lane.install_candidate()?;
        } else {
            match lane.build(&canonical, "candidate")? {
                BuildOutcome::Built { .. } => {}
                BuildOutcome::Failed { log, .. } => {
                    return Err(LaneError::Infrastructure(format!(
                        "the candidate built in the screens but not in its speed lane: {log}"
                    )))
                }
            }
            // Sealing loads the candidate's library: the lane is the candidate's from here.
            lane.mark_candidate();
            lane.seal()?;
            lane.install_candidate()?;
        }
        lane.freeze();
        Ok((lane, vocab, weight_bytes))
    };
    let start_base = || match start_lane(false) {
        Ok(l) => Ok(l),
        Err(e) => Err(lane_outcome(
            Stage::Speed,
            LaneError::Infrastructure(e.to_string()),
        )),
    };
    let start_cand = || start_lane(true).map_err(|e| lane_outcome(Stage::Speed, e));
    // Which lane starts first (and so allocates first) is drawn from the secret seed.
    let lanes = if Rng::derive(opts.seed, "lane-order").below(2) == 0 {
        start_base().and_then(|b| Ok((b, start_cand()?)))
    } else {
        start_cand().and_then(|c| Ok((start_base()?, c)))
    };
    let ((mut base, vocab, weight_bytes), (mut cand, _, _)) = match lanes {
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
        None => floor_bandwidth(arena.backend, weight_bytes as usize),
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
    let warm = match timed_pair(&mut base, &mut cand, &warm_prompt, w.decode_steps, false) {
        Ok(p) => p,
        Err(outcome) => return outcome,
    };
    // Audit A: extra reads at secret positions among the timed ones (`audit.rs`), each
    // recording a secret sample of the candidate's calls, sized by a read's counts.
    let mut audit_at = audit::draw_reads(opts.seed, &w, &j);
    let mut summary = audit::AuditSummary::default();
    let mut audit = |base: &mut Lane, cand: &mut Lane, prompt: &[u32], at: u64| {
        let sample = audit::draw_sample(opts.seed, at, &candidate_slots, &warm.dispatch, &w);
        let outcome = audit_read(base, cand, prompt, &sample, arena, &mut summary);
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
                if let Err(outcome) =
                    timed_pair(&mut base, &mut cand, &prompt, w.decode_steps, false)
                {
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

    // Token sequences and next-token distributions of both engines, for T.
    let prompt = next_prompt();
    let (b_run, c_run) = match (
        base.run(&prompt, w.decode_steps, true),
        cand.run(&prompt, w.decode_steps, true),
    ) {
        (Ok(b), Ok(c)) => (b, c),
        (Err(e), _) => {
            return lane_outcome(Stage::Pristine, LaneError::Infrastructure(e.to_string()))
        }
        (_, Err(e)) => return lane_outcome(Stage::Pristine, e),
    };

    base.shutdown();
    cand.shutdown();

    // Pristine reference T: stock kernels only, after the candidate lanes are gone.
    progress(Progress::Stage(Stage::Pristine));
    let pristine = (|| -> Result<(Vec<f32>, Vec<f32>), LaneError> {
        let mut lane = Lane::spawn(&opts.lane_exe, arena.backend, opts.deadlines)?;
        lane.load_engine(w.model, w.weights_seed, w.max_seq, &[])?;
        lane.seal()?;
        let forced = |lane: &mut Lane, generated: &[u32]| -> Result<Vec<f32>, LaneError> {
            // Positions prompt_len-1 .. end-1 predict the generated tokens.
            let mut seq = prompt.clone();
            seq.extend_from_slice(&generated[..generated.len() - 1]);
            lane.teacher_force(&seq, prompt.len() - 1)
        };
        let b = forced(&mut lane, &b_run.0)?;
        let c = forced(&mut lane, &c_run.0)?;
        lane.shutdown();
        Ok((b, c))
    })();
    let (p_b, p_c) = match pristine {
        Ok(v) => v,
        Err(e) => return lane_outcome(Stage::Pristine, LaneError::Infrastructure(e.to_string())),
    };
    let kl_b = behaviour::mean_kl(&p_b, b_run.2.as_deref().unwrap_or_default(), vocab);
    let kl_c = behaviour::mean_kl(&p_c, c_run.2.as_deref().unwrap_or_default(), vocab);
    let envelope = j.envelope_factor * kl_b + j.envelope_floor;
    report.pristine = Some(PristineRecord {
        kl_baseline: kl_b,
        kl_candidate: kl_c,
        kl_bound: j.kl_bound,
        envelope,
    });
    if kl_c > j.kl_bound || kl_c > envelope {
        return Outcome::Fail(fail(
            Stage::Pristine,
            FailReason::BehaviourChanged,
            format!("mean KL from the pristine engine {kl_c:.3e} nats (bound {:.1e}, stock envelope {envelope:.3e})", j.kl_bound),
        ));
    }
    Outcome::Pass
}

/// The canonical bytes of the bundles that serve `slots` in the incumbent stack: for each
/// slot the last stack bundle with an op for it, else the arena's stock bundle; each once.
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
                    LaneBackend::Cpu => cacheon_kernels::stock::cpu_bundle(slot),
                    LaneBackend::Cuda => cacheon_kernels::stock::cuda_bundle(slot),
                };
                canonical_bytes(&stock.files(), MAX_BUNDLE_BYTES).map_err(|e| e.to_string())?
            }
        };
        if !out.contains(&bytes) {
            out.push(bytes);
        }
    }
    Ok(out)
}

/// The prompt of the attempt's `read`-th workload read: fresh for every read, secret
/// (derived from the attempt's seed).
pub fn read_prompt(seed: u64, read: u64, len: usize, vocab: usize) -> Vec<u32> {
    let mut rng = Rng::derive(seed, &format!("workload-prompt/{read}"));
    (0..len).map(|_| rng.below(vocab as u64) as u32).collect()
}

/// One audit read: the baseline reads `prompt`, the candidate reads it recording the
/// `sample`d calls; the candidate's tokens must agree with the baseline's as for a timed
/// read, and its recorded calls pass the audit (`audit::check_calls`, into `summary`).
fn audit_read(
    base: &mut Lane,
    cand: &mut Lane,
    prompt: &[u32],
    sample: &AuditSample,
    arena: Arena,
    summary: &mut audit::AuditSummary,
) -> Result<(), Outcome> {
    let steps = arena.workload.decode_steps;
    let base_tokens = base
        .run(prompt, steps, false)
        .map_err(|e| lane_outcome(Stage::Audit, LaneError::Infrastructure(e.to_string())))?
        .0;
    base.freeze();
    let read = cand.audit(prompt, steps, sample);
    cand.freeze();
    let ((cand_tokens, _, _), calls) = read.map_err(|e| lane_outcome(Stage::Audit, e))?;
    audit::check_calls(summary, &calls, arena.backend.dtype());
    // Every sampled slot serves calls in every read (the speed loop checks its dispatch
    // counts), so each must have some recorded.
    let unaudited = sample
        .iter()
        .find(|(s, _)| !calls.iter().any(|(meta, _, _)| meta.slot == s.as_str()));
    if let Some(f) = &summary.first_failure {
        let reason = if summary.inputs_changed > 0 {
            FailReason::Cheating
        } else {
            FailReason::BehaviourChanged
        };
        return Err(Outcome::Fail(fail(Stage::Audit, reason, f.clone())));
    }
    if let Some((s, _)) = unaudited {
        return Err(Outcome::Fail(fail(
            Stage::Audit,
            FailReason::BehaviourChanged,
            format!("the candidate's {s} kernel served none of an audit read's sampled calls"),
        )));
    }
    match tokens_agree(base, prompt, &base_tokens, &cand_tokens, arena.backend) {
        Ok(()) => Ok(()),
        Err(Ok(detail)) => Err(Outcome::Fail(fail(
            Stage::Audit,
            FailReason::BehaviourChanged,
            detail,
        ))),
        Err(Err(e)) => Err(lane_outcome(
            Stage::Audit,
            LaneError::Infrastructure(e.to_string()),
        )),
    }
}

/// One timed read of each lane on the same prompt.
struct TimedPair {
    base_ms: f64,
    cand_ms: f64,
    base_tokens: Vec<u32>,
    cand_tokens: Vec<u32>,
    /// The candidate lane's dispatch counts.
    dispatch: Vec<u64>,
}

/// Runs the prompt on both lanes, candidate first when `cand_first`; the referee times
/// each request itself, from sending it to the reply, and freezes each lane as soon as it
/// has answered.
fn timed_pair(
    base: &mut Lane,
    cand: &mut Lane,
    prompt: &[u32],
    decode_steps: usize,
    cand_first: bool,
) -> Result<TimedPair, Outcome> {
    let time = |lane: &mut Lane| {
        let t = Instant::now();
        let r = lane.run(prompt, decode_steps, false);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        lane.freeze();
        r.map(|(tokens, dispatch, _)| (ms, tokens, dispatch))
    };
    let base_read = |base: &mut Lane| {
        time(base).map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e.to_string())))
    };
    let cand_read = |cand: &mut Lane| time(cand).map_err(|e| lane_outcome(Stage::Speed, e));
    let (b, c) = if cand_first {
        let c = cand_read(cand)?;
        (base_read(base)?, c)
    } else {
        let b = base_read(base)?;
        (b, cand_read(cand)?)
    };
    Ok(TimedPair {
        base_ms: b.0,
        cand_ms: c.0,
        base_tokens: b.1,
        cand_tokens: c.1,
        dispatch: c.2,
    })
}

/// Largest gap between two logits, relative to the largest logit's magnitude (at least
/// 1), that an honest reordering of the arithmetic could flip: the f32 CPU engine and the
/// bf16 CUDA engine.
fn tie_tolerance(backend: LaneBackend) -> f32 {
    match backend {
        LaneBackend::Cpu => 1e-3,
        LaneBackend::Cuda => 3e-2,
    }
}

/// Checks a timed read's tokens against the baseline's for the same prompt. Where they
/// first differ, the baseline lane (no candidate code) teacher-forces its own sequence to
/// that position: the read stands only if the two tokens were a near tie there, which an
/// honest kernel's rounding can flip. `Err(Ok(detail))`: behaviour changed;
/// `Err(Err(e))`: the baseline lane failed.
fn tokens_agree(
    base: &mut Lane,
    prompt: &[u32],
    base_tokens: &[u32],
    cand_tokens: &[u32],
    backend: LaneBackend,
) -> Result<(), Result<String, LaneError>> {
    if base_tokens.len() != cand_tokens.len() {
        return Err(Ok(format!(
            "a timed read generated {} tokens where the baseline generated {}",
            cand_tokens.len(),
            base_tokens.len()
        )));
    }
    let Some(at) = base_tokens
        .iter()
        .zip(cand_tokens)
        .position(|(b, c)| b != c)
    else {
        return Ok(());
    };
    let mut seq = prompt.to_vec();
    seq.extend_from_slice(&base_tokens[..at]);
    let logits = base.teacher_force(&seq, seq.len() - 1).map_err(Err)?;
    base.freeze();
    let (b, c) = (base_tokens[at] as usize, cand_tokens[at] as usize);
    let (Some(&lb), Some(&lc)) = (logits.get(b), logits.get(c)) else {
        return Err(Ok(format!(
            "a timed read generated token {c} at position {at}, outside the vocabulary"
        )));
    };
    let scale = logits.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    let gap = (lb - lc).abs() / scale;
    if gap <= tie_tolerance(backend) {
        return Ok(());
    }
    Err(Ok(format!(
        "a timed read generated token {c} at position {at} where the baseline generated {b} \
         (their logits differ by {gap:.2e} of the largest, more than rounding explains)"
    )))
}
