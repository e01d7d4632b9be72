//! Unit tests of the settlement rules. Every test runs through `ExtBuilder::build_and_execute`,
//! which checks the `try_state` invariants afterwards (the pure-function tests of the weights
//! module and the proptest are the exceptions: they need no chain state).
//!
//! `Error<T>` coverage (every variant is asserted at least once, with `assert_noop!`):
//!
//! | Variant | Test |
//! |---|---|
//! | InvalidId | `config::invalid_ids_are_refused` |
//! | SingletonMembers | `config::singleton_members_must_be_its_own_id` |
//! | AtomicMembers | `config::atomic_needs_two_distinct_members` |
//! | AtomicMustDisplaceMembers | `config::atomic_must_displace_its_members` |
//! | UnknownDisplaced | `config::unknown_displaced_target_is_refused` |
//! | DisplacementCycle | `config::displacement_cycles_are_refused` |
//! | TooManyTargets | `config::too_many_targets` |
//! | UnknownTarget | `commit_reveal::reveal_checks_arena_and_target` |
//! | ArenaTargetUnknown | `config::arena_with_unknown_target_is_refused` |
//! | InvalidPolicy | `config::invalid_policies_are_refused` |
//! | UnknownArena | `config::validator_errors`, `commit_reveal::reveal_checks_arena_and_target`, `leases::claim_with_arena_gone_from_storage` |
//! | TooManyArenas | `config::too_many_arenas` |
//! | AlreadyValidator / NotValidator / TooManyValidators | `config::validator_errors` (+ `leases::removed_validator_*`) |
//! | InvalidEmissions | `config::set_emissions_success_and_invalid` |
//! | AlreadyCommitted / TooManyCommits | `commit_reveal::commit_errors` |
//! | UnknownCommitment | `commit_reveal::cancel_commit_releases_deposit`, `commit_reveal::commitment_is_bound_to_the_miner` |
//! | RevealTooEarly / RevealTooLate | `commit_reveal::reveal_window_boundaries` |
//! | ArenaPaused / TargetPaused / TargetNotInArena | `commit_reveal::reveal_checks_arena_and_target` |
//! | TargetDisplaced | `crown::atomic_crown_displaces_its_members` |
//! | RevealCapReached | `commit_reveal::reveal_cap_per_epoch_resets_next_epoch` |
//! | QueueFull | `commit_reveal::queue_is_bounded` |
//! | CopyOfOtherMiner | `commit_reveal::copy_of_another_miner_is_refused` |
//! | BundleTooLarge | unreachable through `reveal`: the call takes a `BoundedVec<u8, MaxBundleBytes>` and the chain's `max_bytes` is `MaxBundleBytes`, so no oversized bundle can be passed; the mapping is tested in `commit_reveal::bundle_too_large_is_unreachable_but_mapped` |
//! | BundleTooManyFiles | `commit_reveal::reveal_refuses_too_many_files` |
//! | BundleEmpty | `commit_reveal::reveal_refuses_empty_bundle` |
//! | BundleMalformed | `commit_reveal::reveal_refuses_malformed_bundles` |
//! | BundleBadPath | `commit_reveal::reveal_refuses_bad_paths` |
//! | BundleNotCanonical | `commit_reveal::reveal_refuses_non_canonical_bundles` |
//! | BundleBinary | `commit_reveal::reveal_refuses_binaries` |
//! | UnknownProposal | `commit_reveal::withdraw_errors`, `leases::claim_errors`, `attest::attest_errors` |
//! | NotMiner / NotWithdrawable | `commit_reveal::withdraw_errors` |
//! | NotClaimable | `leases::claim_errors` |
//! | OutOfTurn | `leases::claims_follow_reveal_order` |
//! | SameValidator | `leases::reproduction_needs_another_validator` |
//! | LeaseScheduleFull | `leases::lease_schedule_is_bounded_per_block` |
//! | NotLeaseHolder | `attest::attest_errors`, `leases::attest_after_lease_expiry` |
//! | LeaseExpired | `leases::attest_after_lease_expiry` (needs a block whose `on_initialize` did not run: in a real chain the hook requeues first and the caller gets `NotLeaseHolder`) |
//! | GenerationMismatch | `attest::generation_mismatch_is_refused` |
//! | BelowMargin | `attest::pass_below_margin_is_refused` |
//! | DuplicateEvidence | `attest::reproduction_with_duplicate_digests_is_refused` |
//! | GenerationOverflow | `crown::crown_rolls_back_on_generation_overflow` (generation prepared in storage) |
//! | Overflow | `commit_reveal::proposal_id_overflow` (`NextProposalId` prepared in storage; the deposit product cannot overflow a `u128` with a 16 KiB bundle) |
//! | TooManyClaims | `crown::too_many_claims` (claims prepared in storage: the mock's catalog cannot reach `MaxClaims`) |

use crate::epoch::credit;
use crate::mock::*;
use crate::*;
use codec::Encode;
use frame::testing_prelude::*;
use frame::traits::fungible::InspectHold;

type CEvent = crate::Event<Test>;
type Bytes = BoundedVec<u8, <Test as Config>::MaxBundleBytes>;

// ---- Helpers ----

fn signed(who: AccountId) -> RuntimeOrigin {
    RuntimeOrigin::signed(who)
}

fn root() -> RuntimeOrigin {
    RuntimeOrigin::root()
}

fn free(who: AccountId) -> Balance {
    Balances::free_balance(who)
}

fn held(reason: HoldReason, who: AccountId) -> Balance {
    <Balances as InspectHold<AccountId>>::balance_on_hold(&RuntimeHoldReason::from(reason), &who)
}

fn commit_held(who: AccountId) -> Balance {
    held(HoldReason::CommitDeposit, who)
}

fn bundle_held(who: AccountId) -> Balance {
    held(HoldReason::BundleDeposit, who)
}

fn pot() -> AccountId {
    Cacheon::pot_account()
}

fn generation() -> u32 {
    Arenas::<Test>::get(id(ARENA)).unwrap().generation
}

fn now() -> u64 {
    System::block_number()
}

fn advance(n: u64) {
    run_to_block(now() + n);
}

fn hash_of(bytes: &[u8]) -> ContentHash {
    cacheon_primitives::content_hash(bytes)
}

fn len_of(bytes: &[u8]) -> Balance {
    bytes.len() as Balance
}

fn raw(v: Vec<u8>) -> Bytes {
    Bytes::try_from(v).expect("fits MaxBundleBytes")
}

