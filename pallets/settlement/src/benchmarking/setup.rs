//! The benchmarks' setup: a catalog, an arena and funded accounts, bundles of a given size,
//! and the states each call's worst path starts from (a full queue, a waiting reproduction,
//! full lease deadlines).

use super::*;

pub(super) const ARENA: &[u8] = b"bench-arena";

pub(super) fn bid(s: &[u8]) -> Id {
    Id::try_from(s.to_vec()).expect("benchmark ids are short")
}

pub(super) fn slot(name: &[u8]) -> TargetSpec {
    TargetSpec {
        id: bid(name),
        kind: TargetKind::Slot,
        members: BoundedVec::truncate_from(vec![bid(name)]),
        displaces: BoundedVec::new(),
        allowed_features: BoundedVec::new(),
        status: Status::Active,
    }
}

pub(super) fn slot_names(m: u32) -> Vec<Vec<u8>> {
    (0..m)
        .map(|i| format!("bench.slot{i}").into_bytes())
        .collect()
}

/// Registers `m` singleton slots and an atomic target over them.
pub(super) fn catalog<T: Config>(m: u32) -> TargetId {
    let names = slot_names(m);
    for n in &names {
        Pallet::<T>::do_set_target(slot(n)).expect("slot target is valid");
    }
    let members: Vec<Id> = names.iter().map(|n| bid(n)).collect();
    let atomic = TargetSpec {
        id: bid(b"bench.atomic"),
        kind: TargetKind::Atomic,
        members: BoundedVec::truncate_from(members.clone()),
        displaces: BoundedVec::truncate_from(members),
        allowed_features: BoundedVec::new(),
        status: Status::Active,
    };
    Pallet::<T>::do_set_target(atomic).expect("atomic target is valid");
    bid(b"bench.atomic")
}

pub(super) fn arena_config<T: Config>(targets: Vec<Id>, required: u32) -> ArenaConfigOf<T> {
    ArenaConfig {
        id: bid(ARENA),
        backend: Backend::Cpu,
        hardware: bid(b"x86-64-v3"),
        model_digest: [1; 32],
        workload_digest: [2; 32],
        stock_digest: [3; 32],
        targets: BoundedVec::truncate_from(targets),
        policy: ArenaPolicy {
            min_margin_ppm: 10_000,
            max_noise_ppm: 20_000,
            noise_multiplier: 3,
            lease_blocks: 100u32.into(),
            max_attempts: 3,
            required_distinct_validators: required,
            max_speedup_ppm: T::MaxSpeedupPpm::get(),
        },
        status: Status::Active,
    }
}

/// A catalog of `m` slots plus their atomic target, an arena allowing them, two validators.
pub(super) fn arena<T: Config>(m: u32) -> (T::AccountId, T::AccountId) {
    let atomic = catalog::<T>(m);
    let mut targets: Vec<Id> = slot_names(m).iter().map(|n| bid(n)).collect();
    targets.push(atomic);
    Pallet::<T>::do_set_arena(arena_config::<T>(targets, 2)).expect("arena is valid");
    let v1: T::AccountId = account("validator", 1, 0);
    let v2: T::AccountId = account("validator", 2, 0);
    Pallet::<T>::do_add_validator(bid(ARENA), v1.clone(), v1.clone()).expect("new validator");
    Pallet::<T>::do_add_validator(bid(ARENA), v2.clone(), v2.clone()).expect("new validator");
    // Reveals hold an evaluation fee and verdicts are paid to existing operator accounts:
    // the paths that move it are part of every call's worst case.
    let fee = EvaluationFee {
        attempt_ms: 1_000,
        price_per_second: T::RevealFee::get(),
    };
    Pallet::<T>::do_set_evaluation_fee(bid(ARENA), fee).expect("the arena exists");
    for v in [&v1, &v2] {
        T::Currency::set_balance(
            v,
            T::Currency::minimum_balance().saturating_mul(10u32.into()),
        );
    }
    (v1, v2)
}

pub(super) fn funded<T: Config>(name: &'static str, index: u32) -> T::AccountId {
    let who: T::AccountId = account(name, index, 0);
    let bytes: BalanceOf<T> = T::MaxBundleBytes::get().into();
    // The reveal fee, and the evaluation fee `arena` quotes (two verdicts at the same price).
    let need = T::RevealFee::get()
        .saturating_mul(3u32.into())
        .saturating_add(T::CommitDeposit::get().saturating_mul(T::MaxPendingCommits::get().into()))
        .saturating_add(T::BundleByteDeposit::get().saturating_mul(bytes))
        .saturating_add(T::Currency::minimum_balance());
    T::Currency::set_balance(&who, need.saturating_mul(4u32.into()));
    who
}

