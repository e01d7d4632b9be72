//! A mock runtime for the pallet's unit tests: System, Balances and Cacheon, a small catalog
//! (three singleton slots and one atomic target), one CPU arena and three validators.

use crate as pallet_cacheon;
use crate::*;
use frame::testing_prelude::*;
use polkadot_sdk::pallet_balances;

type Block = frame_system::mocking::MockBlock<Test>;
pub type AccountId = u64;
pub type Balance = u128;

#[frame_construct_runtime]
mod runtime {
    #[runtime::runtime]
    #[runtime::derive(
        RuntimeCall,
        RuntimeEvent,
        RuntimeError,
        RuntimeOrigin,
        RuntimeFreezeReason,
        RuntimeHoldReason,
        RuntimeSlashReason,
        RuntimeLockId,
        RuntimeTask,
        RuntimeViewFunction
    )]
    pub struct Test;

    #[runtime::pallet_index(0)]
    pub type System = frame_system;
    #[runtime::pallet_index(1)]
    pub type Balances = pallet_balances;
    #[runtime::pallet_index(2)]
    pub type Cacheon = pallet_cacheon;
}

#[derive_impl(frame_system::config_preludes::TestDefaultConfig)]
impl frame_system::Config for Test {
    type Block = Block;
    type AccountData = pallet_balances::AccountData<Balance>;
}

#[derive_impl(pallet_balances::config_preludes::TestDefaultConfig)]
impl pallet_balances::Config for Test {
    type Balance = Balance;
    type AccountStore = System;
    type RuntimeHoldReason = RuntimeHoldReason;
}

pub const COMMIT_DEPOSIT: Balance = 100;
pub const BYTE_DEPOSIT: Balance = 1;
pub const REVEAL_FEE: Balance = 50;
pub const REVEAL_DELAY: u64 = 2;
/// The reveal window of the tests about it and about content priority (`ExtBuilder::
/// reveal_window`). Other tests run with a window of `REVEAL_DELAY` blocks: a proposal's
/// priority is then final the block it is revealed, so their crowns need no waiting.
pub const LONG_REVEAL_WINDOW: u64 = 20;
pub const MAX_QUEUE: u32 = 8;
pub const MAX_LEASES_PER_OPERATOR: u32 = 2;
pub const REPRODUCTION_TIMEOUT: u64 = 30;
/// Blocks a sealed primary PASS has for its reveal once the reproduction has PASSed.
pub const REVEAL_TIMEOUT: u64 = 10;
pub const MAX_SPEEDUP_PPM: u32 = 10_000_000;
pub const PROPOSAL_RETENTION: u64 = 100;
/// Covers the benchmarks' arena (`lease_blocks` 100) as well as this one's.
pub const PENDING_LIFETIME: u64 = 2_400;
pub const CHALLENGE_BOND: Balance = 1_000;
pub const CHALLENGE_WINDOW: u64 = 50;
pub const MAX_OPEN_CHALLENGES: u32 = 2;
/// Half of each crowning operator's bond, half of that to the challenger.
pub const REVOCATION_SLASH_PERCENT: u32 = 50;
pub const CHALLENGER_REWARD_PERCENT: u32 = 50;
/// Shorter than `CHALLENGE_WINDOW`, so that a withdrawal can meet an open challenge.
pub const UNBONDING_PERIOD: u64 = 20;

parameter_types! {
    pub const CacheonPalletId: PalletId = PalletId(*b"cacheon!");
    pub const CommitDeposit: Balance = COMMIT_DEPOSIT;
    pub const BundleByteDeposit: Balance = BYTE_DEPOSIT;
    pub const RevealFee: Balance = REVEAL_FEE;
    pub const RevealDelay: u64 = REVEAL_DELAY;
    pub static RevealWindow: u64 = REVEAL_DELAY;
    pub static MaxRevealsPerPeriod: u32 = 16;
    pub const RevealPeriod: u64 = EPOCH_BLOCKS;
    pub const ReproductionTimeout: u64 = REPRODUCTION_TIMEOUT;
    pub const RevealTimeout: u64 = REVEAL_TIMEOUT;
    pub const ProposalRetention: u64 = PROPOSAL_RETENTION;
    pub const PendingLifetime: u64 = PENDING_LIFETIME;
    pub const ChallengeBond: Balance = CHALLENGE_BOND;
    pub const ChallengeWindow: u64 = CHALLENGE_WINDOW;
    pub const RevocationSlash: Perbill = Perbill::from_percent(REVOCATION_SLASH_PERCENT);
    pub const ChallengerReward: Perbill = Perbill::from_percent(CHALLENGER_REWARD_PERCENT);
    pub const UnbondingPeriod: u64 = UNBONDING_PERIOD;
}