/// Encodes files as given (no sorting, no checks): lets tests build non-canonical bundles.
fn files(list: &[(&[u8], &[u8])]) -> Bytes {
    let v: Vec<cacheon_primitives::BundleFile> = list
        .iter()
        .map(|(p, d)| cacheon_primitives::BundleFile {
            path: p.to_vec(),
            data: d.to_vec(),
        })
        .collect();
    raw(v.encode())
}

fn commit_in(miner: AccountId, arena: &[u8], target: &[u8], bytes: &[u8]) -> Commitment {
    let c = cacheon_primitives::commitment(&miner, arena, target, &hash_of(bytes), &SALT);
    assert_ok!(Cacheon::commit(signed(miner), c));
    c
}

fn commit(miner: AccountId, target: &[u8], bytes: &[u8]) -> Commitment {
    commit_in(miner, ARENA, target, bytes)
}

fn reveal(miner: AccountId, target: &[u8], bytes: &Bytes) -> DispatchResult {
    Cacheon::reveal(signed(miner), id(ARENA), id(target), SALT, bytes.clone())
}

/// Commits every item, waits `RevealDelay`, reveals them in order; returns their ids.
fn submit_many(items: &[(AccountId, &[u8], &str)]) -> Vec<ProposalId> {
    for (miner, target, tag) in items {
        commit(*miner, target, &bundle(tag));
    }
    advance(REVEAL_DELAY);
    items
        .iter()
        .map(|(miner, target, tag)| {
            let next = NextProposalId::<Test>::get();
            assert_ok!(reveal(*miner, target, &bundle(tag)));
            next
        })
        .collect()
}

fn att(verdict: Verdict, generation: u32, evidence: u8, attempt: u8) -> Attestation {
    Attestation {
        verdict,
        incumbent_generation: generation,
        evidence_digest: [evidence; 32],
        attempt_digest: [attempt; 32],
    }
}

fn fail(reason: FailReason, seed: u8) -> Attestation {
    attestation(Verdict::Fail { reason }, seed)
}

fn no_decision(reason: NoDecisionReason, seed: u8) -> Attestation {
    attestation(Verdict::NoDecision { reason }, seed)
}

fn lease_of(p: ProposalId) -> LeaseOf<Test> {
    match status(p) {
        ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => lease,
        s => panic!("proposal {p} is not leased: {s:?}"),
    }
}

fn primary_of(p: ProposalId) -> RecordedPass<AccountId> {
    match status(p) {
        ProposalStatus::ReproductionQueued { primary }
        | ProposalStatus::Reproduction { primary, .. } => primary,
        s => panic!("proposal {p} has no primary pass: {s:?}"),
    }
}

fn queue() -> Vec<ProposalId> {
    Queue::<Test>::get(id(ARENA)).into_inner()
}

/// Primary PASS by V1 (seed 1) only.
fn primary_pass(p: ProposalId, speedup_ppm: u32) {
    assert_ok!(Cacheon::claim(signed(V1), p));
    assert_ok!(Cacheon::attest(signed(V1), p, pass(speedup_ppm, 1)));
}

fn weights(v: Vec<(AccountId, u32)>) -> WeightVectorOf<Test> {
    BoundedVec::truncate_from(v)
}

fn ev(e: CEvent) -> RuntimeEvent {
    e.into()
}

/// The original example: the whole happy path in one test.
#[test]
fn happy_path_crowns_with_the_lower_speedup() {
    ExtBuilder::default().build_and_execute(|| {
        let p = submit(ALICE, SILU, "fast");
        assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V1), p));
        assert_ok!(Cacheon::attest(
            RuntimeOrigin::signed(V1),
            p,
            pass(1_050_000, 1)
        ));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V2), p));
        assert_ok!(Cacheon::attest(
            RuntimeOrigin::signed(V2),
            p,
            pass(1_030_000, 2)
        ));
        assert!(matches!(
            status(p),
            ProposalStatus::Crowned {
                speedup_ppm: 1_030_000,
                ..
            }
        ));
        assert_eq!(Arenas::<Test>::get(id(ARENA)).unwrap().generation, 1);
        assert_eq!(Claims::<Test>::get(p).unwrap().speedup_ppm, 1_030_000);
        assert_eq!(
            Incumbents::<Test>::get(id(ARENA), id(SILU))
                .unwrap()
                .proposal,
            p
        );
    });
}

// ---- Configuration (Root) ----

mod config {
    use super::*;

    #[test]
    fn genesis_builds_catalog_arena_and_validators() {
        ExtBuilder::default().build_and_execute(|| {
            assert_eq!(Targets::<Test>::count(), 4);
            assert_eq!(Arenas::<Test>::count(), 1);
            let info = Arenas::<Test>::get(id(ARENA)).unwrap();
            assert_eq!(info.generation, 0);
            assert_eq!(info.validators, 3);
            assert_eq!(info.config, arena_config(2));
            for v in [V1, V2, V3] {
                assert!(Validators::<Test>::contains_key(id(ARENA), v));
            }
            assert_eq!(Emissions::<Test>::get(), Some(emissions(0)));
            assert_eq!(Targets::<Test>::get(id(ROPE_DECODE)), Some(atomic_target()));
        });
    }

    #[test]
    fn set_target_adds_and_updates() {
        ExtBuilder::default().build_and_execute(|| {
            let norm = slot_target(b"norm.rms");
            assert_ok!(Cacheon::set_target(root(), norm.clone()));
            assert_eq!(Targets::<Test>::get(id(b"norm.rms")), Some(norm.clone()));
            assert_eq!(Targets::<Test>::count(), 5);
            System::assert_last_event(ev(CEvent::TargetSet {
                target: id(b"norm.rms"),
                kind: TargetKind::Slot,
                status: Status::Active,
            }));

            // An update keeps the count and replaces the spec.
            let mut paused = norm;
            paused.status = Status::Paused;
            paused.allowed_features = BoundedVec::truncate_from(vec![id(b"avx2")]);
            assert_ok!(Cacheon::set_target(root(), paused.clone()));
            assert_eq!(Targets::<Test>::get(id(b"norm.rms")), Some(paused));
            assert_eq!(Targets::<Test>::count(), 5);
            System::assert_last_event(ev(CEvent::TargetSet {
                target: id(b"norm.rms"),
                kind: TargetKind::Slot,
                status: Status::Paused,
            }));

            // A second atomic target over SILU and ROPE.
            let atomic = TargetSpec {
                id: id(b"fused.silu_rope"),
                kind: TargetKind::Atomic,
                members: BoundedVec::truncate_from(vec![id(SILU), id(ROPE)]),
                displaces: BoundedVec::truncate_from(vec![id(SILU), id(ROPE)]),
                allowed_features: BoundedVec::new(),
                status: Status::Active,
            };
            assert_ok!(Cacheon::set_target(root(), atomic));
            System::assert_last_event(ev(CEvent::TargetSet {
                target: id(b"fused.silu_rope"),
                kind: TargetKind::Atomic,
                status: Status::Active,
            }));
        });
    }

