//! The pallet's stored and dispatched types.

use crate::*;
use serde::{Deserialize, Serialize};

/// An arena, target or slot id: short ASCII (see [`cacheon_primitives::is_valid_id`]).
pub type Id = BoundedVec<u8, ConstU32<{ cacheon_primitives::MAX_ID_LEN }>>;
pub type ArenaId = Id;
pub type TargetId = Id;

pub use cacheon_primitives::{is_valid_endpoint, MAX_ENDPOINT_BYTES};
/// Where a validator serves its evidence reports (`is_valid_endpoint` says which URLs).
pub type Endpoint = BoundedVec<u8, ConstU32<MAX_ENDPOINT_BYTES>>;
pub type SlotId = Id;

/// Most members, displaced targets or features of one target.
pub const MAX_MEMBERS: u32 = 8;
/// Largest `max_attempts` an arena policy may set.
pub const MAX_ATTEMPTS_BOUND: u32 = 8;
/// Most operators a proposal can exclude: those whose stall (NoDecision, lease expiry) counted
/// as an attempt (at most `MAX_ATTEMPTS_BOUND` before it expires), and the one whose FAIL
/// waits for a second opinion. (Stale attestations exclude too, while there is room.)
pub const MAX_EXCLUDED: u32 = MAX_ATTEMPTS_BOUND + 1;
pub type MaxExcluded = ConstU32<MAX_EXCLUDED>;
/// The PASSes a crown keeps: the primary's and the reproduction's.
pub type MaxPasses = ConstU32<2>;
/// Most targets one arena allows.
pub const MAX_ARENA_TARGETS: u32 = 32;
pub type MaxMembers = ConstU32<MAX_MEMBERS>;
pub type MaxArenaTargets = ConstU32<MAX_ARENA_TARGETS>;

/// Whether a catalog entry or arena accepts new proposals.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub enum Status {
    Active,
    Paused,
}

/// One catalog entry (DESIGN 4.1). A singleton's id equals its only member slot; an atomic
/// target names at least two member slots and displaces each member's singleton.
#[derive(
    Clone,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub struct TargetSpec {
    pub id: TargetId,
    pub kind: TargetKind,
    pub members: BoundedVec<SlotId, MaxMembers>,
    /// Targets whose incumbent entries a crown of this target removes.
    pub displaces: BoundedVec<TargetId, MaxMembers>,
    /// Bundle features this target allows (for example `tensor-cores`); checked off chain.
    pub allowed_features: BoundedVec<Id, MaxMembers>,
    pub status: Status,
}

/// How an arena decides (DESIGN 4.1).
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub struct ArenaPolicy<BlockNumber> {
    /// A PASS needs `speedup_ppm >= 1_000_000 + min_margin_ppm`.
    pub min_margin_ppm: u32,
    /// Baseline drift beyond this is NoDecision.
    pub max_noise_ppm: u32,
    /// Width of the noise band in units of measured noise (off-chain use).
    pub noise_multiplier: u32,
    /// How long a lease lasts.
    pub lease_blocks: BlockNumber,
    /// NoDecisions and lease expiries a proposal may take before it expires (at most
    /// [`MAX_ATTEMPTS_BOUND`]); each comes from another operator.
    pub max_attempts: u32,
    /// 1 (a single PASS crowns and a FAIL sticks at once: development only) or 2 (a
    /// reproduction by another operator, and a second opinion on a disputable FAIL).
    pub required_distinct_validators: u32,
    /// The largest speedup a PASS may report here (ppm): above it, a measurement fault, not
    /// a kernel (one kernel boundary cannot make this arena's engine that much faster). At
    /// least the margin's floor, at most the chain's `MaxSpeedupPpm`.
    pub max_speedup_ppm: u32,
}

/// An arena as governance configures it.
#[derive(
    Clone,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub struct ArenaConfig<BlockNumber> {
    pub id: ArenaId,
    pub backend: Backend,
    /// Hardware class, for example `sm90` or `x86-64-v3`.
    pub hardware: Id,
    pub model_digest: [u8; 32],
    pub workload_digest: [u8; 32],
    /// Digest of the validator-owned stock bundles that form the genesis incumbent stack.
    pub stock_digest: [u8; 32],
    /// The targets miners may propose in this arena.
    pub targets: BoundedVec<TargetId, MaxArenaTargets>,
    pub policy: ArenaPolicy<BlockNumber>,
    pub status: Status,
}

/// An arena with the state the chain keeps for it.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct ArenaInfo<BlockNumber> {
    pub config: ArenaConfig<BlockNumber>,
    /// Goes up by one with every crown; attestations name the generation they measured.
    pub generation: u32,
    /// Registered validators.
    pub validators: u32,
}

