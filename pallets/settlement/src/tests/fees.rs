//! Evaluation fees: a reveal holds the arena's quote (one verdict's worth per operator the
//! arena needs); the verdicts the outcome confirms are paid from it, to their operators, and
//! what is left goes back to the miner when the proposal ends. A validator's stall, a
//! NoDecision, a stale verdict or one the outcome overrules costs the miner nothing; the
//! reward pot never sees the fee.

use super::*;

const PER_VERDICT: Balance = 40;

fn with_fee() -> ExtBuilder {
    ExtBuilder::default().evaluation_fee(PER_VERDICT)
}

fn fee_held(who: AccountId) -> Balance {
    held(HoldReason::EvaluationFee, who)
}

fn paid(proposal: ProposalId, operator: AccountId) -> bool {
    cacheon_events().contains(&CEvent::VerdictPaid {
        proposal,
        operator,
        amount: PER_VERDICT,
    })
}

#[test]
fn a_reveal_holds_one_verdicts_worth_per_operator_the_arena_needs() {
    with_fee().build_and_execute(|| {
        let bytes = bundle("fast");
        let p = submit(ALICE, SILU, "fast");
        assert_eq!(fee_held(ALICE), 2 * PER_VERDICT);
        assert_eq!(
            FeeEscrows::<Test>::get(p),
            Some(FeeEscrow {
                per_verdict: PER_VERDICT,
                left: 2 * PER_VERDICT
            })
        );
        System::assert_has_event(ev(CEvent::EvaluationFeeHeld {
            proposal: p,
            miner: ALICE,
            amount: 2 * PER_VERDICT,
        }));
        // The reveal fee is spent; the deposits and the evaluation fee are only held.
        assert_eq!(
            free(ALICE),
            INITIAL_BALANCE - REVEAL_FEE - len_of(&bytes) - 2 * PER_VERDICT
        );
    });
    ExtBuilder::default()
        .single_validator()
        .evaluation_fee(PER_VERDICT)
        .build_and_execute(|| {
            submit(ALICE, SILU, "fast");
            assert_eq!(fee_held(ALICE), PER_VERDICT);
        });
}

#[test]
fn an_arena_without_a_quote_holds_nothing() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        assert_eq!(fee_held(ALICE), 0);
        assert!(!FeeEscrows::<Test>::contains_key(p));
        crown_with(p, 1_050_000);
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::VerdictPaid { .. })));
    });
}

#[test]
fn the_passes_that_crown_are_paid_and_the_pot_gets_none_of_the_fee() {
    with_fee().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        let (v1, v2, v3, pot_before) = (free(V1), free(V2), free(V3), free(pot()));
        crown_with(p, 1_050_000);
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_eq!(free(V1) - v1, PER_VERDICT);
        assert_eq!(free(V2) - v2, PER_VERDICT);
        assert_eq!(free(V3), v3);
        assert!(paid(p, V1) && paid(p, V2));
        assert_eq!(fee_held(ALICE), 0);
        assert!(!FeeEscrows::<Test>::contains_key(p));
        assert_eq!(free(pot()), pot_before);
    });
}

#[test]
fn two_fails_that_agree_are_both_paid() {
    with_fee().build_and_execute(|| {
        let p = submit(ALICE, SILU, "slow");
        let (v1, v2, alice) = (free(V1), free(V2), free(ALICE));
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, fail(FailReason::NotFaster, 1)));
        // One operator's FAIL waits for a second opinion, unpaid so far.
        assert_eq!(free(V1), v1);
        assert_eq!(fee_held(ALICE), 2 * PER_VERDICT);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::NotFaster, 2)));
        assert!(matches!(status(p), ProposalStatus::Failed { .. }));
        assert_eq!(free(V1) - v1, PER_VERDICT);
        assert_eq!(free(V2) - v2, PER_VERDICT);
        assert_eq!(fee_held(ALICE), 0);
        // Both shares paid: nothing of the fee comes back (the bundle deposit does).
        assert_eq!(free(ALICE), alice + len_of(&bundle("slow")));
    });
}

#[test]
fn a_fail_the_passes_overrule_is_not_paid() {
    with_fee().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        let (v1, v2, v3, alice) = (free(V1), free(V2), free(V3), free(ALICE));
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, fail(FailReason::Incorrect, 1)));
        primary_pass_by(V2, p, 1_050_000);
        until_priority_final(p);
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_040_000, 3)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        assert_eq!(free(V1), v1, "the overruled FAIL earns nothing");
        assert_eq!(free(V2) - v2, PER_VERDICT);
        assert_eq!(free(V3) - v3, PER_VERDICT);
        assert_eq!(fee_held(ALICE), 0);
        assert_eq!(
            free(ALICE),
            alice,
            "both shares paid, the bundle still in use"
        );
    });
}

