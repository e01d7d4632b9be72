//! The walk's steps about stakes: operators bonding, unbonding and withdrawing what they
//! unbonded; crown challenges opened (mostly of a standing crown, by anyone), leased (mostly
//! by a key that may judge them) and answered (mostly by the lease's holder, with a PASS, a
//! FAIL of either kind or a NoDecision).

use super::*;

/// Who opens challenges: mostly accounts that are not operators, sometimes an operator.
const CHALLENGERS: [AccountId; 5] = [OUTSIDER, OUTSIDER, ALICE, BOB, V3];

impl Walk {
    /// An operator bonds, unbonds (sometimes more than it has: refused) or withdraws what it
    /// unbonded (often before its time: refused).
    pub(super) fn bond(&mut self) -> Action {
        let operator = self.rng.pick(&OPERATORS);
        if self.rng.chance(30) {
            // Mostly an operator with a chunk due.
            let due: Vec<AccountId> = Unbonding::<Test>::iter_prefix(id(ARENA))
                .filter(|(_, chunks)| chunks.iter().any(|c| c.release_at <= now()))
                .map(|(operator, _)| operator)
                .collect();
            let operator = match due.is_empty() || self.rng.chance(20) {
                true => operator,
                false => self.rng.pick(&due),
            };
            return Action::WithdrawUnbonded { operator };
        }
        Action::Bond {
            operator,
            amount: self.rng.pick(&[0, 50, 100, 200, 400]),
            unbond: self.rng.chance(35),
        }
    }

    /// A challenge step: open, lease or answer.
    pub(super) fn challenge_step(&mut self) -> Action {
        let open: Vec<(ChallengeId, ChallengeOf<Test>)> = Challenges::<Test>::iter().collect();
        let leased: Vec<(ChallengeId, AccountId)> = open
            .iter()
            .flat_map(|(id, c)| c.leases.iter().map(|l| (*id, l.validator)))
            .collect();
        let crowned = Proposals::<Test>::iter_values()
            .any(|p| matches!(p.status, ProposalStatus::Crowned { .. }));
        match self.rng.below(100) {
            // Nothing to challenge yet: usually an attestation instead, to get to a crown.
            _ if open.is_empty() && !crowned && self.rng.chance(90) => self.attest(),
            _ if open.is_empty() && self.rng.chance(90) => self.open_challenge(),
            0..=24 => self.open_challenge(),
            25..=59 => self.claim_challenge(&open),
            _ if leased.is_empty() && self.rng.chance(80) => self.claim_challenge(&open),
            _ => self.answer_challenge(&open, &leased),
        }
    }

    fn open_challenge(&mut self) -> Action {
        // Mostly a crown not under challenge yet.
        let crowned: Vec<ProposalId> = Proposals::<Test>::iter()
            .filter(|(id, p)| {
                matches!(p.status, ProposalStatus::Crowned { .. })
                    && (!CrownChallenges::<Test>::contains_key(id) || self.rng.chance(10))
            })
            .map(|(id, _)| id)
            .collect();
        let proposal = if !crowned.is_empty() && self.rng.chance(85) {
            self.rng.pick(&crowned)
        } else {
            self.some_proposal(30)
        };
        Action::Challenge {
            challenger: self.rng.pick(&CHALLENGERS),
            proposal,
        }
    }

    /// A challenge id: mostly an open one, else any id up to one past the last.
    fn some_challenge(&mut self, open: &[(ChallengeId, ChallengeOf<Test>)]) -> ChallengeId {
        if !open.is_empty() && self.rng.chance(90) {
            open[self.rng.below(open.len() as u64) as usize].0
        } else {
            self.rng.below(NextChallengeId::<Test>::get() + 1)
        }
    }

