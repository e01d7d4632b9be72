//! Whole qualification attempts on the CPU arena through the library and the real lane
//! processes: the statistics of DESIGN 8 ("the incumbent's own bytes never PASS; a clear
//! win PASSes in at least 19 of 20"), a shape-gaming kernel caught by the audit, a kernel
//! the engine never calls, a read under the physical floor, lanes of rank processes on the
//! split arena (`cpu-tp2`), and the `qualify` command's JSON and exit codes. Timing-sensitive: CI runs this file alone
//! (`--test-threads 1`, in the node step), never beside other tests.

mod common;

use std::path::PathBuf;

use cacheon::arena;
use cacheon::qualify::findings::{Outcome, Stage};
use cacheon::qualify::{attempt, AttemptOptions, AttemptReport};
use cacheon_kernels::bundle;
use cacheon_primitives::FailReason;
use common::{repo_root, run_json};

fn opts(seed: u64) -> AttemptOptions {
    AttemptOptions {
        lane_exe: PathBuf::from(env!("CARGO_BIN_EXE_cacheon")),
        seed,
        stack: vec![],
        deadlines: Default::default(),
        earlier: None,
        copy_bandwidth: None,
    }
}

fn files(rel: &str) -> Vec<bundle::BundleFile> {
    bundle::read_dir(&repo_root().join(rel)).unwrap()
}

/// A whole attempt of the bundle at `rel` (from the repository root) in `arena`, seed `seed`.
fn attempt_on(rel: &str, arena: arena::Arena, seed: u64) -> AttemptReport {
    attempt(&files(rel), arena, &opts(seed), &mut |_| {})
}

/// [`attempt_on`] of a bundle the screens pass (what it is caught at comes later).
fn screened_attempt(rel: &str, arena: arena::Arena, seed: u64) -> AttemptReport {
    let r = attempt_on(rel, arena, seed);
    assert_eq!(r.screens.outcome, Outcome::Pass, "the screens pass {rel}");
    r
}

/// The outcome is a FAIL at `stage` for `reason` whose detail mentions `needle`.
fn expect_fail(outcome: &Outcome, stage: Stage, reason: FailReason, needle: &str) {
    match outcome {
        Outcome::Fail(f) => {
            assert_eq!((f.stage, f.reason), (stage, reason), "{f:?}");
            assert!(f.detail.contains(needle), "{f:?}");
        }
        other => panic!("expected a FAIL {reason:?} at {stage:?}, got {other:?}"),
    }
}

// Twenty timed attempts (about four minutes on a 2-core machine): a statistical property,
// run on demand (`--run-ignored only`) with its figures in docs/e2e.md. CI checks the same
// property on recorded reads (`referee_statistics.rs`), which cannot fail by chance.
#[test]
#[ignore = "statistical, minutes: run with --run-ignored only"]
fn the_incumbents_own_bytes_never_pass() {
    let cpu = arena::arena("cpu-tiny").unwrap();
    let stock =
        cacheon_kernels::bundle::stock::cpu_bundle(cacheon_kernels::SlotId::AttentionDecode)
            .unwrap()
            .files();
    let mut verdicts = Vec::new();
    for seed in 0..20 {
        let r = attempt(&stock, cpu, &opts(1000 + seed), &mut |_| {});
        eprintln!(
            "attempt {seed}: {} {:?} speedup {:?}: {:?}",
            r.verdict(),
            r.speed.as_ref().and_then(|s| s.interval),
            r.speedup_ppm,
            r.outcome
        );
        verdicts.push(r.verdict());
    }
    assert_eq!(
        verdicts.iter().filter(|v| **v == "pass").count(),
        0,
        "{verdicts:?}"
    );
}

