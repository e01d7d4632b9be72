//! One test per attack of the second settlement audit (hostile operators: none may kill,
//! hold or confiscate alone): each fails on the rules before it.

use super::*;

/// Registers OUTSIDER as a fourth operator (its own key).
fn fourth_operator() {
    assert_ok!(Cacheon::add_validator(
        root(),
        id(ARENA),
        OUTSIDER,
        OUTSIDER
    ));
}

/// The mock arena with leases as long as the reproduction wait, as in the runtime's arenas.
fn leases_as_long_as_the_wait() {
    let mut config = arena_config(2);
    config.policy.lease_blocks = REPRODUCTION_TIMEOUT;
    assert_ok!(Cacheon::set_arena(root(), config));
}

/// `v` leases `p` and never attests: the lease runs out.
fn idle_lease(v: AccountId, p: ProposalId) {
    assert_ok!(Cacheon::claim(signed(v), p));
    let expires_at = lease_of(p).expires_at;
    run_to_block(expires_at);
}

/// A lease as long as the wait: an operator that took the reproduction lease and idled let
/// the wait's deadline pass inside its own lease, and the passed proposal expired after one
/// stall. The wait's clock now stands still while the reproduction is leased.
#[test]
fn a_reproduction_lease_idler_cannot_expire_a_passed_proposal() {
    ExtBuilder::default().build_and_execute(|| {
        leases_as_long_as_the_wait();
        let p = submit(ALICE, SILU, "good");
        primary_pass(p, 1_100_000);
        let ProposalStatus::ReproductionQueued { until, .. } = status(p) else {
            panic!("waits for its reproduction");
        };
        idle_lease(V2, p);
        assert!(now() >= until);
        // Back to the wait with the time it had left, one attempt counted.
        let ProposalStatus::ReproductionQueued { until: after, .. } = status(p) else {
            panic!("still waits: {:?}", status(p));
        };
        assert_eq!(after, now() + REPRODUCTION_TIMEOUT);
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 1);
        // The idler sits out; an honest operator reproduces and the proposal crowns.
        assert_noop!(
            Cacheon::claim(signed(V2), p),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_100_000, 3)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// Expiring a passed proposal by stalls takes `max_attempts` distinct operators, whatever
/// the lease's length: two idlers out of three leave it waiting.
#[test]
fn expiring_a_passed_proposal_takes_max_attempts_distinct_stalls() {
    ExtBuilder::default().build_and_execute(|| {
        leases_as_long_as_the_wait();
        fourth_operator();
        let p = submit(ALICE, SILU, "good");
        primary_pass(p, 1_100_000);
        idle_lease(V2, p);
        idle_lease(V3, p);
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 2);
        idle_lease(OUTSIDER, p);
        assert_eq!(status(p), ProposalStatus::Expired);
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, MAX_ATTEMPTS);
        assert_eq!(bundle_held(ALICE), 0);
    });
}

/// `set_arena` refuses a policy whose stalls could outlast a proposal's lifetime: operators
/// that stall could then run it out with fewer than `max_attempts` stalls.
#[test]
fn set_arena_refuses_stalls_that_outlast_the_lifetime() {
    ExtBuilder::default().build_and_execute(|| {
        let mut config = arena_config(2);
        config.policy.lease_blocks = PENDING_LIFETIME / 4;
        assert_noop!(
            Cacheon::set_arena(root(), config.clone()),
            Error::<Test>::LifetimeTooShort
        );
        // The longest lease that fits.
        let needed = |lease: u64| {
            Cacheon::pending_life_needed(&ArenaPolicy {
                lease_blocks: lease,
                ..config.policy
            })
        };
        let mut lease = LEASE_BLOCKS;
        while needed(lease + 1) <= PENDING_LIFETIME {
            lease += 1;
        }
        config.policy.lease_blocks = lease;
        assert_ok!(Cacheon::set_arena(root(), config.clone()));
        config.policy.lease_blocks = lease + 1;
        assert_noop!(
            Cacheon::set_arena(root(), config),
            Error::<Test>::LifetimeTooShort
        );
    });
}

