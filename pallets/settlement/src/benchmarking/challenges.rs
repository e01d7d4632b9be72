//! The stake benchmarks' setup: a crown made by two bonded operators, two more bonded
//! operators to answer, a funded challenger, challenges in the states each call's worst path
//! starts from, and unbonding chunks.

use super::*;

/// A crown and who is around it.
pub(super) struct Scene<T: Config> {
    pub proposal: ProposalId,
    /// The operators whose PASSes crowned it (each its own key).
    pub passers: [T::AccountId; 2],
    /// Two more operators (each its own key) that may answer.
    pub answerers: [T::AccountId; 2],
    pub challenger: T::AccountId,
}

/// A crown of `bench.slot0` (its bundle the largest allowed) whose PASSes came from two
/// bonded operators; two more operators registered and bonded; a funded challenger. The
/// arena requires the bond, so every bond check reads it.
pub(super) fn crowned_scene<T: Config>() -> Scene<T> {
    let (v1, v2) = arena::<T>(2);
    let v3: T::AccountId = account("validator", 3, 0);
    let v4: T::AccountId = account("validator", 4, 0);
    Pallet::<T>::do_add_validator(bid(ARENA), v3.clone(), v3.clone()).expect("room for v3");
    Pallet::<T>::do_add_validator(bid(ARENA), v4.clone(), v4.clone()).expect("room for v4");
    let bond = T::Currency::minimum_balance().saturating_mul(100u32.into());
    RequiredBonds::<T>::insert(bid(ARENA), bond);
    for v in [&v1, &v2, &v3, &v4] {
        T::Currency::set_balance(v, bond.saturating_mul(4u32.into()));
        Pallet::<T>::do_bond(v.clone(), bid(ARENA), bond).expect("funded");
    }
    let miner = funded::<T>("miner", 0);
    let proposal = reveal_one::<T>(&miner, b"bench.slot0", T::MaxBundleBytes::get(), 0);
    crown_directly::<T>(proposal);
    Proposals::<T>::mutate(proposal, |p| {
        let p = p.as_mut().expect("revealed");
        let mut second = primary_pass::<T>(&v2);
        second.evidence_digest = [2; 32];
        p.status = ProposalStatus::Crowned {
            at: p.reveal_block,
            speedup_ppm: 1_100_000,
            passes: BoundedVec::truncate_from(vec![primary_pass::<T>(&v1), second]),
        };
    });
    let challenger = funded::<T>("challenger", 0);
    T::Currency::set_balance(
        &challenger,
        T::ChallengeBond::get()
            .saturating_mul(4u32.into())
            .saturating_add(T::Currency::minimum_balance()),
    );
    Scene {
        proposal,
        passers: [v1, v2],
        answerers: [v3, v4],
        challenger,
    }
}

/// Opens the scene's challenge; returns its id.
pub(super) fn open_challenge<T: Config>(scene: &Scene<T>) -> ChallengeId {
    let id = NextChallengeId::<T>::get();
    Pallet::<T>::do_challenge(scene.challenger.clone(), scene.proposal).expect("crown stands");
    id
}

/// Fills challenge `id` with `n` answers that decide nothing, by operators that are not
/// registered (each is read, and dropped, by the next answer).
pub(super) fn neutral_answers<T: Config>(id: ChallengeId, n: u32) {
    Challenges::<T>::mutate(id, |c| {
        let c = c.as_mut().expect("open");
        for i in 0..n {
            let stranger: T::AccountId = account("stranger", i, 0);
            c.answers
                .try_push(ChallengeAnswer {
                    validator: stranger.clone(),
                    operator: stranger,
                    verdict: Verdict::NoDecision {
                        reason: NoDecisionReason::Noise,
                    },
                    evidence_digest: [200u8.wrapping_add(i as u8); 32],
                })
                .expect("room for the answer");
        }
    });
}

/// Records `validator`'s answer `verdict` to challenge `id` directly (its operator is itself).
pub(super) fn answered<T: Config>(id: ChallengeId, validator: &T::AccountId, verdict: Verdict) {
    Challenges::<T>::mutate(id, |c| {
        c.as_mut()
            .expect("open")
            .answers
            .try_push(ChallengeAnswer {
                validator: validator.clone(),
                operator: validator.clone(),
                verdict,
                evidence_digest: [40; 32],
            })
            .expect("room for the answer");
    });
}

