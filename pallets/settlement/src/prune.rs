//! Bounded pruning in `on_idle`: terminal proposals once `ProposalRetention` has passed, and
//! the reveal counts of past reveal periods. Nothing here decides an outcome; it only deletes
//! records no rule reads any more, oldest first, within the weight the block has left.

use crate::*;

/// Reveal-count entries cleared per `on_idle` call at most.
const REVEALS_PER_CALL: u32 = 64;

impl<T: Config> Pallet<T> {
    /// Queues a proposal that just reached a terminal state for deletion after
    /// `ProposalRetention` blocks.
    pub(crate) fn schedule_prune(id: ProposalId) {
        let now = frame_system::Pallet::<T>::block_number();
        let tail = PruneTail::<T>::get();
        PruneQueue::<T>::insert(tail, (now, id));
        PruneTail::<T>::put(tail.saturating_add(1));
    }

    /// Prunes what `remaining` allows; returns the weight used.
    pub(crate) fn prune(now: BlockNumberFor<T>, remaining: Weight) -> Weight {
        // One more read than the benchmark's: the entry that is not due yet and ends the walk.
        let read = T::DbWeight::get().reads(1);
        // Beyond the benchmark's proposals: a `NotQueued` one still holds its bundle, whose
        // release reads and writes the hold, the account, the reference count and the bytes.
        let release = T::DbWeight::get().reads_writes(4, 4);
        let mut used = T::WeightInfo::prune_proposals(0).saturating_add(read);
        if !remaining.all_gte(used) {
            return Weight::zero();
        }
        let (head, tail) = (PruneHead::<T>::get(), PruneTail::<T>::get());
        let mut next = head;
        let retention = T::ProposalRetention::get();
        while next < tail {
            let k = (next - head + 1) as u32;
            let cost = T::WeightInfo::prune_proposals(k)
                .saturating_add(read)
                .saturating_add(release.saturating_mul(k as u64));
            if !remaining.all_gte(cost) {
                break;
            }
            let Some((ended, id)) = PruneQueue::<T>::get(next) else {
                next += 1;
                continue;
            };
            if ended.saturating_add(retention) > now {
                break;
            }
            Self::prune_proposal(id);
            PruneQueue::<T>::remove(next);
            next += 1;
            used = cost;
        }
        if next != head {
            PruneHead::<T>::put(next);
        }

        let cost = T::WeightInfo::clear_reveal_period(REVEALS_PER_CALL);
        let period = Self::reveal_period();
        let below = RevealsClearedBelow::<T>::get();
        if below < period && remaining.all_gte(used.saturating_add(cost)) {
            let r = RevealsInPeriod::<T>::clear_prefix(below, REVEALS_PER_CALL, None);
            if r.maybe_cursor.is_none() {
                RevealsClearedBelow::<T>::put(below.saturating_add(1));
            }
            used = used.saturating_add(cost);
        }
        used
    }

    /// Deletes a terminal proposal. The content it owned stays owned (a later copy is still
    /// refused) unless it FAILed for what it is, whatever the incumbent (`Build`, `Abi`,
    /// `Policy`, `Cheating`: a copy of it gains nothing), and no live proposal uses the content
    /// any more (no bundle reference). A FAIL relative to the incumbent of its time
    /// (`NotFaster`, ...) keeps its owner: the same bytes may win later, and only for their
    /// author.
    fn prune_proposal(id: ProposalId) {
        let Some(mut p) = Proposals::<T>::get(id) else {
            return;
        };
        if p.status.is_pending() || matches!(p.status, ProposalStatus::Crowned { .. }) {
            // Cannot happen (only terminal proposals are queued for pruning); keep it.
            return;
        }
        // The one terminal proposal that still holds its bytes (for the copy screens).
        if matches!(p.status, ProposalStatus::NotQueued) {
            Self::release_bundle(&mut p);
        }
        if matches!(p.status, ProposalStatus::Failed { reason } if !reason.is_disputable())
            && !BundleRefs::<T>::contains_key(p.content_hash)
            && ContentOwners::<T>::get(p.content_hash).is_some_and(|o| o.proposal == id)
        {
            ContentOwners::<T>::remove(p.content_hash);
        }
        Self::forget_failed_content(id, &p);
        Proposals::<T>::remove(id);
        FailVerdicts::<T>::remove(id);
        SlashedDeposits::<T>::remove(id);
        Self::deposit_event(Event::ProposalPruned { proposal: id });
    }

    /// Drops the replay record of `p`'s bytes if `p` (id `id`) made it.
    pub(crate) fn forget_failed_content(id: ProposalId, p: &ProposalOf<T>) {
        if FailedContents::<T>::get(&p.arena, p.content_hash).is_some_and(|f| f.proposal == id) {
            FailedContents::<T>::remove(&p.arena, p.content_hash);
        }
    }

    /// The current reveal period (blocks / `RevealPeriod`).
    pub fn reveal_period() -> u32 {
        let now = frame_system::Pallet::<T>::block_number();
        (now / T::RevealPeriod::get().max(One::one())).saturated_into()
    }
}
