//! Operator bonds: an operator stakes a bond per arena
//! from its own account before its keys may lease there.

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
        assert_ok!(Cacheon::attest(signed(OUTSIDER), p, pass(1_100_000, 1)));
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::BondTooLow);
        // A bond in another arena does not count here.
        let mut other = arena_config(2);
        other.id = id(b"cpu-other");
        assert_ok!(Cacheon::set_arena(root(), other));
        assert_ok!(Cacheon::bond(signed(V2), id(b"cpu-other"), 500));
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::BondTooLow);
        assert_ok!(Cacheon::bond(signed(V2), id(ARENA), 500));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::attest(signed(V2), p, pass(1_100_000, 2)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// An operator takes its bond back by its own key, never while it holds a lease, and never
/// more than it bonded; bad amounts get their own errors.
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
        assert_ok!(Cacheon::attest(signed(V1), p, pass(1_100_000, 1)));
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
        }));
        assert_ok!(Cacheon::unbond(signed(V1), id(ARENA), 300));
        assert_eq!(bond_held(V1), 0);
        assert_eq!(free(V1), INITIAL_BALANCE);
        assert!(!OperatorBonds::<Test>::contains_key(id(ARENA), V1));
    });
}
