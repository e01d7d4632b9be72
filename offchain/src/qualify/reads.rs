//! The speed step's reads: a fresh secret prompt per read, one timed read of each lane on
//! it (timed by the referee, each lane frozen as soon as it answered), and the check of a
//! read's tokens against the baseline's.

use std::time::Instant;

use cacheon_kernels::rng::Rng;

use super::screens::{lane_outcome, Outcome, Stage};
use crate::arena::{Arena, LaneBackend};
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

    /// The prompt of the attempt's `read`-th workload read: fresh for every read, secret
    /// (derived from the attempt's seed), `len` tokens. A corpus prompt is a line drawn
    /// with the seed in the chat format, its last `len` tokens (earlier lines' prompts
    /// before it where it is shorter).
    pub fn prompt(&self, seed: u64, read: u64, len: usize) -> Vec<u32> {
        let mut rng = Rng::secret(seed, &format!("workload-prompt/{read}"));
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

/// Runs the prompt on both lanes, candidate first when `cand_first`; the referee times
/// each request itself, from sending it to the reply, and freezes each lane as soon as it
/// has answered. With `keep_logits` both lanes send every generated position's logits.
pub fn timed_pair(
    base: &mut Lane,
    cand: &mut Lane,
    prompt: &[u32],
    decode_steps: usize,
    cand_first: bool,
    keep_logits: bool,
) -> Result<TimedPair, Outcome> {
    let time = |lane: &mut Lane| {
        let t = Instant::now();
        let r = lane.run(prompt, decode_steps, keep_logits);
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

/// Checks a timed read's next-token distributions against the baseline's for the same
/// prompt, position by position while the two generated the same context (up to and
/// including the first position where their tokens differ): no position's KL(baseline ‖
/// candidate) may exceed `bound`. Every timed read is judged this way, so a kernel that is
/// exact only where it guesses it is observed gains nothing: what it computes in a read is
/// what the read is judged on. Returns the largest KL seen.
pub fn distributions_agree(pair: &TimedPair, vocab: usize, bound: f64) -> Result<f64, String> {
    let (Some(b), Some(c)) = (&pair.base_logits, &pair.cand_logits) else {
        return Err("a timed read came back without the logits asked for".into());
    };
    let same = pair
        .base_tokens
        .iter()
        .zip(&pair.cand_tokens)
        .position(|(x, y)| x != y)
        .map_or(pair.base_tokens.len(), |at| at + 1);
    if vocab == 0 || b.len() != c.len() || b.len() < same * vocab {
        return Err(format!(
            "a timed read sent {} logits where the baseline sent {} ({} positions of {vocab})",
            c.len(),
            b.len(),
            same
        ));
    }
    let mut worst = 0f64;
    for row in 0..same {
        let span = row * vocab..(row + 1) * vocab;
        let kl = super::pristine::row_kl(&b[span.clone()], &c[span]);
        // NaN is never within the bound.
        if kl.is_nan() || kl > bound {
            return Err(format!(
                "a timed read's next-token distribution at generated position {row} is {kl:.3e} nats \
                 (KL) from the baseline's, more than {bound:.1e}"
            ));
        }
        worst = worst.max(kl);
    }
    Ok(worst)
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

/// Checks a timed read's tokens against the baseline's for the same prompt. Where they
/// first differ, the baseline lane (no candidate code) teacher-forces its own sequence to
/// that position: the read stands only if the two tokens were a near tie there, which an
/// honest kernel's rounding can flip. `Err(Ok(detail))`: behaviour changed;
/// `Err(Err(e))`: the baseline lane failed.
pub fn tokens_agree(
    base: &mut Lane,
    prompt: &[u32],
    base_tokens: &[u32],
    cand_tokens: &[u32],
    backend: LaneBackend,
) -> Result<(), Result<String, LaneError>> {
    if base_tokens.len() != cand_tokens.len() {
        return Err(Ok(format!(
            "a timed read generated {} tokens where the baseline generated {}",
            cand_tokens.len(),
            base_tokens.len()
        )));
    }
    let Some(at) = base_tokens
        .iter()
        .zip(cand_tokens)
        .position(|(b, c)| b != c)
    else {
        return Ok(());
    };
    let mut seq = prompt.to_vec();
    seq.extend_from_slice(&base_tokens[..at]);
    let logits = base.teacher_force(&seq, seq.len() - 1).map_err(Err)?;
    base.freeze();
    let (b, c) = (base_tokens[at] as usize, cand_tokens[at] as usize);
    let (Some(&lb), Some(&lc)) = (logits.get(b), logits.get(c)) else {
        return Err(Ok(format!(
            "a timed read generated token {c} at position {at}, outside the vocabulary"
        )));
    };
    let scale = logits.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    let gap = (lb - lc).abs() / scale;
    if gap <= tie_tolerance(backend) {
        return Ok(());
    }
    Err(Ok(format!(
        "a timed read generated token {c} at position {at} where the baseline generated {b} \
         (their logits differ by {gap:.2e} of the largest, more than rounding explains)"
    )))
}
