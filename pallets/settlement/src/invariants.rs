//! `try_state` invariants (DESIGN 4.5), checked after every unit test and by try-runtime.

use crate::*;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;
use frame::traits::fungible::InspectHold;

impl<T: Config> Pallet<T> {
    pub fn do_try_state() -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let mut refs: BTreeMap<ContentHash, u32> = BTreeMap::new();
        let mut queued: BTreeMap<ArenaId, BTreeSet<ProposalId>> = BTreeMap::new();
        let mut crowned: BTreeSet<ProposalId> = BTreeSet::new();
        let mut leases: BTreeMap<T::AccountId, u32> = BTreeMap::new();
        let now = frame_system::Pallet::<T>::block_number();
        let to_prune: BTreeSet<ProposalId> = PruneQueue::<T>::iter_values().map(|e| e.1).collect();
        ensure!(
            PruneHead::<T>::get() <= PruneTail::<T>::get()
                && PruneQueue::<T>::iter_keys()
                    .all(|i| (PruneHead::<T>::get()..PruneTail::<T>::get()).contains(&i)),
            "the prune queue has an entry outside its head and tail"
        );
        for (key, endpoint) in EvidenceEndpoints::<T>::iter() {
            ensure!(
                KeyOperators::<T>::contains_key(&key) && is_valid_endpoint(&endpoint),
                "an evidence endpoint belongs to no registered key, or is not a valid URL"
            );
        }
        for (id, fail) in FailVerdicts::<T>::iter() {
            ensure!(
                Proposals::<T>::get(id).is_some_and(
                    |p| matches!(p.status, ProposalStatus::Failed { reason } if reason == fail.reason)
                ),
                "a recorded FAIL belongs to no proposal that failed for its reason"
            );
        }
        for (id, p) in Proposals::<T>::iter() {
            let deadline = match &p.status {
                ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => {
                    *leases.entry(lease.operator.clone()).or_default() += 1;
                    Some(lease.expires_at)
                }
                ProposalStatus::ReproductionQueued { until, .. }
                | ProposalStatus::AwaitingReveal { until, .. } => Some(*until),
                _ => None,
            };
            Self::blind_verdicts_add_up(&p.status)?;
            if let Some(at) = deadline {
                ensure!(
                    at > now && LeaseDeadlines::<T>::get(at).contains(&id),
                    "a lease, a reproduction wait or a reveal wait has no deadline scheduled"
                );
            }
            let terminal =
                !p.status.is_pending() && !matches!(p.status, ProposalStatus::Crowned { .. });
            ensure!(
                !terminal || to_prune.contains(&id),
                "a terminal proposal is not queued for pruning"
            );
            if p.status.is_pending() || matches!(p.status, ProposalStatus::Crowned { .. }) {
                ensure!(
                    ContentOwners::<T>::contains_key(p.content_hash),
                    "a live proposal's content has no owner"
                );
            }
            if p.status.holds_bundle() {
                *refs.entry(p.content_hash).or_default() += 1;
                ensure!(
                    Bundles::<T>::contains_key(p.content_hash),
                    "a live proposal's bundle is missing"
                );
            } else {
                ensure!(
                    p.bundle_deposit.is_zero(),
                    "a finished proposal still holds its bundle deposit"
                );
            }
            if p.status.is_pending() {
                queued.entry(p.arena.clone()).or_default().insert(id);
            }
            if matches!(p.status, ProposalStatus::Crowned { .. }) {
                crowned.insert(id);
                ensure!(
                    ContentOwners::<T>::get(p.content_hash).is_some_and(|o| o.miner == p.miner),
                    "a crowned proposal's content belongs to another miner"
                );
                let entry = Incumbents::<T>::get(&p.arena, &p.target);
                ensure!(
                    entry.is_some_and(|e| e.proposal == id),
                    "a crowned proposal is not its target's incumbent"
                );
                ensure!(
                    Claims::<T>::contains_key(id),
                    "a crowned proposal has no reward claim"
                );
            }
        }
        let mut keys: BTreeMap<T::AccountId, (T::AccountId, u32)> = BTreeMap::new();
        for (_, key, operator) in Validators::<T>::iter() {
            let entry = keys.entry(key).or_insert((operator.clone(), 0));
            ensure!(entry.0 == operator, "a validator key has two operators");
            entry.1 += 1;
        }
        ensure!(
            KeyOperators::<T>::iter().collect::<BTreeMap<_, _>>() == keys,
            "KeyOperators differs from the registered validator keys"
        );
        ensure!(
            OpenLeases::<T>::iter().collect::<BTreeMap<_, _>>() == leases,
            "an operator's open lease count differs from the leases it holds"
        );
        ensure!(
            BundleRefs::<T>::iter().collect::<BTreeMap<_, _>>() == refs,
            "a bundle's reference count is wrong"
        );
        ensure!(
            Bundles::<T>::iter_keys().all(|hash| refs.contains_key(&hash)),
            "a stored bundle is used by no proposal"
        );
        // The other direction: every scheduled deadline belongs to a proposal whose lease ends
        // or whose wait runs out there, once; every prune entry is a finished proposal, once.
        let mut scheduled: BTreeSet<ProposalId> = BTreeSet::new();
        for (at, ids) in LeaseDeadlines::<T>::iter() {
            for id in ids {
                ensure!(scheduled.insert(id), "a proposal is scheduled twice");
                let due = Proposals::<T>::get(id).and_then(|p| match p.status {
                    ProposalStatus::Primary { lease }
                    | ProposalStatus::Reproduction { lease, .. } => Some(lease.expires_at),
                    ProposalStatus::ReproductionQueued { until, .. }
                    | ProposalStatus::AwaitingReveal { until, .. } => Some(until),
                    _ => None,
                });
                ensure!(
                    due == Some(at),
                    "a deadline is scheduled for no lease or wait"
                );
            }
        }
        let mut queued_for_pruning: BTreeSet<ProposalId> = BTreeSet::new();
        for (_, (_, id)) in PruneQueue::<T>::iter() {
            ensure!(
                queued_for_pruning.insert(id),
                "a proposal is queued for pruning twice"
            );
            ensure!(
                Proposals::<T>::get(id).is_none_or(|p| !p.status.is_pending()
                    && !matches!(p.status, ProposalStatus::Crowned { .. })),
                "a live proposal is queued for pruning"
            );
        }
        if let Some(run) = Payout::<T>::get() {
            ensure!(
                (run.next as usize) <= Weights::<T>::get().len(),
                "the payout run is past the weight vector"
            );
        }
        let cleared = RevealsClearedBelow::<T>::get();
        ensure!(
            RevealsInPeriod::<T>::iter_keys().all(|(period, _)| period >= cleared),
            "reveal counts of a cleared period remain"
        );
        let mut bonds: BTreeMap<T::AccountId, BalanceOf<T>> = BTreeMap::new();
        for (_, operator, amount) in OperatorBonds::<T>::iter() {
            ensure!(!amount.is_zero(), "an operator bond of nothing is stored");
            let sum = bonds.entry(operator).or_insert_with(Zero::zero);
            *sum = sum.saturating_add(amount);
        }
        // Unbonding chunks are still held: bonds and chunks add up to what is held.
        for (_, operator, chunks) in Unbonding::<T>::iter() {
            ensure!(
                !chunks.is_empty() && chunks.iter().all(|c| !c.amount.is_zero()),
                "an empty unbonding list or chunk is stored"
            );
            ensure!(
                chunks.windows(2).all(|w| w[0].release_at < w[1].release_at),
                "unbonding chunks are not in release order"
            );
            let sum = bonds.entry(operator).or_insert_with(Zero::zero);
            *sum = chunks
                .iter()
                .fold(*sum, |sum, c| sum.saturating_add(c.amount));
        }
        for (operator, sum) in bonds {
            ensure!(
                T::Currency::balance_on_hold(&HoldReason::OperatorBond.into(), &operator) == sum,
                "an operator's bonds and unbonding chunks differ from what is held from it"
            );
        }
        for (arena, hash, failed) in FailedContents::<T>::iter() {
            ensure!(
                Proposals::<T>::get(failed.proposal).is_some_and(|p| p.arena == arena
                    && p.content_hash == hash
                    && match p.status {
                        ProposalStatus::Failed { reason } => reason == failed.reason,
                        ProposalStatus::Revoked { reason, .. } => reason == failed.reason,
                        _ => false,
                    }),
                "a FAIL replay record belongs to no proposal that failed (or was revoked) for its reason"
            );
        }
        for (id, amount) in SlashedDeposits::<T>::iter() {
            ensure!(
                !amount.is_zero()
                    && Proposals::<T>::get(id).is_some_and(|p| matches!(
                        p.status,
                        ProposalStatus::Failed {
                            reason: FailReason::Cheating | FailReason::CopyOf(_)
                        }
                    )),
                "a forfeited deposit belongs to no proposal that failed for an act"
            );
        }
        for (arena, q) in Queue::<T>::iter() {
            let set: BTreeSet<_> = q.iter().copied().collect();
            ensure!(set.len() == q.len(), "a proposal is queued twice");
            // The lifetime sweep reads only each queue's front: the queue is in reveal order.
            let reveals: Vec<BlockNumberFor<T>> = q
                .iter()
                .filter_map(|id| Proposals::<T>::get(id).map(|p| p.reveal_block))
                .collect();
            ensure!(
                reveals.windows(2).all(|w| w[0] <= w[1]),
                "an arena's queue is not in reveal order"
            );

            ensure!(
                queued.remove(&arena).unwrap_or_default() == set,
                "an arena's queue does not match its pending proposals"
            );
        }
        ensure!(
            queued.values().all(|s| s.is_empty()),
            "a pending proposal is missing from its queue"
        );