impl pallet_cacheon::Config for Test {
    type Currency = Balances;
    type RuntimeHoldReason = RuntimeHoldReason;
    type PalletId = CacheonPalletId;
    type CommitDeposit = CommitDeposit;
    type BundleByteDeposit = BundleByteDeposit;
    type RevealFee = RevealFee;
    type RevealDelay = RevealDelay;
    type RevealWindow = RevealWindow;
    type MaxPendingCommits = ConstU32<4>;
    type MaxRevealsPerPeriod = MaxRevealsPerPeriod;
    type RevealPeriod = RevealPeriod;
    type ReproductionTimeout = ReproductionTimeout;
    type RevealTimeout = RevealTimeout;
    type MaxSpeedupPpm = ConstU32<MAX_SPEEDUP_PPM>;
    type ProposalRetention = ProposalRetention;
    type PendingLifetime = PendingLifetime;
    type MaxQueueLen = ConstU32<MAX_QUEUE>;
    type MaxBundleBytes = ConstU32<{ 16 * 1024 }>;
    type MaxTargets = ConstU32<16>;
    type MaxValidators = ConstU32<4>;
    type MaxArenas = ConstU32<4>;
    type MaxClaims = ConstU32<64>;
    type MaxLeasesPerOperator = ConstU32<MAX_LEASES_PER_OPERATOR>;
    type MaxLeasesPerBlock = ConstU32<4>;
    type ChallengeBond = ChallengeBond;
    type ChallengeWindow = ChallengeWindow;
    type MaxOpenChallenges = ConstU32<MAX_OPEN_CHALLENGES>;
    type RevocationSlash = RevocationSlash;
    type ChallengerReward = ChallengerReward;
    type UnbondingPeriod = UnbondingPeriod;
    type AdminOrigin = frame_system::EnsureRoot<AccountId>;
    type WeightInfo = ();
}

// Accounts.
pub const ALICE: AccountId = 1; // miner
pub const BOB: AccountId = 2; // miner
pub const CAROL: AccountId = 3; // miner
pub const V1: AccountId = 11; // validator
pub const V2: AccountId = 12; // validator
pub const V3: AccountId = 13; // validator
pub const V4: AccountId = 14; // funded; registered by the tests that need a fourth operator
pub const OUTSIDER: AccountId = 20; // funded, not a validator
pub const BOOTSTRAP: AccountId = 99;
pub const INITIAL_BALANCE: Balance = 1_000_000;
pub const POT_FUNDS: Balance = 1_000_000;

pub const ARENA: &[u8] = b"cpu-tiny";
pub const SILU: &[u8] = b"activation.silu_and_mul";
pub const ROPE: &[u8] = b"position.rope";
pub const DECODE: &[u8] = b"attention.decode";
pub const ROPE_DECODE: &[u8] = b"attention.rope_decode.v1";

pub const EPOCH_BLOCKS: u64 = 10;
pub const HALF_LIFE: u64 = 100;
pub const MARGIN_PPM: u32 = 10_000;
pub const LEASE_BLOCKS: u64 = 5;
pub const MAX_ATTEMPTS: u32 = 3;

pub fn id(s: &[u8]) -> Id {
    Id::try_from(s.to_vec()).expect("test id fits")
}

pub fn slot_target(s: &[u8]) -> TargetSpec {
    TargetSpec {
        id: id(s),
        kind: TargetKind::Slot,
        members: BoundedVec::truncate_from(vec![id(s)]),
        displaces: BoundedVec::new(),
        allowed_features: BoundedVec::new(),
        status: Status::Active,
    }
}

