use super::*;
use proptest::prelude::*;

#[test]
fn credit_formula() {
    let h = HALF_LIFE as u128;
    assert_eq!(credit(1_050_000, h, 0), 50_000);
    assert_eq!(credit(1_050_000, h, h), 25_000);
    assert_eq!(credit(1_050_000, h, 50), 33_333);
    assert_eq!(credit(1_050_000, h, 3 * h), 12_500);
    assert_eq!(credit(PPM_ONE, h, 0), 0);
    assert_eq!(credit(900_000, h, 0), 0);
    assert_eq!(credit(u32::MAX, 1, 0), (u32::MAX - PPM_ONE) as u128);
    // No division by zero, no overflow.
    assert_eq!(credit(1_050_000, 0, 0), 0);
    // Saturating arithmetic: huge half-lives and ages neither overflow nor divide by zero.
    assert!(credit(u32::MAX, u128::MAX, u128::MAX) <= (u32::MAX - PPM_ONE) as u128);
    assert!(credit(u32::MAX, u128::MAX, 0) > 0);
}

#[test]
fn split_weights_exact_sum_and_ties_to_the_smaller_account() {
    assert_eq!(
        split_weights(&[(3u64, 1u128), (1, 1), (2, 1)]),
        vec![(1, 333_334), (2, 333_333), (3, 333_333)]
    );
    assert_eq!(
        split_weights(&[(2u64, 1u128), (1, 2)]),
        vec![(1, 666_667), (2, 333_333)]
    );
    assert_eq!(split_weights(&[(5u64, 7u128)]), vec![(5, 1_000_000)]);
    // Credits of one account are merged.
    assert_eq!(
        split_weights(&[(1u64, 1u128), (2, 2), (1, 1)]),
        vec![(1, 500_000), (2, 500_000)]
    );
    // Six equal shares: 166_666 each and four leftover ppm to the four smallest accounts.
    let six: Vec<(u64, u128)> = (1..=6).rev().map(|a| (a, 10)).collect();
    assert_eq!(
        split_weights(&six),
        vec![
            (1, 166_667),
            (2, 166_667),
            (3, 166_667),
            (4, 166_667),
            (5, 166_666),
            (6, 166_666)
        ]
    );
    // Largest remainder wins over account order: 2/7 and 5/7.
    assert_eq!(
        split_weights(&[(1u64, 2u128), (2, 5)]),
        vec![(1, 285_714), (2, 714_286)]
    );
}

#[test]
fn split_weights_drops_zeros_and_never_pays_zero() {
    assert_eq!(split_weights::<u64>(&[]), vec![]);
    assert_eq!(split_weights(&[(1u64, 0u128), (2, 0)]), vec![]);
    assert_eq!(
        split_weights(&[(1u64, 0u128), (2, 5)]),
        vec![(2, 1_000_000)]
    );
    // A tiny credit whose share rounds to 0 gets 1 ppm from the largest share.
    assert_eq!(
        split_weights(&[(1u64, 10_000_000u128), (2, 1)]),
        vec![(1, 999_999), (2, 1)]
    );
    let mut many: Vec<(u64, u128)> = vec![(1, 1_000_000_000_000)];
    many.extend((2..=6).map(|a| (a, 1u128)));
    let w = split_weights(&many);
    assert_eq!(
        w,
        vec![(1, 999_995), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]
    );
}

#[test]
fn bootstrap_weights_when_nothing_is_crowned() {
    ExtBuilder::default().build_and_execute(|| {
        run_to_block(EPOCH_BLOCKS - 1);
        assert!(Weights::<Test>::get().is_empty());
        assert_eq!(WeightsEpoch::<Test>::get(), None);
        run_to_block(EPOCH_BLOCKS);
        assert_eq!(
            Weights::<Test>::get(),
            weights(vec![(BOOTSTRAP, 1_000_000)])
        );
        assert_eq!(WeightsEpoch::<Test>::get(), Some(1));
        System::assert_last_event(ev(CEvent::WeightsSet {
            epoch: 1,
            weights: weights(vec![(BOOTSTRAP, 1_000_000)]),
        }));
        assert_eq!(Cacheon::weight_vector(), vec![(BOOTSTRAP, 1_000_000)]);
        // Without emissions nothing is paid.
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::EmissionsPaid { .. })));
        assert_eq!(free(BOOTSTRAP), 0);
        // Only epoch boundaries compute a vector.
        let n = cacheon_events().len();
        run_to_block(2 * EPOCH_BLOCKS - 1);
        assert_eq!(cacheon_events().len(), n);
        run_to_block(2 * EPOCH_BLOCKS);
        assert_eq!(WeightsEpoch::<Test>::get(), Some(2));
    });
}

