//! # Cacheon settlement pallet
//!
//! Every rule that decides who wins (DESIGN 4): the target catalog and arenas (the admin origin), miners'
//! commit-reveal of kernel bundles, validators' leases and attestations, crowns, reward claims
//! and the epoch weight vector, operator bonds, crown challenges and their slashes.
//!
//! Proposal life cycle:
//! ```text
//! Queued ─claim─► Primary ─PASS─► ReproductionQueued ─claim (other operator)─► Reproduction ─PASS─► Crowned ─► Retired
//!                   (sealed where two operators must agree)              PASS of a sealed one │
//!                                                    AwaitingReveal ─reveal_pass─► Crowned ◄┘
//!                                                      └─missed: the reproduction's PASS is the new primary
//!   ▲               │ FAIL agreeing with an earlier one ──► Failed ─(admin overturns)─► Overturned
//!   └─ a first FAIL (disputed) / NoDecision / lease expiry / stale generation
//!      (each operator's stall counts once: Expired at max_attempts)
//! Any pending proposal: Expired PendingLifetime blocks after its reveal.
//! Crowned (or Retired while challenged) ─challenge: two FAILs for what the bytes are─► Revoked
//! ```
//! The second PASS crowns in the same extrinsic. Extrinsics are transactional: when any crown
//! step fails, the call fails and nothing changes.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub use pallet::*;

mod calls;
mod challenges;
mod epoch;
mod errors;
mod events;
mod hooks;
#[cfg(any(feature = "try-runtime", feature = "std", test))]
mod invariants;
pub mod migrations;
mod operators;
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
pub type EvaluationFeeOf<T> = EvaluationFee<BalanceOf<T>>;
pub type FeeEscrowOf<T> = FeeEscrow<BalanceOf<T>>;
pub type UnbondingOf<T> =
    BoundedVec<UnbondingChunk<BlockNumberFor<T>, BalanceOf<T>>, MaxUnbondingChunks>;
pub type ChallengeOf<T> =
    Challenge<<T as frame_system::Config>::AccountId, BlockNumberFor<T>, BalanceOf<T>>;
pub type WeightVectorOf<T> =
    BoundedVec<(<T as frame_system::Config>::AccountId, u32), <T as Config>::MaxClaims>;

#[frame::pallet_macros::import_section(events::events)]
#[frame::pallet_macros::import_section(errors::errors)]
#[frame::pallet_macros::import_section(hooks::hooks)]
#[frame::pallet_macros::import_section(operators::operators)]
#[frame::pallet_macros::import_section(calls::calls)]
#[frame::pallet_macros::import_section(challenges::challenges)]
#[frame::pallet]
pub mod pallet {
    use super::*;

    /// Version 5: a reproduction's primary PASS is sealed or open (`PrimaryPass`;
    /// [`crate::migrations::v5`] moves a version 4 state; [`crate::migrations::v4`] a
    /// version 3 state, whose arenas had no speedup cap; [`crate::migrations::v3`] a version 2
    /// state, in which a reproduction's wait did not stand still while leased;
    /// [`crate::migrations::v2`] a version 1 state).
    pub const STORAGE_VERSION: StorageVersion = StorageVersion::new(5);

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
        /// An operator's bond in an arena, from `bond` until `withdraw_unbonded` (unbonding
        /// included).
        OperatorBond,
        /// A challenger's bond, from `challenge` until the challenge's outcome.
        ChallengeBond,
        /// A proposal's evaluation fee, from `reveal` until the proposal ends: the verdicts
        /// the outcome confirms are paid from it, the rest is released.
        EvaluationFee,
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
        /// Paid into the reward pot on every reveal, never returned: it pays for the records
        /// a reveal leaves behind (the content's owner, kept for ever) and prices spam. The
        /// measurement itself is paid by the arena's evaluation fee ([`EvaluationFees`]).
        #[pallet::constant]
        type RevealFee: Get<BalanceOf<Self>>;
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
        /// its reproduction; then it expires (deposits returned). The wait's clock stands still
        /// while a reproduction lease is held.
        #[pallet::constant]
        type ReproductionTimeout: Get<BlockNumberFor<Self>>;
        /// Once the reproduction has PASSed a sealed primary PASS, the primary's validator has
        /// this many blocks to reveal it (`reveal_pass`); then the sealed PASS is void (a stall
        /// of its operator) and the reproduction's PASS becomes the primary.
        #[pallet::constant]
        type RevealTimeout: Get<BlockNumberFor<Self>>;
        /// A proposal still pending this many blocks after its reveal expires, whatever its
        /// phase (deposits returned): no proposal holds its queue, or the crowns of
        /// overlapping targets, for longer. `set_arena` refuses a policy whose stalls could
        /// take longer (see [`Pallet::pending_life_needed`]).
        #[pallet::constant]
        type PendingLifetime: Get<BlockNumberFor<Self>>;
        /// The largest speedup cap an arena may set (ppm; each arena's `max_speedup_ppm` is at
        /// most this), and the cap the version 4 migration gives the arenas that had none.
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
        /// Held from whoever challenges a crown until the outcome: returned when the crown is
        /// revoked or the challenge expires unanswered, paid to the operators that
        /// re-qualified the crown when two of them PASS it. A runtime constant, not an
        /// arena's: it prices a challenge's spam (the operators' re-qualification work),
        /// which does not grow with the arena's bonds.
        #[pallet::constant]
        type ChallengeBond: Get<BalanceOf<Self>>;
        /// A challenge without two agreeing answers this many blocks after it opened expires
        /// (bond returned).
        #[pallet::constant]
        type ChallengeWindow: Get<BlockNumberFor<Self>>;
        /// Open challenges per arena; also the most challenges that may expire in one block.
        #[pallet::constant]
        type MaxOpenChallenges: Get<u32>;
        /// The part of its bond in the arena that each operator whose PASS crowned a revoked
        /// proposal loses.
        #[pallet::constant]
        type RevocationSlash: Get<Perbill>;
        /// The part of what a revocation slashes that goes to the challenger; the rest goes to
        /// the reward pot.
        #[pallet::constant]
        type ChallengerReward: Get<Perbill>;
        /// `unbond` moves part of a bond to an unbonding chunk that `withdraw_unbonded`
        /// releases this many blocks later. Until then it can be slashed: a challenge opened
        /// within this period of the unbond still reaches it (and withdrawal waits while one
        /// is open).
        #[pallet::constant]
        type UnbondingPeriod: Get<BlockNumberFor<Self>>;
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

