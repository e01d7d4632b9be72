//! Random call sequences. Every seed drives a deterministic random walk of `STEPS` steps over
//! the calls miners, validators and the admin make (commit, reveal, cancel, withdraw, claim,
//! attest (sealed primary PASSes and their reveals, some missed), validator changes, arena, target and emissions changes, overturned FAILs, operator
//! bonds and the arena's required bond, crown challenges, their leases and answers), the
//! passing of blocks (`on_initialize`: lease expiries, reproduction time-outs, proposals at
//! the end of their lifetime, epoch closes and payouts) and
//! `on_idle` with a random weight (pruning). After every step, and after every block of a step
//! that advances time, all `try_state` invariants must hold, whether the step's call succeeded
//! or failed. Calls are dispatched as `RuntimeCall`s, so a failed call leaves no writes behind,
//! as on a chain.
//!
//! A failure names the seed, the step and the action just taken. To replay one seed and print
//! every step with its result:
//!
//! ```text
//! CACHEON_PROPERTY_SEED=17 CACHEON_PROPERTY_TRACE=1 SKIP_WASM_BUILD=1 cargo nextest run \
//!     -p pallet-cacheon --features runtime-benchmarks property --no-capture
//! ```

use super::*;
use frame::traits::Hooks;
use std::collections::BTreeMap;

/// The steps about stakes: bonds and crown challenges.
mod stakes;
/// Seeds of a full run, and steps per seed.
mod walk;

const SEEDS: u64 = 32;
const STEPS: u32 = 250;

/// Who reveals bundles. V3 is a validator too: its own proposals must never be leased to its
/// operator's keys.
const MINERS: [AccountId; 4] = [ALICE, BOB, CAROL, V3];
const VALIDATOR_KEYS: [AccountId; 4] = [V1, V2, V3, V4];
/// V4 is an operator of its own in the seeds that register it so (`Setup::fourth_operator`),
/// or when the walk does.
const OPERATORS: [AccountId; 4] = [V1, V2, V3, V4];
const TARGETS: [Name; 4] = [Name(SILU), Name(ROPE), Name(DECODE), Name(ROPE_DECODE)];
/// Bundle contents: two of its own per miner (`MINERS[i]` owns `TAGS[2 * i]` and
/// `TAGS[2 * i + 1]`). Miners sometimes commit another's, so copies happen.
const TAGS: [&str; 8] = [
    "alice-1", "alice-2", "bob-1", "bob-2", "carol-1", "carol-2", "v3-1", "v3-2",
];
const FAIL_REASONS: [FailReason; 8] = [
    FailReason::Build,
    FailReason::Abi,
    FailReason::Incorrect,
    FailReason::GraphUnsafe,
    FailReason::NotFaster,
    FailReason::BehaviourChanged,
    FailReason::Cheating,
    FailReason::Policy,
];
const NO_DECISION_REASONS: [NoDecisionReason; 3] = [
    NoDecisionReason::Infrastructure,
    NoDecisionReason::Noise,
    NoDecisionReason::Timeout,
];
/// The evaluation fee per verdict of the seeds whose arena quotes one.
const EVALUATION_FEE: Balance = 30;
/// The emission per epoch of the seeds that pay emissions.
const EMISSION: Balance = 10_000;

/// A splitmix64 generator: small, deterministic and good enough to pick actions.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed ^ 0xCAC4_E0AA_5EED_0001)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.below(high - low + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A target id that prints as text.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Name(&'static [u8]);

impl core::fmt::Debug for Name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(core::str::from_utf8(self.0).unwrap_or("<not utf-8>"))
    }
}

