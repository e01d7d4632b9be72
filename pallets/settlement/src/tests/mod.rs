//! Unit tests of the settlement rules. Every test runs through `ExtBuilder::build_and_execute`,
//! which checks the `try_state` invariants afterwards (the pure-function tests of the weights
//! module and the proptest are the exceptions: they need no chain state). `property` runs
//! random call sequences by several miners and validators and checks the invariants after
//! every call.
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
//! | RevealCapReached | `attacks::reveal_cap_resets_without_an_emissions_policy` |
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
//! | SameOperator | `leases::reproduction_needs_another_validator` |
//! | LeaseScheduleFull | `leases::lease_schedule_is_bounded_per_block` |
//! | NotLeaseHolder | `attest::attest_errors`, `leases::attest_after_lease_expiry` |
//! | LeaseExpired | `leases::attest_after_lease_expiry` (needs a block whose `on_initialize` did not run: in a real chain the hook requeues first and the caller gets `NotLeaseHolder`) |
//! | GenerationMismatch | `attest::generation_mismatch_is_refused` |
//! | BelowMargin | `attest::pass_below_margin_is_refused` |
//! | DuplicateEvidence | `attest::reproduction_with_duplicate_digests_is_refused` |
//! | GenerationOverflow | `crown::crown_rolls_back_on_generation_overflow` (generation prepared in storage) |
//! | Overflow | `commit_reveal::proposal_id_overflow` (`NextProposalId` prepared in storage; the deposit product cannot overflow a `u128` with a 16 KiB bundle) |
//! | TooManyClaims | `crown::too_many_claims` (claims prepared in storage: the mock's catalog cannot reach `MaxClaims`) |
//! | DisplacesCrowned | `crown::set_target_refuses_to_displace_a_crowned_entry_with_a_crowned_one` |
//! | OperatorMismatch / OwnProposal | `attacks::one_operator_with_two_keys_cannot_crown_alone` |
//! | OperatorExcluded | `attacks::one_validator_cannot_expire_or_veto_a_proposal` |
//! | TooManyLeases | `attacks::one_operator_cannot_hoard_leases` |
//! | PriorityNotFinal | `attacks::copier_revealing_first_loses_to_earliest_commitment` |
//! | EarlierOverlapPending | `attacks::later_overlapping_proposal_cannot_crown_before_an_earlier_one` |
//! | SpeedupImplausible | `attacks::implausible_speedup_is_refused`, `speedup_cap::a_speedup_above_the_arena_cap_is_refused_below_the_chains` |
//! | LifetimeTooShort | `hostile_operators::set_arena_refuses_stalls_that_outlast_the_lifetime` |
//! | DuplicateDisplaced | `hostile_operators::duplicate_displaced_targets_are_refused` |
//! | VerdictDisputed | `hostile_operators::a_copier_cannot_dodge_the_copy_slash_with_withdraw` |
//! | NotFailed / PotCannotRefund | `hostile_operators::two_cheating_fails_confiscate_and_the_admin_can_overturn` |
//! | FailReplay | `hostile_operators::a_fail_replay_is_refused` |
//! | NotCrowned / AlreadyChallenged / TooManyChallenges | `challenges::only_a_standing_crown_can_be_challenged_once` |
//! | UnknownChallenge / NotChallengeLeaseHolder / ChallengeLeaseHeld / AlreadyAnswered | `challenges::challenge_leases_and_answers_refuse_bad_input` |
//! | PassedByOperator / OwnChallenge | `challenges::the_passing_operators_cannot_answer_a_challenge_of_their_own_crown` |
//! | ChallengeFull / ChallengeScheduleFull | `challenges::challenge_turns_and_deadlines_are_bounded` (prepared in storage: the mock's four validators cannot fill a challenge's turns, and `integrity_test` keeps the schedule from filling) |
//! | BondTooLow | `bonds::an_operator_without_its_arena_bond_cannot_claim` |
//! | ZeroAmount / UnbondTooLarge / LeaseOpen | `bonds::operators_unbond_only_without_an_open_lease` |
//! | TooManyUnbondingChunks / NothingToWithdraw | `bonds::unbonded_funds_wait_for_the_unbonding_period` |
//! | SpeedupCapOutOfRange | `speedup_cap::set_arena_refuses_a_speedup_cap_out_of_range` |
//! | CrownUnderChallenge | `bonds::a_withdrawal_waits_for_an_open_challenge_of_the_operators_crown` |
//! | PassMustBeSealed / SealNotExpected | `blind_verdicts::a_plain_primary_pass_is_refused_where_two_operators_must_agree`, `blind_verdicts::a_one_validator_arena_needs_no_seal` |
//! | NotAwaitingReveal / NotSealer / SealMismatch | `blind_verdicts::a_reveal_that_does_not_open_the_seal_is_refused` |

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