#[test]
fn weights_move_to_crowned_miners() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let since = now();
        crown_with(ids[0], 1_050_000);
        crown_with(ids[1], 1_030_000);
        run_to_block(EPOCH_BLOCKS);
        let age = (EPOCH_BLOCKS - since) as u128;
        let h = HALF_LIFE as u128;
        let (ca, cb) = (credit(1_050_000, h, age), credit(1_030_000, h, age));
        // since = 3, age = 7: 5_000_000 / 107 and 3_000_000 / 107.
        assert_eq!((ca, cb), (46_728, 28_037));
        let expected = split_weights(&[(ALICE, ca), (BOB, cb)]);
        assert_eq!(Cacheon::weight_vector(), expected);
        assert_eq!(expected.iter().map(|(_, w)| *w).sum::<u32>(), 1_000_000);
        // 46_728 / 74_765 and 28_037 / 74_765 in ppm.
        assert_eq!(expected, vec![(ALICE, 624_998), (BOB, 375_002)]);
        System::assert_last_event(ev(CEvent::WeightsSet {
            epoch: 1,
            weights: weights(expected),
        }));
    });
}

#[test]
fn credit_decays_with_the_claim_age() {
    ExtBuilder::default().build_and_execute(|| {
        let p0 = submit(ALICE, SILU, "a");
        crown_with(p0, 1_050_000);
        let claim = Claims::<Test>::get(p0).unwrap();
        let h = HALF_LIFE as u128;
        let at = |block: u64| credit(claim.speedup_ppm, h, (block - claim.since) as u128);
        assert!(at(2 * EPOCH_BLOCKS) < at(EPOCH_BLOCKS));
        assert!(at(10 * EPOCH_BLOCKS) < at(2 * EPOCH_BLOCKS));

        // BOB's equally fast claim revealed later earns more than ALICE's older one.
        run_to_block(EPOCH_BLOCKS + 3);
        let p1 = submit(BOB, ROPE, "b");
        crown_with(p1, 1_050_000);
        run_to_block(2 * EPOCH_BLOCKS);
        let w = Cacheon::weight_vector();
        let (wa, wb) = (w[0], w[1]);
        assert_eq!((wa.0, wb.0), (ALICE, BOB));
        assert!(wa.1 < wb.1, "older claim must weigh less: {w:?}");
        let since_b = Claims::<Test>::get(p1).unwrap().since;
        assert_eq!(
            w,
            split_weights(&[
                (ALICE, at(2 * EPOCH_BLOCKS)),
                (
                    BOB,
                    credit(1_050_000, h, (2 * EPOCH_BLOCKS - since_b) as u128)
                )
            ])
        );
    });
}

#[test]
fn emissions_go_to_bootstrap_while_nothing_is_crowned() {
    ExtBuilder::default()
        .emission(10_000)
        .build_and_execute(|| {
            let pot_before = free(pot());
            // The close computes the vector; the payout runs from the next block.
            run_to_block(EPOCH_BLOCKS + 1);
            assert_eq!(free(BOOTSTRAP), 10_000);
            assert_eq!(free(pot()), pot_before - 10_000);
            System::assert_last_event(ev(CEvent::EmissionsPaid {
                epoch: 1,
                total: 10_000,
            }));
            System::assert_has_event(ev(CEvent::WeightsSet {
                epoch: 1,
                weights: weights(vec![(BOOTSTRAP, 1_000_000)]),
            }));
        });
}

#[test]
fn emissions_are_paid_by_ppm_share() {
    ExtBuilder::default()
        .emission(10_000)
        .build_and_execute(|| {
            let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
            crown_with(ids[0], 1_050_000);
            crown_with(ids[1], 1_030_000);
            let (a0, b0, pot0) = (free(ALICE), free(BOB), free(pot()));
            run_to_block(EPOCH_BLOCKS + 1);
            let w = Cacheon::weight_vector();
            assert_eq!(w, vec![(ALICE, 624_998), (BOB, 375_002)]);
            let share = |ppm: u32| Permill::from_parts(ppm).mul_floor(10_000u128);
            assert_eq!(share(624_998), 6_249);
            assert_eq!(share(375_002), 3_750);
            assert_eq!(free(ALICE), a0 + 6_249);
            assert_eq!(free(BOB), b0 + 3_750);
            assert_eq!(free(pot()), pot0 - 9_999);
            assert_eq!(free(BOOTSTRAP), 0);
            System::assert_last_event(ev(CEvent::EmissionsPaid {
                epoch: 1,
                total: 9_999,
            }));
        });
}