/// Emissions (DESIGN 4.1, 4.4).
#[derive(
    Clone,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub struct EmissionsPolicy<AccountId, BlockNumber, Balance> {
    pub half_life_blocks: BlockNumber,
    pub epoch_blocks: BlockNumber,
    pub emission_per_epoch: Balance,
    /// Receives the whole weight vector while nothing is crowned.
    pub bootstrap_account: AccountId,
}

/// A pending commitment: when it was made and the deposit held for it.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct CommitRecord<BlockNumber, Balance> {
    pub at: BlockNumber,
    pub deposit: Balance,
}

/// Who owns a ContentHash: the proposal with the earliest commitment that revealed it.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct ContentOwner<AccountId, BlockNumber> {
    pub miner: AccountId,
    pub proposal: ProposalId,
    pub commit_block: BlockNumber,
}

/// Bytes whose proposal FAILed in an arena (two operators agreeing): revealing them there
/// again is refused while the FAIL would simply repeat.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct FailedContent {
    pub proposal: ProposalId,
    pub reason: FailReason,
    /// The arena's generation when the FAIL stuck.
    pub generation: u32,
}

/// A validator's time-limited right to attest one phase of one proposal.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct Lease<AccountId, BlockNumber> {
    pub validator: AccountId,
    /// The operator the validator key belongs to (it holds the lease against its cap).
    pub operator: AccountId,
    /// The arena generation the validator measures against.
    pub generation: u32,
    /// The first block at which the lease is no longer valid.
    pub expires_at: BlockNumber,
}

/// A PASS as recorded in the open: a primary waiting for its reproduction, a crown's.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct RecordedPass<AccountId> {
    pub validator: AccountId,
    pub operator: AccountId,
    pub speedup_ppm: u32,
    pub generation: u32,
    pub evidence_digest: EvidenceDigest,
    pub attempt_digest: [u8; 32],
}

/// A primary PASS kept only as its seal until the reproduction has attested (blind verdicts):
/// the reproduction cannot read the speedup or the evidence it is meant to check.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct SealedPass<AccountId> {
    pub validator: AccountId,
    pub operator: AccountId,
    /// The arena generation the PASS measured against (part of the seal).
    pub generation: u32,
    /// [`cacheon_primitives::pass_seal`] of the PASS: opened by `reveal_pass`.
    pub seal: cacheon_primitives::Seal,
}

/// The primary PASS a reproduction checks: sealed (an arena where two operators must agree),
/// or open (recorded before blind verdicts, or a reproduction's PASS promoted to primary after
/// the sealed primary missed its reveal: that one is public already).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub enum PrimaryPass<AccountId> {
    Open(RecordedPass<AccountId>),
    Sealed(SealedPass<AccountId>),
}

impl<AccountId> PrimaryPass<AccountId> {
    /// The key that attested the PASS.
    pub fn validator(&self) -> &AccountId {
        match self {
            Self::Open(p) => &p.validator,
            Self::Sealed(p) => &p.validator,
        }
    }

    /// The operator of that key (the reproduction must come from another).
    pub fn operator(&self) -> &AccountId {
        match self {
            Self::Open(p) => &p.operator,
            Self::Sealed(p) => &p.operator,
        }
    }

    /// The arena generation the PASS measured against.
    pub fn generation(&self) -> u32 {
        match self {
            Self::Open(p) => p.generation,
            Self::Sealed(p) => p.generation,
        }
    }
}

/// A FAIL that counts only once a second operator's attempt agrees (see
/// [`FailReason`]'s disputable reasons): kept with the proposal while it waits.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct RecordedFail<AccountId> {
    pub validator: AccountId,
    pub operator: AccountId,
    pub reason: FailReason,
    pub evidence_digest: EvidenceDigest,
}

