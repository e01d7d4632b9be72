//! The pallet's rules: configuration checks, reveal, leases, attestations and crowns.
//! Every function verifies first and writes last; dispatch is transactional, so an error after
//! a write still leaves storage unchanged.

use crate::*;
use alloc::{collections::BTreeSet, vec::Vec};
use cacheon_primitives::{commitment, content_hash, decode_bundle, is_valid_id};

/// Blocks from the first choice in which a deadline (a lease's end, a reproduction wait's) may
/// be scheduled when the first choice is full. Every pending proposal has at most one
/// deadline, so with `MaxLeasesPerBlock × DEADLINE_TRIES ≥ MaxArenas × MaxQueueLen` (checked
/// by `integrity_test`) a deadline always finds room: nobody can crowd out a lease or a PASS
/// by filling the schedule.
pub(crate) const DEADLINE_TRIES: u32 = 64;

/// A reproduction's primary PASS and its wait's deadline.
type PrimaryWait<T> = (
    RecordedPass<<T as frame_system::Config>::AccountId>,
    BlockNumberFor<T>,
);

impl<T: Config> Pallet<T> {
    // ---- Configuration ----

    pub(crate) fn do_set_target(spec: TargetSpec) -> DispatchResult {
        ensure!(is_valid_id(&spec.id), Error::<T>::InvalidId);
        ensure!(
            spec.members
                .iter()
                .chain(spec.displaces.iter())
                .chain(spec.allowed_features.iter())
                .all(|i| is_valid_id(i)),
            Error::<T>::InvalidId
        );
        match spec.kind {
            TargetKind::Slot => {
                ensure!(
                    spec.members.len() == 1 && spec.members[0] == spec.id,
                    Error::<T>::SingletonMembers
                )
            }
            TargetKind::Atomic => {
                let distinct: BTreeSet<_> = spec.members.iter().collect();
                ensure!(
                    distinct.len() >= 2 && distinct.len() == spec.members.len(),
                    Error::<T>::AtomicMembers
                );
                ensure!(
                    spec.members.iter().all(|m| spec.displaces.contains(m)),
                    Error::<T>::AtomicMustDisplaceMembers
                );
            }
        }
        for d in &spec.displaces {
            ensure!(
                *d != spec.id && Targets::<T>::contains_key(d),
                Error::<T>::UnknownDisplaced
            );
        }
        let exists = Targets::<T>::contains_key(&spec.id);
        ensure!(
            exists || Targets::<T>::count() < T::MaxTargets::get(),
            Error::<T>::TooManyTargets
        );
        if exists {
            ensure!(
                Self::displacement_is_acyclic(&spec),
                Error::<T>::DisplacementCycle
            );
            // A crowned entry of this target may not start displacing another crowned entry.
            let conflict = Arenas::<T>::iter_keys().any(|arena| {
                Incumbents::<T>::contains_key(&arena, &spec.id)
                    && spec
                        .displaces
                        .iter()
                        .any(|d| Incumbents::<T>::contains_key(&arena, d))
            });
            ensure!(!conflict, Error::<T>::DisplacesCrowned);
        }

        Self::deposit_event(Event::TargetSet {
            target: spec.id.clone(),
            kind: spec.kind,
            status: spec.status,
        });
        Targets::<T>::insert(spec.id.clone(), spec);
        Ok(())
    }

    /// Whether the displacement graph stays a DAG with `spec` in place of its stored version.
    /// A new target cannot close a cycle (nothing displaces it yet), so only updates are checked.
    fn displacement_is_acyclic(spec: &TargetSpec) -> bool {
        // Depth-first search from `spec`'s displaced targets: reaching `spec.id` is a cycle.
        let mut stack: Vec<TargetId> = spec.displaces.to_vec();
        let mut seen: BTreeSet<TargetId> = BTreeSet::new();
        while let Some(t) = stack.pop() {
            if t == spec.id {
                return false;
            }
            if !seen.insert(t.clone()) {
                continue;
            }
            if let Some(next) = Targets::<T>::get(&t) {
                stack.extend(next.displaces);
            }
        }
        true
    }

    pub(crate) fn do_set_arena(config: ArenaConfigOf<T>) -> DispatchResult {
        ensure!(
            is_valid_id(&config.id) && is_valid_id(&config.hardware),
            Error::<T>::InvalidId
        );
        for t in &config.targets {
            ensure!(
                Targets::<T>::contains_key(t),
                Error::<T>::ArenaTargetUnknown
            );
        }
        let p = &config.policy;
        ensure!(
            !p.lease_blocks.is_zero()
                && (1..=MAX_ATTEMPTS_BOUND).contains(&p.max_attempts)
                && (1..=2).contains(&p.required_distinct_validators)
                && p.min_margin_ppm < u32::MAX - PPM_ONE,
            Error::<T>::InvalidPolicy
        );
        let existing = Arenas::<T>::get(&config.id);
        ensure!(
            existing.is_some() || Arenas::<T>::count() < T::MaxArenas::get(),
            Error::<T>::TooManyArenas
        );

        let (generation, validators) = existing
            .map(|a| (a.generation, a.validators))
            .unwrap_or((0, 0));
        Self::deposit_event(Event::ArenaSet {
            arena: config.id.clone(),
            status: config.status,
        });
        Arenas::<T>::insert(
            config.id.clone(),
            ArenaInfo {
                config,
                generation,
                validators,
            },
        );
        Ok(())
    }

