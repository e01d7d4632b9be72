//! The speed verdict (DESIGN 7 step 7): interleaved reads B, C, B′, C′, … of the same
//! workload on a baseline and a candidate lane; speedup = throughput(C) / throughput(B) =
//! time(B) / time(C). Each pair gives `ln(tB / tC)`; their mean and a Student-t 95 %
//! interval decide: PASS once the interval's lower end is at or above `ln(1 + margin)`,
//! FAIL `NotFaster` once its upper end is below it or when the read budget is spent
//! undecided. A decision counts only while the baseline's bookends (the fastest read of
//! each half) agree within `max_noise`: past it the reads go on, so a burst of interference
//! ends up inside one half and stops mattering, and only a baseline still drifting when the
//! read budget is spent is NoDecision.
//!
//! Pairs alternate which lane reads first, so a decision is taken at an even number of
//! pairs only: each lane then read first as often as the other.
//!
//! Where the arena says so, pairs come in blocks of `block`, each block from a fresh start
//! of both lanes in the order opposite to the block before (`session.rs`): a decision is
//! taken only after as many pairs of each start order (or at the budget), so whatever
//! starting first or second does to a lane's speed weighs on both lanes alike.

use serde::Serialize;

/// What the reads say so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Not decided: read more.
    Continue,
    Faster,
    NotFaster,
    /// Baseline bookends drifted by `drift_ppm`.
    Noise {
        drift_ppm: u64,
    },
}

/// The interval of the speedup, as ratios.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub pairs: usize,
    pub speedup: f64,
    pub low: f64,
    pub high: f64,
}

/// Two-sided 95 % Student-t quantiles (0.975) for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

fn t975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        _ => 1.96,
    }
}

/// The speedup interval from paired read times (ms).
pub fn interval(baseline: &[f64], candidate: &[f64]) -> Interval {
    let logs: Vec<f64> = baseline
        .iter()
        .zip(candidate)
        .map(|(b, c)| (b / c).ln())
        .collect();
    let n = logs.len();
    if n == 0 {
        return Interval {
            pairs: 0,
            speedup: 1.0,
            low: 0.0,
            high: f64::INFINITY,
        };
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        f64::INFINITY
    };
    let half = t975(n - 1) * (var / n as f64).sqrt();
    Interval {
        pairs: n,
        speedup: mean.exp(),
        low: (mean - half).exp(),
        high: (mean + half).exp(),
    }
}

fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Relative drift between the baseline's bookends, in ppm: the fastest read of the first
/// half against the fastest of the second. Interference only ever slows a read, so the
/// fastest read is what the machine can do; a spike in one read is not drift. (Once both
/// start orders have served as many pairs, each half holds reads of both, so what a start
/// order does to the baseline lane's speed evens out as well.)
pub fn baseline_drift_ppm(baseline: &[f64]) -> u64 {
    if baseline.len() < 4 {
        return 0;
    }
    let half = baseline.len() / 2;
    let first = fastest(&baseline[..half]);
    let last = fastest(&baseline[baseline.len() - half..]);
    (((last / first).ln().abs().exp() - 1.0) * 1e6) as u64
}

/// How a decision is taken: the arena's margin and noise bound, its read budget, and the
/// pairs of each lane start order (`block`).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
    pub min_pairs: usize,
    pub max_pairs: usize,
    /// Pairs per lane start (`Judging::order_block`); `None`: one start.
    pub block: Option<usize>,
}

impl Rule {
    pub fn of(j: &crate::arena::Judging) -> Rule {
        Rule {
            min_margin_ppm: j.min_margin_ppm,
            max_noise_ppm: j.max_noise_ppm,
            min_pairs: j.min_pairs,
            max_pairs: j.max_pairs,
            block: j.order_block,
        }
    }

