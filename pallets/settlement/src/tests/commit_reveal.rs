use super::*;

#[test]
fn commit_holds_deposit() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        let c = commitment_for(ALICE, SILU, &bytes);
        assert_ok!(Cacheon::commit(signed(ALICE), c));
        System::assert_last_event(ev(CEvent::Committed {
            miner: ALICE,
            commitment: c,
        }));
        assert_eq!(
            Commits::<Test>::get(ALICE, c),
            Some(CommitRecord {
                at: 1,
                deposit: COMMIT_DEPOSIT
            })
        );
        assert_eq!(PendingCommits::<Test>::get(ALICE), 1);
        assert_eq!(commit_held(ALICE), COMMIT_DEPOSIT);
        assert_eq!(free(ALICE), INITIAL_BALANCE - COMMIT_DEPOSIT);
    });
}

#[test]
fn commit_errors() {
    ExtBuilder::default().build_and_execute(|| {
        let c = commit(ALICE, SILU, &bundle("a"));
        assert_noop!(
            Cacheon::commit(signed(ALICE), c),
            Error::<Test>::AlreadyCommitted
        );
        // Another miner may publish the same 32 bytes: commitments are per miner.
        assert_ok!(Cacheon::commit(signed(BOB), c));
        // MaxPendingCommits = 4.
        for tag in ["b", "c", "d"] {
            commit(ALICE, SILU, &bundle(tag));
        }
        assert_eq!(PendingCommits::<Test>::get(ALICE), 4);
        let fifth = commitment_for(ALICE, SILU, &bundle("e"));
        assert_noop!(
            Cacheon::commit(signed(ALICE), fifth),
            Error::<Test>::TooManyCommits
        );
        assert_eq!(commit_held(ALICE), 4 * COMMIT_DEPOSIT);
        // Cancelling one makes room.
        assert_ok!(Cacheon::cancel_commit(signed(ALICE), c));
        assert_ok!(Cacheon::commit(signed(ALICE), fifth));
    });
}

#[test]
fn cancel_commit_releases_deposit() {
    ExtBuilder::default().build_and_execute(|| {
        let c = commit(ALICE, SILU, &bundle("a"));
        assert_noop!(
            Cacheon::cancel_commit(signed(BOB), c),
            Error::<Test>::UnknownCommitment
        );
        assert_ok!(Cacheon::cancel_commit(signed(ALICE), c));
        System::assert_last_event(ev(CEvent::CommitCancelled {
            miner: ALICE,
            commitment: c,
        }));
        assert_eq!(commit_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE);
        assert!(!Commits::<Test>::contains_key(ALICE, c));
        assert!(!PendingCommits::<Test>::contains_key(ALICE));
        assert_noop!(
            Cacheon::cancel_commit(signed(ALICE), c),
            Error::<Test>::UnknownCommitment
        );
        // A cancelled commitment cannot be revealed.
        advance(REVEAL_DELAY);
        assert_noop!(
            reveal(ALICE, SILU, &bundle("a")),
            Error::<Test>::UnknownCommitment
        );
    });
}

#[test]
fn reveal_queues_proposal_charges_fee_and_holds_bytes() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("fast");
        let l = len_of(&bytes);
        let c = commit(ALICE, SILU, &bytes);
        advance(REVEAL_DELAY);
        let pot_before = free(pot());
        assert_ok!(reveal(ALICE, SILU, &bytes));
        System::assert_last_event(ev(CEvent::Revealed {
            proposal: 0,
            miner: ALICE,
            arena: id(ARENA),
            target: id(SILU),
            content_hash: hash_of(&bytes),
            bytes: bytes.len() as u32,
        }));
        // Money: the commit deposit is back, the fee is in the pot, the bytes are held.
        assert_eq!(commit_held(ALICE), 0);
        assert_eq!(bundle_held(ALICE), l * BYTE_DEPOSIT);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE - l * BYTE_DEPOSIT);
        assert_eq!(free(pot()), pot_before + REVEAL_FEE);
        // State.
        assert!(!Commits::<Test>::contains_key(ALICE, c));
        assert_eq!(PendingCommits::<Test>::get(ALICE), 0);
        assert_eq!(NextProposalId::<Test>::get(), 1);
        assert_eq!(queue(), vec![0]);
        assert_eq!(
            Proposals::<Test>::get(0).unwrap(),
            Proposal {
                miner: ALICE,
                arena: id(ARENA),
                target: id(SILU),
                content_hash: hash_of(&bytes),
                commit_block: 1,
                reveal_block: 1 + REVEAL_DELAY,
                attempts: 0,
                bundle_deposit: l * BYTE_DEPOSIT,
                status: ProposalStatus::Queued,
                excluded: BoundedVec::new(),
                stalled: BoundedVec::new(),
                disputed: None,
            }
        );
        assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap(), bytes);
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)), Some(1));
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((ALICE, 0))
        );
        assert_eq!(RevealsInPeriod::<Test>::get(0, ALICE), 1);
        // A second reveal of the spent commitment is refused.
        assert_noop!(
            reveal(ALICE, SILU, &bytes),
            Error::<Test>::UnknownCommitment
        );
    });
}

