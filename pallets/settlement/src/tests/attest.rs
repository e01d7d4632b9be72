use super::*;

#[test]
fn primary_pass_is_recorded() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        let expiry = lease_of(p).expires_at;
        assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
        let seal = seal_of(p, V1, &pass(1_050_000, 1));
        System::assert_last_event(ev(CEvent::PassSealed {
            proposal: p,
            validator: V1,
            seal,
        }));
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Sealed(SealedPass {
                    validator: V1,
                    operator: V1,
                    generation: 0,
                    seal,
                }),
                until: System::block_number() + REPRODUCTION_TIMEOUT,
            }
        );
        assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
        assert_eq!(generation(), 0);
        assert!(Claims::<Test>::get(p).is_none());
        // The lease is gone: nothing happens when its deadline comes.
        run_to_block(expiry);
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 0);
    });
}

#[test]
fn attest_errors() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            attest_as(V1, 99, pass(1_050_000, 1)),
            Error::<Test>::UnknownProposal
        );
        let p = submit(ALICE, SILU, "a");
        // Not leased.
        assert_noop!(
            attest_as(V1, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );
        assert_ok!(Cacheon::claim(signed(V1), p));
        // Leased by somebody else.
        assert_noop!(
            attest_as(V2, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );
        assert_noop!(
            attest_as(ALICE, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );
        assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
        // Replay of the same attestation on the spent lease.
        assert_noop!(
            attest_as(V1, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );
        // Reproduction lease: replays after the crown are refused as well.
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_040_000, 2)));
        assert_noop!(
            attest_as(V2, p, pass(1_040_000, 2)),
            Error::<Test>::NotLeaseHolder
        );
    });
}

#[test]
fn replayed_fail_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, fail(FailReason::Abi, 1)));
        assert_noop!(
            attest_as(V1, p, fail(FailReason::Abi, 1)),
            Error::<Test>::NotLeaseHolder
        );
        assert_noop!(
            attest_as(V1, p, pass(1_050_000, 1)),
            Error::<Test>::NotLeaseHolder
        );
    });
}

#[test]
fn pass_below_margin_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        // The primary PASS is sealed: its margin is checked at the reveal
        // (`blind_verdicts::a_revealed_pass_below_the_margin_is_refused`).
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_ok!(attest_as(V1, p, pass(PPM_ONE + MARGIN_PPM, 1)));
        assert_ok!(Cacheon::claim(signed(V2), p));
        for below in [0, 900_000, PPM_ONE, PPM_ONE + MARGIN_PPM - 1] {
            assert_noop!(attest_as(V2, p, pass(below, 2)), Error::<Test>::BelowMargin);
        }
        assert_ok!(attest_as(V2, p, pass(PPM_ONE + MARGIN_PPM, 2)));
        assert!(matches!(status(p), ProposalStatus::Crowned { speedup_ppm, .. } if speedup_ppm == PPM_ONE + MARGIN_PPM));
    });
}

#[test]
fn generation_mismatch_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        assert_ok!(Cacheon::claim(signed(V1), p));
        for g in [1, 7, u32::MAX] {
            assert_noop!(
                attest_as(
                    V1,
                    p,
                    att(
                        Verdict::Pass {
                            speedup_ppm: 1_050_000
                        },
                        g,
                        1,
                        101
                    )
                ),
                Error::<Test>::GenerationMismatch
            );
            assert_noop!(
                attest_as(
                    V1,
                    p,
                    att(
                        Verdict::Fail {
                            reason: FailReason::Build
                        },
                        g,
                        1,
                        101
                    )
                ),
                Error::<Test>::GenerationMismatch
            );
        }
        assert_ok!(attest_as(
            V1,
            p,
            att(
                Verdict::Pass {
                    speedup_ppm: 1_050_000
                },
                0,
                1,
                101
            )
        ));
    });
}

#[test]
fn reproduction_with_duplicate_digests_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        // An open primary (recorded before blind verdicts, or promoted after a missed
        // reveal): evidence [1; 32], attempt [101; 32]. (Against a sealed one the reveal is
        // refused instead: `blind_verdicts::a_reveal_repeating_the_reproductions_digests_is_refused`.)
        primary_pass(p, 1_050_000);
        Proposals::<Test>::mutate(p, |prop| {
            let prop = prop.as_mut().unwrap();
            if let ProposalStatus::ReproductionQueued { primary, .. } = &mut prop.status {
                *primary = PrimaryPass::Open(RecordedPass {
                    validator: V1,
                    operator: V1,
                    speedup_ppm: 1_050_000,
                    generation: 0,
                    evidence_digest: [1; 32],
                    attempt_digest: [101; 32],
                });
            }
        });
        assert_ok!(Cacheon::claim(signed(V2), p));
        let v = Verdict::Pass {
            speedup_ppm: 1_040_000,
        };
        assert_noop!(
            attest_as(V2, p, att(v, 0, 1, 101)),
            Error::<Test>::DuplicateEvidence
        );
        assert_noop!(
            attest_as(V2, p, att(v, 0, 7, 101)),
            Error::<Test>::DuplicateEvidence
        );
        assert_noop!(
            attest_as(V2, p, att(v, 0, 1, 107)),
            Error::<Test>::DuplicateEvidence
        );
        assert_ok!(attest_as(V2, p, att(v, 0, 7, 107)));
        assert!(matches!(status(p), ProposalStatus::Crowned { .. }));
    });
}