    fn claim_challenge(&mut self, open: &[(ChallengeId, ChallengeOf<Test>)]) -> Action {
        let challenge = self.some_challenge(open);
        // Mostly a registered key whose operator may judge the challenge (it did not crown
        // the proposal, reveal it or open the challenge, and has not answered yet).
        let barred: Vec<AccountId> = Challenges::<Test>::get(challenge)
            .map(|c| {
                let operator_of = |who: AccountId| KeyOperators::<Test>::get(who).map(|(o, _)| o);
                c.passes
                    .iter()
                    .map(|p| p.operator)
                    .chain(c.answers.iter().map(|a| a.operator))
                    .chain([c.miner, c.challenger])
                    .chain(operator_of(c.miner))
                    .chain(operator_of(c.challenger))
                    .collect()
            })
            .unwrap_or_default();
        let eligible: Vec<AccountId> = Validators::<Test>::iter_prefix(id(ARENA))
            .filter(|(key, operator)| !barred.contains(operator) && !barred.contains(key))
            .map(|(key, _)| key)
            .collect();
        let validator = if !eligible.is_empty() && self.rng.chance(90) {
            self.rng.pick(&eligible)
        } else {
            self.rng.pick(&VALIDATOR_KEYS)
        };
        // Usually the answer follows in the same block.
        if !eligible.is_empty() && self.rng.chance(75) {
            self.planned = Some(self.answer_by(validator, challenge));
        }
        Action::ClaimChallenge {
            validator,
            challenge,
        }
    }

    fn answer_challenge(
        &mut self,
        open: &[(ChallengeId, ChallengeOf<Test>)],
        leased: &[(ChallengeId, AccountId)],
    ) -> Action {
        let (challenge, validator) = if !leased.is_empty() && self.rng.chance(92) {
            leased[self.rng.below(leased.len() as u64) as usize]
        } else {
            (self.some_challenge(open), self.rng.pick(&VALIDATOR_KEYS))
        };
        self.answer_by(validator, challenge)
    }

    /// `validator`'s answer to `challenge`: mostly the challenge's own truth (as honest
    /// operators would agree: a PASS within every arena cap the walk sets, or a FAIL for what
    /// the bytes are, by the challenge's id and the seed), else a verdict of any kind.
    fn answer_by(&mut self, validator: AccountId, challenge: ChallengeId) -> Action {
        let truth = match (challenge ^ self.seed).is_multiple_of(2) {
            true => Verdict::Pass {
                speedup_ppm: self.rng.between(
                    (PPM_ONE + MARGIN_PPM) as u64,
                    (PPM_ONE + MARGIN_PPM) as u64 + 400_000,
                ) as u32,
            },
            false => Verdict::Fail {
                reason: FailReason::Cheating,
            },
        };
        let verdict = match self.rng.below(100) {
            _ if self.rng.chance(70) => truth,
            0..=39 => Verdict::Pass {
                speedup_ppm: self.speedup(),
            },
            40..=74 => Verdict::Fail {
                reason: self.rng.pick(&[
                    FailReason::Build,
                    FailReason::Abi,
                    FailReason::Policy,
                    FailReason::Cheating,
                ]),
            },
            75..=92 => Verdict::Fail {
                reason: self.rng.pick(&FAIL_REASONS),
            },
            _ => Verdict::NoDecision {
                reason: self.rng.pick(&NO_DECISION_REASONS),
            },
        };
        Action::AnswerChallenge {
            validator,
            challenge,
            verdict,
            // Few digests, so that an answer sometimes repeats the crown's or another's.
            evidence: self.rng.below(16) as u8,
        }
    }

    /// The call of a stake action.
    pub(super) fn stake_call(action: &Action) -> (RuntimeOrigin, crate::Call<Test>) {
        use crate::Call as C;
        let arena = id(ARENA);
        match *action {
            Action::Bond {
                operator,
                amount,
                unbond: false,
            } => (signed(operator), C::bond { arena, amount }),
            Action::Bond {
                operator,
                amount,
                unbond: true,
            } => (signed(operator), C::unbond { arena, amount }),
            Action::WithdrawUnbonded { operator } => {
                (signed(operator), C::withdraw_unbonded { arena })
            }
            Action::Challenge {
                challenger,
                proposal,
            } => (signed(challenger), C::challenge { proposal }),
            Action::ClaimChallenge {
                validator,
                challenge,
            } => (signed(validator), C::claim_challenge { challenge }),
            Action::AnswerChallenge {
                validator,
                challenge,
                verdict,
                evidence,
            } => (
                signed(validator),
                C::answer_challenge {
                    challenge,
                    verdict,
                    evidence_digest: [evidence; 32],
                },
            ),
            _ => unreachable!("not a stake action: {action:?}"),
        }
    }
}
