//! Operator bonds: an operator stakes a bond per arena from its own account before its keys
//! may lease there, and takes it back through an unbonding period in which it can still be
//! slashed.

use super::*;

fn bond_held(who: AccountId) -> Balance {
    held(HoldReason::OperatorBond, who)
}

/// Operators were granted by the admin alone and staked nothing. With a required bond in an
/// arena, an operator's keys lease there only once the operator itself has bonded it (top-ups
/// add up), and the bond is held from the operator's account.
#[test]
fn an_operator_without_its_arena_bond_cannot_claim() {
    ExtBuilder::default().build_and_execute(|| {
        // OUTSIDER is a second key of V1's operator: the bond is the operator's, not the key's.
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER, V1));
        let p = submit(ALICE, SILU, "a");
        assert_noop!(
            Cacheon::set_required_bond(signed(V1), id(ARENA), 500),
            DispatchError::BadOrigin
        );
        assert_noop!(
            Cacheon::set_required_bond(root(), id(b"no-such-arena"), 500),
            Error::<Test>::UnknownArena
        );
        assert_ok!(Cacheon::set_required_bond(root(), id(ARENA), 500));
        System::assert_last_event(ev(CEvent::RequiredBondSet {
            arena: id(ARENA),
            amount: 500,
        }));
        assert_noop!(
            Cacheon::claim(signed(OUTSIDER), p),
            Error::<Test>::BondTooLow
        );
        assert_ok!(Cacheon::bond(signed(V1), id(ARENA), 300));
        assert_noop!(
            Cacheon::claim(signed(OUTSIDER), p),
            Error::<Test>::BondTooLow
        );
        assert_ok!(Cacheon::bond(signed(V1), id(ARENA), 200));
        System::assert_last_event(ev(CEvent::OperatorBonded {
            arena: id(ARENA),
            operator: V1,
            amount: 200,
            total: 500,
        }));
        assert_eq!(bond_held(V1), 500);
        assert_eq!(free(V1), INITIAL_BALANCE - 500);
        assert_ok!(Cacheon::claim(signed(OUTSIDER), p));
        // Another operator without a bond cannot take the reproduction either.
        assert_ok!(attest_as(OUTSIDER, p, pass(1_100_000, 1)));
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::BondTooLow);
        // A bond in another arena does not count here.
        let mut other = arena_config(2);
        other.id = id(b"cpu-other");
        assert_ok!(Cacheon::set_arena(root(), other));
        assert_ok!(Cacheon::bond(signed(V2), id(b"cpu-other"), 500));
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::BondTooLow);
        assert_ok!(Cacheon::bond(signed(V2), id(ARENA), 500));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_100_000, 2)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// An operator takes its bond out by its own key, never while it holds a lease, and never
/// more than it bonded; bad amounts get their own errors. What it unbonds stops counting at
/// once but stays held (one chunk per block) until the unbonding period has passed.
#[test]
fn operators_unbond_only_without_an_open_lease() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::bond(signed(V1), id(ARENA), 0),
            Error::<Test>::ZeroAmount
        );
        assert_noop!(
            Cacheon::bond(signed(V1), id(b"no-such-arena"), 10),
            Error::<Test>::UnknownArena
        );
        assert!(Cacheon::bond(signed(V1), id(ARENA), INITIAL_BALANCE + 1).is_err());
        assert_ok!(Cacheon::bond(signed(V1), id(ARENA), 400));
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_noop!(
            Cacheon::unbond(signed(V1), id(ARENA), 100),
            Error::<Test>::LeaseOpen
        );
        assert_ok!(attest_as(V1, p, pass(1_100_000, 1)));
        assert_noop!(
            Cacheon::unbond(signed(V1), id(ARENA), 401),
            Error::<Test>::UnbondTooLarge
        );
        assert_noop!(
            Cacheon::unbond(signed(V1), id(ARENA), 0),
            Error::<Test>::ZeroAmount
        );
        assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 100));
        System::assert_last_event(ev(CEvent::OperatorUnbonded {
            arena: id(ARENA),
            operator: V1,
            amount: 100,
            total: 300,
            release_at: now() + UNBONDING_PERIOD,
        }));
        assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 300));
        assert!(!OperatorBonds::<Test>::contains_key(id(ARENA), V1));
        assert_eq!(
            Unbonding::<Test>::get(id(ARENA), V1).into_inner(),
            vec![UnbondingChunk {
                release_at: now() + UNBONDING_PERIOD,
                amount: 400,
            }]
        );
        assert_eq!(bond_held(V1), 400);
        assert_eq!(free(V1), INITIAL_BALANCE - 400);
    });
}

