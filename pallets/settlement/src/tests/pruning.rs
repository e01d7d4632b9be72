//! Nothing was ever pruned. `on_idle` deletes terminal proposals after
//! `ProposalRetention` blocks (oldest first, within the weight left) and the reveal counts of
//! past reveal periods.

use super::*;
use frame::traits::Hooks;

fn idle(weight: Weight) -> Weight {
    Cacheon::on_idle(now(), weight)
}

#[test]
fn finished_proposals_are_pruned_after_retention() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[
            (ALICE, SILU, "withdrawn"),
            (BOB, ROPE, "failed"),
            (CAROL, DECODE, "live"),
        ]);
        assert_ok!(Cacheon::withdraw(signed(ALICE), ids[0]));
        assert_ok!(Cacheon::claim(signed(V1), ids[1]));
        assert_ok!(attest_as(V1, ids[1], fail(FailReason::Build, 1)));
        assert_ok!(Cacheon::claim(signed(V2), ids[1]));
        assert_ok!(attest_as(V2, ids[1], fail(FailReason::Build, 2)));
        let ended = now();
        let failed_hash = Proposals::<Test>::get(ids[1]).unwrap().content_hash;
        let withdrawn_hash = Proposals::<Test>::get(ids[0]).unwrap().content_hash;

        assert!(FailVerdicts::<Test>::contains_key(ids[1]));

        run_to_block(ended + PROPOSAL_RETENTION - 1);
        idle(Weight::MAX);
        assert!(Proposals::<Test>::contains_key(ids[0]));

        run_to_block(ended + PROPOSAL_RETENTION);
        idle(Weight::MAX);
        assert!(!Proposals::<Test>::contains_key(ids[0]));
        assert!(!Proposals::<Test>::contains_key(ids[1]));
        assert!(
            !FailVerdicts::<Test>::contains_key(ids[1]),
            "its FAIL goes with it"
        );
        assert!(
            Proposals::<Test>::contains_key(ids[2]),
            "a pending proposal stays"
        );
        System::assert_has_event(ev(CEvent::ProposalPruned { proposal: ids[0] }));
        // Content that FAILed loses its owner record; other content stays owned, so a copy
        // of a withdrawn bundle is still refused.
        assert!(!ContentOwners::<Test>::contains_key(failed_hash));
        assert!(ContentOwners::<Test>::contains_key(withdrawn_hash));
        commit(BOB, SILU, &bundle("withdrawn"));
        advance(REVEAL_DELAY);
        assert_noop!(
            reveal(BOB, SILU, &bundle("withdrawn")),
            Error::<Test>::CopyOfOtherMiner
        );
        assert_eq!(PruneHead::<Test>::get(), PruneTail::<Test>::get());
    });
}

#[test]
fn pruning_stays_within_the_weight_left() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b"), (CAROL, DECODE, "c")]);
        for (miner, id) in [(ALICE, ids[0]), (BOB, ids[1]), (CAROL, ids[2])] {
            assert_ok!(Cacheon::withdraw(signed(miner), id));
        }
        run_to_block(now() + PROPOSAL_RETENTION);
        // Room for exactly two: the oldest two go, the third waits for the next idle time.
        let read = <<Test as frame_system::Config>::DbWeight as Get<
            frame::deps::frame_support::weights::RuntimeDbWeight,
        >>::get()
        .reads(1);
        let room = <() as WeightInfo>::prune_proposals(2).saturating_add(read);
        assert!(idle(room).all_lte(room));
        assert!(!Proposals::<Test>::contains_key(ids[0]));
        assert!(!Proposals::<Test>::contains_key(ids[1]));
        assert!(Proposals::<Test>::contains_key(ids[2]));
        assert_eq!(idle(Weight::zero()), Weight::zero());
        assert!(Proposals::<Test>::contains_key(ids[2]));
        idle(Weight::MAX);
        assert!(!Proposals::<Test>::contains_key(ids[2]));
    });
}

#[test]
fn retired_crowns_are_pruned_too() {
    ExtBuilder::default().build_and_execute(|| {
        let old = submit(ALICE, SILU, "old");
        crown_with(old, 1_050_000);
        let new = submit(BOB, SILU, "new");
        crown_with(new, 1_100_000);
        assert!(matches!(status(old), ProposalStatus::Retired { .. }));
        run_to_block(now() + PROPOSAL_RETENTION);
        idle(Weight::MAX);
        assert!(!Proposals::<Test>::contains_key(old));
        assert!(matches!(status(new), ProposalStatus::Crowned { .. }));
    });
}

#[test]
fn reveal_counts_of_past_periods_are_cleared() {
    ExtBuilder::default().build_and_execute(|| {
        submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        assert_eq!(RevealsInPeriod::<Test>::iter().count(), 2);
        idle(Weight::MAX);
        assert_eq!(
            RevealsInPeriod::<Test>::iter().count(),
            2,
            "the current period stays"
        );
        run_to_block(EPOCH_BLOCKS);
        idle(Weight::MAX);
        assert_eq!(RevealsInPeriod::<Test>::iter().count(), 0);
        assert_eq!(RevealsClearedBelow::<Test>::get(), 1);
    });
}