/// Two operators taking turns letting leases lapse kept a proposal's attempts at 2 for
/// ever: each lease lifted the other's exclusion. A stall now excludes its operator while
/// any other operator may take the proposal.
#[test]
fn two_operators_taking_turns_cannot_hold_the_primary_phase() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, ROPE, "good");
        idle_lease(V2, p);
        idle_lease(V3, p);
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 2);
        // Neither may take it again until a verdict: the third operator's turn.
        assert_noop!(
            Cacheon::claim(signed(V2), p),
            Error::<Test>::OperatorExcluded
        );
        assert_noop!(
            Cacheon::claim(signed(V3), p),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, pass(1_100_000, 1)));
        // Nobody else may reproduce it (V1 passed it): the stallers may again.
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_100_000, 2)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// The primary phase had no clock: a proposal nobody measured stayed pending for ever, and
/// through `EarlierOverlapPending` froze every later crown of an overlapping target. A
/// pending proposal now expires `PendingLifetime` blocks after its reveal, deposits returned.
#[test]
fn a_pending_proposal_cannot_freeze_overlapping_crowns_for_ever() {
    ExtBuilder::default().build_and_execute(|| {
        // OUTSIDER is a key of V3's operator: V3 may not measure its proposal, nor pass over
        // it to reproduce a later one. V1 measures it and stalls; V2 is offline.
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER, V3));
        let early = submit(OUTSIDER, ROPE, "early");
        let revealed = now();
        idle_lease(V1, early);
        run_to_block(revealed + PENDING_LIFETIME - REPRODUCTION_TIMEOUT);
        let late = submit(BOB, ROPE_DECODE, "late");
        primary_pass(late, 1_100_000);
        assert_noop!(
            Cacheon::claim(signed(V3), late),
            Error::<Test>::EarlierOverlapPending
        );
        run_to_block(revealed + PENDING_LIFETIME - 1);
        assert!(status(early).is_pending());
        run_to_block(revealed + PENDING_LIFETIME);
        assert_eq!(status(early), ProposalStatus::Expired);
        System::assert_has_event(ev(CEvent::LifetimeEnded { proposal: early }));
        assert_eq!(bundle_held(OUTSIDER), 0);
        assert_ok!(Cacheon::claim(signed(V3), late));
        assert_ok!(attest_as(V3, late, pass(1_100_000, 3)));
        assert!(matches!(status(late), ProposalStatus::Crowned { .. }));
    });
}

/// The lifetime ends a proposal in whatever phase: its lease ends with it (the operator's
/// lease count goes down). At most `MaxLeasesPerBlock` expire in one block; the rest in the
/// next.
#[test]
fn the_lifetime_ends_leased_proposals_a_bounded_number_a_block() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[
            (ALICE, SILU, "a1"),
            (BOB, SILU, "b1"),
            (CAROL, SILU, "c1"),
            (ALICE, SILU, "a2"),
            (BOB, SILU, "b2"),
            (CAROL, SILU, "c2"),
        ]);
        let end = now() + PENDING_LIFETIME;
        run_to_block(end - 2);
        assert_ok!(Cacheon::claim(signed(V1), ids[0]));
        assert_ok!(Cacheon::claim(signed(V2), ids[1]));
        run_to_block(end);
        let per_block = <<Test as Config>::MaxLeasesPerBlock as Get<u32>>::get() as usize;
        let expired: Vec<_> = ids
            .iter()
            .filter(|id| status(**id) == ProposalStatus::Expired)
            .collect();
        assert_eq!(expired.len(), per_block);
        assert_eq!(queue(), ids[per_block..].to_vec());
        assert_eq!(
            (OpenLeases::<Test>::get(V1), OpenLeases::<Test>::get(V2)),
            (0, 0)
        );
        run_to_block(end + 1);
        assert!(queue().is_empty());
        for who in [ALICE, BOB, CAROL] {
            assert_eq!(bundle_held(who), 0);
        }
    });
}

/// One operator's `Cheating` FAIL ended a proposal and forfeited its whole bundle deposit.
/// It now waits for a second operator; a PASS goes on, the disagreement on record.
#[test]
fn one_operators_cheating_fail_does_not_confiscate_alone() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "good");
        let held = bundle_held(ALICE);
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, fail(FailReason::Cheating, 1)));
        assert_eq!(status(p), ProposalStatus::Queued);
        assert_eq!(bundle_held(ALICE), held);
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::DepositSlashed { .. })));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_100_000, 2)));
        System::assert_has_event(ev(CEvent::AttestationsDisagreed {
            proposal: p,
            pass_validator: V2,
            pass_evidence: None,
            fail_validator: V1,
            fail_evidence: [1; 32],
            reason: FailReason::Cheating,
        }));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
    });
}

/// A `Build` FAIL (any FAIL) sticks only when a second operator FAILs too; without an act
/// named by both, the deposit is returned.
#[test]
fn a_second_operator_must_agree_before_a_fail_sticks() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        for (p, first, second) in [
            (ids[0], FailReason::Build, FailReason::Build),
            (ids[1], FailReason::Cheating, FailReason::NotFaster),
        ] {
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_ok!(attest_as(V1, p, fail(first, 1)));
            assert_eq!(status(p), ProposalStatus::Queued);
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(attest_as(V2, p, fail(second, 2)));
            assert_eq!(status(p), ProposalStatus::Failed { reason: second });
        }
        assert_eq!((bundle_held(ALICE), bundle_held(BOB)), (0, 0));
        assert!(SlashedDeposits::<Test>::iter().next().is_none());
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::DepositSlashed { .. })));
    });
}

