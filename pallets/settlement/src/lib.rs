//! # Cacheon settlement pallet
//!
//! Every rule that decides who wins (DESIGN 4): the target catalog and arenas (the admin origin), miners'
//! commit-reveal of kernel bundles, validators' leases and attestations, crowns, reward claims
//! and the epoch weight vector.
//!
//! Proposal life cycle:
//! ```text
//! Queued ─claim─► Primary ─PASS─► ReproductionQueued ─claim (other validator)─► Reproduction ─PASS─► Crowned ─► Retired
//!   ▲               │ FAIL ──► Failed          ▲                                   │ FAIL ──► Failed (+ AttestationsDisagreed)
//!   └─ NoDecision / lease expiry / stale generation (attempts + 1 → Expired at max_attempts)
//! ```
//! The second PASS crowns in the same extrinsic. Extrinsics are transactional: when any crown
//! step fails, the call fails and nothing changes.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub use pallet::*;

mod epoch;
#[cfg(any(feature = "try-runtime", feature = "std", test))]
mod invariants;
pub mod migrations;
mod prune;
mod settle;
pub mod types;
pub mod weights;

#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;

pub use cacheon_primitives::{
    Backend, Commitment, ContentHash, EvidenceDigest, FailReason, NoDecisionReason, ProposalId,
    TargetKind, Verdict, PPM_ONE,
};
pub use epoch::{split_weights, PAYOUTS_PER_BLOCK};
pub use types::*;
pub use weights::WeightInfo;

use polkadot_sdk::polkadot_sdk_frame as frame;

use cacheon_primitives::{BundleError, BundleLimits};
use frame::prelude::*;
use frame::traits::{
    fungible::{Inspect, Mutate, MutateHold},
    tokens::{Fortitude, Precision, Preservation, Restriction},
};

/// The balance type of the configured currency.
pub type BalanceOf<T> =
    <<T as Config>::Currency as Inspect<<T as frame_system::Config>::AccountId>>::Balance;
pub type ArenaConfigOf<T> = ArenaConfig<BlockNumberFor<T>>;
/// One crowned entry of an arena's incumbent stack, as [`Pallet::incumbent_stack`] lists it:
/// `(target, proposal, content_hash)`.
pub type StackEntry = (TargetId, ProposalId, ContentHash);
pub type ArenaInfoOf<T> = ArenaInfo<BlockNumberFor<T>>;
pub type ProposalOf<T> =
    Proposal<<T as frame_system::Config>::AccountId, BlockNumberFor<T>, BalanceOf<T>>;
pub type StatusOf<T> = ProposalStatus<<T as frame_system::Config>::AccountId, BlockNumberFor<T>>;
pub type LeaseOf<T> = Lease<<T as frame_system::Config>::AccountId, BlockNumberFor<T>>;
pub type RewardClaimOf<T> = RewardClaim<<T as frame_system::Config>::AccountId, BlockNumberFor<T>>;
pub type CommitRecordOf<T> = CommitRecord<BlockNumberFor<T>, BalanceOf<T>>;
pub type ContentOwnerOf<T> =
    ContentOwner<<T as frame_system::Config>::AccountId, BlockNumberFor<T>>;
pub type EmissionsPolicyOf<T> =
    EmissionsPolicy<<T as frame_system::Config>::AccountId, BlockNumberFor<T>, BalanceOf<T>>;
pub type WeightVectorOf<T> =
    BoundedVec<(<T as frame_system::Config>::AccountId, u32), <T as Config>::MaxClaims>;

#[frame::pallet]
pub mod pallet {
    use super::*;

    /// Version 2: operators, content owners by earliest commitment, disputed FAILs and kept
    /// evidence ([`crate::migrations::v2`] moves a version 1 state).
    pub const STORAGE_VERSION: StorageVersion = StorageVersion::new(2);

    #[pallet::pallet]
    #[pallet::storage_version(STORAGE_VERSION)]
    pub struct Pallet<T>(_);

    /// Funds this pallet holds from miners.
    #[pallet::composite_enum]
    pub enum HoldReason {
        /// Held from `commit` until the reveal or the cancellation.
        CommitDeposit,
        /// Held per bundle byte from `reveal` until the proposal stops using its bundle.
        BundleDeposit,
    }

