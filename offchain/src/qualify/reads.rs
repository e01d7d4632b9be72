//! The speed step's reads: fresh secret prompts per read, one timed read of each lane on
//! them (timed by the referee, each lane frozen as soon as it answered), and the check of a
//! read's tokens against the baseline's.

use std::time::Instant;

use cacheon_kernels::rng::Rng;

use super::findings::{lane_outcome, Outcome, Stage};
use crate::arena::{Arena, LaneBackend, Workload};
use crate::lane::protocol::ReadSpec;
use crate::lane::{Lane, LaneError};
use cacheon_kernels::model::gguf::Gguf;
use cacheon_kernels::model::tokenizer::Tokenizer;

/// Where an attempt's read prompts come from.
pub enum Prompts {
    /// Random token ids (synthetic models, whose tokens mean nothing).
    Random { vocab: usize },
    /// Lines of the arena's corpus in the model's chat format.
    Corpus {
        tokenizer: Box<Tokenizer>,
        lines: Vec<&'static str>,
    },
}

impl Prompts {
    /// The arena's: its corpus through its model's tokenizer (read from the model file),
    /// else random ids below `vocab`.
    pub fn for_arena(arena: Arena, vocab: usize) -> Result<Prompts, String> {
        let (Some(corpus), Some(path)) = (arena.workload.corpus, arena.model_path()) else {
            return Ok(Prompts::Random { vocab });
        };
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let g = Gguf::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let tokenizer = Tokenizer::from_gguf(&g).map_err(|e| format!("{}: {e}", path.display()))?;
        let lines: Vec<&'static str> = corpus.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            return Err("the arena's prompt corpus is empty".into());
        }
        Ok(Prompts::Corpus {
            tokenizer: Box::new(tokenizer),
            lines,
        })
    }

    /// What the attempt's `read`-th workload read runs: every prompt in it fresh for that
    /// read and secret (derived from the attempt's seed), the single sequence's and, where
    /// the workload has a batched part, one a batch row.
    pub fn read(&self, seed: u64, read: u64, w: &Workload) -> ReadSpec {
        let label = format!("workload-prompt/{read}");
        let (batch, batch_steps) = match w.batch {
            Some(b) => (
                (0..b.rows)
                    .map(|r| self.prompt(&format!("{label}/batch/{r}"), seed, b.prompt_len))
                    .collect(),
                b.steps,
            ),
            None => (Vec::new(), 0),
        };
        ReadSpec {
            prompt: self.prompt(&label, seed, w.prompt_len),
            decode_steps: w.decode_steps,
            batch,
            batch_steps,
        }
    }

    /// One prompt of `len` tokens drawn with the secret stream `label`. A corpus prompt is
    /// a line drawn with the seed in the chat format, its last `len` tokens (earlier lines'
    /// prompts before it where it is shorter).
    fn prompt(&self, label: &str, seed: u64, len: usize) -> Vec<u32> {
        let mut rng = Rng::secret(seed, label);
        match self {
            Prompts::Random { vocab } => {
                (0..len).map(|_| rng.below(*vocab as u64) as u32).collect()
            }
            Prompts::Corpus { tokenizer, lines } => {
                let at = rng.below(lines.len() as u64) as usize;
                let mut ids = Vec::new();
                for k in 0..lines.len() {
                    let line = lines[(at + lines.len() - k) % lines.len()];
                    let mut before = tokenizer.encode(&tokenizer.chat_prompt(line));
                    before.extend(ids);
                    ids = before;
                    if ids.len() >= len {
                        break;
                    }
                }
                ids[ids.len().saturating_sub(len)..].to_vec()
            }
        }
    }
}

/// One timed read of each lane on the same prompt.
pub struct TimedPair {
    pub base_ms: f64,
    pub cand_ms: f64,
    pub base_tokens: Vec<u32>,
    pub cand_tokens: Vec<u32>,
    /// The candidate lane's dispatch counts.
    pub dispatch: Vec<u64>,
    /// Next-token logits of every generated position (`[tokens, vocab]`), when asked for.
    pub base_logits: Option<Vec<f32>>,
    pub cand_logits: Option<Vec<f32>>,
}

