use super::*;

#[test]
fn crown_records_claim_incumbent_and_generation() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("fast");
        let p = submit(ALICE, SILU, "fast");
        let reveal_block = now();
        crown_with(p, 1_030_000);
        System::assert_last_event(ev(CEvent::Crowned {
            proposal: p,
            miner: ALICE,
            arena: id(ARENA),
            target: id(SILU),
            speedup_ppm: 1_030_000,
            generation: 1,
            evidence: BoundedVec::truncate_from(vec![[1; 32], [2; 32]]),
        }));
        assert_eq!(
            Claims::<Test>::get(p),
            Some(RewardClaim {
                miner: ALICE,
                arena: id(ARENA),
                target: id(SILU),
                speedup_ppm: 1_030_000,
                since: reveal_block,
                evidence: BoundedVec::truncate_from(vec![[1; 32], [2; 32]]),
            })
        );
        assert_eq!(Claims::<Test>::count(), 1);
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU)),
            Some(IncumbentEntry {
                proposal: p,
                content_hash: hash_of(&bytes)
            })
        );
        assert_eq!(generation(), 1);
        assert!(queue().is_empty());
        // The crown keeps its bundle and its deposit.
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)).unwrap(), 1);
        assert_eq!(bundle_held(ALICE), len_of(&bytes));
        assert!(LeaseDeadlines::<Test>::iter().next().is_none());
        assert_eq!(
            Cacheon::incumbent_stack(id(ARENA)),
            Some((1, vec![(id(SILU), p, hash_of(&bytes))]))
        );
    });
}

#[test]
fn crown_speedup_is_the_lower_pass_either_way() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        // Reproduction lower.
        primary_pass(ids[0], 1_080_000);
        assert_ok!(Cacheon::claim(signed(V2), ids[0]));
        assert_ok!(attest_as(V2, ids[0], pass(1_020_000, 2)));
        assert_eq!(Claims::<Test>::get(ids[0]).unwrap().speedup_ppm, 1_020_000);
        // Primary lower.
        assert_ok!(Cacheon::claim(signed(V3), ids[1]));
        assert_ok!(attest_as(V3, ids[1], pass(1_015_000, 3)));
        assert_ok!(Cacheon::claim(signed(V1), ids[1]));
        assert_ok!(attest_as(V1, ids[1], pass(1_090_000, 1)));
        assert_eq!(Claims::<Test>::get(ids[1]).unwrap().speedup_ppm, 1_015_000);
        assert_eq!(generation(), 2);
    });
}

#[test]
fn superseding_crown_retires_the_old_one() {
    ExtBuilder::default().build_and_execute(|| {
        let old_bytes = bundle("old");
        let new_bytes = bundle("new");
        let p0 = submit(ALICE, SILU, "old");
        crown_with(p0, 1_050_000);
        let p1 = submit(BOB, SILU, "new");
        crown_with(p1, 1_020_000);
        System::assert_has_event(ev(CEvent::Retired {
            proposal: p0,
            cause: RetireCause::Superseded { by: p1 },
        }));
        System::assert_last_event(ev(CEvent::Crowned {
            proposal: p1,
            miner: BOB,
            arena: id(ARENA),
            target: id(SILU),
            speedup_ppm: 1_020_000,
            generation: 2,
            evidence: BoundedVec::truncate_from(vec![[1; 32], [2; 32]]),
        }));
        assert_eq!(status(p0), ProposalStatus::Retired { at: now() });
        assert!(Claims::<Test>::get(p0).is_none());
        assert!(Claims::<Test>::get(p1).is_some());
        assert_eq!(Claims::<Test>::count(), 1);
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            p1
        );
        // ALICE's bundle deposit is back, the fee is not; the unreferenced bundle is gone.
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert_eq!(Proposals::<Test>::get(p0).unwrap().bundle_deposit, 0);
        assert!(!Bundles::<Test>::contains_key(hash_of(&old_bytes)));
        assert!(Bundles::<Test>::contains_key(hash_of(&new_bytes)));
        assert_eq!(bundle_held(BOB), len_of(&new_bytes));
        assert_eq!(generation(), 2);
        // Only the active claim counts in the next epoch.
        run_to_block(EPOCH_BLOCKS);
        assert_eq!(Cacheon::weight_vector(), vec![(BOB, 1_000_000)]);
    });
}

