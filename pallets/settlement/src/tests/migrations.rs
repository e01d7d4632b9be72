//! Storage migrations: a state made by the current rules, written back in an older
//! version's encoding, migrates to what it was (less what the older version never stored).

use super::*;
use crate::migrations::v2::{v1, MigrateV1ToV2};
use crate::migrations::v3::MigrateV2ToV3;
use crate::migrations::v4::{v3, MigrateV3ToV4};
use crate::migrations::v5::{v4, MigrateV4ToV5};
use frame::deps::frame_support::storage::unhashed;
use frame::traits::{GetStorageVersion, OnRuntimeUpgrade};

fn old_lease(l: &LeaseOf<Test>) -> v1::Lease<AccountId, u64> {
    v1::Lease {
        validator: l.validator,
        generation: l.generation,
        expires_at: l.expires_at,
    }
}

fn old_pass(p: &PrimaryPass<AccountId>) -> v1::RecordedPass<AccountId> {
    let PrimaryPass::Open(p) = p else {
        panic!("version 1 had no sealed PASS");
    };
    v1::RecordedPass {
        validator: p.validator,
        speedup_ppm: p.speedup_ppm,
        generation: p.generation,
        evidence_digest: p.evidence_digest,
        attempt_digest: p.attempt_digest,
    }
}

fn old_status(s: &StatusOf<Test>) -> v1::ProposalStatus<AccountId, u64> {
    use v1::ProposalStatus as O;
    match s {
        ProposalStatus::Queued => O::Queued,
        ProposalStatus::Primary { lease } => O::Primary {
            lease: old_lease(lease),
        },
        ProposalStatus::ReproductionQueued { primary, .. } => O::ReproductionQueued {
            primary: old_pass(primary),
        },
        ProposalStatus::Reproduction { primary, lease, .. } => O::Reproduction {
            primary: old_pass(primary),
            lease: old_lease(lease),
        },
        ProposalStatus::Crowned {
            at, speedup_ppm, ..
        } => O::Crowned {
            at: *at,
            speedup_ppm: *speedup_ppm,
        },
        ProposalStatus::Retired { at } => O::Retired { at: *at },
        ProposalStatus::Failed { reason } => O::Failed { reason: *reason },
        ProposalStatus::Expired => O::Expired,
        ProposalStatus::Withdrawn => O::Withdrawn,
        ProposalStatus::Dropped { displaced_by } => O::Dropped {
            displaced_by: *displaced_by,
        },
        // Version 1 could not overturn a FAIL.
        ProposalStatus::Overturned { reason } => O::Failed { reason: *reason },
        // Nor revoke a crown.
        ProposalStatus::Revoked { reason, .. } => O::Failed { reason: *reason },
        ProposalStatus::AwaitingReveal { .. } => panic!("version 1 had no sealed PASS"),
        ProposalStatus::NotQueued => panic!("version 1 refused a reveal into a full queue"),
    }
}

