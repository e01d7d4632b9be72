//! Crown challenges: anyone may challenge a standing crown with a bond; validator keys of
//! operators other than those that crowned it lease the challenge and re-qualify the crown.
//! Two FAILs that find it wrong (any reason but the speed opinion `NotFaster`) revoke it and
//! slash the operators whose PASSes crowned it; two PASSes reject the challenge and pay its bond to them; otherwise it
//! expires at its deadline and the bond goes back.

use super::*;

/// What an answer says about the challenged crown.
#[derive(PartialEq, Eq)]
enum Stance {
    /// A PASS: the crown is right.
    Requalifies,
    /// A FAIL that finds the crown wrong: it does not build or fit the ABI, breaks the
    /// policy, cheats, copies, or computes wrong results (`Incorrect`, `GraphUnsafe`,
    /// `BehaviourChanged`). Two operators must agree, as for a FAIL of a pending proposal.
    Revokes,
    /// `NotFaster` (a speed opinion: the stack under the crown has moved on since it was
    /// measured) or a NoDecision: it decides nothing.
    Neither,
}

fn stance(verdict: Verdict) -> Stance {
    match verdict {
        Verdict::Pass { .. } => Stance::Requalifies,
        Verdict::Fail {
            reason: FailReason::NotFaster,
        } => Stance::Neither,
        Verdict::Fail { .. } => Stance::Revokes,
        Verdict::NoDecision { .. } => Stance::Neither,
    }
}

impl<T: Config> Pallet<T> {
    /// Opens a challenge of crown `id` for `challenger`, holding `ChallengeBond`.
    pub(crate) fn do_challenge(challenger: T::AccountId, id: ProposalId) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let p = Proposals::<T>::get(id).ok_or(Error::<T>::UnknownProposal)?;
        let ProposalStatus::Crowned { passes, .. } = &p.status else {
            return Err(Error::<T>::NotCrowned.into());
        };
        ensure!(
            Incumbents::<T>::get(&p.arena, &p.target).is_some_and(|e| e.proposal == id),
            Error::<T>::NotCrowned
        );
        ensure!(
            !CrownChallenges::<T>::contains_key(id),
            Error::<T>::AlreadyChallenged
        );
        let mut open = OpenChallenges::<T>::get(&p.arena);
        ensure!(
            (open.len() as u32) < T::MaxOpenChallenges::get(),
            Error::<T>::TooManyChallenges
        );
        let challenge = NextChallengeId::<T>::get();
        let next = challenge.checked_add(1).ok_or(Error::<T>::Overflow)?;
        let bond = T::ChallengeBond::get();

