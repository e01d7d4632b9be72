//! Blind verdicts: where two operators must agree, the operator taking the
//! reproduction cannot read the primary's speedup or evidence before it attests. The primary
//! PASS is attested as a seal (`attest_sealed`) and opened after the reproduction's PASS
//! (`reveal_pass`); a seal never opened is a stall of its operator, and the reproduction's
//! PASS becomes the primary. Each test is named after the attack or the rule it checks.

use super::*;

/// The reveal of `validator`'s sealed `a` of `p` with [`SEAL_SALT`].
fn reveal(validator: AccountId, p: ProposalId, a: &Attestation) -> DispatchResultWithPostInfo {
    let Verdict::Pass { speedup_ppm } = a.verdict else {
        panic!("only a PASS is revealed");
    };
    Cacheon::reveal_pass(
        signed(validator),
        p,
        speedup_ppm,
        a.evidence_digest,
        a.attempt_digest,
        SEAL_SALT,
    )
}

/// V1 seals `primary` on `p`, V2 PASSes `reproduction`: `p` awaits V1's reveal until the
/// block returned.
fn sealed_then_reproduced(p: ProposalId, primary: &Attestation, reproduction: Attestation) -> u64 {
    assert_ok!(Cacheon::claim(signed(V1), p));
    assert_ok!(Cacheon::attest_sealed(
        signed(V1),
        p,
        primary.incumbent_generation,
        seal_of(p, V1, primary)
    ));
    assert_ok!(Cacheon::claim(signed(V2), p));
    assert_ok!(Cacheon::attest(signed(V2), p, reproduction));
    match status(p) {
        ProposalStatus::AwaitingReveal { until, .. } => until,
        s => panic!("proposal {p} awaits no reveal: {s:?}"),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Before: the primary PASS was stored and evented with its speedup and evidence digest, so
/// the operator taking the reproduction could copy them instead of measuring, or anchor on
/// them. Now only the seal is on chain until the reproduction has attested; the crown then
/// has both PASSes and the lower speedup.
#[test]
fn a_reproduction_cannot_read_the_primarys_speedup_or_evidence() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let primary = pass(1_080_000, 1);
        assert_ok!(Cacheon::claim(signed(V1), p));
        let seal = seal_of(p, V1, &primary);
        let info = Cacheon::attest_sealed(signed(V1), p, 0, seal).unwrap();
        assert_eq!(info.pays_fee, Pays::No);
        let sealed = SealedPass {
            validator: V1,
            operator: V1,
            generation: 0,
            seal,
        };
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Sealed(sealed.clone()),
                until: now() + REPRODUCTION_TIMEOUT,
            }
        );
        System::assert_last_event(ev(CEvent::PassSealed {
            proposal: p,
            validator: V1,
            seal,
        }));
        // Nothing the reproduction can read holds the speedup or a digest of the PASS.
        let stored = Proposals::<Test>::get(p).unwrap().encode();
        let evented = cacheon_events().encode();
        for bytes in [&stored, &evented] {
            assert!(!contains(bytes, &primary.evidence_digest));
            assert!(!contains(bytes, &primary.attempt_digest));
        }
        assert!(!cacheon_events().iter().any(|e| matches!(
            e,
            CEvent::PassRecorded { validator: V1, .. } | CEvent::PassRevealed { .. }
        )));

        // The reproduction measures on its own; its PASS is public.
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::attest(signed(V2), p, pass(1_050_000, 2)));
        System::assert_last_event(ev(CEvent::PassRecorded {
            proposal: p,
            validator: V2,
            speedup_ppm: 1_050_000,
            evidence_digest: [2; 32],
        }));
        let reproduction = RecordedPass {
            validator: V2,
            operator: V2,
            speedup_ppm: 1_050_000,
            generation: 0,
            evidence_digest: [2; 32],
            attempt_digest: [102; 32],
        };
        let until = now() + REVEAL_TIMEOUT;
        assert_eq!(
            status(p),
            ProposalStatus::AwaitingReveal {
                primary: sealed,
                reproduction: reproduction.clone(),
                until,
            }
        );
        assert_eq!(LeaseDeadlines::<Test>::get(until).into_inner(), vec![p]);
        assert_noop!(
            Cacheon::withdraw(signed(ALICE), p),
            Error::<Test>::NotWithdrawable
        );

        // The reveal crowns: both PASSes, the lower speedup.
        let info = reveal(V1, p, &primary).unwrap();
        assert_eq!(info.pays_fee, Pays::No);
        assert!(!LeaseDeadlines::<Test>::contains_key(until));
        System::assert_has_event(ev(CEvent::PassRevealed {
            proposal: p,
            validator: V1,
            speedup_ppm: 1_080_000,
            evidence_digest: [1; 32],
        }));
        let revealed = RecordedPass {
            validator: V1,
            operator: V1,
            speedup_ppm: 1_080_000,
            generation: 0,
            evidence_digest: [1; 32],
            attempt_digest: [101; 32],
        };
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned { speedup_ppm: 1_050_000, ref passes, .. }
                if passes.to_vec() == vec![revealed.clone(), reproduction.clone()]
        ));
        assert_eq!(
            Claims::<Test>::get(p).unwrap().evidence.into_inner(),
            vec![[1; 32], [2; 32]]
        );
        assert_eq!(generation(), 1);
    });
}