/// Rewrites every migrated item in version 1's encoding and sets version 1.
fn write_as_v1() {
    let waiting: Vec<ProposalId> = Proposals::<Test>::iter()
        .filter(|(_, p)| matches!(p.status, ProposalStatus::ReproductionQueued { .. }))
        .map(|(id, _)| id)
        .collect();
    for (k, v, _) in Validators::<Test>::iter().collect::<Vec<_>>() {
        unhashed::put_raw(&Validators::<Test>::hashed_key_for(&k, v), &[]);
    }
    for (m, c, r) in Commits::<Test>::iter().collect::<Vec<_>>() {
        unhashed::put(&Commits::<Test>::hashed_key_for(m, c), &r.at);
    }
    for (id, p) in Proposals::<Test>::iter().collect::<Vec<_>>() {
        let old = v1::Proposal {
            miner: p.miner,
            arena: p.arena.clone(),
            target: p.target.clone(),
            content_hash: p.content_hash,
            commit_block: p.commit_block,
            reveal_block: p.reveal_block,
            attempts: p.attempts,
            bundle_deposit: p.bundle_deposit,
            status: old_status(&p.status),
        };
        unhashed::put(&Proposals::<Test>::hashed_key_for(id), &old);
    }
    for (id, c) in Claims::<Test>::iter().collect::<Vec<_>>() {
        let old = v1::RewardClaim {
            miner: c.miner,
            arena: c.arena,
            target: c.target,
            speedup_ppm: c.speedup_ppm,
            since: c.since,
        };
        unhashed::put(&Claims::<Test>::hashed_key_for(id), &old);
    }
    for (hash, owner) in ContentOwners::<Test>::drain().collect::<Vec<_>>() {
        v1::FirstRevealer::<Test>::insert(hash, (owner.miner, owner.proposal));
    }
    for (hash, bytes) in Bundles::<Test>::iter().collect::<Vec<_>>() {
        let refs = BundleRefs::<Test>::take(hash).unwrap_or(0);
        let old = v1::StoredBundle {
            bytes: bytes.into_inner(),
            refs,
        };
        unhashed::put(&Bundles::<Test>::hashed_key_for(hash), &old);
    }
    for (_, miner, n) in RevealsInPeriod::<Test>::drain().collect::<Vec<_>>() {
        v1::RevealsInEpoch::<Test>::insert(miner, (0, n));
    }
    // Version 1 had no reproduction deadlines and no prune queue.
    for (at, ids) in LeaseDeadlines::<Test>::iter().collect::<Vec<_>>() {
        let leases: Vec<_> = ids.into_iter().filter(|id| !waiting.contains(id)).collect();
        LeaseDeadlines::<Test>::insert(at, BoundedVec::truncate_from(leases));
    }
    let _ = PruneQueue::<Test>::clear(u32::MAX, None);
    PruneHead::<Test>::kill();
    PruneTail::<Test>::kill();
    let _ = OpenLeases::<Test>::clear(u32::MAX, None);
    let _ = KeyOperators::<Test>::clear(u32::MAX, None);
    StorageVersion::new(1).put::<Cacheon>();
}

#[test]
fn version_1_state_migrates_to_version_2() {
    ExtBuilder::default().build_and_execute(|| {
        assert_eq!(Cacheon::on_chain_storage_version(), STORAGE_VERSION);
        // A crown, a pending commitment, a leased reproduction and a queued proposal.
        let crowned = submit(ALICE, SILU, "crowned");
        crown_with(crowned, 1_050_000);
        let leased = submit(BOB, ROPE, "leased");
        primary_pass(leased, 1_040_000);
        let waiting = submit(ALICE, ROPE_DECODE, "waiting");
        primary_pass(waiting, 1_030_000);
        let queued = submit(CAROL, DECODE, "queued");
        let withdrawn = submit(CAROL, SILU, "withdrawn");
        assert_ok!(Cacheon::withdraw(signed(CAROL), withdrawn));
        commit(ALICE, DECODE, &bundle("pending"));
        assert_ok!(Cacheon::claim(signed(V2), leased));
        // Version 1 had no blind verdicts: its PASSes were open.
        unseal_in_storage(leased);
        unseal_in_storage(waiting);

        let before_leased = Proposals::<Test>::get(leased).unwrap();
        let before_queued = Proposals::<Test>::get(queued).unwrap();
        let before_owners: Vec<_> = ContentOwners::<Test>::iter().collect();
        let before_commits: Vec<_> = Commits::<Test>::iter().collect();
        let before_validators: Vec<_> = Validators::<Test>::iter().collect();

        write_as_v1();
        assert!(Proposals::<Test>::try_get(leased).is_err(), "written as v1");
        MigrateV1ToV2::<Test>::on_runtime_upgrade();
        assert_eq!(Cacheon::on_chain_storage_version(), 2);

        // Version 1 kept no wait deadline: the leased reproduction gets one from the upgrade.
        let mut expected = before_leased;
        if let ProposalStatus::Reproduction { until, .. } = &mut expected.status {
            *until = System::block_number() + REPRODUCTION_TIMEOUT;
        }
        assert_eq!(Proposals::<Test>::get(leased).unwrap(), expected);
        assert_eq!(Proposals::<Test>::get(queued).unwrap(), before_queued);
        // The wait for a reproduction gets a new deadline from the upgrade.
        let until = System::block_number() + REPRODUCTION_TIMEOUT;
        assert!(matches!(
            status(waiting),
            ProposalStatus::ReproductionQueued { until: u, .. } if u == until
        ));
        assert!(LeaseDeadlines::<Test>::get(until).contains(&waiting));
        // Bytes and reference counts are apart; reveal counts start again.
        let hash = Proposals::<Test>::get(queued).unwrap().content_hash;
        assert_eq!(BundleRefs::<Test>::get(hash), Some(1));
        assert_eq!(Bundles::<Test>::get(hash).unwrap(), bundle("queued"));
        assert_eq!(v1::RevealsInEpoch::<Test>::iter().count(), 0);
        // The finished proposal is queued for pruning.
        assert_eq!(
            PruneQueue::<Test>::iter_values()
                .map(|(_, id)| id)
                .collect::<Vec<_>>(),
            vec![withdrawn]
        );
        assert_eq!(OpenLeases::<Test>::get(V2), 1);
        let mut owners: Vec<_> = ContentOwners::<Test>::iter().collect();
        owners.sort_by_key(|(h, _)| *h);
        let mut expected = before_owners;
        expected.sort_by_key(|(h, _)| *h);
        assert_eq!(owners, expected);
        assert_eq!(Commits::<Test>::iter().collect::<Vec<_>>(), before_commits);
        assert_eq!(
            Validators::<Test>::iter().collect::<Vec<_>>(),
            before_validators
        );
        // What version 1 never stored: the crown's PASSes and the claim's evidence.
        assert!(matches!(
            status(crowned),
            ProposalStatus::Crowned { ref passes, speedup_ppm: 1_050_000, .. } if passes.is_empty()
        ));
        assert!(Claims::<Test>::get(crowned).unwrap().evidence.is_empty());

        // Run again: the version guard makes it a no-op.
        let before = Proposals::<Test>::get(leased);
        MigrateV1ToV2::<Test>::on_runtime_upgrade();
        assert_eq!(Proposals::<Test>::get(leased), before);
    });
}

