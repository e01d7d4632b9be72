//! Unit tests of the settlement rules. Every test runs through `ExtBuilder::build_and_execute`,
//! which checks the `try_state` invariants afterwards.

use crate::mock::*;
use crate::*;
use frame::testing_prelude::*;

#[test]
fn happy_path_crowns_with_the_lower_speedup() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V1), p));
        assert_ok!(Cacheon::attest(RuntimeOrigin::signed(V1), p, pass(1_050_000, 1)));
        assert!(matches!(status(p), ProposalStatus::ReproductionQueued { .. }));
        assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V2), p));
        assert_ok!(Cacheon::attest(RuntimeOrigin::signed(V2), p, pass(1_030_000, 2)));
        assert!(matches!(status(p), ProposalStatus::Crowned { speedup_ppm: 1_030_000, .. }));
        assert_eq!(Arenas::<Test>::get(id(ARENA)).unwrap().generation, 1);
        assert_eq!(Claims::<Test>::get(p).unwrap().speedup_ppm, 1_030_000);
        assert_eq!(Incumbents::<Test>::get(id(ARENA), id(SILU)).unwrap().proposal, p);
    });
}
