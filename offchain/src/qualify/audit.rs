//! Audit A (DESIGN 7 step 8), drawn in secret from the timed reads: at read positions the
//! referee draws from the attempt's secret seed, the candidate lane runs an extra read of
//! the workload (same shapes, a fresh prompt) that records a secret sample of its slots'
//! calls; every recorded call is compared with the trusted reference, its inputs must be
//! as they were before it, and the read's tokens are checked like any timed read's.
//!
//! Nothing but the request tells an audit read from a timed one: the prompt length, the
//! decode steps, the slots' shapes and the number of calls are the same, and positions run
//! over the whole read budget (audit reads the decision did not reach run right after it,
//! before the pristine read). A kernel that is wrong on some reads only is caught on an
//! audit read in proportion to how often it is wrong. What is secret is secret from the
//! kernel's arguments and from the order of reads: the request itself lives in the lane's
//! memory, which a CPU kernel shares (a CUDA kernel does not: it sees device memory only).

use std::collections::BTreeSet;

use cacheon_kernels::rng::Rng;
use cacheon_kernels::slots::args::SlotArgs;
use cacheon_kernels::slots::probe;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::Dtype;
use cacheon_kernels::SlotId;
use serde::Serialize;

use cacheon_primitives::FailReason;

use super::findings::{fail, lane_outcome, Outcome, Stage};
use super::reads;
use crate::arena::{Arena, Judging, LaneBackend, Workload};
use crate::lane::protocol::{self, CallSample, ReadSpec, RecordedCall};
use crate::lane::{Lane, LaneError};

/// What the audit reads saw.
#[derive(Clone, Debug, Serialize)]
pub struct AuditSummary {
    /// Audit reads run.
    pub reads: usize,
    pub calls: usize,
    pub failed_calls: usize,
    /// Calls that changed one of their inputs.
    pub inputs_changed: usize,
    /// The first failing call, described.
    pub first_failure: Option<String>,
    pub worst_matched_ppm: u64,
}

impl Default for AuditSummary {
    fn default() -> Self {
        AuditSummary {
            reads: 0,
            calls: 0,
            failed_calls: 0,
            inputs_changed: 0,
            first_failure: None,
            worst_matched_ppm: 1_000_000,
        }
    }
}

/// The timed-read numbers (1-based, as the speed loop counts its reads) before which an
/// audit read runs: `w.audit_reads` distinct positions drawn from the secret seed over
/// every read the budget allows after the first pair (the first pair's dispatch counts
/// size the sample).
pub fn draw_reads(seed: u64, w: &Workload, j: &Judging) -> BTreeSet<u64> {
    let per_pair = j.runs_per_read.max(1) as u64;
    let first = per_pair + 1;
    let last = (j.max_pairs.max(2) as u64) * per_pair;
    let mut rng = Rng::secret(seed, "audit-reads");
    let mut out = BTreeSet::new();
    let want = (w.audit_reads as u64).min(last + 1 - first);
    while (out.len() as u64) < want {
        out.insert(first + rng.below(last + 1 - first));
    }
    out
}

/// Which calls of each candidate slot one audit read records: every call where the slot
/// has at most `w.audit_calls_per_slot` of them in a read (`dispatch`, a read's counts
/// indexed like `SlotId::ALL`), else that many drawn without replacement, one of them
/// among the first prefill's calls (a read's first `calls / passes`) and, where the read
/// has a batched part, one among its calls (the read's last `calls × batched passes /
/// passes`).
pub fn draw_sample(
    seed: u64,
    read: u64,
    slots: &[SlotId],
    dispatch: &[u64],
    w: &Workload,
) -> CallSample {
    let mut rng = Rng::secret(seed, &format!("audit-sample/{read}"));
    slots
        .iter()
        .map(|&slot| {
            let n = dispatch.get(slot.index()).copied().unwrap_or(0);
            let k = w.audit_calls_per_slot as u64;
            if n <= k {
                return (slot, (0..n).collect());
            }
            let passes = w.passes() as u64;
            let prefill = (n / passes).max(1);
            let mut calls = BTreeSet::from([rng.below(prefill)]);
            if let Some(b) = w.batch {
                // The batched part's share of this slot's calls: decode attention runs in
                // decode steps only, prefill attention in prefills only, the rest in every
                // pass.
                let (part, of) = match slot {
                    SlotId::AttentionDecode => (b.steps, w.decode_steps + b.steps),
                    SlotId::AttentionPrefill => (b.rows, 1 + b.rows),
                    _ => (b.rows + b.steps, passes as usize),
                };
                let batched = (n * part as u64 / of.max(1) as u64).max(1);
                calls.insert(n - 1 - rng.below(batched));
            }
            while (calls.len() as u64) < k {
                calls.insert(rng.below(n));
            }
            (slot, calls.into_iter().collect())
        })
        .collect()
}