    #[pallet::config]
    pub trait Config: polkadot_sdk::frame_system::Config {
        /// Holds deposits and pays emissions.
        type Currency: Mutate<Self::AccountId>
            + MutateHold<Self::AccountId, Reason = Self::RuntimeHoldReason>;
        /// The runtime's hold reason, built from [`HoldReason`].
        type RuntimeHoldReason: From<HoldReason>;
        /// The account of the reward pot is derived from this id.
        #[pallet::constant]
        type PalletId: Get<PalletId>;
        /// Held per pending commitment.
        #[pallet::constant]
        type CommitDeposit: Get<BalanceOf<Self>>;
        /// Held per byte of a revealed bundle.
        #[pallet::constant]
        type BundleByteDeposit: Get<BalanceOf<Self>>;
        /// Paid into the reward pot on every reveal; never returned.
        #[pallet::constant]
        type EvalFee: Get<BalanceOf<Self>>;
        /// A reveal is accepted from this many blocks after its commit...
        #[pallet::constant]
        type RevealDelay: Get<BlockNumberFor<Self>>;
        /// ...up to this many blocks after it.
        #[pallet::constant]
        type RevealWindow: Get<BlockNumberFor<Self>>;
        /// Unrevealed commitments one miner may have.
        #[pallet::constant]
        type MaxPendingCommits: Get<u32>;
        /// Reveals one miner may make per reveal period...
        #[pallet::constant]
        type MaxRevealsPerPeriod: Get<u32>;
        /// ...of this many blocks (fixed, whatever the emissions policy).
        #[pallet::constant]
        type RevealPeriod: Get<BlockNumberFor<Self>>;
        /// A proposal with a primary PASS waits this many blocks for another operator to lease
        /// its reproduction; then it expires (deposits returned).
        #[pallet::constant]
        type ReproductionTimeout: Get<BlockNumberFor<Self>>;
        /// The largest speedup an attestation may report (ppm): a slot replacement that makes
        /// the whole engine this much faster is a measurement fault, not a kernel.
        #[pallet::constant]
        type MaxSpeedupPpm: Get<u32>;
        /// Terminal proposals (failed, expired, withdrawn, dropped, retired) are deleted this
        /// many blocks after they ended, by `on_idle`.
        #[pallet::constant]
        type ProposalRetention: Get<BlockNumberFor<Self>>;
        /// Pending proposals per arena.
        #[pallet::constant]
        type MaxQueueLen: Get<u32>;
        /// Largest bundle in canonical bytes.
        #[pallet::constant]
        type MaxBundleBytes: Get<u32>;
        /// Targets in the catalog.
        #[pallet::constant]
        type MaxTargets: Get<u32>;
        /// Validators per arena.
        #[pallet::constant]
        type MaxValidators: Get<u32>;
        /// Arenas.
        #[pallet::constant]
        type MaxArenas: Get<u32>;
        /// Active reward claims in all (at most one per arena and target).
        #[pallet::constant]
        type MaxClaims: Get<u32>;
        /// Leases that may expire in one block.
        #[pallet::constant]
        type MaxLeasesPerBlock: Get<u32>;
        /// Open leases one operator may hold at once (over all its validator keys).
        #[pallet::constant]
        type MaxLeasesPerOperator: Get<u32>;
        /// Who changes the catalog, arenas, validators and emissions (Root, or a collective).
        type AdminOrigin: EnsureOrigin<Self::RuntimeOrigin>;
        type WeightInfo: WeightInfo;
    }

    // ---- Configuration (the admin origin) ----

    /// The target catalog. Keys are chosen by the admin, but hashed anyway so that no key layout can
    /// unbalance the trie: `Blake2_128Concat` keeps the id readable for iteration.
    #[pallet::storage]
    pub type Targets<T: Config> = CountedStorageMap<_, Blake2_128Concat, TargetId, TargetSpec>;

    /// Arenas and their generation. `Blake2_128Concat`: admin-chosen ids, iterated by tools.
    #[pallet::storage]
    pub type Arenas<T: Config> = CountedStorageMap<_, Blake2_128Concat, ArenaId, ArenaInfoOf<T>>;

    /// Registered validator keys per arena, each with the operator it belongs to: rules that
    /// need two independent opinions count operators, not keys. `Blake2_128Concat` on both
    /// keys: account ids are chosen by their owners, so they must be hashed.
    #[pallet::storage]
    pub type Validators<T: Config> = StorageDoubleMap<
        _,
        Blake2_128Concat,
        ArenaId,
        Blake2_128Concat,
        T::AccountId,
        T::AccountId,
        OptionQuery,
    >;

    /// The operator of every registered validator key, over all arenas, and in how many
    /// arenas the key is registered: a key belongs to one operator everywhere, so "the
    /// operator's own proposal" holds across arenas. `Blake2_128Concat`: user-chosen key.
    #[pallet::storage]
    pub type KeyOperators<T: Config> =
        StorageMap<_, Blake2_128Concat, T::AccountId, (T::AccountId, u32)>;

    /// Open leases per operator (capped by `MaxLeasesPerOperator`). `Blake2_128Concat`:
    /// user-chosen key.
    #[pallet::storage]
    pub type OpenLeases<T: Config> = StorageMap<_, Blake2_128Concat, T::AccountId, u32, ValueQuery>;

    /// The emissions policy; `None` until governance or genesis sets it.
    #[pallet::storage]
    pub type Emissions<T: Config> = StorageValue<_, EmissionsPolicyOf<T>, OptionQuery>;

    // ---- Miners ----

    /// Pending commitments: miner → commitment → commit block and the deposit held for it.
    /// Both keys are chosen by the miner, so both are `Blake2_128Concat`.
    #[pallet::storage]
    pub type Commits<T: Config> = StorageDoubleMap<
        _,
        Blake2_128Concat,
        T::AccountId,
        Blake2_128Concat,
        Commitment,
        CommitRecordOf<T>,
    >;

    /// How many commitments each miner has pending. `Blake2_128Concat`: user-chosen key.
    #[pallet::storage]
    pub type PendingCommits<T: Config> =
        StorageMap<_, Blake2_128Concat, T::AccountId, u32, ValueQuery>;