    #[test]
    fn root_only_calls_refuse_signed_origins() {
        ExtBuilder::default().build_and_execute(|| {
            for who in [ALICE, V1] {
                assert_noop!(
                    Cacheon::set_target(signed(who), slot_target(b"norm.rms")),
                    DispatchError::BadOrigin
                );
                assert_noop!(
                    Cacheon::set_arena(signed(who), arena_config(1)),
                    DispatchError::BadOrigin
                );
                assert_noop!(
                    Cacheon::add_validator(signed(who), id(ARENA), OUTSIDER),
                    DispatchError::BadOrigin
                );
                assert_noop!(
                    Cacheon::remove_validator(signed(who), id(ARENA), V1),
                    DispatchError::BadOrigin
                );
                assert_noop!(
                    Cacheon::set_emissions(signed(who), emissions(5)),
                    DispatchError::BadOrigin
                );
            }
            assert_noop!(
                Cacheon::set_target(RuntimeOrigin::none(), slot_target(b"norm.rms")),
                DispatchError::BadOrigin
            );
        });
    }

    #[test]
    fn singleton_members_must_be_its_own_id() {
        ExtBuilder::default().build_and_execute(|| {
            let mut spec = slot_target(b"norm.rms");
            spec.members = BoundedVec::truncate_from(vec![id(SILU)]);
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::SingletonMembers
            );
            spec.members = BoundedVec::new();
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::SingletonMembers
            );
            spec.members = BoundedVec::truncate_from(vec![id(b"norm.rms"), id(b"norm.rms")]);
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::SingletonMembers
            );
            spec.members = BoundedVec::truncate_from(vec![id(b"norm.rms"), id(SILU)]);
            assert_noop!(
                Cacheon::set_target(root(), spec),
                Error::<Test>::SingletonMembers
            );
        });
    }

    #[test]
    fn atomic_needs_two_distinct_members() {
        ExtBuilder::default().build_and_execute(|| {
            let mut spec = atomic_target();
            spec.id = id(b"fused.x");
            spec.members = BoundedVec::truncate_from(vec![id(ROPE)]);
            spec.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::AtomicMembers
            );
            spec.members = BoundedVec::truncate_from(vec![id(ROPE), id(ROPE)]);
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::AtomicMembers
            );
            spec.members = BoundedVec::new();
            spec.displaces = BoundedVec::new();
            assert_noop!(
                Cacheon::set_target(root(), spec),
                Error::<Test>::AtomicMembers
            );
        });
    }

    #[test]
    fn atomic_must_displace_its_members() {
        ExtBuilder::default().build_and_execute(|| {
            let mut spec = atomic_target();
            spec.id = id(b"fused.x");
            spec.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::AtomicMustDisplaceMembers
            );
            spec.displaces = BoundedVec::new();
            assert_noop!(
                Cacheon::set_target(root(), spec.clone()),
                Error::<Test>::AtomicMustDisplaceMembers
            );
            // Displacing more than its members is fine.
            spec.displaces = BoundedVec::truncate_from(vec![id(ROPE), id(DECODE), id(SILU)]);
            assert_ok!(Cacheon::set_target(root(), spec));
        });
    }

    #[test]
    fn unknown_displaced_target_is_refused() {
        ExtBuilder::default().build_and_execute(|| {
            // An atomic target whose member slot has no singleton target in the catalog.
            let mut spec = atomic_target();
            spec.id = id(b"fused.x");
            spec.members = BoundedVec::truncate_from(vec![id(ROPE), id(b"norm.rms")]);
            spec.displaces = BoundedVec::truncate_from(vec![id(ROPE), id(b"norm.rms")]);
            assert_noop!(
                Cacheon::set_target(root(), spec),
                Error::<Test>::UnknownDisplaced
            );
            // A singleton that displaces an unknown target.
            let mut single = slot_target(b"norm.rms");
            single.displaces = BoundedVec::truncate_from(vec![id(b"nothing.here")]);
            assert_noop!(
                Cacheon::set_target(root(), single.clone()),
                Error::<Test>::UnknownDisplaced
            );
            // ...or itself.
            single.displaces = BoundedVec::truncate_from(vec![id(b"norm.rms")]);
            assert_noop!(
                Cacheon::set_target(root(), single),
                Error::<Test>::UnknownDisplaced
            );
        });
    }

    #[test]
    fn displacement_cycles_are_refused() {
        ExtBuilder::default().build_and_execute(|| {
            // Two-cycle: ROPE_DECODE displaces ROPE; ROPE may not displace ROPE_DECODE.
            let mut rope = slot_target(ROPE);
            rope.displaces = BoundedVec::truncate_from(vec![id(ROPE_DECODE)]);
            assert_noop!(
                Cacheon::set_target(root(), rope),
                Error::<Test>::DisplacementCycle
            );

            // Three-cycle through updates: SILU → ROPE_DECODE → ROPE, then ROPE → SILU.
            let mut silu = slot_target(SILU);
            silu.displaces = BoundedVec::truncate_from(vec![id(ROPE_DECODE)]);
            assert_ok!(Cacheon::set_target(root(), silu));
            let mut rope = slot_target(ROPE);
            rope.displaces = BoundedVec::truncate_from(vec![id(SILU)]);
            assert_noop!(
                Cacheon::set_target(root(), rope),
                Error::<Test>::DisplacementCycle
            );

            // A DAG edge that closes no cycle is fine: DECODE → ROPE.
            let mut decode = slot_target(DECODE);
            decode.displaces = BoundedVec::truncate_from(vec![id(ROPE)]);
            assert_ok!(Cacheon::set_target(root(), decode));
            // ...and then ROPE → DECODE would close ROPE → DECODE → ROPE.
            let mut rope = slot_target(ROPE);
            rope.displaces = BoundedVec::truncate_from(vec![id(DECODE)]);
            assert_noop!(
                Cacheon::set_target(root(), rope),
                Error::<Test>::DisplacementCycle
            );
        });
    }

    #[test]
    fn invalid_ids_are_refused() {
        ExtBuilder::default().build_and_execute(|| {
            for bad in [&b"Norm"[..], b"norm rms", b".norm", b"norm/rms"] {
                let spec = TargetSpec {
                    id: id(bad),
                    kind: TargetKind::Slot,
                    members: BoundedVec::truncate_from(vec![id(bad)]),
                    displaces: BoundedVec::new(),
                    allowed_features: BoundedVec::new(),
                    status: Status::Active,
                };
                assert_noop!(Cacheon::set_target(root(), spec), Error::<Test>::InvalidId);
            }
            assert_noop!(
                Cacheon::set_target(
                    root(),
                    TargetSpec {
                        id: Id::default(),
                        ..slot_target(b"x")
                    }
                ),
                Error::<Test>::InvalidId
            );
            let mut spec = slot_target(b"norm.rms");
            spec.allowed_features = BoundedVec::truncate_from(vec![id(b"Tensor Cores")]);
            assert_noop!(Cacheon::set_target(root(), spec), Error::<Test>::InvalidId);
            let mut spec = atomic_target();
            spec.id = id(b"fused.x");
            spec.members = BoundedVec::truncate_from(vec![id(ROPE), id(b"BAD")]);
            assert_noop!(Cacheon::set_target(root(), spec), Error::<Test>::InvalidId);

            let mut arena = arena_config(2);
            arena.id = id(b"GPU-H200");
            assert_noop!(Cacheon::set_arena(root(), arena), Error::<Test>::InvalidId);
            let mut arena = arena_config(2);
            arena.id = id(b"gpu-h200");
            arena.hardware = id(b"SM 90");
            assert_noop!(Cacheon::set_arena(root(), arena), Error::<Test>::InvalidId);
        });
    }

    #[test]
    fn too_many_targets() {
        ExtBuilder::default().build_and_execute(|| {
            // MaxTargets = 16; the genesis catalog has 4.
            for i in 0..12 {
                assert_ok!(Cacheon::set_target(
                    root(),
                    slot_target(format!("extra.t{i}").as_bytes())
                ));
            }
            assert_eq!(Targets::<Test>::count(), 16);
            assert_noop!(
                Cacheon::set_target(root(), slot_target(b"one.more")),
                Error::<Test>::TooManyTargets
            );
            // Updates of existing targets still work when the catalog is full.
            let mut silu = slot_target(SILU);
            silu.status = Status::Paused;
            assert_ok!(Cacheon::set_target(root(), silu));
            assert_eq!(Targets::<Test>::count(), 16);
        });
    }

    #[test]
    fn set_arena_adds_and_updates_keeping_generation_and_validators() {
        ExtBuilder::default().build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            crown_with(p, 1_050_000);
            assert_eq!(generation(), 1);

            let mut cfg = arena_config(2);
            cfg.policy.min_margin_ppm = 50_000;
            cfg.policy.lease_blocks = 9;
            assert_ok!(Cacheon::set_arena(root(), cfg.clone()));
            System::assert_last_event(ev(CEvent::ArenaSet {
                arena: id(ARENA),
                status: Status::Active,
            }));
            let info = Arenas::<Test>::get(id(ARENA)).unwrap();
            assert_eq!(info.config, cfg);
            assert_eq!(info.generation, 1);
            assert_eq!(info.validators, 3);
            assert_eq!(Arenas::<Test>::count(), 1);

            let mut gpu = arena_config(2);
            gpu.id = id(b"h200-llama8b");
            gpu.backend = Backend::Cuda;
            gpu.hardware = id(b"sm90");
            gpu.status = Status::Paused;
            assert_ok!(Cacheon::set_arena(root(), gpu));
            System::assert_last_event(ev(CEvent::ArenaSet {
                arena: id(b"h200-llama8b"),
                status: Status::Paused,
            }));
            let info = Arenas::<Test>::get(id(b"h200-llama8b")).unwrap();
            assert_eq!((info.generation, info.validators), (0, 0));
            assert_eq!(Arenas::<Test>::count(), 2);
        });
    }

    #[test]
    fn arena_with_unknown_target_is_refused() {
        ExtBuilder::default().build_and_execute(|| {
            let mut cfg = arena_config(2);
            cfg.id = id(b"gpu-a");
            cfg.targets = BoundedVec::truncate_from(vec![id(SILU), id(b"norm.rms")]);
            assert_noop!(
                Cacheon::set_arena(root(), cfg),
                Error::<Test>::ArenaTargetUnknown
            );
        });
    }

    #[test]
    fn invalid_policies_are_refused() {
        ExtBuilder::default().build_and_execute(|| {
            let bad: Vec<fn(&mut ArenaPolicy<u64>)> = vec![
                |p| p.lease_blocks = 0,
                |p| p.max_attempts = 0,
                |p| p.required_distinct_validators = 0,
                |p| p.required_distinct_validators = 3,
                |p| p.min_margin_ppm = u32::MAX - PPM_ONE,
                |p| p.min_margin_ppm = u32::MAX,
            ];
            for change in bad {
                let mut cfg = arena_config(2);
                change(&mut cfg.policy);
                assert_noop!(
                    Cacheon::set_arena(root(), cfg),
                    Error::<Test>::InvalidPolicy
                );
            }
            // The edges of the valid range are accepted.
            let mut cfg = arena_config(1);
            cfg.policy.min_margin_ppm = u32::MAX - PPM_ONE - 1;
            cfg.policy.lease_blocks = 1;
            cfg.policy.max_attempts = 1;
            assert_ok!(Cacheon::set_arena(root(), cfg));
        });
    }

    #[test]
    fn too_many_arenas() {
        ExtBuilder::default().build_and_execute(|| {
            // MaxArenas = 4; genesis has 1.
            for name in [&b"arena-b"[..], b"arena-c", b"arena-d"] {
                let mut cfg = arena_config(2);
                cfg.id = id(name);
                assert_ok!(Cacheon::set_arena(root(), cfg));
            }
            let mut cfg = arena_config(2);
            cfg.id = id(b"arena-e");
            assert_noop!(
                Cacheon::set_arena(root(), cfg),
                Error::<Test>::TooManyArenas
            );
            // Updating an existing arena is still possible.
            assert_ok!(Cacheon::set_arena(root(), arena_config(1)));
        });
    }

    #[test]
    fn add_and_remove_validator() {
        ExtBuilder::default().build_and_execute(|| {
            assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER));
            System::assert_last_event(ev(CEvent::ValidatorAdded {
                arena: id(ARENA),
                validator: OUTSIDER,
            }));
            assert!(Validators::<Test>::contains_key(id(ARENA), OUTSIDER));
            assert_eq!(Arenas::<Test>::get(id(ARENA)).unwrap().validators, 4);

            assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V1));
            System::assert_last_event(ev(CEvent::ValidatorRemoved {
                arena: id(ARENA),
                validator: V1,
            }));
            assert!(!Validators::<Test>::contains_key(id(ARENA), V1));
            assert_eq!(Arenas::<Test>::get(id(ARENA)).unwrap().validators, 3);

            // A removed validator can no longer claim.
            let p = submit(ALICE, SILU, "a");
            assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::NotValidator);
            assert_ok!(Cacheon::claim(signed(OUTSIDER), p));
        });
    }

    #[test]
    fn validator_errors() {
        ExtBuilder::default().build_and_execute(|| {
            assert_noop!(
                Cacheon::add_validator(root(), id(ARENA), V1),
                Error::<Test>::AlreadyValidator
            );
            assert_noop!(
                Cacheon::add_validator(root(), id(b"no-arena"), V1),
                Error::<Test>::UnknownArena
            );
            assert_noop!(
                Cacheon::remove_validator(root(), id(b"no-arena"), V1),
                Error::<Test>::UnknownArena
            );
            assert_noop!(
                Cacheon::remove_validator(root(), id(ARENA), OUTSIDER),
                Error::<Test>::NotValidator
            );
            // MaxValidators = 4; three at genesis.
            assert_ok!(Cacheon::add_validator(root(), id(ARENA), OUTSIDER));
            assert_noop!(
                Cacheon::add_validator(root(), id(ARENA), CAROL),
                Error::<Test>::TooManyValidators
            );
            // Removing one makes room again.
            assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V3));
            assert_noop!(
                Cacheon::remove_validator(root(), id(ARENA), V3),
                Error::<Test>::NotValidator
            );
            assert_ok!(Cacheon::add_validator(root(), id(ARENA), CAROL));
            assert_eq!(Arenas::<Test>::get(id(ARENA)).unwrap().validators, 4);
        });
    }

    #[test]
    fn set_emissions_success_and_invalid() {
        ExtBuilder::default().build_and_execute(|| {
            let policy = EmissionsPolicy {
                half_life_blocks: 50,
                epoch_blocks: 7,
                emission_per_epoch: 1_234,
                bootstrap_account: CAROL,
            };
            assert_ok!(Cacheon::set_emissions(root(), policy.clone()));
            System::assert_last_event(ev(CEvent::EmissionsSet {
                epoch_blocks: 7,
                emission_per_epoch: 1_234,
            }));
            assert_eq!(Emissions::<Test>::get(), Some(policy.clone()));

            let mut bad = policy.clone();
            bad.epoch_blocks = 0;
            assert_noop!(
                Cacheon::set_emissions(root(), bad),
                Error::<Test>::InvalidEmissions
            );
            let mut bad = policy;
            bad.half_life_blocks = 0;
            assert_noop!(
                Cacheon::set_emissions(root(), bad),
                Error::<Test>::InvalidEmissions
            );

            // The new epoch length drives the hook: block 7 closes epoch 1 for CAROL.
            run_to_block(7);
            assert_eq!(
                Weights::<Test>::get().into_inner(),
                vec![(CAROL, 1_000_000)]
            );
            assert_eq!(WeightsEpoch::<Test>::get(), Some(1));
            assert_eq!(free(CAROL), INITIAL_BALANCE + 1_234);
        });
    }
}