/// Checks one audit read's recorded calls into `s`: each against the reference at the
/// arena's tolerance, and its inputs unchanged.
///
/// A call too large for the whole reference ([`reference::MAX_REFERENCE_WORK`]) is judged on
/// rows drawn from `rows` (a secret stream): the GPU arena's prefill products.
///
/// A call too large to travel whole comes as the output features
/// [`protocol::audit_features`] draws from `feature_seed` (the lane must have kept exactly
/// those) and is judged at that many output features.
///
/// An in-place probe (`AuditCall::probe`) is judged like any call, on the inputs as the
/// probe changed them; where its call travelled whole, those inputs must be the call's own
/// with exactly the changes drawn from `probe_seed` ([`probe_is_the_drawn_one`]).
pub fn check_calls(
    s: &mut AuditSummary,
    calls: &[RecordedCall],
    dtype: Dtype,
    rows: &mut Rng,
    (feature_seed, probe_seed): (u64, u64),
) {
    s.reads += 1;
    for rec in calls {
        let RecordedCall {
            call: meta,
            inputs,
            outputs,
        } = rec;
        s.calls += 1;
        let fail = |why: String| {
            format!(
                "{}call {} of {} at {:?}{}: {why}",
                if meta.probe {
                    "the in-place probe (persistent inputs changed at secret positions, the same buffers) before "
                } else {
                    ""
                },
                meta.index,
                meta.slot,
                meta.shape,
                if meta.rank > 0 {
                    format!(" on rank {}", meta.rank)
                } else {
                    String::new()
                }
            )
        };
        if !meta.inputs_changed.is_empty() {
            s.inputs_changed += 1;
            s.failed_calls += 1;
            s.first_failure.get_or_insert_with(|| {
                fail(format!(
                    "the kernel changed its input(s) {:?} during a model run",
                    meta.inputs_changed
                ))
            });
            continue;
        }
        let Some(slot) = SlotId::parse(&meta.slot) else {
            s.failed_calls += 1;
            s.first_failure
                .get_or_insert_with(|| fail("unknown slot".into()));
            continue;
        };
        let drawn = protocol::audit_features(feature_seed, slot, meta.index, &meta.shape);
        if drawn != meta.kept_features {
            s.failed_calls += 1;
            s.first_failure.get_or_insert_with(|| {
                fail("the lane sent other output features than the referee drew".into())
            });
            continue;
        }
        if meta.probe && !probe_is_the_drawn_one(rec, calls, probe_seed) {
            s.failed_calls += 1;
            s.first_failure.get_or_insert_with(|| {
                fail("the lane's probe is not the call with the changes the referee drew".into())
            });
            continue;
        }
        let mut shape = meta.shape.clone();
        if let Some(kept) = &meta.kept_features {
            shape[1] = kept.len() as i64;
        }
        let args = match SlotArgs::new(slot, shape, inputs.clone(), meta.scalars.clone()) {
            Ok(a) => a,
            Err(e) => {
                s.failed_calls += 1;
                s.first_failure.get_or_insert_with(|| fail(e.to_string()));
                continue;
            }
        };
        let lens = args.output_lens();
        if lens.len() != outputs.len() {
            s.failed_calls += 1;
            s.first_failure
                .get_or_insert_with(|| fail("wrong number of outputs".into()));
            continue;
        }
        if let Some(k) = (0..outputs.len()).find(|&k| outputs[k].len() != lens[k]) {
            s.failed_calls += 1;
            s.first_failure
                .get_or_insert_with(|| fail(format!("output {k} has the wrong length")));
            continue;
        }
        let sample = reference::sampled_rows(&args, reference::MAX_REFERENCE_WORK, rows);
        let judged = reference::judge_rows(&args, outputs, sample.as_deref(), dtype.tolerance());
        for (k, r) in judged.reports.into_iter().enumerate() {
            s.worst_matched_ppm = s.worst_matched_ppm.min(r.matched_ppm());
            if !r.passed {
                s.failed_calls += 1;
                s.first_failure.get_or_insert_with(|| {
                    fail(format!(
                        "output {k} differs from the reference in {} of {} elements (max |err| {:.3e})",
                        r.mismatches, r.len, r.max_abs_err
                    ))
                });
                break;
            }
        }
    }
}