#[test]
fn reveal_window_boundaries() {
    ExtBuilder::default().reveal_window().build_and_execute(|| {
        // Committed at block 1: valid from block 1 + REVEAL_DELAY to 1 + LONG_REVEAL_WINDOW.
        let early = bundle("early");
        let late = bundle("late");
        commit(ALICE, SILU, &early);
        commit(ALICE, ROPE, &late);
        advance(REVEAL_DELAY - 1);
        assert_noop!(reveal(ALICE, SILU, &early), Error::<Test>::RevealTooEarly);
        advance(1);
        assert_ok!(reveal(ALICE, SILU, &early));

        run_to_block(1 + LONG_REVEAL_WINDOW + 1);
        assert_noop!(reveal(ALICE, ROPE, &late), Error::<Test>::RevealTooLate);
        // The late commitment's deposit is recovered by cancelling it.
        assert_eq!(commit_held(ALICE), COMMIT_DEPOSIT);
        assert_ok!(Cacheon::cancel_commit(
            signed(ALICE),
            commitment_for(ALICE, ROPE, &late)
        ));
        assert_eq!(commit_held(ALICE), 0);

        // The last block of the window is still accepted.
        let edge = bundle("edge");
        commit(BOB, ROPE, &edge);
        advance(LONG_REVEAL_WINDOW);
        assert_ok!(reveal(BOB, ROPE, &edge));
    });
}

#[test]
fn commitment_is_bound_to_the_miner() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        commit(ALICE, SILU, &bytes);
        advance(REVEAL_DELAY);
        // Same bytes, target and salt, but BOB's account is in the preimage.
        assert_noop!(reveal(BOB, SILU, &bytes), Error::<Test>::UnknownCommitment);
        // ALICE revealing for another target, arena or salt does not match either.
        assert_noop!(
            reveal(ALICE, ROPE, &bytes),
            Error::<Test>::UnknownCommitment
        );
        assert_noop!(
            Cacheon::reveal(signed(ALICE), id(ARENA), id(SILU), [0; 32], bytes.clone()),
            Error::<Test>::UnknownCommitment
        );
        assert_noop!(
            reveal(ALICE, SILU, &bundle("b")),
            Error::<Test>::UnknownCommitment
        );
        assert_ok!(reveal(ALICE, SILU, &bytes));
    });
}

#[test]
fn copy_of_another_miner_is_refused() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("original");
        let p = submit(ALICE, SILU, "original");
        commit(BOB, SILU, &bytes);
        commit(BOB, ROPE, &bytes);
        advance(REVEAL_DELAY);
        assert_noop!(reveal(BOB, SILU, &bytes), Error::<Test>::CopyOfOtherMiner);
        assert_noop!(reveal(BOB, ROPE, &bytes), Error::<Test>::CopyOfOtherMiner);
        // Still a copy after the original was withdrawn and its bundle dropped.
        assert_ok!(Cacheon::withdraw(signed(ALICE), p));
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        assert_noop!(reveal(BOB, SILU, &bytes), Error::<Test>::CopyOfOtherMiner);
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((ALICE, p))
        );
    });
}

#[test]
fn same_miner_may_reveal_the_same_bytes_again() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("mine");
        let l = len_of(&bytes);
        let p0 = submit(ALICE, SILU, "mine");
        let p1 = submit(ALICE, SILU, "mine");
        assert_ne!(p0, p1);
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)).unwrap(), 2);
        assert_eq!(bundle_held(ALICE), 2 * l);
        assert_eq!(free(ALICE), INITIAL_BALANCE - 2 * REVEAL_FEE - 2 * l);
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).unwrap().miner,
            ALICE
        );
        assert_eq!(queue(), vec![p0, p1]);

        assert_ok!(Cacheon::withdraw(signed(ALICE), p0));
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)).unwrap(), 1);
        assert_eq!(bundle_held(ALICE), l);
        assert_ok!(Cacheon::withdraw(signed(ALICE), p1));
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        assert_eq!(bundle_held(ALICE), 0);
    });
}

