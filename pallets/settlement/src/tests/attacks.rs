//! One test per attack of the settlement audit: each fails on the version 1 rules.

use super::*;

/// A copier sees the honest reveal (or its bytes in the pool), commits the same bytes and
/// gets its reveal in first (say, by crowding the honest one out of a few blocks). The
/// earliest commitment still owns the content: the copier cannot be crowned before every
/// older commitment's window has closed, and the late honest reveal takes the content back,
/// which FAILs the copy `CopyOf` at once and forfeits its deposit.
#[test]
fn copier_revealing_first_loses_to_earliest_commitment() {
    ExtBuilder::default().reveal_window().build_and_execute(|| {
        let bytes = bundle("honest");
        commit(ALICE, SILU, &bytes);
        let honest_commit = now();
        advance(1);
        commit(BOB, SILU, &bytes);
        advance(REVEAL_DELAY);
        let copy = NextProposalId::<Test>::get();
        assert_ok!(reveal(BOB, SILU, &bytes));
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| o.miner),
            Some(BOB)
        );
        // The copy is measured first (it is first in the queue) and PASSes its primary...
        primary_pass(copy, 1_100_000);
        // ...but its crowning attempt waits: an older commitment may still reveal.
        assert_noop!(
            Cacheon::claim(signed(V2), copy),
            Error::<Test>::PriorityNotFinal
        );
        // The honest miner reveals late in its window.
        advance(5);
        let honest = NextProposalId::<Test>::get();
        assert_ok!(reveal(ALICE, SILU, &bytes));
        System::assert_has_event(ev(CEvent::ContentReclaimed {
            content_hash: hash_of(&bytes),
            proposal: honest,
            previous: copy,
        }));
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)),
            Some(ContentOwner {
                miner: ALICE,
                proposal: honest,
                commit_block: honest_commit,
            })
        );
        // The copy ends at once: FAILed `CopyOf` the original, its deposit forfeited.
        assert_eq!(
            status(copy),
            ProposalStatus::Failed {
                reason: FailReason::CopyOf(honest)
            }
        );
        System::assert_has_event(ev(CEvent::DepositSlashed {
            proposal: copy,
            miner: BOB,
            amount: len_of(&bytes),
        }));
        assert!(Incumbents::<Test>::get(id(ARENA), id(SILU)).is_none());
        // The honest proposal crowns.
        crown_with(honest, 1_100_000);
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU)).map(|e| e.proposal),
            Some(honest)
        );
        // A copy committed after the owner's commitment is refused at reveal, as before.
        commit(CAROL, SILU, &bytes);
        advance(REVEAL_DELAY);
        assert_noop!(reveal(CAROL, SILU, &bytes), Error::<Test>::CopyOfOtherMiner);
    });
}

/// Leases follow reveal order, but crowns did not: a later proposal for the same slot could
/// finish both attempts while an earlier one was still being measured, and crown first.
#[test]
fn later_overlapping_proposal_cannot_crown_before_an_earlier_one() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, ROPE, "early"), (BOB, ROPE_DECODE, "late")]);
        let (early, late) = (ids[0], ids[1]);
        // V1 is measuring the early one; V2 passes the late one's primary.
        assert_ok!(Cacheon::claim(signed(V1), early));
        primary_pass_by(V2, late, 1_100_000);
        // The atomic target displaces ROPE: its crown waits for the early proposal.
        assert_noop!(
            Cacheon::claim(signed(V3), late),
            Error::<Test>::EarlierOverlapPending
        );
        // A proposal for an unrelated slot is not held up.
        let other = submit(CAROL, SILU, "other");
        primary_pass_by(V2, other, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V3), other));
        // The early one ends (two operators' Build FAILs): the late one may crown.
        assert_ok!(attest_as(V1, early, fail(FailReason::Build, 1)));
        assert_ok!(Cacheon::claim(signed(V2), early));
        assert_ok!(attest_as(V2, early, fail(FailReason::Build, 2)));
        assert_ok!(attest_as(V3, other, pass(1_100_000, 3)));
        assert!(matches!(status(other), ProposalStatus::Crowned { .. }));
        // The SILU crown moved the generation on; the late primary is measured again.
        assert_eq!(status(late), ProposalStatus::Queued);
        primary_pass_by(V2, late, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V3), late));
        assert_ok!(attest_as(V3, late, pass(1_100_000, 3)));
        assert!(matches!(status(late), ProposalStatus::Crowned { .. }));
    });
}

