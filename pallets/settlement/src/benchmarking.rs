//! Benchmarks (frame-benchmarking v2) for every call and the `on_initialize` work. Each sets up
//! the call's worst path; `impl_benchmark_test_suite!` also runs them as unit tests.

#![cfg(feature = "runtime-benchmarks")]

use crate::*;
use alloc::{format, vec, vec::Vec};
use cacheon_primitives::{canonical_bytes, BundleFile, BundleLimits};
use frame::benchmarking::prelude::*;

mod blind;
mod challenges;
mod setup;

use blind::*;
use challenges::*;
use setup::*;

#[benchmarks]
mod benchmarks {
    use super::*;

    #[benchmark]
    fn commit() {
        let miner = funded::<T>("miner", 0);
        #[extrinsic_call]
        _(RawOrigin::Signed(miner.clone()), [9u8; 32]);
        assert!(Commits::<T>::contains_key(&miner, [9u8; 32]));
    }

    #[benchmark]
    fn reveal(b: Linear<256, { T::MaxBundleBytes::get() }>) {
        arena::<T>(2);
        let miner = funded::<T>("miner", 0);
        let bytes = bundle_bytes::<T>(b, 0);
        let salt = [7u8; 32];
        let target = b"bench.slot0";
        let c = cacheon_primitives::commitment(
            &miner,
            ARENA,
            target,
            &cacheon_primitives::content_hash(&bytes),
            &salt,
        );
        Pallet::<T>::commit(RawOrigin::Signed(miner.clone()).into(), c).expect("commit works");
        frame_system::Pallet::<T>::set_block_number(
            frame_system::Pallet::<T>::block_number().saturating_add(T::RevealDelay::get()),
        );
        // A queue one short of full: its encoding is read and written.
        let filler: Vec<ProposalId> =
            (1_000_000..1_000_000 + T::MaxQueueLen::get() as u64 - 1).collect();
        Queue::<T>::insert(bid(ARENA), BoundedVec::truncate_from(filler));
        #[extrinsic_call]
        _(
            RawOrigin::Signed(miner),
            bid(ARENA),
            bid(target),
            salt,
            bytes,
        );
        assert_eq!(NextProposalId::<T>::get(), 1);
    }