/// Re-revealing the same bytes (same miner) keeps `ContentOwners` pointing at the first
/// proposal: it names the original for copy detection.
#[test]
fn first_revealer_keeps_the_first_proposal_on_a_repeat_reveal() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("mine");
        let p0 = submit(ALICE, SILU, "mine");
        let _p1 = submit(ALICE, SILU, "mine");
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((ALICE, p0))
        );
    });
}

/// Fills SILU's queue (`MAX_QUEUE` = 8) with four proposals of ALICE's and four of BOB's.
fn fill_queue() {
    let tags = ["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"];
    for (i, tag) in tags.iter().enumerate() {
        commit(if i < 4 { ALICE } else { BOB }, SILU, &bundle(tag));
    }
    advance(REVEAL_DELAY);
    for (i, tag) in tags.iter().enumerate() {
        assert_ok!(reveal(if i < 4 { ALICE } else { BOB }, SILU, &bundle(tag)));
    }
    assert_eq!(queue().len() as u32, MAX_QUEUE);
}

#[test]
fn a_reveal_into_a_full_queue_is_recorded_not_queued() {
    ExtBuilder::default().build_and_execute(|| {
        commit(CAROL, SILU, &bundle("q8"));
        fill_queue();
        let bytes = bundle("q8");
        let pot_before = free(pot());
        assert_ok!(reveal(CAROL, SILU, &bytes));
        System::assert_last_event(ev(CEvent::QueueWasFull {
            proposal: 8,
            arena: id(ARENA),
        }));
        assert_eq!(status(8), ProposalStatus::NotQueued);
        assert_eq!(queue(), vec![0, 1, 2, 3, 4, 5, 6, 7]);
        // The fee, which pays for the ownership record; the commit deposit is back; the
        // bytes stay stored for the validators' copy screens, their deposit held until the
        // proposal is pruned.
        let l = len_of(&bytes);
        assert_eq!(free(pot()), pot_before + REVEAL_FEE);
        assert_eq!(commit_held(CAROL), 0);
        assert_eq!(bundle_held(CAROL), l * BYTE_DEPOSIT);
        assert_eq!(free(CAROL), INITIAL_BALANCE - REVEAL_FEE - l * BYTE_DEPOSIT);
        assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap(), bytes);
        // The content is CAROL's, by her commitment; the reveal counts against her cap.
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((CAROL, 8))
        );
        assert_eq!(RevealsInPeriod::<Test>::get(0, CAROL), 1);
        // Not leasable, not withdrawable.
        assert_noop!(Cacheon::claim(signed(V1), 8), Error::<Test>::NotClaimable);
        assert_noop!(
            Cacheon::withdraw(signed(CAROL), 8),
            Error::<Test>::NotWithdrawable
        );
        // A withdrawal frees a place; CAROL commits and reveals the same bytes again.
        assert_ok!(Cacheon::withdraw(signed(ALICE), 0));
        let again = submit(CAROL, SILU, "q8");
        assert_eq!(queue(), vec![1, 2, 3, 4, 5, 6, 7, again]);
        assert_eq!(status(again), ProposalStatus::Queued);
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)), Some(2));
        // Pruned, the unqueued proposal returns its deposit and its reference to the bytes;
        // the content stays CAROL's.
        advance(PROPOSAL_RETENTION);
        <Cacheon as frame::traits::Hooks<u64>>::on_idle(now(), Weight::MAX);
        assert!(!Proposals::<Test>::contains_key(8));
        assert_eq!(BundleRefs::<Test>::get(hash_of(&bytes)), Some(1));
        assert_eq!(bundle_held(CAROL), l * BYTE_DEPOSIT);
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((CAROL, 8))
        );
    });
}

