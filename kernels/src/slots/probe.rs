//! The in-place probe: a call whose persistent inputs (every f32 input but the first: the
//! weights, norm gains, caches) the referee changed in place, at a few positions drawn from
//! a secret seed, while the first input (the activations) repeats an earlier call's. The
//! pointers and the shape are those of a real call. A kernel that is a pure function of
//! its call computes the new result; one that answers from anything kept since an earlier
//! call (a private copy of the weights keyed by address or by sampled values, a memo of
//! output rows keyed by input rows) answers for the old contents and is wrong.
//!
//! Few positions, on purpose: a kernel can afford to check a sample of its weights on every
//! call, and a dense change is what such a check finds; a handful of secret positions is
//! found only by reading nearly everything, which is the work the cache was to save. Each
//! change is large (at least 1 in magnitude), so the outputs that depend on it move far
//! beyond any tolerance.

use crate::rng::Rng;
use crate::slots::args::Buffer;
use crate::slots::call::{SlotCall, Tensor};
use crate::slots::SlotId;

/// Positions changed in each persistent input.
pub const CHANGES_PER_INPUT: usize = 4;

/// One changed element: input `input` (ABI order), element `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub input: usize,
    pub at: usize,
}

/// The value a changed element gets: moved by `1 + 2|old|`, away from zero's side.
pub fn changed_value(old: f32) -> f32 {
    if !old.is_finite() {
        return 1.0;
    }
    if old >= 0.0 {
        -(old + 1.0)
    } else {
        1.0 - old
    }
}

/// The changes of one probe of `call`, drawn from `seed`: [`CHANGES_PER_INPUT`] distinct
/// elements of every f32 input but the first. (The engine lends each of those in place,
/// [`Tensor::F32InPlace`], so that the probe can write them; a verification case applies
/// the changes to its own buffers.) An `attention.decode` cache is changed
/// only in rows its sequences attend to (`s < seq_lens[b]`); a call without such rows, or
/// with no persistent f32 input, gets no changes (and no probe).
pub fn changes(seed: u64, call: &SlotCall<'_>) -> Vec<Change> {
    let mut rng = Rng::secret(seed, &format!("probe/{}", call.slot));
    let mut out = Vec::new();
    for (input, t) in call.inputs.iter().enumerate().skip(1) {
        if !matches!(t, Tensor::F32(_) | Tensor::F32InPlace(_)) || t.is_empty() {
            continue;
        }
        let len = t.len();
        let mut picked: Vec<usize> = Vec::new();
        for _ in 0..CHANGES_PER_INPUT * 8 {
            if picked.len() == CHANGES_PER_INPUT || picked.len() == len {
                break;
            }
            let Some(at) = draw(&mut rng, call, input, len) else {
                break;
            };
            if !picked.contains(&at) {
                picked.push(at);
            }
        }
        out.extend(picked.into_iter().map(|at| Change { input, at }));
    }
    out
}

/// One element of input `input` (`len` elements) that the call's outputs depend on.
fn draw(rng: &mut Rng, call: &SlotCall<'_>, input: usize, len: usize) -> Option<usize> {
    if call.slot == SlotId::AttentionDecode && (input == 1 || input == 2) {
        // [batch, max_seq, kv_heads, head_dim]; shape (batch, q_heads, kv_heads, head_dim,
        // max_seq).
        let (batch, kv, hd, max_seq) = (
            call.shape[0] as usize,
            call.shape[2] as usize,
            call.shape[3] as usize,
            call.shape[4] as usize,
        );
        let Some(Tensor::I32(lens)) = call.inputs.get(3) else {
            return None;
        };
        let live: Vec<usize> = (0..batch)
            .filter(|&b| lens.get(b).is_some_and(|&l| l > 0))
            .collect();
        if live.is_empty() || kv * hd == 0 {
            return None;
        }
        let b = live[rng.below(live.len() as u64) as usize];
        let filled = (lens[b] as usize).min(max_seq);
        let s = rng.below(filled as u64) as usize;
        let within = rng.below((kv * hd) as u64) as usize;
        return Some((b * max_seq + s) * kv * hd + within).filter(|&at| at < len);
    }
    Some(rng.below(len as u64) as usize)
}

/// The seed of the probe made before the `index`-th call of a slot in one audit read.
pub fn call_seed(probe_seed: u64, slot: SlotId, index: u64) -> u64 {
    Rng::secret(probe_seed, &format!("probe-call/{slot}/{index}")).next_u64()
}

/// Applies `changes` to owned inputs (what the referee does to its own copy).
pub fn apply(inputs: &mut [Buffer], changes: &[Change]) {
    for c in changes {
        if let Some(Buffer::F32(v)) = inputs.get_mut(c.input) {
            if let Some(x) = v.get_mut(c.at) {
                *x = changed_value(*x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::{cases, reference};

    #[test]
    fn a_probe_changes_every_persistent_input_and_moves_the_outputs() {
        for slot in [
            SlotId::LinearMatmul,
            SlotId::RmsNorm,
            SlotId::AttentionDecode,
        ] {
            let shape = slot.spec().verification_shapes[0];
            let args = cases::generate(slot, shape, 3);
            let changes = args.with_call(|c| changes(9, c));
            assert!(!changes.is_empty(), "{slot}");
            assert!(
                changes.iter().all(|c| c.input >= 1),
                "{slot}: the first input repeats"
            );
            let mut probed = args.clone();
            apply(&mut probed.inputs, &changes);
            assert_ne!(
                reference::compute(&args),
                reference::compute(&probed),
                "{slot}: the probe changes the result"
            );
            // The draw is the seed's: the same seed, the same changes; another, others.
            assert_eq!(changes, args.with_call(|c| super::changes(9, c)));
            assert_ne!(changes, args.with_call(|c| super::changes(10, c)));
        }
    }

    #[test]
    fn a_changed_value_is_far_from_the_old_one() {
        for old in [0.0f32, -0.0, 0.02, -0.02, 3.5, -7.0, f32::NAN] {
            let new = changed_value(old);
            assert!(new.is_finite());
            if old.is_finite() {
                assert!((new - old).abs() >= 1.0, "{old} -> {new}");
            }
        }
    }
}
