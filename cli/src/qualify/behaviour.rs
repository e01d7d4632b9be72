//! The behaviour check after the speed reads: the pristine reference T (the next-token
//! distributions of the baseline and the candidate against a pristine engine's,
//! teacher-forced on their own token sequences, DESIGN 7 step 9). Audit A is in
//! [`super::audit`].

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
}