/// Runs the read on both lanes, candidate first when `cand_first`; the referee times
/// each request itself, from sending it to the reply, and freezes each lane as soon as it
/// has answered. With `keep_logits` both lanes send every generated position's logits;
/// with `hold_logits` both hold them for [`held_rows`].
pub fn timed_pair(
    base: &mut Lane,
    cand: &mut Lane,
    read: &ReadSpec,
    cand_first: bool,
    (keep_logits, hold_logits): (bool, bool),
) -> Result<TimedPair, Outcome> {
    let time = |lane: &mut Lane| {
        let t = Instant::now();
        let r = lane.run(read, keep_logits, hold_logits);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        lane.freeze();
        r.map(|read| (ms, read))
    };
    let base_read = |base: &mut Lane| {
        time(base).map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e.to_string())))
    };
    let cand_read = |cand: &mut Lane| time(cand).map_err(|e| lane_outcome(Stage::Speed, e));
    let (b, c) = if cand_first {
        let c = cand_read(cand)?;
        (base_read(base)?, c)
    } else {
        let b = base_read(base)?;
        (b, cand_read(cand)?)
    };
    Ok(TimedPair {
        base_ms: b.0,
        cand_ms: c.0,
        base_tokens: b.1.tokens,
        cand_tokens: c.1.tokens,
        dispatch: c.1.dispatch_counts,
        base_logits: b.1.logits,
        cand_logits: c.1.logits,
    })
}

/// Rows `rows` of the logits both lanes held from their last read (baseline's, then
/// candidate's), asked in the order the lanes read (`cand_first`), so that the lane that
/// read last is the last to use the GPU; each lane frozen again once it answered.
pub fn held_rows(
    base: &mut Lane,
    cand: &mut Lane,
    rows: &[usize],
    cand_first: bool,
) -> Result<(Vec<f32>, Vec<f32>), Outcome> {
    let fetch = |lane: &mut Lane| {
        let r = lane.logit_rows(rows);
        lane.freeze();
        r
    };
    let base_rows = |base: &mut Lane| {
        fetch(base)
            .map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e.to_string())))
    };
    let cand_rows = |cand: &mut Lane| fetch(cand).map_err(|e| lane_outcome(Stage::Speed, e));
    if cand_first {
        let c = cand_rows(cand)?;
        Ok((base_rows(base)?, c))
    } else {
        let b = base_rows(base)?;
        Ok((b, cand_rows(cand)?))
    }
}

/// The read's sequences as ranges of its generated tokens (and logit rows), each with its
/// prompt.
pub(super) fn spans(read: &ReadSpec) -> Vec<(&[u32], std::ops::Range<usize>)> {
    let mut at = 0;
    read.sequences()
        .into_iter()
        .map(|(prompt, n)| {
            at += n;
            (prompt, at - n..at)
        })
        .collect()
}

/// The rows (generated positions, in the order of the read's tokens) where the two lanes
/// generated the same context: in each sequence, up to and including the first position
/// where their tokens differ (what came after a different token is another context). The
/// tokens' lengths are checked by [`tokens_agree`] first.
pub fn same_context_rows(read: &ReadSpec, base_tokens: &[u32], cand_tokens: &[u32]) -> Vec<usize> {
    let mut rows = Vec::new();
    for (_, span) in spans(read) {
        let (Some(b), Some(c)) = (base_tokens.get(span.clone()), cand_tokens.get(span.clone()))
        else {
            continue;
        };
        let same = b
            .iter()
            .zip(c)
            .position(|(x, y)| x != y)
            .map_or(span.len(), |at| at + 1);
        rows.extend(span.start..span.start + same);
    }
    rows
}

/// The rows of a read whose held logits are judged, in ascending order: every sequence's
/// first position where the two lanes' tokens differ (where a kernel that moved the
/// distribution shows first: its tokens, a near tie there, are another context from then
/// on), and `n` more of the same-context rows `same` (all of them where there are no
/// more), drawn in secret for the attempt's `read`-th read once it is over.
pub fn judged_rows(
    seed: u64,
    read_no: u64,
    (read, base_tokens, cand_tokens): (&ReadSpec, &[u32], &[u32]),
    same: &[usize],
    n: usize,
) -> Vec<usize> {
    let mut picked: std::collections::BTreeSet<usize> = spans(read)
        .into_iter()
        .filter_map(|(_, span)| {
            let (b, c) = (
                base_tokens.get(span.clone())?,
                cand_tokens.get(span.clone())?,
            );
            b.iter()
                .zip(c)
                .position(|(x, y)| x != y)
                .map(|at| span.start + at)
        })
        .collect();
    if same.len() <= n {
        picked.extend(same);
        return picked.into_iter().collect();
    }
    let mut rng = Rng::secret(seed, &format!("read-kl-rows/{read_no}"));
    let mut drawn = std::collections::BTreeSet::new();
    while drawn.len() < n {
        drawn.insert(same[rng.below(same.len() as u64) as usize]);
    }
    picked.extend(drawn);
    picked.into_iter().collect()
}