    /// Reveals per reveal period and miner. `Twox64Concat` on the period (a counter, and
    /// `on_idle` clears past periods by prefix); `Blake2_128Concat` on the user-chosen key.
    #[pallet::storage]
    pub type RevealsInPeriod<T: Config> =
        StorageDoubleMap<_, Twox64Concat, u32, Blake2_128Concat, T::AccountId, u32, ValueQuery>;

    /// Reveal periods below this one have been cleared from [`RevealsInPeriod`].
    #[pallet::storage]
    pub type RevealsClearedBelow<T: Config> = StorageValue<_, u32, ValueQuery>;

    /// The next proposal id.
    #[pallet::storage]
    pub type NextProposalId<T: Config> = StorageValue<_, ProposalId, ValueQuery>;

    /// Every proposal ever revealed. `Twox64Concat`: ids come from a counter, not from users.
    #[pallet::storage]
    pub type Proposals<T: Config> = StorageMap<_, Twox64Concat, ProposalId, ProposalOf<T>>;

    /// Pending proposals per arena in reveal order (priority order). `Blake2_128Concat`.
    #[pallet::storage]
    pub type Queue<T: Config> = StorageMap<
        _,
        Blake2_128Concat,
        ArenaId,
        BoundedVec<ProposalId, T::MaxQueueLen>,
        ValueQuery,
    >;

    /// Bundle bytes by ContentHash, kept while a pending proposal or incumbent entry uses them.
    /// `Identity`: the key is already a SHA-256 digest of content the chain checked itself.
    #[pallet::storage]
    pub type Bundles<T: Config> =
        StorageMap<_, Identity, ContentHash, BoundedVec<u8, T::MaxBundleBytes>>;

    /// How many proposals use each stored bundle; kept apart from the bytes so that
    /// releasing a bundle does not read up to `MaxBundleBytes` to decrement it. `Identity`:
    /// SHA-256 key.
    #[pallet::storage]
    pub type BundleRefs<T: Config> = StorageMap<_, Identity, ContentHash, u32>;

    /// The owner of each revealed ContentHash: the revealed proposal with the earliest
    /// commitment (ties: the first reveal). Kept forever, so a copy is refused even after the
    /// original's bundle is gone. `Identity`: SHA-256 key.
    #[pallet::storage]
    pub type ContentOwners<T: Config> = StorageMap<_, Identity, ContentHash, ContentOwnerOf<T>>;

    // ---- Validators ----

    /// Deadlines by block: leases that expire there and proposals whose wait for a
    /// reproduction times out there. `Twox64Concat`: block numbers are not chosen by users.
    #[pallet::storage]
    pub type LeaseDeadlines<T: Config> = StorageMap<
        _,
        Twox64Concat,
        BlockNumberFor<T>,
        BoundedVec<ProposalId, T::MaxLeasesPerBlock>,
        ValueQuery,
    >;

    // ---- Crowns and weights ----

    /// The incumbent stack's crowned entries per arena and target (the rest of the stack is the
    /// arena's stock). `Blake2_128Concat`: admin-chosen ids, iterated per arena.
    #[pallet::storage]
    pub type Incumbents<T: Config> =
        StorageDoubleMap<_, Blake2_128Concat, ArenaId, Blake2_128Concat, TargetId, IncumbentEntry>;

    /// Active reward claims by crowned proposal. `Twox64Concat`: counter keys.
    #[pallet::storage]
    pub type Claims<T: Config> = CountedStorageMap<_, Twox64Concat, ProposalId, RewardClaimOf<T>>;

    /// The last epoch's weight vector (ppm, sums to exactly 1_000_000).
    #[pallet::storage]
    pub type Weights<T: Config> = StorageValue<_, WeightVectorOf<T>, ValueQuery>;

    /// The epoch the stored weight vector belongs to.
    #[pallet::storage]
    pub type WeightsEpoch<T: Config> = StorageValue<_, u32, OptionQuery>;

    /// The emission payout in progress, if any (`PAYOUTS_PER_BLOCK` transfers a block).
    #[pallet::storage]
    pub type Payout<T: Config> = StorageValue<_, PayoutRun<BalanceOf<T>>, OptionQuery>;

    // ---- Pruning ----

    /// Terminal proposals in the order they ended, each with its end block: `on_idle` deletes
    /// them from the front once `ProposalRetention` has passed. A FIFO (`PruneHead` ..
    /// `PruneTail`), `Twox64Concat`: counter keys.
    #[pallet::storage]
    pub type PruneQueue<T: Config> =
        StorageMap<_, Twox64Concat, u64, (BlockNumberFor<T>, ProposalId)>;

    /// The first entry of [`PruneQueue`] still to prune.
    #[pallet::storage]
    pub type PruneHead<T: Config> = StorageValue<_, u64, ValueQuery>;

    /// The next free index of [`PruneQueue`].
    #[pallet::storage]
    pub type PruneTail<T: Config> = StorageValue<_, u64, ValueQuery>;

