//! Crown challenges: anyone challenges a standing crown with a bond, operators other than
//! those that crowned it re-qualify it, and two agreeing answers revoke it (and slash its
//! operators) or reject the challenge (and pay them). Each attack test fails on the rules
//! before challenges: nothing revoked a crown.

use super::*;

fn challenge_held(who: AccountId) -> Balance {
    held(HoldReason::ChallengeBond, who)
}

fn bond_held(who: AccountId) -> Balance {
    held(HoldReason::OperatorBond, who)
}

/// Registers V4 as a fourth operator (its own key): with V1 and V2 crowning, V3 and V4 are
/// the operators left to re-qualify.
fn fourth_operator() {
    assert_ok!(Cacheon::add_validator(root(), id(ARENA), V4, V4));
}

/// The arena requires `amount` bonded, and every operator bonds it.
fn everyone_bonds(amount: Balance) {
    assert_ok!(Cacheon::set_required_bond(root(), id(ARENA), amount));
    for operator in [V1, V2, V3, V4] {
        assert_ok!(Cacheon::bond(signed(operator), id(ARENA), amount));
    }
}

/// ALICE's bundle `tag` for `target`, crowned by V1 and V2 (who PASS whatever it is).
fn crowned(target: &[u8], tag: &str) -> ProposalId {
    let p = submit(ALICE, target, tag);
    crown_with(p, 1_100_000);
    assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    p
}

/// `challenger` challenges `p`; returns the challenge's id.
fn open(challenger: AccountId, p: ProposalId) -> ChallengeId {
    let c = NextChallengeId::<Test>::get();
    assert_ok!(Cacheon::challenge(signed(challenger), p));
    c
}

/// `v` leases challenge `c` and answers `verdict` with evidence `[seed; 32]`.
fn answer(v: AccountId, c: ChallengeId, verdict: Verdict, seed: u8) -> DispatchResult {
    Cacheon::claim_challenge(signed(v), c).map_err(|e| e.error)?;
    Cacheon::answer_challenge(signed(v), c, verdict, [seed; 32])
        .map(|_| ())
        .map_err(|e| e.error)
}

fn failing(reason: FailReason) -> Verdict {
    Verdict::Fail { reason }
}

fn passing() -> Verdict {
    Verdict::Pass {
        speedup_ppm: 1_050_000,
    }
}

/// Two colluding operators PASS a bundle that does not even build and crown it. Before,
/// nothing could take the crown back: it held its slot and earned for ever. Now anyone
/// challenges it, two other operators FAIL it for what it is, the crown is revoked and each
/// colluder loses `RevocationSlash` of its arena bond, part of it to the challenger.
#[test]
fn two_colluding_operators_crown_then_a_challenge_revokes_and_slashes_them() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        everyone_bonds(400);
        let p = crowned(SILU, "does-not-build");
        let pot_before = free(pot());

        let c = open(OUTSIDER, p);
        System::assert_last_event(ev(CEvent::ChallengeOpened {
            challenge: c,
            proposal: p,
            challenger: OUTSIDER,
            bond: CHALLENGE_BOND,
            deadline: now() + CHALLENGE_WINDOW,
        }));
        assert_eq!(challenge_held(OUTSIDER), CHALLENGE_BOND);
        assert_eq!(CrownChallenges::<Test>::get(p), Some(c));

        assert_ok!(answer(V3, c, failing(FailReason::Cheating), 30));
        // One FAIL alone decides nothing.
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_ok!(answer(V4, c, failing(FailReason::Build), 31));

        // Half of each colluder's 400, half of that to the challenger.
        let (slashed_each, reward_each) = (200, 100);
        assert_eq!(
            status(p),
            ProposalStatus::Revoked {
                at: now(),
                challenge: c,
                reason: FailReason::Build,
            }
        );
        for operator in [V1, V2] {
            System::assert_has_event(ev(CEvent::OperatorSlashed {
                arena: id(ARENA),
                operator,
                amount: slashed_each,
            }));
            assert_eq!(
                OperatorBonds::<Test>::get(id(ARENA), operator),
                400 - slashed_each
            );
            assert_eq!(bond_held(operator), 400 - slashed_each);
        }
        System::assert_last_event(ev(CEvent::CrownRevoked {
            proposal: p,
            challenge: c,
            reason: FailReason::Build,
            slashed: 2 * slashed_each,
            challenger_reward: 2 * reward_each,
        }));
        assert_eq!(challenge_held(OUTSIDER), 0);
        assert_eq!(free(OUTSIDER), INITIAL_BALANCE + 2 * reward_each);
        assert_eq!(free(pot()), pot_before + 2 * (slashed_each - reward_each));
        assert!(Challenges::<Test>::get(c).is_none());
        assert!(CrownChallenges::<Test>::get(p).is_none());
        // Below the arena's required bond now, the colluders lease nothing more there.
        let next = submit(BOB, ROPE, "next");
        assert_noop!(Cacheon::claim(signed(V1), next), Error::<Test>::BondTooLow);
    });
}

