//! Miners: a reveal opens a proposal (commitment, ownership of the content, deposits, the
//! queue; only the ownership where the queue is full), and a proposal's end releases or
//! slashes what it holds.

use super::*;

impl<T: Config> Pallet<T> {
    pub(crate) fn do_reveal(
        miner: T::AccountId,
        arena: ArenaId,
        target: TargetId,
        salt: [u8; 32],
        bundle: BoundedVec<u8, T::MaxBundleBytes>,
    ) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let hash = content_hash(&bundle);
        let c = commitment(&miner, &arena, &target, &hash, &salt);
        let committed_at = Commits::<T>::get(&miner, c)
            .ok_or(Error::<T>::UnknownCommitment)?
            .at;
        ensure!(
            now >= committed_at.saturating_add(T::RevealDelay::get()),
            Error::<T>::RevealTooEarly
        );
        ensure!(
            now <= committed_at.saturating_add(T::RevealWindow::get()),
            Error::<T>::RevealTooLate
        );

        decode_bundle(&bundle, &Self::bundle_limits()).map_err(Error::<T>::from)?;

        let info = Arenas::<T>::get(&arena).ok_or(Error::<T>::UnknownArena)?;
        ensure!(
            info.config.status == Status::Active,
            Error::<T>::ArenaPaused
        );
        let spec = Targets::<T>::get(&target).ok_or(Error::<T>::UnknownTarget)?;
        ensure!(spec.status == Status::Active, Error::<T>::TargetPaused);
        ensure!(
            info.config.targets.contains(&target),
            Error::<T>::TargetNotInArena
        );
        ensure!(
            Self::displacer_of(&arena, &target).is_none(),
            Error::<T>::TargetDisplaced
        );
        // The same bytes against the same judgement would FAIL again: a retry of noise, or
        // of a FAIL wiped by a new proposal, costs no less than any other proposal.
        let replay = FailedContents::<T>::get(&arena, hash)
            .is_some_and(|f| !f.reason.is_disputable() || f.generation == info.generation);
        ensure!(!replay, Error::<T>::FailReplay);

        // The earliest commitment owns the content: a copier that saw the bytes can only
        // commit after them, so revealing first does not make it the owner.
        let owner = ContentOwners::<T>::get(hash);
        if let Some(owner) = &owner {
            ensure!(
                owner.miner == miner || owner.commit_block > committed_at,
                Error::<T>::CopyOfOtherMiner
            );
        }
        let period = Self::reveal_period();
        let reveals = RevealsInPeriod::<T>::get(period, &miner);
        ensure!(
            reveals < T::MaxRevealsPerPeriod::get(),
            Error::<T>::RevealCapReached
        );
        let id = NextProposalId::<T>::get();
        let next_id = id.checked_add(1).ok_or(Error::<T>::Overflow)?;
        // A full queue does not refuse the reveal: refused, it would publish the bytes
        // while the commitment that owns them could lapse unrevealed, and a copier who
        // keeps the queue full could then own them. The proposal is recorded, not queued:
        // its content is owned as any reveal's (the fee pays for that record, which
        // outlives the proposal), its bytes stay stored (deposit held) until it is pruned,
        // so validators screen later copies against them, and the miner commits and
        // reveals again to be measured.
        let mut queue = Queue::<T>::get(&arena);
        let queued = queue.try_push(id).is_ok();
        let bytes = bundle.len() as u32;
        let deposit = T::BundleByteDeposit::get()
            .checked_mul(&BalanceOf::<T>::from(bytes))
            .ok_or(Error::<T>::Overflow)?;
        // Only a queued proposal will be measured, so only it holds the evaluation fee.
        let (per_verdict, evaluation_fee) = if queued {
            Self::evaluation_fee_due(&arena, info.config.policy.required_distinct_validators)?
        } else {
            (Zero::zero(), Zero::zero())
        };