#[test]
fn stalls_cost_the_miner_nothing_and_the_fee_comes_back_on_expiry() {
    with_fee().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let alice = free(ALICE);
        for v in [V1, V2, V3] {
            assert_ok!(Cacheon::claim(signed(v), p));
            run_to_block(lease_of(p).expires_at);
        }
        assert_eq!(status(p), ProposalStatus::Expired);
        System::assert_has_event(ev(CEvent::EvaluationFeeReturned {
            proposal: p,
            miner: ALICE,
            amount: 2 * PER_VERDICT,
        }));
        assert_eq!(fee_held(ALICE), 0);
        assert_eq!(
            free(ALICE),
            alice + 2 * PER_VERDICT + len_of(&bundle("a")),
            "the whole fee and the bundle deposit back"
        );
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::VerdictPaid { .. })));
    });
}

/// A NoDecision sends the proposal back to its queue; the crown that follows pays the two
/// PASSes once each, and the operator of the NoDecision nothing: a requeue never pays twice.
#[test]
fn a_requeue_pays_nobody_and_the_crown_pays_each_pass_once() {
    with_fee().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        let (v1, v2, v3) = (free(V1), free(V2), free(V3));
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, no_decision(NoDecisionReason::Noise, 3)));
        assert_eq!(status(p), ProposalStatus::Queued);
        assert_eq!(fee_held(ALICE), 2 * PER_VERDICT);
        crown_with(p, 1_050_000);
        assert_eq!(free(V3), v3);
        assert_eq!(free(V1) - v1, PER_VERDICT);
        assert_eq!(free(V2) - v2, PER_VERDICT);
        let payments = cacheon_events()
            .iter()
            .filter(|e| matches!(e, CEvent::VerdictPaid { .. }))
            .count();
        assert_eq!(payments, 2);
    });
}

#[test]
fn a_withdrawal_returns_the_fee_but_pays_a_standing_primary_pass() {
    with_fee().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "queued"), (BOB, ROPE, "passed")]);
        let (queued, passed) = (ids[0], ids[1]);
        let (alice, bob, v1) = (free(ALICE), free(BOB), free(V1));
        assert_ok!(Cacheon::withdraw(signed(ALICE), queued));
        assert_eq!(fee_held(ALICE), 0);
        assert_eq!(
            free(ALICE),
            alice + 2 * PER_VERDICT + len_of(&bundle("queued"))
        );
        primary_pass(passed, 1_050_000);
        assert!(matches!(
            status(passed),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::withdraw(signed(BOB), passed));
        assert_eq!(free(V1) - v1, PER_VERDICT, "the primary PASS measured");
        assert_eq!(fee_held(BOB), 0);
        assert_eq!(free(BOB), bob + PER_VERDICT + len_of(&bundle("passed")));
    });
}

#[test]
fn a_reveal_into_a_full_queue_holds_no_evaluation_fee() {
    with_fee().build_and_execute(|| {
        let tags = ["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"];
        let miner = |i: usize| [ALICE, BOB, CAROL][i / 4];
        let items: Vec<(AccountId, &[u8], &str)> = tags
            .iter()
            .enumerate()
            .map(|(i, tag)| (miner(i), SILU, *tag))
            .collect();
        let ids = submit_many(&items);
        assert_eq!(queue().len() as u32, MAX_QUEUE);
        assert_eq!(status(ids[8]), ProposalStatus::NotQueued);
        assert!(!FeeEscrows::<Test>::contains_key(ids[8]));
        assert_eq!(fee_held(ALICE), 4 * 2 * PER_VERDICT);
        assert_eq!(fee_held(BOB), 4 * 2 * PER_VERDICT);
        assert_eq!(fee_held(CAROL), 0);
    });
}

#[test]
fn only_the_admin_quotes_an_evaluation_fee_for_a_known_arena() {
    ExtBuilder::default().build_and_execute(|| {
        let fee = EvaluationFee {
            attempt_ms: 31_500,
            price_per_second: 2,
        };
        assert_noop!(
            Cacheon::set_evaluation_fee(signed(ALICE), id(ARENA), fee.clone()),
            DispatchError::BadOrigin
        );
        assert_noop!(
            Cacheon::set_evaluation_fee(root(), id(b"no-such-arena"), fee.clone()),
            Error::<Test>::UnknownArena
        );
        assert_ok!(Cacheon::set_evaluation_fee(root(), id(ARENA), fee.clone()));
        System::assert_has_event(ev(CEvent::EvaluationFeeSet {
            arena: id(ARENA),
            fee,
            per_verdict: 63,
        }));
        submit(ALICE, SILU, "fast");
        assert_eq!(fee_held(ALICE), 2 * 63);
    });
}