/// The revoked crown leaves its slot (which falls back to the arena's stock), its claim
/// ends so the next epoch's weights leave its miner out, the generation moves on so PASSes
/// measured with it in the stack are dropped, and its bytes cannot come back.
#[test]
fn a_revoked_crown_leaves_the_stack_and_its_claims_are_void() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "wrong");
        let bytes = bundle("wrong");
        run_to_block(EPOCH_BLOCKS * (now() / EPOCH_BLOCKS + 1));
        assert_eq!(Weights::<Test>::get(), weights(vec![(ALICE, 1_000_000)]));

        // Another proposal's primary PASS measured the stack with the crown in it.
        let waiting = submit(BOB, ROPE, "rope");
        primary_pass_by(V3, waiting, 1_100_000);
        let before = generation();
        let c = open(OUTSIDER, p);
        assert_ok!(answer(V3, c, failing(FailReason::Policy), 30));
        assert_ok!(answer(V4, c, failing(FailReason::Policy), 31));

        assert!(Incumbents::<Test>::get(id(ARENA), id(SILU)).is_none());
        assert_eq!(
            Cacheon::incumbent_stack(id(ARENA)),
            Some((before + 1, vec![]))
        );
        assert!(Claims::<Test>::get(p).is_none());
        assert_eq!(status(waiting), ProposalStatus::Queued);
        System::assert_has_event(ev(CEvent::PassDropped {
            proposal: waiting,
            generation: before + 1,
        }));
        // The miner's bundle deposit is released with the bundle.
        assert_eq!(bundle_held(ALICE), 0);
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        run_to_block(EPOCH_BLOCKS * (now() / EPOCH_BLOCKS + 1));
        assert_eq!(
            Weights::<Test>::get(),
            weights(vec![(BOOTSTRAP, 1_000_000)])
        );

        // The same bytes FAILed for what they are: revealing them again is refused.
        commit(ALICE, SILU, &bytes);
        advance(REVEAL_DELAY);
        assert_noop!(reveal(ALICE, SILU, &bytes), Error::<Test>::FailReplay);
    });
}

/// An atomic crown displaced its members' singleton crowns. Revoked, it leaves every member
/// slot to the stock: the singleton it displaced is not reinstated (its bundle and claim
/// were released when it retired), and the members' targets may be proposed again.
#[test]
fn a_revoked_atomic_crown_frees_every_member_slot() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let rope = crowned(ROPE, "rope");
        let atomic = crowned(ROPE_DECODE, "rope-decode");
        assert!(matches!(status(rope), ProposalStatus::Retired { .. }));
        commit(BOB, DECODE, &bundle("decode"));
        advance(REVEAL_DELAY);
        assert_noop!(
            reveal(BOB, DECODE, &bundle("decode")),
            Error::<Test>::TargetDisplaced
        );

        let c = open(OUTSIDER, atomic);
        assert_ok!(answer(V3, c, failing(FailReason::Abi), 30));
        assert_ok!(answer(V4, c, failing(FailReason::Cheating), 31));

        assert!(matches!(status(atomic), ProposalStatus::Revoked { .. }));
        assert!(matches!(status(rope), ProposalStatus::Retired { .. }));
        for slot in [ROPE, DECODE, ROPE_DECODE] {
            assert!(Incumbents::<Test>::get(id(ARENA), id(slot)).is_none());
        }
        assert_eq!(Claims::<Test>::count(), 0);
        assert_ok!(reveal(BOB, DECODE, &bundle("decode")));
    });
}

