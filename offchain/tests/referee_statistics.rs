//! The referee's statistics (DESIGN 8: "the incumbent's own bytes never PASS; a clear win
//! PASSes in at least 19 of 20"), checked without timing anything: real reads of the
//! stock kernel against itself on `cpu-tiny` (recorded in `data/null-reads-cpu-tiny.json`,
//! see its `command`) are resampled with a seeded generator into thousands of simulated
//! attempts, each decided by the same `speed::decide` and arena rule a validator uses.
//! A null is the recorded pairs as they are; a win of `w` divides each candidate read by `w`.
//!
//! Deterministic: the same data and seed give the same counts on every machine, so this
//! cannot fail by chance (its false-failure rate is zero; it fails only when the decision
//! rule or the arena's numbers change). The real, timed versions of the same properties
//! are `qualify::the_incumbents_own_bytes_never_pass` and
//! `qualify::a_clear_win_passes_at_least_19_of_20`, `--ignored` (minutes each); their
//! figures are in docs/e2e.md.

use cacheon::arena;
use cacheon::qualify::speed::{decide, Decision, Rule};
use cacheon_kernels::rng::Rng;

struct NullReads {
    /// Every recorded pair (baseline ms, candidate ms), all attempts pooled.
    pairs: Vec<(f64, f64)>,
}

fn null_reads() -> NullReads {
    let text = include_str!("data/null-reads-cpu-tiny.json");
    let v: serde_json::Value = serde_json::from_str(text).expect("the recorded reads parse");
    let mut pairs = Vec::new();
    for a in v["attempts"].as_array().expect("attempts") {
        let b = a["baseline_ms"].as_array().expect("baseline_ms");
        let c = a["candidate_ms"].as_array().expect("candidate_ms");
        assert_eq!(b.len(), c.len());
        for (b, c) in b.iter().zip(c) {
            pairs.push((b.as_f64().unwrap(), c.as_f64().unwrap()));
        }
    }
    assert!(pairs.len() >= 40, "too few recorded pairs: {}", pairs.len());
    NullReads { pairs }
}

/// One simulated attempt: pairs drawn with replacement until `decide` answers.
fn simulate(reads: &NullReads, win: f64, rule: Rule, rng: &mut Rng) -> Decision {
    let (mut b, mut c) = (Vec::new(), Vec::new());
    loop {
        let i = (rng.next_u64() % reads.pairs.len() as u64) as usize;
        let (pb, pc) = reads.pairs[i];
        b.push(pb);
        c.push(pc / win);
        let d = decide(&b, &c, rule);
        if d != Decision::Continue {
            return d;
        }
        assert!(b.len() <= rule.max_pairs, "no decision at the read budget");
    }
}

/// How many of `n` simulated attempts at `win` PASS.
fn passes(reads: &NullReads, win: f64, n: usize, seed: u64) -> usize {
    let rule = Rule::of(&arena::arena("cpu-tiny").unwrap().judging);
    let mut rng = Rng::new(seed);
    let p = (0..n)
        .filter(|_| simulate(reads, win, rule, &mut rng) == Decision::Faster)
        .count();
    eprintln!("a win of {win:.3}: {p} of {n} simulated attempts PASS");
    p
}

#[test]
fn the_incumbents_own_reads_pass_in_no_simulated_attempt() {
    let reads = null_reads();
    let n = 2000;
    let p = passes(&reads, 1.0, n, 1);
    assert_eq!(p, 0, "{p} of {n} null attempts passed");
}

/// The recorded reads come from a loaded machine (two compilers on its two cores): a win
/// needs about five margins to be clear there (three margins, 6 %, pass about four times
/// in five).
#[test]
fn a_win_of_five_margins_passes_at_least_19_of_20_simulated_attempts() {
    let reads = null_reads();
    let margin = arena::arena("cpu-tiny").unwrap().judging.min_margin_ppm as f64 / 1e6;
    let n = 2000;
    let p = passes(&reads, 1.0 + 5.0 * margin, n, 2);
    assert!(p * 20 >= n * 19, "{p} of {n} passed");
}

#[test]
fn a_win_below_the_margin_never_passes_a_simulated_attempt() {
    let reads = null_reads();
    let margin = arena::arena("cpu-tiny").unwrap().judging.min_margin_ppm as f64 / 1e6;
    let n = 2000;
    let p = passes(&reads, 1.0 + margin / 2.0, n, 3);
    assert!(p * 100 <= n, "{p} of {n} passed");
}