pub fn atomic_target() -> TargetSpec {
    TargetSpec {
        id: id(ROPE_DECODE),
        kind: TargetKind::Atomic,
        members: BoundedVec::truncate_from(vec![id(ROPE), id(DECODE)]),
        displaces: BoundedVec::truncate_from(vec![id(ROPE), id(DECODE)]),
        allowed_features: BoundedVec::new(),
        status: Status::Active,
    }
}

pub fn arena_config(required_distinct_validators: u32) -> ArenaConfigOf<Test> {
    ArenaConfig {
        id: id(ARENA),
        backend: Backend::Cpu,
        hardware: id(b"x86-64-v3"),
        model_digest: [1; 32],
        workload_digest: [2; 32],
        stock_digest: [3; 32],
        targets: BoundedVec::truncate_from(vec![id(SILU), id(ROPE), id(DECODE), id(ROPE_DECODE)]),
        policy: ArenaPolicy {
            min_margin_ppm: MARGIN_PPM,
            max_noise_ppm: 20_000,
            noise_multiplier: 3,
            lease_blocks: LEASE_BLOCKS,
            max_attempts: MAX_ATTEMPTS,
            required_distinct_validators,
            max_speedup_ppm: MAX_SPEEDUP_PPM,
        },
        status: Status::Active,
    }
}

pub fn emissions(emission_per_epoch: Balance) -> EmissionsPolicyOf<Test> {
    EmissionsPolicy {
        half_life_blocks: HALF_LIFE,
        epoch_blocks: EPOCH_BLOCKS,
        emission_per_epoch,
        bootstrap_account: BOOTSTRAP,
    }
}

/// Test state builder: the catalog, one arena needing two validators, V1..V3 registered.
pub struct ExtBuilder {
    required_distinct_validators: u32,
    reveal_window: u64,
    emission: Balance,
    evaluation_fee: Option<Balance>,
}

impl Default for ExtBuilder {
    fn default() -> Self {
        Self {
            required_distinct_validators: 2,
            reveal_window: REVEAL_DELAY,
            emission: 0,
            evaluation_fee: None,
        }
    }
}

impl ExtBuilder {
    pub fn single_validator(mut self) -> Self {
        self.required_distinct_validators = 1;
        self
    }
    /// A reveal window of `LONG_REVEAL_WINDOW` blocks instead of `REVEAL_DELAY`.
    pub fn reveal_window(mut self) -> Self {
        self.reveal_window = LONG_REVEAL_WINDOW;
        self
    }
    pub fn emission(mut self, e: Balance) -> Self {
        self.emission = e;
        self
    }
    /// The arena quotes an evaluation fee of `per_verdict` (a 1 s attempt at that price).
    pub fn evaluation_fee(mut self, per_verdict: Balance) -> Self {
        self.evaluation_fee = Some(per_verdict);
        self
    }
    pub fn build(self) -> TestState {
        RevealWindow::set(self.reveal_window);
        let pot: AccountId = Cacheon::pot_account();
        let mut balances: Vec<(AccountId, Balance)> = [ALICE, BOB, CAROL, V1, V2, V3, V4, OUTSIDER]
            .iter()
            .map(|a| (*a, INITIAL_BALANCE))
            .collect();
        balances.push((pot, POT_FUNDS));
        let storage = RuntimeGenesisConfig {
            system: Default::default(),
            balances: pallet_balances::GenesisConfig {
                balances,
                ..Default::default()
            },
            cacheon: pallet_cacheon::GenesisConfig {
                targets: vec![
                    slot_target(SILU),
                    slot_target(ROPE),
                    slot_target(DECODE),
                    atomic_target(),
                ],
                arenas: vec![arena_config(self.required_distinct_validators)],
                // Each key its own operator; tests add second keys of an operator themselves.
                validators: vec![
                    (id(ARENA), V1, V1),
                    (id(ARENA), V2, V2),
                    (id(ARENA), V3, V3),
                ],
                emissions: Some(emissions(self.emission)),
                evaluation_fees: self
                    .evaluation_fee
                    .map(|price_per_second| {
                        let fee = EvaluationFee {
                            attempt_ms: 1_000,
                            price_per_second,
                        };
                        vec![(id(ARENA), fee)]
                    })
                    .unwrap_or_default(),
            },
        }
        .build_storage()
        .expect("mock genesis builds");
        SEALED.with(|s| s.borrow_mut().clear());
        let mut ext = TestState::new(storage);
        ext.execute_with(|| System::set_block_number(1));
        ext
    }