    /// Whether `pairs` pairs are balanced: each lane started as many pairs as the other
    /// (an even count: pairs alternate B C, C B, …), and where the lanes restart, as many
    /// pairs came from each start order.
    pub fn balanced(&self, pairs: usize) -> bool {
        pairs.is_multiple_of(2)
            && self
                .block
                .is_none_or(|b| pairs.is_multiple_of(2 * b.max(1)))
    }
}

/// Decides from the reads so far.
pub fn decide(baseline: &[f64], candidate: &[f64], rule: Rule) -> Decision {
    let iv = interval(baseline, candidate);
    let spent = iv.pairs >= rule.max_pairs;
    if iv.pairs < rule.min_pairs || !(rule.balanced(iv.pairs) || spent) {
        return Decision::Continue;
    }
    let bar = 1.0 + rule.min_margin_ppm as f64 / 1e6;
    let decided = if iv.low >= bar {
        Some(Decision::Faster)
    } else if iv.high < bar || spent {
        // Proven not faster, or not proven faster within the read budget.
        Some(Decision::NotFaster)
    } else {
        None
    };
    match decided {
        None => Decision::Continue,
        Some(d) => {
            let drift_ppm = baseline_drift_ppm(baseline);
            if drift_ppm <= rule.max_noise_ppm as u64 {
                d
            } else if !spent {
                // Noise, not yet an answer: more reads push the burst into one half.
                Decision::Continue
            } else {
                Decision::Noise { drift_ppm }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(base: f64, n: usize, seed: u64, spread: f64) -> Vec<f64> {
        let mut rng = cacheon_kernels::rng::Rng::new(seed);
        (0..n)
            .map(|_| base * (1.0 + spread * (rng.next_f64() - 0.5)))
            .collect()
    }

    fn rule(margin: u32, noise: u32, min: usize, max: usize, block: usize) -> Rule {
        Rule {
            min_margin_ppm: margin,
            max_noise_ppm: noise,
            min_pairs: min,
            max_pairs: max,
            block: Some(block),
        }
    }

    #[test]
    fn a_clear_win_passes_and_a_tie_fails() {
        let b = noisy(100.0, 8, 1, 0.02);
        let c = noisy(80.0, 8, 2, 0.02);
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 6, 30, 1)),
            Decision::Faster
        );
        let iv = interval(&b, &c);
        assert!(iv.low > 1.2 && iv.high < 1.3, "{iv:?}");

        let c = noisy(100.0, 8, 3, 0.02);
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 6, 30, 1)),
            Decision::NotFaster
        );
    }

    #[test]
    fn undecided_reads_continue_until_the_budget() {
        // About 2 % faster with 2 % noise sits on the bar: undecided at first.
        let b = vec![100.0; 6];
        let c: Vec<f64> = [1.00, 1.04, 1.02, 0.99, 1.05, 1.02]
            .iter()
            .map(|r| 100.0 / r)
            .collect();
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 6, 30, 1)),
            Decision::Continue
        );
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 3, 6, 1)),
            Decision::NotFaster
        );
        assert_eq!(
            decide(&b[..5], &c[..5], rule(20_000, 50_000, 6, 30, 1)),
            Decision::Continue
        );
    }

    #[test]
    fn no_decision_before_both_start_orders_served_alike() {
        // A clear win, decided only once each start order has as many pairs.
        let b = vec![100.0; 12];
        let c = vec![80.0; 12];
        let r = rule(20_000, 50_000, 6, 30, 3);
        assert_eq!(decide(&b[..6], &c[..6], r), Decision::Faster);
        for n in [7, 8, 9, 10, 11] {
            assert_eq!(decide(&b[..n], &c[..n], r), Decision::Continue, "{n} pairs");
        }
        assert_eq!(decide(&b, &c, r), Decision::Faster);
        // The budget decides whatever the balance.
        assert_eq!(
            decide(&b[..8], &c[..8], rule(20_000, 50_000, 8, 8, 3)),
            Decision::Faster
        );
    }

    #[test]
    fn decisions_wait_for_as_many_pairs_started_by_each_lane() {
        // Pairs alternate B C, C B, …, and the first read of a pair reads 0.5 % faster
        // (it follows its own lane's read): at an odd count one lane has one such read
        // more; at an even count the effect cancels exactly.
        let r = Rule {
            min_margin_ppm: 10_000,
            max_noise_ppm: 50_000,
            min_pairs: 6,
            max_pairs: 40,
            block: None,
        };
        let (mut b, mut c) = (Vec::new(), Vec::new());
        for k in 0..8 {
            let (fb, fc) = if k % 2 == 0 {
                (0.995, 1.0)
            } else {
                (1.0, 0.995)
            };
            b.push(100.0 * fb);
            c.push(100.0 * fc);
        }
        assert!(interval(&b[..7], &c[..7]).speedup < 0.9995);
        assert_eq!(decide(&b[..7], &c[..7], r), Decision::Continue);
        let iv = interval(&b, &c);
        assert!((iv.speedup - 1.0).abs() < 1e-12, "{iv:?}");
        assert_eq!(decide(&b, &c, r), Decision::NotFaster);
    }

    #[test]
    fn a_start_order_effect_cancels() {
        // Stock against itself, where whichever lane started second reads 3 % faster.
        // Blocks of 3 pairs alternate the start order (the baseline first in the first
        // block): balanced, the speedup is 1 and a 2 % bar is not passed; a block of one
        // order alone would read 0.97 or 1.03.
        let block = 3;
        let noise_b = noisy(100.0, 12, 4, 0.004);
        let noise_c = noisy(100.0, 12, 5, 0.004);
        let (mut b, mut c) = (Vec::new(), Vec::new());
        for i in 0..12 {
            let base_first = (i / block) % 2 == 0;
            let (fb, fc) = if base_first { (1.0, 0.97) } else { (0.97, 1.0) };
            b.push(noise_b[i] * fb);
            c.push(noise_c[i] * fc);
        }
        let one_order = interval(&b[..3], &c[..3]);
        assert!(one_order.speedup > 1.025, "{one_order:?}");
        let iv = interval(&b, &c);
        assert!((iv.speedup - 1.0).abs() < 0.005, "{iv:?}");
        // The order effect stays in the pairs' spread: the interval is wider, never shifted.
        assert!(iv.low < 1.0 && iv.high > 1.0, "{iv:?}");
        assert_ne!(
            decide(&b, &c, rule(20_000, 50_000, 6, 18, block)),
            Decision::Faster
        );
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 6, 12, block)),
            Decision::NotFaster
        );
        // Balanced halves: the order effect is not drift either.
        assert!(baseline_drift_ppm(&b) < 10_000);
    }

    #[test]
    fn drifting_baseline_reads_on_and_is_noise_never_a_pass() {
        let b: Vec<f64> = (0..8).map(|i| 100.0 + 3.0 * i as f64).collect();
        let c: Vec<f64> = b.iter().map(|x| x * 0.7).collect();
        assert_eq!(
            decide(&b, &c, rule(20_000, 50_000, 6, 30, 1)),
            Decision::Continue
        );
        assert!(matches!(
            decide(&b, &c, rule(20_000, 50_000, 6, 8, 1)),
            Decision::Noise { drift_ppm } if drift_ppm > 50_000
        ));
    }

    #[test]
    fn a_burst_of_interference_is_read_past() {
        // A clear 1.25× win; three baseline reads in a row slowed by 30 % (with their
        // candidates) look like drift at six pairs, and stop mattering once the burst sits
        // inside the first half.
        let mut b = [100.0; 12];
        b[3..6].iter_mut().for_each(|x| *x *= 1.3);
        let c: Vec<f64> = b
            .iter()
            .enumerate()
            .map(|(i, x)| x * (0.8 + 0.002 * (i % 3) as f64))
            .collect();
        let r = rule(20_000, 150_000, 6, 20, 3);
        assert_eq!(decide(&b[..6], &c[..6], r), Decision::Continue);
        assert_eq!(decide(&b[..12], &c[..12], r), Decision::Faster);
    }
}