// Twenty timed attempts (about six minutes on a 2-core machine): see the test above.
#[test]
#[ignore = "statistical, minutes: run with --run-ignored only"]
fn a_clear_win_passes_at_least_19_of_20() {
    let cpu = arena::arena("cpu-tiny").unwrap();
    let win = files("examples/cpu/attention-onepass");
    let mut passes = 0;
    for seed in 0..20 {
        let r = attempt(&win, cpu, &opts(2000 + seed), &mut |_| {});
        eprintln!(
            "attempt {seed}: {} {:?} speedup {:?} audit {:?} pristine {:?} drift {:?} ppm{}",
            r.verdict(),
            r.speed.as_ref().and_then(|s| s.interval),
            r.speedup_ppm,
            r.audit.as_ref().map(|a| (a.calls, a.failed_calls)),
            r.pristine.as_ref().map(|p| p.kl_candidate),
            r.speed.as_ref().map(|s| s.baseline_drift_ppm),
            match &r.outcome {
                Outcome::Pass => String::new(),
                other => format!(": {other:?}"),
            }
        );
        if r.outcome == Outcome::Pass {
            passes += 1;
            assert!(r.speedup_ppm.unwrap() >= 1_020_000);
            let a = r.audit.unwrap();
            assert!(a.calls > 0 && a.failed_calls == 0);
        }
    }
    assert!(passes >= 19, "{passes} of 20 passed");
}

#[test]
fn correct_at_the_listed_shapes_but_wrong_at_the_engines_fails_verification() {
    // Exact at every listed verification shape, wrong at the engine's cache length:
    // verification includes the arena engine's own shapes, so it never reaches the reads.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = attempt_on("examples/cpu/fail-shape-gaming", cpu, 77);
    expect_fail(&r.outcome, Stage::Verify, FailReason::Incorrect, "288]");
    assert!(r.speed.is_none(), "no read was timed");
}

#[test]
fn a_kernel_the_engine_never_calls_fails_not_faster() {
    // Correct at the verification shapes its `when` domain takes in, never called by the
    // arena's engine: without the dispatch count B and C would be one engine.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = screened_attempt("examples/cpu/fail-never-dispatched", cpu, 78);
    expect_fail(
        &r.outcome,
        Stage::Speed,
        FailReason::NotFaster,
        "dispatch count 0",
    );
    let speed = r.speed.expect("the speed record");
    assert_eq!(speed.candidate_ms.len(), 1, "decided at the first read");
    assert!(speed
        .candidate_dispatch
        .iter()
        .any(|(slot, n)| slot == "attention.decode" && *n == 0));
    assert!(speed
        .candidate_dispatch
        .iter()
        .any(|(slot, n)| slot == "norm.rmsnorm" && *n > 0));
}

#[test]
fn a_cache_keyed_on_inputs_never_hits_because_every_read_has_a_fresh_prompt() {
    // Exact, with a static result cache keyed on sampled inputs: a referee that replays
    // one prompt would time cache hits. Every timed read has its own secret prompt.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = screened_attempt("examples/cpu/fail-prompt-cache", cpu, 79);
    match &r.outcome {
        Outcome::Fail(f) => assert_eq!(
            (f.stage, f.reason),
            (Stage::Speed, FailReason::NotFaster),
            "{f:?}"
        ),
        other => panic!("expected NotFaster, got {other:?}"),
    }
}

#[test]
fn a_kernel_wrong_only_after_verification_fails_in_the_timed_reads() {
    // Exact for its first 320 calls (verification makes far fewer), then cheap and
    // wrong: every timed read's tokens are compared with the baseline's for its prompt.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = screened_attempt("examples/cpu/fail-late-wrong", cpu, 80);
    expect_fail(
        &r.outcome,
        Stage::Speed,
        FailReason::BehaviourChanged,
        "where the baseline generated",
    );
}