/// A canonical bundle of at most `b` bytes (and at least ~100).
pub(super) fn bundle_bytes<T: Config>(b: u32, tag: u32) -> BoundedVec<u8, T::MaxBundleBytes> {
    let header = format!("/* {tag} */\n").into_bytes();
    let make = |fill: usize| {
        let mut data = header.clone();
        data.resize(header.len() + fill, b'x');
        let files = vec![
            BundleFile {
                path: "kernels/k.c".into(),
                data,
            },
            BundleFile {
                path: "manifest.toml".into(),
                data: b"abi = \"cacheon-slot-abi-v1\"\n".to_vec(),
            },
        ];
        canonical_bytes(
            files,
            &BundleLimits {
                max_bytes: T::MaxBundleBytes::get(),
                ..BundleLimits::DEFAULT
            },
        )
        .expect("benchmark bundle is canonical")
    };
    let overhead = make(0).len() as u32;
    let bytes = make(b.saturating_sub(overhead + 8) as usize);
    BoundedVec::try_from(bytes).expect("fits MaxBundleBytes")
}

/// Commits and reveals a bundle for `target`; returns the proposal id.
pub(super) fn reveal_one<T: Config>(
    miner: &T::AccountId,
    target: &[u8],
    b: u32,
    tag: u32,
) -> ProposalId {
    let bytes = bundle_bytes::<T>(b, tag);
    let salt = [7u8; 32];
    let c = cacheon_primitives::commitment(
        miner,
        ARENA,
        target,
        &cacheon_primitives::content_hash(&bytes),
        &salt,
    );
    Pallet::<T>::commit(RawOrigin::Signed(miner.clone()).into(), c).expect("commit works");
    let now = frame_system::Pallet::<T>::block_number();
    frame_system::Pallet::<T>::set_block_number(now.saturating_add(T::RevealDelay::get()));
    let id = NextProposalId::<T>::get();
    Pallet::<T>::reveal(
        RawOrigin::Signed(miner.clone()).into(),
        bid(ARENA),
        bid(target),
        salt,
        bytes,
    )
    .expect("reveal works");
    id
}

/// Crowns `id` directly in storage (entry, claim, status), as a finished crown would.
pub(super) fn crown_directly<T: Config>(id: ProposalId) {
    let mut p = Proposals::<T>::get(id).expect("proposal exists");
    Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
    Incumbents::<T>::insert(
        &p.arena,
        &p.target,
        IncumbentEntry {
            proposal: id,
            content_hash: p.content_hash,
        },
    );
    Claims::<T>::insert(
        id,
        RewardClaim {
            miner: p.miner.clone(),
            arena: p.arena.clone(),
            target: p.target.clone(),
            speedup_ppm: 1_100_000,
            since: p.reveal_block,
            evidence: BoundedVec::truncate_from(vec![[1; 32], [2; 32]]),
        },
    );
    p.status = ProposalStatus::Crowned {
        at: p.reveal_block,
        speedup_ppm: 1_100_000,
        passes: BoundedVec::new(),
    };
    Proposals::<T>::insert(id, p);
}

/// A status waiting for its reproduction after `validator`'s primary PASS at generation 0.
pub(super) fn waiting_for_reproduction<T: Config>(validator: &T::AccountId) -> StatusOf<T> {
    ProposalStatus::ReproductionQueued {
        primary: PrimaryPass::Open(primary_pass::<T>(validator)),
        until: frame_system::Pallet::<T>::block_number()
            .saturating_add(T::ReproductionTimeout::get()),
    }
}

/// `validator`'s primary PASS at generation 0 (its key is its own operator).
pub(super) fn primary_pass<T: Config>(validator: &T::AccountId) -> RecordedPass<T::AccountId> {
    RecordedPass {
        validator: validator.clone(),
        operator: validator.clone(),
        speedup_ppm: 1_100_000,
        generation: 0,
        evidence_digest: [1; 32],
        attempt_digest: [2; 32],
    }
}

/// Fills the arena's queue up to `MaxQueueLen` with ids that are not proposals (after `keep`):
/// leaving the queue then reads and writes its longest encoding.
pub(super) fn fill_queue<T: Config>(keep: Vec<ProposalId>) {
    let mut queue = keep;
    let mut filler = 1_000_000u64;
    while (queue.len() as u32) < T::MaxQueueLen::get() {
        queue.push(filler);
        filler += 1;
    }
    Queue::<T>::insert(bid(ARENA), BoundedVec::truncate_from(queue));
}