    #[benchmark]
    fn withdraw() {
        arena::<T>(2);
        let miner = funded::<T>("miner", 0);
        let p = reveal_one::<T>(&miner, b"bench.slot0", T::MaxBundleBytes::get(), 0);
        #[extrinsic_call]
        _(RawOrigin::Signed(miner), p);
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::Withdrawn
        ));
    }

    #[benchmark]
    fn cancel_commit() {
        let miner = funded::<T>("miner", 0);
        Pallet::<T>::commit(RawOrigin::Signed(miner.clone()).into(), [9u8; 32])
            .expect("commit works");
        #[extrinsic_call]
        _(RawOrigin::Signed(miner.clone()), [9u8; 32]);
        assert!(!Commits::<T>::contains_key(&miner, [9u8; 32]));
    }

    /// `q` entries ahead that the caller may not take, each read as far as the rules go: the
    /// first is the reproduction of the caller's own PASS; the others are reproductions of
    /// another operator's PASS, eligible but held back by the first (an overlapping crown
    /// ahead), so each costs the proposal, its miner's operator and its target.
    #[benchmark]
    fn claim(q: Linear<0, { T::MaxQueueLen::get() - 1 }>) {
        let (v1, v2) = arena::<T>(2);
        let target = claim_scene::<T>(q, &v1, &v2);
        #[extrinsic_call]
        _(RawOrigin::Signed(v1), target);
        assert!(matches!(
            Proposals::<T>::get(target).unwrap().status,
            ProposalStatus::Primary { .. }
        ));
    }

    /// An open PASS that becomes the primary (its reproduction's primary stopped counting: a
    /// removed key), whose reproduction deadline finds every block but the last it may try
    /// full, after which the search for an operator that may reproduce it walks every
    /// validator key in vain (all of operators that stalled it) and their exclusions lift.
    #[benchmark]
    fn attest_pass() {
        let (v1, v2) = arena::<T>(2);
        let (p, at) = lone_pass_scene::<T>(&v2, |p| {
            let gone: T::AccountId = account("removed", 0, 0);
            let far = frame_system::Pallet::<T>::block_number().saturating_add(10_000u32.into());
            lease_reproduction::<T>(p, &gone, &v1, far);
        });
        #[extrinsic_call]
        attest(RawOrigin::Signed(v1), p, pass_attestation(0, 5));
        let prop = Proposals::<T>::get(p).unwrap();
        assert!(matches!(
            prop.status,
            ProposalStatus::ReproductionQueued { until, .. } if until == at
        ));
        assert!(prop.excluded.is_empty());
    }

    /// A FAIL that sticks and forfeits the deposit of a maximum-size bundle, leaving a full queue.
    #[benchmark]
    fn attest_fail() {
        let (v1, v2) = arena::<T>(2);
        let miner = funded::<T>("miner", 0);
        let p = reveal_one::<T>(&miner, b"bench.slot0", T::MaxBundleBytes::get(), 0);
        fill_queue::<T>(vec![p]);
        // A second operator's confiscating FAIL waits: this one agrees, and the deposit goes.
        disputed_by::<T>(p, &v2, FailReason::Cheating);
        Pallet::<T>::do_claim(v1.clone(), p).expect("claim works");
        let cheating = verdict(
            Verdict::Fail {
                reason: FailReason::Cheating,
            },
            0,
            1,
        );
        #[extrinsic_call]
        attest(RawOrigin::Signed(v1), p, cheating);
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::Failed { .. }
        ));
    }

    /// A reproduction's NoDecision after which no other registered operator may try again:
    /// the search for an operator walks every validator key (all of one operator, whose FAIL
    /// waits for a second opinion) twice — before and after the stall's exclusion lifts —
    /// and the wait's deadline searches past full blocks. (A disputed FAIL takes the same
    /// path.)
    #[benchmark]
    fn attest_requeue() {
        let (v1, v2) = arena::<T>(2);
        let disputer = keys_of_one_operator::<T>();
        let miner = funded::<T>("miner", 0);
        let p = reveal_one::<T>(&miner, b"bench.slot0", T::MaxBundleBytes::get(), 0);
        fill_queue::<T>(vec![p]);
        let until =
            frame_system::Pallet::<T>::block_number().saturating_add(T::ReproductionTimeout::get());
        lease_reproduction::<T>(p, &v2, &v1, until);
        OpenLeases::<T>::insert(&v1, 1);
        fill_deadlines::<T>(until, crate::settle::DEADLINE_TRIES - 1);
        disputed_by::<T>(p, &disputer, FailReason::NotFaster);
        let no_decision = verdict(
            Verdict::NoDecision {
                reason: NoDecisionReason::Noise,
            },
            0,
            1,
        );
        #[extrinsic_call]
        attest(RawOrigin::Signed(v1), p, no_decision);
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::ReproductionQueued { .. }
        ));
    }

    /// The reproduction PASS that crowns an atomic target displacing `m` crowned members, with
    /// `q` other proposals' primary PASSes dropped as stale.
    #[benchmark]
    fn attest_crown(q: Linear<0, { T::MaxQueueLen::get() - 1 }>, m: Linear<2, { MAX_MEMBERS }>) {
        let (v1, v2) = arena::<T>(m);
        let (p, _) = crown_scene::<T>(q, m, &v1);
        open_primary::<T>(p, &v1);
        // The crowning attempt waits until the content's priority is final.
        let commit_block = Proposals::<T>::get(p).unwrap().commit_block;
        frame_system::Pallet::<T>::set_block_number(
            commit_block.saturating_add(T::RevealWindow::get()),
        );
        Pallet::<T>::do_claim(v2.clone(), p).expect("reproduction claim");
        #[extrinsic_call]
        attest(RawOrigin::Signed(v2), p, pass_attestation(0, 2));
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::Crowned { .. }
        ));
    }

    /// `attest_pass`'s worst path with a sealed primary PASS.
    #[benchmark]
    fn attest_sealed() {
        let (v1, v2) = arena::<T>(2);
        let (p, at) = lone_pass_scene::<T>(&v2, |p| {
            Pallet::<T>::do_claim(v1.clone(), p).expect("claim works");
        });
        #[extrinsic_call]
        attest_sealed(RawOrigin::Signed(v1), p, 0, [7; 32]);
        let prop = Proposals::<T>::get(p).unwrap();
        assert!(matches!(
            prop.status,
            ProposalStatus::ReproductionQueued { primary: PrimaryPass::Sealed(_), until }
                if until == at
        ));
        assert!(prop.excluded.is_empty());
    }

    /// `attest_crown`'s worst path, the crown made by the reveal of the sealed primary PASS.
    #[benchmark]
    fn reveal_pass(q: Linear<0, { T::MaxQueueLen::get() - 1 }>, m: Linear<2, { MAX_MEMBERS }>) {
        let (v1, v2) = arena::<T>(m);
        let p = crowning_reveal_scene::<T>(q, m, &v1, &v2);
        let (speedup, evidence, attempt, salt) = sealed_values();
        #[extrinsic_call]
        reveal_pass(RawOrigin::Signed(v1), p, speedup, evidence, attempt, salt);
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::Crowned { .. }
        ));
    }

    /// `n` sealed PASSes not revealed by their deadline: each a stall of its operator, the
    /// reproduction's PASS promoted to primary with a fresh wait scheduled past full blocks,
    /// and every key walked in vain.
    #[benchmark]
    fn reveals_missed(n: Linear<0, { T::MaxLeasesPerBlock::get() }>) {
        let (v1, v2) = arena::<T>(2);
        let (ids, deadline) = missed_reveals_scene::<T>(n, &v1, &v2);
        #[block]
        {
            Pallet::<T>::expire_leases(deadline);
        }
        for p in &ids {
            assert!(matches!(
                Proposals::<T>::get(p).unwrap().status,
                ProposalStatus::ReproductionQueued {
                    primary: PrimaryPass::Open(_),
                    ..
                }
            ));
        }
    }

    /// Updates the head of a displacement chain of `t` targets: the cycle check walks it.
    #[benchmark]
    fn set_target(t: Linear<2, { T::MaxTargets::get() }>) -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        // Genesis may already hold targets; the chain uses the room that is left.
        let t = t
            .min(T::MaxTargets::get().saturating_sub(Targets::<T>::count()))
            .max(2);
        let name = |i: u32| format!("bench.chain{i}").into_bytes();
        for i in (0..t).rev() {
            let mut spec = slot(&name(i));
            if i + 1 < t {
                spec.displaces = BoundedVec::truncate_from(vec![bid(&name(i + 1))]);
            }
            Pallet::<T>::do_set_target(spec).expect("chain target is valid");
        }
        let mut head = slot(&name(0));
        head.displaces = BoundedVec::truncate_from(vec![bid(&name(1))]);
        head.status = Status::Paused;
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, head);
        assert_eq!(
            Targets::<T>::get(bid(&name(0))).unwrap().status,
            Status::Paused
        );
        Ok(())
    }

    #[benchmark]
    fn set_arena() -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        let room = T::MaxTargets::get().saturating_sub(Targets::<T>::count());
        let names: Vec<Vec<u8>> = (0..MAX_ARENA_TARGETS.min(room))
            .map(|i| format!("bench.t{i}").into_bytes())
            .collect();
        for n in &names {
            Pallet::<T>::do_set_target(slot(n)).expect("target is valid");
        }
        let config = arena_config::<T>(names.iter().map(|n| bid(n)).collect(), 2);
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, config);
        assert!(Arenas::<T>::contains_key(bid(ARENA)));
        Ok(())
    }

    #[benchmark]
    fn add_validator() -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        arena::<T>(2);
        let v: T::AccountId = account("validator", 9, 0);
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, bid(ARENA), v.clone(), v.clone());
        assert!(Validators::<T>::contains_key(bid(ARENA), &v));
        Ok(())
    }

    #[benchmark]
    fn remove_validator() -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        let (v1, _) = arena::<T>(2);
        // The key's last arena: its evidence endpoint goes too.
        EvidenceEndpoints::<T>::insert(&v1, longest_endpoint());
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, bid(ARENA), v1.clone());
        assert!(!Validators::<T>::contains_key(bid(ARENA), &v1));
        assert!(!EvidenceEndpoints::<T>::contains_key(&v1));
        Ok(())
    }

    #[benchmark]
    fn set_evidence_endpoint() -> Result<(), BenchmarkError> {
        let (v1, _) = arena::<T>(2);
        #[extrinsic_call]
        _(RawOrigin::Signed(v1.clone()), longest_endpoint());
        assert_eq!(EvidenceEndpoints::<T>::get(&v1), Some(longest_endpoint()));
        Ok(())
    }

    #[benchmark]
    fn set_emissions() -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        let policy = EmissionsPolicy {
            half_life_blocks: 1_000u32.into(),
            epoch_blocks: 100u32.into(),
            emission_per_epoch: T::Currency::minimum_balance(),
            bootstrap_account: account("bootstrap", 0, 0),
        };
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, policy.clone());
        assert_eq!(Emissions::<T>::get(), Some(policy));
        Ok(())
    }

    /// `n` reproduction leases ending in one block, each on a proposal no other registered
    /// operator may try: each wait's deadline searches past full blocks (as many as the whole
    /// schedule can hold: every pending proposal has one deadline), and every key (all of
    /// one operator whose FAIL waits for a second opinion) is walked twice, before and after
    /// the stall's exclusion lifts.
    #[benchmark]
    fn expire_leases(n: Linear<0, { T::MaxLeasesPerBlock::get() }>) {
        let (v1, v2) = arena::<T>(2);
        let (ids, deadline) = expiring_leases_scene::<T>(n, &v1, &v2);
        #[block]
        {
            Pallet::<T>::expire_leases(deadline);
        }
        for p in &ids {
            assert!(matches!(
                Proposals::<T>::get(p).unwrap().status,
                ProposalStatus::ReproductionQueued { .. }
            ));
        }
    }

    /// `n` leased proposals past their lifetime, expired out of a full queue, while every
    /// other arena's queue front is read too (`MaxArenas` arenas).
    #[benchmark]
    fn expire_overdue(n: Linear<0, { T::MaxLeasesPerBlock::get() }>) {
        let (v1, v2) = arena::<T>(2);
        for i in Arenas::<T>::count()..T::MaxArenas::get() {
            let mut other = Arenas::<T>::get(bid(ARENA)).expect("arena exists").config;
            other.id = bid(format!("bench.arena{i}").as_bytes());
            Pallet::<T>::do_set_arena(other).expect("room for the arena");
        }
        let ids = queued_proposals::<T>(n);
        let until =
            frame_system::Pallet::<T>::block_number().saturating_add(T::ReproductionTimeout::get());
        for p in &ids {
            lease_reproduction::<T>(*p, &v1, &v2, until);
        }
        OpenLeases::<T>::remove(&v2);
        let now =
            frame_system::Pallet::<T>::block_number().saturating_add(T::PendingLifetime::get());
        #[block]
        {
            Pallet::<T>::expire_overdue(now);
        }
        for p in &ids {
            assert!(matches!(
                Proposals::<T>::get(p).unwrap().status,
                ProposalStatus::Expired
            ));
        }
    }

    /// A FAIL whose forfeited deposit is refunded from the pot.
    #[benchmark]
    fn overturn_fail() -> Result<(), BenchmarkError> {
        let (v1, _) = arena::<T>(2);
        let miner = funded::<T>("miner", 0);
        let p = reveal_one::<T>(&miner, b"bench.slot0", T::MaxBundleBytes::get(), 0);
        let mut prop = Proposals::<T>::get(p).unwrap();
        let fail = RecordedFail {
            validator: v1.clone(),
            operator: v1,
            reason: FailReason::Cheating,
            evidence_digest: [1; 32],
        };
        Pallet::<T>::fail(p, prop.clone(), fail, true);
        prop = Proposals::<T>::get(p).unwrap();
        assert!(SlashedDeposits::<T>::contains_key(p) && prop.bundle_deposit.is_zero());
        let origin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        #[extrinsic_call]
        _(origin as T::RuntimeOrigin, p);
        assert!(matches!(
            Proposals::<T>::get(p).unwrap().status,
            ProposalStatus::Overturned { .. }
        ));
        Ok(())
    }

    /// A top-up of an existing bond (the bond's entry is read and written).
    #[benchmark]
    fn bond() {
        arena::<T>(2);
        let operator = funded::<T>("operator", 0);
        let amount = T::Currency::minimum_balance();
        Pallet::<T>::do_bond(operator.clone(), bid(ARENA), amount).expect("funded");
        #[extrinsic_call]
        _(RawOrigin::Signed(operator.clone()), bid(ARENA), amount);
        assert_eq!(
            OperatorBonds::<T>::get(bid(ARENA), &operator),
            amount.saturating_add(amount)
        );
    }

    /// Part of a bond unbonded (the entry stays) into a new chunk after
    /// `MAX_UNBONDING_CHUNKS - 1` others.
    #[benchmark]
    fn unbond() {
        arena::<T>(2);
        let operator = funded::<T>("operator", 0);
        let amount = T::Currency::minimum_balance();
        Pallet::<T>::do_bond(operator.clone(), bid(ARENA), amount.saturating_add(amount))
            .expect("funded");
        unbonding_chunks::<T>(&operator, MAX_UNBONDING_CHUNKS - 1, false);
        #[extrinsic_call]
        _(RawOrigin::Signed(operator.clone()), bid(ARENA), amount);
        assert_eq!(OperatorBonds::<T>::get(bid(ARENA), &operator), amount);
        assert_eq!(
            Unbonding::<T>::get(bid(ARENA), &operator).len() as u32,
            MAX_UNBONDING_CHUNKS
        );
    }

    /// `MAX_UNBONDING_CHUNKS` chunks released at once, after reading `MaxOpenChallenges`
    /// open challenges of the arena (none of a crown of this operator).
    #[benchmark]
    fn withdraw_unbonded() {
        arena::<T>(2);
        let operator = funded::<T>("operator", 0);
        unbonding_chunks::<T>(&operator, MAX_UNBONDING_CHUNKS, true);
        let now = frame_system::Pallet::<T>::block_number();
        challenges_due::<T>(
            T::MaxOpenChallenges::get(),
            now.saturating_add(T::ChallengeWindow::get()),
        );
        #[extrinsic_call]
        _(RawOrigin::Signed(operator.clone()), bid(ARENA));
        assert!(!Unbonding::<T>::contains_key(bid(ARENA), &operator));
    }

    #[benchmark]
    fn set_required_bond() -> Result<(), BenchmarkError> {
        let admin =
            T::AdminOrigin::try_successful_origin().map_err(|_| BenchmarkError::Weightless)?;
        arena::<T>(2);
        let amount = T::Currency::minimum_balance();
        #[extrinsic_call]
        _(admin as T::RuntimeOrigin, bid(ARENA), amount);
        assert_eq!(RequiredBonds::<T>::get(bid(ARENA)), amount);
        Ok(())
    }

    /// A challenge whose deadline searches past every block but the last it may try.
    #[benchmark]
    fn challenge() {
        let scene = crowned_scene::<T>();
        let first =
            frame_system::Pallet::<T>::block_number().saturating_add(T::ChallengeWindow::get());
        fill_challenge_deadlines::<T>(first, crate::settle::DEADLINE_TRIES - 1);
        #[extrinsic_call]
        _(RawOrigin::Signed(scene.challenger), scene.proposal);
        assert!(CrownChallenges::<T>::contains_key(scene.proposal));
    }

    /// A lease of a challenge with one turn left, whose miner's and challenger's operators
    /// are looked up.
    #[benchmark]
    fn claim_challenge() {
        let scene = crowned_scene::<T>();
        let id = open_challenge::<T>(&scene);
        neutral_answers::<T>(id, MAX_CHALLENGE_TURNS - 1);
        let [v3, _] = scene.answerers;
        #[extrinsic_call]
        _(RawOrigin::Signed(v3), id);
        assert_eq!(Challenges::<T>::get(id).unwrap().leases.len(), 1);
    }

    /// An answer that decides nothing, after `MAX_CHALLENGE_TURNS - 1` others whose
    /// validators are each looked up.
    #[benchmark]
    fn answer_challenge() {
        let scene = crowned_scene::<T>();
        let id = open_challenge::<T>(&scene);
        neutral_answers::<T>(id, MAX_CHALLENGE_TURNS - 1);
        let [v3, _] = scene.answerers;
        Pallet::<T>::do_claim_challenge(v3.clone(), id).expect("v3 may answer");
        let not_faster = Verdict::Fail {
            reason: FailReason::NotFaster,
        };
        #[extrinsic_call]
        answer_challenge(RawOrigin::Signed(v3), id, not_faster, [41; 32]);
        assert!(Challenges::<T>::contains_key(id));
    }

    /// The second PASS: the bond pays both operators.
    #[benchmark]
    fn answer_challenge_reject() {
        let scene = crowned_scene::<T>();
        let id = open_challenge::<T>(&scene);
        let [v3, v4] = scene.answerers;
        let pass = Verdict::Pass {
            speedup_ppm: 1_100_000,
        };
        answered::<T>(id, &v4, pass);
        Pallet::<T>::do_claim_challenge(v3.clone(), id).expect("v3 may answer");
        #[extrinsic_call]
        answer_challenge(RawOrigin::Signed(v3), id, pass, [41; 32]);
        assert!(!Challenges::<T>::contains_key(id));
    }

    /// The second `Cheating` FAIL of a standing crown (the largest bundle): the crown leaves
    /// the stack, both crowning operators are slashed, and `q` other proposals' primary
    /// PASSes are dropped as stale.
    #[benchmark]
    fn answer_challenge_revoke(q: Linear<0, { T::MaxQueueLen::get() - 1 }>) {
        let scene = crowned_scene::<T>();
        waiting_reproductions::<T>(q, &scene.passers[0]);
        let id = open_challenge::<T>(&scene);
        let [v3, v4] = scene.answerers;
        let cheating = Verdict::Fail {
            reason: FailReason::Cheating,
        };
        answered::<T>(id, &v4, cheating);
        Pallet::<T>::do_claim_challenge(v3.clone(), id).expect("v3 may answer");
        #[extrinsic_call]
        answer_challenge(RawOrigin::Signed(v3), id, cheating, [41; 32]);
        assert!(matches!(
            Proposals::<T>::get(scene.proposal).unwrap().status,
            ProposalStatus::Revoked { .. }
        ));
    }

    /// `n` challenges expiring in one block, each bond returned.
    #[benchmark]
    fn expire_challenges(n: Linear<0, { T::MaxOpenChallenges::get() }>) {
        arena::<T>(2);
        let at = frame_system::Pallet::<T>::block_number().saturating_add(1u32.into());
        let ids = challenges_due::<T>(n, at);
        #[block]
        {
            Pallet::<T>::expire_challenges(at);
        }
        assert!(ids.iter().all(|id| !Challenges::<T>::contains_key(id)));
    }

    #[benchmark]
    fn close_epoch(c: Linear<0, { T::MaxClaims::get() }>) {
        for i in 0..c {
            let miner: T::AccountId = account("miner", i, 0);
            Claims::<T>::insert(
                i as u64,
                RewardClaim {
                    miner,
                    arena: bid(ARENA),
                    target: bid(b"bench.slot0"),
                    speedup_ppm: 1_000_000 + 1_000 * (i + 1),
                    since: Zero::zero(),
                    evidence: BoundedVec::truncate_from(vec![[1; 32], [2; 32]]),
                },
            );
        }
        let pot = Pallet::<T>::pot_account();
        let emission = T::Currency::minimum_balance().saturating_mul(1_000_000u32.into());
        T::Currency::set_balance(&pot, emission.saturating_mul(2u32.into()));
        let policy = EmissionsPolicy {
            half_life_blocks: 1_000u32.into(),
            epoch_blocks: 100u32.into(),
            emission_per_epoch: emission,
            bootstrap_account: account("bootstrap", 0, 0),
        };
        let now: BlockNumberFor<T> = 1_000u32.into();
        #[block]
        {
            Pallet::<T>::close_epoch(now, &policy);
        }
        let sum: u64 = Weights::<T>::get().iter().map(|(_, w)| *w as u64).sum();
        assert_eq!(sum, 1_000_000);
    }

    /// `n` emission shares paid in one block, each to a new account, out of a weight vector of
    /// `MaxClaims` recipients.
    #[benchmark]
    fn pay_emissions(n: Linear<0, { PAYOUTS_PER_BLOCK }>) {
        let vector: Vec<(T::AccountId, u32)> = (0..T::MaxClaims::get())
            .map(|i| (account("recipient", i, 0), 1_000_000 / T::MaxClaims::get()))
            .collect();
        Weights::<T>::put(WeightVectorOf::<T>::truncate_from(vector));
        let pot = Pallet::<T>::pot_account();
        let budget = T::Currency::minimum_balance().saturating_mul(10_000_000u32.into());
        T::Currency::set_balance(&pot, budget.saturating_mul(2u32.into()));
        // The run is `n` shares short of its end.
        let next = T::MaxClaims::get().saturating_sub(n);
        Payout::<T>::put(PayoutRun {
            epoch: 1,
            budget,
            next,
            paid: Zero::zero(),
        });
        #[block]
        {
            Pallet::<T>::pay_emissions();
        }
        assert!(Payout::<T>::get().is_none());
    }

    /// `n` finished proposals deleted, each the owner of its FAILed content.
    #[benchmark]
    fn prune_proposals(n: Linear<0, 64>) {
        arena::<T>(2);
        for i in 0..n {
            let miner = funded::<T>("miner", i);
            let p = reveal_one::<T>(&miner, b"bench.slot0", 256, i);
            let mut prop = Proposals::<T>::get(p).unwrap();
            prop.status = ProposalStatus::Failed {
                reason: FailReason::Build,
            };
            Pallet::<T>::leave_queue(p, &mut prop);
            Proposals::<T>::insert(p, prop);
        }
        let now =
            frame_system::Pallet::<T>::block_number().saturating_add(T::ProposalRetention::get());
        frame_system::Pallet::<T>::set_block_number(now);
        // Reveal counts are already cleared up to this period.
        RevealsClearedBelow::<T>::put(Pallet::<T>::reveal_period());
        #[block]
        {
            Pallet::<T>::prune(now, Weight::MAX);
        }
        assert_eq!(Proposals::<T>::iter().count(), 0);
    }

    /// `n` reveal counts of a past period cleared.
    #[benchmark]
    fn clear_reveal_period(n: Linear<0, 64>) {
        for i in 0..n {
            RevealsInPeriod::<T>::insert(0, account::<T::AccountId>("miner", i, 0), 1);
        }
        let now = T::RevealPeriod::get();
        frame_system::Pallet::<T>::set_block_number(now);
        #[block]
        {
            Pallet::<T>::prune(now, Weight::MAX);
        }
        assert_eq!(RevealsInPeriod::<T>::iter().count(), 0);
    }

    impl_benchmark_test_suite!(
        Pallet,
        crate::mock::ExtBuilder::default().build(),
        crate::mock::Test
    );
}