/// Unbonding released the bond at once. Now `withdraw_unbonded` releases each chunk only
/// once `UnbondingPeriod` has passed since its unbond, and an operator keeps at most
/// `MAX_UNBONDING_CHUNKS` chunks waiting per arena.
#[test]
fn unbonded_funds_wait_for_the_unbonding_period() {
    ExtBuilder::default().build_and_execute(|| {
        assert_ok!(Cacheon::bond(signed(V1), id(ARENA), 1_000));
        assert_noop!(
            Cacheon::withdraw_unbonded(signed(V1), id(ARENA)),
            Error::<Test>::NothingToWithdraw
        );
        let first = now();
        for _ in 0..MAX_UNBONDING_CHUNKS {
            assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 10));
            advance(1);
        }
        assert_noop!(
            Cacheon::unbond(signed(V1), id(ARENA), 10),
            Error::<Test>::TooManyUnbondingChunks
        );
        run_to_block(first + UNBONDING_PERIOD - 1);
        assert_noop!(
            Cacheon::withdraw_unbonded(signed(V1), id(ARENA)),
            Error::<Test>::NothingToWithdraw
        );
        // The first two chunks are due.
        run_to_block(first + UNBONDING_PERIOD + 1);
        assert_ok!(Cacheon::withdraw_unbonded(signed(V1), id(ARENA)));
        System::assert_last_event(ev(CEvent::UnbondedWithdrawn {
            arena: id(ARENA),
            operator: V1,
            amount: 20,
        }));
        assert_eq!(free(V1), INITIAL_BALANCE - 1_000 + 20);
        assert_eq!(
            Unbonding::<Test>::get(id(ARENA), V1).len() as u32,
            MAX_UNBONDING_CHUNKS - 2
        );
        assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 10));
        run_to_block(now() + UNBONDING_PERIOD);
        assert_ok!(Cacheon::withdraw_unbonded(signed(V1), id(ARENA)));
        assert!(!Unbonding::<Test>::contains_key(id(ARENA), V1));
        assert_eq!(bond_held(V1), 1_000 - 90);
        assert_eq!(OperatorBonds::<Test>::get(id(ARENA), V1), 910);
    });
}

/// Two colluding operators crowned a bundle and unbonded everything the next block, before
/// anyone could challenge: the bond was gone at once and a revocation found nothing to
/// slash. Now their funds stay held through the unbonding period; the slash takes its part
/// of the unbonding chunks, and only the rest can be withdrawn.
#[test]
fn an_operator_cannot_unbond_its_way_out_of_a_slash() {
    ExtBuilder::default().build_and_execute(|| {
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), V4, V4));
        assert_ok!(Cacheon::set_required_bond(root(), id(ARENA), 400));
        for operator in [V1, V2, V3, V4] {
            assert_ok!(Cacheon::bond(signed(operator), id(ARENA), 400));
        }
        let p = submit(ALICE, SILU, "colluded");
        crown_with(p, 1_100_000);
        for operator in [V1, V2] {
            assert_ok!(Cacheon::unbond(signed(operator), id(ARENA), 400));
        }
        advance(1);
        assert_ok!(Cacheon::challenge(signed(OUTSIDER), p));
        for (v, seed) in [(V3, 30), (V4, 31)] {
            assert_ok!(Cacheon::claim_challenge(signed(v), 0));
            assert_ok!(Cacheon::answer_challenge(
                signed(v),
                0,
                Verdict::Fail {
                    reason: FailReason::Cheating
                },
                [seed; 32]
            ));
        }
        assert!(matches!(status(p), ProposalStatus::Revoked { .. }));
        for operator in [V1, V2] {
            System::assert_has_event(ev(CEvent::OperatorSlashed {
                arena: id(ARENA),
                operator,
                amount: 200,
            }));
            assert_eq!(Unbonding::<Test>::get(id(ARENA), operator)[0].amount, 200);
            assert_eq!(bond_held(operator), 200);
        }
        run_to_block(now() + UNBONDING_PERIOD);
        for operator in [V1, V2] {
            assert_ok!(Cacheon::withdraw_unbonded(signed(operator), id(ARENA)));
            assert_eq!(free(operator), INITIAL_BALANCE - 200);
        }
    });
}

/// A colluder whose unbonding period ends while a challenge of its crown is still open
/// waits for the challenge: withdrawing first would leave the slash nothing to take.
#[test]
fn a_withdrawal_waits_for_an_open_challenge_of_the_operators_crown() {
    ExtBuilder::default().build_and_execute(|| {
        assert_ok!(Cacheon::bond(signed(V1), id(ARENA), 400));
        assert_ok!(Cacheon::bond(signed(V3), id(ARENA), 400));
        let p = submit(ALICE, SILU, "crown");
        crown_with(p, 1_100_000);
        assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 400));
        assert_ok!(Cacheon::unbond(signed(V3), id(ARENA), 400));
        assert_ok!(Cacheon::challenge(signed(OUTSIDER), p));
        const { assert!(UNBONDING_PERIOD < CHALLENGE_WINDOW) };
        run_to_block(now() + UNBONDING_PERIOD);
        assert_noop!(
            Cacheon::withdraw_unbonded(signed(V1), id(ARENA)),
            Error::<Test>::CrownUnderChallenge
        );
        // An operator that did not crown it withdraws.
        assert_ok!(Cacheon::withdraw_unbonded(signed(V3), id(ARENA)));
        run_to_block(Challenges::<Test>::get(0).unwrap().deadline);
        assert_ok!(Cacheon::withdraw_unbonded(signed(V1), id(ARENA)));
        assert_eq!(free(V1), INITIAL_BALANCE);
    });
}