/// Whether a probe's inputs are its call's (the recorded call of the same slot, index and
/// rank) with exactly the changes drawn from `probe_seed`; a sliced call (its weights
/// travelled as drawn features) is not compared.
fn probe_is_the_drawn_one(p: &RecordedCall, calls: &[RecordedCall], probe_seed: u64) -> bool {
    let m = &p.call;
    let Some(real) = calls.iter().find(|c| {
        !c.call.probe && c.call.slot == m.slot && c.call.index == m.index && c.call.rank == m.rank
    }) else {
        return false;
    };
    if m.kept_features.is_some() || real.call.kept_features.is_some() {
        return true;
    }
    let Some(slot) = SlotId::parse(&m.slot) else {
        return false;
    };
    let Ok(args) = SlotArgs::new(
        slot,
        real.call.shape.clone(),
        real.inputs.clone(),
        real.call.scalars.clone(),
    ) else {
        return false;
    };
    let changes =
        args.with_call(|c| probe::changes(probe::call_seed(probe_seed, slot, m.index), c));
    let mut expected = args.inputs;
    probe::apply(&mut expected, &changes);
    !changes.is_empty()
        && expected.len() == p.inputs.len()
        && expected.iter().zip(&p.inputs).all(|(a, b)| a.same_bits(b))
}

/// The calls of `calls` a CPU audit read must have probed and did not: every recorded call
/// that travelled whole and whose drawn probe changes something.
fn unprobed(calls: &[RecordedCall], probe_seed: u64) -> Option<&RecordedCall> {
    calls.iter().find(|c| {
        let m = &c.call;
        if m.probe || m.kept_features.is_some() {
            return false;
        }
        let Some(slot) = SlotId::parse(&m.slot) else {
            return false;
        };
        let Ok(args) = SlotArgs::new(slot, m.shape.clone(), c.inputs.clone(), m.scalars.clone())
        else {
            return false;
        };
        let drawn =
            args.with_call(|a| probe::changes(probe::call_seed(probe_seed, slot, m.index), a));
        !drawn.is_empty()
            && !calls.iter().any(|p| {
                p.call.probe
                    && p.call.slot == m.slot
                    && p.call.index == m.index
                    && p.call.rank == m.rank
            })
    })
}

/// An audit read's secret streams, drawn from the attempt's seed and the read's position:
/// the rows a call too large for the whole reference is judged on, the seed of the output
/// features a call too large to send travels as, and the seed of the in-place probes.
pub struct Secrets {
    pub rows: Rng,
    pub features: u64,
    pub probe: u64,
}

impl Secrets {
    pub fn of(seed: u64, at: u64) -> Secrets {
        Secrets {
            rows: Rng::secret(seed, &format!("audit-rows/{at}")),
            features: Rng::secret(seed, &format!("audit-features/{at}")).next_u64(),
            probe: Rng::secret(seed, &format!("audit-probe/{at}")).next_u64(),
        }
    }
}

