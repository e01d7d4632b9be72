//! Judging a call against the reference: whole, or on a secret sample of its rows when
//! the whole reference would be too much work.

use super::compute::compute;
use super::scales::error_scales;
use crate::rng::Rng;
use crate::slots::args::SlotArgs;
use crate::slots::compare::{check_scaled, CompareReport};
use crate::slots::{SlotId, Tolerance};

/// Judges one call: its outputs (`actual`, ABI order) against the reference's (`expected`,
/// from [`compute`]) by the slot's check, with [`error_scales`]. One report per output.
pub fn judge(
    args: &SlotArgs,
    actual: &[Vec<f32>],
    expected: &[Vec<f32>],
    tol: Tolerance,
) -> Vec<CompareReport> {
    let check = args.slot.spec().check;
    let scales = error_scales(args);
    actual
        .iter()
        .zip(expected)
        .zip(&scales)
        .map(|((a, e), scale)| check_scaled(check, a, e, scale.as_deref(), tol))
        .collect()
}

/// The most work (the product of a call's shape values: for `linear.matmul` its
/// multiply-adds) the f64 reference does for one call on the referee's CPU. A larger call
/// (the GPU arena's 2048-token prefill products, up to 2^38) is judged on a secret sample
/// of its rows instead of being skipped: a kernel that saves work on large calls saves it
/// on most of their rows, and cannot know which rows are checked.
pub const MAX_REFERENCE_WORK: u64 = 1 << 30;

/// What the reference says a call gives, with the error scales its outputs are judged
/// with ([`error_scales`]): everything a judgement needs that does not depend on the
/// kernel's outputs, so it can be computed while the kernel runs.
#[derive(Clone, Debug)]
pub struct Expectation {
    pub expected: Vec<Vec<f32>>,
    pub scales: Vec<Option<Vec<f32>>>,
}

/// The reference's outputs and error scales for `args`.
pub fn expect(args: &SlotArgs) -> Expectation {
    Expectation {
        expected: compute(args),
        scales: error_scales(args),
    }
}

/// [`judge`] with the expectation computed beforehand ([`expect`]) for a call of `slot`.
pub fn judge_expected(
    slot: SlotId,
    actual: &[Vec<f32>],
    e: &Expectation,
    tol: Tolerance,
) -> Vec<CompareReport> {
    let check = slot.spec().check;
    actual
        .iter()
        .zip(&e.expected)
        .zip(&e.scales)
        .map(|((a, x), scale)| check_scaled(check, a, x, scale.as_deref(), tol))
        .collect()
}

/// The work of a call's reference, as [`MAX_REFERENCE_WORK`] counts it: the product of its
/// shape values, twice that for the MLP seam (two products a feature).
pub fn reference_work(args: &SlotArgs) -> u64 {
    let products = if args.slot == SlotId::GateUpSilu {
        2
    } else {
        1
    };
    args.shape
        .iter()
        .map(|&v| v.max(1) as u64)
        .fold(products, |a, v| a.saturating_mul(v))
}

/// The rows (of the slot's leading symbol, `tokens` or `batch`) a call is judged on:
/// `None` (every row) when its reference fits `max_work`, else as many distinct rows as
/// fit (at least two, or every row there is), drawn from `rng`, in ascending order.
pub fn sampled_rows(args: &SlotArgs, max_work: u64, rng: &mut Rng) -> Option<Vec<usize>> {
    let work = reference_work(args);
    if work <= max_work {
        return None;
    }
    let lead = args.shape.first().copied().unwrap_or(0).max(0) as u64;
    let per_row = (work / lead.max(1)).max(1);
    let k = (max_work / per_row).clamp(2, lead.max(1));
    if k >= lead {
        return None;
    }
    let mut rows = std::collections::BTreeSet::new();
    while (rows.len() as u64) < k {
        rows.insert(rng.below(lead) as usize);
    }
    Some(rows.into_iter().collect())
}

/// One call as judged against the reference: whole, or on some rows only.
#[derive(Clone, Debug)]
pub struct Judged {
    /// One report per output, by the slot's check.
    pub reports: Vec<CompareReport>,
    /// The kernel's outputs on the judged rows (ABI order).
    pub actual: Vec<Vec<f32>>,
    /// The reference's outputs on the same rows.
    pub expected: Vec<Vec<f32>>,
}

/// Judges one call: whole (`rows` is `None`), or on `rows` of its leading symbol only
/// (from [`sampled_rows`]), the kernel's outputs restricted to the same rows.
pub fn judge_rows(
    args: &SlotArgs,
    actual: &[Vec<f32>],
    rows: Option<&[usize]>,
    tol: Tolerance,
) -> Judged {
    // The whole call is judged on `args` itself (no copy of its inputs: the audit's calls
    // carry whole weight matrices).
    let sub;
    let (args, actual) = match rows {
        None => (args, actual.to_vec()),
        Some(rows) => {
            sub = args.select_rows(rows);
            let part = actual
                .iter()
                .enumerate()
                .map(|(i, a)| args.output_rows(i, a, rows))
                .collect();
            (&sub, part)
        }
    };
    let expected = compute(args);
    Judged {
        reports: judge(args, &actual, &expected, tol),
        actual,
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_calls_are_judged_on_a_secret_sample_of_rows() {
        use crate::slots::cases::generate;
        let args = generate(SlotId::LinearMatmul, &[64, 40, 24], 3);
        let good = compute(&args);
        let mut rng = Rng::new(1);
        // Small enough for the whole reference: every row.
        assert_eq!(sampled_rows(&args, 64 * 40 * 24, &mut rng), None);
        // Room for 8 rows of 40 x 24: 8 distinct rows, ascending.
        let rows = sampled_rows(&args, 8 * 40 * 24, &mut rng).unwrap();
        assert_eq!(rows.len(), 8);
        assert!(rows.windows(2).all(|w| w[0] < w[1]) && rows[7] < 64);
        // Never fewer than two rows, whatever the budget.
        assert_eq!(sampled_rows(&args, 1, &mut rng).unwrap().len(), 2);
        let tol = crate::slots::Dtype::F32.tolerance();
        let judged = judge_rows(&args, &good, Some(&rows), tol);
        assert!(judged.reports.iter().all(|r| r.passed));
        assert_eq!(judged.actual[0].len(), 8 * 40);
        // A kernel that skips half of every row's products is caught on any row.
        let lazy: Vec<f32> = {
            let mut half = args.clone();
            let x = half.input_f32(0).to_vec();
            let x: Vec<f32> = x
                .chunks(24)
                .flat_map(|r| {
                    r.iter()
                        .enumerate()
                        .map(|(i, &v)| if i < 12 { v } else { 0.0 })
                })
                .collect();
            half.inputs[0] = crate::slots::args::Buffer::F32(x);
            compute(&half).remove(0)
        };
        let judged = judge_rows(&args, &[lazy], Some(&rows), tol);
        assert!(!judged.reports[0].passed);
    }
}