/// Where a proposal is in the design's state machine.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub enum ProposalStatus<AccountId, BlockNumber> {
    Queued,
    Primary {
        lease: Lease<AccountId, BlockNumber>,
    },
    ReproductionQueued {
        primary: PrimaryPass<AccountId>,
        /// Without a reproduction lease by this block, the proposal expires.
        until: BlockNumber,
    },
    Reproduction {
        primary: PrimaryPass<AccountId>,
        lease: Lease<AccountId, BlockNumber>,
        /// The wait's deadline, kept: a reproduction that ends without a verdict goes back
        /// to the same wait, not a fresh one.
        until: BlockNumber,
    },
    Crowned {
        at: BlockNumber,
        speedup_ppm: u32,
        /// The PASSes that crowned it (one in a single-validator arena).
        passes: BoundedVec<RecordedPass<AccountId>, MaxPasses>,
    },
    /// Superseded or displaced after a crown.
    Retired {
        at: BlockNumber,
    },
    Failed {
        reason: FailReason,
    },
    /// `max_attempts` NoDecisions or lease expiries.
    Expired,
    /// Withdrawn by its miner while queued.
    Withdrawn,
    /// Its target was displaced by a crowned atomic target while it waited; deposits returned.
    Dropped {
        displaced_by: ProposalId,
    },
    /// Failed for `reason`, then the admin origin overturned the FAIL (a forfeited deposit
    /// refunded).
    Overturned {
        reason: FailReason,
    },
    /// A crown that `challenge` revoked: two operators other than those that crowned it
    /// FAILed it for `reason` (the second one's), a FAIL about the bytes themselves.
    Revoked {
        at: BlockNumber,
        challenge: ChallengeId,
        reason: FailReason,
    },
    /// The reproduction PASSed a sealed primary PASS: the primary's validator must open its
    /// seal (`reveal_pass`) before `until`, or the sealed PASS is void (a stall of its
    /// operator) and the reproduction's PASS becomes the primary.
    AwaitingReveal {
        primary: SealedPass<AccountId>,
        reproduction: RecordedPass<AccountId>,
        until: BlockNumber,
    },
    /// Revealed while its arena's queue was full: never queued. Its content is owned by its
    /// commitment, as any reveal's, and its bytes stay stored (the bundle deposit held)
    /// until it is pruned, for validators' copy screens. Its miner commits and reveals the
    /// same bytes again to be measured.
    NotQueued,
}

impl<A, B> ProposalStatus<A, B> {
    /// Whether the proposal's bytes are stored and its bundle deposit held: while it is
    /// pending or crowned, and a `NotQueued` one until it is pruned.
    pub fn holds_bundle(&self) -> bool {
        self.is_pending() || matches!(self, Self::Crowned { .. } | Self::NotQueued)
    }

    /// Still waiting for a decision: in the arena's queue, bundle kept.
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            Self::Queued
                | Self::Primary { .. }
                | Self::ReproductionQueued { .. }
                | Self::Reproduction { .. }
                | Self::AwaitingReveal { .. }
        )
    }
}

/// A revealed proposal.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct Proposal<AccountId, BlockNumber, Balance> {
    pub miner: AccountId,
    pub arena: ArenaId,
    pub target: TargetId,
    pub content_hash: ContentHash,
    pub commit_block: BlockNumber,
    pub reveal_block: BlockNumber,
    /// NoDecisions and lease expiries so far.
    pub attempts: u32,
    /// Per-byte bundle deposit held from the miner for this proposal.
    pub bundle_deposit: Balance,
    pub status: ProposalStatus<AccountId, BlockNumber>,
    /// Operators that may not lease it now: the one whose FAIL waits for a second opinion
    /// (until the proposal ends), and those whose NoDecision, lease expiry or stale
    /// attestation came while another operator may lease it (the stalls' exclusions lift
    /// when no other is left), so no operator can hold a proposal by stalling it.
    pub excluded: BoundedVec<AccountId, MaxExcluded>,
    /// Operators whose NoDecision or lease expiry counted as an attempt: each counts once, so
    /// `max_attempts` stalls must come from that many operators.
    pub stalled: BoundedVec<AccountId, MaxExcluded>,
    /// A FAIL waiting for a second operator's attempt; a second FAIL makes it stick.
    pub disputed: Option<RecordedFail<AccountId>>,
}

/// The crowned proposal for one target of an arena's incumbent stack.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct IncumbentEntry {
    pub proposal: ProposalId,
    pub content_hash: ContentHash,
}

/// What a crown earns until it is retired (DESIGN 4.3).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct RewardClaim<AccountId, BlockNumber> {
    pub miner: AccountId,
    pub arena: ArenaId,
    pub target: TargetId,
    pub speedup_ppm: u32,
    /// Decay counts from the reveal block.
    pub since: BlockNumber,
    /// The evidence digests of the PASSes that crowned it.
    pub evidence: BoundedVec<EvidenceDigest, MaxPasses>,
}

/// A validator's signed statement about one leased attempt.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
)]
pub struct Attestation {
    pub verdict: Verdict,
    pub incumbent_generation: u32,
    pub evidence_digest: EvidenceDigest,
    pub attempt_digest: [u8; 32],
}

/// Which phase a lease is for.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
)]
pub enum Phase {
    Primary,
    Reproduction,
}

