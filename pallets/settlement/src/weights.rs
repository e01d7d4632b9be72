//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Machine: Intel(R) Xeon(R) Processor, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 259s in all. 1-minute load average 16.31 before, 33.70 after
//! (other builds on the machine inflate the timings).
//! Ref time: min-squares fit (inter-quartile range) of the timed runs. Reads and writes:
//! counted by the benchmarking state, System's per-block keys excluded. Proof size: recorded.
//!
//! Command:
//!   cacheon-node benchmark-pallet --steps 20 --repeat 10 --output pallets/settlement/src/weights.rs

#![allow(unused_parens, unused_imports)]

use core::marker::PhantomData;
use polkadot_sdk::polkadot_sdk_frame::weights_prelude::*;

/// Weight functions of this pallet.
pub trait WeightInfo {
    fn commit() -> Weight;
    /// `b`: bundle bytes.
    fn reveal(b: u32) -> Weight;
    fn withdraw() -> Weight;
    fn cancel_commit() -> Weight;
    /// `q`: proposals in the arena's queue ahead of the claimed one.
    fn claim(q: u32) -> Weight;
    /// A primary PASS recorded (or a stale attestation sent back to the queue).
    fn attest_pass() -> Weight;
    /// A FAIL that sticks (the bundle deposit slashed or returned, the proposal pruned later).
    fn attest_fail() -> Weight;
    /// A NoDecision or a disputed FAIL: back to the queue, or expired when no operator is left.
    fn attest_requeue() -> Weight;
    /// `q`: queue length scanned for stale passes; `m`: targets displaced by the crown.
    fn attest_crown(q: u32, m: u32) -> Weight;
    /// `t`: targets visited by the displacement cycle check.
    fn set_target(t: u32) -> Weight;
    fn set_arena() -> Weight;
    fn add_validator() -> Weight;
    fn remove_validator() -> Weight;
    fn set_evidence_endpoint() -> Weight;
    fn set_emissions() -> Weight;
    /// `n`: leases expiring in the block.
    fn expire_leases(n: u32) -> Weight;
    /// `n`: pending proposals expired at the end of their lifetime.
    fn expire_overdue(n: u32) -> Weight;
    fn overturn_fail() -> Weight;
    fn bond() -> Weight;
    fn unbond() -> Weight;
    fn set_required_bond() -> Weight;
    /// `c`: active reward claims.
    fn close_epoch(c: u32) -> Weight;
    /// `n`: emission shares paid in the block.
    fn pay_emissions(n: u32) -> Weight;
    /// `n`: terminal proposals deleted.
    fn prune_proposals(n: u32) -> Weight;
    /// `n`: reveal counts cleared.
    fn clear_reveal_period(n: u32) -> Weight;
}