    pub(crate) fn do_add_validator(
        arena: ArenaId,
        validator: T::AccountId,
        operator: T::AccountId,
    ) -> DispatchResult {
        let mut info = Arenas::<T>::get(&arena).ok_or(Error::<T>::UnknownArena)?;
        ensure!(
            !Validators::<T>::contains_key(&arena, &validator),
            Error::<T>::AlreadyValidator
        );
        ensure!(
            info.validators < T::MaxValidators::get(),
            Error::<T>::TooManyValidators
        );
        let key = KeyOperators::<T>::get(&validator);
        ensure!(
            key.as_ref().is_none_or(|(o, _)| *o == operator),
            Error::<T>::OperatorMismatch
        );
        info.validators += 1;
        Validators::<T>::insert(&arena, &validator, &operator);
        KeyOperators::<T>::insert(
            &validator,
            (&operator, key.map_or(1, |(_, n)| n.saturating_add(1))),
        );
        Arenas::<T>::insert(&arena, info);
        Self::deposit_event(Event::ValidatorAdded {
            arena,
            validator,
            operator,
        });
        Ok(())
    }

    pub(crate) fn check_emissions(policy: &EmissionsPolicyOf<T>) -> DispatchResult {
        let payout_blocks: BlockNumberFor<T> =
            T::MaxClaims::get().div_ceil(PAYOUTS_PER_BLOCK).into();
        ensure!(
            policy.epoch_blocks > payout_blocks && !policy.half_life_blocks.is_zero(),
            Error::<T>::InvalidEmissions
        );
        Ok(())
    }

    // ---- Miners ----

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
        let mut queue = Queue::<T>::get(&arena);
        ensure!(
            (queue.len() as u32) < T::MaxQueueLen::get(),
            Error::<T>::QueueFull
        );
        let id = NextProposalId::<T>::get();
        let next_id = id.checked_add(1).ok_or(Error::<T>::Overflow)?;
        let bytes = bundle.len() as u32;
        let deposit = T::BundleByteDeposit::get()
            .checked_mul(&BalanceOf::<T>::from(bytes))
            .ok_or(Error::<T>::Overflow)?;

