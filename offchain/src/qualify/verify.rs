//! The verify and graph steps of the screens (DESIGN 7 steps 5-6): which cases run (every
//! verification shape in the bundle's domains with seeded and special inputs, the arena
//! engine's own shapes, graph replays on CUDA), and the judgement of each case's outputs
//! against the trusted reference. The lane runs the candidate's code; the referee
//! regenerates every case's inputs from the seeds and never trusts the lane's numbers.

use std::time::Instant;

use cacheon_kernels::bundle::manifest::Manifest;
use cacheon_kernels::rng::Rng;
use cacheon_kernels::slots::args::SlotArgs;
use cacheon_kernels::slots::SlotId;
use cacheon_kernels::slots::{probe, reference};
use cacheon_primitives::FailReason;

use super::findings::{
    fail, lane_outcome, CaseRecord, Finding, Outcome, Progress, ScreenOptions, ScreenReport, Stage,
};
use crate::arena::{Arena, LaneBackend};
use crate::lane::protocol::{CallCheck, Request, Special};
use crate::lane::{harness::case_args, Lane};

/// Runs the plan's cases on a built, sealed candidate lane, recording each in `report`;
/// the first failing case ends the run with its outcome.
pub(super) fn run_cases(
    lane: &mut Lane,
    manifest: &Manifest,
    arena: Arena,
    opts: &ScreenOptions,
    report: &mut ScreenReport,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), Outcome> {
    let cases = plan(manifest, arena);
    let total = cases.len();
    // A collective slot's outputs per case with the rank left out: every rank index of
    // one shape gets the same rows (same seeds) and must return the same bits.
    let mut by_rank: std::collections::HashMap<String, (i64, Vec<Vec<f32>>)> = Default::default();
    let mut stage_now = Stage::Verify;
    progress(Progress::Stage(Stage::Verify));
    for (n, (stage, slot, shape, special)) in cases.into_iter().enumerate() {
        if stage != stage_now {
            report.passed_stages.push(stage_now);
            stage_now = stage;
            progress(Progress::Stage(stage));
        }
        progress(Progress::Cases { done: n, total });
        let calls = if stage == Stage::Graph {
            opts.graph_replays
        } else {
            2
        };
        let rank = slot.spec().symbol_index("rank").map(|at| shape[at]);
        let ranks_alike = drop_at(&shape, slot.spec().symbol_index("rank"));
        let label = format!("{}/{slot}/{ranks_alike:?}/{special:?}", stage.as_str());
        let seeds: Vec<u64> = (0..calls)
            .map(|k| case_seed(opts.seed, &format!("{label}/{k}")))
            .collect();
        // The in-place probe (CPU lanes, seeded inputs): the last call's activations again,
        // its persistent inputs changed at secret positions, the same buffers.
        let probe = (arena.backend == LaneBackend::Cpu
            && stage == Stage::Verify
            && special == Special::None)
            .then(|| case_seed(opts.seed, &format!("{label}/probe")));
        let started = Instant::now();
        let req = Request::Verify {
            probe,
            slot: slot.as_str().to_string(),
            shape: shape.clone(),
            seeds: seeds.clone(),
            special,
            guard: opts.guard,
            graph: stage == Stage::Graph,
        };
        let mut record = CaseRecord {
            stage,
            slot: slot.as_str(),
            shape: shape.clone(),
            special,
            calls: calls + usize::from(probe.is_some()),
            passed: false,
            matched_ppm: 0,
            max_abs_err: 0.0,
            millis: 0,
        };
        // The reference's side of the case needs the seeds alone: it is computed while the
        // lane runs the case.
        let calls_of = (seeds.as_slice(), probe);
        let (result, expected) = std::thread::scope(|scope| {
            let expecting = scope.spawn(|| expect(slot, &shape, special, calls_of, arena.backend));
            let result = lane.verify(&req);
            (result, expecting.join())
        });
        let expected = match expected {
            Ok(e) => e,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let (checks, outputs) = match result {
            Ok(r) => r,
            Err(e) => {
                report.cases.push(record);
                return Err(lane_outcome(stage, e));
            }
        };
        let verdict = judge(
            stage,
            (slot, &shape, special),
            &expected,
            arena.backend,
            (&checks, &outputs),
            &mut record,
        );
        let verdict = verdict.and_then(|()| match rank {
            Some(rank) => same_on_every_rank(stage, &label, rank, outputs, &mut by_rank),
            None => Ok(()),
        });
        record.passed = verdict.is_ok();
        record.millis = started.elapsed().as_millis() as u64;
        report.stage_ms.add(stage.as_str(), started.elapsed());
        report.cases.push(record);
        verdict.map_err(Outcome::Fail)?;
    }
    progress(Progress::Cases { done: total, total });
    report.passed_stages.push(stage_now);
    Ok(())
}

fn case_seed(secret: u64, label: &str) -> u64 {
    Rng::secret(secret, label).next_u64()
}

/// The verification shapes an op's `when` domain accepts.
pub(super) fn shapes_for(op: &cacheon_kernels::bundle::manifest::Op) -> Vec<&'static [i64]> {
    op.slot
        .spec()
        .verification_shapes
        .iter()
        .copied()
        .filter(|s| op.accepts(s))
        .collect()
}

