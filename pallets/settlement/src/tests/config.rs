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
                Cacheon::add_validator(signed(who), id(ARENA), OUTSIDER, OUTSIDER),
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
        // The edges of the valid range are accepted: the largest margin is the one a PASS
        // at the arena's speedup cap (at most the chain's) still clears.
        let mut cfg = arena_config(1);
        cfg.policy.min_margin_ppm = u32::MAX - PPM_ONE - 1;
        assert_noop!(
            Cacheon::set_arena(root(), cfg.clone()),
            Error::<Test>::SpeedupCapOutOfRange
        );
        cfg.policy.min_margin_ppm = MAX_SPEEDUP_PPM - PPM_ONE;
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
        assert_ok!(Cacheon::add_validator(
            root(),
            id(ARENA),
            OUTSIDER,
            OUTSIDER
        ));
        System::assert_last_event(ev(CEvent::ValidatorAdded {
            arena: id(ARENA),
            validator: OUTSIDER,
            operator: OUTSIDER,
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

fn endpoint(url: &str) -> Endpoint {
    url.as_bytes().to_vec().try_into().unwrap()
}

#[test]
fn validators_publish_and_withdraw_their_evidence_endpoints() {
    ExtBuilder::default().build_and_execute(|| {
        let url = endpoint("http://validator-1.example:9616/cacheon");
        assert_ok!(Cacheon::set_evidence_endpoint(signed(V1), url.clone()));
        System::assert_last_event(ev(CEvent::EvidenceEndpointSet {
            validator: V1,
            endpoint: url.clone(),
        }));
        assert_eq!(EvidenceEndpoints::<Test>::get(V1), Some(url));
        // Published again: replaced.
        let plain = endpoint("http://127.0.0.1:9616");
        assert_ok!(Cacheon::set_evidence_endpoint(signed(V1), plain.clone()));
        assert_eq!(EvidenceEndpoints::<Test>::get(V1), Some(plain));
        // An empty endpoint withdraws it.
        assert_ok!(Cacheon::set_evidence_endpoint(signed(V1), endpoint("")));
        System::assert_last_event(ev(CEvent::EvidenceEndpointCleared { validator: V1 }));
        assert_eq!(EvidenceEndpoints::<Test>::get(V1), None);
    });
}

#[test]
fn only_registered_keys_publish_well_formed_endpoints() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::set_evidence_endpoint(signed(OUTSIDER), endpoint("http://example.org")),
            Error::<Test>::NotValidator
        );
        // Short and minimal is fine.
        assert_ok!(Cacheon::set_evidence_endpoint(
            signed(V1),
            endpoint("http://a")
        ));
        for bad in [
            "ftp://example.org",
            "example.org:9616",
            "http://",
            "https://example.org",
            "http://example.org/?x=1",
            "http://example.org/#x",
            "http://example.org/%2e%2e",
            "http://user@example.org",
            "http://exa mple.org",
            "http://example.org/\n",
            "http://\u{e9}xample.org",
        ] {
            assert_noop!(
                Cacheon::set_evidence_endpoint(signed(V1), endpoint(bad)),
                Error::<Test>::BadEndpoint
            );
        }
        assert_noop!(
            Cacheon::set_evidence_endpoint(signed(V1), endpoint("http://\u{0}x")),
            Error::<Test>::BadEndpoint
        );
        // Longer than MAX_ENDPOINT_BYTES does not even decode into the call's argument.
        let long = vec![b'a'; MAX_ENDPOINT_BYTES as usize + 1];
        assert!(Endpoint::try_from(long).is_err());
    });
}

#[test]
fn a_key_leaving_its_last_arena_loses_its_endpoint() {
    ExtBuilder::default().build_and_execute(|| {
        let url = endpoint("http://127.0.0.1:9616");
        assert_ok!(Cacheon::set_evidence_endpoint(signed(V1), url));
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V1));
        assert_eq!(EvidenceEndpoints::<Test>::get(V1), None);
        assert_noop!(
            Cacheon::set_evidence_endpoint(signed(V1), endpoint("http://127.0.0.1:9617")),
            Error::<Test>::NotValidator
        );
    });
}

#[test]
fn validator_errors() {
    ExtBuilder::default().build_and_execute(|| {
        assert_noop!(
            Cacheon::add_validator(root(), id(ARENA), V1, V1),
            Error::<Test>::AlreadyValidator
        );
        assert_noop!(
            Cacheon::add_validator(root(), id(b"no-arena"), V1, V1),
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
        assert_ok!(Cacheon::add_validator(
            root(),
            id(ARENA),
            OUTSIDER,
            OUTSIDER
        ));
        assert_noop!(
            Cacheon::add_validator(root(), id(ARENA), CAROL, CAROL),
            Error::<Test>::TooManyValidators
        );
        // Removing one makes room again.
        assert_ok!(Cacheon::remove_validator(root(), id(ARENA), V3));
        assert_noop!(
            Cacheon::remove_validator(root(), id(ARENA), V3),
            Error::<Test>::NotValidator
        );
        assert_ok!(Cacheon::add_validator(root(), id(ARENA), CAROL, CAROL));
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
        let mut bad = policy.clone();
        bad.half_life_blocks = 0;
        assert_noop!(
            Cacheon::set_emissions(root(), bad),
            Error::<Test>::InvalidEmissions
        );
        // An epoch must outlast the payout of `MaxClaims` shares (64 here: one block).
        let mut bad = policy;
        bad.epoch_blocks = 1;
        assert_noop!(
            Cacheon::set_emissions(root(), bad),
            Error::<Test>::InvalidEmissions
        );

        // The new epoch length drives the hook: block 7 closes epoch 1 for CAROL, block 8
        // pays it.
        run_to_block(7);
        assert_eq!(
            Weights::<Test>::get().into_inner(),
            vec![(CAROL, 1_000_000)]
        );
        assert_eq!(WeightsEpoch::<Test>::get(), Some(1));
        assert_eq!(free(CAROL), INITIAL_BALANCE);
        run_to_block(8);
        assert_eq!(free(CAROL), INITIAL_BALANCE + 1_234);
    });
}