        // Writes: money first (it can still fail on balance), then state.
        T::Currency::transfer(
            &miner,
            &Self::pot_account(),
            T::EvalFee::get(),
            Preservation::Preserve,
        )?;
        T::Currency::hold(&HoldReason::BundleDeposit.into(), &miner, deposit)?;
        Self::remove_commit(&miner, c);
        queue.try_push(id).map_err(|_| Error::<T>::QueueFull)?;
        Queue::<T>::insert(&arena, queue);
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
                status: ProposalStatus::Queued,
                excluded: BoundedVec::new(),
                stalled: BoundedVec::new(),
                disputed: None,
            },
        );
        Self::deposit_event(Event::Revealed {
            proposal: id,
            miner,
            arena,
            target,
            content_hash: hash,
            bytes,
        });
        Ok(())
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

    /// What every end of a proposal does besides leaving its queue: the bundle deposit back,
    /// the bundle reference dropped, the proposal queued for pruning.
    fn finish(id: ProposalId, p: &mut ProposalOf<T>) {
        Self::release_bundle(p);
        Self::schedule_prune(id);
    }

    /// Moves a proposal's held bundle deposit to the reward pot (a `Cheating` or `CopyOf`
    /// FAIL): tampering and copying cost the miner what it put up.
    fn slash_bundle_deposit(id: ProposalId, p: &mut ProposalOf<T>) {
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

    // ---- Validators ----

    /// Leases `id`'s next phase to `validator`. Returns how many queue entries ahead of it
    /// were passed over (for the call's actual weight).
    pub(crate) fn do_claim(validator: T::AccountId, id: ProposalId) -> Result<u32, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let operator =
            Validators::<T>::get(&p.arena, &validator).ok_or(Error::<T>::NotValidator)?;
        let info = Arenas::<T>::get(&p.arena).ok_or(Error::<T>::UnknownArena)?;
        let me = Claimant::<T> {
            validator,
            operator,
            required: info.config.policy.required_distinct_validators,
            now,
        };
        let phase = me.eligible(&p)?;
        // Reveal order decides: the caller must take the earliest proposal it may take.
        let mut ahead = QueueAhead::default();
        let mut passed = 0u32;
        for q in Queue::<T>::get(&p.arena) {
            if q == id {
                break;
            }
            passed += 1;
            let Some(qp) = Proposals::<T>::get(q) else {
                continue;
            };
            let takes_it = me.eligible(&qp).is_ok() && me.in_turn(&qp, &ahead).is_ok();
            ensure!(!takes_it, Error::<T>::OutOfTurn);
            ahead.pass_over::<T>(&qp);
        }
        me.in_turn(&p, &ahead)?;
        let Claimant {
            validator,
            operator,
            ..
        } = me;
        let open = OpenLeases::<T>::get(&operator);
        ensure!(
            open < T::MaxLeasesPerOperator::get(),
            Error::<T>::TooManyLeases
        );

        let wanted = now.saturating_add(info.config.policy.lease_blocks);
        // The wait for a reproduction ends here; its deadline goes first, since it may share
        // a block with the lease's.
        Self::end_wait(id, &p.status);
        let expires_at =
            Self::schedule_deadline(id, wanted).ok_or(Error::<T>::LeaseScheduleFull)?;
        let lease = Lease {
            validator: validator.clone(),
            operator: operator.clone(),
            generation: info.generation,
            expires_at,
        };
        OpenLeases::<T>::insert(&operator, open + 1);
        // Another operator's lease lifts the exclusion that followed a stall.
        let disputer = p.disputed.as_ref().map(|d| d.operator.clone());
        p.excluded.retain(|o| Some(o) == disputer.as_ref());
        p.status = match core::mem::replace(&mut p.status, ProposalStatus::Queued) {
            ProposalStatus::ReproductionQueued { primary, until } => ProposalStatus::Reproduction {
                primary,
                lease,
                until,
            },
            _ => ProposalStatus::Primary { lease },
        };
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::Leased {
            proposal: id,
            validator,
            phase,
            generation: info.generation,
            expires_at,
        });
        Ok(passed)
    }

    /// Records `validator`'s attestation of its lease on `id`. Returns the weight of the branch
    /// taken.
    pub(crate) fn do_attest(
        validator: T::AccountId,
        id: ProposalId,
        a: Attestation,
    ) -> Result<Weight, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let (lease, primary, kept_until) = match &p.status {
            ProposalStatus::Primary { lease } => (lease.clone(), None, None),
            ProposalStatus::Reproduction {
                primary,
                lease,
                until,
            } => (lease.clone(), Some(primary.clone()), Some(*until)),
            _ => return Err(Error::<T>::NotLeaseHolder.into()),
        };
        ensure!(lease.validator == validator, Error::<T>::NotLeaseHolder);
        ensure!(
            Validators::<T>::contains_key(&p.arena, &validator),
            Error::<T>::NotValidator
        );
        ensure!(now < lease.expires_at, Error::<T>::LeaseExpired);
        ensure!(
            a.incumbent_generation == lease.generation,
            Error::<T>::GenerationMismatch
        );
        let info = Arenas::<T>::get(&p.arena).ok_or(Error::<T>::UnknownArena)?;
        if let Verdict::Pass { speedup_ppm } = a.verdict {
            let floor = PPM_ONE.saturating_add(info.config.policy.min_margin_ppm);
            ensure!(speedup_ppm >= floor, Error::<T>::BelowMargin);
            ensure!(
                speedup_ppm <= T::MaxSpeedupPpm::get(),
                Error::<T>::SpeedupImplausible
            );
            if let Some(primary) = &primary {
                ensure!(
                    primary.attempt_digest != a.attempt_digest
                        && primary.evidence_digest != a.evidence_digest,
                    Error::<T>::DuplicateEvidence
                );
            }
        }
        Self::end_lease(id, &lease);

        let incumbent_free =
            matches!(a.verdict, Verdict::Fail { reason } if !reason.is_disputable());
        if lease.generation != info.generation && !incumbent_free {
            // Measured against an incumbent that has since changed: not the miner's fault.
            // (A FAIL that does not depend on the incumbent — cheating, a build, ABI or policy
            // failure — is judged below whatever the generation.)
            p.status = ProposalStatus::Queued;
            Proposals::<T>::insert(id, p);
            Self::deposit_event(Event::AttestationStale {
                proposal: id,
                validator,
                generation: lease.generation,
                current: info.generation,
            });
            return Ok(T::WeightInfo::attest_pass());
        }
        // A PASS or a disputed FAIL counts only while its validator is registered.
        let primary = match primary {
            Some(pr) if !Validators::<T>::contains_key(&p.arena, &pr.validator) => {
                Self::deposit_event(Event::PassDropped {
                    proposal: id,
                    generation: info.generation,
                });
                None
            }
            pr => pr,
        };
        if p.disputed
            .as_ref()
            .is_some_and(|d| !Validators::<T>::contains_key(&p.arena, &d.validator))
        {
            p.disputed = None;
        }
        let required = info.config.policy.required_distinct_validators;
        let this_pass = |speedup_ppm| RecordedPass {
            validator: validator.clone(),
            operator: lease.operator.clone(),
            speedup_ppm,
            generation: lease.generation,
            evidence_digest: a.evidence_digest,
            attempt_digest: a.attempt_digest,
        };

        let used = match (a.verdict, primary) {
            (Verdict::Pass { speedup_ppm }, None) => {
                let pass = this_pass(speedup_ppm);
                if let Some(fail) = &p.disputed {
                    Self::deposit_event(Event::AttestationsDisagreed {
                        proposal: id,
                        pass_validator: validator.clone(),
                        pass_evidence: a.evidence_digest,
                        fail_validator: fail.validator.clone(),
                        fail_evidence: fail.evidence_digest,
                        reason: fail.reason,
                    });
                }
                if required <= 1 {
                    Self::crown(id, p, info, speedup_ppm, alloc::vec![pass])?
                } else {
                    Self::deposit_event(Event::PassRecorded {
                        proposal: id,
                        validator,
                        speedup_ppm,
                        evidence_digest: a.evidence_digest,
                    });
                    Self::await_reproduction(id, &mut p, pass, info.generation, None);
                    Proposals::<T>::insert(id, p);
                    T::WeightInfo::attest_pass()
                }
            }
            (Verdict::Pass { .. }, Some(primary)) if primary.generation != info.generation => {
                // Both PASSes must measure the same incumbent; the primary's is gone.
                p.status = ProposalStatus::Queued;
                Proposals::<T>::insert(id, p);
                Self::deposit_event(Event::PassDropped {
                    proposal: id,
                    generation: info.generation,
                });
                T::WeightInfo::attest_pass()
            }
            (Verdict::Pass { speedup_ppm }, Some(primary)) => {
                let lower = speedup_ppm.min(primary.speedup_ppm);
                let pass = this_pass(speedup_ppm);
                Self::crown(id, p, info, lower, alloc::vec![primary, pass])?
            }
            (Verdict::Fail { reason }, primary) => {
                if let Some(primary) = &primary {
                    Self::deposit_event(Event::AttestationsDisagreed {
                        proposal: id,
                        pass_validator: primary.validator.clone(),
                        pass_evidence: primary.evidence_digest,
                        fail_validator: validator.clone(),
                        fail_evidence: a.evidence_digest,
                        reason,
                    });
                }
                // One operator's measurement alone does not end a proposal: a disputable FAIL
                // waits for a second operator's attempt, and sticks when that one FAILs too.
                let sticks = !reason.is_disputable() || required <= 1 || p.disputed.is_some();
                if sticks {
                    Self::fail(id, p, validator, reason, a.evidence_digest);
                    T::WeightInfo::attest_fail()
                } else {
                    p.disputed = Some(RecordedFail {
                        validator: validator.clone(),
                        operator: lease.operator.clone(),
                        reason,
                        evidence_digest: a.evidence_digest,
                    });
                    Self::exclude(&mut p, lease.operator);
                    Self::deposit_event(Event::FailRecorded {
                        proposal: id,
                        validator,
                        reason,
                        evidence_digest: a.evidence_digest,
                    });
                    p.status = ProposalStatus::Queued;
                    if let Some(primary) = primary {
                        Self::await_reproduction(id, &mut p, primary, info.generation, kept_until);
                    }
                    Self::store_or_expire(id, p);
                    T::WeightInfo::attest_requeue()
                }
            }
            (Verdict::NoDecision { reason }, primary) => {
                let attempts = Self::requeue_or_expire(
                    id,
                    p,
                    lease.operator,
                    primary.zip(kept_until),
                    info.config.policy.max_attempts,
                    info.generation,
                );
                Self::deposit_event(Event::NoDecisionRecorded {
                    proposal: id,
                    validator,
                    reason,
                    attempts,
                    evidence_digest: a.evidence_digest,
                });
                T::WeightInfo::attest_requeue()
            }
        };
        Ok(used)
    }

    /// Ends `p` with a FAIL that sticks: `Cheating` and `CopyOf` forfeit the bundle deposit,
    /// any other returns it. Stores the proposal.
    fn fail(
        id: ProposalId,
        mut p: ProposalOf<T>,
        validator: T::AccountId,
        reason: FailReason,
        evidence_digest: EvidenceDigest,
    ) {
        p.status = ProposalStatus::Failed { reason };
        if matches!(reason, FailReason::Cheating | FailReason::CopyOf(_)) {
            Self::slash_bundle_deposit(id, &mut p);
        }
        Self::leave_queue(id, &mut p);
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::Failed {
            proposal: id,
            validator,
            reason,
            evidence_digest,
        });
    }

    /// Bars `operator` from further leases of `p`.
    fn exclude(p: &mut ProposalOf<T>, operator: T::AccountId) {
        if !p.excluded.contains(&operator) {
            // Cannot overflow: exclusions come from NoDecisions and expiries (at most
            // `max_attempts` ≤ `MAX_ATTEMPTS_BOUND` before the proposal expires) and one disputed FAIL.
            let _ = p.excluded.try_push(operator);
        }
    }

    /// Whether some registered operator may still lease `p`'s next phase (not excluded, not
    /// the miner's, not the primary PASS's).
    fn operator_left(p: &ProposalOf<T>) -> bool {
        let miners_operator = KeyOperators::<T>::get(&p.miner).map(|(o, _)| o);
        let primary = match &p.status {
            ProposalStatus::ReproductionQueued { primary, .. } => Some(&primary.operator),
            _ => None,
        };
        Validators::<T>::iter_prefix(&p.arena).any(|(key, operator)| {
            key != p.miner
                && operator != p.miner
                && miners_operator.as_ref() != Some(&operator)
                && !p.excluded.contains(&operator)
                && primary != Some(&operator)
        })
    }

    /// Stores a requeued proposal, or expires it (deposits returned) when no registered
    /// operator may lease it any more. (A proposal that already ended, its wait for a
    /// reproduction run out, is only stored.)
    fn store_or_expire(id: ProposalId, mut p: ProposalOf<T>) {
        if p.status.is_pending() && !Self::operator_left(&p) {
            Self::end_wait(id, &p.status);
            p.status = ProposalStatus::Expired;
            Self::leave_queue(id, &mut p);
            Self::deposit_event(Event::Expired {
                proposal: id,
                attempts: p.attempts,
            });
        }
        Proposals::<T>::insert(id, p);
    }

    /// A NoDecision or lease expiry by `operator`: one more attempt unless this operator's
    /// stall already counted; the operator sits out the next lease; back to the phase's
    /// queue, or expired (deposits returned) once `max_attempts` is reached or no operator is
    /// left to try. Stores the proposal.
    /// `primary`: the primary PASS and its wait's deadline, for a reproduction.
    fn requeue_or_expire(
        id: ProposalId,
        mut p: ProposalOf<T>,
        operator: T::AccountId,
        primary: Option<PrimaryWait<T>>,
        max_attempts: u32,
        generation: u32,
    ) -> u32 {
        if !p.stalled.contains(&operator) {
            // Cannot overflow: the proposal expires at `max_attempts` ≤ `MAX_ATTEMPTS_BOUND`.
            let _ = p.stalled.try_push(operator.clone());
            p.attempts = p.attempts.saturating_add(1);
        }
        Self::exclude(&mut p, operator);
        let attempts = p.attempts;
        if attempts >= max_attempts {
            p.status = ProposalStatus::Expired;
            Self::leave_queue(id, &mut p);
            Self::deposit_event(Event::Expired {
                proposal: id,
                attempts,
            });
            Proposals::<T>::insert(id, p);
            return attempts;
        }
        p.status = ProposalStatus::Queued;
        if let Some((primary, kept_until)) = primary {
            Self::await_reproduction(id, &mut p, primary, generation, Some(kept_until));
        }
        Self::store_or_expire(id, p);
        attempts
    }

    /// Puts `p` (whose status the caller set to `Queued`) in the wait for its reproduction with
    /// `primary`. A new PASS waits `ReproductionTimeout` blocks from now; a reproduction that
    /// ended without a verdict goes back to its wait's deadline `kept_until` (so the whole
    /// wait stays bounded however often leases end without one), and if that has passed the
    /// proposal ends `ReproductionTimedOut` (deposits returned). A PASS measured against an
    /// older generation, or one that finds no room in the schedule, is dropped instead and
    /// `p` stays queued.
    fn await_reproduction(
        id: ProposalId,
        p: &mut ProposalOf<T>,
        primary: RecordedPass<T::AccountId>,
        generation: u32,
        kept_until: Option<BlockNumberFor<T>>,
    ) {
        let now = frame_system::Pallet::<T>::block_number();
        if primary.generation == generation {
            let first = match kept_until {
                Some(until) if until <= now => {
                    Self::time_out(id, p, primary.validator);
                    return;
                }
                Some(until) => until,
                None => now.saturating_add(T::ReproductionTimeout::get()),
            };
            if let Some(until) = Self::schedule_deadline(id, first) {
                p.status = ProposalStatus::ReproductionQueued { primary, until };
                return;
            }
        }
        // The incumbent moved on while the reproduction waited or was leased.
        Self::deposit_event(Event::PassDropped {
            proposal: id,
            generation,
        });
    }

    /// Schedules `id`'s deadline in the first block from `first` with room (at most
    /// `DEADLINE_TRIES` blocks on); the block chosen, or `None` when all were full.
    pub(crate) fn schedule_deadline(
        id: ProposalId,
        first: BlockNumberFor<T>,
    ) -> Option<BlockNumberFor<T>> {
        let mut at = first;
        for _ in 0..DEADLINE_TRIES {
            if LeaseDeadlines::<T>::try_mutate(at, |ids| ids.try_push(id)).is_ok() {
                return Some(at);
            }
            at = at.saturating_add(One::one());
        }
        None
    }

    /// A lease ended (attested or expired): off the expiry schedule and the operator's cap.
    fn end_lease(id: ProposalId, lease: &LeaseOf<T>) {
        Self::unschedule(id, lease.expires_at);
        OpenLeases::<T>::mutate_exists(&lease.operator, |n| {
            *n = n.and_then(|n| n.checked_sub(1)).filter(|n| *n > 0);
        });
    }

    /// A wait for a reproduction that ends (leased, withdrawn, dropped, expired): off the
    /// deadline schedule. Any other status has no wait.
    pub(crate) fn end_wait(id: ProposalId, status: &StatusOf<T>) {
        if let ProposalStatus::ReproductionQueued { until, .. } = status {
            Self::unschedule(id, *until);
        }
    }

    /// Ends a proposal whose wait for a reproduction ran out: expired, deposits returned.
    /// The caller stores it.
    fn time_out(id: ProposalId, p: &mut ProposalOf<T>, primary_validator: T::AccountId) {
        p.status = ProposalStatus::Expired;
        Self::leave_queue(id, p);
        Self::deposit_event(Event::ReproductionTimedOut {
            proposal: id,
            primary_validator,
        });
    }

    pub(crate) fn unschedule(id: ProposalId, at: BlockNumberFor<T>) {
        LeaseDeadlines::<T>::mutate_exists(at, |ids| {
            if let Some(list) = ids {
                list.retain(|x| *x != id);
                if list.is_empty() {
                    *ids = None;
                }
            }
        });
    }

    /// Deadlines at `now`: leases that end go back to their queues, waits for a reproduction
    /// that time out expire. Returns how many were processed.
    pub(crate) fn expire_leases(now: BlockNumberFor<T>) -> u32 {
        let ids = LeaseDeadlines::<T>::take(now);
        for id in ids.iter() {
            let Some(mut p) = Proposals::<T>::get(id) else {
                continue;
            };
            let (lease, primary) = match &p.status {
                ProposalStatus::Primary { lease } => (lease.clone(), None),
                ProposalStatus::Reproduction {
                    primary,
                    lease,
                    until,
                } => (lease.clone(), Some((primary.clone(), *until))),
                ProposalStatus::ReproductionQueued { primary, until } if *until == now => {
                    let primary_validator = primary.validator.clone();
                    Self::time_out(*id, &mut p, primary_validator);
                    Proposals::<T>::insert(id, p);
                    continue;
                }
                _ => continue,
            };
            if lease.expires_at != now {
                continue;
            }
            Self::end_lease(*id, &lease);
            let (max_attempts, generation) = Arenas::<T>::get(&p.arena)
                .map(|a| (a.config.policy.max_attempts, a.generation))
                .unwrap_or((1, 0));
            let attempts = Self::requeue_or_expire(
                *id,
                p,
                lease.operator.clone(),
                primary,
                max_attempts,
                generation,
            );
            Self::deposit_event(Event::LeaseExpired {
                proposal: *id,
                validator: lease.validator,
                attempts,
            });
        }
        ids.len() as u32
    }

    // ---- Crowns ----

    /// Makes `id` part of its arena's incumbent: replaces the target's entry, removes every
    /// entry the target displaces, retires their proposals and claims, records the new claim,
    /// advances the generation and drops primary PASSes measured against the old one.
    ///
    /// Returns the weight of what it did: a crown over the queue and displaced entries, or a
    /// FAIL (a copy) or drop (a displaced target) instead.
    fn crown(
        id: ProposalId,
        mut p: ProposalOf<T>,
        mut info: ArenaInfoOf<T>,
        speedup_ppm: u32,
        passes: Vec<RecordedPass<T::AccountId>>,
    ) -> Result<Weight, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        // The content belongs to the earliest commitment that revealed it: a proposal whose
        // bytes an earlier commitment revealed too is a copy, however it was measured.
        if let Some(owner) = ContentOwners::<T>::get(p.content_hash) {
            if let (true, Some(last)) = (owner.miner != p.miner, passes.last()) {
                let reason = FailReason::CopyOf(owner.proposal);
                Self::fail(id, p, last.validator.clone(), reason, last.evidence_digest);
                return Ok(Self::crown_refused_weight());
            }
        }
        // A target made displacing after this proposal was revealed (Root may extend a
        // target's displacement set while no member is crowned) may now displace it: the
        // proposal can never be crowned beside that incumbent, so it is dropped instead.
        if let Some(displacer) = Self::displacer_of(&p.arena, &p.target) {
            if let Some(entry) = Incumbents::<T>::get(&p.arena, &displacer) {
                p.status = ProposalStatus::Dropped {
                    displaced_by: entry.proposal,
                };
                Self::leave_queue(id, &mut p);
                Proposals::<T>::insert(id, p);
                Self::deposit_event(Event::ProposalDropped {
                    proposal: id,
                    displaced_by: entry.proposal,
                });
                return Ok(Self::crown_refused_weight());
            }
        }
        let spec = Targets::<T>::get(&p.target).ok_or(Error::<T>::UnknownTarget)?;
        let generation = info
            .generation
            .checked_add(1)
            .ok_or(Error::<T>::GenerationOverflow)?;
        let mut leaving: Vec<(ProposalId, RetireCause)> = Vec::new();
        if let Some(old) = Incumbents::<T>::get(&p.arena, &p.target) {
            leaving.push((old.proposal, RetireCause::Superseded { by: id }));
        }
        for displaced in spec.displaces.iter() {
            if let Some(old) = Incumbents::<T>::get(&p.arena, displaced) {
                leaving.push((old.proposal, RetireCause::Displaced { by: id }));
            }
        }
        ensure!(
            Claims::<T>::count().saturating_sub(leaving.len() as u32) < T::MaxClaims::get(),
            Error::<T>::TooManyClaims
        );

        for (old_id, cause) in leaving {
            Self::retire(old_id, now, cause);
        }
        for displaced in spec.displaces.iter() {
            Incumbents::<T>::remove(&p.arena, displaced);
        }
        Incumbents::<T>::insert(
            &p.arena,
            &p.target,
            IncumbentEntry {
                proposal: id,
                content_hash: p.content_hash,
            },
        );
        let evidence: BoundedVec<EvidenceDigest, MaxPasses> =
            BoundedVec::truncate_from(passes.iter().map(|pass| pass.evidence_digest).collect());
        Claims::<T>::insert(
            id,
            RewardClaim {
                miner: p.miner.clone(),
                arena: p.arena.clone(),
                target: p.target.clone(),
                speedup_ppm,
                since: p.reveal_block,
                evidence: evidence.clone(),
            },
        );
        Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
        p.status = ProposalStatus::Crowned {
            at: now,
            speedup_ppm,
            passes: BoundedVec::truncate_from(passes),
        };
        info.generation = generation;
        let queued = Self::drop_displaced_and_stale(id, &p.arena, &spec.displaces, generation);
        Self::deposit_event(Event::Crowned {
            proposal: id,
            miner: p.miner.clone(),
            arena: p.arena.clone(),
            target: p.target.clone(),
            speedup_ppm,
            generation,
            evidence,
        });
        Arenas::<T>::insert(&p.arena, info);
        Proposals::<T>::insert(id, p);
        Ok(T::WeightInfo::attest_crown(
            queued,
            spec.displaces.len() as u32,
        ))
    }

    /// A crown that ended as a FAIL (a copy) or a drop (a displaced target) instead: the
    /// crown's own checks (owner, displacement walk) plus a FAIL's writes.
    fn crown_refused_weight() -> Weight {
        T::WeightInfo::attest_crown(0, 0).max(T::WeightInfo::attest_fail())
    }

    /// Ends a crown: its claim is removed and its bundle deposit released with its reference.
    fn retire(id: ProposalId, now: BlockNumberFor<T>, cause: RetireCause) {
        Claims::<T>::remove(id);
        if let Some(mut old) = Proposals::<T>::get(id) {
            old.status = ProposalStatus::Retired { at: now };
            Self::finish(id, &mut old);
            Proposals::<T>::insert(id, old);
        }
        Self::deposit_event(Event::Retired {
            proposal: id,
            cause,
        });
    }

    /// After the crown of `crowned`: pending proposals for targets it displaces can never be
    /// crowned, so they are dropped (deposits returned); primary PASSes waiting for a
    /// reproduction were measured against the previous incumbent and go back to the queue.
    /// Returns the number of queue entries visited.
    fn drop_displaced_and_stale(
        crowned: ProposalId,
        arena: &ArenaId,
        displaces: &BoundedVec<TargetId, MaxMembers>,
        generation: u32,
    ) -> u32 {
        let queue = Queue::<T>::get(arena);
        let mut dropped: BTreeSet<ProposalId> = BTreeSet::new();
        for id in queue.iter().copied() {
            let Some(mut q) = Proposals::<T>::get(id) else {
                continue;
            };
            if displaces.contains(&q.target) {
                match &q.status {
                    ProposalStatus::Primary { lease }
                    | ProposalStatus::Reproduction { lease, .. } => Self::end_lease(id, lease),
                    status => Self::end_wait(id, status),
                }
                q.status = ProposalStatus::Dropped {
                    displaced_by: crowned,
                };
                // `leave_queue` without the queue write: the queue is written once below.
                Self::finish(id, &mut q);
                dropped.insert(id);
                Proposals::<T>::insert(id, q);
                Self::deposit_event(Event::ProposalDropped {
                    proposal: id,
                    displaced_by: crowned,
                });
                continue;
            }
            if let ProposalStatus::ReproductionQueued { primary, .. } = &q.status {
                if primary.generation != generation {
                    Self::end_wait(id, &q.status);
                    q.status = ProposalStatus::Queued;
                    Proposals::<T>::insert(id, q);
                    Self::deposit_event(Event::PassDropped {
                        proposal: id,
                        generation,
                    });
                }
            }
        }
        if !dropped.is_empty() {
            Queue::<T>::mutate(arena, |q| q.retain(|x| !dropped.contains(x)));
        }
        queue.len() as u32
    }
}