/// The plan of verification cases: every in-domain shape with the seeded inputs, and the
/// special values on every shape but the largest; then the arena engine's own shapes
/// (seeded inputs; guard bands and input checks as everywhere); then (CUDA) graph cases
/// on the two smallest shapes.
fn plan(manifest: &Manifest, arena: Arena) -> Vec<(Stage, SlotId, Vec<i64>, Special)> {
    let backend = arena.backend;
    let mut cases = Vec::new();
    for op in &manifest.ops {
        let shapes = shapes_for(op);
        for (i, shape) in shapes.iter().enumerate() {
            cases.push((Stage::Verify, op.slot, shape.to_vec(), Special::None));
            if i + 1 < shapes.len() || shapes.len() == 1 {
                for special in [Special::Zeros, Special::Large, Special::Denormal] {
                    cases.push((Stage::Verify, op.slot, shape.to_vec(), special));
                }
            }
        }
        for shape in arena.engine_shapes(op.slot) {
            if op.accepts(&shape) && !shapes.contains(&shape.as_slice()) {
                cases.push((Stage::Verify, op.slot, shape, Special::None));
            }
        }
    }
    if backend == LaneBackend::Cuda {
        for op in &manifest.ops {
            let mut shapes = shapes_for(op);
            // By size; a collective's rank index is no size (its smallest shapes keep
            // every rank, so graph replays are compared across ranks too).
            let rank = op.slot.spec().symbol_index("rank");
            // (Ties stay in list order, as before, but a collective's rank sets stay
            // together.)
            shapes.sort_by_key(|s| {
                let size: i64 = drop_at(s, rank).iter().product();
                (size, if rank.is_some() { s.to_vec() } else { vec![] })
            });
            // The two smallest shapes; a collective's at every rank index (a shape's
            // rank set is adjacent in this order).
            let mut groups: Vec<Vec<i64>> = shapes.iter().map(|s| drop_at(s, rank)).collect();
            groups.dedup();
            groups.truncate(2);
            let take = shapes
                .iter()
                .take_while(|s| groups.contains(&drop_at(s, rank)))
                .count();
            for shape in shapes.iter().take(take) {
                cases.push((Stage::Graph, op.slot, shape.to_vec(), Special::None));
            }
        }
    }
    cases
}

/// One call's outputs and the reference's, output by output.
type CallResults = (Vec<Vec<f32>>, Vec<Vec<f32>>);

/// What the reference says one call of a case gives, from the seeds alone.
struct ExpectedCall {
    /// The call's inputs as the lane built them (the probe's changes applied), rounded to
    /// the arena's element type.
    args: SlotArgs,
    /// The rows the call is judged on (`None`: every row).
    rows: Option<Vec<usize>>,
    /// The reference on those rows.
    expectation: reference::Expectation,
    /// Whether it is the in-place probe after the seeded calls.
    probe: bool,
}

/// The reference's side of a case: every seeded call, then the in-place probe where there
/// is one (the last seed's inputs with the probe's changes), each with the rows it is
/// judged on (every row unless the call is too large for the whole reference: the GPU
/// arena's prefill products; drawn once a case from its first seed).
fn expect(
    slot: SlotId,
    shape: &[i64],
    special: Special,
    (seeds, probe): (&[u64], Option<u64>),
    backend: LaneBackend,
) -> Vec<ExpectedCall> {
    let calls: Vec<(u64, Option<u64>)> = seeds
        .iter()
        .map(|&s| (s, None))
        .chain(probe.map(|p| (seeds.last().copied().unwrap_or(0), Some(p))))
        .collect();
    // A graph keeps the scalars it was captured with: every call has the first's.
    let mut first_scalars: Option<Vec<f32>> = None;
    let mut rows: Option<Option<Vec<usize>>> = None;
    calls
        .into_iter()
        .map(|(seed, probe)| {
            let mut args = case_args(slot, shape, seed, special);
            args.scalars = first_scalars
                .get_or_insert_with(|| args.scalars.clone())
                .clone();
            if let Some(p) = probe {
                let changes = args.with_call(|c| probe::changes(p, c));
                probe::apply(&mut args.inputs, &changes);
            }
            args.round_inputs(backend.dtype());
            let rows = rows
                .get_or_insert_with(|| {
                    let mut rng = Rng::secret(seed, "verify-rows");
                    reference::sampled_rows(&args, reference::MAX_REFERENCE_WORK, &mut rng)
                })
                .clone();
            let expectation = match &rows {
                None => reference::expect(&args),
                Some(r) => reference::expect(&args.select_rows(r)),
            };
            ExpectedCall {
                args,
                rows,
                expectation,
                probe: probe.is_some(),
            }
        })
        .collect()
}