#[test]
fn every_attempt_says_where_its_time_went() {
    // The stock attention kernel as its own candidate: every stage up to the speed
    // decision runs, and the evidence times each (the GPU arena's attempts go through the
    // same stages).
    let cpu = arena::arena("cpu-tiny").unwrap();
    let stock =
        cacheon_kernels::bundle::stock::cpu_bundle(cacheon_kernels::SlotId::AttentionDecode)
            .unwrap()
            .files();
    let r = attempt(&stock, cpu, &opts(81), &mut |_| {});
    let t = &r.stage_ms;
    for stage in [
        "static_screens",
        "build",
        "verify",
        "screen_lane_exit",
        "lane_start",
        "lane_start.spawn",
        "lane_start.engine",
        "lane_start.engine.total",
        "lane_start.bundle",
        "copy_bandwidth",
        "warm",
        "speed_reads",
        "read_judging",
    ] {
        assert!(t.ms(stage) > 0.0, "{stage} untimed: {t:?}");
    }
    let pairs = r.speed.as_ref().unwrap().baseline_ms.len() as u32;
    let count = |stage: &str| t.stages().find(|s| s.stage == stage).map_or(0, |s| s.count);
    assert_eq!(
        count("speed_reads"),
        pairs * cpu.judging.runs_per_read as u32
    );
    // Two lanes started, each one part of the one `lane_start` span.
    assert_eq!((count("lane_start"), count("lane_start.spawn")), (1, 2));
    // The top-level stages and `other` add up to the wall time.
    let wall = r.wall_ms as f64;
    assert!(
        (t.top_level_ms() - wall).abs() <= 1.0,
        "{t:?} against {wall} ms"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["stage_ms"].as_array().unwrap().len() >= 14, "{json}");
}

#[test]
fn reads_judged_on_rows_the_lanes_held() {
    // The GPU arena's way of judging distributions, on the CPU arena: both lanes hold
    // their read's logits and send only the rows drawn in secret after the read. An honest
    // kernel (AVX2 products: another summation order, other rounding) stays within the
    // bound on every judged read.
    let mut cpu = arena::arena("cpu-tiny").unwrap();
    cpu.judging.read_kl_rows = Some(8);
    let r = attempt_on("examples/cpu/matmul-avx2", cpu, 82);
    let speed = r.speed.as_ref().expect("the speed step ran");
    let judged = speed.baseline_ms.len() * cpu.judging.runs_per_read;
    assert_eq!(speed.read_kl.len(), judged, "{speed:?}");
    let max = speed.max_read_kl.unwrap();
    assert!(
        max > 0.0 && max <= cpu.judging.read_kl_bound.unwrap(),
        "{speed:?}"
    );
    assert!(
        !matches!(&r.outcome, Outcome::Fail(f) if f.reason == FailReason::BehaviourChanged),
        "{:?}",
        r.outcome
    );
}

#[test]
fn held_logits_are_the_rows_the_read_computed() {
    use cacheon::lane::Lane;
    let cpu = arena::arena("cpu-tiny").unwrap();
    let w = cpu.workload;
    let mut lane = Lane::spawn(&opts(0).lane_exe, cpu.backend, Default::default()).unwrap();
    let (vocab, _) = lane
        .load_engine(
            w.model,
            cpu.engine_weights(3),
            w.max_seq,
            w.max_batch(),
            &[],
        )
        .unwrap();
    lane.seal().unwrap();
    let prompts = cacheon::qualify::reads::Prompts::Random { vocab };
    let read = prompts.read(9, 1, &w);
    let sent = lane.run(&read, true, true).unwrap();
    let all = sent.logits.unwrap();
    // Rows of the single sequence and of the batched part, the last one included.
    let rows = [0, 5, read.decode_steps + 1, read.generated() - 1];
    let held = lane.logit_rows(&rows).unwrap();
    for (k, &r) in rows.iter().enumerate() {
        let want = &all[r * vocab..(r + 1) * vocab];
        let got = &held[k * vocab..(k + 1) * vocab];
        assert!(
            want.iter()
                .zip(got)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "row {r}"
        );
    }
    // A row past the read is refused, not made up.
    assert!(lane.logit_rows(&[read.generated()]).is_err());
    lane.shutdown();
}

#[test]
fn a_private_weight_copy_kept_between_calls_fails_the_in_place_probe() {
    // An AVX2 linear.matmul that keeps a copy of each weight matrix below its stack
    // pointer, keyed by address, shape and four sampled weights, made at a key's second
    // sighting and multiplied from the third on: verification's fresh weights never reach
    // the copy, so it passes verify; in the engine every timed read multiplies the copy.
    // The audit's in-place probe changes the weights at secret positions the samples miss.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = attempt_on("examples/cpu/fail-weight-copy", cpu, 93);
    assert_eq!(
        r.screens.outcome,
        Outcome::Pass,
        "verification does not see it"
    );
    expect_fail(
        &r.outcome,
        Stage::Audit,
        FailReason::BehaviourChanged,
        "the in-place probe",
    );
}