/// One validator that answers NoDecision to everything expired any proposal alone (three
/// NoDecisions), and one FAIL on the first attempt ended it.
#[test]
fn one_validator_cannot_expire_or_veto_a_proposal() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "good");
        let stall = |v: AccountId, seed: u8| {
            assert_ok!(Cacheon::claim(signed(v), p));
            assert_ok!(attest_as(
                v,
                p,
                no_decision(NoDecisionReason::Infrastructure, seed)
            ));
        };
        stall(V1, 1);
        // A staller sits out while another operator may take the proposal: it cannot hold
        // it...
        assert_noop!(
            Cacheon::claim(signed(V1), p),
            Error::<Test>::OperatorExcluded
        );
        stall(V2, 2);
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 2);
        assert_noop!(
            Cacheon::claim(signed(V1), p),
            Error::<Test>::OperatorExcluded
        );
        assert_eq!(status(p), ProposalStatus::Queued);
        // A FAIL from one operator only waits for a second opinion (and, with no other
        // operator left to take it, the stallers may again)...
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, fail(FailReason::NotFaster, 3)));
        assert_eq!(status(p), ProposalStatus::Queued);
        assert_eq!(
            Proposals::<Test>::get(p)
                .unwrap()
                .disputed
                .map(|d| d.validator),
            Some(V3)
        );
        // ...which another operator gives: PASS, the disagreement on record.
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
        System::assert_has_event(ev(CEvent::AttestationsDisagreed {
            proposal: p,
            pass_validator: V1,
            pass_evidence: None,
            fail_validator: V3,
            fail_evidence: [3; 32],
            reason: FailReason::NotFaster,
        }));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        // The failing operator may not reproduce it. V2's second stall counts no attempt,
        // and with nobody else left its exclusion lifts again: stalls alone end nothing
        // before `max_attempts`.
        assert_noop!(
            Cacheon::claim(signed(V3), p),
            Error::<Test>::OperatorExcluded
        );
        stall(V2, 2);
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 2);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_040_000, 4)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// A validator hoarding leases stalls the arena; the cap is per operator, over its keys.
#[test]
fn one_operator_cannot_hoard_leases() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b"), (CAROL, DECODE, "c")]);
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER, V1));
        assert_ok!(Cacheon::claim(signed(V1), ids[0]));
        assert_ok!(Cacheon::claim(signed(OUTSIDER), ids[1]));
        assert_eq!(OpenLeases::<Test>::get(V1), MAX_LEASES_PER_OPERATOR);
        assert_noop!(
            Cacheon::claim(signed(V1), ids[2]),
            Error::<Test>::TooManyLeases
        );
        assert_ok!(Cacheon::claim(signed(V2), ids[2]));
        // An attestation frees a lease.
        assert_ok!(attest_as(V1, ids[0], pass(1_050_000, 1)));
        assert_eq!(OpenLeases::<Test>::get(V1), 1);
    });
}

/// "Distinct validators" meant distinct accounts: one operator with two keys crowned alone,
/// and could measure its own proposal through its other key.
#[test]
fn one_operator_with_two_keys_cannot_crown_alone() {
    ExtBuilder::default().build_and_execute(|| {
        // OUTSIDER is a second key of V1's operator.
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER, V1));
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        assert_noop!(
            Cacheon::claim(signed(OUTSIDER), p),
            Error::<Test>::SameOperator
        );
        // A proposal revealed by one of the operator's keys is its own for every key.
        let own = submit(OUTSIDER, ROPE, "own");
        assert_noop!(Cacheon::claim(signed(V1), own), Error::<Test>::OwnProposal);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::claim(signed(V2), own));
        // Also when that key is registered in another arena only; and a key has one
        // operator everywhere.
        let mut other = arena_config(2);
        other.id = id(b"cpu-other");
        assert_ok!(Cacheon::set_arena(root(), other));
        assert_ok!(Cacheon::add_validator(root(), id(b"cpu-other"), CAROL, V1));
        assert_noop!(
            Cacheon::add_validator(root(), id(b"cpu-other"), V2, V3),
            Error::<Test>::OperatorMismatch
        );
        let from_other_arena = submit(CAROL, DECODE, "carol");
        assert_noop!(
            Cacheon::claim(signed(V1), from_other_arena),
            Error::<Test>::OwnProposal
        );
    });
}