/// Judges one case's calls against the reference's `expected` calls.
///
/// A probe's wrong output is `Incorrect`, never the stale-output `Cheating`: the probe
/// changes a few elements only, so a kernel that ignores them (a bug as much as a cache)
/// returns the previous call's bits too; what it proves is a wrong answer for this call.
fn judge(
    stage: Stage,
    (slot, shape, special): (SlotId, &[i64], Special),
    expected: &[ExpectedCall],
    backend: LaneBackend,
    (checks, outputs): (&[CallCheck], &[Vec<f32>]),
    record: &mut CaseRecord,
) -> Result<(), Finding> {
    let spec = slot.spec();
    let n_out = spec
        .params_of(cacheon_kernels::slots::ParamKind::Output)
        .count();
    let where_ = format!("{slot} at {shape:?} ({special:?} inputs)");
    if checks.len() != expected.len() || outputs.len() != expected.len() * n_out {
        return Err(fail(
            stage,
            FailReason::Incorrect,
            format!("{where_}: the lane returned the wrong number of results"),
        ));
    }
    let mut previous: Option<CallResults> = None;
    record.matched_ppm = 1_000_000;
    for (k, (e, check)) in expected.iter().zip(checks).enumerate() {
        let probe = e.probe;
        let call = if !probe {
            format!("{where_}, call {}", k + 1)
        } else {
            format!(
                "{where_}, the in-place probe (call {}'s inputs in the same buffers, persistent inputs changed at secret positions)",
                k
            )
        };
        if let Some(hit) = check.guard_hits.first() {
            return Err(fail(
                stage,
                FailReason::Cheating,
                format!(
                    "{call}: wrote outside output {} (element offset {})",
                    hit.output, hit.offset
                ),
            ));
        }
        if let Some(i) = check.inputs_changed.first() {
            let name = spec
                .params_of(cacheon_kernels::slots::ParamKind::Input)
                .nth(*i)
                .map_or("?", |p| p.name);
            return Err(fail(
                stage,
                FailReason::Cheating,
                format!("{call}: modified its input `{name}`"),
            ));
        }
        let tol = backend.dtype().tolerance();
        let whole = &outputs[k * n_out..(k + 1) * n_out];
        let actual: Vec<Vec<f32>> = match &e.rows {
            None => whole.to_vec(),
            Some(r) => whole
                .iter()
                .enumerate()
                .map(|(i, a)| e.args.output_rows(i, a, r))
                .collect(),
        };
        let reports = reference::judge_expected(slot, &actual, &e.expectation, tol);
        let (rows, expected) = (&e.rows, &e.expectation.expected);
        if let Some((prev_actual, prev_expected)) = previous.as_ref().filter(|_| !probe) {
            let replayed = actual.iter().zip(prev_actual).all(|(a, b)| same_bits(a, b));
            // The references differ in value (a sign of zero is no difference: x = 0 gives
            // +0 or -0 from the weights' signs, and a kernel may return either).
            let inputs_differ = expected
                .iter()
                .zip(prev_expected)
                .any(|(a, b)| !same_values(a, b));
            // And the replay is wrong for the fresh inputs: where the right answers of both
            // calls round to the same outputs (a product of subnormal inputs underflows to
            // zero in bf16 whatever the inputs were), a correct kernel returns the same bits
            // twice, and that is no fault.
            let wrong_now = reports.iter().any(|r| !r.passed);
            if replayed && inputs_differ && wrong_now {
                return Err(fail(
                    stage,
                    FailReason::Cheating,
                    format!("{call}: returned the previous call's outputs for fresh inputs (stale output)"),
                ));
            }
        }
        if check.unwritten > 0 {
            return Err(fail(
                stage,
                FailReason::Cheating,
                format!(
                    "{call}: left {} output elements unwritten (poison still there)",
                    check.unwritten
                ),
            ));
        }
        for (i, ((a, e), r)) in actual.iter().zip(expected).zip(&reports).enumerate() {
            record.matched_ppm = record.matched_ppm.min(r.matched_ppm());
            record.max_abs_err = record.max_abs_err.max(r.max_abs_err);
            if !r.passed {
                let reason = if stage == Stage::Graph {
                    FailReason::GraphUnsafe
                } else {
                    FailReason::Incorrect
                };
                let mut at = r
                    .first_bad
                    .map(|j| format!(", first at element {j}: got {}, expected {}", a[j], e[j]))
                    .unwrap_or_default();
                if let Some(rows) = rows.as_deref() {
                    at.push_str(&format!(" (judged on {} sampled rows)", rows.len()));
                }
                return Err(fail(
                    stage,
                    reason,
                    format!("{call}: output {i} differs from the reference in {} of {} elements (max |err| {:.3e}){at}", r.mismatches, r.len, r.max_abs_err),
                ));
            }
        }
        previous = Some((actual, expected.clone()));
    }
    record.passed = true;
    Ok(())
}