/// Version 2's runtime has smaller bounds than version 1's: a version 1 queue longer than
/// `MaxQueueLen` keeps its oldest entries and expires the rest (deposits returned), and a
/// deadline block fuller than `MaxLeasesPerBlock` moves its surplus leases to the next
/// blocks with room. Nothing is left that would not decode, and every invariant holds.
#[test]
fn version_1_state_beyond_the_new_bounds_fits_after_migration() {
    ExtBuilder::default().build_and_execute(|| {
        let miners = [ALICE, BOB, CAROL];
        let tags = ["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"];
        let items: Vec<(AccountId, &[u8], &str)> = tags
            .iter()
            .enumerate()
            .map(|(i, t)| (miners[i % 3], SILU, *t))
            .collect();
        let ids = submit_many(&items);
        assert_eq!(queue().len() as u32, MAX_QUEUE);
        // Six leases ending in one block (version 1 allowed more than 4 per block).
        for (p, v) in ids[..6].iter().zip([V1, V1, V2, V2, V3, V3]) {
            assert_ok!(Cacheon::claim(signed(v), *p));
        }
        let at = lease_of(ids[0]).expires_at;
        for p in &ids[..6] {
            Proposals::<Test>::mutate(p, |p| {
                if let Some(ProposalStatus::Primary { lease }) = p.as_mut().map(|p| &mut p.status) {
                    lease.expires_at = at;
                }
            });
        }
        let _ = LeaseDeadlines::<Test>::clear(u32::MAX, None);
        // Two more queued proposals beyond the bound: copies of the last entry's record.
        let extra: Vec<ProposalId> = vec![100, 101];
        let template = Proposals::<Test>::get(ids[7]).unwrap();
        for id in &extra {
            Proposals::<Test>::insert(id, template.clone());
        }
        BundleRefs::<Test>::mutate(template.content_hash, |r| *r = r.map(|r| r + 2));
        let held_before = bundle_held(template.miner);
        <Balances as frame::traits::fungible::MutateHold<AccountId>>::hold(
            &RuntimeHoldReason::from(HoldReason::BundleDeposit),
            &template.miner,
            2 * template.bundle_deposit,
        )
        .unwrap();
        write_as_v1();
        let mut long_queue: Vec<ProposalId> = ids.clone();
        long_queue.extend(&extra);
        unhashed::put(&Queue::<Test>::hashed_key_for(id(ARENA)), &long_queue);
        unhashed::put(
            &LeaseDeadlines::<Test>::hashed_key_for(at),
            &ids[..6].to_vec(),
        );

        MigrateV1ToV2::<Test>::on_runtime_upgrade();

        assert_eq!(queue(), ids);
        for id in &extra {
            assert_eq!(status(*id), ProposalStatus::Expired);
        }
        assert_eq!(bundle_held(template.miner), held_before);
        assert_eq!(LeaseDeadlines::<Test>::get(at).len(), 4);
        let moved: Vec<u64> = ids[..6].iter().map(|p| lease_of(*p).expires_at).collect();
        assert_eq!(moved.iter().filter(|b| **b == at).count(), 4);
        assert!(moved.iter().all(|b| *b == at || *b == at + 1));
        for p in &ids[..6] {
            assert!(LeaseDeadlines::<Test>::get(lease_of(*p).expires_at).contains(p));
        }
    });
}