/// Queue-full theft: a reveal refused by a full queue published its bytes while the
/// commitment stayed unrevealed; whoever kept the queue full until that commitment lapsed
/// could commit to the bytes, reveal them first and own them.
#[test]
fn a_full_queue_cannot_hand_revealed_bytes_to_a_copier() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("honest");
        commit(CAROL, SILU, &bytes);
        // BOB (with ALICE) keeps the queue full while CAROL's window is open.
        fill_queue();
        assert_ok!(reveal(CAROL, SILU, &bytes));
        assert_eq!(status(8), ProposalStatus::NotQueued);
        // BOB commits to the bytes he just saw, lets CAROL's window lapse, frees a place
        // and reveals: the content is already CAROL's.
        commit(BOB, SILU, &bytes);
        // CAROL's window (`REVEAL_DELAY` blocks in these tests) has lapsed by BOB's reveal.
        advance(REVEAL_DELAY);
        assert_ok!(Cacheon::withdraw(signed(BOB), 4));
        assert_noop!(reveal(BOB, SILU, &bytes), Error::<Test>::CopyOfOtherMiner);
        // CAROL reveals again into the place BOB freed: queued, hers.
        let again = submit(CAROL, SILU, "honest");
        assert_eq!(status(again), ProposalStatus::Queued);
        assert_eq!(queue().last(), Some(&again));
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| o.miner),
            Some(CAROL)
        );
    });
}

/// An unqueued reveal from an earlier commitment reclaims its bytes from a copy already
/// queued, as a queued reveal does.
#[test]
fn an_unqueued_reveal_reclaims_its_bytes_from_a_queued_copy() {
    ExtBuilder::default().reveal_window().build_and_execute(|| {
        let bytes = bundle("early");
        commit(CAROL, SILU, &bytes);
        advance(1);
        // BOB commits later to the same bytes (they leaked) and reveals first, queued.
        commit(BOB, SILU, &bytes);
        advance(REVEAL_DELAY);
        assert_ok!(reveal(BOB, SILU, &bytes));
        let copy = NextProposalId::<Test>::get() - 1;
        let tags = ["r0", "r1", "r2", "r3", "r4", "r5", "r6"];
        let by = |i: usize| if i < 4 { ALICE } else { OUTSIDER };
        for (i, tag) in tags.iter().enumerate() {
            commit(by(i), SILU, &bundle(tag));
        }
        advance(REVEAL_DELAY);
        for (i, tag) in tags.iter().enumerate() {
            assert_ok!(reveal(by(i), SILU, &bundle(tag)));
        }
        assert_eq!(queue().len() as u32, MAX_QUEUE);
        assert_ok!(reveal(CAROL, SILU, &bytes));
        let claim = NextProposalId::<Test>::get() - 1;
        assert_eq!(status(claim), ProposalStatus::NotQueued);
        assert_eq!(
            status(copy),
            ProposalStatus::Failed {
                reason: FailReason::CopyOf(claim)
            }
        );
        assert!(!queue().contains(&copy));
        assert_eq!(
            ContentOwners::<Test>::get(hash_of(&bytes)).map(|o| (o.miner, o.proposal)),
            Some((CAROL, claim))
        );
    });
}

/// Commits to `bytes` as ALICE for SILU, waits, checks the reveal fails with `err` and leaves
/// no trace, then cancels the commitment.
fn assert_reveal_refused(bytes: Bytes, err: Error<Test>) {
    let c = commit(ALICE, SILU, &bytes);
    advance(REVEAL_DELAY);
    assert_noop!(reveal(ALICE, SILU, &bytes), err);
    assert_ok!(Cacheon::cancel_commit(signed(ALICE), c));
    assert!(Proposals::<Test>::iter().next().is_none());
    assert_eq!(free(ALICE), INITIAL_BALANCE);
}

#[test]
fn reveal_refuses_malformed_bundles() {
    ExtBuilder::default().build_and_execute(|| {
        let good = bundle("a").into_inner();
        let mut trailing = good.clone();
        trailing.push(0);
        assert_reveal_refused(raw(trailing), Error::<Test>::BundleMalformed);
        assert_reveal_refused(
            raw(good[..good.len() - 1].to_vec()),
            Error::<Test>::BundleMalformed,
        );
        assert_reveal_refused(raw(vec![0xff; 8]), Error::<Test>::BundleMalformed);
        assert_reveal_refused(raw(vec![]), Error::<Test>::BundleMalformed);
        // Announces two files, holds one.
        let mut short = good.clone();
        short[0] = 3 << 2;
        assert_reveal_refused(raw(short), Error::<Test>::BundleMalformed);
    });
}