/// `shape` without its value at `at` (a collective's rank index).
fn drop_at(shape: &[i64], at: Option<usize>) -> Vec<i64> {
    match at {
        Some(at) => [&shape[..at], &shape[at + 1..]].concat(),
        None => shape.to_vec(),
    }
}

/// A collective case's outputs against those of the first rank index run on the same
/// rows (`label`, the case without its rank): the engine's state after a collective is
/// replicated, so a kernel that rounds differently on one rank, even within tolerance,
/// would let the ranks drift apart.
fn same_on_every_rank(
    stage: Stage,
    label: &str,
    rank: i64,
    outputs: Vec<Vec<f32>>,
    seen: &mut std::collections::HashMap<String, (i64, Vec<Vec<f32>>)>,
) -> Result<(), Finding> {
    match seen.get(label) {
        None => {
            seen.insert(label.to_string(), (rank, outputs));
            Ok(())
        }
        Some((first, theirs)) => {
            let differ = outputs
                .iter()
                .zip(theirs)
                .position(|(a, b)| !same_bits(a, b));
            match differ {
                None => Ok(()),
                Some(k) => Err(fail(
                    stage,
                    FailReason::Incorrect,
                    format!(
                        "{label}: rank {rank}'s output {k} differs in bits from rank {first}'s on the same rows (every rank must hold the same result)"
                    ),
                )),
            }
        }
    }
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Equal as numbers (`-0 == +0`), NaN equal to NaN.
fn same_values(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::harness::case_args;
    use cacheon_kernels::slots::args::round_slice;

    /// What an honest kernel of `backend`'s dtype returns for `seed`: the reference,
    /// rounded to the dtype.
    fn honest(
        slot: SlotId,
        shape: &[i64],
        seed: u64,
        special: Special,
        backend: LaneBackend,
    ) -> Vec<Vec<f32>> {
        let mut args = case_args(slot, shape, seed, special);
        args.round_inputs(backend.dtype());
        let mut out = reference::compute(&args);
        out.iter_mut().for_each(|o| round_slice(o, backend.dtype()));
        out
    }

    fn judged(
        slot: SlotId,
        shape: &[i64],
        special: Special,
        outputs: &[Vec<f32>],
    ) -> Result<(), Finding> {
        let mut record = CaseRecord {
            stage: Stage::Verify,
            slot: slot.as_str(),
            shape: shape.to_vec(),
            special,
            calls: 2,
            passed: false,
            matched_ppm: 0,
            max_abs_err: 0.0,
            millis: 0,
        };
        let expected = expect(slot, shape, special, (&[11, 12], None), LaneBackend::Cuda);
        judge(
            Stage::Verify,
            (slot, shape, special),
            &expected,
            LaneBackend::Cuda,
            (&[CallCheck::default(), CallCheck::default()], outputs),
            &mut record,
        )
    }

    #[test]
    fn the_same_right_answer_twice_is_not_a_stale_output() {
        // Subnormal inputs to a bf16 matrix product: exact outputs of about 1e-41, which
        // differ from seed to seed, while a kernel that flushes subnormal products to zero
        // (as fast-math builds do) rightly returns zeros for both calls.
        let (slot, shape) = (SlotId::LinearMatmul, [1i64, 13, 8]);
        let zeros = vec![vec![0.0f32; 13]];
        let outputs = [zeros.clone(), zeros].concat();
        let verdict = judged(slot, &shape, Special::Denormal, &outputs);
        assert!(verdict.is_ok(), "{:?}", verdict.err().map(|f| f.detail));
    }

    #[test]
    fn a_wrong_replay_for_fresh_inputs_is_a_stale_output() {
        let (slot, shape) = (SlotId::LinearMatmul, [1i64, 13, 8]);
        let first = honest(slot, &shape, 11, Special::None, LaneBackend::Cuda);
        let outputs = [first.clone(), first].concat();
        let err = judged(slot, &shape, Special::None, &outputs).unwrap_err();
        assert_eq!(err.reason, FailReason::Cheating, "{}", err.detail);
        assert!(err.detail.contains("stale output"), "{}", err.detail);
    }
}
