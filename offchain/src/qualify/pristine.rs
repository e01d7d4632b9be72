//! The pristine reference T (DESIGN 7 step 9), after the candidate lanes are gone: a
//! fresh lane with the genesis stock kernels only teacher-forces the token sequences the
//! baseline and the candidate generated from one prompt; the candidate's next-token
//! distributions must stay within a KL bound of the pristine engine's and within the stock
//! envelope (a multiple of the baseline's own distance).

use cacheon_primitives::FailReason;

use super::findings::{fail, lane_outcome, Outcome, Stage};
use super::reads::{row_kl, spans};
use super::{AttemptOptions, PristineRecord};
use crate::arena::Arena;
use crate::lane::protocol::{ReadSpec, RunResult};
use crate::lane::{Lane, LaneError};

/// Checks the candidate's read `cand` (and the baseline's `base`, for the envelope), both
/// generated from `read`'s prompts with their logits kept: every sequence of the read is
/// teacher-forced one at a time (the batched ones too).
pub fn check(
    read: &ReadSpec,
    base: &RunResult,
    cand: &RunResult,
    arena: Arena,
    opts: &AttemptOptions,
    vocab: usize,
) -> (Outcome, Option<PristineRecord>) {
    let (w, j) = (arena.workload, arena.judging);
    let rows = read.generated();
    if base.tokens.len() != rows {
        let e = format!(
            "the baseline's read generated {} tokens, not {rows}",
            base.tokens.len()
        );
        return (
            lane_outcome(Stage::Pristine, LaneError::Infrastructure(e)),
            None,
        );
    }
    let outside = cand.tokens.iter().find(|&&t| t as usize >= vocab);
    if cand.tokens.len() != rows || outside.is_some() {
        let detail = match outside {
            Some(t) => format!(
                "the candidate's read generated token {t}, outside the vocabulary of {vocab}"
            ),
            None => format!(
                "the candidate's read generated {} tokens, not {rows}",
                cand.tokens.len()
            ),
        };
        let outcome = Outcome::Fail(fail(Stage::Pristine, FailReason::BehaviourChanged, detail));
        return (outcome, None);
    }
    let pristine = (|| -> Result<(Vec<f32>, Vec<f32>), LaneError> {
        let mut lane = Lane::spawn_ranks(
            &opts.lane_exe,
            arena.backend,
            opts.deadlines,
            arena.workload.world,
        )?;
        lane.load_engine(
            w.model,
            arena.engine_weights(opts.weights_seed()),
            w.max_seq,
            1,
            &[],
        )?;
        lane.seal()?;
        let forced = |lane: &mut Lane, generated: &[u32]| -> Result<Vec<f32>, LaneError> {
            let mut out = Vec::new();
            for (prompt, span) in spans(read) {
                // Positions prompt_len-1 .. end-1 predict the generated tokens.
                let mut seq = prompt.to_vec();
                seq.extend_from_slice(&generated[span.start..span.end - 1]);
                out.extend(lane.teacher_force(&seq, prompt.len() - 1)?);
            }
            Ok(out)
        };
        let b = forced(&mut lane, &base.tokens)?;
        let c = forced(&mut lane, &cand.tokens)?;
        lane.shutdown();
        Ok((b, c))
    })();
    let (p_b, p_c) = match pristine {
        Ok(v) => v,
        Err(e) => {
            let outcome = lane_outcome(Stage::Pristine, LaneError::Infrastructure(e.to_string()));
            return (outcome, None);
        }
    };
    let kl_b = mean_kl(&p_b, base.logits.as_deref().unwrap_or_default(), vocab);
    let kl_c = mean_kl(&p_c, cand.logits.as_deref().unwrap_or_default(), vocab);
    let envelope = j.envelope_factor * kl_b + j.envelope_floor;
    let record = PristineRecord {
        kl_baseline: kl_b,
        kl_candidate: kl_c,
        kl_bound: j.kl_bound,
        envelope,
    };
    if kl_c > j.kl_bound || kl_c > envelope {
        let outcome = Outcome::Fail(fail(
            Stage::Pristine,
            FailReason::BehaviourChanged,
            format!("mean KL from the pristine engine {kl_c:.3e} nats (bound {:.1e}, stock envelope {envelope:.3e})", j.kl_bound),
        ));
        return (outcome, Some(record));
    }
    (Outcome::Pass, Some(record))
}

/// Mean over rows of KL(reference ‖ other), rows of `vocab` logits each. Non-finite
/// logits give an infinite KL.
pub fn mean_kl(reference: &[f32], other: &[f32], vocab: usize) -> f64 {
    if vocab == 0 || reference.len() != other.len() || reference.is_empty() {
        return f64::INFINITY;
    }
    let rows = reference.len() / vocab;
    let total: f64 = (0..rows)
        .map(|r| {
            row_kl(
                &reference[r * vocab..(r + 1) * vocab],
                &other[r * vocab..(r + 1) * vocab],
            )
        })
        .sum();
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