// ---- Miners: commit, reveal, withdraw ----

mod commit_reveal {
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
            assert_eq!(Commits::<Test>::get(ALICE, c), Some(1));
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
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE - l * BYTE_DEPOSIT);
            assert_eq!(free(pot()), pot_before + EVAL_FEE);
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
                }
            );
            let stored = Bundles::<Test>::get(hash_of(&bytes)).unwrap();
            assert_eq!(stored.bytes, bytes);
            assert_eq!(stored.refs, 1);
            assert_eq!(
                FirstRevealer::<Test>::get(hash_of(&bytes)),
                Some((ALICE, 0))
            );
            assert_eq!(RevealsInEpoch::<Test>::get(ALICE), (0, 1));
            // A second reveal of the spent commitment is refused.
            assert_noop!(
                reveal(ALICE, SILU, &bytes),
                Error::<Test>::UnknownCommitment
            );
        });
    }

    #[test]
    fn reveal_window_boundaries() {
        ExtBuilder::default().build_and_execute(|| {
            // Committed at block 1: valid from block 1 + REVEAL_DELAY to 1 + REVEAL_WINDOW.
            let early = bundle("early");
            let late = bundle("late");
            commit(ALICE, SILU, &early);
            commit(ALICE, ROPE, &late);
            advance(REVEAL_DELAY - 1);
            assert_noop!(reveal(ALICE, SILU, &early), Error::<Test>::RevealTooEarly);
            advance(1);
            assert_ok!(reveal(ALICE, SILU, &early));

            run_to_block(1 + REVEAL_WINDOW + 1);
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
            advance(REVEAL_WINDOW);
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
                FirstRevealer::<Test>::get(hash_of(&bytes)),
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
            assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap().refs, 2);
            assert_eq!(bundle_held(ALICE), 2 * l);
            assert_eq!(free(ALICE), INITIAL_BALANCE - 2 * EVAL_FEE - 2 * l);
            assert_eq!(
                FirstRevealer::<Test>::get(hash_of(&bytes)).unwrap().0,
                ALICE
            );
            assert_eq!(queue(), vec![p0, p1]);

            assert_ok!(Cacheon::withdraw(signed(ALICE), p0));
            assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap().refs, 1);
            assert_eq!(bundle_held(ALICE), l);
            assert_ok!(Cacheon::withdraw(signed(ALICE), p1));
            assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
            assert_eq!(bundle_held(ALICE), 0);
        });
    }

    /// Re-revealing the same bytes (same miner) keeps `FirstRevealer` pointing at the first
    /// proposal: it names the original for copy detection.
    #[test]
    fn first_revealer_keeps_the_first_proposal_on_a_repeat_reveal() {
        ExtBuilder::default().build_and_execute(|| {
            let bytes = bundle("mine");
            let p0 = submit(ALICE, SILU, "mine");
            let _p1 = submit(ALICE, SILU, "mine");
            assert_eq!(
                FirstRevealer::<Test>::get(hash_of(&bytes)),
                Some((ALICE, p0))
            );
        });
    }

    #[test]
    fn reveal_cap_per_epoch_resets_next_epoch() {
        ExtBuilder::default().build_and_execute(|| {
            MaxRevealsPerEpoch::set(1);
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
            assert_noop!(
                reveal(ALICE, SILU, &bundle("b")),
                Error::<Test>::RevealCapReached
            );
            // Epoch 1 starts at EPOCH_BLOCKS: the count starts again.
            run_to_block(EPOCH_BLOCKS);
            assert_eq!(Cacheon::current_epoch(), 1);
            assert_ok!(reveal(ALICE, SILU, &bundle("b")));
            assert_eq!(RevealsInEpoch::<Test>::get(ALICE), (1, 1));
            MaxRevealsPerEpoch::set(16);
        });
    }

    #[test]
    fn queue_is_bounded() {
        ExtBuilder::default().build_and_execute(|| {
            // MAX_QUEUE = 8: four from ALICE, four from BOB, then CAROL finds it full.
            let tags = ["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7"];
            for (i, tag) in tags.iter().enumerate() {
                commit(if i < 4 { ALICE } else { BOB }, SILU, &bundle(tag));
            }
            commit(CAROL, SILU, &bundle("q8"));
            advance(REVEAL_DELAY);
            for (i, tag) in tags.iter().enumerate() {
                assert_ok!(reveal(if i < 4 { ALICE } else { BOB }, SILU, &bundle(tag)));
            }
            assert_eq!(queue().len() as u32, MAX_QUEUE);
            assert_noop!(reveal(CAROL, SILU, &bundle("q8")), Error::<Test>::QueueFull);
            // A withdrawal frees a place.
            assert_ok!(Cacheon::withdraw(signed(ALICE), 0));
            assert_ok!(reveal(CAROL, SILU, &bundle("q8")));
            assert_eq!(queue(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
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
            let e =
                cacheon_primitives::decode_bundle(&too_big, &Cacheon::bundle_limits()).unwrap_err();
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
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
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
            assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
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
}

// ---- Leases ----

mod leases {
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
            assert_ok!(Cacheon::attest(signed(V1), p, fail(FailReason::Build, 1)));
            assert_noop!(Cacheon::claim(signed(V2), p), Error::<Test>::NotClaimable);
            // A validator of another arena is not a validator of this one.
            let mut gpu = arena_config(2);
            gpu.id = id(b"gpu-b");
            assert_ok!(Cacheon::set_arena(root(), gpu));
            assert_ok!(Cacheon::add_validator(root(), id(b"gpu-b"), OUTSIDER));
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
            assert_ok!(Cacheon::attest(signed(V1), p0, pass(1_050_000, 1)));
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
            assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::SameValidator);
            assert_ok!(Cacheon::claim(signed(V3), p));
            assert_eq!(
                status(p),
                ProposalStatus::Reproduction {
                    primary: primary_of(p),
                    lease: Lease {
                        validator: V3,
                        generation: 0,
                        expires_at: now() + LEASE_BLOCKS
                    },
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
            for attempt in 1..MAX_ATTEMPTS {
                assert_ok!(Cacheon::claim(signed(V1), p));
                let expiry = lease_of(p).expires_at;
                run_to_block(expiry - 1);
                assert!(matches!(status(p), ProposalStatus::Primary { .. }));
                run_to_block(expiry);
                System::assert_has_event(ev(CEvent::LeaseExpired {
                    proposal: p,
                    validator: V1,
                    attempts: attempt,
                }));
                assert_eq!(status(p), ProposalStatus::Queued);
                assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, attempt);
                assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
                assert_eq!(bundle_held(ALICE), len_of(&bytes));
            }
            // The last attempt.
            assert_ok!(Cacheon::claim(signed(V2), p));
            let expiry = lease_of(p).expires_at;
            run_to_block(expiry);
            System::assert_has_event(ev(CEvent::Expired {
                proposal: p,
                attempts: MAX_ATTEMPTS,
            }));
            System::assert_has_event(ev(CEvent::LeaseExpired {
                proposal: p,
                validator: V2,
                attempts: MAX_ATTEMPTS,
            }));
            assert_eq!(status(p), ProposalStatus::Expired);
            assert!(queue().is_empty());
            assert_eq!(bundle_held(ALICE), 0);
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
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
            assert_ok!(Cacheon::claim(signed(V2), p));
            run_to_block(lease_of(p).expires_at);
            System::assert_has_event(ev(CEvent::LeaseExpired {
                proposal: p,
                validator: V2,
                attempts: 1,
            }));
            assert_eq!(status(p), ProposalStatus::ReproductionQueued { primary });
            // Another validator reproduces and crowns.
            assert_ok!(Cacheon::claim(signed(V3), p));
            assert_ok!(Cacheon::attest(signed(V3), p, pass(1_040_000, 3)));
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
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );

            // A lease whose deadline block has come but whose hook has not run (defence in
            // depth: the hook normally runs first).
            assert_ok!(Cacheon::claim(signed(V1), p));
            let expiry = lease_of(p).expires_at;
            System::set_block_number(expiry);
            assert_noop!(
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::LeaseExpired
            );
            // One block earlier it would have been accepted.
            System::set_block_number(expiry - 1);
            assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
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
            // MaxLeasesPerBlock = 4 leases may end in the same block.
            for p in &ids[..4] {
                assert_ok!(Cacheon::claim(signed(V1), *p));
            }
            let expiry = now() + LEASE_BLOCKS;
            assert_eq!(LeaseDeadlines::<Test>::get(expiry).len(), 4);
            assert_noop!(
                Cacheon::claim(signed(V1), ids[4]),
                Error::<Test>::LeaseScheduleFull
            );
            advance(1);
            assert_ok!(Cacheon::claim(signed(V1), ids[4]));
            assert_eq!(
                LeaseDeadlines::<Test>::get(expiry + 1).into_inner(),
                vec![ids[4]]
            );
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
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::NotValidator
            );
            assert_noop!(
                Cacheon::attest(signed(V1), p, fail(FailReason::Cheating, 1)),
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
}

// ---- Attestations ----

mod attest {
    use super::*;

    #[test]
    fn primary_pass_is_recorded() {
        ExtBuilder::default().build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            assert_ok!(Cacheon::claim(signed(V1), p));
            let expiry = lease_of(p).expires_at;
            assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
            System::assert_last_event(ev(CEvent::PassRecorded {
                proposal: p,
                validator: V1,
                speedup_ppm: 1_050_000,
            }));
            assert_eq!(
                status(p),
                ProposalStatus::ReproductionQueued {
                    primary: RecordedPass {
                        validator: V1,
                        speedup_ppm: 1_050_000,
                        generation: 0,
                        evidence_digest: [1; 32],
                        attempt_digest: [101; 32],
                    }
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
                Cacheon::attest(signed(V1), 99, pass(1_050_000, 1)),
                Error::<Test>::UnknownProposal
            );
            let p = submit(ALICE, SILU, "a");
            // Not leased.
            assert_noop!(
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );
            assert_ok!(Cacheon::claim(signed(V1), p));
            // Leased by somebody else.
            assert_noop!(
                Cacheon::attest(signed(V2), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );
            assert_noop!(
                Cacheon::attest(signed(ALICE), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );
            assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
            // Replay of the same attestation on the spent lease.
            assert_noop!(
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );
            // Reproduction lease: replays after the crown are refused as well.
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(signed(V2), p, pass(1_040_000, 2)));
            assert_noop!(
                Cacheon::attest(signed(V2), p, pass(1_040_000, 2)),
                Error::<Test>::NotLeaseHolder
            );
        });
    }

    #[test]
    fn replayed_fail_is_refused() {
        ExtBuilder::default().build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            assert_ok!(Cacheon::claim(signed(V1), p));
            assert_ok!(Cacheon::attest(signed(V1), p, fail(FailReason::Abi, 1)));
            assert_noop!(
                Cacheon::attest(signed(V1), p, fail(FailReason::Abi, 1)),
                Error::<Test>::NotLeaseHolder
            );
            assert_noop!(
                Cacheon::attest(signed(V1), p, pass(1_050_000, 1)),
                Error::<Test>::NotLeaseHolder
            );
        });
    }

    #[test]
    fn pass_below_margin_is_refused() {
        ExtBuilder::default().build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            assert_ok!(Cacheon::claim(signed(V1), p));
            for below in [0, 900_000, PPM_ONE, PPM_ONE + MARGIN_PPM - 1] {
                assert_noop!(Cacheon::attest(signed(V1), p, pass(below, 1)), Error::<Test>::BelowMargin);
            }
            assert_ok!(Cacheon::attest(signed(V1), p, pass(PPM_ONE + MARGIN_PPM, 1)));
            // The reproduction must clear the margin too.
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_noop!(
                Cacheon::attest(signed(V2), p, pass(PPM_ONE + MARGIN_PPM - 1, 2)),
                Error::<Test>::BelowMargin
            );
            assert_ok!(Cacheon::attest(signed(V2), p, pass(PPM_ONE + MARGIN_PPM, 2)));
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
                    Cacheon::attest(
                        signed(V1),
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
                    Cacheon::attest(
                        signed(V1),
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
            assert_ok!(Cacheon::attest(
                signed(V1),
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
            // Primary: evidence [1; 32], attempt [101; 32].
            primary_pass(p, 1_050_000);
            assert_ok!(Cacheon::claim(signed(V2), p));
            let v = Verdict::Pass {
                speedup_ppm: 1_040_000,
            };
            assert_noop!(
                Cacheon::attest(signed(V2), p, att(v, 0, 1, 101)),
                Error::<Test>::DuplicateEvidence
            );
            assert_noop!(
                Cacheon::attest(signed(V2), p, att(v, 0, 7, 101)),
                Error::<Test>::DuplicateEvidence
            );
            assert_noop!(
                Cacheon::attest(signed(V2), p, att(v, 0, 1, 107)),
                Error::<Test>::DuplicateEvidence
            );
            assert_ok!(Cacheon::attest(signed(V2), p, att(v, 0, 7, 107)));
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
            assert_ok!(Cacheon::attest(
                signed(V1),
                p,
                fail(FailReason::Incorrect, 1)
            ));
            System::assert_last_event(ev(CEvent::Failed {
                proposal: p,
                validator: V1,
                reason: FailReason::Incorrect,
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
            assert!(queue().is_empty());
            assert!(!LeaseDeadlines::<Test>::contains_key(expiry));
            assert_eq!(bundle_held(ALICE), 0);
            // The fee stays in the pot.
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
            assert_eq!(free(pot()), pot_before);
            assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
            // The copy guard outlives the failure.
            assert_eq!(
                FirstRevealer::<Test>::get(hash_of(&bytes)),
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
            assert_ok!(Cacheon::attest(signed(V2), ids[1], fail(reason, 2)));
            System::assert_last_event(ev(CEvent::Failed {
                proposal: ids[1],
                validator: V2,
                reason,
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
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(
                signed(V2),
                p,
                fail(FailReason::BehaviourChanged, 2)
            ));
            let events = cacheon_events();
            let n = events.len();
            assert_eq!(
                events[n - 2],
                CEvent::AttestationsDisagreed {
                    proposal: p,
                    primary_validator: V1,
                    reproduction_validator: V2,
                    reason: FailReason::BehaviourChanged,
                }
            );
            assert_eq!(
                events[n - 1],
                CEvent::Failed {
                    proposal: p,
                    validator: V2,
                    reason: FailReason::BehaviourChanged
                }
            );
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
                assert_ok!(Cacheon::attest(signed(v), p, no_decision(reason, 1)));
                System::assert_last_event(ev(CEvent::NoDecisionRecorded {
                    proposal: p,
                    validator: v,
                    reason,
                    attempts,
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
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
            assert!(!Bundles::<Test>::contains_key(hash_of(&bytes)));
        });
    }

    #[test]
    fn reproduction_no_decision_keeps_the_primary_pass() {
        ExtBuilder::default().build_and_execute(|| {
            let p = submit(ALICE, SILU, "a");
            primary_pass(p, 1_050_000);
            let primary = primary_of(p);
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(
                signed(V2),
                p,
                no_decision(NoDecisionReason::Noise, 2)
            ));
            System::assert_last_event(ev(CEvent::NoDecisionRecorded {
                proposal: p,
                validator: V2,
                reason: NoDecisionReason::Noise,
                attempts: 1,
            }));
            assert_eq!(status(p), ProposalStatus::ReproductionQueued { primary });
            assert_eq!(Proposals::<Test>::get(p).unwrap().attempts, 1);
            // Still not for the primary's validator; V2 may try again.
            assert_noop!(Cacheon::claim(signed(V1), p), Error::<Test>::SameValidator);
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_ok!(Cacheon::attest(signed(V2), p, pass(1_060_000, 2)));
            // Crown speedup: the lower of the two PASSes.
            assert_eq!(
                status(p),
                ProposalStatus::Crowned {
                    at: now(),
                    speedup_ppm: 1_050_000
                }
            );
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
            assert_ok!(Cacheon::attest(signed(V2), p0, pass(1_040_000, 2)));
            assert_eq!(generation(), 1);
            // The helper would name generation 1: GenerationMismatch against the lease.
            assert_noop!(
                Cacheon::attest(signed(V1), p1, pass(1_050_000, 3)),
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
            assert_ok!(Cacheon::attest(signed(V1), p1, stale));
            System::assert_last_event(ev(CEvent::AttestationStale {
                proposal: p1,
                validator: V1,
                generation: 0,
                current: 1,
            }));
            assert_eq!(status(p1), ProposalStatus::Queued);
            assert_eq!(Proposals::<Test>::get(p1).unwrap().attempts, 0);
            assert!(!LeaseDeadlines::<Test>::contains_key(lease.expires_at));
            // Measured again against generation 1.
            assert_ok!(Cacheon::claim(signed(V1), p1));
            assert_eq!(lease_of(p1).generation, 1);
            assert_ok!(Cacheon::attest(signed(V1), p1, pass(1_050_000, 3)));
            assert_eq!(primary_of(p1).generation, 1);
        });
    }

    #[test]
    fn recorded_pass_is_dropped_when_another_proposal_is_crowned() {
        ExtBuilder::default().build_and_execute(|| {
            let ids = submit_many(&[(ALICE, SILU, "a"), (BOB, ROPE, "b")]);
            let (p0, p1) = (ids[0], ids[1]);
            primary_pass(p0, 1_050_000);
            assert_ok!(Cacheon::claim(signed(V1), p1));
            assert_ok!(Cacheon::attest(signed(V1), p1, pass(1_030_000, 3)));
            assert!(matches!(
                status(p1),
                ProposalStatus::ReproductionQueued { .. }
            ));
            assert_ok!(Cacheon::claim(signed(V2), p0));
            assert_ok!(Cacheon::attest(signed(V2), p0, pass(1_040_000, 2)));
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
                assert_ok!(Cacheon::claim(signed(V1), p));
                assert_ok!(Cacheon::attest(signed(V1), p, pass(1_050_000, 1)));
                System::assert_last_event(ev(CEvent::Crowned {
                    proposal: p,
                    miner: ALICE,
                    arena: id(ARENA),
                    target: id(SILU),
                    speedup_ppm: 1_050_000,
                    generation: 1,
                }));
                assert!(!cacheon_events()
                    .iter()
                    .any(|e| matches!(e, CEvent::PassRecorded { .. })));
                assert_eq!(
                    status(p),
                    ProposalStatus::Crowned {
                        at: now(),
                        speedup_ppm: 1_050_000
                    }
                );
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
}

// ---- Crowns ----

mod crown {
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
            }));
            assert_eq!(
                Claims::<Test>::get(p),
                Some(RewardClaim {
                    miner: ALICE,
                    arena: id(ARENA),
                    target: id(SILU),
                    speedup_ppm: 1_030_000,
                    since: reveal_block,
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
            assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap().refs, 1);
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
            assert_ok!(Cacheon::attest(signed(V2), ids[0], pass(1_020_000, 2)));
            assert_eq!(Claims::<Test>::get(ids[0]).unwrap().speedup_ppm, 1_020_000);
            // Primary lower.
            assert_ok!(Cacheon::claim(signed(V3), ids[1]));
            assert_ok!(Cacheon::attest(signed(V3), ids[1], pass(1_015_000, 3)));
            assert_ok!(Cacheon::claim(signed(V1), ids[1]));
            assert_ok!(Cacheon::attest(signed(V1), ids[1], pass(1_090_000, 1)));
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
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
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
            assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap().refs, 2);
            crown_with(p1, 1_060_000);
            System::assert_has_event(ev(CEvent::Retired {
                proposal: p0,
                cause: RetireCause::Superseded { by: p1 },
            }));
            // p1's crown still uses the bundle.
            assert_eq!(Bundles::<Test>::get(hash_of(&bytes)).unwrap().refs, 1);
            assert_eq!(bundle_held(ALICE), l);
            assert_eq!(free(ALICE), INITIAL_BALANCE - 2 * EVAL_FEE - l);
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
            assert_ok!(Cacheon::attest(signed(V1), p1, pass(1_050_000, 1)));
            assert_ok!(Cacheon::claim(signed(V2), p1));
            let before = status(p1);
            let expiry = lease_of(p1).expires_at;
            let balances: Vec<_> = [ALICE, BOB, pot()]
                .iter()
                .map(|a| (free(*a), bundle_held(*a), commit_held(*a)))
                .collect();
            let events = System::events().len();

            assert_noop!(
                Cacheon::attest(signed(V2), p1, pass(1_040_000, 2)),
                Error::<Test>::GenerationOverflow
            );

            assert_eq!(status(p1), before);
            assert!(matches!(before, ProposalStatus::Reproduction { .. }));
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
            };
            let max = <<Test as Config>::MaxClaims as Get<u32>>::get() as u64;
            for i in 0..max {
                Claims::<Test>::insert(1_000 + i, fake.clone());
            }
            primary_pass(p, 1_050_000);
            assert_ok!(Cacheon::claim(signed(V2), p));
            assert_noop!(
                Cacheon::attest(signed(V2), p, pass(1_040_000, 2)),
                Error::<Test>::TooManyClaims
            );
            // One fewer leaves room for exactly one more.
            Claims::<Test>::remove(1_000);
            assert_ok!(Cacheon::attest(signed(V2), p, pass(1_040_000, 2)));
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
            assert_ok!(Cacheon::attest(signed(V1), p1, pass(1_050_000, 3)));
            // Both reproductions leased at generation 0.
            assert_ok!(Cacheon::claim(signed(V2), p0));
            assert_ok!(Cacheon::claim(signed(V3), p1));
            // p0 crowns: generation 1. p1 is leased, so drop_stale_passes does not see it.
            assert_ok!(Cacheon::attest(signed(V2), p0, pass(1_040_000, 2)));
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
            assert_ok!(Cacheon::attest(signed(V2), p1, pass(1_040_000, 4)));
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
            assert_ok!(Cacheon::attest(signed(V2), p_rd, pass(1_090_000, 2)));

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
            assert_eq!(free(ALICE), INITIAL_BALANCE - EVAL_FEE);
            assert_eq!(bundle_held(CAROL), len_of(&bundle("silu")));
            assert!(!Bundles::<Test>::contains_key(hash_of(&bundle("rope"))));
            assert!(!Bundles::<Test>::contains_key(hash_of(&bundle("dec"))));
            // The dropped lease can no longer be attested, and its deadline passes silently.
            assert_noop!(
                Cacheon::attest(signed(V3), p_rope, pass(1_050_000, 3)),
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
}

// ---- Weights and emissions ----

mod weights {
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
                run_to_block(EPOCH_BLOCKS);
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
                run_to_block(EPOCH_BLOCKS);
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
                let ed =
                    <<Test as polkadot_sdk::pallet_balances::Config>::ExistentialDeposit as Get<
                        Balance,
                    >>::get();
                let pot_before = free(pot());
                run_to_block(EPOCH_BLOCKS);
                // The pot keeps its existential deposit.
                assert_eq!(free(BOOTSTRAP), pot_before - ed);
                assert_eq!(free(pot()), ed);
                System::assert_last_event(ev(CEvent::EmissionsPaid {
                    epoch: 1,
                    total: pot_before - ed,
                }));
                // The next epoch has nothing to pay.
                run_to_block(2 * EPOCH_BLOCKS);
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
}
