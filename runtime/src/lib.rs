//! The Cacheon runtime: System, Timestamp, Aura, Grandpa, Balances, TransactionPayment, Sudo
//! and Cacheon (the settlement pallet).

#![cfg_attr(not(feature = "std"), no_std)]
#![recursion_limit = "256"]

extern crate alloc;

#[cfg(feature = "std")]
include!(concat!(env!("OUT_DIR"), "/wasm_binary.rs"));

pub mod genesis;

use alloc::{vec, vec::Vec};
use polkadot_sdk::{
    pallet_aura, pallet_balances, pallet_grandpa, pallet_sudo, pallet_timestamp,
    pallet_transaction_payment, pallet_transaction_payment_rpc_runtime_api,
    polkadot_sdk_frame as frame, sp_consensus_aura, sp_consensus_grandpa,
};

use frame::{
    deps::{
        frame_support::{
            genesis_builder_helper::{build_state, get_preset},
            weights::{
                constants::{ParityDbWeight, WEIGHT_REF_TIME_PER_SECOND},
                ConstantMultiplier,
            },
        },
        sp_core::crypto::KeyTypeId,
        sp_runtime::{
            generic, impl_opaque_keys,
            traits::{Block as BlockT, NumberFor},
            transaction_validity::{TransactionSource, TransactionValidity},
            FixedPointNumber, Perbill, Perquintill,
        },
    },
    prelude::*,
    runtime::{apis, prelude::*},
};
use frame_system::limits::{BlockLength, BlockWeights};
use pallet_transaction_payment::{FungibleAdapter, Multiplier, TargetedFeeAdjustment};

pub use frame::runtime::types_common::{AccountId, BlockNumber, Signature};
pub type Balance = u128;
pub type Nonce = u32;
pub type Hash = frame::deps::sp_core::H256;
pub type Header = generic::Header<BlockNumber, frame::deps::sp_runtime::traits::BlakeTwo256>;
pub type Address = frame::deps::sp_runtime::MultiAddress<AccountId, ()>;

/// The transaction extensions every signed extrinsic carries.
pub type TxExtension = (
    frame_system::CheckNonZeroSender<Runtime>,
    frame_system::CheckSpecVersion<Runtime>,
    frame_system::CheckTxVersion<Runtime>,
    frame_system::CheckGenesis<Runtime>,
    frame_system::CheckEra<Runtime>,
    frame_system::CheckNonce<Runtime>,
    frame_system::CheckWeight<Runtime>,
    pallet_transaction_payment::ChargeTransactionPayment<Runtime>,
);
pub type UncheckedExtrinsic =
    generic::UncheckedExtrinsic<Address, RuntimeCall, Signature, TxExtension>;
pub type Block = generic::Block<Header, UncheckedExtrinsic>;
/// Storage migrations a runtime upgrade runs (each guarded by its pallet's on-chain version).
pub type Migrations = (
    pallet_cacheon::migrations::v2::MigrateV1ToV2<Runtime>,
    pallet_cacheon::migrations::v3::MigrateV2ToV3<Runtime>,
    pallet_cacheon::migrations::v4::MigrateV3ToV4<Runtime>,
    pallet_cacheon::migrations::v5::MigrateV4ToV5<Runtime>,
);

pub type Executive = frame::runtime::prelude::Executive<
    Runtime,
    Block,
    frame_system::ChainContext<Runtime>,
    Runtime,
    AllPalletsWithSystem,
    Migrations,
>;

/// Types the node needs without knowing the runtime's calls.
pub mod opaque {
    use super::*;
    pub type Block = generic::Block<Header, frame::deps::sp_runtime::OpaqueExtrinsic>;

    impl_opaque_keys! {
        pub struct SessionKeys {
            pub aura: Aura,
            pub grandpa: Grandpa,
        }
    }
}

#[runtime_version]
pub const VERSION: RuntimeVersion = RuntimeVersion {
    spec_name: alloc::borrow::Cow::Borrowed("cacheon"),
    impl_name: alloc::borrow::Cow::Borrowed("cacheon"),
    authoring_version: 1,
    spec_version: 3,
    impl_version: 1,
    apis: RUNTIME_API_VERSIONS,
    transaction_version: 1,
    system_version: 1,
};

/// One token has 12 decimals.
pub const UNIT: Balance = 1_000_000_000_000;
pub const MILLI_UNIT: Balance = UNIT / 1_000;
/// Aura slot length. `--dev` seals blocks on its own timer and fakes timestamps to match.
pub const SLOT_DURATION_MS: u64 = 6_000;
pub const MAX_AUTHORITIES: u32 = 32;