/// Version 2 → 3: a reproduction leased under version 2 kept its wait's deadline; the
/// migration moves it by what is left of the lease, as a version 3 claim does. The queue is
/// full (the migration reads only queued proposals: at most `MaxArenas × MaxQueueLen`);
/// every other proposal is left as it was, and the version is 3.
#[test]
fn version_2_reproduction_leases_stop_the_wait_clock() {
    ExtBuilder::default().build_and_execute(|| {
        let tags: Vec<String> = (0..MAX_QUEUE).map(|i| format!("p{i}")).collect();
        let miners = [ALICE, BOB, CAROL];
        let mut ids = Vec::new();
        for chunk in tags.chunks(3) {
            let items: Vec<(AccountId, &[u8], &str)> = chunk
                .iter()
                .zip(miners)
                .map(|(t, m)| (m, SILU, t.as_str()))
                .collect();
            ids.extend(submit_many(&items));
        }
        assert_eq!(queue().len() as u32, MAX_QUEUE);
        let leased = ids[0];
        primary_pass(leased, 1_100_000);
        assert_ok!(Cacheon::claim(signed(V2), leased));
        advance(2);
        let now = System::block_number();
        let version_3 = Proposals::<Test>::get(leased).unwrap();
        let ProposalStatus::Reproduction { lease, until, .. } = &version_3.status else {
            panic!("leased");
        };
        // What version 2 stored: the deadline the wait had when the lease was taken.
        let claimed_at = now - 2;
        let v2_until = until - (lease.expires_at - claimed_at);
        let mut version_2 = version_3.clone();
        if let ProposalStatus::Reproduction { until, .. } = &mut version_2.status {
            *until = v2_until;
        }
        Proposals::<Test>::insert(leased, version_2);
        let others: Vec<_> = ids[1..]
            .iter()
            .map(|id| Proposals::<Test>::get(id).unwrap())
            .collect();
        StorageVersion::new(2).put::<Cacheon>();

        MigrateV2ToV3::<Test>::on_runtime_upgrade();
        assert_eq!(Cacheon::on_chain_storage_version(), 3);
        let mut expected = version_3.clone();
        if let ProposalStatus::Reproduction { until, .. } = &mut expected.status {
            *until = v2_until + (lease.expires_at - now);
        }
        assert_eq!(Proposals::<Test>::get(leased).unwrap(), expected);
        let after: Vec<_> = ids[1..]
            .iter()
            .map(|id| Proposals::<Test>::get(id).unwrap())
            .collect();
        assert_eq!(after, others);
        // Run twice, it does nothing: the version guards it.
        MigrateV2ToV3::<Test>::on_runtime_upgrade();
        assert_eq!(Proposals::<Test>::get(leased).unwrap(), expected);
    });
}

