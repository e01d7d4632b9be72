//! Attestations: a lease's verdict moves its proposal on (a PASS to its reproduction or its
//! crown, a FAIL to its end, a NoDecision back to its queue or to its end). A primary PASS
//! where two operators must agree is attested sealed (`blind.rs`).

use super::*;

/// A lease checked for its holder's attestation, with what the attestation needs.
pub(super) struct Leased<T: Config> {
    pub p: ProposalOf<T>,
    pub lease: LeaseOf<T>,
    /// The primary PASS, for a reproduction.
    pub primary: Option<PrimaryPass<T::AccountId>>,
    /// The reproduction wait's deadline, for a reproduction.
    pub kept_until: Option<BlockNumberFor<T>>,
    pub info: ArenaInfoOf<T>,
}

impl<T: Config> Pallet<T> {
    /// `id`'s open lease, if `validator` holds it, may still attest it (registered, before the
    /// lease's end) and names its generation.
    pub(super) fn leased(
        validator: &T::AccountId,
        id: ProposalId,
        incumbent_generation: u32,
    ) -> Result<Leased<T>, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        let p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let (lease, primary, kept_until) = match &p.status {
            ProposalStatus::Primary { lease } => (lease.clone(), None, None),
            ProposalStatus::Reproduction {
                primary,
                lease,
                until,
            } => (lease.clone(), Some(primary.clone()), Some(*until)),
            _ => return Err(Error::<T>::NotLeaseHolder.into()),
        };
        ensure!(lease.validator == *validator, Error::<T>::NotLeaseHolder);
        ensure!(
            Validators::<T>::contains_key(&p.arena, validator),
            Error::<T>::NotValidator
        );
        ensure!(now < lease.expires_at, Error::<T>::LeaseExpired);
        ensure!(
            incumbent_generation == lease.generation,
            Error::<T>::GenerationMismatch
        );
        let info = Arenas::<T>::get(&p.arena).ok_or(Error::<T>::UnknownArena)?;
        Ok(Leased {
            p,
            lease,
            primary,
            kept_until,
            info,
        })
    }

    /// An attestation measured against an incumbent that has since changed: not the miner's
    /// fault, so no attempt; but its operator sits out, as after a stall, or holding a lease
    /// across a crown would buy it a free re-lease. Back to the queue; stores the proposal.
    pub(super) fn requeue_stale(
        id: ProposalId,
        mut p: ProposalOf<T>,
        validator: T::AccountId,
        lease: &LeaseOf<T>,
        current: u32,
    ) {
        p.status = ProposalStatus::Queued;
        Self::exclude(&mut p, lease.operator.clone());
        Self::store_or_expire(id, p);
        Self::deposit_event(Event::AttestationStale {
            proposal: id,
            validator,
            generation: lease.generation,
            current,
        });
    }

    /// A disputed FAIL counts only while its validator is registered.
    pub(super) fn forget_unregistered_dispute(p: &mut ProposalOf<T>) {
        if p.disputed
            .as_ref()
            .is_some_and(|d| !Validators::<T>::contains_key(&p.arena, &d.validator))
        {
            p.disputed = None;
        }
    }

    /// Records `validator`'s attestation of its lease on `id`. Returns the weight of the branch
    /// taken.
    pub(crate) fn do_attest(
        validator: T::AccountId,
        id: ProposalId,
        a: Attestation,
    ) -> Result<Weight, DispatchError> {
        let Leased {
            mut p,
            lease,
            primary,
            kept_until,
            info,
        } = Self::leased(&validator, id, a.incumbent_generation)?;
        let required = info.config.policy.required_distinct_validators;
        if let Verdict::Pass { speedup_ppm } = a.verdict {
            // Where two operators must agree, the primary PASS is sealed: the reproduction
            // must not read its speedup or evidence before it has measured its own.
            ensure!(
                primary.is_some() || required <= 1,
                Error::<T>::PassMustBeSealed
            );
            Self::check_speedup(&info, speedup_ppm)?;
            if let Some(PrimaryPass::Open(primary)) = &primary {
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
            // (A FAIL that does not depend on the incumbent — cheating, a build, ABI or policy
            // failure — is judged below whatever the generation.)
            Self::requeue_stale(id, p, validator, &lease, info.generation);
            return Ok(T::WeightInfo::attest_pass());
        }
        // A PASS or a disputed FAIL counts only while its validator is registered.
        let primary = match primary {
            Some(pr) if !Validators::<T>::contains_key(&p.arena, pr.validator()) => {
                Self::deposit_event(Event::PassDropped {
                    proposal: id,
                    generation: info.generation,
                });
                None
            }
            pr => pr,
        };
        Self::forget_unregistered_dispute(&mut p);
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
                // A one-validator arena's primary PASS, or a reproduction's PASS whose primary
                // stopped counting (it becomes the primary, in the open: it is public now).
                let pass = this_pass(speedup_ppm);
                if let Some(fail) = &p.disputed {
                    Self::deposit_event(Event::AttestationsDisagreed {
                        proposal: id,
                        pass_validator: validator.clone(),
                        pass_evidence: Some(a.evidence_digest),
                        fail_validator: fail.validator.clone(),
                        fail_evidence: fail.evidence_digest,
                        reason: fail.reason,
                    });
                }
                if required <= 1 {
                    Self::crown(
                        id,
                        p,
                        info,
                        speedup_ppm,
                        alloc::vec![pass],
                        T::WeightInfo::attest_crown,
                    )?
                } else {
                    Self::deposit_event(Event::PassRecorded {
                        proposal: id,
                        validator,
                        speedup_ppm,
                        evidence_digest: a.evidence_digest,
                    });
                    let primary = PrimaryPass::Open(pass);
                    Self::await_reproduction(id, &mut p, primary, info.generation, None);
                    // The wait, not the PASS, ends a proposal nobody may reproduce (an
                    // operator may yet be registered); but stallers may try again.
                    Self::lift_if_nobody_left(&mut p);
                    Proposals::<T>::insert(id, p);
                    T::WeightInfo::attest_pass()
                }
            }
            (Verdict::Pass { .. }, Some(primary)) if primary.generation() != info.generation => {
                // Both PASSes must measure the same incumbent; the primary's is gone.
                p.status = ProposalStatus::Queued;
                Proposals::<T>::insert(id, p);
                Self::deposit_event(Event::PassDropped {
                    proposal: id,
                    generation: info.generation,
                });
                T::WeightInfo::attest_pass()
            }
            (Verdict::Pass { speedup_ppm }, Some(PrimaryPass::Open(primary))) => {
                let lower = speedup_ppm.min(primary.speedup_ppm);
                let pass = this_pass(speedup_ppm);
                Self::crown(
                    id,
                    p,
                    info,
                    lower,
                    alloc::vec![primary, pass],
                    T::WeightInfo::attest_crown,
                )?
            }
            (Verdict::Pass { speedup_ppm }, Some(PrimaryPass::Sealed(primary))) => {
                Self::await_reveal(id, p, primary, this_pass(speedup_ppm))?
            }
            (Verdict::Fail { reason }, primary) => {
                if let Some(primary) = &primary {
                    Self::deposit_event(Event::AttestationsDisagreed {
                        proposal: id,
                        pass_validator: primary.validator().clone(),
                        pass_evidence: match primary {
                            PrimaryPass::Open(pass) => Some(pass.evidence_digest),
                            PrimaryPass::Sealed(_) => None,
                        },
                        fail_validator: validator.clone(),
                        fail_evidence: a.evidence_digest,
                        reason,
                    });
                }
                // One operator's word alone does not end a proposal: any FAIL waits for a
                // second operator's attempt, and sticks when that one FAILs too. The bundle
                // deposit is forfeited only when both FAILs name an act (`Cheating`, `CopyOf`).
                if required <= 1 || p.disputed.is_some() {
                    let slash = confiscating(reason)
                        && (required <= 1
                            || p.disputed.as_ref().is_some_and(|d| confiscating(d.reason)));
                    // This FAIL and the one it agrees with are the verdicts the outcome
                    // confirms.
                    let disputer = p.disputed.as_ref().map(|d| d.operator.clone());
                    Self::pay_verdicts(
                        id,
                        &p.miner,
                        core::iter::once(&lease.operator).chain(disputer.as_ref()),
                    );
                    let fail = RecordedFail {
                        validator,
                        operator: lease.operator,
                        reason,
                        evidence_digest: a.evidence_digest,
                    };
                    Self::fail(id, p, fail, slash);
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
                    primary.map(|pr| (pr, kept_until)),
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

    /// Ends `p` with `fail`, a FAIL that sticks: with `slash` (two operators named an act,
    /// or the chain found a copy) the bundle deposit is forfeited, otherwise returned. Stores
    /// the proposal and the FAIL ([`FailVerdicts`]).
    pub(crate) fn fail(
        id: ProposalId,
        mut p: ProposalOf<T>,
        fail: RecordedFail<T::AccountId>,
        slash: bool,
    ) {
        let reason = fail.reason;
        p.status = ProposalStatus::Failed { reason };
        if slash {
            Self::slash_bundle_deposit(id, &mut p);
        }
        // A copy's bytes belong to another miner already; any other FAIL refuses a replay.
        if !matches!(reason, FailReason::CopyOf(_)) {
            let generation = Arenas::<T>::get(&p.arena).map_or(0, |a| a.generation);
            FailedContents::<T>::insert(
                &p.arena,
                p.content_hash,
                FailedContent {
                    proposal: id,
                    reason,
                    generation,
                },
            );
        }
        Self::leave_queue(id, &mut p);
        Proposals::<T>::insert(id, p);
        Self::deposit_event(Event::Failed {
            proposal: id,
            validator: fail.validator.clone(),
            reason,
            evidence_digest: fail.evidence_digest,
        });
        FailVerdicts::<T>::insert(id, fail);
    }

    /// When no registered operator may lease pending `p`, the operators that stalled it may
    /// again (a crashed validator comes back); the one whose FAIL waits stays out.
    pub(super) fn lift_if_nobody_left(p: &mut ProposalOf<T>) {
        if p.status.is_pending() && !Self::operator_left(p) {
            let disputer = p.disputed.as_ref().map(|d| d.operator.clone());
            p.excluded.retain(|o| Some(o) == disputer.as_ref());
        }
    }

    /// Bars `operator` from further leases of `p`.
    pub(super) fn exclude(p: &mut ProposalOf<T>, operator: T::AccountId) {
        if !p.excluded.contains(&operator) {
            // Stalls that count come from at most `max_attempts` ≤ `MAX_ATTEMPTS_BOUND`
            // operators before the proposal expires, plus one disputed FAIL. Only stale
            // attestations of many operators could fill the list; then the last of them is
            // not excluded (it cost no attempt either).
            let _ = p.excluded.try_push(operator);
        }
    }

    /// Whether some registered operator may still lease `p`'s next phase (not excluded, not
    /// the miner's, not the primary PASS's).
    pub(super) fn operator_left(p: &ProposalOf<T>) -> bool {
        let miners_operator = KeyOperators::<T>::get(&p.miner).map(|(o, _)| o);
        let primary = match &p.status {
            ProposalStatus::ReproductionQueued { primary, .. } => Some(primary.operator()),
            ProposalStatus::AwaitingReveal { primary, .. } => Some(&primary.operator),
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

    /// Stores a requeued proposal. When no registered operator may lease it, the stalls'
    /// exclusions lift (stalls alone never expire a proposal before `max_attempts`); when
    /// still none may (the others are the miner's, the primary PASS's or the disputer), it
    /// expires (deposits returned). (A proposal that already ended, its wait for a
    /// reproduction run out, is only stored.)
    pub(super) fn store_or_expire(id: ProposalId, mut p: ProposalOf<T>) {
        Self::lift_if_nobody_left(&mut p);
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
    /// `primary`: the primary PASS and the deadline of its wait (kept, or `None` for a
    /// fresh one), for a reproduction or a PASS promoted after a missed reveal.
    pub(super) fn requeue_or_expire(
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
            Self::await_reproduction(id, &mut p, primary, generation, kept_until);
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
    pub(super) fn await_reproduction(
        id: ProposalId,
        p: &mut ProposalOf<T>,
        primary: PrimaryPass<T::AccountId>,
        generation: u32,
        kept_until: Option<BlockNumberFor<T>>,
    ) {
        let now = frame_system::Pallet::<T>::block_number();
        if primary.generation() == generation {
            let first = match kept_until {
                Some(until) if until <= now => {
                    Self::time_out(id, p, primary.validator().clone());
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
}

/// Whether a FAIL for `reason` names an act that forfeits the bundle deposit once a second
/// operator agrees.
pub(super) fn confiscating(reason: FailReason) -> bool {
    matches!(reason, FailReason::Cheating | FailReason::CopyOf(_))
}
