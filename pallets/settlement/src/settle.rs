//! The pallet's rules: configuration checks, reveal, leases, attestations and crowns.
//! Every function verifies first and writes last; dispatch is transactional, so an error after
//! a write still leaves storage unchanged.

use crate::*;
use alloc::{collections::BTreeSet, vec::Vec};
use cacheon_primitives::{commitment, content_hash, decode_bundle, is_valid_id};

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
                && p.max_attempts > 0
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

    pub(crate) fn do_add_validator(arena: ArenaId, validator: T::AccountId) -> DispatchResult {
        let mut info = Arenas::<T>::get(&arena).ok_or(Error::<T>::UnknownArena)?;
        ensure!(
            !Validators::<T>::contains_key(&arena, &validator),
            Error::<T>::AlreadyValidator
        );
        ensure!(
            info.validators < T::MaxValidators::get(),
            Error::<T>::TooManyValidators
        );
        info.validators += 1;
        Validators::<T>::insert(&arena, &validator, ());
        Arenas::<T>::insert(&arena, info);
        Self::deposit_event(Event::ValidatorAdded { arena, validator });
        Ok(())
    }

    pub(crate) fn check_emissions(policy: &EmissionsPolicyOf<T>) -> DispatchResult {
        ensure!(
            !policy.epoch_blocks.is_zero() && !policy.half_life_blocks.is_zero(),
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
        let committed_at = Commits::<T>::get(&miner, c).ok_or(Error::<T>::UnknownCommitment)?;
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

        if let Some((first, _)) = FirstRevealer::<T>::get(hash) {
            ensure!(first == miner, Error::<T>::CopyOfOtherMiner);
        }
        let epoch = Self::current_epoch();
        let (cap_epoch, reveals) = RevealsInEpoch::<T>::get(&miner);
        let reveals = if cap_epoch == epoch { reveals } else { 0 };
        ensure!(
            reveals < T::MaxRevealsPerEpoch::get(),
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
        RevealsInEpoch::<T>::insert(&miner, (epoch, reveals + 1));
        NextProposalId::<T>::put(next_id);
        if !FirstRevealer::<T>::contains_key(hash) {
            FirstRevealer::<T>::insert(hash, (miner.clone(), id));
        }
        Bundles::<T>::mutate(hash, |b| match b {
            Some(b) => b.refs = b.refs.saturating_add(1),
            None => {
                *b = Some(StoredBundle {
                    bytes: bundle,
                    refs: 1,
                })
            }
        });
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
    /// deposit and drops its bundle reference. The caller stores the proposal.
    pub(crate) fn leave_queue(id: ProposalId, p: &mut ProposalOf<T>) {
        Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
        Self::release_bundle(p);
    }

    /// Returns a proposal's bundle deposit and drops its reference to the stored bundle.
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

    fn release_bundle(p: &mut ProposalOf<T>) {
        let _ = T::Currency::release(
            &HoldReason::BundleDeposit.into(),
            &p.miner,
            p.bundle_deposit,
            Precision::BestEffort,
        );
        p.bundle_deposit = Zero::zero();
        Bundles::<T>::mutate_exists(p.content_hash, |b| {
            if let Some(stored) = b {
                stored.refs = stored.refs.saturating_sub(1);
                if stored.refs == 0 {
                    *b = None;
                }
            }
        });
    }

    // ---- Validators ----

    pub(crate) fn do_claim(validator: T::AccountId, id: ProposalId) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        ensure!(
            Validators::<T>::contains_key(&p.arena, &validator),
            Error::<T>::NotValidator
        );
        // A miner never measures its own proposal.
        ensure!(p.miner != validator, Error::<T>::OwnProposal);
        let info = Arenas::<T>::get(&p.arena).ok_or(Error::<T>::UnknownArena)?;
        let claimable = |q: &ProposalOf<T>| {
            q.miner != validator
                && match &q.status {
                    ProposalStatus::Queued => true,
                    ProposalStatus::ReproductionQueued { primary } => {
                        primary.validator != validator
                    }
                    _ => false,
                }
        };
        match &p.status {
            ProposalStatus::Queued => {}
            ProposalStatus::ReproductionQueued { primary } => {
                ensure!(primary.validator != validator, Error::<T>::SameValidator)
            }
            _ => return Err(Error::<T>::NotClaimable.into()),
        }
        // Reveal order decides: the caller must take the earliest proposal it may take.
        let first = Queue::<T>::get(&p.arena)
            .into_iter()
            .find(|q| *q == id || Proposals::<T>::get(q).is_some_and(|q| claimable(&q)));
        ensure!(first == Some(id), Error::<T>::OutOfTurn);

        let expires_at = now.saturating_add(info.config.policy.lease_blocks);
        let lease = Lease {
            validator: validator.clone(),
            generation: info.generation,
            expires_at,
        };
        LeaseDeadlines::<T>::try_mutate(expires_at, |ids| ids.try_push(id))
            .map_err(|_| Error::<T>::LeaseScheduleFull)?;
        let phase;
        p.status = match core::mem::replace(&mut p.status, ProposalStatus::Queued) {
            ProposalStatus::ReproductionQueued { primary } => {
                phase = Phase::Reproduction;
                ProposalStatus::Reproduction { primary, lease }
            }
            _ => {
                phase = Phase::Primary;
                ProposalStatus::Primary { lease }
            }
        };
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::Leased {
            proposal: id,
            validator,
            phase,
            generation: info.generation,
            expires_at,
        });
        Ok(())
    }

    pub(crate) fn do_attest(
        validator: T::AccountId,
        id: ProposalId,
        a: Attestation,
    ) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let (lease, primary) = match &p.status {
            ProposalStatus::Primary { lease } => (lease.clone(), None),
            ProposalStatus::Reproduction { primary, lease } => {
                (lease.clone(), Some(primary.clone()))
            }
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
            if let Some(primary) = &primary {
                ensure!(
                    primary.attempt_digest != a.attempt_digest
                        && primary.evidence_digest != a.evidence_digest,
                    Error::<T>::DuplicateEvidence
                );
            }
        }
        Self::unschedule_lease(id, lease.expires_at);

        if lease.generation != info.generation {
            // Measured against an incumbent that has since changed: not the miner's fault.
            p.status = ProposalStatus::Queued;
            Proposals::<T>::insert(id, p);
            Self::deposit_event(Event::AttestationStale {
                proposal: id,
                validator,
                generation: lease.generation,
                current: info.generation,
            });
            return Ok(());
        }

        match (a.verdict, primary) {
            (Verdict::Pass { speedup_ppm }, None) => {
                let pass = RecordedPass {
                    validator: validator.clone(),
                    speedup_ppm,
                    generation: lease.generation,
                    evidence_digest: a.evidence_digest,
                    attempt_digest: a.attempt_digest,
                };
                if info.config.policy.required_distinct_validators <= 1 {
                    Self::crown(id, p, info, speedup_ppm)?;
                } else {
                    p.status = ProposalStatus::ReproductionQueued { primary: pass };
                    Proposals::<T>::insert(id, p);
                    Self::deposit_event(Event::PassRecorded {
                        proposal: id,
                        validator,
                        speedup_ppm,
                    });
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
            }
            (Verdict::Pass { speedup_ppm }, Some(primary)) => {
                Self::crown(id, p, info, speedup_ppm.min(primary.speedup_ppm))?;
            }
            (Verdict::Fail { reason }, primary) => {
                p.status = ProposalStatus::Failed { reason };
                if matches!(reason, FailReason::Cheating | FailReason::CopyOf(_)) {
                    Self::slash_bundle_deposit(id, &mut p);
                }
                Self::leave_queue(id, &mut p);
                Proposals::<T>::insert(id, p);
                if let Some(primary) = primary {
                    Self::deposit_event(Event::AttestationsDisagreed {
                        proposal: id,
                        primary_validator: primary.validator,
                        reproduction_validator: validator.clone(),
                        reason,
                    });
                }
                Self::deposit_event(Event::Failed {
                    proposal: id,
                    validator,
                    reason,
                });
            }
            (Verdict::NoDecision { reason }, primary) => {
                let attempts = Self::requeue_or_expire(
                    id,
                    p,
                    primary,
                    info.config.policy.max_attempts,
                    info.generation,
                );
                Self::deposit_event(Event::NoDecisionRecorded {
                    proposal: id,
                    validator,
                    reason,
                    attempts,
                });
            }
        }
        Ok(())
    }

    /// A NoDecision or lease expiry: one more attempt; back to the phase's queue, or expired
    /// (deposits returned) once `max_attempts` is reached. Stores the proposal.
    fn requeue_or_expire(
        id: ProposalId,
        mut p: ProposalOf<T>,
        primary: Option<RecordedPass<T::AccountId>>,
        max_attempts: u32,
        generation: u32,
    ) -> u32 {
        p.attempts = p.attempts.saturating_add(1);
        let attempts = p.attempts;
        if attempts >= max_attempts {
            p.status = ProposalStatus::Expired;
            Self::leave_queue(id, &mut p);
            Self::deposit_event(Event::Expired {
                proposal: id,
                attempts,
            });
        } else {
            p.status = match primary {
                Some(primary) if primary.generation == generation => {
                    ProposalStatus::ReproductionQueued { primary }
                }
                Some(_) => {
                    // The incumbent moved on while the reproduction was leased.
                    Self::deposit_event(Event::PassDropped {
                        proposal: id,
                        generation,
                    });
                    ProposalStatus::Queued
                }
                None => ProposalStatus::Queued,
            };
        }
        Proposals::<T>::insert(id, p);
        attempts
    }

    fn unschedule_lease(id: ProposalId, expires_at: BlockNumberFor<T>) {
        LeaseDeadlines::<T>::mutate_exists(expires_at, |ids| {
            if let Some(list) = ids {
                list.retain(|x| *x != id);
                if list.is_empty() {
                    *ids = None;
                }
            }
        });
    }

    /// Leases that end at `now` go back to their queues. Returns how many were processed.
    pub(crate) fn expire_leases(now: BlockNumberFor<T>) -> u32 {
        let ids = LeaseDeadlines::<T>::take(now);
        for id in ids.iter() {
            let Some(p) = Proposals::<T>::get(id) else {
                continue;
            };
            let (lease, primary) = match &p.status {
                ProposalStatus::Primary { lease } => (lease.clone(), None),
                ProposalStatus::Reproduction { primary, lease } => {
                    (lease.clone(), Some(primary.clone()))
                }
                _ => continue,
            };
            if lease.expires_at != now {
                continue;
            }
            let (max_attempts, generation) = Arenas::<T>::get(&p.arena)
                .map(|a| (a.config.policy.max_attempts, a.generation))
                .unwrap_or((1, 0));
            let attempts = Self::requeue_or_expire(*id, p, primary, max_attempts, generation);
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
    fn crown(
        id: ProposalId,
        mut p: ProposalOf<T>,
        mut info: ArenaInfoOf<T>,
        speedup_ppm: u32,
    ) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
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
                return Ok(());
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
        Claims::<T>::insert(
            id,
            RewardClaim {
                miner: p.miner.clone(),
                arena: p.arena.clone(),
                target: p.target.clone(),
                speedup_ppm,
                since: p.reveal_block,
            },
        );
        Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
        p.status = ProposalStatus::Crowned {
            at: now,
            speedup_ppm,
        };
        info.generation = generation;
        Self::drop_displaced_and_stale(id, &p.arena, &spec.displaces, generation);
        Self::deposit_event(Event::Crowned {
            proposal: id,
            miner: p.miner.clone(),
            arena: p.arena.clone(),
            target: p.target.clone(),
            speedup_ppm,
            generation,
        });
        Arenas::<T>::insert(&p.arena, info);
        Proposals::<T>::insert(id, p);
        Ok(())
    }

    /// Ends a crown: its claim is removed and its bundle deposit released with its reference.
    fn retire(id: ProposalId, now: BlockNumberFor<T>, cause: RetireCause) {
        Claims::<T>::remove(id);
        if let Some(mut old) = Proposals::<T>::get(id) {
            old.status = ProposalStatus::Retired { at: now };
            Self::release_bundle(&mut old);
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
    fn drop_displaced_and_stale(
        crowned: ProposalId,
        arena: &ArenaId,
        displaces: &BoundedVec<TargetId, MaxMembers>,
        generation: u32,
    ) {
        for id in Queue::<T>::get(arena) {
            let Some(mut q) = Proposals::<T>::get(id) else {
                continue;
            };
            if displaces.contains(&q.target) {
                q.status = ProposalStatus::Dropped {
                    displaced_by: crowned,
                };
                Self::leave_queue(id, &mut q);
                Proposals::<T>::insert(id, q);
                Self::deposit_event(Event::ProposalDropped {
                    proposal: id,
                    displaced_by: crowned,
                });
                continue;
            }
            if let ProposalStatus::ReproductionQueued { primary } = &q.status {
                if primary.generation != generation {
                    q.status = ProposalStatus::Queued;
                    Proposals::<T>::insert(id, q);
                    Self::deposit_event(Event::PassDropped {
                        proposal: id,
                        generation,
                    });
                }
            }
        }
    }
}
