//! Validators' leases: a claim takes a proposal's next phase in queue order, and deadlines
//! (a lease's end, a reproduction wait's) are scheduled, unscheduled and run out.

use super::*;

impl<T: Config> Pallet<T> {
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
        // An operator stakes something on its verdicts in this arena before it gives any.
        ensure!(
            OperatorBonds::<T>::get(&p.arena, &operator) >= RequiredBonds::<T>::get(&p.arena),
            Error::<T>::BondTooLow
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
        // The wait's clock stands still while the reproduction is leased by an operator that
        // never stalled this proposal: its deadline moves by the lease's length, so a lease
        // that ends without a verdict hands the wait back with the time it had left, and an
        // idle lease cannot run out the wait. An operator that stalled before leases again
        // only when no other may (see `store_or_expire`); its lease does not stop the clock,
        // or the last operators left could keep the wait open by taking turns.
        let stops_clock = !p.stalled.contains(&operator);
        p.status = match core::mem::replace(&mut p.status, ProposalStatus::Queued) {
            ProposalStatus::ReproductionQueued { primary, until } => ProposalStatus::Reproduction {
                primary,
                until: match stops_clock {
                    true => until.saturating_add(expires_at.saturating_sub(now)),
                    false => until,
                },
                lease,
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
    pub(super) fn end_lease(id: ProposalId, lease: &LeaseOf<T>) {
        Self::unschedule(id, lease.expires_at);
        OpenLeases::<T>::mutate_exists(&lease.operator, |n| {
            *n = n.and_then(|n| n.checked_sub(1)).filter(|n| *n > 0);
        });
    }

    /// A wait for a reproduction or for a reveal that ends (leased, revealed, withdrawn,
    /// dropped, expired): off the deadline schedule. Any other status has no wait.
    pub(crate) fn end_wait(id: ProposalId, status: &StatusOf<T>) {
        if let ProposalStatus::ReproductionQueued { until, .. }
        | ProposalStatus::AwaitingReveal { until, .. } = status
        {
            Self::unschedule(id, *until);
        }
    }

    /// Ends a proposal whose wait for a reproduction ran out: expired, deposits returned.
    /// The caller stores it.
    pub(super) fn time_out(id: ProposalId, p: &mut ProposalOf<T>, primary_validator: T::AccountId) {
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

    /// Expires the pending proposals revealed `PendingLifetime` or more blocks before `now`
    /// (deposits returned), at most `MaxLeasesPerBlock` a block. Each queue is in reveal
    /// order, so only its front is read. Returns how many expired.
    pub(crate) fn expire_overdue(now: BlockNumberFor<T>) -> u32 {
        let lifetime = T::PendingLifetime::get();
        let most = T::MaxLeasesPerBlock::get();
        let mut ended = 0u32;
        for arena in Arenas::<T>::iter_keys() {
            for id in Queue::<T>::get(&arena) {
                if ended >= most {
                    return ended;
                }
                let Some(mut p) = Proposals::<T>::get(id) else {
                    continue;
                };
                if p.reveal_block.saturating_add(lifetime) > now {
                    break;
                }
                match &p.status {
                    ProposalStatus::Primary { lease }
                    | ProposalStatus::Reproduction { lease, .. } => Self::end_lease(id, lease),
                    status => Self::end_wait(id, status),
                }
                p.status = ProposalStatus::Expired;
                Self::leave_queue(id, &mut p);
                Proposals::<T>::insert(id, p);
                Self::deposit_event(Event::LifetimeEnded { proposal: id });
                ended += 1;
            }
        }
        ended
    }

    /// Deadlines at `now`: leases that end go back to their queues, waits for a reproduction
    /// that time out expire, sealed PASSes not revealed in time are void. Returns how many
    /// deadlines were processed other than missed reveals, and how many reveals were missed.
    pub(crate) fn expire_leases(now: BlockNumberFor<T>) -> (u32, u32) {
        let ids = LeaseDeadlines::<T>::take(now);
        let mut missed = 0u32;
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
                } => (lease.clone(), Some((primary.clone(), Some(*until)))),
                ProposalStatus::ReproductionQueued { primary, until } if *until == now => {
                    let primary_validator = primary.validator().clone();
                    Self::time_out(*id, &mut p, primary_validator);
                    Proposals::<T>::insert(id, p);
                    continue;
                }
                ProposalStatus::AwaitingReveal { until, .. } if *until == now => {
                    Self::miss_reveal(*id, p);
                    missed += 1;
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
        (ids.len() as u32 - missed, missed)
    }
}

/// A validator key (and its operator) about to claim, with what its claims depend on.
pub(super) struct Claimant<T: Config> {
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
                ensure!(
                    *primary.operator() != self.operator,
                    Error::<T>::SameOperator
                );
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
pub(super) struct QueueAhead {
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
pub(super) fn overlaps(a: &TargetSpec, b: &TargetSpec) -> bool {
    a.id == b.id
        || a.members.iter().any(|m| b.members.contains(m))
        || a.displaces.contains(&b.id)
        || b.displaces.contains(&a.id)
}