/// A plain PASS in the primary phase would publish what the reproduction must not read:
/// refused. FAILs and NoDecisions stay plain (the phase they lead to shows their class
/// anyway); a seal where nobody comes after it is refused too.
#[test]
fn a_plain_primary_pass_is_refused_where_two_operators_must_agree() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_noop!(
            Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
            Error::<Test>::PassMustBeSealed
        );
        assert_ok!(Cacheon::attest(
            signed(V1),
            p,
            fail(FailReason::NotFaster, 1)
        ));
        assert!(matches!(status(p), ProposalStatus::Queued));
        // A sealed PASS after a disputed FAIL: the disagreement is evented without its
        // evidence.
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_050_000, 2)));
        System::assert_has_event(ev(CEvent::AttestationsDisagreed {
            proposal: p,
            pass_validator: V2,
            pass_evidence: None,
            fail_validator: V1,
            fail_evidence: [1; 32],
            reason: FailReason::NotFaster,
        }));
        // The reproduction's PASS is the last word: no seal.
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_noop!(
            Cacheon::attest_sealed(signed(V3), p, 0, [9; 32]),
            Error::<Test>::SealNotExpected
        );
        assert_noop!(
            Cacheon::attest_sealed(signed(V1), p, 0, [9; 32]),
            Error::<Test>::NotLeaseHolder
        );
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

/// A sealer that could open its seal to other values would choose its speedup after seeing
/// the reproduction's: only the sealed values, by the sealer, open it.
#[test]
fn a_reveal_that_does_not_open_the_seal_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let primary = pass(1_080_000, 1);
        assert_noop!(reveal(V1, 99, &primary), Error::<Test>::UnknownProposal);
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, primary));
        assert_noop!(reveal(V1, p, &primary), Error::<Test>::NotAwaitingReveal);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::attest(signed(V2), p, pass(1_050_000, 2)));

        assert_noop!(reveal(V3, p, &primary), Error::<Test>::NotSealer);
        let Verdict::Pass { speedup_ppm } = primary.verdict else {
            unreachable!()
        };
        for (speedup, evidence, attempt, salt) in [
            (speedup_ppm + 1, [1; 32], [101; 32], SEAL_SALT),
            (speedup_ppm, [3; 32], [101; 32], SEAL_SALT),
            (speedup_ppm, [1; 32], [103; 32], SEAL_SALT),
            (speedup_ppm, [1; 32], [101; 32], [0; 32]),
        ] {
            assert_noop!(
                Cacheon::reveal_pass(signed(V1), p, speedup, evidence, attempt, salt),
                Error::<Test>::SealMismatch
            );
        }
        // The sealer's key removed: it reveals nothing any more.
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V1));
        assert_noop!(reveal(V1, p, &primary), Error::<Test>::NotValidator);
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), V1, V1));
        assert_ok!(reveal(V1, p, &primary));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// A primary that seals and never reveals would hold the proposal, or let its operator