/// The evidence of a crown was forgotten: no event carried the digests and the crowned
/// state kept neither PASS.
#[test]
fn crown_keeps_both_passes_and_their_evidence() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        crown_with(p, 1_050_000);
        let ProposalStatus::Crowned { passes, .. } = status(p) else {
            panic!("not crowned");
        };
        assert_eq!(
            passes
                .iter()
                .map(|x| (x.validator, x.evidence_digest))
                .collect::<Vec<_>>(),
            vec![(V1, [1; 32]), (V2, [2; 32])]
        );
        assert_eq!(
            Claims::<Test>::get(p).unwrap().evidence.into_inner(),
            vec![[1; 32], [2; 32]]
        );
        assert!(cacheon_events().iter().any(|e| matches!(
            e,
            CEvent::Crowned { evidence, .. } if evidence.len() == 2
        )));
    });
}

/// A removed validator's PASS kept counting towards a crown.
#[test]
fn removed_validators_pass_stops_counting() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V1));
        assert_ok!(attest_as(V2, p, pass(1_060_000, 2)));
        // Not crowned: V2's PASS is now the primary one.
        assert_eq!(*primary_of(p).validator(), V2);
        System::assert_has_event(ev(CEvent::PassDropped {
            proposal: p,
            generation: 0,
        }));
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_040_000, 3)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// The commit deposit is stored with the commitment: what was held is what is released.
#[test]
fn commit_deposit_is_stored_with_the_commitment() {
    ExtBuilder::default().build_and_execute(|| {
        let c = commit(ALICE, SILU, &bundle("a"));
        assert_eq!(
            Commits::<Test>::get(ALICE, c).unwrap().deposit,
            COMMIT_DEPOSIT
        );
        // A deposit recorded as smaller than the constant releases only what it says.
        Commits::<Test>::mutate(ALICE, c, |r| r.as_mut().unwrap().deposit = 40);
        assert_ok!(Cacheon::cancel_commit(signed(ALICE), c));
        assert_eq!(commit_held(ALICE), COMMIT_DEPOSIT - 40);
        // (restore the books for try_state: release the rest by hand)
        assert_ok!(<Balances as frame::traits::fungible::MutateHold<
            AccountId,
        >>::release(
            &RuntimeHoldReason::from(HoldReason::CommitDeposit),
            &ALICE,
            COMMIT_DEPOSIT - 40,
            frame::traits::tokens::Precision::Exact,
        ));
    });
}

/// A primary PASS that no other operator reproduces held its proposal (and every later
/// crown of an overlapping target) pending for ever. The wait now times out: the proposal
/// expires with its deposits returned, and the later overlapping proposal may crown.
#[test]
fn reproduction_wait_times_out_instead_of_blocking_forever() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, ROPE, "stuck"), (BOB, ROPE_DECODE, "later")]);
        let (stuck, later) = (ids[0], ids[1]);
        // V1 passes both primaries; V2 and V3 are offline.
        primary_pass(stuck, 1_100_000);
        let until = now() + REPRODUCTION_TIMEOUT;
        assert_eq!(status(stuck), awaiting(primary_of(stuck)));
        advance(1);
        primary_pass(later, 1_100_000);
        // The later crown must wait for the stuck one (V3 back online would have to take the
        // stuck reproduction first).
        assert_noop!(Cacheon::claim(signed(V3), later), Error::<Test>::OutOfTurn);
        run_to_block(until - 1);
        assert!(matches!(
            status(stuck),
            ProposalStatus::ReproductionQueued { .. }
        ));
        run_to_block(until);
        assert_eq!(status(stuck), ProposalStatus::Expired);
        System::assert_has_event(ev(CEvent::ReproductionTimedOut {
            proposal: stuck,
            primary_validator: V1,
        }));
        assert_eq!(bundle_held(ALICE), 0);
        assert!(!queue().contains(&stuck));
        // Nothing ahead overlaps any more: the later proposal crowns (its own wait, a block
        // younger, has not run out).
        assert!(matches!(
            status(later),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::claim(signed(V3), later));
        assert_ok!(attest_as(V3, later, pass(1_100_000, 3)));
        assert!(matches!(status(later), ProposalStatus::Crowned { .. }));
    });
}

/// A reproduction leased before the timeout is not cut short by it, and a withdrawn wait
/// leaves no deadline behind.
#[test]
fn reproduction_lease_and_withdraw_clear_the_wait_deadline() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        primary_pass(ids[0], 1_100_000);
        primary_pass(ids[1], 1_100_000);
        let until = now() + REPRODUCTION_TIMEOUT;
        assert_eq!(LeaseDeadlines::<Test>::get(until).into_inner(), ids);
        assert_ok!(Cacheon::claim(signed(V2), ids[0]));
        assert_ok!(Cacheon::withdraw(signed(BOB), ids[1]));
        assert!(!LeaseDeadlines::<Test>::contains_key(until));
        assert_ok!(attest_as(V2, ids[0], pass(1_100_000, 2)));
        assert!(matches!(status(ids[0]), ProposalStatus::Crowned { .. }));
    });
}