#[test]
fn primary_fail_is_terminal_and_releases_the_bundle() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        let p = submit(ALICE, SILU, "a");
        let pot_before = free(pot());
        assert_ok!(Cacheon::claim(signed(V1), p));
        let expiry = lease_of(p).expires_at;
        // A disputable FAIL waits for a second operator; a second FAIL makes it stick.
        assert_ok!(attest_as(V1, p, fail(FailReason::Incorrect, 1)));
        assert_eq!(status(p), ProposalStatus::Queued);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::Incorrect, 2)));
        System::assert_last_event(ev(CEvent::Failed {
            proposal: p,
            validator: V2,
            reason: FailReason::Incorrect,
            evidence_digest: [2; 32],
        }));
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::AttestationsDisagreed { .. })));
        assert_eq!(
            status(p),
            ProposalStatus::Failed {
                reason: FailReason::Incorrect
            }
        );
        // The FAIL that stuck is kept for miners to find its evidence; the disputed first
        // one stays with the proposal.
        assert_eq!(
            FailVerdicts::<Test>::get(p).map(|f| (f.validator, f.reason, f.evidence_digest)),
            Some((V2, FailReason::Incorrect, [2; 32]))
        );
        assert_eq!(
            Proposals::<Test>::get(p)
                .and_then(|p| p.disputed)
                .map(|f| f.validator),
            Some(V1)
        );
        assert!(queue().is_empty());
        assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
        assert_eq!(bundle_held(ALICE), 0);
        // The fee stays in the pot.
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert_eq!(free(pot()), pot_before);
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        // The copy guard outlives the failure.
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((ALICE, p))
        );
    });
}

#[test]
fn fail_with_copy_reason_names_the_original() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "orig"), (BOB, SILU, "renamed-copy")]);
        assert_ok!(Cacheon::claim(signed(V1), ids[0]));
        assert_ok!(Cacheon::claim(signed(V2), ids[1]));
        let reason = FailReason::CopyOf(ids[0]);
        assert_ok!(attest_as(V2, ids[1], fail(reason, 2)));
        System::assert_last_event(ev(CEvent::FailRecorded {
            proposal: ids[1],
            validator: V2,
            reason,
            evidence_digest: [2; 32],
        }));
        assert_ok!(Cacheon::claim(signed(V3), ids[1]));
        assert_ok!(attest_as(V3, ids[1], fail(reason, 3)));
        System::assert_last_event(ev(CEvent::Failed {
            proposal: ids[1],
            validator: V3,
            reason,
            evidence_digest: [3; 32],
        }));
        assert_eq!(status(ids[1]), ProposalStatus::Failed { reason });
        assert_eq!(queue(), vec![ids[0]]);
    });
}

#[test]
fn reproduction_fail_records_the_disagreement() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        until_priority_final(p);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, fail(FailReason::BehaviourChanged, 2)));
        let events = cacheon_events();
        let n = events.len();
        assert_eq!(
            events[n - 2],
            CEvent::AttestationsDisagreed {
                proposal: p,
                pass_validator: V1,
                pass_evidence: None,
                fail_validator: V2,
                fail_evidence: [2; 32],
                reason: FailReason::BehaviourChanged,
            }
        );
        // One PASS against one FAIL: a third operator decides.
        assert_eq!(
            events[n - 1],
            CEvent::FailRecorded {
                proposal: p,
                validator: V2,
                reason: FailReason::BehaviourChanged,
                evidence_digest: [2; 32],
            }
        );
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_noop!(
            Cacheon::claim(signed(V2), p),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, fail(FailReason::BehaviourChanged, 3)));
        System::assert_last_event(ev(CEvent::Failed {
            proposal: p,
            validator: V3,
            reason: FailReason::BehaviourChanged,
            evidence_digest: [3; 32],
        }));
        assert_eq!(
            status(p),
            ProposalStatus::Failed {
                reason: FailReason::BehaviourChanged
            }
        );
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(generation(), 0);
        assert!(Incumbents::<Test>::get(id(ARENA), id(SILU)).is_none());
    });
}

