//! Blind verdicts: where two operators must agree, the primary PASS is attested as a seal
//! (`attest_sealed`), so the operator taking the reproduction cannot copy its speedup or
//! evidence, nor anchor on them. After the reproduction's PASS the primary's validator opens
//! the seal (`reveal_pass`) and the crown follows; a seal not opened in `RevealTimeout`
//! blocks is void (a stall of its operator) and the reproduction's PASS, public already,
//! becomes the primary.

use super::*;

impl<T: Config> Pallet<T> {
    /// Records `validator`'s sealed primary PASS of its lease on `id`. Returns the weight of
    /// the branch taken.
    pub(crate) fn do_attest_sealed(
        validator: T::AccountId,
        id: ProposalId,
        incumbent_generation: u32,
        seal: cacheon_primitives::Seal,
    ) -> Result<Weight, DispatchError> {
        let attest::Leased {
            mut p,
            lease,
            primary,
            info,
            ..
        } = Self::leased(&validator, id, incumbent_generation)?;
        // Only the primary PASS of an arena where two operators must agree has a reader
        // after it; every other PASS is attested in the open.
        ensure!(
            primary.is_none() && info.config.policy.required_distinct_validators > 1,
            Error::<T>::SealNotExpected
        );
        Self::end_lease(id, &lease);
        if lease.generation != info.generation {
            Self::requeue_stale(id, p, validator, &lease, info.generation);
            return Ok(T::WeightInfo::attest_sealed());
        }
        Self::forget_unregistered_dispute(&mut p);
        if let Some(fail) = &p.disputed {
            Self::deposit_event(Event::AttestationsDisagreed {
                proposal: id,
                pass_validator: validator.clone(),
                pass_evidence: None,
                fail_validator: fail.validator.clone(),
                fail_evidence: fail.evidence_digest,
                reason: fail.reason,
            });
        }
        Self::deposit_event(Event::PassSealed {
            proposal: id,
            validator: validator.clone(),
            seal,
        });
        let sealed = SealedPass {
            validator,
            operator: lease.operator,
            generation: lease.generation,
            seal,
        };
        Self::await_reproduction(
            id,
            &mut p,
            PrimaryPass::Sealed(sealed),
            info.generation,
            None,
        );
        // As after an open primary PASS: the wait ends a proposal nobody may reproduce.
        Self::lift_if_nobody_left(&mut p);
        Proposals::<T>::insert(id, p);
        Ok(T::WeightInfo::attest_sealed())
    }