const NORMAL_DISPATCH_RATIO: Perbill = Perbill::from_percent(75);
const MAXIMUM_BLOCK_WEIGHT: Weight =
    Weight::from_parts(WEIGHT_REF_TIME_PER_SECOND.saturating_mul(2), u64::MAX);

parameter_types! {
    pub const Version: RuntimeVersion = VERSION;
    /// 5 MiB blocks: a maximum-size bundle (512 KiB) always fits.
    pub RuntimeBlockLength: BlockLength = BlockLength::builder()
        .max_length(5 * 1024 * 1024)
        .modify_max_length_for_class(DispatchClass::Normal, |max| *max = NORMAL_DISPATCH_RATIO * *max)
        .build();
    pub RuntimeBlockWeights: BlockWeights = BlockWeights::with_sensible_defaults(MAXIMUM_BLOCK_WEIGHT, NORMAL_DISPATCH_RATIO);
    pub const SS58Prefix: u16 = 42;
}

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
    pub struct Runtime;

    #[runtime::pallet_index(0)]
    pub type System = frame_system;
    #[runtime::pallet_index(1)]
    pub type Timestamp = pallet_timestamp;
    #[runtime::pallet_index(2)]
    pub type Aura = pallet_aura;
    #[runtime::pallet_index(3)]
    pub type Grandpa = pallet_grandpa;
    #[runtime::pallet_index(4)]
    pub type Balances = pallet_balances;
    #[runtime::pallet_index(5)]
    pub type TransactionPayment = pallet_transaction_payment;
    #[runtime::pallet_index(6)]
    pub type Sudo = pallet_sudo;
    #[runtime::pallet_index(10)]
    pub type Cacheon = pallet_cacheon;
}

#[derive_impl(frame_system::config_preludes::SolochainDefaultConfig)]
impl frame_system::Config for Runtime {
    type Block = Block;
    type BlockWeights = RuntimeBlockWeights;
    type BlockLength = RuntimeBlockLength;
    type AccountId = AccountId;
    type Nonce = Nonce;
    type Hash = Hash;
    type DbWeight = ParityDbWeight;
    type Version = Version;
    type AccountData = pallet_balances::AccountData<Balance>;
    type SS58Prefix = SS58Prefix;
    type MaxConsumers = ConstU32<16>;
}

impl pallet_timestamp::Config for Runtime {
    type Moment = u64;
    type OnTimestampSet = Aura;
    type MinimumPeriod = ConstU64<{ SLOT_DURATION_MS / 2 }>;
    type WeightInfo = ();
}

impl pallet_aura::Config for Runtime {
    type AuthorityId = sp_consensus_aura::sr25519::AuthorityId;
    type DisabledValidators = ();
    type MaxAuthorities = ConstU32<MAX_AUTHORITIES>;
    type AllowMultipleBlocksPerSlot = ConstBool<false>;
    type SlotDuration = pallet_aura::MinimumPeriodTimesTwo<Runtime>;
}

impl pallet_grandpa::Config for Runtime {
    type RuntimeEvent = RuntimeEvent;
    type WeightInfo = ();
    type MaxAuthorities = ConstU32<MAX_AUTHORITIES>;
    type MaxNominators = ConstU32<0>;
    type MaxSetIdSessionEntries = ConstU64<0>;
    type KeyOwnerProof = frame::deps::sp_core::Void;
    type EquivocationReportSystem = ();
}

#[derive_impl(pallet_balances::config_preludes::TestDefaultConfig)]
impl pallet_balances::Config for Runtime {
    type Balance = Balance;
    type ExistentialDeposit = ConstU128<MILLI_UNIT>;
    type AccountStore = System;
    type RuntimeHoldReason = RuntimeHoldReason;
    type RuntimeFreezeReason = RuntimeFreezeReason;
    type WeightInfo = pallet_balances::weights::SubstrateWeight<Runtime>;
}

parameter_types! {
    /// 10 planck per unit of ref time: a whole block's 2 s of weight costs 20 UNIT.
    pub const WeightFee: Balance = 10;
    /// 10 µUNIT a byte: a 512 KiB reveal pays ~5.2 UNIT for its block space (its bundle
    /// deposit, ~52 UNIT, is returned later); a day of full blocks (~54 GB) ~540,000 UNIT.
    pub const TransactionByteFee: Balance = UNIT / 100_000;
    /// The fee multiplier rises while blocks are fuller than this and falls below it.
    pub const TargetBlockFullness: Perquintill = Perquintill::from_percent(25);
    /// How fast it moves: about ×2.2 per 10,000 full blocks (the usual Substrate value).
    pub AdjustmentVariable: Multiplier = Multiplier::saturating_from_rational(75, 1_000_000);
    /// It never falls below a tenth of the base fee.
    pub MinimumMultiplier: Multiplier = Multiplier::saturating_from_rational(1, 10u128);
    pub MaximumMultiplier: Multiplier = Bounded::max_value();
}