/// veto a crown at no cost. At the deadline the sealed PASS is void: its operator stalled the
/// proposal (excluded, one attempt), and the reproduction's PASS, public already, becomes the
/// primary with a fresh wait. Blindness is lost for this proposal, which is acceptable: the
/// non-revealer pays a stall, and the promoted PASS was measured blind by an operator other
/// than the next one.
#[test]
fn a_primary_that_never_reveals_stalls_and_the_reproduction_becomes_the_primary() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let primary = pass(1_080_000, 1);
        let until = sealed_then_reproduced(p, &primary, pass(1_050_000, 2));
        run_to_block(until - 1);
        assert!(matches!(status(p), ProposalStatus::AwaitingReveal { .. }));
        run_to_block(until);
        System::assert_has_event(ev(CEvent::RevealMissed {
            proposal: p,
            validator: V1,
        }));
        let promoted = RecordedPass {
            validator: V2,
            operator: V2,
            speedup_ppm: 1_050_000,
            generation: 0,
            evidence_digest: [2; 32],
            attempt_digest: [102; 32],
        };
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(promoted.clone()),
                until: until + REPRODUCTION_TIMEOUT,
            }
        );
        let prop = Proposals::<Test>::get(p).unwrap();
        assert_eq!(prop.attempts, 1);
        assert_eq!(prop.stalled.into_inner(), vec![V1]);
        assert_eq!(prop.excluded.into_inner(), vec![V1]);
        assert_noop!(reveal(V1, p, &primary), Error::<Test>::NotAwaitingReveal);
        assert_noop!(
            Cacheon::claim(signed(V1), p),
            Error::<Test>::OperatorExcluded
        );
        assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::SameOperator);
        // A third operator reproduces the promoted PASS in the open and crowns.
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(Cacheon::attest(signed(V3), p, pass(1_060_000, 3)));
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned { speedup_ppm: 1_050_000, ref passes, .. }
                if passes[0] == promoted && passes[1].validator == V3
        ));
    });
}

/// A missed reveal is a stall like any other: at `max_attempts` the proposal expires.
#[test]
fn a_missed_reveal_at_max_attempts_expires_the_proposal() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let until = sealed_then_reproduced(p, &pass(1_080_000, 1), pass(1_050_000, 2));
        Proposals::<Test>::mutate(p, |prop| {
            let prop = prop.as_mut().unwrap();
            prop.attempts = MAX_ATTEMPTS - 1;
        });
        run_to_block(until);
        assert_eq!(status(p), ProposalStatus::Expired);
        System::assert_has_event(ev(CEvent::Expired {
            proposal: p,
            attempts: MAX_ATTEMPTS,
        }));
        assert!(queue().is_empty());
    });
}

/// A sealed speedup below the margin (or above the arena's cap) cannot be checked when it is
/// sealed: it is at the reveal, which is refused, so the seal stays shut and the deadline
/// voids it.
#[test]
fn a_revealed_pass_below_the_margin_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let below = pass(PPM_ONE + MARGIN_PPM - 1, 1);
        let until = sealed_then_reproduced(p, &below, pass(1_050_000, 2));
        assert_noop!(reveal(V1, p, &below), Error::<Test>::BelowMargin);
        run_to_block(until);
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(RecordedPass { validator: V2, .. }),
                ..
            }
        ));
    });
}

/// A sealed PASS that copies the reproduction's digests (they could only have leaked) does
/// not open: the evidence of two attempts must differ.
#[test]
fn a_reveal_repeating_the_reproductions_digests_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let primary = pass(1_080_000, 1);
        let v = Verdict::Pass {
            speedup_ppm: 1_050_000,
        };
        sealed_then_reproduced(p, &primary, att(v, 0, 1, 107));
        assert_noop!(reveal(V1, p, &primary), Error::<Test>::DuplicateEvidence);
    });
}

/// Both PASSes must measure the incumbent that stands when they crown: a crown between the
/// seal and its reveal drops both (`PassDropped`), back to the queue.
#[test]
fn a_reveal_after_the_generation_moved_drops_both_passes() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p0, p1) = (ids[0], ids[1]);
        for p in [p0, p1] {
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_ok!(attest_as(V1, p, pass(1_080_000, 1)));
        }
        for p in [p0, p1] {
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(signed(V2), p, pass(1_050_000, 2)));
        }
        let ProposalStatus::AwaitingReveal { until, .. } = status(p1) else {
            panic!("p1 awaits its reveal");
        };
        reveal_kept(p0);
        assert_eq!(generation(), 1);
        assert_ok!(reveal(V1, p1, &pass(1_080_000, 1)));
        assert_eq!(status(p1), ProposalStatus::Queued);
        System::assert_last_event(ev(CEvent::PassDropped {
            proposal: p1,
            generation: 1,
        }));
        assert!(!LeaseDeadlines::<Test>::get(until).contains(&p1));
        let prop = Proposals::<Test>::get(p1).unwrap();
        assert_eq!(prop.attempts, 0);
        // The sealer sits it out: waiting for another crown to drop an agreed pair, then
        // leasing the primary again, would be a veto without a stall.
        assert_eq!(prop.excluded.into_inner(), vec![V1]);
        assert_noop!(
            Cacheon::claim(signed(V1), p1),
            Error::<Test>::OperatorExcluded
        );
    });
}