#[test]
fn no_decision_requeues_then_expires() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        let p = submit(ALICE, SILU, "a");
        let reasons = [
            NoDecisionReason::Noise,
            NoDecisionReason::Infrastructure,
            NoDecisionReason::Timeout,
        ];
        for (i, reason) in reasons.into_iter().enumerate() {
            let attempts = i as u32 + 1;
            let v = [V1, V2, V3][i];
            assert_ok!(Cacheon::claim(signed(v), p));
            let expiry = lease_of(p).expires_at;
            assert_ok!(attest_as(v, p, no_decision(reason, 1)));
            System::assert_last_event(ev(CEvent::NoDecisionRecorded {
                proposal: p,
                validator: v,
                reason,
                attempts,
                evidence_digest: [1; 32],
            }));
            assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, attempts);
            assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
            if attempts < MAX_ATTEMPTS {
                assert_eq!(status(p), ProposalStatus::Queued);
                assert_eq!(bundle_held(ALICE), len_of(&bytes));
            }
        }
        System::assert_has_event(ev(CEvent::Expired {
            proposal: p,
            attempts: MAX_ATTEMPTS,
        }));
        assert_eq!(status(p), ProposalStatus::Expired);
        assert!(queue().is_empty());
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
    });
}

#[test]
fn reproduction_no_decision_keeps_the_primary_pass() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "a");
        primary_pass(p, 1_050_000);
        let primary = primary_of(p);
        until_priority_final(p);
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_ok!(attest_as(V2, p, no_decision(NoDecisionReason::Noise, 2)));
        System::assert_last_event(ev(CEvent::NoDecisionRecorded {
            proposal: p,
            validator: V2,
            reason: NoDecisionReason::Noise,
            attempts: 1,
            evidence_digest: [2; 32],
        }));
        // Back to the wait, with the time the lease held it (the clock stood still).
        assert_eq!(
            status(p),
            ProposalStatus::ReproductionQueued {
                primary,
                until: now() + REPRODUCTION_TIMEOUT + LEASE_BLOCKS
            }
        );
        assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 1);
        // Still not for the primary's operator, and not again for V2's.
        assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::SameOperator);
        assert_noop!(
            Cacheon::claim(signed(V2), p),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V3), p));
        assert_ok!(attest_as(V3, p, pass(1_060_000, 3)));
        // Crown speedup: the lower of the two PASSes.
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned {
                speedup_ppm: 1_050_000,
                ..
            }
        ));
    });
}

#[test]
fn stale_pass_goes_back_to_the_queue() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p0, p1) = (ids[0], ids[1]);
        primary_pass(p0, 1_050_000);
        // V1 skips its own p0 and measures p1 against generation 0.
        assert_ok!(Cacheon::claim(signed(V1), p1));
        let lease = lease_of(p1);
        assert_eq!(lease.generation, 0);
        // p0 is crowned: generation 1.
        assert_ok!(Cacheon::claim(signed(V2), p0));
        assert_ok!(attest_as(V2, p0, pass(1_040_000, 2)));
        assert_eq!(generation(), 1);
        // The helper would name generation 1: GenerationMismatch against the lease.
        assert_noop!(
            attest_as(V1, p1, pass(1_050_000, 3)),
            Error::<Test>::GenerationMismatch
        );
        let stale = att(
            Verdict::Pass {
                speedup_ppm: 1_050_000,
            },
            0,
            3,
            103,
        );
        assert_ok!(attest_as(V1, p1, stale));
        System::assert_last_event(ev(CEvent::AttestationStale {
            proposal: p1,
            validator: V1,
            generation: 0,
            current: 1,
        }));
        assert_eq!(status(p1), ProposalStatus::Queued);
        assert_eq!(Proposals::<Test>::get(p1).unwrap().attempts, 0);
        assert!(!LeaseDeadlines::<Test>::contains_key(lease.expires_at));
        // Measured again against generation 1, by another operator (V1 sits out).
        assert_noop!(
            Cacheon::claim(signed(V1), p1),
            Error::<Test>::OperatorExcluded
        );
        assert_ok!(Cacheon::claim(signed(V3), p1));
        assert_eq!(lease_of(p1).generation, 1);
        assert_ok!(attest_as(V3, p1, pass(1_050_000, 3)));
        assert_eq!(primary_of(p1).generation(), 1);
    });
}