#[test]
fn retired_bundle_stays_while_still_referenced() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("same");
        let l = len_of(&bytes);
        let p0 = submit(ALICE, SILU, "same");
        crown_with(p0, 1_050_000);
        let p1 = submit(ALICE, SILU, "same");
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)).unwrap(), 2);
        crown_with(p1, 1_060_000);
        System::assert_has_event(ev(CEvent::Retired {
            proposal: p0,
            cause: RetireCause::Superseded { by: p1 },
        }));
        // p1's crown still uses the bundle.
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)).unwrap(), 1);
        assert_eq!(bundle_held(ALICE), l);
        assert_eq!(free(ALICE), INITIAL_BALANCE - 2 * REVEAL_FEE - l);
    });
}

#[test]
fn atomic_crown_displaces_its_members() {
    ExtBuilder::default().build_and_execute(|| {
        let p_rope = submit(ALICE, ROPE, "rope");
        crown_with(p_rope, 1_050_000);
        let p_dec = submit(BOB, DECODE, "decode");
        crown_with(p_dec, 1_040_000);
        let p_silu = submit(ALICE, SILU, "silu");
        crown_with(p_silu, 1_030_000);
        assert_eq!(generation(), 3);
        assert_eq!(Claims::<Test>::count(), 3);

        let p_rd = submit(CAROL, ROPE_DECODE, "rope-decode");
        crown_with(p_rd, 1_100_000);
        System::assert_has_event(ev(CEvent::Retired {
            proposal: p_rope,
            cause: RetireCause::Displaced { by: p_rd },
        }));
        System::assert_has_event(ev(CEvent::Retired {
            proposal: p_dec,
            cause: RetireCause::Displaced { by: p_rd },
        }));
        assert!(!cacheon_events().contains(&CEvent::Retired {
            proposal: p_silu,
            cause: RetireCause::Displaced { by: p_rd }
        }));
        assert_eq!(generation(), 4);
        assert!(Incumbents::<Test>::get(id(ARENA), id(ROPE)).is_none());
        assert!(Incumbents::<Test>::get(id(ARENA), id(DECODE)).is_none());
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(ROPE_DECODE))
                .unwrap()
                .proposal,
            p_rd
        );
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            p_silu
        );
        assert!(Claims::<Test>::get(p_rope).is_none());
        assert!(Claims::<Test>::get(p_dec).is_none());
        assert_eq!(Claims::<Test>::count(), 2);
        assert_eq!(status(p_rope), ProposalStatus::Retired { at: now() });
        assert_eq!(status(p_dec), ProposalStatus::Retired { at: now() });
        assert_eq!(bundle_held(BOB), 0);
        assert_eq!(bundle_held(ALICE), len_of(&bundle("silu")));
        assert!(!Bundles::<Test>::contains_key(hash_of(&bundle("rope"))));

        // Reveals for the displaced slots are refused now; SILU is unaffected.
        commit(ALICE, ROPE, &bundle("rope2"));
        commit(BOB, DECODE, &bundle("decode2"));
        commit(BOB, SILU, &bundle("silu2"));
        advance(REVEAL_DELAY);
        assert_noop!(
            reveal(ALICE, ROPE, &bundle("rope2")),
            Error::<Test>::TargetDisplaced
        );
        assert_noop!(
            reveal(BOB, DECODE, &bundle("decode2")),
            Error::<Test>::TargetDisplaced
        );
        assert_ok!(reveal(BOB, SILU, &bundle("silu2")));
        // The atomic target itself may still be superseded.
        let (gen, entries) = Cacheon::incumbent_stack(id(ARENA)).unwrap();
        assert_eq!(gen, 4);
        assert_eq!(entries.len(), 2);
    });
}