    #[pallet::genesis_config]
    #[derive(frame::prelude::DefaultNoBound)]
    pub struct GenesisConfig<T: Config> {
        pub targets: alloc::vec::Vec<TargetSpec>,
        pub arenas: alloc::vec::Vec<ArenaConfigOf<T>>,
        /// `(arena, validator, operator)`.
        pub validators: alloc::vec::Vec<(ArenaId, T::AccountId, T::AccountId)>,
        pub emissions: Option<EmissionsPolicyOf<T>>,
    }

    #[pallet::genesis_build]
    impl<T: Config> BuildGenesisConfig for GenesisConfig<T> {
        fn build(&self) {
            for target in &self.targets {
                Pallet::<T>::do_set_target(target.clone()).expect("genesis target is valid");
            }
            for arena in &self.arenas {
                Pallet::<T>::do_set_arena(arena.clone()).expect("genesis arena is valid");
            }
            for (arena, who, operator) in &self.validators {
                Pallet::<T>::do_add_validator(arena.clone(), who.clone(), operator.clone())
                    .expect("genesis validator is valid");
            }
            if let Some(policy) = &self.emissions {
                Pallet::<T>::check_emissions(policy).expect("genesis emissions policy is valid");
                Emissions::<T>::put(policy.clone());
            }
        }
    }