/// The operators whose PASSes crowned a proposal, the miner's operator and the
/// challenger's operator may not re-qualify it: the colluders would answer for themselves.
/// With nobody else registered, the challenge runs out and the bond goes back.
#[test]
fn the_passing_operators_cannot_answer_a_challenge_of_their_own_crown() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        // V3 reveals as a miner; V1 and V2 crown it; V4, an operator, challenges.
        let p = submit(V3, SILU, "v3-bundle");
        crown_with(p, 1_100_000);
        let c = open(V4, p);
        for passer in [V1, V2] {
            assert_noop!(
                Cacheon::claim_challenge(signed(passer), c),
                Error::<Test>::PassedByOperator
            );
        }
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), c),
            Error::<Test>::OwnProposal
        );
        assert_noop!(
            Cacheon::claim_challenge(signed(V4), c),
            Error::<Test>::OwnChallenge
        );
        // A second key of a passing operator is that operator.
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V4));
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER, V1));
        assert_noop!(
            Cacheon::claim_challenge(signed(OUTSIDER), c),
            Error::<Test>::PassedByOperator
        );
        run_to_block(Challenges::<Test>::get(c).unwrap().deadline);
        System::assert_has_event(ev(CEvent::ChallengeExpired {
            challenge: c,
            proposal: p,
        }));
        assert_eq!(challenge_held(V4), 0);
        assert_eq!(free(V4), INITIAL_BALANCE);
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// A challenge of a good crown costs its challenger: two operators PASS it again, the crown
/// stands, and the bond pays them for the work, in equal parts.
#[test]
fn a_rejected_challenge_pays_the_requalifying_operators() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "good");
        let c = open(OUTSIDER, p);
        assert_ok!(answer(V3, c, passing(), 30));
        assert_ok!(answer(V4, c, passing(), 31));

        System::assert_last_event(ev(CEvent::ChallengeRejected {
            challenge: c,
            proposal: p,
            requalified_by: BoundedVec::truncate_from(vec![V3, V4]),
            paid_each: CHALLENGE_BOND / 2,
        }));
        assert_eq!(free(OUTSIDER), INITIAL_BALANCE - CHALLENGE_BOND);
        assert_eq!(challenge_held(OUTSIDER), 0);
        assert_eq!(free(V3), INITIAL_BALANCE + CHALLENGE_BOND / 2);
        assert_eq!(free(V4), INITIAL_BALANCE + CHALLENGE_BOND / 2);
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            p
        );
        // The crown is not immune: it can be challenged again.
        assert_ok!(Cacheon::challenge(signed(BOB), p));
    });
}

/// Validators' silence is not the challenger's fault: without two agreeing answers by the
/// deadline (none, or one FAIL), the challenge expires and its whole bond comes back.
#[test]
fn an_unanswered_challenge_returns_the_bond() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let silent = crowned(SILU, "silent");
        let half = crowned(ROPE, "half");
        let c1 = open(OUTSIDER, silent);
        let c2 = open(BOB, half);
        assert_ok!(answer(V3, c2, failing(FailReason::Cheating), 30));
        let deadline = Challenges::<Test>::get(c1).unwrap().deadline;
        assert_eq!(deadline, now() + CHALLENGE_WINDOW);
        run_to_block(deadline - 1);
        assert!(Challenges::<Test>::contains_key(c1));
        run_to_block(deadline);
        for (c, p) in [(c1, silent), (c2, half)] {
            System::assert_has_event(ev(CEvent::ChallengeExpired {
                challenge: c,
                proposal: p,
            }));
            assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        }
        assert_eq!(free(OUTSIDER), INITIAL_BALANCE);
        assert_eq!(challenge_held(BOB), 0);
        assert!(OpenChallenges::<Test>::get(id(ARENA)).is_empty());
        assert_eq!(ChallengeDeadlines::<Test>::iter().count(), 0);
    });
}