/// Why an incumbent entry left the stack.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
)]
pub enum RetireCause {
    /// A newer crown of the same target.
    Superseded { by: ProposalId },
    /// A crown of an atomic target that displaces this one.
    Displaced { by: ProposalId },
}

/// An epoch's emission being paid over the blocks after its close.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct PayoutRun<Balance> {
    pub epoch: u32,
    /// What the epoch pays in all: its emission, or what the pot held if less.
    pub budget: Balance,
    /// The index in the weight vector of the next recipient.
    pub next: u32,
    /// Paid so far.
    pub paid: Balance,
}

/// A crown challenge's id: from a counter ([`crate::NextChallengeId`]).
pub type ChallengeId = u64;

/// Most operators that may hold a lease on, or have answered, one challenge at once: two
/// agreeing answers decide, so more than a few turns only happen when answers disagree or
/// decide nothing (a speed opinion, a NoDecision).
pub const MAX_CHALLENGE_TURNS: u32 = 8;
pub type MaxChallengeTurns = ConstU32<MAX_CHALLENGE_TURNS>;

/// A validator key's right to answer a challenge until `expires_at` (exclusive). Leases of
/// one challenge run side by side, one per operator: nobody waits for another's.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct ChallengeLease<AccountId, BlockNumber> {
    pub validator: AccountId,
    pub operator: AccountId,
    pub expires_at: BlockNumber,
}

/// One operator's re-qualification of a challenged crown.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct ChallengeAnswer<AccountId> {
    pub validator: AccountId,
    pub operator: AccountId,
    pub verdict: Verdict,
    pub evidence_digest: EvidenceDigest,
}

/// An open challenge of a crown. What the outcome needs is copied from the crown when the
/// challenge opens (the crown may be superseded, and its proposal pruned, before the end).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct Challenge<AccountId, BlockNumber, Balance> {
    pub proposal: ProposalId,
    pub arena: ArenaId,
    pub target: TargetId,
    pub miner: AccountId,
    pub challenger: AccountId,
    /// Held from the challenger (`HoldReason::ChallengeBond`) until the outcome.
    pub bond: Balance,
    /// The PASSes that crowned the proposal: their operators may not answer, and are slashed
    /// if the crown is revoked.
    pub passes: BoundedVec<RecordedPass<AccountId>, MaxPasses>,
    /// Without two agreeing answers by this block, the challenge expires (bond returned).
    pub deadline: BlockNumber,
    pub leases: BoundedVec<ChallengeLease<AccountId, BlockNumber>, MaxChallengeTurns>,
    pub answers: BoundedVec<ChallengeAnswer<AccountId>, MaxChallengeTurns>,
}

/// Part of an operator's bond on its way back: released by `withdraw_unbonded` from
/// `release_at`, slashable until then.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct UnbondingChunk<BlockNumber, Balance> {
    pub release_at: BlockNumber,
    pub amount: Balance,
}

/// Most unbonding chunks an operator may have waiting per arena (unbonds in the same block
/// share one).
pub const MAX_UNBONDING_CHUNKS: u32 = 8;
pub type MaxUnbondingChunks = ConstU32<MAX_UNBONDING_CHUNKS>;

/// What measuring a proposal costs in an arena, as the admin origin quotes it: the machine
/// time of the arena's median qualification attempt, priced per second. A verdict is worth
/// `attempt_ms × price_per_second / 1000`; a reveal holds one verdict's worth for each
/// operator whose verdict the arena needs (`required_distinct_validators`).
#[derive(
    Clone,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    Serialize,
    Deserialize,
)]
pub struct EvaluationFee<Balance> {
    /// Milliseconds of the validator's machine (its GPU, for a CUDA arena) in the arena's
    /// median attempt, as measured and published with the arena.
    pub attempt_ms: u32,
    /// The price of one second of that machine.
    pub price_per_second: Balance,
}

impl<Balance: AtLeast32BitUnsigned + Copy> EvaluationFee<Balance> {
    /// What one verdict earns its operator.
    pub fn per_verdict(&self) -> Balance {
        self.price_per_second
            .saturating_mul(Balance::from(self.attempt_ms))
            / Balance::from(1_000u32)
    }
}

/// A proposal's evaluation fee, held from its miner (`HoldReason::EvaluationFee`) from the
/// reveal until the proposal ends: each verdict the outcome confirms is paid from it, the
/// rest goes back.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, MaxEncodedLen, TypeInfo)]
pub struct FeeEscrow<Balance> {
    pub per_verdict: Balance,
    /// What is still held.
    pub left: Balance,
}