    #[pallet::event]
    #[pallet::generate_deposit(pub(super) fn deposit_event)]
    pub enum Event<T: Config> {
        /// A catalog target was added or changed.
        TargetSet {
            target: TargetId,
            kind: TargetKind,
            status: Status,
        },
        /// An arena was added or its configuration changed.
        ArenaSet { arena: ArenaId, status: Status },
        /// A validator key was registered for an arena under an operator.
        ValidatorAdded {
            arena: ArenaId,
            validator: T::AccountId,
            operator: T::AccountId,
        },
        /// A validator was removed from an arena.
        ValidatorRemoved {
            arena: ArenaId,
            validator: T::AccountId,
        },
        /// The emissions policy was changed.
        EmissionsSet {
            epoch_blocks: BlockNumberFor<T>,
            emission_per_epoch: BalanceOf<T>,
        },
        /// A miner committed to a bundle.
        Committed {
            miner: T::AccountId,
            commitment: Commitment,
        },
        /// A miner cancelled an unrevealed commitment; its deposit was released.
        CommitCancelled {
            miner: T::AccountId,
            commitment: Commitment,
        },
        /// A bundle was revealed and queued as a proposal.
        Revealed {
            proposal: ProposalId,
            miner: T::AccountId,
            arena: ArenaId,
            target: TargetId,
            content_hash: ContentHash,
            bytes: u32,
        },
        /// A miner withdrew a queued proposal.
        Withdrawn { proposal: ProposalId },
        /// A validator leased one phase of a proposal.
        Leased {
            proposal: ProposalId,
            validator: T::AccountId,
            phase: Phase,
            generation: u32,
            expires_at: BlockNumberFor<T>,
        },
        /// A primary PASS was recorded; the proposal waits for its reproduction.
        PassRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            speedup_ppm: u32,
            evidence_digest: EvidenceDigest,
        },
        /// A disputable FAIL was recorded; it sticks only if another operator's attempt
        /// FAILs too. The proposal went back to its phase's queue.
        FailRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: FailReason,
            evidence_digest: EvidenceDigest,
        },
        /// The proposal failed; terminal.
        Failed {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: FailReason,
            evidence_digest: EvidenceDigest,
        },
        /// Two attempts of one proposal reached opposite verdicts (a PASS and a FAIL, in
        /// either order); both digests name the evidence.
        AttestationsDisagreed {
            proposal: ProposalId,
            pass_validator: T::AccountId,
            pass_evidence: EvidenceDigest,
            fail_validator: T::AccountId,
            fail_evidence: EvidenceDigest,
            reason: FailReason,
        },
        /// No decision was reached; the proposal went back to its queue.
        NoDecisionRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: NoDecisionReason,
            attempts: u32,
            evidence_digest: EvidenceDigest,
        },
        /// A lease ran out without an attestation; the proposal went back to its queue.
        LeaseExpired {
            proposal: ProposalId,
            validator: T::AccountId,
            attempts: u32,
        },
        /// An attestation measured an incumbent generation that is no longer current; the
        /// proposal went back to the queue to be measured again.
        AttestationStale {
            proposal: ProposalId,
            validator: T::AccountId,
            generation: u32,
            current: u32,
        },
        /// A recorded primary PASS was dropped because the incumbent advanced or its
        /// validator was removed.
        PassDropped {
            proposal: ProposalId,
            generation: u32,
        },
        /// An earlier commitment revealed the same ContentHash as an already revealed
        /// proposal: the content now belongs to `proposal`, and `previous` can never crown.
        ContentReclaimed {
            content_hash: ContentHash,
            proposal: ProposalId,
            previous: ProposalId,
        },
        /// A pending proposal was dropped because a crowned atomic target now displaces its
        /// target; its bundle deposit was returned.
        ProposalDropped {
            proposal: ProposalId,
            displaced_by: ProposalId,
        },
        /// The proposal ran out of attempts, or no operator is left to try it; its deposits
        /// were returned.
        Expired { proposal: ProposalId, attempts: u32 },
        /// No other operator leased the reproduction within `ReproductionTimeout` blocks of
        /// the primary PASS: the proposal expired, its deposits were returned.
        ReproductionTimedOut {
            proposal: ProposalId,
            primary_validator: T::AccountId,
        },
        /// A terminal proposal was deleted after `ProposalRetention` blocks.
        ProposalPruned { proposal: ProposalId },
        /// A proposal failed `Cheating` or `CopyOf`: its bundle deposit went to the reward
        /// pot instead of back to its miner.
        DepositSlashed {
            proposal: ProposalId,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// The proposal became part of its arena's incumbent stack.
        Crowned {
            proposal: ProposalId,
            miner: T::AccountId,
            arena: ArenaId,
            target: TargetId,
            speedup_ppm: u32,
            generation: u32,
            /// The evidence digests of the crowning PASSes (primary first).
            evidence: BoundedVec<EvidenceDigest, MaxPasses>,
        },
        /// A crowned proposal left the incumbent stack; its claim ended.
        Retired {
            proposal: ProposalId,
            cause: RetireCause,
        },
        /// The epoch's weight vector was computed.
        WeightsSet {
            epoch: u32,
            weights: WeightVectorOf<T>,
        },
        /// Emissions were paid from the reward pot.
        EmissionsPaid { epoch: u32, total: BalanceOf<T> },
        /// A miner's share of an epoch's emission could not be paid (for example below the
        /// existential deposit of a new account); it stays in the pot.
        EmissionUnpaid {
            epoch: u32,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
    }

    #[pallet::error]
    pub enum Error<T> {
        /// An id is empty, too long or has characters outside `[a-z0-9._-]`.
        InvalidId,
        /// A singleton target must have exactly one member: its own id.
        SingletonMembers,
        /// An atomic target needs at least two distinct member slots.
        AtomicMembers,
        /// An atomic target must displace every member's singleton target.
        AtomicMustDisplaceMembers,
        /// A target names a displaced target that is not in the catalog.
        UnknownDisplaced,
        /// The change would make displacement cyclic.
        DisplacementCycle,
        /// The target is crowned in an arena where a target it would displace is crowned too;
        /// the change would leave one incumbent entry displacing another.
        DisplacesCrowned,
        /// The catalog is full.
        TooManyTargets,
        /// No such target.
        UnknownTarget,
        /// An arena names a target that is not in the catalog.
        ArenaTargetUnknown,
        /// An arena's policy is out of range (lease, attempts or validator count).
        InvalidPolicy,
        /// No such arena.
        UnknownArena,
        /// There are already `MaxArenas` arenas.
        TooManyArenas,
        /// The account is already a validator of this arena.
        AlreadyValidator,
        /// The account is not a validator of this arena.
        NotValidator,
        /// The key is registered (in another arena) under another operator.
        OperatorMismatch,
        /// The arena has `MaxValidators` validators.
        TooManyValidators,
        /// The emissions policy needs non-zero `half_life_blocks` and an epoch longer than
        /// the payout of `MaxClaims` shares takes (`PAYOUTS_PER_BLOCK` a block).
        InvalidEmissions,
        /// The same commitment is already pending for this miner.
        AlreadyCommitted,
        /// The miner has `MaxPendingCommits` pending commitments.
        TooManyCommits,
        /// No pending commitment of this miner matches the revealed data.
        UnknownCommitment,
        /// The reveal comes before `RevealDelay` blocks have passed since the commit.
        RevealTooEarly,
        /// The reveal comes after `RevealWindow` blocks since the commit.
        RevealTooLate,
        /// The arena is paused.
        ArenaPaused,
        /// The target is paused.
        TargetPaused,
        /// The arena does not allow this target.
        TargetNotInArena,
        /// An active atomic incumbent displaces this target in this arena.
        TargetDisplaced,
        /// The miner has made `MaxRevealsPerPeriod` reveals in this reveal period.
        RevealCapReached,
        /// The arena's queue holds `MaxQueueLen` pending proposals.
        QueueFull,
        /// Another account revealed a bundle with this ContentHash from an earlier (or the
        /// same) commitment block.
        CopyOfOtherMiner,
        /// The bundle is larger than `MaxBundleBytes`.
        BundleTooLarge,
        /// The bundle has more files than allowed.
        BundleTooManyFiles,
        /// The bundle has no files.
        BundleEmpty,
        /// The bundle bytes are not a SCALE file list, or bytes follow it.
        BundleMalformed,
        /// A bundle path breaks the path rules (relative, `[A-Za-z0-9._-]` components, ≤ 255 bytes).
        BundleBadPath,
        /// Bundle files are not sorted by path or a path repeats or conflicts with a directory.
        BundleNotCanonical,
        /// A bundle file is a binary (extension, ELF magic or NUL byte).
        BundleBinary,
        /// No such proposal.
        UnknownProposal,
        /// Only the proposal's miner may do this.
        NotMiner,
        /// Only a proposal no validator holds a lease on (queued, or waiting for its
        /// reproduction) can be withdrawn.
        NotWithdrawable,
        /// The proposal is not waiting for a lease.
        NotClaimable,
        /// An earlier proposal of this arena's queue is claimable by the caller: leases follow
        /// reveal order.
        OutOfTurn,
        /// The reproduction (or the second opinion on a FAIL) must come from an operator other
        /// than the first attempt's.
        SameOperator,
        /// The caller's operator already gave this proposal a NoDecision, a lease expiry or the
        /// FAIL that waits for a second opinion.
        OperatorExcluded,
        /// The operator holds `MaxLeasesPerOperator` open leases.
        TooManyLeases,
        /// The attempt that would crown this proposal waits until every commitment older than
        /// its own is past its reveal window (until then an earlier commitment of the same
        /// content could still be revealed).
        PriorityNotFinal,
        /// An earlier proposal of the arena's queue for an overlapping target is still pending;
        /// crowns follow reveal order.
        EarlierOverlapPending,
        /// Too many leases expire in the same block; claim again in the next block.
        LeaseScheduleFull,
        /// The caller does not hold the proposal's lease.
        NotLeaseHolder,
        /// The lease has expired.
        LeaseExpired,
        /// The attestation names a generation other than the lease's.
        GenerationMismatch,
        /// A PASS must clear the arena's margin.
        BelowMargin,
        /// A PASS reports a speedup above `MaxSpeedupPpm`.
        SpeedupImplausible,
        /// The reproduction repeats the primary's attempt or evidence digest.
        DuplicateEvidence,
        /// The arena's generation counter would overflow.
        GenerationOverflow,
        /// A counter or balance computation overflowed.
        Overflow,
        /// There are `MaxClaims` active reward claims.
        TooManyClaims,
        /// A validator may not lease a proposal revealed by itself, its operator or another key
        /// of its operator.
        OwnProposal,
    }

    #[pallet::hooks]
    impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
        fn on_initialize(now: BlockNumberFor<T>) -> Weight {
            let expired = Self::expire_leases(now);
            let paid = Self::pay_emissions();
            let mut weight = T::WeightInfo::expire_leases(expired)
                .saturating_add(T::WeightInfo::pay_emissions(paid));
            if let Some(policy) = Emissions::<T>::get() {
                if !policy.epoch_blocks.is_zero() && (now % policy.epoch_blocks).is_zero() {
                    let claims = Self::close_epoch(now, &policy);
                    weight = weight.saturating_add(T::WeightInfo::close_epoch(claims));
                }
            }
            weight
        }

        fn on_idle(now: BlockNumberFor<T>, remaining: Weight) -> Weight {
            Self::prune(now, remaining)
        }

        fn integrity_test() {
            assert!(
                T::RevealDelay::get() <= T::RevealWindow::get(),
                "RevealDelay must not exceed RevealWindow: no reveal could be accepted"
            );
            for (name, v) in [
                ("MaxPendingCommits", T::MaxPendingCommits::get()),
                ("MaxRevealsPerPeriod", T::MaxRevealsPerPeriod::get()),
                ("MaxQueueLen", T::MaxQueueLen::get()),
                ("MaxBundleBytes", T::MaxBundleBytes::get()),
                ("MaxTargets", T::MaxTargets::get()),
                ("MaxValidators", T::MaxValidators::get()),
                ("MaxArenas", T::MaxArenas::get()),
                ("MaxClaims", T::MaxClaims::get()),
                ("MaxLeasesPerBlock", T::MaxLeasesPerBlock::get()),
                ("MaxLeasesPerOperator", T::MaxLeasesPerOperator::get()),
            ] {
                assert!(v > 0, "{name} must be positive");
            }
            assert!(
                T::MaxBundleBytes::get() <= cacheon_primitives::BundleLimits::DEFAULT.max_bytes,
                "MaxBundleBytes above the bundle format's own limit"
            );
            assert!(
                !T::RevealPeriod::get().is_zero() && !T::ReproductionTimeout::get().is_zero(),
                "RevealPeriod and ReproductionTimeout must be positive"
            );
            assert!(
                T::MaxSpeedupPpm::get() > PPM_ONE,
                "MaxSpeedupPpm must allow a speedup"
            );
            // Every pending proposal has at most one deadline: they must always find room.
            assert!(
                T::MaxLeasesPerBlock::get().saturating_mul(crate::settle::DEADLINE_TRIES)
                    >= T::MaxArenas::get().saturating_mul(T::MaxQueueLen::get()),
                "the deadline schedule can fill up: raise MaxLeasesPerBlock"
            );
        }

        #[cfg(feature = "try-runtime")]
        fn try_state(
            _n: BlockNumberFor<T>,
        ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
            Self::do_try_state()
        }
    }

    #[pallet::call]
    impl<T: Config> Pallet<T> {
        /// Commit to a bundle without showing it: `commitment` is
        /// [`cacheon_primitives::commitment`] of the miner, arena, target, ContentHash and a
        /// secret salt. Holds `CommitDeposit` until the reveal or [`Self::cancel_commit`].
        #[pallet::call_index(0)]
        #[pallet::weight(T::WeightInfo::commit())]
        pub fn commit(origin: OriginFor<T>, commitment: Commitment) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            ensure!(
                !Commits::<T>::contains_key(&miner, commitment),
                Error::<T>::AlreadyCommitted
            );
            let pending = PendingCommits::<T>::get(&miner);
            ensure!(
                pending < T::MaxPendingCommits::get(),
                Error::<T>::TooManyCommits
            );

            let deposit = T::CommitDeposit::get();
            T::Currency::hold(&HoldReason::CommitDeposit.into(), &miner, deposit)?;
            Commits::<T>::insert(
                &miner,
                commitment,
                CommitRecord {
                    at: frame_system::Pallet::<T>::block_number(),
                    deposit,
                },
            );
            PendingCommits::<T>::insert(&miner, pending + 1);
            Self::deposit_event(Event::Committed { miner, commitment });
            Ok(())
        }

        /// Reveal a committed bundle: its canonical bytes, the arena and target it competes
        /// for and the salt. The chain recomputes the ContentHash and the commitment, checks the
        /// bundle's canonical form, charges `EvalFee`, holds the per-byte bundle deposit and
        /// queues the proposal.
        #[pallet::call_index(1)]
        #[pallet::weight(T::WeightInfo::reveal(bundle.len() as u32))]
        pub fn reveal(
            origin: OriginFor<T>,
            arena: ArenaId,
            target: TargetId,
            salt: [u8; 32],
            bundle: BoundedVec<u8, T::MaxBundleBytes>,
        ) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            Self::do_reveal(miner, arena, target, salt, bundle)
        }

        /// Withdraw a queued proposal that no validator holds a lease on. The bundle deposit
        /// is returned; the evaluation fee is not.
        #[pallet::call_index(2)]
        #[pallet::weight(T::WeightInfo::withdraw())]
        pub fn withdraw(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            let mut p = Proposals::<T>::get(proposal).ok_or(Error::<T>::UnknownProposal)?;
            ensure!(p.miner == miner, Error::<T>::NotMiner);
            // Not while a validator holds a lease on it; a proposal waiting for its
            // reproduction may be withdrawn (nothing else ends that wait but a crown).
            ensure!(
                matches!(
                    p.status,
                    ProposalStatus::Queued | ProposalStatus::ReproductionQueued { .. }
                ),
                Error::<T>::NotWithdrawable
            );

            Self::end_wait(proposal, &p.status);
            p.status = ProposalStatus::Withdrawn;
            Self::leave_queue(proposal, &mut p);
            Proposals::<T>::insert(proposal, p);
            Self::deposit_event(Event::Withdrawn { proposal });
            Ok(())
        }

        /// Cancel a pending commitment (revealed or not in time) and release its deposit.
        #[pallet::call_index(3)]
        #[pallet::weight(T::WeightInfo::cancel_commit())]
        pub fn cancel_commit(origin: OriginFor<T>, commitment: Commitment) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            ensure!(
                Commits::<T>::contains_key(&miner, commitment),
                Error::<T>::UnknownCommitment
            );
            Self::remove_commit(&miner, commitment);
            Self::deposit_event(Event::CommitCancelled { miner, commitment });
            Ok(())
        }

        /// Lease the next phase of a proposal: the primary attempt of a queued proposal, or the
        /// reproduction of one with a recorded primary PASS. Only the arena's validators may
        /// claim, in reveal order, and never the reproduction of their own PASS when the arena
        /// requires two distinct validators.
        ///
        /// Weighed for a full queue ahead, then for the entries actually passed over. A lease
        /// taken is free: the chain pays its referees' work; a refused claim pays its fee.
        #[pallet::call_index(10)]
        #[pallet::weight(T::WeightInfo::claim(T::MaxQueueLen::get()))]
        pub fn claim(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let ahead = Self::do_claim(validator, proposal)?;
            Ok((Some(T::WeightInfo::claim(ahead)), Pays::No).into())
        }

        /// Attest the leased attempt's verdict. A second PASS crowns the proposal in this call.
        ///
        /// Weighed for the heaviest branch (a crown displacing `MAX_MEMBERS` entries over a
        /// full queue), then for the branch taken. An accepted attestation is free (only the
        /// lease holder can make one); a refused one pays its fee.
        #[pallet::call_index(11)]
        #[pallet::weight(Pallet::<T>::attest_worst_weight())]
        pub fn attest(
            origin: OriginFor<T>,
            proposal: ProposalId,
            attestation: Attestation,
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let used = Self::do_attest(validator, proposal, attestation)?;
            Ok((Some(used), Pays::No).into())
        }

        /// Add or change a catalog target (the admin origin).
        #[pallet::call_index(20)]
        #[pallet::weight(T::WeightInfo::set_target(T::MaxTargets::get()))]
        pub fn set_target(origin: OriginFor<T>, spec: TargetSpec) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_set_target(spec)
        }

        /// Add an arena or change its configuration; its generation is kept (the admin origin).
        #[pallet::call_index(21)]
        #[pallet::weight(T::WeightInfo::set_arena())]
        pub fn set_arena(origin: OriginFor<T>, config: ArenaConfigOf<T>) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_set_arena(config)
        }

        /// Register a validator key for an arena under an operator identity (the admin origin). Rules that
        /// need independent opinions count operators: one operator with several keys is one.
        #[pallet::call_index(22)]
        #[pallet::weight(T::WeightInfo::add_validator())]
        pub fn add_validator(
            origin: OriginFor<T>,
            arena: ArenaId,
            validator: T::AccountId,
            operator: T::AccountId,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_add_validator(arena, validator, operator)
        }

        /// Remove a validator from an arena (the admin origin). Its open leases can no longer be attested
        /// and expire into the queue; its recorded PASSes and disputed FAILs stop counting.
        #[pallet::call_index(23)]
        #[pallet::weight(T::WeightInfo::remove_validator())]
        pub fn remove_validator(
            origin: OriginFor<T>,
            arena: ArenaId,
            validator: T::AccountId,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            let mut info = Arenas::<T>::get(&arena).ok_or(Error::<T>::UnknownArena)?;
            ensure!(
                Validators::<T>::contains_key(&arena, &validator),
                Error::<T>::NotValidator
            );
            info.validators = info.validators.saturating_sub(1);
            Validators::<T>::remove(&arena, &validator);
            KeyOperators::<T>::mutate_exists(&validator, |k| {
                if let Some((_, arenas)) = k {
                    *arenas = arenas.saturating_sub(1);
                    if *arenas == 0 {
                        *k = None;
                    }
                }
            });
            Arenas::<T>::insert(&arena, info);
            Self::deposit_event(Event::ValidatorRemoved { arena, validator });
            Ok(())
        }

        /// Set the emissions policy (the admin origin).
        #[pallet::call_index(24)]
        #[pallet::weight(T::WeightInfo::set_emissions())]
        pub fn set_emissions(origin: OriginFor<T>, policy: EmissionsPolicyOf<T>) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::check_emissions(&policy)?;
            Self::deposit_event(Event::EmissionsSet {
                epoch_blocks: policy.epoch_blocks,
                emission_per_epoch: policy.emission_per_epoch,
            });
            Emissions::<T>::put(policy);
            Ok(())
        }
    }

    #[pallet::view_functions]
    impl<T: Config> Pallet<T> {
        /// The last epoch's weight vector: `(account, ppm)`, summing to 1_000_000.
        pub fn weight_vector() -> alloc::vec::Vec<(T::AccountId, u32)> {
            Weights::<T>::get().into_inner()
        }

        /// An arena's generation and crowned incumbent entries `(target, proposal, content_hash)`.
        pub fn incumbent_stack(arena: ArenaId) -> Option<(u32, alloc::vec::Vec<StackEntry>)> {
            let info = Arenas::<T>::get(&arena)?;
            let entries = Incumbents::<T>::iter_prefix(&arena)
                .map(|(target, e)| (target, e.proposal, e.content_hash))
                .collect();
            Some((info.generation, entries))
        }

        /// A proposal and its status.
        pub fn proposal_status(proposal: ProposalId) -> Option<ProposalOf<T>> {
            Proposals::<T>::get(proposal)
        }
    }
}