/// One audit read: the baseline runs `read`, the candidate runs it recording the
/// `sample`d calls; the candidate's tokens must agree with the baseline's as for a timed
/// read, and its recorded calls pass the audit (`audit::check_calls`, into `summary`).
pub fn audit_read(
    base: &mut Lane,
    cand: &mut Lane,
    read: &ReadSpec,
    sample: &CallSample,
    arena: Arena,
    summary: &mut AuditSummary,
    secrets: &mut Secrets,
) -> Result<(), Outcome> {
    let base_tokens = base
        .run(read, false, false)
        .map_err(|e| lane_outcome(Stage::Audit, LaneError::Infrastructure(e.to_string())))?
        .tokens;
    base.freeze();
    let recorded = cand.audit(read, sample, secrets.features, secrets.probe);
    cand.freeze();
    let (cand_read, mut calls) = recorded.map_err(|e| lane_outcome(Stage::Audit, e))?;
    let dtype = arena.backend.dtype();
    if arena.backend != LaneBackend::Cpu {
        // Only CPU lanes probe; anything marked a probe elsewhere is not judged as one.
        calls.retain(|c| !c.call.probe);
    }
    let seeds = (secrets.features, secrets.probe);
    check_calls(summary, &calls, dtype, &mut secrets.rows, seeds);
    let missing_probe = match arena.backend {
        LaneBackend::Cpu => {
            unprobed(&calls, secrets.probe).map(|c| (c.call.index, c.call.slot.clone()))
        }
        _ => None,
    };
    calls.retain(|c| !c.call.probe);
    // The lane must bring back exactly the sampled calls, each once from each of its
    // ranks: one missing (its kernel served fewer calls than the read's counts said) or
    // one nobody asked for is the candidate's doing, whatever the counts it reported.
    let recorded = |slot: &str, rank: usize| -> Vec<u64> {
        let mut v: Vec<u64> = calls
            .iter()
            .filter(|c| c.call.slot == slot && c.call.rank == rank)
            .map(|c| c.call.index)
            .collect();
        v.sort_unstable();
        v
    };
    let world = cand.world();
    let unaudited = sample
        .iter()
        .find(|(s, wanted)| {
            let mut wanted = wanted.clone();
            wanted.sort_unstable();
            (0..world).any(|rank| recorded(s.as_str(), rank) != wanted)
        })
        .or_else(|| {
            let sampled: usize = sample.iter().map(|(_, w)| w.len()).sum();
            if calls.len() != sampled * world {
                sample.first()
            } else {
                None
            }
        });
    if let Some(f) = &summary.first_failure {
        let reason = if summary.inputs_changed > 0 {
            FailReason::Cheating
        } else {
            FailReason::BehaviourChanged
        };
        return Err(Outcome::Fail(fail(Stage::Audit, reason, f.clone())));
    }
    if let Some((index, slot)) = missing_probe {
        return Err(Outcome::Fail(fail(
            Stage::Audit,
            FailReason::BehaviourChanged,
            format!("call {index} of {slot}: the lane brought back no in-place probe before it"),
        )));
    }
    if let Some((s, _)) = unaudited {
        return Err(Outcome::Fail(fail(
            Stage::Audit,
            FailReason::BehaviourChanged,
            format!("the audit read of the candidate's {s} kernel did not record exactly the sampled calls"),
        )));
    }
    match reads::tokens_agree(base, read, &base_tokens, &cand_read.tokens, arena.backend) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::ARENAS;
    use crate::lane::protocol::AuditCall;

    fn recorded(
        args: &SlotArgs,
        inputs_changed: Vec<usize>,
        outputs: Vec<Vec<f32>>,
    ) -> RecordedCall {
        let call = AuditCall {
            rank: 0,
            slot: "norm.rmsnorm".into(),
            index: 3,
            inputs_changed,
            shape: args.shape.clone(),
            scalars: args.scalars.clone(),
            int_inputs: vec![false, false],
            outputs: 1,
            kept_features: None,
            probe: false,
        };
        RecordedCall {
            call,
            inputs: args.inputs.clone(),
            outputs,
        }
    }

    #[test]
    fn a_wrong_call_or_a_changed_input_fails_the_audit() {
        let args = cacheon_kernels::slots::cases::generate(SlotId::RmsNorm, &[3, 7], 1);
        let good = reference::compute(&args);
        let mut ok = AuditSummary::default();
        check_calls(
            &mut ok,
            &[recorded(&args, vec![], good.clone())],
            Dtype::F32,
            &mut Rng::new(0),
            (0, 0),
        );
        assert_eq!((ok.reads, ok.calls, ok.failed_calls), (1, 1, 0));
        let mut bad = good.clone();
        bad[0][20] += 0.5;
        let mut s = AuditSummary::default();
        check_calls(
            &mut s,
            &[recorded(&args, vec![], bad)],
            Dtype::F32,
            &mut Rng::new(0),
            (0, 0),
        );
        assert_eq!(s.failed_calls, 1);
        assert!(s.first_failure.unwrap().contains("1 of 21"));
        // Right outputs from inputs it then overwrote: the input check fails it.
        let mut s = AuditSummary::default();
        check_calls(
            &mut s,
            &[recorded(&args, vec![1], good)],
            Dtype::F32,
            &mut Rng::new(0),
            (0, 0),
        );
        assert_eq!((s.failed_calls, s.inputs_changed), (1, 1));
        assert!(s
            .first_failure
            .unwrap()
            .contains("changed its input(s) [1]"));
    }

    #[test]
    fn audit_reads_fall_anywhere_in_the_budget_and_differ_between_attempts() {
        for arena in ARENAS {
            let (w, j) = (arena.workload, arena.judging);
            let per_pair = j.runs_per_read as u64;
            let mut seen = BTreeSet::new();
            for seed in 0..400 {
                let reads = draw_reads(seed, &w, &j);
                assert_eq!(reads.len(), w.audit_reads);
                assert!(reads
                    .iter()
                    .all(|&r| r > per_pair && r <= j.max_pairs as u64 * per_pair));
                seen.extend(reads);
            }
            // Every position after the first pair is drawn by some attempt, the ones
            // after the earliest possible decision included.
            assert_eq!(seen.len() as u64, (j.max_pairs as u64 - 1) * per_pair);
            assert_ne!(draw_reads(1, &w, &j), draw_reads(2, &w, &j));
        }
    }

    #[test]
    fn the_sample_takes_every_call_when_few_else_a_prefill_call_and_distinct_others() {
        let w = ARENAS[1].workload;
        let slots = [SlotId::RmsNorm, SlotId::AttentionDecode];
        let mut dispatch = vec![0u64; SlotId::ALL.len()];
        dispatch[SlotId::RmsNorm.index()] = 5;
        dispatch[SlotId::AttentionDecode.index()] = 8 * 129;
        for read in 0..50 {
            let sample = draw_sample(7, read, &slots, &dispatch, &w);
            assert_eq!(sample[0], (SlotId::RmsNorm, vec![0, 1, 2, 3, 4]));
            let calls = &sample[1].1;
            assert_eq!(calls.len(), w.audit_calls_per_slot);
            assert!(calls.windows(2).all(|p| p[0] < p[1]));
            assert!(
                calls[0] < 8,
                "one call of the prefill's 8 is always sampled"
            );
            assert!(calls.iter().all(|&c| c < 8 * 129));
        }
        assert_ne!(
            draw_sample(7, 1, &slots, &dispatch, &w),
            draw_sample(7, 2, &slots, &dispatch, &w)
        );
    }

    /// A `linear.matmul` call as the lane sends it once the read is over: its output
    /// features drawn from `seed` when the whole call is too large to travel.
    fn matmul_call(shape: [i64; 3], seed: u64, y: impl Fn(&mut Vec<f32>)) -> RecordedCall {
        product_call(SlotId::LinearMatmul, shape, seed, y)
    }

    /// A product call (`linear.matmul` or the MLP seam) as the lane sends it.
    fn product_call(
        slot: SlotId,
        shape: [i64; 3],
        seed: u64,
        y: impl Fn(&mut Vec<f32>),
    ) -> RecordedCall {
        let args = cacheon_kernels::slots::cases::generate(slot, &shape, 5);
        let mut outputs = reference::compute(&args);
        y(&mut outputs[0]);
        let mut inputs = args.inputs.clone();
        let kept = protocol::audit_features(seed, slot, 7, &shape);
        if let Some(f) = &kept {
            protocol::keep_features(slot, &shape, &mut inputs, &mut outputs, f);
        }
        RecordedCall {
            call: AuditCall {
                rank: 0,
                slot: slot.as_str().into(),
                index: 7,
                inputs_changed: vec![],
                shape: shape.to_vec(),
                scalars: vec![],
                int_inputs: vec![false, false],
                outputs: 1,
                kept_features: kept,
                probe: false,
            },
            inputs,
            outputs,
        }
    }

    #[test]
    fn a_call_too_large_to_send_is_judged_on_drawn_output_features() {
        // An LM head of 8192 x 1024 (32 MiB of f32 weights and more): 256 features travel.
        let shape = [1, 8200, 1024];
        let call = matmul_call(shape, 9, |_| {});
        let kept = call.call.kept_features.clone().expect("sliced");
        assert_eq!(kept.len(), protocol::AUDIT_FEATURES);
        assert_eq!(call.outputs[0].len(), protocol::AUDIT_FEATURES);
        let mut s = AuditSummary::default();
        check_calls(&mut s, &[call], Dtype::F32, &mut Rng::new(0), (9, 0));
        assert_eq!((s.calls, s.failed_calls), (1, 0), "{:?}", s.first_failure);

        // A wrong output on a kept feature is found.
        let wrong = kept[100];
        let call = matmul_call(shape, 9, |y| y[wrong] += 1.0);
        let mut s = AuditSummary::default();
        check_calls(&mut s, &[call], Dtype::F32, &mut Rng::new(0), (9, 0));
        assert_eq!(s.failed_calls, 1);

        // Features other than the referee's draw are refused.
        let call = matmul_call(shape, 10, |_| {});
        let mut s = AuditSummary::default();
        check_calls(&mut s, &[call], Dtype::F32, &mut Rng::new(0), (9, 0));
        assert_eq!(s.failed_calls, 1);
        assert!(s.first_failure.unwrap().contains("other output features"));

        // A small product travels whole.
        assert_eq!(
            protocol::audit_features(9, SlotId::LinearMatmul, 7, &[1, 576, 576]),
            None
        );
    }

    #[test]
    fn a_seam_call_too_large_to_send_keeps_each_features_gate_and_up_rows() {
        // 2 x 4200 x 1024 weights (34 MB of f32): 256 features, 512 weight rows travel.
        let (seam, shape) = (SlotId::GateUpSilu, [2, 4200, 1024]);
        let call = product_call(seam, shape, 4, |_| {});
        let kept = call.call.kept_features.clone().expect("sliced");
        assert_eq!(call.inputs[1].len(), 2 * kept.len() * 1024);
        assert_eq!(call.outputs[0].len(), 2 * kept.len());
        let mut s = AuditSummary::default();
        check_calls(&mut s, &[call], Dtype::F32, &mut Rng::new(0), (4, 0));
        assert_eq!((s.calls, s.failed_calls), (1, 0), "{:?}", s.first_failure);

        // A wrong output on a kept feature (second row) is found.
        let call = product_call(seam, shape, 4, |out| out[4200 + kept[7]] *= 1.5);
        let mut s = AuditSummary::default();
        check_calls(&mut s, &[call], Dtype::F32, &mut Rng::new(0), (4, 0));
        assert_eq!(s.failed_calls, 1, "{:?}", s.first_failure);
        // Half the weight: one row per feature would have fit whole.
        assert_eq!(
            protocol::audit_features(4, SlotId::LinearMatmul, 7, &[2, 4200, 1024]),
            None
        );
    }
}