impl pallet_transaction_payment::Config for Runtime {
    type RuntimeEvent = RuntimeEvent;
    type OnChargeTransaction = FungibleAdapter<Balances, ()>;
    type OperationalFeeMultiplier = ConstU8<5>;
    type WeightToFee = ConstantMultiplier<Balance, WeightFee>;
    type LengthToFee = ConstantMultiplier<Balance, TransactionByteFee>;
    type FeeMultiplierUpdate = TargetedFeeAdjustment<
        Self,
        TargetBlockFullness,
        AdjustmentVariable,
        MinimumMultiplier,
        MaximumMultiplier,
    >;
    type WeightInfo = ();
}

impl pallet_sudo::Config for Runtime {
    type RuntimeEvent = RuntimeEvent;
    type RuntimeCall = RuntimeCall;
    type WeightInfo = pallet_sudo::weights::SubstrateWeight<Runtime>;
}

parameter_types! {
    pub const CacheonPalletId: PalletId = PalletId(*b"cacheon/");
    pub const RevocationSlash: Perbill = Perbill::from_percent(100);
    pub const ChallengerReward: Perbill = Perbill::from_percent(50);
}

impl pallet_cacheon::Config for Runtime {
    type Currency = Balances;
    type RuntimeHoldReason = RuntimeHoldReason;
    type PalletId = CacheonPalletId;
    type CommitDeposit = ConstU128<{ UNIT }>;
    /// 512 KiB costs about 52 UNIT of deposit, returned when the bundle is no longer used.
    type BundleByteDeposit = ConstU128<{ UNIT / 10_000 }>;
    type RevealFee = ConstU128<{ UNIT }>;
    type RevealDelay = ConstU32<2>;
    /// Also how long a proposal's crowning attempt waits after its commit: until then an
    /// older commitment of the same content could still be revealed (30 blocks: 3 min).
    type RevealWindow = ConstU32<30>;
    type MaxPendingCommits = ConstU32<16>;
    /// 16 reveals per miner per hour.
    type MaxRevealsPerPeriod = ConstU32<16>;
    type RevealPeriod = ConstU32<600>;
    /// A primary PASS waits an hour for another operator's reproduction.
    type ReproductionTimeout = ConstU32<600>;
    /// Ten minutes for a sealed primary PASS's validator to reveal it once the reproduction
    /// has PASSed (its daemon reveals from a loop of its own, beside its attempts, a block or
    /// two after it sees the reproduction's PASS finalized).
    type RevealTimeout = ConstU32<100>;
    /// A proposal still pending a week (at 6 s blocks) after its reveal expires. An arena's
    /// leases must fit (`set_arena`): at 600-block leases and 3 attempts they take at most
    /// 4,714 blocks (two reproduction waits and a reveal wait among them).
    type PendingLifetime = ConstU32<{ 7 * 24 * 600 }>;
    /// 10×: no single kernel boundary makes the whole engine faster than that.
    type MaxSpeedupPpm = ConstU32<10_000_000>;
    /// Finished proposals are kept 30 days (at 6 s blocks), then pruned.
    type ProposalRetention = ConstU32<{ 30 * 24 * 600 }>;
    /// 128 pending proposals per arena: the worst crown walks and may drop all of them, and
    /// must stay under 5 % of a block (docs/weights.md).
    type MaxQueueLen = ConstU32<128>;
    type MaxBundleBytes = ConstU32<{ 512 * 1024 }>;
    type MaxTargets = ConstU32<64>;
    type MaxValidators = ConstU32<32>;
    type MaxArenas = ConstU32<8>;
    /// One claim per arena and target at most.
    type MaxClaims = ConstU32<{ 8 * 64 }>;
    /// Deadlines (lease expiries, reproduction waits) per block: the worst block expires 32
    /// proposals, each after walking every validator key (docs/weights.md).
    type MaxLeasesPerBlock = ConstU32<32>;
    type MaxLeasesPerOperator = ConstU32<4>;
    /// A crown challenge holds 100 UNIT: paid to the re-qualifying operators if two of them
    /// PASS the crown, returned if it is revoked or nobody decides.
    type ChallengeBond = ConstU128<{ 100 * UNIT }>;
    /// A challenge is decided within a day (at 6 s blocks) or expires.
    type ChallengeWindow = ConstU32<{ 24 * 600 }>;
    type MaxOpenChallenges = ConstU32<8>;
    /// A revoked crown's operators lose their whole bond in its arena, half of it to the
    /// challenger and half to the reward pot.
    type RevocationSlash = RevocationSlash;
    type ChallengerReward = ChallengerReward;
    /// Unbonded stake stays held, and slashable, for a week (at 6 s blocks).
    type UnbondingPeriod = ConstU32<{ 7 * 24 * 600 }>;
    type AdminOrigin = frame_system::EnsureRoot<AccountId>;
    type WeightInfo = pallet_cacheon::weights::SubstrateWeight<Runtime>;
}