    /// Builds the state, runs `test`, then checks every `try_state` invariant.
    pub fn build_and_execute(self, test: impl FnOnce()) {
        self.build().execute_with(|| {
            test();
            Cacheon::do_try_state().expect("try_state invariants hold after the test");
        })
    }
}

/// Advances to block `n`, running the pallet's `on_initialize` for every block on the way.
pub fn run_to_block(n: u64) {
    System::run_to_block::<AllPalletsWithSystem>(n);
}

/// A small canonical C bundle whose contents depend on `tag`.
pub fn bundle(tag: &str) -> BoundedVec<u8, ConstU32<{ 16 * 1024 }>> {
    use cacheon_primitives::{canonical_bytes, BundleFile, BundleLimits};
    let files = vec![
        BundleFile {
            path: "kernels/k.c".into(),
            data: format!("/* {tag} */ void k(void) {{}}\n").into_bytes(),
        },
        BundleFile {
            path: "manifest.toml".into(),
            data: b"abi = \"cacheon-slot-abi-v1\"\n".to_vec(),
        },
    ];
    BoundedVec::try_from(canonical_bytes(files, &BundleLimits::DEFAULT).unwrap()).unwrap()
}

pub const SALT: [u8; 32] = [42; 32];

/// The commitment `miner` must publish to reveal `bytes` for `target`.
pub fn commitment_for(miner: AccountId, target: &[u8], bytes: &[u8]) -> Commitment {
    cacheon_primitives::commitment(
        &miner,
        ARENA,
        target,
        &cacheon_primitives::content_hash(bytes),
        &SALT,
    )
}

/// Commits, waits `RevealDelay` blocks, reveals; returns the new proposal id.
pub fn submit(miner: AccountId, target: &[u8], tag: &str) -> ProposalId {
    let bytes = bundle(tag);
    assert_ok!(Cacheon::commit(
        RuntimeOrigin::signed(miner),
        commitment_for(miner, target, &bytes)
    ));
    run_to_block(System::block_number() + REVEAL_DELAY);
    let next = NextProposalId::<Test>::get();
    assert_ok!(Cacheon::reveal(
        RuntimeOrigin::signed(miner),
        id(ARENA),
        id(target),
        SALT,
        bytes
    ));
    next
}

/// An attestation at the arena's current generation with digests derived from `seed`.
pub fn attestation(verdict: Verdict, seed: u8) -> Attestation {
    let generation = Arenas::<Test>::get(id(ARENA)).unwrap().generation;
    Attestation {
        verdict,
        incumbent_generation: generation,
        evidence_digest: [seed; 32],
        attempt_digest: [seed.wrapping_add(100); 32],
    }
}

pub fn pass(speedup_ppm: u32, seed: u8) -> Attestation {
    attestation(Verdict::Pass { speedup_ppm }, seed)
}

/// Advances to the first block at which `proposal`'s crowning attempt may be leased: every
/// commitment older than its own is past its reveal window.
pub fn until_priority_final(proposal: ProposalId) {
    let commit_block = Proposals::<Test>::get(proposal)
        .expect("proposal exists")
        .commit_block;
    let ready = commit_block + RevealWindow::get();
    if System::block_number() < ready {
        run_to_block(ready);
    }
}

/// The salt with which [`attest_as`] seals primary PASSes.
pub const SEAL_SALT: [u8; 32] = [0x5a; 32];

/// A sealed PASS's values, kept by its validator until the reveal.
pub type SealedValues = (u32, EvidenceDigest, [u8; 32]);

/// Sealed PASSes' values by proposal and validator.
type SealedStore = std::collections::BTreeMap<(ProposalId, AccountId), SealedValues>;

std::thread_local! {
    /// What [`attest_as`] sealed: what an honest validator keeps in its store until it
    /// reveals.
    static SEALED: core::cell::RefCell<SealedStore> = Default::default();
}