/// Two operators' `Cheating` FAILs forfeit the deposit; the admin origin can overturn the
/// FAIL, which refunds it from the pot (there was no appeal at all).
#[test]
fn two_cheating_fails_confiscate_and_the_admin_can_overturn() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "good");
        let held = bundle_held(ALICE);
        let before = free(ALICE);
        assert_noop!(Cacheon::overturn_fail(root(), p), Error::<Test>::NotFailed);
        for (v, seed) in [(V1, 1), (V2, 2)] {
            assert_ok!(Cacheon::claim(signed(v), p));
            assert_ok!(attest_as(v, p, fail(FailReason::Cheating, seed)));
        }
        assert_eq!(
            status(p),
            ProposalStatus::Failed {
                reason: FailReason::Cheating
            }
        );
        assert_eq!((bundle_held(ALICE), free(ALICE)), (0, before));
        assert_eq!(SlashedDeposits::<Test>::get(p), Some(held));
        let pot_before = free(pot());
        assert_noop!(
            Cacheon::overturn_fail(signed(V3), p),
            DispatchError::BadOrigin
        );
        // A pot that cannot pay keeps the FAIL standing until it can.
        <Balances as frame::traits::fungible::Mutate<AccountId>>::set_balance(&pot(), held);
        assert_noop!(
            Cacheon::overturn_fail(root(), p),
            Error::<Test>::PotCannotRefund
        );
        <Balances as frame::traits::fungible::Mutate<AccountId>>::set_balance(&pot(), pot_before);
        assert_ok!(Cacheon::overturn_fail(root(), p));
        System::assert_last_event(ev(CEvent::FailOverturned {
            proposal: p,
            miner: ALICE,
            reason: FailReason::Cheating,
            refunded: held,
        }));
        assert_eq!(
            status(p),
            ProposalStatus::Overturned {
                reason: FailReason::Cheating
            }
        );
        assert_eq!(free(ALICE), before + held);
        assert_eq!(free(pot()), pot_before - held);
        assert!(FailVerdicts::<Test>::get(p).is_none());
        assert_noop!(Cacheon::overturn_fail(root(), p), Error::<Test>::NotFailed);
        assert_noop!(
            Cacheon::overturn_fail(root(), 99),
            Error::<Test>::UnknownProposal
        );
    });
}

/// A copier whose copy a validator FAILed `CopyOf` withdrew before the second opinion and
/// kept its deposit. No withdrawal while a FAIL waits.
#[test]
fn a_copier_cannot_dodge_the_copy_slash_with_withdraw() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(BOB, SILU, "renamed-copy");
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, fail(FailReason::CopyOf(0), 1)));
        assert_noop!(
            Cacheon::withdraw(signed(BOB), p),
            Error::<Test>::VerdictDisputed
        );
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::CopyOf(0), 2)));
        assert_eq!(bundle_held(BOB), 0);
        assert!(SlashedDeposits::<Test>::contains_key(p));
    });
}

/// A copy whose content an earlier commitment reclaimed stayed pending, ahead of the
/// original in the queue, until its crown failed it. It now ends at once.
#[test]
fn a_reclaimed_copy_ends_at_once() {
    ExtBuilder::default().reveal_window().build_and_execute(|| {
        let bytes = bundle("honest");
        commit(ALICE, SILU, &bytes);
        advance(1);
        commit(BOB, SILU, &bytes);
        advance(REVEAL_DELAY);
        let copy = NextProposalId::<Test>::get();
        assert_ok!(reveal(BOB, SILU, &bytes));
        assert_ok!(Cacheon::claim(signed(V1), copy));
        let honest = NextProposalId::<Test>::get();
        assert_ok!(reveal(ALICE, SILU, &bytes));
        assert_eq!(
            status(copy),
            ProposalStatus::Failed {
                reason: FailReason::CopyOf(honest)
            }
        );
        System::assert_has_event(ev(CEvent::CopyEnded {
            proposal: copy,
            original: honest,
        }));
        assert_eq!(queue(), vec![honest]);
        assert_eq!(OpenLeases::<Test>::get(V1), 0);
        assert_eq!(bundle_held(BOB), 0);
        assert_eq!(SlashedDeposits::<Test>::get(copy), Some(len_of(&bytes)));
    });
}

/// With three operators, one disputed FAIL plus one stall left no operator to take the
/// reproduction, and the passed proposal expired. A stall's exclusion now lifts when no
/// one else is left: stalls alone expire a proposal only at `max_attempts` (or, among the
/// last operators left, when the wait runs out).
#[test]
fn one_disputed_fail_and_one_stall_cannot_expire_a_proposal() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "good");
        primary_pass(p, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::NotFaster, 2)));
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(
            V3,
            p,
            no_decision(NoDecisionReason::Infrastructure, 3)
        ));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_100_000, 4)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// A stale attestation cost nothing and excluded no one: an operator could hold a lease