/// The same when the reveal never comes: the sealer stalls, and the promoted PASS, measured
/// against the old incumbent, is dropped.
#[test]
fn a_missed_reveal_after_the_generation_moved_requeues() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p0, p1) = (ids[0], ids[1]);
        for p in [p0, p1] {
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_ok!(attest_as(V1, p, pass(1_080_000, 1)));
        }
        for p in [p0, p1] {
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(signed(V2), p, pass(1_050_000, 2)));
        }
        let ProposalStatus::AwaitingReveal { until, .. } = status(p1) else {
            panic!("p1 awaits its reveal");
        };
        reveal_kept(p0);
        run_to_block(until);
        assert_eq!(status(p1), ProposalStatus::Queued);
        System::assert_has_event(ev(CEvent::RevealMissed {
            proposal: p1,
            validator: V1,
        }));
        System::assert_has_event(ev(CEvent::PassDropped {
            proposal: p1,
            generation: 1,
        }));
        assert_eq!(Proposals::<Test>::get(p1).unwrap().attempts, 1);
    });
}

/// A reproduction FAIL against a sealed PASS: as against an open one (the FAIL waits for a
/// second opinion, the proposal goes back to the same wait with the same sealed PASS), and
/// the disagreement is evented without the sealed evidence.
#[test]
fn a_reproduction_fail_keeps_the_primary_sealed() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_080_000);
        let before = primary_of(p);
        let ProposalStatus::ReproductionQueued { until, .. } = status(p) else {
            panic!("waiting");
        };
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(Cacheon::attest(
            signed(V2),
            p,
            fail(FailReason::NotFaster, 2)
        ));
        System::assert_has_event(ev(CEvent::AttestationsDisagreed {
            proposal: p,
            pass_validator: V1,
            pass_evidence: None,
            fail_validator: V2,
            fail_evidence: [2; 32],
            reason: FailReason::NotFaster,
        }));
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: before,
                until: until + LEASE_BLOCKS,
            }
        );
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_050_000, 3)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

/// The reproduction's key removed before the reveal: its PASS stops counting (as a removed
/// primary's does), and the revealed PASS, public now, waits for another reproduction.
#[test]
fn a_removed_reproductions_pass_stops_counting_at_the_reveal() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let primary = pass(1_080_000, 1);
        sealed_then_reproduced(p, &primary, pass(1_050_000, 2));
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V2));
        assert_ok!(reveal(V1, p, &primary));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(RecordedPass {
                    validator: V1,
                    speedup_ppm: 1_080_000,
                    ..
                }),
                ..
            }
        ));
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(Cacheon::attest(signed(V3), p, pass(1_070_000, 3)));
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned {
                speedup_ppm: 1_070_000,
                ..
            }
        ));
    });
}

/// A proposal awaiting its reveal still ends with its lifetime: its reveal deadline leaves
/// the schedule with it.
#[test]
fn a_proposal_awaiting_its_reveal_ends_with_its_lifetime() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        let until = sealed_then_reproduced(p, &pass(1_080_000, 1), pass(1_050_000, 2));
        // As if revealed at block 0 and the chain came to the lifetime's end without running
        // the reveal's deadline (its entry stays in the schedule until the proposal ends).
        Proposals::<Test>::mutate(p, |prop| prop.as_mut().unwrap().reveal_block = 0);
        assert!(until < PENDING_LIFETIME);
        System::set_block_number(PENDING_LIFETIME - 1);
        advance(1);
        assert_eq!(status(p), ProposalStatus::Expired);
        System::assert_has_event(ev(CEvent::LifetimeEnded { proposal: p }));
        assert!(!LeaseDeadlines::<Test>::contains_key(until));
        assert_noop!(
            reveal(V1, p, &pass(1_080_000, 1)),
            Error::<Test>::NotAwaitingReveal
        );
    });
}

/// A development arena (one validator) crowns on the primary PASS: there is nobody to hide it
/// from, so no seal.
#[test]
fn a_one_validator_arena_needs_no_seal() {
    ExtBuilder::default()
        .single_validator()
        .build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_noop!(
                Cacheon::attest_sealed(signed(V1), p, 0, [9; 32]),
                Error::<Test>::SealNotExpected
            );
            assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
            assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
        });
}

/// The lifetime covers the reveal: `pending_life_needed` adds the reveal wait and the second
/// reproduction wait a missed reveal brings.
#[test]
fn the_lifetime_covers_a_missed_reveal() {
    ExtBuilder::default().build_and_execute(|| {
        let policy = arena_config(2).policy;
        let leases = (policy.max_attempts as u64 + 2) * (policy.lease_blocks + 64);
        assert_eq!(
            Cacheon::pending_life_needed(&policy),
            leases + 2 * REPRODUCTION_TIMEOUT + REVEAL_TIMEOUT + 64 + RevealWindow::get()
        );
    });
}