/// A lease measured against an older generation sent any verdict back to the queue,
/// so a bundle caught cheating was simply measured again (and its deposit kept). A FAIL that
/// does not depend on the incumbent counts whatever the generation: it waits for a second
/// operator's, like any FAIL, and the second `Cheating` FAIL forfeits the deposit.
#[test]
fn stale_lease_does_not_requeue_a_cheating_fail() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "crown"), (BOB, ROPE, "cheat")]);
        let (crown, cheat) = (ids[0], ids[1]);
        primary_pass(crown, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V2), crown));
        assert_ok!(Cacheon::claim(signed(V3), cheat));
        let stale = lease_of(cheat).generation;
        assert_ok!(attest_as(V2, crown, pass(1_100_000, 2)));
        assert_eq!(generation(), stale + 1);
        let held = bundle_held(BOB);
        assert_ok!(attest_as(
            V3,
            cheat,
            att(
                Verdict::Fail {
                    reason: FailReason::Cheating
                },
                stale,
                3,
                103
            )
        ));
        System::assert_has_event(ev(CEvent::FailRecorded {
            proposal: cheat,
            validator: V3,
            reason: FailReason::Cheating,
            evidence_digest: [3; 32],
        }));
        assert_eq!(bundle_held(BOB), held);
        assert_ok!(Cacheon::claim(signed(V1), cheat));
        assert_ok!(attest_as(V1, cheat, fail(FailReason::Cheating, 1)));
        assert_eq!(
            status(cheat),
            ProposalStatus::Failed {
                reason: FailReason::Cheating
            }
        );
        assert_eq!(bundle_held(BOB), 0);
        System::assert_has_event(ev(CEvent::DepositSlashed {
            proposal: cheat,
            miner: BOB,
            amount: held,
        }));
    });
}

/// No upper bound let one validator's fault (or lie) put an absurd speedup into the
/// claim, and so into every epoch's weights.
#[test]
fn implausible_speedup_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        // A sealed primary PASS's speedup is checked at its reveal: above the cap, it can
        // never be opened.
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, pass(MAX_SPEEDUP_PPM + 1, 1)));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_noop!(
            attest_as(V2, p, pass(MAX_SPEEDUP_PPM + 1, 2)),
            Error::<Test>::SpeedupImplausible
        );
        assert_ok!(Cacheon::attest(signed(V2), p, pass(MAX_SPEEDUP_PPM, 2)));
        assert_noop!(
            try_reveal_kept(p).expect("a kept seal"),
            Error::<Test>::SpeedupImplausible
        );
    });
}

/// An emission share that could not be paid was skipped without a trace.
#[test]
fn unpaid_emission_share_is_reported() {
    ExtBuilder::default()
        .emission(10_000)
        .build_and_execute(|| {
            run_to_block(EPOCH_BLOCKS);
            // The pot is emptied between the close and the payout (say, by governance).
            <Balances as frame::traits::fungible::Mutate<AccountId>>::set_balance(&pot(), 1);
            run_to_block(EPOCH_BLOCKS + 1);
            System::assert_has_event(ev(CEvent::EmissionUnpaid {
                epoch: 1,
                miner: BOOTSTRAP,
                amount: 10_000,
            }));
            System::assert_last_event(ev(CEvent::EmissionsPaid { epoch: 1, total: 0 }));
            assert_eq!(free(BOOTSTRAP), 0);
            // (restore the pot for the next epoch's books)
            <Balances as frame::traits::fungible::Mutate<AccountId>>::set_balance(
                &pot(),
                POT_FUNDS,
            );
        });
}