fn v3_arena(info: &ArenaInfoOf<Test>) -> v3::ArenaInfo<u64> {
    let c = info.config.clone();
    let p = c.policy;
    v3::ArenaInfo {
        config: v3::ArenaConfig {
            id: c.id,
            backend: c.backend,
            hardware: c.hardware,
            model_digest: c.model_digest,
            workload_digest: c.workload_digest,
            stock_digest: c.stock_digest,
            targets: c.targets,
            policy: v3::ArenaPolicy {
                min_margin_ppm: p.min_margin_ppm,
                max_noise_ppm: p.max_noise_ppm,
                noise_multiplier: p.noise_multiplier,
                lease_blocks: p.lease_blocks,
                max_attempts: p.max_attempts,
                required_distinct_validators: p.required_distinct_validators,
            },
            status: c.status,
        },
        generation: info.generation,
        validators: info.validators,
    }
}

/// Version 3 → 4: arenas had no speedup cap of their own (the chain's `MaxSpeedupPpm` held
/// for all); each gets that one, and nothing else changes. At the bounds: `MaxArenas`
/// arenas, each with `MAX_ARENA_TARGETS` targets of the longest ids (the longest encoding an
/// arena has), all read and written in one go; run twice, the version guards it.
#[test]
fn version_3_arenas_get_the_chains_speedup_cap() {
    ExtBuilder::default().build_and_execute(|| {
        let max_arenas = <<Test as Config>::MaxArenas as Get<u32>>::get();
        let longest = |prefix: &str, i: u32| {
            let width = cacheon_primitives::MAX_ID_LEN as usize - prefix.len();
            id(format!("{prefix}{i:0>width$}").as_bytes())
        };
        let genesis = Arenas::<Test>::get(id(ARENA)).unwrap();
        for i in Arenas::<Test>::count()..max_arenas {
            let mut info = genesis.clone();
            info.config.id = longest("arena-", i);
            info.config.targets = BoundedVec::truncate_from(
                (0..MAX_ARENA_TARGETS).map(|t| longest("t", t)).collect(),
            );
            info.generation = 7 + i;
            Arenas::<Test>::insert(info.config.id.clone(), info);
        }
        assert_eq!(Arenas::<Test>::count(), max_arenas);
        // What version 4 holds once migrated: each arena with the chain's cap (here another
        // cap is set first, which version 3's encoding cannot keep).
        let mut expected: Vec<(ArenaId, ArenaInfoOf<Test>)> = Arenas::<Test>::iter().collect();
        for (key, info) in expected.iter_mut() {
            let mut lower = info.clone();
            lower.config.policy.max_speedup_ppm = 2_000_000;
            unhashed::put(&Arenas::<Test>::hashed_key_for(&*key), &v3_arena(&lower));
            info.config.policy.max_speedup_ppm = MAX_SPEEDUP_PPM;
        }
        assert!(v3_arena(&expected[0].1).encoded_size() < expected[0].1.encoded_size());
        StorageVersion::new(3).put::<Cacheon>();

        #[cfg(feature = "try-runtime")]
        MigrateV3ToV4::<Test>::try_on_runtime_upgrade(true).expect("pre and post checks hold");
        #[cfg(not(feature = "try-runtime"))]
        MigrateV3ToV4::<Test>::on_runtime_upgrade();
        assert_eq!(Cacheon::on_chain_storage_version(), 4);
        let mut after: Vec<(ArenaId, ArenaInfoOf<Test>)> = Arenas::<Test>::iter().collect();
        after.sort_by(|a, b| a.0.cmp(&b.0));
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(after, expected);
        assert_eq!(Arenas::<Test>::count(), max_arenas);
        // Run again, it does nothing: the version guards it.
        MigrateV3ToV4::<Test>::on_runtime_upgrade();
        let mut again: Vec<(ArenaId, ArenaInfoOf<Test>)> = Arenas::<Test>::iter().collect();
        again.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(again, expected);
    });
}