/// The pallets the `Benchmark` runtime API can run (`list_benchmarks!`, `add_benchmarks!`).
#[cfg(feature = "runtime-benchmarks")]
#[macro_use]
mod benches {
    polkadot_sdk::polkadot_sdk_frame::deps::frame_benchmarking::define_benchmarks!([
        pallet_cacheon,
        Cacheon
    ]);
}

impl_runtime_apis! {
    impl apis::Core<Block> for Runtime {
        fn version() -> RuntimeVersion {
            VERSION
        }
        fn execute_block(block: <Block as BlockT>::LazyBlock) {
            Executive::execute_block(block)
        }
        fn initialize_block(header: &<Block as BlockT>::Header) -> ExtrinsicInclusionMode {
            Executive::initialize_block(header)
        }
    }

    impl apis::Metadata<Block> for Runtime {
        fn metadata() -> OpaqueMetadata {
            OpaqueMetadata::new(Runtime::metadata().into())
        }
        fn metadata_at_version(version: u32) -> Option<OpaqueMetadata> {
            Runtime::metadata_at_version(version)
        }
        fn metadata_versions() -> Vec<u32> {
            Runtime::metadata_versions()
        }
    }

    impl frame::deps::frame_support::view_functions::runtime_api::RuntimeViewFunction<Block> for Runtime {
        fn execute_view_function(
            id: frame::deps::frame_support::view_functions::ViewFunctionId,
            input: Vec<u8>,
        ) -> Result<Vec<u8>, frame::deps::frame_support::view_functions::ViewFunctionDispatchError> {
            Runtime::execute_view_function(id, input)
        }
    }

    impl apis::BlockBuilder<Block> for Runtime {
        fn apply_extrinsic(extrinsic: <Block as BlockT>::Extrinsic) -> ApplyExtrinsicResult {
            Executive::apply_extrinsic(extrinsic)
        }
        fn finalize_block() -> <Block as BlockT>::Header {
            Executive::finalize_block()
        }
        fn inherent_extrinsics(data: InherentData) -> Vec<<Block as BlockT>::Extrinsic> {
            data.create_extrinsics()
        }
        fn check_inherents(block: <Block as BlockT>::LazyBlock, data: InherentData) -> CheckInherentsResult {
            data.check_extrinsics(&block)
        }
    }

    impl apis::TaggedTransactionQueue<Block> for Runtime {
        fn validate_transaction(
            source: TransactionSource,
            tx: <Block as BlockT>::Extrinsic,
            block_hash: <Block as BlockT>::Hash,
        ) -> TransactionValidity {
            Executive::validate_transaction(source, tx, block_hash)
        }
    }

    impl apis::OffchainWorkerApi<Block> for Runtime {
        fn offchain_worker(header: &<Block as BlockT>::Header) {
            Executive::offchain_worker(header)
        }
    }

    impl apis::AuraApi<Block, sp_consensus_aura::sr25519::AuthorityId> for Runtime {
        fn slot_duration() -> sp_consensus_aura::SlotDuration {
            sp_consensus_aura::SlotDuration::from_millis(Aura::slot_duration())
        }
        fn authorities() -> Vec<sp_consensus_aura::sr25519::AuthorityId> {
            pallet_aura::Authorities::<Runtime>::get().into_inner()
        }
    }

    impl apis::GrandpaApi<Block> for Runtime {
        fn grandpa_authorities() -> sp_consensus_grandpa::AuthorityList {
            Grandpa::grandpa_authorities()
        }
        fn current_set_id() -> sp_consensus_grandpa::SetId {
            Grandpa::current_set_id()
        }
        fn submit_report_equivocation_unsigned_extrinsic(
            _equivocation_proof: sp_consensus_grandpa::EquivocationProof<<Block as BlockT>::Hash, NumberFor<Block>>,
            _key_owner_proof: sp_consensus_grandpa::OpaqueKeyOwnershipProof,
        ) -> Option<()> {
            None
        }
        fn generate_key_ownership_proof(
            _set_id: sp_consensus_grandpa::SetId,
            _authority_id: sp_consensus_grandpa::AuthorityId,
        ) -> Option<sp_consensus_grandpa::OpaqueKeyOwnershipProof> {
            // No session history is kept: equivocations cannot be proven on this chain.
            None
        }
    }

    impl apis::SessionKeys<Block> for Runtime {
        fn generate_session_keys(owner: Vec<u8>, seed: Option<Vec<u8>>) -> apis::OpaqueGeneratedSessionKeys {
            opaque::SessionKeys::generate(&owner, seed).into()
        }
        fn decode_session_keys(encoded: Vec<u8>) -> Option<Vec<(Vec<u8>, KeyTypeId)>> {
            opaque::SessionKeys::decode_into_raw_public_keys(&encoded)
        }
    }

    impl apis::AccountNonceApi<Block, AccountId, Nonce> for Runtime {
        fn account_nonce(account: AccountId) -> Nonce {
            System::account_nonce(account)
        }
    }

    impl pallet_transaction_payment_rpc_runtime_api::TransactionPaymentApi<Block, Balance> for Runtime {
        fn query_info(
            uxt: <Block as BlockT>::Extrinsic,
            len: u32,
        ) -> pallet_transaction_payment_rpc_runtime_api::RuntimeDispatchInfo<Balance> {
            TransactionPayment::query_info(uxt, len)
        }
        fn query_fee_details(
            uxt: <Block as BlockT>::Extrinsic,
            len: u32,
        ) -> pallet_transaction_payment::FeeDetails<Balance> {
            TransactionPayment::query_fee_details(uxt, len)
        }
        fn query_weight_to_fee(weight: Weight) -> Balance {
            TransactionPayment::weight_to_fee(weight)
        }
        fn query_length_to_fee(length: u32) -> Balance {
            TransactionPayment::length_to_fee(length)
        }
    }

    impl apis::GenesisBuilder<Block> for Runtime {
        fn build_state(config: Vec<u8>) -> GenesisBuilderResult {
            build_state::<RuntimeGenesisConfig>(config)
        }
        fn get_preset(id: &Option<PresetId>) -> Option<Vec<u8>> {
            get_preset::<RuntimeGenesisConfig>(id, genesis::preset)
        }
        fn preset_names() -> Vec<PresetId> {
            genesis::preset_names()
        }
    }

    #[cfg(feature = "try-runtime")]
    impl frame::deps::frame_try_runtime::TryRuntime<Block> for Runtime {
        fn on_runtime_upgrade(
            checks: frame::deps::frame_try_runtime::UpgradeCheckSelect,
        ) -> (Weight, Weight) {
            // A failed check must abort the run with its message.
            let weight = Executive::try_runtime_upgrade(checks).unwrap();
            (weight, RuntimeBlockWeights::get().max_block)
        }
        fn execute_block(
            block: <Block as BlockT>::LazyBlock,
            state_root_check: bool,
            signature_check: bool,
            select: frame::deps::frame_try_runtime::TryStateSelect,
        ) -> Weight {
            Executive::try_execute_block(block, state_root_check, signature_check, select).unwrap()
        }
    }

    #[cfg(feature = "runtime-benchmarks")]
    impl frame::deps::frame_benchmarking::Benchmark<Block> for Runtime {
        fn benchmark_metadata(extra: bool) -> (
            Vec<frame::deps::frame_benchmarking::BenchmarkList>,
            Vec<frame::deps::frame_support::traits::StorageInfo>,
        ) {
            use frame::deps::frame_benchmarking::BenchmarkList;
            use frame::deps::frame_support::traits::StorageInfoTrait;

            let mut list = Vec::<BenchmarkList>::new();
            list_benchmarks!(list, extra);
            (list, AllPalletsWithSystem::storage_info())
        }

        fn dispatch_benchmark(
            config: frame::deps::frame_benchmarking::BenchmarkConfig,
        ) -> Result<Vec<frame::deps::frame_benchmarking::BenchmarkBatch>, alloc::string::String> {
            use frame::deps::frame_benchmarking::BenchmarkBatch;
            use frame::deps::frame_support::traits::{TrackedStorageKey, WhitelistedStorageKeys};

            // System's per-block keys (block number, weight, events, ...) are read and written
            // by every block anyway: the pallet's weights must not count them.
            let whitelist: Vec<TrackedStorageKey> = AllPalletsWithSystem::whitelisted_storage_keys();
            let mut batches = Vec::<BenchmarkBatch>::new();
            let params = (&config, &whitelist);
            add_benchmarks!(params, batches);
            Ok(batches)
        }
    }
}

#[cfg(test)]
mod tests;