/// across a crown and take the proposal again at once. It now sits out like a staller.
#[test]
fn a_stale_attestation_buys_no_free_release() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "crown"), (BOB, ROPE, "held")]);
        let (crown, held) = (ids[0], ids[1]);
        primary_pass(crown, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V2), crown));
        assert_ok!(Cacheon::claim(signed(V3), held));
        let stale = lease_of(held).generation;
        assert_ok!(attest_as(V2, crown, pass(1_100_000, 2)));
        assert_ok!(attest_as(
            V3,
            held,
            att(
                Verdict::NoDecision {
                    reason: NoDecisionReason::Noise
                },
                stale,
                3,
                103
            )
        ));
        assert_eq!(status(held), ProposalStatus::Queued);
        assert_eq!(Proposals::<Test>::get(held).unwrap().attempts, 0);
        assert_noop!(
            Cacheon::claim(signed(V3), held),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V1), held));
    });
}

/// A miner re-revealed bytes that had FAILed (or withdrew a proposal to wipe a recorded
/// FAIL) to retry noise for the price of a reveal. The same bytes are refused in the same
/// arena while the FAIL would repeat: for good after a FAIL for what they are, and until the
/// incumbent changes after a FAIL relative to it; an overturn lifts the refusal.
#[test]
fn a_fail_replay_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "broken"), (BOB, SILU, "slow")]);
        let fail_twice = |p: ProposalId, reason: FailReason| {
            for (v, seed) in [(V1, 1), (V2, 2)] {
                assert_ok!(Cacheon::claim(signed(v), p));
                assert_ok!(attest_as(v, p, fail(reason, seed)));
            }
        };
        fail_twice(ids[0], FailReason::Build);
        // A withdrawal cannot wipe a FAIL that waits for its second opinion.
        assert_ok!(Cacheon::claim(signed(V1), ids[1]));
        assert_ok!(attest_as(V1, ids[1], fail(FailReason::NotFaster, 1)));
        assert_noop!(
            Cacheon::withdraw(signed(BOB), ids[1]),
            Error::<Test>::VerdictDisputed
        );
        assert_ok!(Cacheon::claim(signed(V2), ids[1]));
        assert_ok!(attest_as(V2, ids[1], fail(FailReason::NotFaster, 2)));
        let again = [(ALICE, "broken"), (BOB, "slow")];
        let commits: Vec<_> = again
            .iter()
            .map(|(miner, tag)| (*miner, commit(*miner, SILU, &bundle(tag))))
            .collect();
        advance(REVEAL_DELAY);
        for (miner, tag) in again {
            assert_noop!(reveal(miner, SILU, &bundle(tag)), Error::<Test>::FailReplay);
        }
        for (miner, c) in commits {
            assert_ok!(Cacheon::cancel_commit(signed(miner), c));
        }
        // Another incumbent: the slow bytes may try again, the broken ones may not.
        let other = submit(CAROL, SILU, "faster");
        crown_with(other, 1_100_000);
        for (miner, tag) in again {
            commit(miner, SILU, &bundle(tag));
        }
        advance(REVEAL_DELAY);
        assert_noop!(
            reveal(ALICE, SILU, &bundle("broken")),
            Error::<Test>::FailReplay
        );
        assert_ok!(reveal(BOB, SILU, &bundle("slow")));
        // An overturned FAIL refuses nothing.
        assert_ok!(Cacheon::overturn_fail(root(), ids[0]));
        assert_ok!(reveal(ALICE, SILU, &bundle("broken")));
    });
}

/// Duplicate entries in a target's displacement set retired a crown twice and dropped a
/// bundle still in use. `set_target` (and so genesis) refuses them.
#[test]
fn duplicate_displaced_targets_are_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let mut spec = atomic_target();
        spec.displaces = BoundedVec::truncate_from(vec![id(ROPE), id(DECODE), id(ROPE)]);
        assert_noop!(
            Cacheon::set_target(root(), spec),
            Error::<Test>::DuplicateDisplaced
        );
        // The stored target is unchanged, and its crown retires each member once.
        let ids = submit_many(&[(ALICE, ROPE, "rope"), (BOB, ROPE_DECODE, "both")]);
        crown_with(ids[0], 1_100_000);
        crown_with(ids[1], 1_100_000);
        assert!(matches!(status(ids[0]), ProposalStatus::Retired { .. }));
        assert_eq!(
            cacheon_events()
                .iter()
                .filter(|e| matches!(e, CEvent::Retired { proposal, .. } if *proposal == ids[0]))
                .count(),
            1
        );
    });
}