/// Weights for a runtime, with its own database weights (`T::DbWeight`).
pub struct SubstrateWeight<T>(PhantomData<T>);
impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 310_269 ns.
        Weight::from_parts(320_454_000, 301)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `b` is `[256, 524288]`.
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::ContentOwners` (r:1 w:1)
    /// Storage: `Cacheon::FailedContents` (r:1 w:0)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 870_567 ns.
        Weight::from_parts(1_206_438_687, 2_546)
            .saturating_add(Weight::from_parts(12_445, 0).saturating_mul(b.into()))
            .saturating_add(T::DbWeight::get().reads(14))
            .saturating_add(T::DbWeight::get().writes(12))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw() -> Weight {
        // Fastest run: 359_478 ns.
        Weight::from_parts(364_693_000, 790)
            .saturating_add(T::DbWeight::get().reads(6))
            .saturating_add(T::DbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 275_813 ns.
        Weight::from_parts(286_660_000, 568)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:126 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:64 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:0)
    /// Storage: `Cacheon::Proposals` (r:127 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:1 w:0)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 1_283_318 ns.
        Weight::from_parts(1_330_563_404, 5_096)
            .saturating_add(Weight::from_parts(68_659_390, 294).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(72))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:3 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 1_450_863 ns.
        Weight::from_parts(1_518_161_000, 4_763)
            .saturating_add(T::DbWeight::get().reads(72))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:0 w:1)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn attest_fail() -> Weight {
        // Fastest run: 674_583 ns.
        Weight::from_parts(707_968_000, 2_912)
            .saturating_add(T::DbWeight::get().reads(12))
            .saturating_add(T::DbWeight::get().writes(14))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:34 w:0)
    fn attest_requeue() -> Weight {
        // Fastest run: 2_798_200 ns.
        Weight::from_parts(7_031_332_000, 8_170)
            .saturating_add(T::DbWeight::get().reads(103))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: `Balances::Holds` (r:128 w:128)
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:135 w:135)
    /// Storage: `Cacheon::Bundles` (r:0 w:135)
    /// Storage: `Cacheon::Claims` (r:9 w:9)
    /// Storage: `Cacheon::ContentOwners` (r:1 w:0)
    /// Storage: `Cacheon::CounterForClaims` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:10 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:128 w:128)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:136 w:136)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:135)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:9 w:0)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:128 w:128)
    fn attest_crown(q: u32, m: u32) -> Weight {
        // Fastest run: 3_269_953 ns.
        Weight::from_parts(3_341_789_000, 2_802)
            .saturating_add(Weight::from_parts(345_974_441, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(671_008_620, 438).saturating_mul(m.into()))
            .saturating_add(T::DbWeight::get().reads(16))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(T::DbWeight::get().writes(11))
            .saturating_add(T::DbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:5 w:0)
    /// Storage: `Cacheon::Incumbents` (r:4 w:0)
    /// Storage: `Cacheon::Targets` (r:51 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 285_670 ns.
        Weight::from_parts(336_968_355, 956)
            .saturating_add(Weight::from_parts(21_325_706, 75).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(11))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 660_706 ns.
        Weight::from_parts(675_807_000, 2_579)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 177_022 ns.
        Weight::from_parts(187_981_000, 953)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 187_979 ns.
        Weight::from_parts(201_889_000, 1_097)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 87_211 ns.
        Weight::from_parts(96_690_000, 404)
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_924 ns.
        Weight::from_parts(41_459_000, 0).saturating_add(T::DbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 47_120 ns.
        Weight::from_parts(48_652_000, 5_318)
            .saturating_add(Weight::from_parts(3_032_590_522, 565).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(57))
            .saturating_add(T::DbWeight::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(2))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Balances::Holds` (r:32 w:32)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:32 w:32)
    /// Storage: `Cacheon::Bundles` (r:0 w:32)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:32)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:32 w:32)
    fn expire_overdue(n: u32) -> Weight {
        // Fastest run: 1_363_296 ns.
        Weight::from_parts(157_795_665, 2_048)
            .saturating_add(Weight::from_parts(527_607_309, 563).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(157))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(3))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:1 w:1)
    /// Storage: `System::Account` (r:2 w:2)
    fn overturn_fail() -> Weight {
        // Fastest run: 386_315 ns.
        Weight::from_parts(481_680_000, 908)
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().writes(6))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        // Fastest run: 347_771 ns.
        Weight::from_parts(361_070_000, 662)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        // Fastest run: 293_377 ns.
        Weight::from_parts(342_850_000, 473)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        // Fastest run: 111_489 ns.
        Weight::from_parts(162_102_000, 387)
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:1 w:0)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 92_749 ns.
        Weight::from_parts(100_165_000, 324)
            .saturating_add(Weight::from_parts(96_079_127, 153).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 74_258 ns.
        Weight::from_parts(76_624_000, 18_972)
            .saturating_add(Weight::from_parts(349_342_977, 6).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(2))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::BundleRefs` (r:64 w:0)
    /// Storage: `Cacheon::ContentOwners` (r:64 w:64)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:64)
    /// Storage: `Cacheon::FailedContents` (r:64 w:0)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    /// Storage: `Cacheon::PruneHead` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:64 w:64)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:0)
    /// Storage: `Cacheon::SlashedDeposits` (r:0 w:64)
    fn prune_proposals(n: u32) -> Weight {
        // Fastest run: 38_506 ns.
        Weight::from_parts(39_043_000, 562)
            .saturating_add(Weight::from_parts(155_387_364, 261).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((5_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::PruneHead` (r:1 w:0)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:64 w:64)
    fn clear_reveal_period(n: u32) -> Weight {
        // Fastest run: 57_862 ns.
        Weight::from_parts(70_603_967, 343)
            .saturating_add(Weight::from_parts(4_549_297, 58).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
}

/// The same weights with RocksDB's database weights, for tests and mocks.
impl WeightInfo for () {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 310_269 ns.
        Weight::from_parts(320_454_000, 301)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `b` is `[256, 524288]`.
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::ContentOwners` (r:1 w:1)
    /// Storage: `Cacheon::FailedContents` (r:1 w:0)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 870_567 ns.
        Weight::from_parts(1_206_438_687, 2_546)
            .saturating_add(Weight::from_parts(12_445, 0).saturating_mul(b.into()))
            .saturating_add(RocksDbWeight::get().reads(14))
            .saturating_add(RocksDbWeight::get().writes(12))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw() -> Weight {
        // Fastest run: 359_478 ns.
        Weight::from_parts(364_693_000, 790)
            .saturating_add(RocksDbWeight::get().reads(6))
            .saturating_add(RocksDbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 275_813 ns.
        Weight::from_parts(286_660_000, 568)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:126 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:64 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:0)
    /// Storage: `Cacheon::Proposals` (r:127 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:1 w:0)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 1_283_318 ns.
        Weight::from_parts(1_330_563_404, 5_096)
            .saturating_add(Weight::from_parts(68_659_390, 294).saturating_mul(q.into()))
            .saturating_add(RocksDbWeight::get().reads(72))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:3 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 1_450_863 ns.
        Weight::from_parts(1_518_161_000, 4_763)
            .saturating_add(RocksDbWeight::get().reads(72))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:0 w:1)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn attest_fail() -> Weight {
        // Fastest run: 674_583 ns.
        Weight::from_parts(707_968_000, 2_912)
            .saturating_add(RocksDbWeight::get().reads(12))
            .saturating_add(RocksDbWeight::get().writes(14))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:34 w:0)
    fn attest_requeue() -> Weight {
        // Fastest run: 2_798_200 ns.
        Weight::from_parts(7_031_332_000, 8_170)
            .saturating_add(RocksDbWeight::get().reads(103))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: `Balances::Holds` (r:128 w:128)
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:135 w:135)
    /// Storage: `Cacheon::Bundles` (r:0 w:135)
    /// Storage: `Cacheon::Claims` (r:9 w:9)
    /// Storage: `Cacheon::ContentOwners` (r:1 w:0)
    /// Storage: `Cacheon::CounterForClaims` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:10 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:128 w:128)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:136 w:136)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:135)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:9 w:0)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:128 w:128)
    fn attest_crown(q: u32, m: u32) -> Weight {
        // Fastest run: 3_269_953 ns.
        Weight::from_parts(3_341_789_000, 2_802)
            .saturating_add(Weight::from_parts(345_974_441, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(671_008_620, 438).saturating_mul(m.into()))
            .saturating_add(RocksDbWeight::get().reads(16))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(RocksDbWeight::get().writes(11))
            .saturating_add(RocksDbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:5 w:0)
    /// Storage: `Cacheon::Incumbents` (r:4 w:0)
    /// Storage: `Cacheon::Targets` (r:51 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 285_670 ns.
        Weight::from_parts(336_968_355, 956)
            .saturating_add(Weight::from_parts(21_325_706, 75).saturating_mul(t.into()))
            .saturating_add(RocksDbWeight::get().reads(11))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 660_706 ns.
        Weight::from_parts(675_807_000, 2_579)
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 177_022 ns.
        Weight::from_parts(187_981_000, 953)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 187_979 ns.
        Weight::from_parts(201_889_000, 1_097)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 87_211 ns.
        Weight::from_parts(96_690_000, 404)
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_924 ns.
        Weight::from_parts(41_459_000, 0).saturating_add(RocksDbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 47_120 ns.
        Weight::from_parts(48_652_000, 5_318)
            .saturating_add(Weight::from_parts(3_032_590_522, 565).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(57))
            .saturating_add(RocksDbWeight::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(2))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Balances::Holds` (r:32 w:32)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:32 w:32)
    /// Storage: `Cacheon::Bundles` (r:0 w:32)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:32)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:32 w:32)
    fn expire_overdue(n: u32) -> Weight {
        // Fastest run: 1_363_296 ns.
        Weight::from_parts(157_795_665, 2_048)
            .saturating_add(Weight::from_parts(527_607_309, 563).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(157))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:1 w:1)
    /// Storage: `System::Account` (r:2 w:2)
    fn overturn_fail() -> Weight {
        // Fastest run: 386_315 ns.
        Weight::from_parts(481_680_000, 908)
            .saturating_add(RocksDbWeight::get().reads(5))
            .saturating_add(RocksDbWeight::get().writes(6))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        // Fastest run: 347_771 ns.
        Weight::from_parts(361_070_000, 662)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        // Fastest run: 293_377 ns.
        Weight::from_parts(342_850_000, 473)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        // Fastest run: 111_489 ns.
        Weight::from_parts(162_102_000, 387)
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:1 w:0)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 92_749 ns.
        Weight::from_parts(100_165_000, 324)
            .saturating_add(Weight::from_parts(96_079_127, 153).saturating_mul(c.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 74_258 ns.
        Weight::from_parts(76_624_000, 18_972)
            .saturating_add(Weight::from_parts(349_342_977, 6).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(2))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::BundleRefs` (r:64 w:0)
    /// Storage: `Cacheon::ContentOwners` (r:64 w:64)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:64)
    /// Storage: `Cacheon::FailedContents` (r:64 w:0)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    /// Storage: `Cacheon::PruneHead` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:64 w:64)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:0)
    /// Storage: `Cacheon::SlashedDeposits` (r:0 w:64)
    fn prune_proposals(n: u32) -> Weight {
        // Fastest run: 38_506 ns.
        Weight::from_parts(39_043_000, 562)
            .saturating_add(Weight::from_parts(155_387_364, 261).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((5_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::PruneHead` (r:1 w:0)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:64 w:64)
    fn clear_reveal_period(n: u32) -> Weight {
        // Fastest run: 57_862 ns.
        Weight::from_parts(70_603_967, 343)
            .saturating_add(Weight::from_parts(4_549_297, 58).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
}