#[test]
fn reveal_refuses_non_canonical_bundles() {
    ExtBuilder::default().build_and_execute(|| {
        assert_reveal_refused(
            files(&[(b"z.c", b"x"), (b"a.c", b"y")]),
            Error::<Test>::BundleNotCanonical,
        );
        assert_reveal_refused(
            files(&[(b"a.c", b"x"), (b"a.c", b"y")]),
            Error::<Test>::BundleNotCanonical,
        );
        assert_reveal_refused(
            files(&[(b"a", b"x"), (b"a/b.c", b"y")]),
            Error::<Test>::BundleNotCanonical,
        );
        // The same files sorted are accepted.
        let ok = files(&[(b"a.c", b"y"), (b"z.c", b"x")]);
        commit(ALICE, SILU, &ok);
        advance(REVEAL_DELAY);
        assert_ok!(reveal(ALICE, SILU, &ok));
    });
}

#[test]
fn reveal_refuses_binaries() {
    ExtBuilder::default().build_and_execute(|| {
        for path in [
            &b"k.so"[..],
            b"lib/k.o",
            b"k.a",
            b"k.cubin",
            b"k.fatbin",
            b"k.PTX",
            b"k.pyc",
        ] {
            assert_reveal_refused(files(&[(path, b"text")]), Error::<Test>::BundleBinary);
        }
        assert_reveal_refused(
            files(&[(b"k.c", b"\x7fELF\x02\x01")]),
            Error::<Test>::BundleBinary,
        );
        assert_reveal_refused(files(&[(b"k.c", b"int x;\0")]), Error::<Test>::BundleBinary);
    });
}

#[test]
fn reveal_refuses_bad_paths() {
    let long = vec![b'a'; 256];
    ExtBuilder::default().build_and_execute(|| {
        for path in [
            &b"/abs.c"[..],
            b"../up.c",
            b"a/../b.c",
            b"./a.c",
            b"a b.c",
            b"a//b.c",
            b"a/",
            b"",
            b"k\\c",
        ] {
            assert_reveal_refused(files(&[(path, b"text")]), Error::<Test>::BundleBadPath);
        }
        assert_reveal_refused(files(&[(&long, b"text")]), Error::<Test>::BundleBadPath);
        // 255 bytes is the longest valid path.
        let edge = files(&[(&long[..255], b"text")]);
        commit(ALICE, SILU, &edge);
        advance(REVEAL_DELAY);
        assert_ok!(reveal(ALICE, SILU, &edge));
    });
}

#[test]
fn reveal_refuses_empty_bundle() {
    ExtBuilder::default().build_and_execute(|| {
        assert_reveal_refused(files(&[]), Error::<Test>::BundleEmpty);
    });
}

#[test]
fn reveal_refuses_too_many_files() {
    ExtBuilder::default().build_and_execute(|| {
        let names: Vec<Vec<u8>> = (0..65).map(|i| format!("f{i:02}.c").into_bytes()).collect();
        let list: Vec<(&[u8], &[u8])> = names.iter().map(|n| (&n[..], &b"x"[..])).collect();
        assert_reveal_refused(files(&list), Error::<Test>::BundleTooManyFiles);
        // 64 files are accepted.
        let ok = files(&list[..64]);
        commit(ALICE, SILU, &ok);
        advance(REVEAL_DELAY);
        assert_ok!(reveal(ALICE, SILU, &ok));
        assert_eq!(bundle_held(ALICE), len_of(&ok) * BYTE_DEPOSIT);
    });
}

/// `BundleTooLarge` cannot be reached through `reveal`: the parameter is a
/// `BoundedVec<u8, MaxBundleBytes>` and the chain's size limit is `MaxBundleBytes` itself.
/// This checks the bound, the limit the chain applies, and the error mapping.
#[test]
fn bundle_too_large_is_unreachable_but_mapped() {
    ExtBuilder::default().build_and_execute(|| {
        let max = <<Test as Config>::MaxBundleBytes as Get<u32>>::get();
        assert_eq!(Cacheon::bundle_limits().max_bytes, max);
        assert!(Bytes::try_from(vec![0u8; max as usize + 1]).is_err());
        let too_big = vec![0u8; max as usize + 1];
        let e = cacheon_primitives::decode_bundle(&too_big, &Cacheon::bundle_limits()).unwrap_err();
        assert!(matches!(
            Error::<Test>::from(e),
            Error::<Test>::BundleTooLarge
        ));
        assert!(matches!(
            Error::<Test>::from(cacheon_primitives::BundleError::TooManyFiles {
                files: 65,
                max: 64
            }),
            Error::<Test>::BundleTooManyFiles
        ));
    });
}