#[test]
fn recorded_pass_is_dropped_when_another_proposal_is_crowned() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
        let (p0, p1) = (ids[0], ids[1]);
        primary_pass(p0, 1_050_000);
        assert_ok!(Cacheon::claim(signed(V1), p1));
        assert_ok!(attest_as(V1, p1, pass(1_030_000, 3)));
        assert!(matches!(
            status(p1),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::claim(signed(V2), p0));
        assert_ok!(attest_as(V2, p0, pass(1_040_000, 2)));
        System::assert_has_event(ev(CEvent::PassDropped {
            proposal: p1,
            generation: 1,
        }));
        assert_eq!(status(p1), ProposalStatus::Queued);
        assert_eq!(queue(), vec![p1]);
        // Back from the primary: V1 may measure it again.
        assert_ok!(Cacheon::claim(signed(V1), p1));
        assert_eq!(lease_of(p1).generation, 1);
    });
}

#[test]
fn single_validator_arena_crowns_on_the_first_pass() {
    ExtBuilder::default()
        .single_validator()
        .build_and_execute(|| {
            let bytes = bundle("a");
            let p = submit(ALICE, SILU, "a");
            until_priority_final(p);
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
            System::assert_last_event(ev(CEvent::Crowned {
                proposal: p,
                miner: ALICE,
                arena: id(ARENA),
                target: id(SILU),
                speedup_ppm: 1_050_000,
                generation: 1,
                evidence: BoundedVec::truncate_from(vec![[1; 32]]),
            }));
            assert!(!cacheon_events()
                .iter()
                .any(|e| matches!(e, CEvent::PassRecorded { .. })));
            assert!(matches!(
                status(p),
                ProposalStatus::Crowned {
                    speedup_ppm: 1_050_000,
                    ref passes,
                    ..
                } if passes.len() == 1 && passes[0].validator == V1
            ));
            assert_eq!(
                Incumbents::<Test>::get(id(ARENA), id(SILU)),
                Some(IncumbentEntry {
                    proposal: p,
                    content_hash: hash_of(&bytes)
                })
            );
            assert_eq!(generation(), 1);
        });
}

/// A Cheating or CopyOf FAIL costs the miner its bundle deposit (to the
/// reward pot) once a second operator agrees; any other FAIL returns it.
#[test]
fn cheating_and_copying_forfeit_the_bundle_deposit_to_the_pot() {
    ExtBuilder::default().build_and_execute(|| {
        let ids = submit_many(&[
            (ALICE, SILU, "tampers"),
            (BOB, ROPE, "renamed-copy"),
            (CAROL, DECODE, "slow"),
        ]);
        let pot_before = free(pot());
        let deposits: Vec<Balance> = ["tampers", "renamed-copy", "slow"]
            .iter()
            .map(|t| len_of(&bundle(t)))
            .collect();
        assert_eq!(bundle_held(ALICE), deposits[0]);
        assert_ok!(Cacheon::claim(signed(V1), ids[0]));
        assert_ok!(attest_as(V1, ids[0], fail(FailReason::Cheating, 1)));
        assert_eq!(bundle_held(ALICE), deposits[0]);
        assert_ok!(Cacheon::claim(signed(V2), ids[0]));
        assert_ok!(attest_as(V2, ids[0], fail(FailReason::Cheating, 6)));
        System::assert_has_event(ev(CEvent::DepositSlashed {
            proposal: ids[0],
            miner: ALICE,
            amount: deposits[0],
        }));
        // CopyOf and NotFaster stick with a second operator's FAIL too.
        let copy = FailReason::CopyOf(ids[0]);
        assert_ok!(Cacheon::claim(signed(V2), ids[1]));
        assert_ok!(attest_as(V2, ids[1], fail(copy, 2)));
        assert_eq!(bundle_held(BOB), deposits[1]);
        assert_ok!(Cacheon::claim(signed(V1), ids[1]));
        assert_ok!(attest_as(V1, ids[1], fail(copy, 4)));
        assert_ok!(Cacheon::claim(signed(V3), ids[2]));
        assert_ok!(attest_as(V3, ids[2], fail(FailReason::NotFaster, 3)));
        assert_ok!(Cacheon::claim(signed(V1), ids[2]));
        assert_ok!(attest_as(V1, ids[2], fail(FailReason::NotFaster, 5)));
        // Nothing stays held; the tamperer and the copier paid, the slow one did not.
        for who in [ALICE, BOB, CAROL] {
            assert_eq!(bundle_held(who), 0);
        }
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE - deposits[0]);
        assert_eq!(free(BOB), INITIAL_BALANCE - REVEAL_FEE - deposits[1]);
        assert_eq!(free(CAROL), INITIAL_BALANCE - REVEAL_FEE);
        assert_eq!(free(pot()), pot_before + deposits[0] + deposits[1]);
        assert!(!cacheon_events()
            .iter()
            .any(|e| matches!(e, CEvent::DepositSlashed { proposal, .. } if *proposal == ids[2])));
    });
}