/// Registers validator keys up to `MaxValidators`, all under one operator, and returns that
/// operator: a proposal that excludes it makes `operator_left` walk every key in vain.
pub(super) fn keys_of_one_operator<T: Config>() -> T::AccountId {
    let operator: T::AccountId = account("operator", 0, 0);
    let info = Arenas::<T>::get(bid(ARENA)).expect("arena exists");
    for i in info.validators..T::MaxValidators::get() {
        let key: T::AccountId = account("key", i, 0);
        Pallet::<T>::do_add_validator(bid(ARENA), key, operator.clone()).expect("room left");
    }
    operator
}

/// Fills `blocks` deadline blocks from `from` with `MaxLeasesPerBlock` ids that are not
/// proposals: a deadline scheduled there must search past them.
pub(super) fn fill_deadlines<T: Config>(from: BlockNumberFor<T>, blocks: u32) {
    let full: BoundedVec<ProposalId, T::MaxLeasesPerBlock> = BoundedVec::truncate_from(
        (0..T::MaxLeasesPerBlock::get() as u64)
            .map(|i| 2_000_000 + i)
            .collect(),
    );
    let mut at = from;
    for _ in 0..blocks {
        LeaseDeadlines::<T>::insert(at, full.clone());
        at = at.saturating_add(One::one());
    }
}

/// `id`'s status as the reproduction of `primary_validator`'s PASS leased by `validator`,
/// its wait's deadline `until`, the lease scheduled.
pub(super) fn lease_reproduction<T: Config>(
    id: ProposalId,
    primary_validator: &T::AccountId,
    validator: &T::AccountId,
    until: BlockNumberFor<T>,
) {
    let primary = PrimaryPass::Open(primary_pass::<T>(primary_validator));
    let now = frame_system::Pallet::<T>::block_number();
    let expires_at = Pallet::<T>::schedule_deadline(id, now.saturating_add(100u32.into()))
        .expect("room for the lease");
    Proposals::<T>::mutate(id, |p| {
        p.as_mut().unwrap().status = ProposalStatus::Reproduction {
            primary,
            lease: Lease {
                validator: validator.clone(),
                operator: validator.clone(),
                generation: 0,
                expires_at,
            },
            until,
        }
    });
}

/// `operator`'s FAIL for `reason` waits on `p` for a second opinion, its operator excluded.
pub(super) fn disputed_by<T: Config>(p: ProposalId, operator: &T::AccountId, reason: FailReason) {
    Proposals::<T>::mutate(p, |prop| {
        let prop = prop.as_mut().expect("revealed");
        prop.excluded = BoundedVec::truncate_from(vec![operator.clone()]);
        prop.disputed = Some(RecordedFail {
            validator: operator.clone(),
            operator: operator.clone(),
            reason,
            evidence_digest: [3; 32],
        });
    });
}

/// The scene of a crowning attempt: `m` crowned slots, an atomic proposal over them with a
/// maximum-size bundle, and `q` other proposals waiting for reproduction after `v1`'s PASS,
/// each with its own deadline from the returned block on (each is unscheduled when dropped).
pub(super) fn crown_scene<T: Config>(
    q: u32,
    m: u32,
    v1: &T::AccountId,
) -> (ProposalId, BlockNumberFor<T>) {
    let miner = funded::<T>("miner", 0);
    for (i, name) in slot_names(m).iter().enumerate() {
        let p = reveal_one::<T>(&miner, name, 256, 100 + i as u32);
        crown_directly::<T>(p);
    }
    let p = reveal_one::<T>(&miner, b"bench.atomic", T::MaxBundleBytes::get(), 0);
    let others: Vec<ProposalId> = (0..q)
        .map(|i| reveal_one::<T>(&funded::<T>("other", i), b"bench.slot0", 256, 1_000 + i))
        .collect();
    let base =
        frame_system::Pallet::<T>::block_number().saturating_add(T::ReproductionTimeout::get());
    for (i, o) in others.iter().enumerate() {
        let until = base.saturating_add((i as u32).into());
        LeaseDeadlines::<T>::insert(until, BoundedVec::truncate_from(vec![*o]));
        Proposals::<T>::mutate(o, |prop| {
            prop.as_mut().expect("revealed").status = ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(primary_pass::<T>(v1)),
                until,
            }
        });
    }
    (p, base)
}