/// Fills `blocks` challenge deadline blocks from `from` with `MaxOpenChallenges` ids that are
/// not challenges.
pub(super) fn fill_challenge_deadlines<T: Config>(from: BlockNumberFor<T>, blocks: u32) {
    let full: BoundedVec<ChallengeId, T::MaxOpenChallenges> = BoundedVec::truncate_from(
        (0..T::MaxOpenChallenges::get() as u64)
            .map(|i| 3_000_000 + i)
            .collect(),
    );
    let mut at = from;
    for _ in 0..blocks {
        ChallengeDeadlines::<T>::insert(at, full.clone());
        at = at.saturating_add(One::one());
    }
}

/// `n` open challenges of crowns that are not stored (expiry reads none), all due at `at`,
/// each by its own challenger holding its bond.
pub(super) fn challenges_due<T: Config>(n: u32, at: BlockNumberFor<T>) -> Vec<ChallengeId> {
    let bond = T::ChallengeBond::get();
    let mut ids = Vec::new();
    for i in 0..n {
        let challenger: T::AccountId = account("challenger", i, 0);
        T::Currency::set_balance(
            &challenger,
            bond.saturating_mul(2u32.into())
                .saturating_add(T::Currency::minimum_balance()),
        );
        T::Currency::hold(&HoldReason::ChallengeBond.into(), &challenger, bond).expect("funded");
        let id = i as ChallengeId;
        let proposal = 5_000_000 + i as u64;
        Challenges::<T>::insert(
            id,
            Challenge {
                proposal,
                arena: bid(ARENA),
                target: bid(b"bench.slot0"),
                miner: challenger.clone(),
                challenger,
                bond,
                passes: BoundedVec::new(),
                deadline: at,
                leases: BoundedVec::new(),
                answers: BoundedVec::new(),
            },
        );
        CrownChallenges::<T>::insert(proposal, id);
        OpenChallenges::<T>::try_mutate(bid(ARENA), |open| open.try_push(id))
            .expect("room in the arena");
        ids.push(id);
    }
    NextChallengeId::<T>::put(n as ChallengeId);
    ChallengeDeadlines::<T>::insert(at, BoundedVec::truncate_from(ids.clone()));
    ids
}

/// `q` proposals of the arena waiting for their reproduction, each with its own scheduled
/// deadline: a change of the stack drops each PASS and unschedules each wait.
pub(super) fn waiting_reproductions<T: Config>(q: u32, primary: &T::AccountId) {
    let others: Vec<ProposalId> = (0..q)
        .map(|i| reveal_one::<T>(&funded::<T>("other", i), b"bench.slot1", 256, 1_000 + i))
        .collect();
    let base =
        frame_system::Pallet::<T>::block_number().saturating_add(T::ReproductionTimeout::get());
    for (i, o) in others.iter().enumerate() {
        let until = base.saturating_add((i as u32).into());
        Proposals::<T>::mutate(o, |p| {
            p.as_mut().expect("revealed").status = ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(primary_pass::<T>(primary)),
                until,
            }
        });
        LeaseDeadlines::<T>::insert(until, BoundedVec::truncate_from(vec![*o]));
    }
}

/// `n` unbonding chunks of `operator` in the arena, each of the minimum balance and held,
/// released by now when `due`, else one a block from `UnbondingPeriod` on.
pub(super) fn unbonding_chunks<T: Config>(operator: &T::AccountId, n: u32, due: bool) {
    let amount = T::Currency::minimum_balance();
    let mut now = frame_system::Pallet::<T>::block_number();
    if due && now < n.into() {
        now = n.into();
        frame_system::Pallet::<T>::set_block_number(now);
    }
    let mut chunks: UnbondingOf<T> = BoundedVec::new();
    for i in 0..n {
        T::Currency::hold(&HoldReason::OperatorBond.into(), operator, amount).expect("funded");
        let release_at = match due {
            true => i.into(),
            false => now
                .saturating_add(T::UnbondingPeriod::get())
                .saturating_add((i + 1).into()),
        };
        chunks
            .try_push(UnbondingChunk { release_at, amount })
            .expect("at most MAX_UNBONDING_CHUNKS");
    }
    Unbonding::<T>::insert(bid(ARENA), operator, chunks);
}