/// One step of a walk.
#[derive(Clone, Debug)]
enum Action {
    Commit {
        miner: AccountId,
        target: Name,
        tag: &'static str,
    },
    /// Reveals the bundle of `tag` (usually the one committed to; sometimes other bytes).
    Reveal {
        miner: AccountId,
        target: Name,
        tag: &'static str,
    },
    CancelCommit {
        miner: AccountId,
        target: Name,
        tag: &'static str,
    },
    Withdraw {
        miner: AccountId,
        proposal: ProposalId,
    },
    Claim {
        validator: AccountId,
        proposal: ProposalId,
    },
    Attest {
        validator: AccountId,
        proposal: ProposalId,
        verdict: Verdict,
        generation: u32,
        evidence: u8,
        attempt: u8,
    },
    /// A primary PASS attested as its seal (with [`SEAL_SALT`]).
    AttestSealed {
        validator: AccountId,
        proposal: ProposalId,
        generation: u32,
        speedup_ppm: u32,
        evidence: u8,
        attempt: u8,
    },
    /// Opens a sealed PASS (usually with the sealed values, by its sealer).
    RevealPass {
        validator: AccountId,
        proposal: ProposalId,
        speedup_ppm: u32,
        evidence: u8,
        attempt: u8,
    },
    /// Runs `on_initialize` (and `on_finalize`) for each of the next `blocks` blocks.
    Advance {
        blocks: u64,
    },
    Idle {
        weight: Weight,
    },
    RemoveValidator {
        validator: AccountId,
    },
    AddValidator {
        validator: AccountId,
        operator: AccountId,
    },
    SetArena {
        required_distinct_validators: u32,
        lease_blocks: u64,
        max_attempts: u32,
        max_speedup_ppm: u32,
        paused: bool,
    },
    SetTargetStatus {
        target: Name,
        paused: bool,
    },
    SetEmissions {
        epoch_blocks: u64,
        emission_per_epoch: Balance,
    },
    /// Overturns a FAIL (from the admin origin, or not).
    OverturnFail {
        proposal: ProposalId,
        admin: bool,
    },
    /// An operator bonds (or takes back) `amount` in the arena.
    Bond {
        operator: AccountId,
        amount: Balance,
        unbond: bool,
    },
    /// An operator withdraws what it unbonded in the arena.
    WithdrawUnbonded {
        operator: AccountId,
    },
    /// The admin origin sets the arena's required bond.
    SetRequiredBond {
        amount: Balance,
    },
    /// Runs `on_initialize` up to block `to` (a pending proposal's lifetime end), checking
    /// the invariants once there.
    Jump {
        to: u64,
    },
    Challenge {
        challenger: AccountId,
        proposal: ProposalId,
    },
    ClaimChallenge {
        validator: AccountId,
        challenge: ChallengeId,
    },
    AnswerChallenge {
        validator: AccountId,
        challenge: ChallengeId,
        verdict: Verdict,
        evidence: u8,
    },
}

impl Action {
    fn name(&self) -> &'static str {
        match self {
            Action::Commit { .. } => "commit",
            Action::Reveal { .. } => "reveal",
            Action::CancelCommit { .. } => "cancel_commit",
            Action::Withdraw { .. } => "withdraw",
            Action::Claim { .. } => "claim",
            Action::Attest { .. } => "attest",
            Action::AttestSealed { .. } => "attest_sealed",
            Action::RevealPass { .. } => "reveal_pass",
            Action::Advance { .. } => "advance",
            Action::Idle { .. } => "on_idle",
            Action::RemoveValidator { .. } => "remove_validator",
            Action::AddValidator { .. } => "add_validator",
            Action::SetArena { .. } => "set_arena",
            Action::SetTargetStatus { .. } => "set_target",
            Action::SetEmissions { .. } => "set_emissions",
            Action::OverturnFail { .. } => "overturn_fail",
            Action::Bond { unbond: false, .. } => "bond",
            Action::Bond { unbond: true, .. } => "unbond",
            Action::WithdrawUnbonded { .. } => "withdraw_unbonded",
            Action::SetRequiredBond { .. } => "set_required_bond",
            Action::Jump { .. } => "jump",
            Action::Challenge { .. } => "challenge",
            Action::ClaimChallenge { .. } => "claim_challenge",
            Action::AnswerChallenge { .. } => "answer_challenge",
        }
    }
}