    /// What measuring a proposal costs in each arena (the admin origin quotes it; an arena
    /// without a quote measures for free). `Blake2_128Concat`: admin-chosen id.
    #[pallet::storage]
    pub type EvaluationFees<T: Config> =
        StorageMap<_, Blake2_128Concat, ArenaId, EvaluationFeeOf<T>>;

    /// The evaluation fee each pending proposal holds from its miner, until it ends.
    /// `Twox64Concat`: ids come from a counter.
    #[pallet::storage]
    pub type FeeEscrows<T: Config> = StorageMap<_, Twox64Concat, ProposalId, FeeEscrowOf<T>>;

    /// The next proposal id.
    #[pallet::storage]
    pub type NextProposalId<T: Config> = StorageValue<_, ProposalId, ValueQuery>;

    /// Every proposal ever revealed. `Twox64Concat`: ids come from a counter, not from users.
    #[pallet::storage]
    pub type Proposals<T: Config> = StorageMap<_, Twox64Concat, ProposalId, ProposalOf<T>>;

    /// The FAIL that ended each failed proposal (the one that stuck; a disputed first FAIL
    /// stays in the proposal's `disputed`): validator, operator, reason and evidence digest,
    /// so that a miner can find the evidence. Removed with the proposal; proposals failed
    /// before this item existed have none. `Twox64Concat`: ids come from a counter.
    #[pallet::storage]
    pub type FailVerdicts<T: Config> =
        StorageMap<_, Twox64Concat, ProposalId, RecordedFail<T::AccountId>>;

    /// Bytes that FAILed per arena, kept with their proposal: a reveal of the same bytes in
    /// the same arena is refused (`FailReplay`) when the FAIL does not depend on the incumbent
    /// (`Build`, `Abi`, `Policy`, `Cheating`) or the incumbent is still the one it FAILed
    /// against. `Blake2_128Concat` on the admin-chosen arena id; `Identity` on the SHA-256 key.
    #[pallet::storage]
    pub type FailedContents<T: Config> =
        StorageDoubleMap<_, Blake2_128Concat, ArenaId, Identity, ContentHash, FailedContent>;

    /// The bundle deposit each failed proposal forfeited to the reward pot (two operators'
    /// confiscating FAILs, or a copy), kept so that the admin origin can overturn the FAIL
    /// and refund it; removed with the proposal. `Twox64Concat`: ids come from a counter.
    #[pallet::storage]
    pub type SlashedDeposits<T: Config> = StorageMap<_, Twox64Concat, ProposalId, BalanceOf<T>>;

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
        /// Each arena's evaluation fee.
        pub evaluation_fees: alloc::vec::Vec<(ArenaId, EvaluationFeeOf<T>)>,
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
            for (arena, fee) in &self.evaluation_fees {
                Pallet::<T>::do_set_evaluation_fee(arena.clone(), fee.clone())
                    .expect("genesis evaluation fee names an arena");
            }
            if let Some(policy) = &self.emissions {
                Pallet::<T>::check_emissions(policy).expect("genesis emissions policy is valid");
                Emissions::<T>::put(policy.clone());
            }
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

    /// What `claim` is charged for `ahead` queue entries passed over: the benchmark's, plus
    /// the two reads of the operator's bond and the arena's required bond.
    pub fn claim_weight(ahead: u32) -> Weight {
        T::WeightInfo::claim(ahead).saturating_add(T::DbWeight::get().reads(2))
    }

    /// What `attest` is charged before it runs: its heaviest branch.
    pub fn attest_worst_weight() -> Weight {
        T::WeightInfo::attest_crown(T::MaxQueueLen::get(), MAX_MEMBERS)
            .max(T::WeightInfo::attest_pass())
            .max(T::WeightInfo::attest_fail())
            .max(T::WeightInfo::attest_requeue())
    }

    /// What `reveal_pass` is charged before it runs: its heaviest branch, a crown.
    pub fn reveal_worst_weight() -> Weight {
        T::WeightInfo::reveal_pass(T::MaxQueueLen::get(), MAX_MEMBERS)
            .max(T::WeightInfo::attest_pass())
    }

    /// What `answer_challenge` is charged before it runs: its heaviest branch.
    pub fn answer_worst_weight() -> Weight {
        T::WeightInfo::answer_challenge_revoke(T::MaxQueueLen::get())
            .max(T::WeightInfo::answer_challenge_reject())
            .max(T::WeightInfo::answer_challenge())
    }

    /// The limits the chain applies to bundles.
    pub fn bundle_limits() -> BundleLimits {
        BundleLimits {
            max_bytes: T::MaxBundleBytes::get(),
            ..BundleLimits::DEFAULT
        }
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