/// Encodes files as given (no sorting, no checks, any path bytes): lets tests build
/// non-canonical bundles. A `(path, data)` pair of byte vectors encodes exactly as a
/// `BundleFile` with that path would.
fn files(list: &[(&[u8], &[u8])]) -> Bytes {
    let v: Vec<(Vec<u8>, Vec<u8>)> = list.iter().map(|(p, d)| (p.to_vec(), d.to_vec())).collect();
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

fn primary_of(p: ProposalId) -> PrimaryPass<AccountId> {
    match status(p) {
        ProposalStatus::ReproductionQueued { primary, .. }
        | ProposalStatus::Reproduction { primary, .. } => primary,
        s => panic!("proposal {p} has no primary pass: {s:?}"),
    }
}

/// Rewrites `p`'s sealed primary PASS as the open PASS it seals (the values `attest_as`
/// kept), as if it had been recorded before blind verdicts. Returns that PASS.
fn unseal_in_storage(p: ProposalId) -> RecordedPass<AccountId> {
    let mut prop = Proposals::<Test>::get(p).expect("proposal exists");
    let (ProposalStatus::ReproductionQueued { primary, .. }
    | ProposalStatus::Reproduction { primary, .. }) = &mut prop.status
    else {
        panic!("proposal {p} has no primary pass");
    };
    let PrimaryPass::Sealed(sealed) = primary.clone() else {
        panic!("proposal {p}'s primary PASS is open already");
    };
    let (speedup_ppm, evidence_digest, attempt_digest) =
        kept(p, sealed.validator).expect("sealed by attest_as");
    let open = RecordedPass {
        validator: sealed.validator,
        operator: sealed.operator,
        speedup_ppm,
        generation: sealed.generation,
        evidence_digest,
        attempt_digest,
    };
    *primary = PrimaryPass::Open(open.clone());
    Proposals::<Test>::insert(p, prop);
    open
}

/// The status of a proposal that went back to waiting for its reproduction in this block.
fn awaiting(primary: PrimaryPass<AccountId>) -> StatusOf<Test> {
    ProposalStatus::ReproductionQueued {
        primary,
        until: System::block_number() + REPRODUCTION_TIMEOUT,
    }
}

fn queue() -> Vec<ProposalId> {
    Queue::<Test>::get(id(ARENA)).into_inner()
}

/// Primary PASS by V1 (seed 1) only.
fn primary_pass(p: ProposalId, speedup_ppm: u32) {
    primary_pass_by(V1, p, speedup_ppm);
}

/// Primary PASS by `v` (evidence seed 10 + its index among V1..V3).
fn primary_pass_by(v: AccountId, p: ProposalId, speedup_ppm: u32) {
    let seed = if v == V1 { 1 } else { 10 + (v - V1) as u8 };
    assert_ok!(Cacheon::claim(signed(v), p));
    assert_ok!(attest_as(v, p, pass(speedup_ppm, seed)));
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
        assert_ok!(attest_as(V1, p, pass(1_050_000, 1)));
        assert!(matches!(
            status(p),
            ProposalStatus::ReproductionQueued { .. }
        ));
        assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V2), p));
        assert_ok!(attest_as(V2, p, pass(1_030_000, 2)));
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

// ---- Configuration (the admin origin) ----

mod config;

// ---- Miners: commit, reveal, withdraw ----

mod commit_reveal;

// ---- Leases ----

mod leases;

// ---- Attestations ----

mod attest;

// ---- Crowns ----

mod crown;

// ---- Weights and emissions ----

mod weights;

// ---- The settlement audit's attacks ----

mod attacks;

// ---- The second audit's attacks: hostile operators ----

mod hostile_operators;

// ---- Operator bonds ----

mod bonds;

// ---- Crown challenges ----

mod challenges;

// ---- The speedup cap per arena ----

mod speedup_cap;

// ---- Storage migrations ----

mod migrations;

// ---- Pruning in on_idle ----

mod pruning;

// ---- Blind verdicts: sealed primary PASSes ----

mod blind_verdicts;

// ---- Evaluation fees ----

mod fees;

// ---- Random call sequences (property test) ----

mod property;