/// How a seed's chain is built.
#[derive(Clone, Copy, Debug)]
struct Setup {
    emission: bool,
    long_reveal_window: bool,
    single_validator: bool,
    /// V4 registered as a fourth operator from the start, and every operator bonded: with
    /// two operators crowning, two are left to answer a challenge.
    fourth_operator: bool,
    /// The arena quotes an evaluation fee: reveals hold it, confirmed verdicts are paid.
    evaluation_fee: bool,
}

impl Setup {
    fn for_seed(seed: u64) -> Self {
        Self {
            emission: seed & 1 == 1,
            long_reveal_window: seed & 2 == 2,
            single_validator: seed & 12 == 12,
            fourth_operator: seed & 16 == 16,
            evaluation_fee: seed & 4 == 4,
        }
    }

    fn builder(self) -> ExtBuilder {
        let mut builder = ExtBuilder::default();
        if self.emission {
            builder = builder.emission(EMISSION);
        }
        if self.long_reveal_window {
            builder = builder.reveal_window();
        }
        if self.single_validator {
            builder = builder.single_validator();
        }
        if self.evaluation_fee {
            builder = builder.evaluation_fee(EVALUATION_FEE);
        }
        builder
    }
}

/// What happened over all seeds: calls that succeeded and failed per call, and the events
/// that show the walks reach the interesting states.
#[derive(Default, Debug)]
struct Tally {
    /// Call name → (succeeded, failed).
    calls: BTreeMap<&'static str, (u32, u32)>,
    crowns: u32,
    verdicts_paid: u32,
    fees_returned: u32,
    retirements: u32,
    fails: u32,
    disputed_fails: u32,
    disagreements: u32,
    lease_expiries: u32,
    reproduction_timeouts: u32,
    expiries: u32,
    stale_attestations: u32,
    passes_sealed: u32,
    passes_revealed: u32,
    reveals_missed: u32,
    passes_dropped: u32,
    proposals_dropped: u32,
    deposits_slashed: u32,
    content_reclaimed: u32,
    copies_ended: u32,
    lifetimes_ended: u32,
    overturns: u32,
    bonds: u32,
    unbonds: u32,
    withdrawals: u32,
    challenges: u32,
    challenge_answers: u32,
    revocations: u32,
    slashes: u32,
    rejections: u32,
    challenge_expiries: u32,
    prunes: u32,
    weight_vectors: u32,
    emissions_paid: u32,
}

impl Tally {
    /// Counts the pallet's events since the last call and clears them (a new block clears
    /// them too, so this runs after every block and every call).
    fn record_events(&mut self) {
        use crate::Event as E;
        for event in cacheon_events() {
            match event {
                E::Crowned { .. } => self.crowns += 1,
                E::VerdictPaid { .. } => self.verdicts_paid += 1,
                E::EvaluationFeeReturned { .. } => self.fees_returned += 1,
                E::Retired { .. } => self.retirements += 1,
                E::Failed { .. } => self.fails += 1,
                E::FailRecorded { .. } => self.disputed_fails += 1,
                E::AttestationsDisagreed { .. } => self.disagreements += 1,
                E::LeaseExpired { .. } => self.lease_expiries += 1,
                E::ReproductionTimedOut { .. } => self.reproduction_timeouts += 1,
                E::Expired { .. } => self.expiries += 1,
                E::AttestationStale { .. } => self.stale_attestations += 1,
                E::PassSealed { .. } => self.passes_sealed += 1,
                E::PassRevealed { .. } => self.passes_revealed += 1,
                E::RevealMissed { .. } => self.reveals_missed += 1,
                E::PassDropped { .. } => self.passes_dropped += 1,
                E::ProposalDropped { .. } => self.proposals_dropped += 1,
                E::DepositSlashed { .. } => self.deposits_slashed += 1,
                E::ContentReclaimed { .. } => self.content_reclaimed += 1,
                E::CopyEnded { .. } => self.copies_ended += 1,
                E::LifetimeEnded { .. } => self.lifetimes_ended += 1,
                E::FailOverturned { .. } => self.overturns += 1,
                E::OperatorBonded { .. } => self.bonds += 1,
                E::OperatorUnbonded { .. } => self.unbonds += 1,
                E::UnbondedWithdrawn { .. } => self.withdrawals += 1,
                E::ChallengeOpened { .. } => self.challenges += 1,
                E::ChallengeAnswered { .. } => self.challenge_answers += 1,
                E::CrownRevoked { .. } => self.revocations += 1,
                E::OperatorSlashed { amount, .. } if amount > 0 => self.slashes += 1,
                E::ChallengeRejected { .. } => self.rejections += 1,
                E::ChallengeExpired { .. } => self.challenge_expiries += 1,
                E::ProposalPruned { .. } => self.prunes += 1,
                E::WeightsSet { .. } => self.weight_vectors += 1,
                E::EmissionsPaid { total, .. } if total > 0 => self.emissions_paid += 1,
                _ => {}
            }
        }
        System::reset_events();
    }

