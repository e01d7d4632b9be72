//! Behaviour checks after the speed reads: audit A (every candidate slot call of a real
//! model run against the trusted reference, DESIGN 7 step 8) and the pristine reference T
//! (the next-token distributions of the baseline and the candidate against a pristine
//! engine's, teacher-forced on their own token sequences, step 9).

use cacheon_kernels::args::SlotArgs;
use cacheon_kernels::compare;
use cacheon_kernels::reference;
use cacheon_kernels::slots::Dtype;
use cacheon_kernels::SlotId;
use serde::Serialize;

use crate::lane::engine_lane::RecordedCall;

/// What the audit saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AuditSummary {
    pub calls: usize,
    pub failed_calls: usize,
    /// The first failing call, described.
    pub first_failure: Option<String>,
    pub worst_matched_ppm: u64,
}

/// Compares every recorded call with the reference at the slot's tolerance.
pub fn audit(calls: &[RecordedCall], dtype: Dtype) -> AuditSummary {
    let mut s = AuditSummary {
        worst_matched_ppm: 1_000_000,
        ..Default::default()
    };
    for (i, (meta, inputs, outputs)) in calls.iter().enumerate() {
        s.calls += 1;
        let fail = |why: String| format!("call {i} ({} at {:?}): {why}", meta.slot, meta.shape);
        let Some(slot) = SlotId::parse(&meta.slot) else {
            s.failed_calls += 1;
            s.first_failure
                .get_or_insert_with(|| fail("unknown slot".into()));
            continue;
        };
        let args = match SlotArgs::new(
            slot,
            meta.shape.clone(),
            inputs.clone(),
            meta.scalars.clone(),
        ) {
            Ok(a) => a,
            Err(e) => {
                s.failed_calls += 1;
                s.first_failure.get_or_insert_with(|| fail(e.to_string()));
                continue;
            }
        };
        let expected = reference::compute(&args);
        if expected.len() != outputs.len() {
            s.failed_calls += 1;
            s.first_failure
                .get_or_insert_with(|| fail("wrong number of outputs".into()));
            continue;
        }
        for (k, (a, e)) in outputs.iter().zip(&expected).enumerate() {
            if a.len() != e.len() {
                s.failed_calls += 1;
                s.first_failure
                    .get_or_insert_with(|| fail(format!("output {k} has the wrong length")));
                break;
            }
            let r = compare::check(slot.spec().check, a, e, dtype.tolerance());
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
    s
}

fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    let lse = max + sum.ln();
    row.iter().map(|&v| v as f64 - lse).collect()
}

/// Mean over rows of KL(reference ‖ other), rows of `vocab` logits each. Non-finite
/// logits give an infinite KL.
pub fn mean_kl(reference: &[f32], other: &[f32], vocab: usize) -> f64 {
    if vocab == 0 || reference.len() != other.len() || reference.is_empty() {
        return f64::INFINITY;
    }
    let rows = reference.len() / vocab;
    let mut total = 0.0;
    for r in 0..rows {
        let p = log_softmax(&reference[r * vocab..(r + 1) * vocab]);
        let q = log_softmax(&other[r * vocab..(r + 1) * vocab]);
        let kl: f64 = p.iter().zip(&q).map(|(lp, lq)| lp.exp() * (lp - lq)).sum();
        if !kl.is_finite() {
            return f64::INFINITY;
        }
        total += kl.max(0.0);
    }
    total / rows as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::protocol::AuditCall;

    #[test]
    fn kl_is_zero_for_equal_rows_and_grows_with_difference() {
        let a = vec![1.0, 2.0, 3.0, 0.5, 0.1, 0.2];
        assert_eq!(mean_kl(&a, &a, 3), 0.0);
        let b = vec![1.0, 2.0, 3.1, 0.5, 0.1, 0.2];
        let c = vec![3.0, 2.0, 1.0, 0.5, 0.1, 0.2];
        assert!(mean_kl(&a, &b, 3) > 0.0);
        assert!(mean_kl(&a, &c, 3) > mean_kl(&a, &b, 3));
        assert!(mean_kl(&a, &[f32::NAN; 6], 3).is_infinite());
    }

    #[test]
    fn audit_catches_a_wrong_call() {
        let args = cacheon_kernels::cases::generate(SlotId::RmsNorm, &[3, 7], 1);
        let good = reference::compute(&args);
        let meta = AuditCall {
            slot: "norm.rmsnorm".into(),
            shape: args.shape.clone(),
            scalars: args.scalars.clone(),
            int_inputs: vec![false, false],
            outputs: 1,
        };
        let ok = audit(
            &[(meta.clone(), args.inputs.clone(), good.clone())],
            Dtype::F32,
        );
        assert_eq!((ok.calls, ok.failed_calls), (1, 0));
        let mut bad = good;
        bad[0][20] += 0.5;
        let s = audit(&[(meta, args.inputs.clone(), bad)], Dtype::F32);
        assert_eq!(s.failed_calls, 1);
        assert!(s.first_failure.unwrap().contains("1 of 21"));
    }
}
