//! Set-ups of the PASS benchmarks (an open or sealed PASS whose wait searches a full schedule)
//! and of the blind-verdict ones: a sealed primary PASS revealed into a crown, and sealed
//! PASSes whose reveal is missed.

use super::*;

/// What the sealed PASSes of these benchmarks hold: speedup, evidence and attempt digests,
/// salt.
pub(super) fn sealed_values() -> (u32, EvidenceDigest, [u8; 32], [u8; 32]) {
    (1_100_000, [1; 32], [2; 32], [9; 32])
}

/// `validator`'s sealed PASS of `id` at generation 0 (its key is its own operator).
pub(super) fn sealed_pass<T: Config>(
    id: ProposalId,
    validator: &T::AccountId,
) -> SealedPass<T::AccountId> {
    let (speedup, evidence, attempt, salt) = sealed_values();
    SealedPass {
        validator: validator.clone(),
        operator: validator.clone(),
        generation: 0,
        seal: cacheon_primitives::pass_seal(id, validator, 0, speedup, &evidence, &attempt, &salt),
    }
}

/// `validator`'s reproduction PASS at generation 0, with digests of its own.
pub(super) fn reproduction_pass<T: Config>(validator: &T::AccountId) -> RecordedPass<T::AccountId> {
    RecordedPass {
        evidence_digest: [3; 32],
        attempt_digest: [4; 32],
        ..primary_pass::<T>(validator)
    }
}

/// A proposal of a full queue that the PASS's key holds a lease on (`lease` takes it), every
/// other operator (`v2`, and one that holds every other key) excluded after a stall, and
/// every block its reproduction wait may go to full but the last: a PASS schedules its wait in
/// vain `DEADLINE_TRIES - 1` times, then walks every key in vain and lifts the exclusions.
/// Returns the proposal and the block its wait goes to.
pub(super) fn lone_pass_scene<T: Config>(
    v2: &T::AccountId,
    lease: impl FnOnce(ProposalId),
) -> (ProposalId, BlockNumberFor<T>) {
    let stalled = keys_of_one_operator::<T>();
    let miner = funded::<T>("miner", 0);
    let p = reveal_one::<T>(&miner, b"bench.slot0", 256, 0);
    fill_queue::<T>(vec![p]);
    lease(p);
    Proposals::<T>::mutate(p, |prop| {
        let prop = prop.as_mut().expect("revealed");
        prop.excluded = BoundedVec::truncate_from(vec![stalled.clone(), v2.clone()]);
        prop.stalled = prop.excluded.clone();
        prop.attempts = 2;
    });
    let first =
        frame_system::Pallet::<T>::block_number().saturating_add(T::ReproductionTimeout::get());
    fill_deadlines::<T>(first, crate::settle::DEADLINE_TRIES - 1);
    (
        p,
        first.saturating_add((crate::settle::DEADLINE_TRIES - 1).into()),
    )
}

/// `id` waiting for its reproduction after `validator`'s open primary PASS, its deadline
/// scheduled.
pub(super) fn open_primary<T: Config>(id: ProposalId, validator: &T::AccountId) {
    let now = frame_system::Pallet::<T>::block_number();
    let until =
        Pallet::<T>::schedule_deadline(id, now.saturating_add(T::ReproductionTimeout::get()))
            .expect("room for the wait");
    Proposals::<T>::mutate(id, |p| {
        p.as_mut().expect("revealed").status = ProposalStatus::ReproductionQueued {
            primary: PrimaryPass::Open(primary_pass::<T>(validator)),
            until,
        }
    });
}

/// `id` awaiting the reveal of `sealer`'s PASS after `reproducer`'s, until `until` (scheduled).
pub(super) fn awaiting_reveal<T: Config>(
    id: ProposalId,
    sealer: &T::AccountId,
    reproducer: &T::AccountId,
    until: BlockNumberFor<T>,
) {
    LeaseDeadlines::<T>::try_mutate(until, |ids| ids.try_push(id)).expect("room for the wait");
    Proposals::<T>::mutate(id, |p| {
        p.as_mut().expect("revealed").status = ProposalStatus::AwaitingReveal {
            primary: sealed_pass::<T>(id, sealer),
            reproduction: reproduction_pass::<T>(reproducer),
            until,
        }
    });
}

/// `attest_crown`'s scene with the crowning PASS already in: an atomic target over `m`
/// crowned members awaits the reveal of `v1`'s sealed PASS after `v2`'s, while `q` other
/// proposals' primary PASSes wait to be dropped as stale. Returns the atomic proposal.
pub(super) fn crowning_reveal_scene<T: Config>(
    q: u32,
    m: u32,
    v1: &T::AccountId,
    v2: &T::AccountId,
) -> ProposalId {
    let (p, base) = crown_scene::<T>(q, m, v1);
    let until = base.saturating_add(q.into()).saturating_add(1u32.into());
    awaiting_reveal::<T>(p, v1, v2, until);
    p
}

/// `n` proposals of a full queue awaiting the reveal of `v1`'s sealed PASS after `v2`'s, all
/// due in one block, each excluding an operator whose FAIL waits and that holds every other
/// key; the blocks where their fresh reproduction waits go are full but the last tried.
/// Returns the proposals and their deadline.
pub(super) fn missed_reveals_scene<T: Config>(
    n: u32,
    v1: &T::AccountId,
    v2: &T::AccountId,
) -> (Vec<ProposalId>, BlockNumberFor<T>) {
    let disputer = keys_of_one_operator::<T>();
    let ids = queued_proposals::<T>(n);
    let now = frame_system::Pallet::<T>::block_number();
    let deadline = now.saturating_add(T::RevealTimeout::get());
    for p in &ids {
        awaiting_reveal::<T>(*p, v1, v2, deadline);
        disputed_by::<T>(*p, &disputer, FailReason::NotFaster);
    }
    // The fresh waits start at the deadline block (the hook runs there).
    let full_blocks = (T::MaxArenas::get() * T::MaxQueueLen::get())
        .div_ceil(T::MaxLeasesPerBlock::get())
        .min(crate::settle::DEADLINE_TRIES - 1);
    fill_deadlines::<T>(
        deadline.saturating_add(T::ReproductionTimeout::get()),
        full_blocks,
    );
    frame_system::Pallet::<T>::set_block_number(deadline);
    (ids, deadline)
}