// The arena split over two rank processes (cpu-tp2): each lane is a group of ranks, each
// sealed and pinned to a core, meeting in a group file the referee makes.

#[test]
fn a_collective_bundle_is_measured_in_lanes_of_ranks() {
    let tp2 = arena::arena("cpu-tp2").unwrap();
    assert_eq!(tp2.workload.world, 2);
    let r = screened_attempt("examples/cpu/all-reduce-avx2", tp2, 90);
    // The speed step decided or found the reads too noisy; never a lane failure.
    match &r.outcome {
        Outcome::Pass => {}
        Outcome::Fail(f) => assert_eq!(f.reason, FailReason::NotFaster, "{f:?}"),
        Outcome::NoDecision { reason, detail } => {
            assert_eq!(
                *reason,
                cacheon_primitives::NoDecisionReason::Noise,
                "{detail}"
            )
        }
    }
    assert!(r.speed.is_some(), "{:?}", r.outcome);
    // Audit reads that ran (a decision may come before the seed's audit positions)
    // brought back the sampled calls of both ranks.
    if let Some(audit) = &r.audit {
        let w = tp2.workload;
        assert_eq!(
            audit.calls,
            audit.reads * w.audit_calls_per_slot * w.world,
            "{audit:?}"
        );
        assert_eq!(audit.failed_calls, 0, "{audit:?}");
    }
}

#[test]
fn the_moe_epilogue_atomic_bundle_wins_in_the_split_engine() {
    // Both members of collective.moe_epilogue.v1: each rank's experts (AVX2, against the
    // scalar stock kernel) and the all-reduce norm seam. A clear win (1.34 measured), the
    // pristine reference the split stock engine.
    let tp2 = arena::arena("cpu-tp2").unwrap();
    let r = attempt_on("examples/cpu/moe-epilogue-atomic", tp2, 91);
    assert_eq!(r.outcome, Outcome::Pass, "{:?}", r.outcome);
    assert!(r.pristine.is_some());
    // Every audit read brought back the sampled calls of both slots from both ranks: the
    // experts' one call a pass (fewer than the sample: all of them) and the seam's sample
    // (three calls a pass).
    // Each sampled call is recorded twice: the in-place probe before it, then the call.
    let audit = r.audit.as_ref().expect("a PASS ran its audit");
    let w = tp2.workload;
    let cap = w.audit_calls_per_slot;
    assert_eq!(
        audit.calls,
        2 * audit.reads * w.world * (w.passes().min(cap) + cap),
        "{audit:?}"
    );
    assert_eq!(
        (audit.reads, audit.failed_calls),
        (w.audit_reads, 0),
        "{audit:?}"
    );
}

#[test]
fn a_rank_that_dies_mid_read_fails_the_candidate_without_stalling_the_lane() {
    // Honest through verification, then rank 1's process dies at a call while rank 0
    // waits for it at the next barrier: the referee sees the death at once and stops the
    // group, instead of waiting out the barrier's 60 s deadline.
    let tp2 = arena::arena("cpu-tp2").unwrap();
    let r = screened_attempt("examples/cpu/fail-all-reduce-rank-crash", tp2, 92);
    // In a timed read or an audit read among them, as the secret seed places them.
    match &r.outcome {
        Outcome::Fail(f) => {
            assert!(matches!(f.stage, Stage::Speed | Stage::Audit), "{f:?}");
            assert_eq!(f.reason, FailReason::Incorrect, "{f:?}");
            assert!(
                f.detail.contains("died") && f.detail.contains("(rank 1)"),
                "{f:?}"
            );
        }
        other => panic!("expected the candidate's FAIL, got {other:?}"),
    }
    assert!(
        r.wall_ms < 55_000,
        "the lane waited for the dead rank: {} ms",
        r.wall_ms
    );
}