/// What a read's judged rows gave: the largest and the mean KL (nats) of the candidate's
/// next-token distribution from the baseline's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadKl {
    pub max: f64,
    pub mean: f64,
}

/// Judges rows `rows` of a read (`b` and `c`: those rows' logits from the baseline and the
/// candidate, `[rows.len(), vocab]` each): no row's KL(baseline ‖ candidate) may exceed
/// `bound` (a NaN never is within it). Every judged read is judged this way, so a kernel
/// that is exact only where it guesses it is observed gains nothing: what it computes in a
/// read is what the read is judged on.
pub fn kl_within(
    read: &ReadSpec,
    rows: &[usize],
    (b, c): (&[f32], &[f32]),
    vocab: usize,
    bound: f64,
) -> Result<ReadKl, String> {
    if vocab == 0 || b.len() != rows.len() * vocab || c.len() != b.len() {
        return Err(format!(
            "a timed read's judged logits came as {} and {} values for {} rows of {vocab}",
            b.len(),
            c.len(),
            rows.len()
        ));
    }
    let starts: Vec<usize> = spans(read).into_iter().map(|(_, s)| s.start).collect();
    let mut worst = ReadKl {
        max: 0.0,
        mean: 0.0,
    };
    for (k, &row) in rows.iter().enumerate() {
        let at = k * vocab..(k + 1) * vocab;
        let kl = row_kl(&b[at.clone()], &c[at]);
        if kl.is_nan() || kl > bound {
            let s = starts.iter().rposition(|&st| st <= row).unwrap_or(0);
            return Err(format!(
                "a timed read's next-token distribution at generated position {} of \
                 sequence {s} is {kl:.3e} nats (KL) from the baseline's, more than {bound:.1e}",
                row - starts[s]
            ));
        }
        worst.max = worst.max.max(kl);
        worst.mean += kl / rows.len() as f64;
    }
    Ok(worst)
}

/// Checks a timed read's next-token distributions against the baseline's for the same
/// read where both sent every row with the read ([`kl_within`] on every row where the two
/// generated the same context).
pub fn distributions_agree(
    pair: &TimedPair,
    read: &ReadSpec,
    vocab: usize,
    bound: f64,
) -> Result<ReadKl, String> {
    let (Some(b), Some(c)) = (&pair.base_logits, &pair.cand_logits) else {
        return Err("a timed read came back without the logits asked for".into());
    };
    let rows = read.generated();
    if vocab == 0
        || b.len() != rows * vocab
        || c.len() != b.len()
        || pair.base_tokens.len() != rows
        || pair.cand_tokens.len() != rows
    {
        return Err(format!(
            "a timed read sent {} tokens and {} logits where the baseline sent {} and {} \
             ({rows} positions of {vocab})",
            pair.cand_tokens.len(),
            c.len(),
            pair.base_tokens.len(),
            b.len(),
        ));
    }
    let judged = same_context_rows(read, &pair.base_tokens, &pair.cand_tokens);
    // The same rows are contiguous from each sequence's start: gather them.
    let gather = |all: &[f32]| -> Vec<f32> {
        judged
            .iter()
            .flat_map(|&r| all[r * vocab..(r + 1) * vocab].iter().copied())
            .collect()
    };
    kl_within(read, &judged, (&gather(b), &gather(c)), vocab, bound)
}

/// Largest gap between two logits, relative to the largest logit's magnitude (at least
/// 1), that an honest reordering of the arithmetic could flip: the f32 CPU engine and the
/// bf16 CUDA engine.
fn tie_tolerance(backend: LaneBackend) -> f32 {
    match backend {
        LaneBackend::Cpu => 1e-3,
        LaneBackend::Cuda => 3e-2,
    }
}