    /// The reproduction PASSed `id`, whose primary PASS is sealed: the proposal waits
    /// `RevealTimeout` blocks for the seal to be opened. Stores the proposal.
    pub(super) fn await_reveal(
        id: ProposalId,
        mut p: ProposalOf<T>,
        primary: SealedPass<T::AccountId>,
        reproduction: RecordedPass<T::AccountId>,
    ) -> Result<Weight, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        // The reproduction's lease just left the schedule: a pending proposal has one deadline.
        let until = Self::schedule_deadline(id, now.saturating_add(T::RevealTimeout::get()))
            .ok_or(Error::<T>::LeaseScheduleFull)?;
        Self::deposit_event(Event::PassRecorded {
            proposal: id,
            validator: reproduction.validator.clone(),
            speedup_ppm: reproduction.speedup_ppm,
            evidence_digest: reproduction.evidence_digest,
        });
        p.status = ProposalStatus::AwaitingReveal {
            primary,
            reproduction,
            until,
        };
        Proposals::<T>::insert(id, p);
        Ok(T::WeightInfo::attest_pass())
    }

    /// Opens `validator`'s sealed primary PASS of `id` and crowns the proposal with the lower
    /// of the two speedups. Returns the weight of the branch taken.
    pub(crate) fn do_reveal_pass(
        validator: T::AccountId,
        id: ProposalId,
        speedup_ppm: u32,
        evidence_digest: EvidenceDigest,
        attempt_digest: [u8; 32],
        salt: [u8; 32],
    ) -> Result<Weight, DispatchError> {
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let ProposalStatus::AwaitingReveal {
            primary,
            reproduction,
            until,
        } = p.status.clone()
        else {
            return Err(Error::<T>::NotAwaitingReveal.into());
        };
        ensure!(primary.validator == validator, Error::<T>::NotSealer);
        ensure!(
            Validators::<T>::contains_key(&p.arena, &validator),
            Error::<T>::NotValidator
        );
        let seal = cacheon_primitives::pass_seal(
            id,
            &validator,
            primary.generation,
            speedup_ppm,
            &evidence_digest,
            &attempt_digest,
            &salt,
        );
        ensure!(seal == primary.seal, Error::<T>::SealMismatch);
        let info = Arenas::<T>::get(&p.arena).ok_or(Error::<T>::UnknownArena)?;
        Self::check_speedup(&info, speedup_ppm)?;
        ensure!(
            reproduction.attempt_digest != attempt_digest
                && reproduction.evidence_digest != evidence_digest,
            Error::<T>::DuplicateEvidence
        );

        Self::unschedule(id, until);
        Self::deposit_event(Event::PassRevealed {
            proposal: id,
            validator: validator.clone(),
            speedup_ppm,
            evidence_digest,
        });
        let revealed = RecordedPass {
            validator,
            operator: primary.operator,
            speedup_ppm,
            generation: primary.generation,
            evidence_digest,
            attempt_digest,
        };
        if primary.generation != info.generation {
            // Both PASSes measured an incumbent that a crown has since replaced. The sealer
            // sits the proposal out, as the holder of a stale lease does: otherwise it could
            // wait for any crown in the arena, reveal then and so drop an agreed pair, then
            // lease the primary again, for ever and without a stall.
            p.status = ProposalStatus::Queued;
            Self::exclude(&mut p, revealed.operator.clone());
            Self::deposit_event(Event::PassDropped {
                proposal: id,
                generation: info.generation,
            });
            Self::store_or_expire(id, p);
            return Ok(T::WeightInfo::attest_pass());
        }
        if !Validators::<T>::contains_key(&p.arena, &reproduction.validator) {
            // The reproduction's PASS stopped counting (its key was removed): the revealed
            // PASS, public now, waits in the open for another reproduction.
            Self::deposit_event(Event::PassDropped {
                proposal: id,
                generation: info.generation,
            });
            p.status = ProposalStatus::Queued;
            let primary = PrimaryPass::Open(revealed);
            Self::await_reproduction(id, &mut p, primary, info.generation, None);
            Self::lift_if_nobody_left(&mut p);
            Proposals::<T>::insert(id, p);
            return Ok(T::WeightInfo::attest_pass());
        }
        let lower = speedup_ppm.min(reproduction.speedup_ppm);
        Self::crown(
            id,
            p,
            info,
            lower,
            alloc::vec![revealed, reproduction],
            T::WeightInfo::reveal_pass,
        )
    }

    /// `id`'s sealed PASS was not revealed by its deadline (taken off the schedule by the
    /// caller): void. Its operator stalled the proposal (excluded, one attempt unless its
    /// stall counted already, expired at `max_attempts`), and the reproduction's PASS becomes
    /// the primary, in the open, with a fresh wait for its own reproduction — or, if the
    /// generation moved on meanwhile, the proposal goes back to the queue. Blindness is lost
    /// for this proposal: the next reproduction can read the promoted PASS. The operator that
    /// did not reveal pays for it, and the promoted PASS was measured blind by an operator
    /// other than the next one. Stores the proposal.
    pub(super) fn miss_reveal(id: ProposalId, p: ProposalOf<T>) {
        let ProposalStatus::AwaitingReveal {
            primary,
            reproduction,
            ..
        } = p.status.clone()
        else {
            return;
        };
        Self::deposit_event(Event::RevealMissed {
            proposal: id,
            validator: primary.validator,
        });
        let (max_attempts, generation) = Arenas::<T>::get(&p.arena)
            .map(|a| (a.config.policy.max_attempts, a.generation))
            .unwrap_or((1, 0));
        Self::requeue_or_expire(
            id,
            p,
            primary.operator,
            Some((PrimaryPass::Open(reproduction), None)),
            max_attempts,
            generation,
        );
    }
}