        let mut entries = 0u32;
        for (arena, target, entry) in Incumbents::<T>::iter() {
            entries += 1;
            ensure!(
                crowned.contains(&entry.proposal),
                "an incumbent entry has no live crown"
            );
            ensure!(
                Bundles::<T>::contains_key(entry.content_hash),
                "an incumbent entry's bundle is missing"
            );
            ensure!(
                Self::displacer_of(&arena, &target).is_none(),
                "an incumbent entry is displaced by another"
            );
        }
        ensure!(
            entries as usize == crowned.len(),
            "crowns and incumbent entries differ"
        );
        ensure!(
            Claims::<T>::count() == entries,
            "claims and incumbent entries differ"
        );

        Self::challenges_add_up()?;
        Self::fees_add_up()?;

        let weights = Weights::<T>::get();
        if !weights.is_empty() {
            let sum: u64 = weights.iter().map(|(_, w)| *w as u64).sum();
            ensure!(sum == 1_000_000, "weights do not sum to 1_000_000");
            ensure!(weights.iter().all(|(_, w)| *w > 0), "a weight is zero");
        }
        Ok(())
    }

    /// Only pending proposals hold an evaluation fee, and what each miner's proposals hold
    /// is what the currency holds from it for that reason.
    fn fees_add_up() -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let mut held: BTreeMap<T::AccountId, BalanceOf<T>> = BTreeMap::new();
        for (id, escrow) in FeeEscrows::<T>::iter() {
            let p = Proposals::<T>::get(id).ok_or("an evaluation fee is held for no proposal")?;
            ensure!(
                p.status.is_pending(),
                "a proposal that ended still holds an evaluation fee"
            );
            let sum = held.entry(p.miner).or_insert_with(Zero::zero);
            *sum = sum.saturating_add(escrow.left);
        }
        for p in Proposals::<T>::iter_values() {
            let sum = held.get(&p.miner).copied().unwrap_or_else(Zero::zero);
            ensure!(
                T::Currency::balance_on_hold(&HoldReason::EvaluationFee.into(), &p.miner) == sum,
                "a miner's held evaluation fees differ from what its proposals hold"
            );
        }
        Ok(())
    }

    /// A sealed primary PASS and the PASS of its reproduction come from two operators and
    /// measured the same generation; a lease on a reproduction is never the primary's
    /// operator's; the PASSes of a crown come from two operators too.
    fn blind_verdicts_add_up(
        status: &StatusOf<T>,
    ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        match status {
            ProposalStatus::AwaitingReveal {
                primary,
                reproduction,
                ..
            } => {
                ensure!(
                    primary.operator != reproduction.operator,
                    "a sealed PASS's operator reproduced it"
                );
                ensure!(
                    primary.generation == reproduction.generation,
                    "a sealed PASS and its reproduction measured different generations"
                );
            }
            ProposalStatus::Reproduction { primary, lease, .. } => {
                ensure!(
                    primary.operator() != &lease.operator,
                    "a primary PASS's operator leases its reproduction"
                );
            }
            ProposalStatus::Crowned { passes, .. } if passes.len() == 2 => {
                ensure!(
                    passes[0].operator != passes[1].operator,
                    "both PASSes of a crown come from one operator"
                );
            }
            _ => {}
        }
        Ok(())
    }

    /// Every open challenge is indexed once (its crown's, its arena's, its deadline's), its
    /// bond is held, no two of its answers agree (they would have ended it), and no operator
    /// that crowned it has leased or answered it.
    fn challenges_add_up() -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let now = frame_system::Pallet::<T>::block_number();
        let mut per_arena: BTreeMap<ArenaId, BTreeSet<ChallengeId>> = BTreeMap::new();
        let mut bonds: BTreeMap<T::AccountId, BalanceOf<T>> = BTreeMap::new();
        for (id, c) in Challenges::<T>::iter() {
            ensure!(
                id < NextChallengeId::<T>::get(),
                "a challenge id is not below the counter"
            );
            ensure!(
                CrownChallenges::<T>::get(c.proposal) == Some(id),
                "a challenge is not its crown's open challenge"
            );
            ensure!(
                c.deadline > now && ChallengeDeadlines::<T>::get(c.deadline).contains(&id),
                "an open challenge has no deadline scheduled"
            );
            ensure!(
                Proposals::<T>::get(c.proposal).is_none_or(|p| matches!(
                    p.status,
                    ProposalStatus::Crowned { .. } | ProposalStatus::Retired { .. }
                )),
                "a challenged proposal is neither crowned nor retired"
            );
            per_arena.entry(c.arena.clone()).or_default().insert(id);
            let held = bonds.entry(c.challenger.clone()).or_insert_with(Zero::zero);
            *held = held.saturating_add(c.bond);
            let mut operators: BTreeSet<&T::AccountId> = BTreeSet::new();
            for operator in c
                .leases
                .iter()
                .map(|l| &l.operator)
                .chain(c.answers.iter().map(|a| &a.operator))
            {
                ensure!(
                    operators.insert(operator),
                    "an operator holds two turns of one challenge"
                );
                ensure!(
                    !c.passes.iter().any(|p| p.operator == *operator),
                    "an operator judges a crown its own PASS made"
                );
            }
            let agreeing =
                |f: fn(&Verdict) -> bool| c.answers.iter().filter(|a| f(&a.verdict)).count();
            ensure!(
                agreeing(|v| matches!(v, Verdict::Pass { .. })) < 2
                    && agreeing(
                        |v| matches!(v, Verdict::Fail { reason } if !reason.is_disputable())
                    ) < 2,
                "two answers of an open challenge agree"
            );
        }
        for (arena, open) in OpenChallenges::<T>::iter() {
            let set: BTreeSet<ChallengeId> = open.iter().copied().collect();
            ensure!(
                !set.is_empty() && set.len() == open.len(),
                "an arena's open challenges are empty or list one twice"
            );
            ensure!(
                per_arena.remove(&arena).unwrap_or_default() == set,
                "an arena's open challenges differ from its challenges"
            );
        }
        ensure!(
            per_arena.is_empty(),
            "an open challenge is missing from its arena's list"
        );
        for (proposal, id) in CrownChallenges::<T>::iter() {
            ensure!(
                Challenges::<T>::get(id).is_some_and(|c| c.proposal == proposal),
                "a crown's challenge is not open, or is another crown's"
            );
        }
        let mut scheduled: BTreeSet<ChallengeId> = BTreeSet::new();
        for (at, ids) in ChallengeDeadlines::<T>::iter() {
            ensure!(
                !ids.is_empty(),
                "an empty challenge deadline block is stored"
            );
            for id in ids {
                ensure!(scheduled.insert(id), "a challenge is scheduled twice");
                ensure!(
                    Challenges::<T>::get(id).is_some_and(|c| c.deadline == at),
                    "a challenge deadline is scheduled for no open challenge"
                );
            }
        }
        for (challenger, sum) in bonds {
            ensure!(
                T::Currency::balance_on_hold(&HoldReason::ChallengeBond.into(), &challenger) == sum,
                "a challenger's open challenges differ from what is held from it"
            );
        }
        Ok(())
    }
}