#[test]
fn reveal_checks_arena_and_target() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        // Unknown arena.
        commit_in(ALICE, b"gpu-none", SILU, &bytes);
        // Unknown target.
        commit(ALICE, b"norm.rms", &bytes);
        advance(REVEAL_DELAY);
        assert_noop!(
            Cacheon::reveal(
                signed(ALICE),
                id(b"gpu-none"),
                id(SILU),
                SALT,
                bytes.clone()
            ),
            Error::<Test>::UnknownArena
        );
        assert_noop!(
            reveal(ALICE, b"norm.rms", &bytes),
            Error::<Test>::UnknownTarget
        );
        // The target now exists but the arena does not allow it.
        assert_ok!(Cacheon::set_target(root(), slot_target(b"norm.rms")));
        assert_noop!(
            reveal(ALICE, b"norm.rms", &bytes),
            Error::<Test>::TargetNotInArena
        );

        // Paused target.
        commit(BOB, SILU, &bundle("b"));
        advance(REVEAL_DELAY);
        let mut silu = slot_target(SILU);
        silu.status = Status::Paused;
        assert_ok!(Cacheon::set_target(root(), silu));
        assert_noop!(reveal(BOB, SILU, &bundle("b")), Error::<Test>::TargetPaused);
        assert_ok!(Cacheon::set_target(root(), slot_target(SILU)));

        // Paused arena.
        let mut cfg = arena_config(2);
        cfg.status = Status::Paused;
        assert_ok!(Cacheon::set_arena(root(), cfg));
        assert_noop!(reveal(BOB, SILU, &bundle("b")), Error::<Test>::ArenaPaused);
        assert_ok!(Cacheon::set_arena(root(), arena_config(2)));
        assert_ok!(reveal(BOB, SILU, &bundle("b")));
    });
}

#[test]
fn withdraw_returns_bundle_deposit_and_keeps_fee() {
    ExtBuilder::default().build_and_execute(|| {
        let bytes = bundle("a");
        let p = submit(ALICE, SILU, "a");
        let pot_after_reveal = free(pot());
        assert_ok!(Cacheon::withdraw(signed(ALICE), p));
        System::assert_last_event(ev(CEvent::Withdrawn { proposal: p }));
        assert_eq!(status(p), ProposalStatus::Withdrawn);
        assert_eq!(Proposals::<Test>::get(p).unwrap().bundle_deposit, 0);
        assert_eq!(bundle_held(ALICE), 0);
        assert_eq!(free(ALICE), INITIAL_BALANCE - REVEAL_FEE);
        assert_eq!(free(pot()), pot_after_reveal);
        assert!(queue().is_empty());
        assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
    });
}

#[test]
fn withdraw_errors() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::withdraw(signed(ALICE), 99),
            Error::<Test>::UnknownProposal
        );
        let p = submit(ALICE, SILU, "a");
        assert_noop!(Cacheon::withdraw(signed(BOB), p), Error::<Test>::NotMiner);
        assert_ok!(Cacheon::claim(signed(V1), p));
        assert_noop!(
            Cacheon::withdraw(signed(ALICE), p),
            Error::<Test>::NotWithdrawable
        );
        assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
        // Leased for its reproduction: not withdrawable.
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_noop!(
            Cacheon::withdraw(signed(ALICE), p),
            Error::<Test>::NotWithdrawable
        );
        let q = submit(BOB, ROPE, "b");
        assert_ok!(Cacheon::withdraw(signed(BOB), q));
        assert_noop!(
            Cacheon::withdraw(signed(BOB), q),
            Error::<Test>::NotWithdrawable
        );
    });
}

/// `Overflow` needs a proposal counter at `u64::MAX`, prepared in storage.
#[test]
fn proposal_id_overflow() {
    ExtBuilder::default().build_and_execute(|| {
        NextProposalId::<Test>::put(u64::MAX);
        commit(ALICE, SILU, &bundle("a"));
        advance(REVEAL_DELAY);
        assert_noop!(reveal(ALICE, SILU, &bundle("a")), Error::<Test>::Overflow);
    });
}

/// A proposal waiting for its reproduction (no lease on it) is not stuck:
/// its miner can withdraw it, and its deposit comes back.
#[test]
fn proposal_waiting_for_reproduction_forever_can_be_withdrawn() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "waits");
        primary_pass(p, 1_050_000);
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::withdraw(signed(ALICE), p));
        assert_eq!(status(p), ProposalStatus::Withdrawn);
        System::assert_last_event(ev(CEvent::Withdrawn { proposal: p }));
        assert_eq!(bundle_held(ALICE), 0);
        assert!(queue().is_empty());
    });
}