    fn record_call(&mut self, name: &'static str, succeeded: bool) {
        let entry = self.calls.entry(name).or_default();
        if succeeded {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
}

/// A commitment the walk made, with what it needs to reveal or cancel it.
#[derive(Clone, Copy)]
struct Committed {
    miner: AccountId,
    target: Name,
    tag: &'static str,
    commitment: Commitment,
}

impl Committed {
    fn cancel(&self) -> Action {
        Action::CancelCommit {
            miner: self.miner,
            target: self.target,
            tag: self.tag,
        }
    }

    fn new(miner: AccountId, target: Name, tag: &'static str) -> Self {
        let commitment = commitment_for(miner, target.0, &bundle(tag));
        Self {
            miner,
            target,
            tag,
            commitment,
        }
    }

    /// The block it was committed at, while it is still pending.
    fn committed_at(&self) -> Option<u64> {
        Commits::<Test>::get(self.miner, self.commitment).map(|c| c.at)
    }

    /// Whether it can still be revealed, now or later.
    fn open(&self) -> bool {
        self.committed_at()
            .is_some_and(|at| now() <= at + RevealWindow::get())
    }
}

/// One seed's random walk.
struct Walk {
    seed: u64,
    setup: Setup,
    rng: Rng,
    trace: bool,
    /// The commitments made so far that may still be pending (`Commits` says which are).
    commits: Vec<Committed>,
    /// An action the previous step prepared (a reveal after waiting for its block).
    planned: Option<Action>,
    /// What each accepted sealed PASS sealed, by proposal and sealer: speedup and the
    /// evidence and attempt digests' seeds, as a validator keeps them until its reveal.
    sealed: BTreeMap<(ProposalId, AccountId), (u32, u8, u8)>,
    step: u32,
    /// Total issuance at genesis: every step must keep it.
    issuance: Balance,
}

impl Walk {
    /// Checks every invariant; a violation panics with everything needed to replay it.
    fn check(&self, after: &str) {
        // Fees, deposits, bonds, slashes and emissions only move balances: nothing is minted
        // or burnt.
        assert_eq!(
            Balances::total_issuance(),
            self.issuance,
            "total issuance changed: seed {} ({:?}), step {}, after {after}",
            self.seed,
            self.setup,
            self.step
        );
        Cacheon::do_try_state().unwrap_or_else(|e| {
            panic!(
                "invariant broken: seed {} ({:?}), step {}, block {}, after {after}: {e:?}\n\
                 replay with CACHEON_PROPERTY_SEED={} CACHEON_PROPERTY_TRACE=1",
                self.seed,
                self.setup,
                self.step,
                now(),
                self.seed
            )
        });
    }
}

/// The same state as `chain`, all of it in the overlay of an empty trie backend.
///
/// `TestState` keeps the genesis state in a trie backend without a cache, and every storage
/// iteration seeks into that trie again: in a debug build this makes this test, which spends
/// most of its time in `do_try_state` iterating the pallet's maps, about twice as slow. The
/// overlay is a sorted map.
fn in_overlay(mut chain: TestState) -> TestState {
    use frame::deps::sp_io::storage;
    let pairs = chain.execute_with(|| {
        let mut pairs = Vec::new();
        let mut key = Vec::new();
        while let Some(next) = storage::next_key(&key) {
            let value = storage::get(&next).expect("an iterated key has a value");
            pairs.push((next.clone(), value.to_vec()));
            key = next;
        }
        pairs
    });
    let mut fresh = TestState::new_empty();
    fresh.execute_with(|| {
        for (key, value) in pairs {
            storage::set(&key, &value);
        }
    });
    fresh
}

/// Seeds to run: all of them, or only `CACHEON_PROPERTY_SEED`.
fn seeds() -> Vec<u64> {
    match std::env::var("CACHEON_PROPERTY_SEED") {
        Ok(seed) => vec![seed
            .trim()
            .parse()
            .expect("CACHEON_PROPERTY_SEED is a number")],
        Err(_) => (0..SEEDS).collect(),
    }
}

#[test]
fn invariants_hold_after_every_call_of_random_sequences() {
    let trace = std::env::var_os("CACHEON_PROPERTY_TRACE").is_some();
    let seeds = seeds();
    let mut tally = Tally::default();
    for seed in seeds.iter().copied() {
        Walk::new(seed, trace).run(STEPS, &mut tally);
    }
    println!("{} seeds x {STEPS} steps: {tally:#?}", seeds.len());
    if seeds.len() as u64 == SEEDS {
        // The walks must reach the states the invariants are about, or they prove nothing.
        assert!(tally.crowns > 0, "no crown: {tally:#?}");
        assert!(
            tally.verdicts_paid > 0 && tally.fees_returned > 0,
            "no verdict was paid, or no evaluation fee returned: {tally:#?}"
        );
        assert!(tally.retirements > 0, "no crown was superseded: {tally:#?}");
        assert!(tally.fails > 0, "no FAIL stuck: {tally:#?}");
        assert!(tally.lease_expiries > 0, "no lease expired: {tally:#?}");
        assert!(
            tally.reproduction_timeouts > 0,
            "no reproduction wait timed out: {tally:#?}"
        );
        assert!(tally.expiries > 0, "no proposal expired: {tally:#?}");
        assert!(
            tally.proposals_dropped > 0,
            "no atomic crown displaced a pending proposal: {tally:#?}"
        );
        assert!(tally.prunes > 0, "nothing was pruned: {tally:#?}");
        assert!(
            tally.lifetimes_ended > 0,
            "no proposal reached the end of its lifetime: {tally:#?}"
        );
        assert!(tally.overturns > 0, "no FAIL was overturned: {tally:#?}");
        assert!(
            tally.bonds > 0 && tally.unbonds > 0 && tally.withdrawals > 0,
            "no operator bonded, unbonded and withdrew: {tally:#?}"
        );
        assert!(tally.emissions_paid > 0, "no emission was paid: {tally:#?}");
        assert!(
            tally.revocations > 0 && tally.slashes > 0,
            "no crown was revoked with a slash: {tally:#?}"
        );
        assert!(
            tally.rejections > 0,
            "no challenge was rejected: {tally:#?}"
        );
        assert!(
            tally.challenge_expiries > 0,
            "no challenge expired: {tally:#?}"
        );
        assert!(
            tally.passes_sealed > 0 && tally.passes_revealed > 0 && tally.reveals_missed > 0,
            "no PASS was sealed, revealed, or left unrevealed: {tally:#?}"
        );
    }
}