pub(super) fn verdict(verdict: Verdict, generation: u32, seed: u8) -> Attestation {
    Attestation {
        verdict,
        incumbent_generation: generation,
        evidence_digest: [seed; 32],
        attempt_digest: [seed.wrapping_add(1); 32],
    }
}

pub(super) fn pass_attestation(generation: u32, seed: u8) -> Attestation {
    verdict(
        Verdict::Pass {
            speedup_ppm: 1_100_000,
        },
        generation,
        seed,
    )
}

/// A valid evidence endpoint of the longest length allowed.
pub(super) fn longest_endpoint() -> Endpoint {
    let mut url = b"http://".to_vec();
    url.resize(MAX_ENDPOINT_BYTES as usize, b'v');
    url.try_into().expect("MAX_ENDPOINT_BYTES long")
}

/// `n` proposals by `n` miners at the front of a full queue.
pub(super) fn queued_proposals<T: Config>(n: u32) -> Vec<ProposalId> {
    let ids: Vec<ProposalId> = (0..n)
        .map(|i| reveal_one::<T>(&funded::<T>("miner", i), b"bench.slot0", 256, i))
        .collect();
    fill_queue::<T>(ids.clone());
    ids
}

/// `claim`'s scene: `q` entries ahead of the returned target that `v1` may not take, the
/// first the reproduction of its own PASS, the others reproductions of `v2`'s PASS held
/// back by the first; the lease's deadline searches past full blocks.
pub(super) fn claim_scene<T: Config>(q: u32, v1: &T::AccountId, v2: &T::AccountId) -> ProposalId {
    let miner = funded::<T>("miner", 0);
    let target = reveal_one::<T>(&miner, b"bench.slot1", 256, 0);
    let template = reveal_one::<T>(&miner, b"bench.slot0", 256, 1);
    let mut queue: Vec<ProposalId> = Vec::new();
    for i in 0..q {
        let mut p = Proposals::<T>::get(template).unwrap();
        p.status = waiting_for_reproduction::<T>(if i == 0 { v1 } else { v2 });
        // Each by its own miner: each miner's operator is read.
        p.miner = account("queued-miner", i, 0);
        let pid = 10_000 + i as u64;
        Proposals::<T>::insert(pid, p);
        queue.push(pid);
    }
    queue.push(target);
    Queue::<T>::insert(bid(ARENA), BoundedVec::truncate_from(queue));
    Proposals::<T>::remove(template);
    // Priority is final for every entry: the walk reaches the overlap check.
    let now = frame_system::Pallet::<T>::block_number();
    let now = now.saturating_add(T::RevealWindow::get());
    frame_system::Pallet::<T>::set_block_number(now);
    // The lease's deadline searches past full blocks.
    fill_deadlines::<T>(
        now.saturating_add(100u32.into()),
        crate::settle::DEADLINE_TRIES - 1,
    );
    target
}

/// `expire_leases`' scene: `n` reproduction leases of `v1` (on `v2`'s PASSes) ending in one
/// block, each on a proposal no other registered operator may try. Returns the proposals
/// and the block their leases end in.
pub(super) fn expiring_leases_scene<T: Config>(
    n: u32,
    v1: &T::AccountId,
    v2: &T::AccountId,
) -> (Vec<ProposalId>, BlockNumberFor<T>) {
    let disputer = keys_of_one_operator::<T>();
    let ids = queued_proposals::<T>(n);
    let now = frame_system::Pallet::<T>::block_number();
    let until = now.saturating_add(T::ReproductionTimeout::get());
    for p in &ids {
        lease_reproduction::<T>(*p, v2, v1, until);
        disputed_by::<T>(*p, &disputer, FailReason::NotFaster);
    }
    // Stands for leases of many operators: one operator's cap is far below a block's.
    OpenLeases::<T>::remove(v1);
    let full_blocks = (T::MaxArenas::get() * T::MaxQueueLen::get())
        .div_ceil(T::MaxLeasesPerBlock::get())
        .min(crate::settle::DEADLINE_TRIES - 1);
    fill_deadlines::<T>(until, full_blocks);
    let deadline =
        match Proposals::<T>::get(ids.first().copied().unwrap_or_default()).map(|p| p.status) {
            Some(ProposalStatus::Reproduction { lease, .. }) => lease.expires_at,
            _ => now.saturating_add(100u32.into()),
        };
    (ids, deadline)
}
