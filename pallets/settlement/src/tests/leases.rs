use super::*;

#[test]
fn claim_leases_the_primary() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let expires_at = now() + LEASE_BLOCKS;
        assert_ok!(Cacheon::claim(signed(V1), p));
        System::assert_last_event(ev(CEvent::Leased {
            proposal: p,
            validator: V1,
            phase: Phase::Primary,
            generation: 0,
            expires_at,
        }));
        assert_eq!(
            status(p),
            ProposalStatus::Primary {
                lease: Lease {
                    validator: V1,
                    operator: V1,
                    generation: 0,
                    expires_at
                }
            }
        );
        assert_eq!(
            LeaseDeadlines::<Test>::get(expires_at).into_inner(),
            vec![p]
        );
        // Still queued (pending) while leased.
        assert_eq!(queue(), vec![p]);
    });
}

#[test]
fn claim_errors() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::claim(signed(V1), 99),
            Error::<Test>::UnknownProposal
        );
        let p = submit(ALICE, SILU, "a");
        assert_noop!(
            Cacheon::claim(signed(OUTSIDER), p),
            Error::<Test>::NotValidator
        );
        assert_noop!(
            Cacheon::claim(signed(ALICE), p),
            Error::<Test>::NotValidator
        );
        assert_ok!(Cacheon::claim(signed(V1), p));
        // Leased: nobody can claim it, the holder included.
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::NotClaimable);
        assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::NotClaimable);
        // A first FAIL waits for a second operator's; then the proposal is over.
        assert_ok!(attest_as(V1, p, fail(FailReason::Build, 1)));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::Build, 2)));
        assert_noop!(Cacheon::claim(signed(V3), p), Error::<Test>::NotClaimable);
        // A validator of another arena is not a validator of this one.
        let mut gpu = arena_config(2);
        gpu.id = id(b"gpu-b");
        assert_ok!(Cacheon::set_arena(root(), gpu));
        assert_ok!(Cacheon::add_validator(
            root(),
            id(b"gpu-b"),
            OUTSIDER,
            OUTSIDER
        ));
        let q = submit(BOB, SILU, "b");
        assert_noop!(
            Cacheon::claim(signed(OUTSIDER), q),
            Error::<Test>::NotValidator
        );
        // Crowned proposals are not claimable either.
        crown_with(q, 1_050_000);
        assert_noop!(Cacheon::claim(signed(V3), q), Error::<Test>::NotClaimable);
    });
}

/// `UnknownArena` in `claim` cannot happen through calls (arenas are never removed); prepared
/// by removing the arena from storage.
#[test]
fn claim_with_arena_gone_from_storage() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let info = Arenas::<Test>::take(id(ARENA)).unwrap();
        assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::UnknownArena);
        Arenas::<Test>::insert(id(ARENA), info);
    });
}

#[test]
fn claims_follow_reveal_order() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b"), (CAROL, DECODE, "c")]);
        let (p0, p1, p2) = (ids[0], ids[1], ids[2]);
        assert_noop!(Cacheon::claim(signed(V1), p1), Error::<Test>::OutOfTurn);
        assert_noop!(Cacheon::claim(signed(V1), p2), Error::<Test>::OutOfTurn);
        assert_ok!(Cacheon::claim(signed(V1), p0));
        // p0 is leased, so p1 is next for everyone.
        assert_noop!(Cacheon::claim(signed(V2), p2), Error::<Test>::OutOfTurn);
        assert_ok!(attest_as(V1, p0, pass(1_050_000, 1)));
        // p0's reproduction comes first for V2...
        assert_noop!(Cacheon::claim(signed(V2), p1), Error::<Test>::OutOfTurn);
        // ...but V1 passed p0 itself and may skip to p1.
        assert_ok!(Cacheon::claim(signed(V1), p1));
        assert_ok!(Cacheon::claim(signed(V2), p0));
        assert_eq!(lease_of(p0).validator, V2);
        // V3: p0 and p1 are leased, so p2 is its turn.
        assert_ok!(Cacheon::claim(signed(V3), p2));
        assert!(cacheon_events().contains(&CEvent::Leased {
            proposal: p0,
            validator: V2,
            phase: Phase::Reproduction,
            generation: 0,
            expires_at: now() + LEASE_BLOCKS,
        }));
    });
}