/// A validator key (and its operator) about to claim, with what its claims depend on.
pub(crate) struct Claimant<T: Config> {
    pub validator: T::AccountId,
    pub operator: T::AccountId,
    /// The arena's `required_distinct_validators`.
    pub required: u32,
    pub now: BlockNumberFor<T>,
}

impl<T: Config> Claimant<T> {
    /// Whether this claimant may lease `p`'s next phase at all (whatever is ahead of it in
    /// the queue), and which phase that is.
    pub(crate) fn eligible(&self, p: &ProposalOf<T>) -> Result<Phase, Error<T>> {
        let phase = match &p.status {
            ProposalStatus::Queued => Phase::Primary,
            ProposalStatus::ReproductionQueued { primary, .. } => {
                ensure!(primary.operator != self.operator, Error::<T>::SameOperator);
                Phase::Reproduction
            }
            _ => return Err(Error::<T>::NotClaimable),
        };
        // Never the operator's own proposal, whichever of its keys (in any arena) revealed it.
        let own = p.miner == self.validator
            || p.miner == self.operator
            || KeyOperators::<T>::get(&p.miner).is_some_and(|(o, _)| o == self.operator);
        ensure!(!own, Error::<T>::OwnProposal);
        ensure!(
            !p.excluded.contains(&self.operator),
            Error::<T>::OperatorExcluded
        );
        Ok(phase)
    }