        T::Currency::hold(&HoldReason::ChallengeBond.into(), &challenger, bond)?;
        let deadline = Self::schedule_challenge_deadline(
            challenge,
            now.saturating_add(T::ChallengeWindow::get()),
        )
        .ok_or(Error::<T>::ChallengeScheduleFull)?;
        open.try_push(challenge)
            .map_err(|_| Error::<T>::TooManyChallenges)?;
        OpenChallenges::<T>::insert(&p.arena, open);
        CrownChallenges::<T>::insert(id, challenge);
        NextChallengeId::<T>::put(next);
        Challenges::<T>::insert(
            challenge,
            Challenge {
                proposal: id,
                arena: p.arena.clone(),
                target: p.target.clone(),
                miner: p.miner.clone(),
                challenger: challenger.clone(),
                bond,
                passes: passes.clone(),
                deadline,
                leases: BoundedVec::new(),
                answers: BoundedVec::new(),
            },
        );
        Self::deposit_event(Event::ChallengeOpened {
            challenge,
            proposal: id,
            challenger,
            bond,
            deadline,
        });
        Ok(())
    }

    /// Leases challenge `id` to `validator` for the arena's `lease_blocks`. Leases of one
    /// challenge run side by side, one per operator; a lapsed one is dropped here and its
    /// operator may lease again.
    pub(crate) fn do_claim_challenge(validator: T::AccountId, id: ChallengeId) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let mut c = Challenges::<T>::get(id).ok_or(Error::<T>::UnknownChallenge)?;
        let operator =
            Validators::<T>::get(&c.arena, &validator).ok_or(Error::<T>::NotValidator)?;
        Self::may_answer(&c, &validator, &operator)?;
        c.leases.retain(|l| l.expires_at > now);
        ensure!(
            !c.leases.iter().any(|l| l.operator == operator),
            Error::<T>::ChallengeLeaseHeld
        );
        ensure!(
            ((c.leases.len() + c.answers.len()) as u32) < MAX_CHALLENGE_TURNS,
            Error::<T>::ChallengeFull
        );
        // A re-qualification is a verdict too: its operator stakes the arena's bond first.
        ensure!(
            OperatorBonds::<T>::get(&c.arena, &operator) >= RequiredBonds::<T>::get(&c.arena),
            Error::<T>::BondTooLow
        );
        let info = Arenas::<T>::get(&c.arena).ok_or(Error::<T>::UnknownArena)?;
        let expires_at = now.saturating_add(info.config.policy.lease_blocks);

        c.leases
            .try_push(ChallengeLease {
                validator: validator.clone(),
                operator,
                expires_at,
            })
            .map_err(|_| Error::<T>::ChallengeFull)?;
        Challenges::<T>::insert(id, c);
        Self::deposit_event(Event::ChallengeLeased {
            challenge: id,
            validator,
            expires_at,
        });
        Ok(())
    }

    /// Whether `operator` (through key `validator`) may judge challenge `c`: not if its PASS
    /// crowned the proposal, it (or its key) revealed the proposal or opened the challenge,
    /// or it has answered already.
    fn may_answer(
        c: &ChallengeOf<T>,
        validator: &T::AccountId,
        operator: &T::AccountId,
    ) -> DispatchResult {
        ensure!(
            !c.passes.iter().any(|pass| pass.operator == *operator),
            Error::<T>::PassedByOperator
        );
        let belongs = |who: &T::AccountId| {
            who == validator
                || who == operator
                || KeyOperators::<T>::get(who).is_some_and(|(o, _)| o == *operator)
        };
        ensure!(!belongs(&c.miner), Error::<T>::OwnProposal);
        ensure!(!belongs(&c.challenger), Error::<T>::OwnChallenge);
        ensure!(
            !c.answers.iter().any(|a| a.operator == *operator),
            Error::<T>::AlreadyAnswered
        );
        Ok(())
    }

    /// Records `validator`'s answer to challenge `id` under its lease, and ends the challenge
    /// when two answers agree. Returns the weight of the branch taken.
    pub(crate) fn do_answer_challenge(
        validator: T::AccountId,
        id: ChallengeId,
        verdict: Verdict,
        evidence_digest: EvidenceDigest,
    ) -> Result<Weight, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        let mut c = Challenges::<T>::get(id).ok_or(Error::<T>::UnknownChallenge)?;
        let at = c
            .leases
            .iter()
            .position(|l| l.validator == validator)
            .ok_or(Error::<T>::NotChallengeLeaseHolder)?;
        ensure!(
            Validators::<T>::contains_key(&c.arena, &validator),
            Error::<T>::NotValidator
        );
        ensure!(now < c.leases[at].expires_at, Error::<T>::LeaseExpired);
        let info = Arenas::<T>::get(&c.arena).ok_or(Error::<T>::UnknownArena)?;
        if let Verdict::Pass { speedup_ppm } = verdict {
            Self::check_speedup(&info, speedup_ppm)?;
        }
        // A re-qualification brings its own evidence, not the crown's or another answer's.
        ensure!(
            !c.passes
                .iter()
                .any(|p| p.evidence_digest == evidence_digest)
                && !c
                    .answers
                    .iter()
                    .any(|a| a.evidence_digest == evidence_digest),
            Error::<T>::DuplicateEvidence
        );

        let lease = c.leases.remove(at);
        // An answer counts only while its validator is registered, as a PASS does.
        let arena = c.arena.clone();
        c.answers
            .retain(|a| Validators::<T>::contains_key(&arena, &a.validator));
        // Cannot fail: the lease just removed held this answer's turn.
        c.answers
            .try_push(ChallengeAnswer {
                validator: validator.clone(),
                operator: lease.operator,
                verdict,
                evidence_digest,
            })
            .map_err(|_| Error::<T>::ChallengeFull)?;
        Self::deposit_event(Event::ChallengeAnswered {
            challenge: id,
            validator,
            verdict,
            evidence_digest,
        });

        let revoking: Vec<FailReason> = c
            .answers
            .iter()
            .filter_map(|a| match a.verdict {
                Verdict::Fail { reason } if stance(a.verdict) == Stance::Revokes => Some(reason),
                _ => None,
            })
            .collect();
        let requalifying = c
            .answers
            .iter()
            .filter(|a| stance(a.verdict) == Stance::Requalifies)
            .count();
        if let (true, Some(reason)) = (revoking.len() >= 2, revoking.last()) {
            let queued = Self::revoke(id, &c, *reason, info)?;
            return Ok(T::WeightInfo::answer_challenge_revoke(queued));
        }
        if requalifying >= 2 {
            Self::reject(id, &c);
            return Ok(T::WeightInfo::answer_challenge_reject());
        }
        Challenges::<T>::insert(id, c);
        Ok(T::WeightInfo::answer_challenge())
    }

    /// A PASS's speedup must clear the arena's margin and stay under the arena's cap (which
    /// `set_arena` keeps within the chain's).
    pub(super) fn check_speedup(info: &ArenaInfoOf<T>, speedup_ppm: u32) -> DispatchResult {
        let policy = &info.config.policy;
        ensure!(
            speedup_ppm >= PPM_ONE.saturating_add(policy.min_margin_ppm),
            Error::<T>::BelowMargin
        );
        ensure!(
            speedup_ppm <= policy.max_speedup_ppm.min(T::MaxSpeedupPpm::get()),
            Error::<T>::SpeedupImplausible
        );
        Ok(())
    }

    /// Revokes the crown of challenge `c` (FAILed for `reason` by two operators): a crown
    /// still standing leaves its slot (the slot falls back to the arena's stock), its claim
    /// ends, the generation moves on; the proposal ends `Revoked` and its bytes may not be
    /// revealed again in the arena. The operators whose PASSes crowned it are slashed, part
    /// to the challenger; the challenger's bond is returned. Returns the number of queue
    /// entries walked.
    fn revoke(
        id: ChallengeId,
        c: &ChallengeOf<T>,
        reason: FailReason,
        mut info: ArenaInfoOf<T>,
    ) -> Result<u32, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        let mut queued = 0;
        if let Some(mut p) = Proposals::<T>::get(c.proposal) {
            if matches!(p.status, ProposalStatus::Crowned { .. }) {
                info.generation = info
                    .generation
                    .checked_add(1)
                    .ok_or(Error::<T>::GenerationOverflow)?;
                Incumbents::<T>::remove(&c.arena, &c.target);
                Claims::<T>::remove(c.proposal);
                // Primary PASSes waiting for a reproduction measured the stack with this crown.
                queued = Self::drop_displaced_and_stale(
                    c.proposal,
                    &c.arena,
                    &BoundedVec::new(),
                    info.generation,
                );
                Self::finish(c.proposal, &mut p);
                Arenas::<T>::insert(&c.arena, &info);
            }
            // (A crown superseded or displaced while challenged has left the stack, its
            // bundle and its claim already; its operators are slashed all the same.)
            p.status = ProposalStatus::Revoked {
                at: now,
                challenge: id,
                reason,
            };
            FailedContents::<T>::insert(
                &c.arena,
                p.content_hash,
                FailedContent {
                    proposal: c.proposal,
                    reason,
                    generation: info.generation,
                },
            );
            Proposals::<T>::insert(c.proposal, p);
        }
        let (mut slashed, mut challenger_reward) = (BalanceOf::<T>::zero(), BalanceOf::<T>::zero());
        for pass in c.passes.iter() {
            let (amount, reward) = Self::slash_bond(&c.arena, &pass.operator, &c.challenger);
            slashed = slashed.saturating_add(amount);
            challenger_reward = challenger_reward.saturating_add(reward);
        }
        T::Currency::release(
            &HoldReason::ChallengeBond.into(),
            &c.challenger,
            c.bond,
            Precision::BestEffort,
        )?;
        Self::close_challenge(id, c);
        Self::deposit_event(Event::CrownRevoked {
            proposal: c.proposal,
            challenge: id,
            reason,
            slashed,
            challenger_reward,
        });
        Ok(queued)
    }

    /// Rejects challenge `c` (two PASSes): its bond goes to the operators that PASSed, in
    /// equal parts; the remainder, and a part an operator's account could not take, goes to
    /// the reward pot (or back to the challenger, should the pot refuse it too).
    fn reject(id: ChallengeId, c: &ChallengeOf<T>) {
        let requalified_by: BoundedVec<T::AccountId, MaxPasses> = BoundedVec::truncate_from(
            c.answers
                .iter()
                .filter(|a| stance(a.verdict) == Stance::Requalifies)
                .map(|a| a.operator.clone())
                .collect(),
        );
        let reason = HoldReason::ChallengeBond.into();
        let pay = |to: &T::AccountId, amount: BalanceOf<T>| {
            T::Currency::transfer_on_hold(
                &reason,
                &c.challenger,
                to,
                amount,
                Precision::BestEffort,
                Restriction::Free,
                Fortitude::Force,
            )
            .unwrap_or_else(|_| Zero::zero())
        };
        let each = c.bond / BalanceOf::<T>::from(requalified_by.len().max(1) as u32);
        let mut paid = BalanceOf::<T>::zero();
        for operator in requalified_by.iter() {
            paid = paid.saturating_add(pay(operator, each));
        }
        let rest = c.bond.saturating_sub(paid);
        let to_pot = pay(&Self::pot_account(), rest);
        let _ = T::Currency::release(
            &reason,
            &c.challenger,
            rest.saturating_sub(to_pot),
            Precision::BestEffort,
        );
        Self::close_challenge(id, c);
        Self::deposit_event(Event::ChallengeRejected {
            challenge: id,
            proposal: c.proposal,
            requalified_by,
            paid_each: each,
        });
    }

    /// Ends the challenges whose deadline is `now` without two agreeing answers: bonds
    /// returned. Returns how many deadlines were read.
    pub(crate) fn expire_challenges(now: BlockNumberFor<T>) -> u32 {
        let ids = ChallengeDeadlines::<T>::take(now);
        for id in ids.iter() {
            let Some(c) = Challenges::<T>::get(id) else {
                continue;
            };
            if c.deadline != now {
                continue;
            }
            let _ = T::Currency::release(
                &HoldReason::ChallengeBond.into(),
                &c.challenger,
                c.bond,
                Precision::BestEffort,
            );
            Self::close_challenge(*id, &c);
            Self::deposit_event(Event::ChallengeExpired {
                challenge: *id,
                proposal: c.proposal,
            });
        }
        ids.len() as u32
    }

    /// Removes challenge `id` and every index of it.
    fn close_challenge(id: ChallengeId, c: &ChallengeOf<T>) {
        Challenges::<T>::remove(id);
        CrownChallenges::<T>::remove(c.proposal);
        OpenChallenges::<T>::mutate_exists(&c.arena, |open| {
            if let Some(list) = open {
                list.retain(|x| *x != id);
                if list.is_empty() {
                    *open = None;
                }
            }
        });
        ChallengeDeadlines::<T>::mutate_exists(c.deadline, |ids| {
            if let Some(list) = ids {
                list.retain(|x| *x != id);
                if list.is_empty() {
                    *ids = None;
                }
            }
        });
    }

    /// Schedules challenge `id`'s expiry in the first block from `first` with room (at most
    /// `DEADLINE_TRIES` blocks on). Every open challenge has one deadline, at most
    /// `MaxOpenChallenges` per arena, so with `DEADLINE_TRIES ≥ MaxArenas` (checked by
    /// `integrity_test`) there is always room.
    fn schedule_challenge_deadline(
        id: ChallengeId,
        first: BlockNumberFor<T>,
    ) -> Option<BlockNumberFor<T>> {
        let mut at = first;
        for _ in 0..DEADLINE_TRIES {
            if ChallengeDeadlines::<T>::try_mutate(at, |ids| ids.try_push(id)).is_ok() {
                return Some(at);
            }
            at = at.saturating_add(One::one());
        }
        None
    }
}