impl<T: Config> Pallet<T> {
    /// The reward pot: receives fees, pays emissions.
    pub fn pot_account() -> T::AccountId {
        T::PalletId::get().into_account_truncating()
    }

    /// The current epoch number, or 0 without an emissions policy.
    pub fn current_epoch() -> u32 {
        let now = frame_system::Pallet::<T>::block_number();
        match Emissions::<T>::get() {
            Some(p) if !p.epoch_blocks.is_zero() => (now / p.epoch_blocks).saturated_into(),
            _ => 0,
        }
    }

    /// What `attest` is charged before it runs: its heaviest branch.
    pub fn attest_worst_weight() -> Weight {
        T::WeightInfo::attest_crown(T::MaxQueueLen::get(), MAX_MEMBERS)
            .max(T::WeightInfo::attest_pass())
            .max(T::WeightInfo::attest_fail())
            .max(T::WeightInfo::attest_requeue())
    }

    /// The limits the chain applies to bundles.
    pub fn bundle_limits() -> BundleLimits {
        BundleLimits {
            max_bytes: T::MaxBundleBytes::get(),
            ..BundleLimits::DEFAULT
        }
    }

    fn remove_commit(miner: &T::AccountId, commitment: Commitment) {
        let deposit = Commits::<T>::take(miner, commitment)
            .map(|c| c.deposit)
            .unwrap_or_else(Zero::zero);
        PendingCommits::<T>::mutate_exists(miner, |n| {
            *n = n.and_then(|n| n.checked_sub(1)).filter(|n| *n > 0);
        });
        let _ = T::Currency::release(
            &HoldReason::CommitDeposit.into(),
            miner,
            deposit,
            Precision::BestEffort,
        );
    }
}

impl<T: Config> From<BundleError> for Error<T> {
    fn from(e: BundleError) -> Self {
        match e {
            BundleError::TooLarge { .. } => Error::BundleTooLarge,
            BundleError::TooManyFiles { .. } => Error::BundleTooManyFiles,
            BundleError::Empty => Error::BundleEmpty,
            BundleError::Malformed | BundleError::TrailingBytes => Error::BundleMalformed,
            BundleError::BadPath { .. } | BundleError::PathTooLong { .. } => Error::BundleBadPath,
            BundleError::NotSorted { .. }
            | BundleError::DuplicatePath { .. }
            | BundleError::PathConflict { .. } => Error::BundleNotCanonical,
            BundleError::BinaryExtension { .. } | BundleError::BinaryContent { .. } => {
                Error::BundleBinary
            }
        }
    }
}
