//! A mixture-of-experts layer's routing (Mixtral's): each row takes the `k` experts with the
//! highest router scores (ties to the lower id) and weighs them by the softmax of those
//! scores. The validator's own code, on both sides of a split engine alike: the router's
//! product is a `linear.matmul` call, the experts a `moe.fused_experts` call.

/// For each row of `scores` (`[rows, experts]`), its `k` chosen expert ids and their
/// weights (`[rows, k]` each, best first).
pub fn route(scores: &[f32], experts: usize, k: usize) -> (Vec<i32>, Vec<f32>) {
    let rows = scores.len() / experts.max(1);
    let mut ids = Vec::with_capacity(rows * k);
    let mut weights = Vec::with_capacity(rows * k);
    for row in scores.chunks(experts) {
        let mut order: Vec<usize> = (0..experts).collect();
        // Highest score first; NaN last; equal scores in id order (a stable sort).
        order.sort_by(|&a, &b| {
            row[b]
                .partial_cmp(&row[a])
                .unwrap_or_else(|| row[a].is_nan().cmp(&row[b].is_nan()))
        });
        let chosen = &order[..k];
        let top = row[chosen[0]] as f64;
        let exp: Vec<f64> = chosen
            .iter()
            .map(|&e| (row[e] as f64 - top).exp())
            .collect();
        let sum: f64 = exp.iter().sum();
        ids.extend(chosen.iter().map(|&e| e as i32));
        weights.extend(exp.iter().map(|&v| (v / sum) as f32));
    }
    (ids, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_take_their_best_experts_weighted_by_softmax() {
        let scores = [0.5, 2.0, -1.0, 2.0, /* row 1 */ 3.0, 0.0, 1.0, -2.0];
        let (ids, w) = route(&scores, 4, 2);
        // Ties go to the lower id.
        assert_eq!(ids, [1, 3, 0, 2]);
        assert_eq!(&w[..2], &[0.5, 0.5]);
        let e = (-2f64).exp();
        assert!((w[2] as f64 - 1.0 / (1.0 + e)).abs() < 1e-7);
        assert!((w[3] as f64 - e / (1.0 + e)).abs() < 1e-7);
    }
}