#[test]
fn a_kernel_exact_only_where_an_audit_run_would_look_fails() {
    // A clear win, exact for its first 320 calls, then 0.03 % off wherever a call attends
    // to more than a short audit run's 32 positions: too small to move a token, so the
    // audit reads (the timed reads' shapes) and every timed read's distributions, checked
    // against the baseline's, are what see it; whichever comes first.
    let cpu = arena::arena("cpu-tiny").unwrap();
    for seed in [90, 91] {
        let r = attempt(
            &files("examples/cpu/fail-audit-dodge"),
            cpu,
            &opts(seed),
            &mut |_| {},
        );
        assert_eq!(r.screens.outcome, Outcome::Pass, "the screens pass it");
        match &r.outcome {
            Outcome::Fail(f) if f.reason == FailReason::BehaviourChanged => match f.stage {
                Stage::Audit => assert!(f.detail.contains("differs from the reference"), "{f:?}"),
                Stage::Speed => assert!(f.detail.contains("(KL)"), "{f:?}"),
                _ => panic!("expected the audit or the speed step, got {f:?}"),
            },
            other => panic!("expected a FAIL BehaviourChanged, got {other:?}"),
        }
    }
}

#[test]
fn a_kernel_that_tells_audit_reads_apart_fails_in_the_timed_reads() {
    // 0.03 % off in what it takes for timed reads, exact under verification (poisoned
    // outputs) and in audit reads (its own stack address differs there): the timed reads'
    // distributions are judged against the baseline's, so no observation is needed.
    let cpu = arena::arena("cpu-tiny").unwrap();
    let r = screened_attempt("examples/cpu/fail-audit-dodge-stack", cpu, 92);
    expect_fail(
        &r.outcome,
        Stage::Speed,
        FailReason::BehaviourChanged,
        "(KL)",
    );
    let speed = r.speed.expect("the speed step ran");
    let kl = speed.max_read_kl.unwrap_or(0.0);
    assert!(
        kl < 1e-10,
        "reads before the failing one were within the bound: {kl:e}"
    );
    // The floor's copy rate is the referee's own measurement (these options give none).
    assert!(opts(92).copy_bandwidth.is_none());
    assert!(
        speed.copy_gb_per_s > 0.1 && speed.floor_ms > 0.0,
        "{speed:?}"
    );
}

#[test]
fn a_read_below_the_physical_floor_is_cheating() {
    // The floor is passes x weight bytes / copy rate. No honest kernel gets under the
    // machine's real rate, so the referee is told a rate a thousand times too low (about
    // 10 MB/s): every read is then "faster than memory allows".
    let cpu = arena::arena("cpu-tiny").unwrap();
    let mut o = opts(79);
    o.copy_bandwidth = Some(1e7);
    let r = attempt(
        &files("examples/cpu/attention-onepass"),
        cpu,
        &o,
        &mut |_| {},
    );
    expect_fail(
        &r.outcome,
        Stage::Speed,
        FailReason::Cheating,
        "below the physical floor",
    );
    let speed = r.speed.expect("the speed record");
    assert!(speed.candidate_ms[0] < speed.floor_ms, "{speed:?}");
    assert!((speed.copy_gb_per_s - 0.01).abs() < 1e-9);
}