/// Checks a timed read's tokens against the baseline's for the same read, sequence by
/// sequence. Where a sequence's tokens first differ, the baseline lane (no candidate code)
/// teacher-forces that sequence to that position: the read stands only if the two tokens
/// were a near tie there, which an honest kernel's rounding can flip. `Err(Ok(detail))`:
/// behaviour changed; `Err(Err(e))`: the baseline lane failed.
pub fn tokens_agree(
    base: &mut Lane,
    read: &ReadSpec,
    base_tokens: &[u32],
    cand_tokens: &[u32],
    backend: LaneBackend,
) -> Result<(), Result<String, LaneError>> {
    if base_tokens.len() != cand_tokens.len() || base_tokens.len() != read.generated() {
        return Err(Ok(format!(
            "a timed read generated {} tokens where the baseline generated {} (the read makes {})",
            cand_tokens.len(),
            base_tokens.len(),
            read.generated()
        )));
    }
    for (s, (prompt, span)) in spans(read).into_iter().enumerate() {
        let (bt, ct) = (&base_tokens[span.clone()], &cand_tokens[span]);
        let Some(at) = bt.iter().zip(ct).position(|(b, c)| b != c) else {
            continue;
        };
        let mut seq = prompt.to_vec();
        seq.extend_from_slice(&bt[..at]);
        let logits = base.teacher_force(&seq, seq.len() - 1).map_err(Err)?;
        base.freeze();
        let (b, c) = (bt[at] as usize, ct[at] as usize);
        let (Some(&lb), Some(&lc)) = (logits.get(b), logits.get(c)) else {
            return Err(Ok(format!(
                "a timed read generated token {c} at position {at} of sequence {s}, outside \
                 the vocabulary"
            )));
        };
        let scale = logits.iter().fold(1.0f32, |m, v| m.max(v.abs()));
        let gap = (lb - lc).abs() / scale;
        if gap > tie_tolerance(backend) {
            return Err(Ok(format!(
                "a timed read generated token {c} at position {at} of sequence {s} where the \
                 baseline generated {b} (their logits differ by {gap:.2e} of the largest, more \
                 than rounding explains)"
            )));
        }
    }
    Ok(())
}

fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    let lse = max + sum.ln();
    row.iter().map(|&v| v as f64 - lse).collect()
}

/// KL(reference ‖ other) of two rows of logits, in nats; infinite where a logit is not
/// finite.
pub fn row_kl(reference: &[f32], other: &[f32]) -> f64 {
    let p = log_softmax(reference);
    let q = log_softmax(other);
    let kl: f64 = p.iter().zip(&q).map(|(lp, lq)| lp.exp() * (lp - lq)).sum();
    if kl.is_finite() {
        kl.max(0.0)
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read() -> ReadSpec {
        ReadSpec {
            prompt: vec![1, 2, 3],
            decode_steps: 4,
            batch: vec![vec![4], vec![5]],
            batch_steps: 3,
        }
    }

    #[test]
    fn judged_rows_take_every_first_difference_and_a_secret_draw_of_the_same_context() {
        let r = read();
        // Rows 0..5 the single sequence, 5..9 and 9..13 the batched ones.
        let base: Vec<u32> = (0..13).collect();
        let mut cand = base.clone();
        cand[2] = 99; // the single sequence differs from its third token on
        cand[11] = 99; // the second batched one from its third
        let same = same_context_rows(&r, &base, &cand);
        assert_eq!(same, [0, 1, 2, 5, 6, 7, 8, 9, 10, 11]);
        let rows = judged_rows(7, 1, (&r, &base, &cand), &same, 3);
        assert!(rows.contains(&2) && rows.contains(&11), "{rows:?}");
        assert!(rows.len() >= 3 && rows.len() <= 5, "{rows:?}");
        assert!(rows.iter().all(|x| same.contains(x)), "{rows:?}");
        assert!(rows.windows(2).all(|w| w[0] < w[1]));
        // The draw is the secret's: the same for the same read, another for the next.
        assert_eq!(rows, judged_rows(7, 1, (&r, &base, &cand), &same, 3));
        let others: Vec<Vec<usize>> = (2..12)
            .map(|k| judged_rows(7, k, (&r, &base, &cand), &same, 3))
            .collect();
        assert!(others.iter().any(|o| *o != rows));
        // Fewer same-context rows than asked for: all of them.
        assert_eq!(judged_rows(7, 1, (&r, &base, &cand), &same, 20), same);
    }
}