#[test]
fn reproduction_needs_another_validator() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        let until = now() + REPRODUCTION_TIMEOUT;
        assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::SameOperator);
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_eq!(
            status(p),
            ProposalStatus::Reproduction {
                primary: primary_of(p),
                lease: Lease {
                    validator: V3,
                    operator: V3,
                    generation: 0,
                    expires_at: now() + LEASE_BLOCKS
                },
                // The wait's clock stands still while it is leased.
                until: until + LEASE_BLOCKS,
            }
        );
        System::assert_last_event(ev(CEvent::Leased {
            proposal: p,
            validator: V3,
            phase: Phase::Reproduction,
            generation: 0,
            expires_at: now() + LEASE_BLOCKS,
        }));
    });
}

#[test]
fn lease_expiry_requeues_then_expires_with_deposits_returned() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        let p = submit(ALICE, SILU, "a");
        // Each expiry excludes its operator: every attempt is another operator's.
        for (attempt, v) in (1..MAX_ATTEMPTS).zip([V1, V2]) {
            assert_ok!(Cacheon::claim(signed(v), p));
            let expiry = lease_of(p).expires_at;
            run_to_block(expiry - 1);
            assert!(matches!(status(p), ProposalStatus::Primary { .. }));
            run_to_block(expiry);
            System::assert_has_event(ev(CEvent::LeaseExpired {
                proposal: p,
                validator: v,
                attempts: attempt,
            }));
            assert_eq!(status(p), ProposalStatus::Queued);
            assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, attempt);
            assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
            assert_eq!(bundle_held(ALICE), len_of(&bytes));
        }
        // The last attempt.
        assert_ok!(Cacheon::claim(signed(V3), p));
        let expiry = lease_of(p).expires_at;
        run_to_block(expiry);
        System::assert_has_event(ev(CEvent::Expired {
            proposal: p,
            attempts: MAX_ATTEMPTS,
        }));
        System::assert_has_event(ev(CEvent::LeaseExpired {
            proposal: p,
            validator: V3,
            attempts: MAX_ATTEMPTS,
        }));
        assert_eq!(status(p), ProposalStatus::Expired);
        assert!(queue().is_empty());
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::NotClaimable);
    });
}

#[test]
fn reproduction_lease_expiry_keeps_the_primary_pass() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        let primary = primary_of(p);
        let until = now() + REPRODUCTION_TIMEOUT;
        assert_ok!(Cacheon::claim(signed(V2), p));
        run_to_block(lease_of(p).expires_at);
        System::assert_has_event(ev(CEvent::LeaseExpired {
            proposal: p,
            validator: V2,
            attempts: 1,
        }));
        // Back to the same wait, not a fresh one: its deadline is the one the PASS got,
        // moved by the lease (the clock stood still while it was leased).
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary,
                until: until + LEASE_BLOCKS
            }
        );
        // Another validator reproduces and crowns.
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_040_000, 3)));
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned {
                speedup_ppm: 1_040_000,
                ..
            }
        ));
    });
}

#[test]
fn attest_after_lease_expiry() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        let expiry = lease_of(p).expires_at;
        // The hook requeued the proposal: the former holder no longer holds a lease.
        run_to_block(expiry);
        assert_noop!(
            attest_as(V1, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );

        // A lease whose deadline block has come but whose hook has not run (defence in
        // depth: the hook normally runs first). V1's expiry excluded its operator.
        assert_noop!(
            Cacheon::claim(signed(V1), p),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V2), p));
        let expiry = lease_of(p).expires_at;
        System::set_block_number(expiry);
        assert_noop!(
            attest_as(V2, p, pass(1_050_000, 2)),
            Error::<Test>::LeaseExpired
        );
        // One block earlier it would have been accepted.
        System::set_block_number(expiry - 1);
        assert_ok!(attest_as(V2, p, pass(1_050_000, 2)));
    });
}