/// A speed opinion (`NotFaster`: the stack under the crown has moved on since it was
/// measured) or a NoDecision decides nothing: such answers neither revoke the crown nor
/// slash anyone.
#[test]
fn a_speed_opinion_never_revokes() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        everyone_bonds(400);
        let p = crowned(SILU, "fast-enough");
        let c = open(OUTSIDER, p);
        assert_ok!(answer(V3, c, failing(FailReason::NotFaster), 30));
        assert_ok!(answer(
            V4,
            c,
            Verdict::NoDecision {
                reason: NoDecisionReason::Noise
            },
            31
        ));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_eq!(Challenges::<Test>::get(c).unwrap().answers.len(), 2);
        assert_eq!(OperatorBonds::<Test>::get(id(ARENA), V1), 400);
        assert_eq!(OperatorBonds::<Test>::get(id(ARENA), V2), 400);
        run_to_block(Challenges::<Test>::get(c).unwrap().deadline);
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_eq!(free(OUTSIDER), INITIAL_BALANCE);
    });
}

/// The case the challenge exists for: two colluders crown a kernel that is fast and wrong on
/// inputs their verification never drew. Two other operators re-qualify it with their own
/// secret seeds and find it `Incorrect` (one) and `BehaviourChanged` (the other): two
/// findings of a wrong result, whatever their spelling, revoke it and slash the colluders.
#[test]
fn two_operators_finding_a_crown_wrong_revoke_it_whatever_the_reason_they_give() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        everyone_bonds(400);
        let p = crowned(SILU, "fast-and-wrong");
        let c = open(OUTSIDER, p);
        assert_ok!(answer(V3, c, failing(FailReason::Incorrect), 30));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_ok!(answer(V4, c, failing(FailReason::BehaviourChanged), 31));
        assert!(matches!(status(p), ProposalStatus::Revoked { .. }));
        for operator in [V1, V2] {
            assert!(OperatorBonds::<Test>::get(id(ARENA), operator) < 400);
        }
        assert!(
            free(OUTSIDER) > INITIAL_BALANCE,
            "the challenger is rewarded"
        );
    });
}

/// A challenge names a standing crown: not a pending or superseded proposal, not one
/// already under challenge, and not beyond the arena's `MaxOpenChallenges`.
#[test]
fn only_a_standing_crown_can_be_challenged_once() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::challenge(signed(OUTSIDER), 99),
            Error::<Test>::UnknownProposal
        );
        let old = crowned(SILU, "old");
        let new = crowned(SILU, "new");
        let rope = crowned(ROPE, "rope");
        assert!(matches!(status(old), ProposalStatus::Retired { .. }));
        assert_noop!(
            Cacheon::challenge(signed(OUTSIDER), old),
            Error::<Test>::NotCrowned
        );
        let queued = submit(BOB, DECODE, "queued");
        assert_noop!(
            Cacheon::challenge(signed(OUTSIDER), queued),
            Error::<Test>::NotCrowned
        );
        // An account that cannot hold the bond is refused by the currency.
        assert_noop!(
            Cacheon::challenge(signed(77), new),
            TokenError::FundsUnavailable
        );
        assert_ok!(Cacheon::challenge(signed(OUTSIDER), new));
        assert_noop!(
            Cacheon::challenge(signed(BOB), new),
            Error::<Test>::AlreadyChallenged
        );
        assert_ok!(Cacheon::challenge(signed(BOB), rope));
        assert_eq!(
            OpenChallenges::<Test>::get(id(ARENA)).into_inner(),
            vec![0, 1]
        );
        // A third crown, with `MaxOpenChallenges` (2) open in the arena.
        crown_with(queued, 1_100_000);
        assert_noop!(
            Cacheon::challenge(signed(CAROL), queued),
            Error::<Test>::TooManyChallenges
        );
    });
}