/// The seal of `validator`'s PASS `a` of `proposal` with [`SEAL_SALT`].
pub fn seal_of(proposal: ProposalId, validator: AccountId, a: &Attestation) -> [u8; 32] {
    let Verdict::Pass { speedup_ppm } = a.verdict else {
        panic!("only a PASS is sealed");
    };
    cacheon_primitives::pass_seal(
        proposal,
        &validator,
        a.incumbent_generation,
        speedup_ppm,
        &a.evidence_digest,
        &a.attempt_digest,
        &SEAL_SALT,
    )
}

/// `validator` attests `a` on `proposal` as an honest validator does: a primary PASS in an
/// arena where two operators must agree is sealed (`attest_sealed`, the values kept), and
/// once a reproduction's PASS leaves a sealed PASS awaiting its reveal, the sealer reveals it
/// at once (`reveal_pass`). Returns the attestation's result.
pub fn attest_as(
    validator: AccountId,
    proposal: ProposalId,
    a: Attestation,
) -> DispatchResultWithPostInfo {
    let sealed_primary = Proposals::<Test>::get(proposal).is_some_and(|p| {
        matches!(p.status, ProposalStatus::Primary { .. })
            && Arenas::<Test>::get(&p.arena)
                .is_some_and(|a| a.config.policy.required_distinct_validators > 1)
    });
    match a.verdict {
        Verdict::Pass { speedup_ppm } if sealed_primary => {
            let seal = seal_of(proposal, validator, &a);
            let r = Cacheon::attest_sealed(
                RuntimeOrigin::signed(validator),
                proposal,
                a.incumbent_generation,
                seal,
            );
            if r.is_ok() {
                SEALED.with(|s| {
                    s.borrow_mut().insert(
                        (proposal, validator),
                        (speedup_ppm, a.evidence_digest, a.attempt_digest),
                    )
                });
            }
            r
        }
        _ => {
            let r = Cacheon::attest(RuntimeOrigin::signed(validator), proposal, a)?;
            reveal_kept(proposal);
            Ok(r)
        }
    }
}

/// The sealer of `proposal`'s PASS reveals it, if the proposal awaits that reveal and the
/// seal was made by [`attest_as`].
pub fn reveal_kept(proposal: ProposalId) {
    if let Some(r) = try_reveal_kept(proposal) {
        assert_ok!(r);
    }
}

/// The sealer's reveal of `proposal`'s PASS with the values [`attest_as`] kept, and its
/// result; `None` when the proposal awaits no reveal of a PASS sealed that way.
pub fn try_reveal_kept(proposal: ProposalId) -> Option<DispatchResultWithPostInfo> {
    let Some(ProposalStatus::AwaitingReveal { primary, .. }) =
        Proposals::<Test>::get(proposal).map(|p| p.status)
    else {
        return None;
    };
    let (speedup_ppm, evidence, attempt) =
        SEALED.with(|s| s.borrow().get(&(proposal, primary.validator)).copied())?;
    Some(Cacheon::reveal_pass(
        RuntimeOrigin::signed(primary.validator),
        proposal,
        speedup_ppm,
        evidence,
        attempt,
        SEAL_SALT,
    ))
}

/// The kept values of `validator`'s sealed PASS of `proposal`: speedup and digests.
pub fn kept(proposal: ProposalId, validator: AccountId) -> Option<SealedValues> {
    SEALED.with(|s| s.borrow().get(&(proposal, validator)).copied())
}

/// Runs the primary and reproduction PASSes (V1 then V2) so that `proposal` is crowned (the
/// primary PASS sealed and revealed where two operators must agree).
pub fn crown_with(proposal: ProposalId, speedup_ppm: u32) {
    assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V1), proposal));
    assert_ok!(attest_as(V1, proposal, pass(speedup_ppm, 1)));
    until_priority_final(proposal);
    assert_ok!(Cacheon::claim(RuntimeOrigin::signed(V2), proposal));
    assert_ok!(attest_as(V2, proposal, pass(speedup_ppm, 2)));
}

pub fn status(proposal: ProposalId) -> StatusOf<Test> {
    Proposals::<Test>::get(proposal)
        .expect("proposal exists")
        .status
}

/// The pallet's events so far, newest last.
pub fn cacheon_events() -> Vec<pallet_cacheon::Event<Test>> {
    System::events()
        .into_iter()
        .filter_map(|r| {
            if let RuntimeEvent::Cacheon(e) = r.event {
                Some(e)
            } else {
                None
            }
        })
        .collect()
}
