//! The speed verdict (DESIGN 7 step 7): interleaved reads B, C, B′, C′, … of the same
//! workload on a baseline and a candidate lane; speedup = throughput(C) / throughput(B) =
//! time(B) / time(C). Each pair gives `ln(tB / tC)`; their mean and a Student-t 95 %
//! interval decide: PASS once the interval's lower end is at or above `ln(1 + margin)`,
//! FAIL `NotFaster` once its upper end is below it or when the read budget is spent
//! undecided. A decision counts only while the baseline's bookends (the fastest read of
//! each half) agree within `max_noise`: past it the reads go on, so a burst of interference
//! ends up inside one half and stops mattering, and only a baseline still drifting when the
//! read budget is spent is NoDecision.

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
/// fastest read is what the machine can do; a spike in one read is not drift.
pub fn baseline_drift_ppm(baseline: &[f64]) -> u64 {
    if baseline.len() < 4 {
        return 0;
    }
    let half = baseline.len() / 2;
    let first = fastest(&baseline[..half]);
    let last = fastest(&baseline[baseline.len() - half..]);
    (((last / first).ln().abs().exp() - 1.0) * 1e6) as u64
}

/// Decides from the reads so far.
pub fn decide(
    baseline: &[f64],
    candidate: &[f64],
    min_margin_ppm: u32,
    max_noise_ppm: u32,
    min_pairs: usize,
    max_pairs: usize,
) -> Decision {
    let iv = interval(baseline, candidate);
    if iv.pairs < min_pairs {
        return Decision::Continue;
    }
    let bar = 1.0 + min_margin_ppm as f64 / 1e6;
    let decided = if iv.low >= bar {
        Some(Decision::Faster)
    } else if iv.high < bar || iv.pairs >= max_pairs {
        // Proven not faster, or not proven faster within the read budget.
        Some(Decision::NotFaster)
    } else {
        None
    };
    match decided {
        None => Decision::Continue,
        Some(d) => {
            let drift_ppm = baseline_drift_ppm(baseline);
            if drift_ppm <= max_noise_ppm as u64 {
                d
            } else if iv.pairs < max_pairs {
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

    #[test]
    fn a_clear_win_passes_and_a_tie_fails() {
        let b = noisy(100.0, 8, 1, 0.02);
        let c = noisy(80.0, 8, 2, 0.02);
        assert_eq!(decide(&b, &c, 20_000, 50_000, 6, 30), Decision::Faster);
        let iv = interval(&b, &c);
        assert!(iv.low > 1.2 && iv.high < 1.3, "{iv:?}");

        let c = noisy(100.0, 8, 3, 0.02);
        assert_eq!(decide(&b, &c, 20_000, 50_000, 6, 30), Decision::NotFaster);
    }

    #[test]
    fn undecided_reads_continue_until_the_budget() {
        // About 2 % faster with 2 % noise sits on the bar: undecided at first.
        let b = vec![100.0; 6];
        let c: Vec<f64> = [1.00, 1.04, 1.02, 0.99, 1.05, 1.02]
            .iter()
            .map(|r| 100.0 / r)
            .collect();
        assert_eq!(decide(&b, &c, 20_000, 50_000, 6, 30), Decision::Continue);
        assert_eq!(decide(&b, &c, 20_000, 50_000, 3, 6), Decision::NotFaster);
        assert_eq!(
            decide(&b[..5], &c[..5], 20_000, 50_000, 6, 30),
            Decision::Continue
        );
    }

    #[test]
    fn drifting_baseline_reads_on_and_is_noise_never_a_pass() {
        let b: Vec<f64> = (0..8).map(|i| 100.0 + 3.0 * i as f64).collect();
        let c: Vec<f64> = b.iter().map(|x| x * 0.7).collect();
        assert_eq!(decide(&b, &c, 20_000, 50_000, 6, 30), Decision::Continue);
        assert!(
            matches!(decide(&b, &c, 20_000, 50_000, 6, 8), Decision::Noise { drift_ppm } if drift_ppm > 50_000)
        );
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
        assert_eq!(
            decide(&b[..6], &c[..6], 20_000, 150_000, 6, 20),
            Decision::Continue
        );
        assert_eq!(
            decide(&b[..12], &c[..12], 20_000, 150_000, 6, 20),
            Decision::Faster
        );
    }
}