/// Leasing and answering a challenge: each refusal has its own error, and an answer is
/// held to the rules of an attestation (margin, cap, its own evidence).
#[test]
fn challenge_leases_and_answers_refuse_bad_input() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "crown");
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), 7),
            Error::<Test>::UnknownChallenge
        );
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), 7, passing(), [30; 32]),
            Error::<Test>::UnknownChallenge
        );
        let c = open(OUTSIDER, p);
        assert_noop!(
            Cacheon::claim_challenge(signed(BOB), c),
            Error::<Test>::NotValidator
        );
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), c, passing(), [30; 32]),
            Error::<Test>::NotChallengeLeaseHolder
        );
        assert_ok!(Cacheon::set_required_bond(root(), id(ARENA), 300));
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), c),
            Error::<Test>::BondTooLow
        );
        assert_ok!(Cacheon::bond(signed(V3), id(ARENA), 300));
        assert_ok!(Cacheon::claim_challenge(signed(V3), c));
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), c),
            Error::<Test>::ChallengeLeaseHeld
        );
        let slow = Verdict::Pass {
            speedup_ppm: PPM_ONE + MARGIN_PPM - 1,
        };
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), c, slow, [30; 32]),
            Error::<Test>::BelowMargin
        );
        let implausible = Verdict::Pass {
            speedup_ppm: MAX_SPEEDUP_PPM + 1,
        };
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), c, implausible, [30; 32]),
            Error::<Test>::SpeedupImplausible
        );
        // The crown's own evidence (V1's PASS) is no re-qualification.
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), c, passing(), [1; 32]),
            Error::<Test>::DuplicateEvidence
        );
        assert_ok!(Cacheon::answer_challenge(
            signed(V3),
            c,
            failing(FailReason::NotFaster),
            [30; 32]
        ));
        // One verdict per operator.
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), c),
            Error::<Test>::AlreadyAnswered
        );
        assert_ok!(Cacheon::bond(signed(V4), id(ARENA), 300));
        assert_ok!(Cacheon::claim_challenge(signed(V4), c));
        assert_noop!(
            Cacheon::answer_challenge(signed(V4), c, passing(), [30; 32]),
            Error::<Test>::DuplicateEvidence
        );
        // A lease lapses at its end (in a block whose hooks have not run yet, as for
        // proposal leases: challenge leases have no hook and simply stop counting).
        let expires_at = Challenges::<Test>::get(c).unwrap().leases[0].expires_at;
        System::set_block_number(expires_at);
        assert_noop!(
            Cacheon::answer_challenge(signed(V4), c, passing(), [31; 32]),
            Error::<Test>::LeaseExpired
        );
    });
}