#[test]
fn crown_rolls_back_on_generation_overflow() {
    ExtBuilder::default().build_and_execute(|| {
        let p0 = submit(ALICE, SILU, "old");
        crown_with(p0, 1_050_000);
        Arenas::<Test>::mutate(id(ARENA), |a| a.as_mut().unwrap().generation = u32::MAX);
        let p1 = submit(BOB, SILU, "new");
        assert_ok!(Cacheon::claim(signed(V1), p1));
        assert_ok!(attest_as(V1, p1, pass(1_050_000, 1)));
        assert_ok!(Cacheon::claim(signed(V2), p1));
        // The reproduction's PASS; the sealed primary PASS's reveal crowns.
        assert_ok!(Cacheon::attest(signed(V2), p1, pass(1_040_000, 2)));
        let before = status(p1);
        let ProposalStatus::AwaitingReveal { until: expiry, .. } = before else {
            panic!("the reveal is awaited: {before:?}");
        };
        let balances: Vec<_> = [ALICE, BOB, pot()]
            .iter()
            .map(|a| (free(*a), bundle_held(*a), commit_held(*a)))
            .collect();
        let events = System::events().len();

        assert_noop!(
            try_reveal_kept(p1).expect("a kept seal"),
            Error::<Test>::GenerationOverflow
        );

        assert_eq!(status(p1), before);
        assert_eq!(LeaseDeadlines::<Test>::get(expiry).into_inner(), vec![p1]);
        assert_eq!(generation(), u32::MAX);
        assert!(Claims::<Test>::get(p1).is_none());
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            p0
        );
        assert!(matches!(status(p0), ProposalStatus::Crowned { .. }));
        assert!(Claims::<Test>::get(p0).is_some());
        assert_eq!(queue(), vec![p1]);
        let after: Vec<_> = [ALICE, BOB, pot()]
            .iter()
            .map(|a| (free(*a), bundle_held(*a), commit_held(*a)))
            .collect();
        assert_eq!(after, balances);
        assert_eq!(System::events().len(), events);
    });
}

/// `TooManyClaims` cannot be reached with the mock's catalog (4 arenas × 16 targets would be
/// needed for `MaxClaims = 64`); the claims are prepared in storage and removed afterwards.
#[test]
fn too_many_claims() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let fake = RewardClaim {
            miner: CAROL,
            arena: id(ARENA),
            target: id(DECODE),
            speedup_ppm: 1_100_000,
            since: 1,
            evidence: BoundedVec::new(),
        };
        let max = <<Test as Config>::MaxClaims as Get<u32>>::get() as u64;
        for i in 0..max {
            Claims::<Test>::insert(1_000 + i, fake.clone());
        }
        primary_pass(p, 1_050_000);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::attest(signed(V2), p, pass(1_040_000, 2)));
        assert_noop!(
            try_reveal_kept(p).expect("a kept seal"),
            Error::<Test>::TooManyClaims
        );
        // One fewer leaves room for exactly one more.
        Claims::<Test>::remove(1_000);
        reveal_kept(p);
        assert_eq!(Claims::<Test>::count() as u64, max);
        for i in 1..max {
            Claims::<Test>::remove(1_000 + i);
        }
    });
}

/// A reproduction lease that expires after another crown must not keep the primary PASS
/// measured against the previous generation: the proposal starts over, so no single new
/// PASS can crown it on two PASSes against different incumbents.
#[test]
fn reproduction_expiry_across_a_crown_drops_the_stale_primary() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p0, p1) = (ids[0], ids[1]);
        primary_pass(p0, 1_050_000);
        assert_ok!(Cacheon::claim(signed(V1), p1));
        assert_ok!(attest_as(V1, p1, pass(1_050_000, 3)));
        // Both reproductions leased at generation 0.
        assert_ok!(Cacheon::claim(signed(V2), p0));
        assert_ok!(Cacheon::claim(signed(V3), p1));
        // p0 crowns: generation 1. p1 is leased, so drop_stale_passes does not see it.
        assert_ok!(attest_as(V2, p0, pass(1_040_000, 2)));
        assert_eq!(generation(), 1);
        // V3 never attests; its lease expires.
        run_to_block(lease_of(p1).expires_at);
        assert_eq!(status(p1), ProposalStatus::Queued);
        System::assert_has_event(
            Event::PassDropped {
                proposal: p1,
                generation: 1,
            }
            .into(),
        );
        // The next PASS at generation 1 is a new primary, not a crown.
        assert_ok!(Cacheon::claim(signed(V2), p1));
        assert_ok!(attest_as(V2, p1, pass(1_040_000, 4)));
        assert!(matches!(
            status(p1),
            ProposalStatus::ReproductionQueued { .. }
        ));
    });
}