#[test]
fn emissions_are_capped_by_the_pot() {
    ExtBuilder::default()
        .emission(10 * POT_FUNDS)
        .build_and_execute(|| {
            let ed = <<Test as polkadot_sdk::pallet_balances::Config>::ExistentialDeposit as Get<
                Balance,
            >>::get();
            let pot_before = free(pot());
            run_to_block(EPOCH_BLOCKS + 1);
            // The pot keeps its existential deposit.
            assert_eq!(free(BOOTSTRAP), pot_before - ed);
            assert_eq!(free(pot()), ed);
            System::assert_last_event(ev(CEvent::EmissionsPaid {
                epoch: 1,
                total: pot_before - ed,
            }));
            // The next epoch has nothing to pay.
            run_to_block(2 * EPOCH_BLOCKS + 1);
            System::assert_last_event(ev(CEvent::EmissionsPaid { epoch: 2, total: 0 }));
        });
}

#[test]
fn view_functions() {
    ExtBuilder::default().build_and_execute(|| {
        assert_eq!(Cacheon::weight_vector(), vec![]);
        assert_eq!(Cacheon::incumbent_stack(id(ARENA)), Some((0, vec![])));
        assert_eq!(Cacheon::incumbent_stack(id(b"no-arena")), None);
        assert_eq!(Cacheon::proposal_status(0), None);

        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE_DECODE, "rd")]);
        assert_eq!(
            Cacheon::proposal_status(ids[0]),
            Proposals::<Test>::get(ids[0])
        );
        assert_eq!(
            Cacheon::proposal_status(ids[0]).unwrap().status,
            ProposalStatus::Queued
        );
        crown_with(ids[0], 1_050_000);
        crown_with(ids[1], 1_050_000);
        assert!(matches!(
            Cacheon::proposal_status(ids[1]).unwrap().status,
            ProposalStatus::Crowned { .. }
        ));
        let (gen, mut entries) = Cacheon::incumbent_stack(id(ARENA)).unwrap();
        entries.sort();
        let mut expected = vec![
            (id(SILU), ids[0], hash_of(&bundle("a"))),
            (id(ROPE_DECODE), ids[1], hash_of(&bundle("rd"))),
        ];
        expected.sort();
        assert_eq!((gen, entries), (2, expected));
        run_to_block(EPOCH_BLOCKS);
        assert_eq!(
            Cacheon::weight_vector(),
            Weights::<Test>::get().into_inner()
        );
        assert_eq!(Cacheon::weight_vector().len(), 2);
    });
}

fn credit_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), 1u64..1_000, any::<u64>()]
}

proptest! {
    #[test]
    fn split_weights_properties(claims in prop::collection::vec((any::<u8>(), credit_strategy()), 1..=40)) {
        let credits: Vec<(u8, u128)> = claims.iter().map(|(a, c)| (*a, *c as u128)).collect();
        let w = split_weights(&credits);
        let positive: std::collections::BTreeSet<u8> =
            credits.iter().filter(|(_, c)| *c > 0).map(|(a, _)| *a).collect();
        if positive.is_empty() {
            prop_assert!(w.is_empty());
        } else {
            prop_assert_eq!(w.iter().map(|(_, x)| *x as u64).sum::<u64>(), 1_000_000);
            prop_assert!(w.iter().all(|(_, x)| *x > 0));
            // Sorted strictly by account: each account at most once.
            prop_assert!(w.windows(2).all(|p| p[0].0 < p[1].0));
            let accounts: std::collections::BTreeSet<u8> = w.iter().map(|(a, _)| *a).collect();
            prop_assert_eq!(accounts, positive);
        }
    }

    #[test]
    fn credit_is_monotone(s1 in any::<u32>(), s2 in any::<u32>(), h in 1u128..1_000_000_000, a1 in 0u128..u64::MAX as u128, a2 in 0u128..u64::MAX as u128) {
        let (lo_s, hi_s) = (s1.min(s2), s1.max(s2));
        let (young, old) = (a1.min(a2), a1.max(a2));
        prop_assert!(credit(hi_s, h, young) >= credit(hi_s, h, old));
        prop_assert!(credit(lo_s, h, young) <= credit(hi_s, h, young));
        prop_assert!(credit(hi_s, h, young) <= hi_s.saturating_sub(PPM_ONE) as u128);
    }
}