/// A challenge holds at most `MAX_CHALLENGE_TURNS` leases and answers, and its deadline
/// searches past full blocks; beyond that (states the mock's four validators and
/// `integrity_test` rule out, prepared in storage) the calls are refused.
#[test]
fn challenge_turns_and_deadlines_are_bounded() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "crown");
        let rope = crowned(ROPE, "rope");
        let c = open(OUTSIDER, p);
        Challenges::<Test>::mutate(c, |c| {
            let c = c.as_mut().unwrap();
            for i in 0..MAX_CHALLENGE_TURNS as u64 {
                let stranger = 100 + i;
                c.answers
                    .try_push(ChallengeAnswer {
                        validator: stranger,
                        operator: stranger,
                        verdict: Verdict::NoDecision {
                            reason: NoDecisionReason::Noise,
                        },
                        evidence_digest: [100 + i as u8; 32],
                    })
                    .unwrap();
            }
        });
        assert_noop!(
            Cacheon::claim_challenge(signed(V3), c),
            Error::<Test>::ChallengeFull
        );
        let first = now() + CHALLENGE_WINDOW;
        let full: BoundedVec<ChallengeId, ConstU32<MAX_OPEN_CHALLENGES>> =
            BoundedVec::truncate_from(vec![500, 501]);
        for at in first..first + crate::settle::DEADLINE_TRIES as u64 {
            ChallengeDeadlines::<Test>::insert(at, full.clone());
        }
        assert_noop!(
            Cacheon::challenge(signed(BOB), rope),
            Error::<Test>::ChallengeScheduleFull
        );
        // One block with room at the end of the search: the deadline goes there.
        let last = first + crate::settle::DEADLINE_TRIES as u64 - 1;
        ChallengeDeadlines::<Test>::remove(last);
        let c2 = open(BOB, rope);
        assert_eq!(Challenges::<Test>::get(c2).unwrap().deadline, last);
        for at in first..last {
            ChallengeDeadlines::<Test>::remove(at);
        }
        let deadline = Challenges::<Test>::get(c).unwrap().deadline;
        ChallengeDeadlines::<Test>::insert(deadline, BoundedVec::truncate_from(vec![c]));
    });
}

/// The colluders supersede their challenged crown with another before the answers come: the
/// challenge goes on, and revoking the old crown still slashes them (the new crown stands
/// on its own).
#[test]
fn a_superseded_crown_under_challenge_still_costs_its_operators() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        everyone_bonds(400);
        let wrong = crowned(SILU, "wrong");
        let c = open(OUTSIDER, wrong);
        let cover = crowned(SILU, "cover");
        assert!(matches!(status(wrong), ProposalStatus::Retired { .. }));
        let at = generation();
        assert_ok!(answer(V3, c, failing(FailReason::Cheating), 30));
        assert_ok!(answer(V4, c, failing(FailReason::Cheating), 31));
        assert!(matches!(status(wrong), ProposalStatus::Revoked { .. }));
        assert_eq!(OperatorBonds::<Test>::get(id(ARENA), V1), 200);
        assert_eq!(OperatorBonds::<Test>::get(id(ARENA), V2), 200);
        // The stack did not change: its generation neither.
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            cover
        );
        assert_eq!(generation(), at);
    });
}

/// Challenge leases run side by side: an operator that leases and idles holds nobody up,
/// and may lease again after its lease lapsed.
#[test]
fn an_idle_challenge_lease_holds_nobody_up() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "crown");
        let c = open(OUTSIDER, p);
        assert_ok!(Cacheon::claim_challenge(signed(V3), c));
        assert_ok!(answer(V4, c, failing(FailReason::Cheating), 31));
        advance(LEASE_BLOCKS);
        assert_noop!(
            Cacheon::answer_challenge(signed(V3), c, failing(FailReason::Cheating), [30; 32]),
            Error::<Test>::LeaseExpired
        );
        assert_ok!(answer(V3, c, failing(FailReason::Cheating), 30));
        assert!(matches!(status(p), ProposalStatus::Revoked { .. }));
    });
}

/// An answer counts only while its validator is registered, as a PASS does: the admin
/// origin's removal of a validator takes its verdict with it, and a validator registered
/// again may answer again.
#[test]
fn a_removed_validators_answer_stops_counting() {
    ExtBuilder::default().build_and_execute(|| {
        fourth_operator();
        let p = crowned(SILU, "crown");
        let c = open(OUTSIDER, p);
        assert_ok!(answer(V3, c, failing(FailReason::Cheating), 30));
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V3));
        assert_ok!(answer(V4, c, failing(FailReason::Cheating), 31));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        let answers = Challenges::<Test>::get(c).unwrap().answers;
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0].operator, V4);
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), V3, V3));
        assert_ok!(answer(V3, c, failing(FailReason::Cheating), 32));
        assert!(matches!(status(p), ProposalStatus::Revoked { .. }));
    });
}
