//! Configuration by the admin origin: targets (with their displacement order), arenas,
//! validator keys and the emissions policy, each checked before it is stored.

use super::*;

impl<T: Config> Pallet<T> {
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
        // A crown retires each displaced entry once: a duplicate would drop a bundle twice.
        let distinct: BTreeSet<_> = spec.displaces.iter().collect();
        ensure!(
            distinct.len() == spec.displaces.len(),
            Error::<T>::DuplicateDisplaced
        );
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
    pub(super) fn displacement_is_acyclic(spec: &TargetSpec) -> bool {
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
        ensure!(
            Self::pending_life_needed(p) <= T::PendingLifetime::get(),
            Error::<T>::LifetimeTooShort
        );
        ensure!(
            (PPM_ONE + p.min_margin_ppm..=T::MaxSpeedupPpm::get()).contains(&p.max_speedup_ppm),
            Error::<T>::SpeedupCapOutOfRange
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

    /// How long leases can keep a proposal pending under `policy` while some operator that
    /// never stalled it may still take it, which `PendingLifetime` must cover, or operators
    /// that stall could run out a good proposal's life instead of needing `max_attempts` of
    /// them. A stall excludes its operator for the rest of the proposal's life (unless no
    /// other may lease it), so at most `max_attempts - 1` leases end in a stall before the
    /// proposal expires, and at most three end in a verdict that leaves it pending or
    /// crowns it (a disputed FAIL, the primary PASS, the reproduction's PASS):
    /// `max_attempts + 2` leases, each ending at most `DEADLINE_TRIES` blocks after `lease_blocks`. Add
    /// the wait for a reproduction and the reveal window before a crowning lease.
    ///
    /// Blind verdicts add the wait for a sealed PASS's reveal (`RevealTimeout`, at most
    /// `DEADLINE_TRIES` blocks late), at most once: a sealed PASS is only ever a primary, and
    /// after a missed reveal the primary is open. A missed reveal is one of the stalls (its
    /// operator's, excluded after it), and it makes the reproduction's PASS the primary, whose
    /// reproduction is one more lease ending in a verdict and one more wait: still
    /// `max_attempts + 2` leases in all (`max_attempts − 2` stalling and four verdicts, or
    /// `max_attempts − 1` and three), and two reproduction waits.
    pub fn pending_life_needed(policy: &ArenaPolicy<BlockNumberFor<T>>) -> BlockNumberFor<T> {
        let leases: BlockNumberFor<T> = policy.max_attempts.saturating_add(2).into();
        let per_lease = policy.lease_blocks.saturating_add(DEADLINE_TRIES.into());
        leases
            .saturating_mul(per_lease)
            .saturating_add(T::ReproductionTimeout::get().saturating_mul(2u32.into()))
            .saturating_add(T::RevealTimeout::get())
            .saturating_add(DEADLINE_TRIES.into())
            .saturating_add(T::RevealWindow::get())
    }

    /// Overturns `id`'s FAIL: `Overturned`, the forfeited deposit refunded from the pot,
    /// the recorded FAIL removed.
    pub(crate) fn do_overturn_fail(id: ProposalId) -> DispatchResult {
        let mut p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let ProposalStatus::Failed { reason } = p.status else {
            return Err(Error::<T>::NotFailed.into());
        };
        let refunded = SlashedDeposits::<T>::get(id).unwrap_or_else(Zero::zero);
        if !refunded.is_zero() {
            T::Currency::transfer(
                &Self::pot_account(),
                &p.miner,
                refunded,
                Preservation::Preserve,
            )
            .map_err(|_| Error::<T>::PotCannotRefund)?;
        }
        SlashedDeposits::<T>::remove(id);
        FailVerdicts::<T>::remove(id);
        Self::forget_failed_content(id, &p);
        p.status = ProposalStatus::Overturned { reason };
        let miner = p.miner.clone();
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::FailOverturned {
            proposal: id,
            miner,
            reason,
            refunded,
        });
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

    pub(crate) fn do_remove_validator(arena: ArenaId, validator: T::AccountId) -> DispatchResult {
        let mut info = Arenas::<T>::get(&arena).ok_or(Error::<T>::UnknownArena)?;
        ensure!(
            Validators::<T>::contains_key(&arena, &validator),
            Error::<T>::NotValidator
        );
        info.validators = info.validators.saturating_sub(1);
        Validators::<T>::remove(&arena, &validator);
        let last = KeyOperators::<T>::mutate_exists(&validator, |k| {
            if let Some((_, arenas)) = k {
                *arenas = arenas.saturating_sub(1);
                if *arenas == 0 {
                    *k = None;
                }
            }
            k.is_none()
        });
        if last {
            // A key in no arena publishes no evidence.
            EvidenceEndpoints::<T>::remove(&validator);
        }
        Arenas::<T>::insert(&arena, info);
        Self::deposit_event(Event::ValidatorRemoved { arena, validator });
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
}
