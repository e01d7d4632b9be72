//! Element-wise comparison of a kernel's output with the reference's.
//!
//! An element matches when `|actual - expected| <= atol + rtol * max(|expected|, scale)`,
//! where `scale` is the magnitude the element's rounding error grows with when the slot has
//! one (`linear.matmul`: the sum of the absolute products, so an honest f32 sum in another
//! order is not failed for cancellation) and zero otherwise. NaN never
//! matches (outputs are poisoned with NaN before every call, so an unwritten element is a
//! mismatch) and an infinity matches only the same infinity.

use crate::slots::{Check, Tolerance};

/// What a comparison found.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareReport {
    /// Elements compared.
    pub len: usize,
    /// Elements outside tolerance.
    pub mismatches: usize,
    /// Index of the first element outside tolerance.
    pub first_bad: Option<usize>,
    /// Largest `|actual - expected|` (infinite when a NaN or infinity disagrees).
    pub max_abs_err: f64,
    /// Where `max_abs_err` was found.
    pub max_abs_err_index: Option<usize>,
    /// Whether the check's criterion held.
    pub passed: bool,
}

impl CompareReport {
    /// Fraction of matching elements in parts per million (1_000_000 for no elements).
    pub fn matched_ppm(&self) -> u64 {
        if self.len == 0 {
            return 1_000_000;
        }
        ((self.len - self.mismatches) as u64 * 1_000_000) / self.len as u64
    }
}

fn element_err(actual: f32, expected: f32, scale: f32, tol: Tolerance) -> (bool, f64) {
    let (a, e) = (actual as f64, expected as f64);
    if a.is_nan() || e.is_nan() {
        return (false, f64::INFINITY);
    }
    if a.is_infinite() || e.is_infinite() {
        return if a == e {
            (true, 0.0)
        } else {
            (false, f64::INFINITY)
        };
    }
    let err = (a - e).abs();
    (err <= tol.atol + tol.rtol * e.abs().max(scale as f64), err)
}

fn scan(actual: &[f32], expected: &[f32], scale: Option<&[f32]>, tol: Tolerance) -> CompareReport {
    assert_eq!(
        actual.len(),
        expected.len(),
        "compared buffers differ in length"
    );
    let mut report = CompareReport {
        len: actual.len(),
        mismatches: 0,
        first_bad: None,
        max_abs_err: 0.0,
        max_abs_err_index: None,
        passed: false,
    };
    if let Some(scale) = scale {
        assert_eq!(scale.len(), expected.len(), "one error scale per element");
    }
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let (ok, err) = element_err(a, e, scale.map_or(0.0, |s| s[i]), tol);
        if !ok {
            report.mismatches += 1;
            report.first_bad.get_or_insert(i);
        }
        if report.max_abs_err_index.is_none() || err > report.max_abs_err {
            report.max_abs_err = err;
            report.max_abs_err_index = Some(i);
        }
    }
    report
}

/// Every element within tolerance.
pub fn allclose(actual: &[f32], expected: &[f32], tol: Tolerance) -> CompareReport {
    let mut report = scan(actual, expected, None, tol);
    report.passed = report.mismatches == 0;
    report
}

/// At least `min_ppm` parts per million of the elements within tolerance.
pub fn matched_ratio(
    actual: &[f32],
    expected: &[f32],
    tol: Tolerance,
    min_ppm: u32,
) -> CompareReport {
    let mut report = scan(actual, expected, None, tol);
    report.passed = report.matched_ppm() >= min_ppm as u64;
    report
}

/// Applies a slot's [`Check`].
pub fn check(check: Check, actual: &[f32], expected: &[f32], tol: Tolerance) -> CompareReport {
    check_scaled(check, actual, expected, None, tol)
}

/// Applies a slot's [`Check`] with per-element error scales (see the module docs).
pub fn check_scaled(
    check: Check,
    actual: &[f32],
    expected: &[f32],
    scale: Option<&[f32]>,
    tol: Tolerance,
) -> CompareReport {
    let mut report = scan(actual, expected, scale, tol);
    report.passed = match check {
        Check::AllClose => report.mismatches == 0,
        Check::MatchedRatio { min_ppm } => report.matched_ppm() >= min_ppm as u64,
    };
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOL: Tolerance = Tolerance {
        atol: 1e-5,
        rtol: 1e-5,
    };

    #[test]
    fn reports_first_bad_and_max_error() {
        let r = allclose(&[1.0, 2.0, 3.5, f32::NAN], &[1.0, 2.1, 3.0, 1.0], TOL);
        assert!(!r.passed);
        assert_eq!(r.mismatches, 3);
        assert_eq!(r.first_bad, Some(1));
        assert_eq!(r.max_abs_err, f64::INFINITY);
        assert_eq!(r.max_abs_err_index, Some(3));
    }

    #[test]
    fn within_tolerance_passes() {
        let r = allclose(&[1.0, 1000.0], &[1.000_005, 1000.005], TOL);
        assert!(r.passed, "{r:?}");
        assert!(r.max_abs_err > 0.0);
    }

    #[test]
    fn infinities_match_only_themselves() {
        assert!(allclose(&[f32::INFINITY], &[f32::INFINITY], TOL).passed);
        assert!(!allclose(&[f32::INFINITY], &[f32::NEG_INFINITY], TOL).passed);
        assert!(!allclose(&[f32::MAX], &[f32::INFINITY], TOL).passed);
    }

    #[test]
    fn an_error_scale_widens_the_relative_term_only_where_given() {
        // 1e-3 off an expected 0 is outside 1e-5 + 1e-5 * 0, inside 1e-5 + 1e-5 * 200.
        let (a, e) = ([1e-3f32, 0.0], [0.0f32, 0.0]);
        assert!(!allclose(&a, &e, TOL).passed);
        let r = check_scaled(Check::AllClose, &a, &e, Some(&[200.0, 0.0]), TOL);
        assert!(r.passed, "{r:?}");
        let r = check_scaled(Check::AllClose, &a, &e, Some(&[1.0, 200.0]), TOL);
        assert!(!r.passed);
    }

    #[test]
    fn matched_ratio_threshold() {
        let expected = vec![0f32; 100];
        let mut actual = expected.clone();
        actual[7] = 1.0;
        let r = matched_ratio(&actual, &expected, TOL, 990_000);
        assert!(r.passed);
        assert_eq!(r.matched_ppm(), 990_000);
        actual[8] = 1.0;
        assert!(!matched_ratio(&actual, &expected, TOL, 990_000).passed);
    }
}