#[test]
fn lease_schedule_is_bounded_per_block() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[
            (ALICE, SILU, "a"),
            (ALICE, SILU, "b"),
            (ALICE, SILU, "c"),
            (ALICE, SILU, "d"),
            (BOB, SILU, "e"),
        ]);
        // MaxLeasesPerBlock = 4 leases may end in the same block (two operators, two each).
        for (p, v) in ids[..4].iter().zip([V1, V1, V2, V2]) {
            assert_ok!(Cacheon::claim(signed(v), *p));
        }
        let expiry = now() + LEASE_BLOCKS;
        assert_eq!(LeaseDeadlines::<Test>::get(expiry).len(), 4);
        // A fifth lease ending in that block ends in the next one with room instead.
        assert_ok!(Cacheon::claim(signed(V3), ids[4]));
        assert_eq!(
            LeaseDeadlines::<Test>::get(expiry + 1).into_inner(),
            vec![ids[4]]
        );
        assert_eq!(lease_of(ids[4]).expires_at, expiry + 1);
        // Only a schedule full for `DEADLINE_TRIES` blocks refuses a lease (which the
        // runtime's bounds rule out: `integrity_test`; prepared in storage here).
        assert_ok!(attest_as(
            V3,
            ids[4],
            no_decision(NoDecisionReason::Noise, 3)
        ));
        assert_ok!(attest_as(
            V1,
            ids[0],
            no_decision(NoDecisionReason::Noise, 1)
        ));
        let full: BoundedVec<ProposalId, ConstU32<4>> = BoundedVec::truncate_from(vec![900; 4]);
        let window: Vec<u64> = (0..crate::settle::DEADLINE_TRIES as u64)
            .map(|b| now() + LEASE_BLOCKS + b)
            .collect();
        let saved: Vec<_> = window.iter().map(LeaseDeadlines::<Test>::get).collect();
        for b in &window {
            LeaseDeadlines::<Test>::insert(b, full.clone());
        }
        assert_noop!(
            Cacheon::claim(signed(V1), ids[4]),
            Error::<Test>::LeaseScheduleFull
        );
        for (b, ids) in window.iter().zip(saved) {
            LeaseDeadlines::<Test>::insert(b, ids);
        }
        // All four expire together in one block.
        run_to_block(expiry);
        for p in &ids[..4] {
            assert_eq!(status(*p), ProposalStatus::Queued);
        }
    });
}

#[test]
fn removed_validator_cannot_attest_and_its_lease_expires() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V1));
        assert_noop!(
            attest_as(V1, p, pass(1_050_000, 1)),
            Error::<Test>::NotValidator
        );
        assert_noop!(
            attest_as(V1, p, fail(FailReason::Cheating, 1)),
            Error::<Test>::NotValidator
        );
        run_to_block(lease_of(p).expires_at);
        assert_eq!(status(p), ProposalStatus::Queued);
        System::assert_has_event(ev(CEvent::LeaseExpired {
            proposal: p,
            validator: V1,
            attempts: 1,
        }));
        assert_ok!(Cacheon::claim(signed(V2), p));
    });
}

/// A validator that is also a miner cannot measure its own proposal, and
/// its own proposal at the head of the queue does not hold it up (it takes the next one).
#[test]
fn validator_attesting_its_own_proposal_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let own = submit(V1, SILU, "mine");
        let other = submit(ALICE, ROPE, "theirs");
        assert_noop!(Cacheon::claim(signed(V1), own), Error::<Test>::OwnProposal);
        // Its own proposal is not "claimable by the caller": the next one is its turn.
        assert_ok!(Cacheon::claim(signed(V1), other));
        // Two other validators can still measure it and crown it.
        assert_ok!(Cacheon::claim(signed(V2), own));
        assert_ok!(attest_as(V2, own, pass(1_050_000, 2)));
        assert_noop!(Cacheon::claim(signed(V1), own), Error::<Test>::OwnProposal);
        assert_ok!(Cacheon::claim(signed(V3), own));
        assert_ok!(attest_as(V3, own, pass(1_040_000, 3)));
        assert!(matches!(status(own), ProposalStatus::Crowned { .. }));
    });
}