/// A crown of ROPE_DECODE drops every pending proposal for ROPE or DECODE, leased or not:
/// they could never be crowned under the atomic incumbent. Deposits are returned.
#[test]
fn atomic_crown_drops_pending_proposals_of_displaced_targets() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[
            (BOB, ROPE_DECODE, "rd"),
            (ALICE, ROPE, "rope"),
            (CAROL, DECODE, "dec"),
            (CAROL, SILU, "silu"),
        ]);
        let (p_rd, p_rope, p_dec, p_silu) = (ids[0], ids[1], ids[2], ids[3]);
        primary_pass(p_rd, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V2), p_rd));
        // V3 leases the ROPE proposal (p_rd is leased, so p_rope is its turn).
        assert_ok!(Cacheon::claim(signed(V3), p_rope));
        let rope_expiry = lease_of(p_rope).expires_at;
        assert_ok!(attest_as(V2, p_rd, pass(1_090_000, 2)));

        for p in [p_rope, p_dec] {
            System::assert_has_event(ev(CEvent::ProposalDropped {
                proposal: p,
                displaced_by: p_rd,
            }));
            assert_eq!(status(p), ProposalStatus::Dropped { displaced_by: p_rd });
            assert_eq!(Proposals::<Test>::get(p).unwrap().bundle_deposit, 0);
        }
        assert_eq!(status(p_silu), ProposalStatus::Queued);
        assert_eq!(queue(), vec![p_silu]);
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert_eq!(bundle_held(CAROL), len_of(&bundle("silu")));
        assert!(!Bundles::<Test>::contains_key(hash_of(&bundle("rope"))));
        assert!(!Bundles::<Test>::contains_key(hash_of(&bundle("dec"))));
        // The dropped lease can no longer be attested, and its deadline passes silently.
        assert_noop!(
            attest_as(V3, p_rope, pass(1_050_000, 3)),
            Error::<Test>::NotLeaseHolder
        );
        assert_noop!(
            Cacheon::claim(signed(V1), p_dec),
            Error::<Test>::NotClaimable
        );
        let n = cacheon_events().len();
        run_to_block(rope_expiry);
        assert_eq!(
            status(p_rope),
            ProposalStatus::Dropped { displaced_by: p_rd }
        );
        assert!(!cacheon_events()[n..]
            .iter()
            .any(|e| matches!(e, CEvent::LeaseExpired { .. })));
        // Nothing displaced is ever crowned.
        assert!(Incumbents::<Test>::get(id(ARENA), id(ROPE)).is_none());
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(ROPE_DECODE))
                .unwrap()
                .proposal,
            p_rd
        );
    });
}

/// Root cannot make a crowned target displace another crowned target: one incumbent entry
/// would displace another.
#[test]
fn set_target_refuses_to_displace_a_crowned_entry_with_a_crowned_one() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        crown_with(ids[0], 1_050_000);
        crown_with(ids[1], 1_050_000);
        let mut silu = slot_target(SILU);
        silu.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
        assert_noop!(
            Cacheon::set_target(root(), silu.clone()),
            Error::<Test>::DisplacesCrowned
        );
        // Without a crowned ROPE the same change is fine.
        let mut decode = slot_target(DECODE);
        decode.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
        assert_ok!(Cacheon::set_target(root(), decode));
    });
}

/// Root extends a crowned target's displacement set to a target that has
/// a proposal waiting for its reproduction (allowed: nothing of it is crowned yet). That
/// proposal can then never be crowned beside its displacer: the crown drops it instead.
#[test]
fn target_made_displacing_later_cannot_crown_a_member_beside_it() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p_silu, p_rope) = (ids[0], ids[1]);
        crown_with(p_silu, 1_050_000);
        primary_pass(p_rope, 1_060_000);
        let mut silu = slot_target(SILU);
        silu.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
        assert_ok!(Cacheon::set_target(root(), silu));
        assert_ok!(Cacheon::claim(signed(V2), p_rope));
        assert_ok!(attest_as(V2, p_rope, pass(1_050_000, 2)));
        assert_eq!(
            status(p_rope),
            ProposalStatus::Dropped {
                displaced_by: p_silu
            }
        );
        System::assert_has_event(ev(CEvent::ProposalDropped {
            proposal: p_rope,
            displaced_by: p_silu,
        }));
        assert!(Incumbents::<Test>::get(id(ARENA), id(ROPE)).is_none());
        assert!(!Claims::<Test>::contains_key(p_rope));
        assert_eq!(bundle_held(BOB), 0);
        assert!(queue().is_empty());
    });
}