#[test]
fn qualify_command_prints_one_object_and_exits_by_verdict() {
    let state = tempfile::tempdir().unwrap();
    let ev = state.path().join("evidence");
    let ev = ev.to_str().unwrap();
    let dir = repo_root().join("examples/cpu/fail-wrong-math");
    let (code, v) = run_json(&[
        "qualify",
        "--arena",
        "cpu-tiny",
        "--bundle",
        dir.to_str().unwrap(),
        "--evidence-dir",
        ev,
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["verdict"], "fail");
    assert_eq!(v["reason"], "Incorrect");
    let digest = v["evidence_digest"].as_str().unwrap();
    assert_eq!(digest.len(), 64);
    let (code, report) = run_json(&["evidence", digest, "--evidence-dir", ev]);
    assert_eq!(code, 0);
    assert_eq!(report["verdict"], "fail");
    assert_eq!(report["seed"], v["seed"]);

    let dir = repo_root().join("examples/cpu/attention-onepass");
    let (code, v) = run_json(&[
        "qualify",
        "--bundle",
        dir.to_str().unwrap(),
        "--evidence-dir",
        ev,
        "--seed",
        "5",
    ]);
    assert!(
        code == 0 || code == 3,
        "a clear win passes (or, on a noisy machine, no decision): {v}"
    );
    assert!(v["speedup_ppm"].as_u64().unwrap() > 1_000_000, "{v}");
    if code == 0 {
        assert_eq!(v["verdict"], "pass");
        assert!(v["reason"].is_null());
    }
}

// ---------------------------------------------------------------------------------------
// The CUDA arena (skipped without a GPU; `offchain/tools/gpu-qualify.sh` runs the same attempts
// with the built binary on a GPU machine that has no cargo).

#[test]
fn a_machine_without_a_gpu_is_no_decision_never_the_candidates_fault() {
    if common::gpu_present() {
        eprintln!("SKIP: this machine has a GPU; the test is of a machine without one");
        return;
    }
    let h200 = arena::arena("h200-llama8b").unwrap();
    let stock = cacheon_kernels::bundle::stock::cuda_bundle(cacheon_kernels::SlotId::LinearMatmul)
        .unwrap()
        .files();
    let r = attempt(&stock, h200, &opts(1), &mut |_| {});
    assert!(
        matches!(r.outcome, Outcome::NoDecision { .. }),
        "{:?}",
        r.outcome
    );
}

#[test]
fn cuda_attempts_run_every_step_on_the_gpu() {
    if !common::gpu_present() {
        eprintln!("SKIP: no GPU; the CUDA attempt runs on a GPU machine");
        return;
    }
    let h200 = arena::arena("h200-llama8b").unwrap();
    let show = |what: &str, r: &cacheon::qualify::AttemptReport| {
        eprintln!(
            "{what}: {} {:?} in {:.1} s, speed {:?}, audit {:?}, pristine {:?}",
            r.verdict(),
            r.outcome,
            r.wall_ms as f64 / 1e3,
            r.speed.as_ref().and_then(|s| s.interval),
            r.audit.as_ref().map(|a| (a.calls, a.failed_calls)),
            r.pristine.as_ref().map(|p| (p.kl_baseline, p.kl_candidate))
        )
    };

    // A correct kernel: the speed step decides (the candidate's kernel ran); a PASS also
    // went through the audit and the pristine reference.
    let r = attempt_on("examples/cuda/silu-and-mul", h200, 7);
    show("silu-and-mul", &r);
    let speed = r
        .speed
        .as_ref()
        .expect("the attempt reached the speed step");
    assert!(
        speed.floor_ms > 0.0 && speed.copy_gb_per_s > 1000.0,
        "{speed:?}"
    );
    let silu = speed
        .candidate_dispatch
        .iter()
        .find(|(s, _)| s == "activation.silu_and_mul")
        .map(|(_, n)| *n);
    assert!(silu.unwrap_or(0) > 0, "{speed:?}");
    match &r.outcome {
        Outcome::Pass => {
            assert!(r.audit.as_ref().unwrap().failed_calls == 0);
            let p = r.pristine.as_ref().unwrap();
            assert!(p.kl_candidate <= p.kl_bound, "{p:?}");
        }
        Outcome::Fail(f) => assert_eq!(f.reason, FailReason::NotFaster, "{f:?}"),
        Outcome::NoDecision { .. } => {}
    }

    // Shape gaming at the engine's cache length: faster, then caught by T (or A).
    let r = attempt_on("examples/cuda/fail-window-gaming", h200, 8);
    show("fail-window-gaming", &r);
    assert_eq!(
        r.screens.outcome,
        Outcome::Pass,
        "the screens cannot see it"
    );
    match &r.outcome {
        Outcome::Fail(f) => assert!(
            f.reason == FailReason::BehaviourChanged
                && matches!(f.stage, Stage::Audit | Stage::Pristine),
            "{f:?}"
        ),
        other => panic!("expected BehaviourChanged, got {other:?}"),
    }
}