fn v4_status(s: &StatusOf<Test>) -> v4::ProposalStatus<AccountId, u64> {
    use v4::ProposalStatus as O;
    let open = |p: &PrimaryPass<AccountId>| match p {
        PrimaryPass::Open(p) => p.clone(),
        PrimaryPass::Sealed(_) => panic!("version 4 had no sealed PASS"),
    };
    match s {
        ProposalStatus::Queued => O::Queued,
        ProposalStatus::Primary { lease } => O::Primary {
            lease: lease.clone(),
        },
        ProposalStatus::ReproductionQueued { primary, until } => O::ReproductionQueued {
            primary: open(primary),
            until: *until,
        },
        ProposalStatus::Reproduction {
            primary,
            lease,
            until,
        } => O::Reproduction {
            primary: open(primary),
            lease: lease.clone(),
            until: *until,
        },
        s => panic!("not a status this test writes: {s:?}"),
    }
}

/// A full queue (`MaxQueueLen`) of proposals waiting for or holding their reproduction (and
/// one queued, one leased for its primary attempt), written in version 4's encoding: each
/// primary PASS becomes open, nothing else changes.
#[test]
fn version_4_primary_passes_become_open() {
    ExtBuilder::default().build_and_execute(|| {
        let tags: Vec<String> = (0..MAX_QUEUE).map(|i| format!("p{i}")).collect();
        let miners = [ALICE, BOB, CAROL];
        let mut ids = Vec::new();
        for chunk in tags.chunks(3) {
            let items: Vec<(AccountId, &[u8], &str)> = chunk
                .iter()
                .zip(miners)
                .map(|(t, m)| (m, SILU, t.as_str()))
                .collect();
            ids.extend(submit_many(&items));
        }
        assert_eq!(queue().len() as u32, MAX_QUEUE);
        let n = ids.len();
        for (i, p) in ids[..n - 2].iter().enumerate() {
            primary_pass_by(V1, *p, 1_100_000 + i as u32);
        }
        // V1 passes over its own PASSes to the next primary attempt.
        assert_ok!(Cacheon::claim(signed(V1), ids[n - 2]));
        assert_ok!(Cacheon::claim(signed(V2), ids[0]));
        assert!(matches!(
            status(ids[0]),
            ProposalStatus::Reproduction { .. }
        ));
        assert!(matches!(status(ids[n - 2]), ProposalStatus::Primary { .. }));
        assert!(matches!(status(ids[n - 1]), ProposalStatus::Queued));
        let mut expected = Vec::new();
        for p in &ids {
            if !matches!(
                status(*p),
                ProposalStatus::Queued | ProposalStatus::Primary { .. }
            ) {
                unseal_in_storage(*p);
            }
            let new = Proposals::<Test>::get(p).unwrap();
            let old = v4::Proposal {
                miner: new.miner,
                arena: new.arena.clone(),
                target: new.target.clone(),
                content_hash: new.content_hash,
                commit_block: new.commit_block,
                reveal_block: new.reveal_block,
                attempts: new.attempts,
                bundle_deposit: new.bundle_deposit,
                status: v4_status(&new.status),
                excluded: new.excluded.clone(),
                stalled: new.stalled.clone(),
                disputed: new.disputed.clone(),
            };
            unhashed::put(&Proposals::<Test>::hashed_key_for(p), &old);
            expected.push(new);
        }
        let waiting = ids[1];
        assert!(
            Proposals::<Test>::try_get(waiting).is_err(),
            "written as v4"
        );
        StorageVersion::new(4).put::<Cacheon>();

        #[cfg(feature = "try-runtime")]
        MigrateV4ToV5::<Test>::try_on_runtime_upgrade(true).expect("pre and post checks hold");
        #[cfg(not(feature = "try-runtime"))]
        MigrateV4ToV5::<Test>::on_runtime_upgrade();
        assert_eq!(Cacheon::on_chain_storage_version(), 5);
        let after: Vec<_> = ids
            .iter()
            .map(|p| Proposals::<Test>::get(p).unwrap())
            .collect();
        assert_eq!(after, expected);
        assert!(matches!(
            status(waiting),
            ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(_),
                ..
            }
        ));
        // Run again, it does nothing: the version guards it.
        MigrateV4ToV5::<Test>::on_runtime_upgrade();
        let again: Vec<_> = ids
            .iter()
            .map(|p| Proposals::<Test>::get(p).unwrap())
            .collect();
        assert_eq!(again, expected);
    });
}