    /// Whether `p`'s next attempt may start now, given the pending proposals ahead of it.
    /// Only the attempt that would crown waits: until the proposal's content priority is
    /// final, and while an earlier proposal for an overlapping target is pending.
    pub(crate) fn in_turn(&self, p: &ProposalOf<T>, ahead: &QueueAhead) -> Result<(), Error<T>> {
        let crowning = match &p.status {
            ProposalStatus::Queued => self.required <= 1,
            ProposalStatus::ReproductionQueued { .. } => true,
            _ => false,
        };
        if !crowning {
            return Ok(());
        }
        // Every commitment older than this one can be revealed up to `RevealWindow` blocks
        // after it was made; after that, no earlier owner of the same content can appear.
        ensure!(
            self.now >= p.commit_block.saturating_add(T::RevealWindow::get()),
            Error::<T>::PriorityNotFinal
        );
        let spec = Targets::<T>::get(&p.target);
        ensure!(
            spec.is_none_or(|spec| !ahead.targets.iter().any(|a| overlaps(a, &spec))),
            Error::<T>::EarlierOverlapPending
        );
        Ok(())
    }
}

/// The targets of the pending proposals a queue walk has passed.
#[derive(Default)]
pub(crate) struct QueueAhead {
    targets: Vec<TargetSpec>,
}

impl QueueAhead {
    pub(crate) fn pass_over<T: Config>(&mut self, p: &ProposalOf<T>) {
        if p.status.is_pending() && !self.targets.iter().any(|t| t.id == p.target) {
            if let Some(spec) = Targets::<T>::get(&p.target) {
                self.targets.push(spec);
            }
        }
    }
}

/// Whether crowns of `a` and `b` could change the same slot: the same target, a shared
/// member slot, or one displacing the other.
pub(crate) fn overlaps(a: &TargetSpec, b: &TargetSpec) -> bool {
    a.id == b.id
        || a.members.iter().any(|m| b.members.contains(m))
        || a.displaces.contains(&b.id)
        || b.displaces.contains(&a.id)
}