/// Without an emissions policy the epoch never advanced, so the per-epoch reveal
/// cap became a lifetime cap. The cap now counts per `RevealPeriod`, whatever the policy.
#[test]
fn reveal_cap_resets_without_an_emissions_policy() {
    ExtBuilder::default().reveal_window().build_and_execute(|| {
        Emissions::<Test>::kill();
        MaxRevealsPerPeriod::set(1);
        commit(ALICE, SILU, &bundle("a"));
        commit(ALICE, SILU, &bundle("b"));
        advance(REVEAL_DELAY);
        assert_ok!(reveal(ALICE, SILU, &bundle("a")));
        assert_noop!(
            reveal(ALICE, SILU, &bundle("b")),
            Error::<Test>::RevealCapReached
        );
        // The cap is per miner.
        commit(BOB, SILU, &bundle("c"));
        advance(REVEAL_DELAY);
        assert_ok!(reveal(BOB, SILU, &bundle("c")));
        // Period 1 starts at RevealPeriod (EPOCH_BLOCKS here), while the epoch stays 0: the
        // count starts again.
        run_to_block(EPOCH_BLOCKS);
        assert_eq!((Cacheon::current_epoch(), Cacheon::reveal_period()), (0, 1));
        assert_ok!(reveal(ALICE, SILU, &bundle("b")));
        assert_eq!(RevealsInPeriod::<Test>::get(1, ALICE), 1);
        MaxRevealsPerPeriod::set(16);
    });
}

/// `attest` was charged as the worst crown and never refunded; `claim` as a full queue.
#[test]
fn attest_and_claim_are_refunded_to_the_branch_taken() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let info = Cacheon::claim(signed(V1), ids[0]).unwrap();
        assert_eq!(info.actual_weight, Some(<() as WeightInfo>::claim(0)));
        let info = attest_as(V1, ids[0], pass(1_100_000, 1)).unwrap();
        assert_eq!(
            info.actual_weight,
            Some(<() as WeightInfo>::attest_sealed())
        );
        assert_eq!(info.pays_fee, Pays::No);
        // V1 passes over the first proposal (its own PASS) to claim the second.
        let info = Cacheon::claim(signed(V1), ids[1]).unwrap();
        assert_eq!(info.actual_weight, Some(<() as WeightInfo>::claim(1)));
        // A first FAIL goes back to the queue for a second opinion.
        let info = attest_as(V1, ids[1], fail(FailReason::Build, 1)).unwrap();
        assert_eq!(
            info.actual_weight,
            Some(<() as WeightInfo>::attest_requeue())
        );
        let info = Cacheon::claim(signed(V2), ids[0]).unwrap();
        assert_eq!(info.actual_weight, Some(<() as WeightInfo>::claim(0)));
        // The reproduction's PASS awaits the reveal of the sealed one...
        let info = Cacheon::attest(signed(V2), ids[0], pass(1_100_000, 2)).unwrap();
        assert_eq!(info.actual_weight, Some(<() as WeightInfo>::attest_pass()));
        // ...whose reveal crowns: it walked a queue of one (the proposal whose FAIL waits)
        // and displaced nothing.
        let info = try_reveal_kept(ids[0]).expect("a kept seal").unwrap();
        assert_eq!(
            info.actual_weight,
            Some(<() as WeightInfo>::reveal_pass(1, 0))
        );
        assert_eq!(info.pays_fee, Pays::No);
        assert!(Cacheon::reveal_worst_weight().all_gte(<() as WeightInfo>::reveal_pass(1, 0)));
        // The second FAIL sticks.
        assert_ok!(Cacheon::claim(signed(V3), ids[1]));
        let info = attest_as(V3, ids[1], fail(FailReason::Build, 3)).unwrap();
        assert_eq!(info.actual_weight, Some(<() as WeightInfo>::attest_fail()));
    });
}

/// Two operators that alternate a lease and a NoDecision on the reproduction (the last ones
/// left, so their exclusions lift, and each operator's stall counts once) could keep a
/// proposal — and every later crown of an overlapping target — pending for ever if each
/// return to the wait restarted its clock. The wait keeps the deadline its PASS got, moved
/// only by each operator's first lease (the clock stands still while an operator that never
/// stalled it holds it).
#[test]
fn alternating_stalls_cannot_extend_the_reproduction_wait() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_100_000);
        let until = now() + REPRODUCTION_TIMEOUT;
        let mut rounds = 0;
        while status(p).is_pending() {
            for (v, seed) in [(V2, 2), (V3, 3)] {
                if !status(p).is_pending() {
                    break;
                }
                assert_ok!(Cacheon::claim(signed(v), p));
                advance(3);
                assert_ok!(attest_as(v, p, no_decision(NoDecisionReason::Noise, seed)));
            }
            rounds += 1;
            assert!(rounds < 20, "the wait never ended");
        }
        assert_eq!(status(p), ProposalStatus::Expired);
        let moved = until + 2 * LEASE_BLOCKS;
        assert!(now() >= moved && now() <= moved + 3);
        System::assert_has_event(ev(CEvent::ReproductionTimedOut {
            proposal: p,
            primary_validator: V1,
        }));
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 2);
    });
}