        // Writes: money first (it can still fail on balance), then state.
        T::Currency::transfer(
            &miner,
            &Self::pot_account(),
            T::RevealFee::get(),
            Preservation::Preserve,
        )?;
        T::Currency::hold(&HoldReason::BundleDeposit.into(), &miner, deposit)?;
        Self::hold_evaluation_fee(id, &miner, per_verdict, evaluation_fee)?;
        if queued {
            Queue::<T>::insert(&arena, queue);
        } else {
            Self::schedule_prune(id);
        }
        Self::remove_commit(&miner, c);
        RevealsInPeriod::<T>::insert(period, &miner, reveals + 1);
        NextProposalId::<T>::put(next_id);
        match owner {
            Some(owner) if owner.miner == miner => {}
            previous => {
                if let Some(previous) = previous {
                    Self::deposit_event(Event::ContentReclaimed {
                        content_hash: hash,
                        proposal: id,
                        previous: previous.proposal,
                    });
                    Self::end_copy(previous.proposal, id);
                }
                ContentOwners::<T>::insert(
                    hash,
                    ContentOwner {
                        miner: miner.clone(),
                        proposal: id,
                        commit_block: committed_at,
                    },
                );
            }
        }
        let refs = BundleRefs::<T>::get(hash).unwrap_or(0);
        if refs == 0 {
            Bundles::<T>::insert(hash, bundle);
        }
        BundleRefs::<T>::insert(hash, refs.saturating_add(1));
        Proposals::<T>::insert(
            id,
            Proposal {
                miner: miner.clone(),
                arena: arena.clone(),
                target: target.clone(),
                content_hash: hash,
                commit_block: committed_at,
                reveal_block: now,
                attempts: 0,
                bundle_deposit: deposit,
                status: if queued {
                    ProposalStatus::Queued
                } else {
                    ProposalStatus::NotQueued
                },
                excluded: BoundedVec::new(),
                stalled: BoundedVec::new(),
                disputed: None,
            },
        );
        Self::deposit_event(Event::Revealed {
            proposal: id,
            miner,
            arena: arena.clone(),
            target,
            content_hash: hash,
            bytes,
        });
        if !queued {
            Self::deposit_event(Event::QueueWasFull {
                proposal: id,
                arena,
            });
        }
        Ok(())
    }

    /// Withdraws `id` for `miner` (see [`Pallet::withdraw`]).
    pub(crate) fn do_withdraw(miner: T::AccountId, id: ProposalId) -> DispatchResult {
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        ensure!(p.miner == miner, Error::<T>::NotMiner);
        // Not while a validator holds a lease on it; a proposal waiting for its
        // reproduction may be withdrawn (nothing else ends that wait but a crown).
        ensure!(
            matches!(
                p.status,
                ProposalStatus::Queued | ProposalStatus::ReproductionQueued { .. }
            ),
            Error::<T>::NotWithdrawable
        );
        // Not while a FAIL on it waits for a second opinion: a withdrawal would dodge
        // the verdict (and a copy its slash).
        ensure!(p.disputed.is_none(), Error::<T>::VerdictDisputed);

        Self::end_wait(id, &p.status);
        // A primary PASS waiting for its reproduction stands: its operator measured.
        if let ProposalStatus::ReproductionQueued { primary, .. } = &p.status {
            Self::pay_verdicts(id, &p.miner, [primary.operator()]);
        }
        p.status = ProposalStatus::Withdrawn;
        Self::leave_queue(id, &mut p);
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::Withdrawn { proposal: id });
        Ok(())
    }

    /// A pending proposal whose content an earlier commitment (`original`) just reclaimed is
    /// a copy: it FAILs `CopyOf(original)` at once and forfeits its deposit, as its crown
    /// would. It neither waits ahead of the original nor can be withdrawn to dodge the slash.
    fn end_copy(copy: ProposalId, original: ProposalId) {
        let Some(mut p) = Proposals::<T>::get(copy) else {
            return;
        };
        match &p.status {
            ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => {
                Self::end_lease(copy, lease)
            }
            status if status.is_pending() => Self::end_wait(copy, status),
            _ => return,
        }
        p.status = ProposalStatus::Failed {
            reason: FailReason::CopyOf(original),
        };
        Self::slash_bundle_deposit(copy, &mut p);
        Self::leave_queue(copy, &mut p);
        Proposals::<T>::insert(copy, p);
        Self::deposit_event(Event::CopyEnded {
            proposal: copy,
            original,
        });
    }

    /// The crowned target of `arena` whose displacement set contains `target`, if any.
    pub(crate) fn displacer_of(arena: &ArenaId, target: &TargetId) -> Option<TargetId> {
        Incumbents::<T>::iter_key_prefix(arena).find(|crowned| {
            crowned != target
                && Targets::<T>::get(crowned).is_some_and(|s| s.displaces.contains(target))
        })
    }

    /// Takes a proposal that reached a terminal state out of its queue, returns its bundle
    /// deposit, drops its bundle reference and queues it for pruning. The caller stores the
    /// proposal.
    pub(crate) fn leave_queue(id: ProposalId, p: &mut ProposalOf<T>) {
        Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
        Self::finish(id, p);
    }

    /// What every end of a proposal does besides leaving its queue: the bundle deposit and
    /// what the evaluation fee did not pay back, the bundle reference dropped, the proposal
    /// queued for pruning.
    pub(super) fn finish(id: ProposalId, p: &mut ProposalOf<T>) {
        Self::release_bundle(p);
        Self::return_evaluation_fee(id, &p.miner);
        Self::schedule_prune(id);
    }

    /// Moves a proposal's held bundle deposit to the reward pot (two operators' `Cheating`
    /// or `CopyOf` FAILs, or a copy the chain found): tampering and copying cost the miner
    /// what it put up. The amount is kept ([`SlashedDeposits`]) for an overturn.
    pub(super) fn slash_bundle_deposit(id: ProposalId, p: &mut ProposalOf<T>) {
        let moved = T::Currency::transfer_on_hold(
            &HoldReason::BundleDeposit.into(),
            &p.miner,
            &Self::pot_account(),
            p.bundle_deposit,
            Precision::BestEffort,
            Restriction::Free,
            Fortitude::Force,
        );
        // Should the pot refuse it (it cannot exist below the existential deposit), the
        // deposit stays held and is released with the bundle, as for any other FAIL.
        if let Ok(amount) = moved {
            p.bundle_deposit = Zero::zero();
            SlashedDeposits::<T>::insert(id, amount);
            Self::deposit_event(Event::DepositSlashed {
                proposal: id,
                miner: p.miner.clone(),
                amount,
            });
        }
    }

    /// Returns a proposal's bundle deposit and drops its reference to the stored bundle.
    pub(crate) fn release_bundle(p: &mut ProposalOf<T>) {
        let _ = T::Currency::release(
            &HoldReason::BundleDeposit.into(),
            &p.miner,
            p.bundle_deposit,
            Precision::BestEffort,
        );
        p.bundle_deposit = Zero::zero();
        match BundleRefs::<T>::get(p.content_hash) {
            Some(refs) if refs > 1 => BundleRefs::<T>::insert(p.content_hash, refs - 1),
            _ => {
                BundleRefs::<T>::remove(p.content_hash);
                Bundles::<T>::remove(p.content_hash);
            }
        }
    }
}

impl<T: Config> Pallet<T> {
    /// Drops a pending commitment and releases its deposit.
    pub(crate) fn remove_commit(miner: &T::AccountId, commitment: Commitment) {
        let deposit = Commits::<T>::take(miner, commitment)
            .map(|c| c.deposit)
            .unwrap_or_else(Zero::zero);
        PendingCommits::<T>::mutate_exists(miner, |n| {
            *n = n.and_then(|n| n.checked_sub(1)).filter(|n| *n > 0);
        });
        let _ = T::Currency::release(
            &HoldReason::CommitDeposit.into(),
            miner,
            deposit,
            Precision::BestEffort,
        );
    }
}
