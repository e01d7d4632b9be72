//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Machine: Intel(R) Xeon(R) Processor, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 152s in all. 1-minute load average 0.97 before, 1.00 after
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
        // Fastest run: 309_019 ns.
        Weight::from_parts(320_257_000, 301)
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
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 901_382 ns.
        Weight::from_parts(1_038_177_046, 2_410)
            .saturating_add(Weight::from_parts(7_496, 0).saturating_mul(b.into()))
            .saturating_add(T::DbWeight::get().reads(13))
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
        // Fastest run: 348_160 ns.
        Weight::from_parts(354_796_000, 790)
            .saturating_add(T::DbWeight::get().reads(6))
            .saturating_add(T::DbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 271_046 ns.
        Weight::from_parts(281_895_000, 568)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:126 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:64 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:127 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 1_260_752 ns.
        Weight::from_parts(1_430_015_612, 4_949)
            .saturating_add(Weight::from_parts(41_097_008, 293).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(70))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 1_221_359 ns.
        Weight::from_parts(1_238_888_000, 4_491)
            .saturating_add(T::DbWeight::get().reads(69))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn attest_fail() -> Weight {
        // Fastest run: 609_165 ns.
        Weight::from_parts(623_181_000, 2_665)
            .saturating_add(T::DbWeight::get().reads(11))
            .saturating_add(T::DbWeight::get().writes(12))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    /// Storage: `System::Account` (r:1 w:1)
    fn attest_requeue() -> Weight {
        // Fastest run: 2_918_503 ns.
        Weight::from_parts(3_001_663_000, 9_297)
            .saturating_add(T::DbWeight::get().reads(107))
            .saturating_add(T::DbWeight::get().writes(11))
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
        // Fastest run: 3_218_702 ns.
        Weight::from_parts(3_296_022_000, 2_652)
            .saturating_add(Weight::from_parts(279_615_341, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(84_861_012, 431).saturating_mul(m.into()))
            .saturating_add(T::DbWeight::get().reads(16))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(T::DbWeight::get().writes(11))
            .saturating_add(T::DbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:4 w:0)
    /// Storage: `Cacheon::Incumbents` (r:3 w:0)
    /// Storage: `Cacheon::Targets` (r:56 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 250_417 ns.
        Weight::from_parts(279_218_210, 645)
            .saturating_add(Weight::from_parts(23_813_524, 80).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(8))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 663_670 ns.
        Weight::from_parts(731_538_000, 2_375)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 178_673 ns.
        Weight::from_parts(197_188_000, 887)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 175_528 ns.
        Weight::from_parts(186_594_000, 998)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    fn set_evidence_endpoint() -> Weight {
        Weight::from_parts(60_000_000, 600)
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_061 ns.
        Weight::from_parts(42_029_000, 0).saturating_add(T::DbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Balances::Holds` (r:32 w:32)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:32 w:32)
    /// Storage: `Cacheon::Bundles` (r:0 w:32)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:32)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    /// Storage: `System::Account` (r:32 w:32)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 46_442 ns.
        Weight::from_parts(400_657_768, 6_196)
            .saturating_add(Weight::from_parts(1_705_820_992, 677).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(58))
            .saturating_add(T::DbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(4))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:1 w:0)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 92_366 ns.
        Weight::from_parts(94_542_000, 324)
            .saturating_add(Weight::from_parts(38_008_119, 153).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 62_860 ns.
        Weight::from_parts(123_398_722, 18_972)
            .saturating_add(Weight::from_parts(184_116_053, 6).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(2))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::BundleRefs` (r:64 w:0)
    /// Storage: `Cacheon::ContentOwners` (r:64 w:64)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:64)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    /// Storage: `Cacheon::PruneHead` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:64 w:64)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:0)
    fn prune_proposals(n: u32) -> Weight {
        // Fastest run: 37_530 ns.
        Weight::from_parts(61_156_605, 562)
            .saturating_add(Weight::from_parts(96_275_921, 261).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((4_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((4_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::PruneHead` (r:1 w:0)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:64 w:64)
    fn clear_reveal_period(n: u32) -> Weight {
        // Fastest run: 58_729 ns.
        Weight::from_parts(64_612_032, 343)
            .saturating_add(Weight::from_parts(4_423_257, 58).saturating_mul(n.into()))
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
        // Fastest run: 309_019 ns.
        Weight::from_parts(320_257_000, 301)
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
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 901_382 ns.
        Weight::from_parts(1_038_177_046, 2_410)
            .saturating_add(Weight::from_parts(7_496, 0).saturating_mul(b.into()))
            .saturating_add(RocksDbWeight::get().reads(13))
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
        // Fastest run: 348_160 ns.
        Weight::from_parts(354_796_000, 790)
            .saturating_add(RocksDbWeight::get().reads(6))
            .saturating_add(RocksDbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 271_046 ns.
        Weight::from_parts(281_895_000, 568)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:126 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:64 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:127 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 1_260_752 ns.
        Weight::from_parts(1_430_015_612, 4_949)
            .saturating_add(Weight::from_parts(41_097_008, 293).saturating_mul(q.into()))
            .saturating_add(RocksDbWeight::get().reads(70))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 1_221_359 ns.
        Weight::from_parts(1_238_888_000, 4_491)
            .saturating_add(RocksDbWeight::get().reads(69))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn attest_fail() -> Weight {
        // Fastest run: 609_165 ns.
        Weight::from_parts(623_181_000, 2_665)
            .saturating_add(RocksDbWeight::get().reads(11))
            .saturating_add(RocksDbWeight::get().writes(12))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    /// Storage: `System::Account` (r:1 w:1)
    fn attest_requeue() -> Weight {
        // Fastest run: 2_918_503 ns.
        Weight::from_parts(3_001_663_000, 9_297)
            .saturating_add(RocksDbWeight::get().reads(107))
            .saturating_add(RocksDbWeight::get().writes(11))
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
        // Fastest run: 3_218_702 ns.
        Weight::from_parts(3_296_022_000, 2_652)
            .saturating_add(Weight::from_parts(279_615_341, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(84_861_012, 431).saturating_mul(m.into()))
            .saturating_add(RocksDbWeight::get().reads(16))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(RocksDbWeight::get().writes(11))
            .saturating_add(RocksDbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:4 w:0)
    /// Storage: `Cacheon::Incumbents` (r:3 w:0)
    /// Storage: `Cacheon::Targets` (r:56 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 250_417 ns.
        Weight::from_parts(279_218_210, 645)
            .saturating_add(Weight::from_parts(23_813_524, 80).saturating_mul(t.into()))
            .saturating_add(RocksDbWeight::get().reads(8))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 663_670 ns.
        Weight::from_parts(731_538_000, 2_375)
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 178_673 ns.
        Weight::from_parts(197_188_000, 887)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 175_528 ns.
        Weight::from_parts(186_594_000, 998)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    fn set_evidence_endpoint() -> Weight {
        Weight::from_parts(60_000_000, 600)
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_061 ns.
        Weight::from_parts(42_029_000, 0).saturating_add(RocksDbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Balances::Holds` (r:32 w:32)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:32 w:32)
    /// Storage: `Cacheon::Bundles` (r:0 w:32)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:32)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    /// Storage: `System::Account` (r:32 w:32)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 46_442 ns.
        Weight::from_parts(400_657_768, 6_196)
            .saturating_add(Weight::from_parts(1_705_820_992, 677).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(58))
            .saturating_add(RocksDbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(4))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:1 w:0)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 92_366 ns.
        Weight::from_parts(94_542_000, 324)
            .saturating_add(Weight::from_parts(38_008_119, 153).saturating_mul(c.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 62_860 ns.
        Weight::from_parts(123_398_722, 18_972)
            .saturating_add(Weight::from_parts(184_116_053, 6).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(2))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::BundleRefs` (r:64 w:0)
    /// Storage: `Cacheon::ContentOwners` (r:64 w:64)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:64)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    /// Storage: `Cacheon::PruneHead` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:64 w:64)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:0)
    fn prune_proposals(n: u32) -> Weight {
        // Fastest run: 37_530 ns.
        Weight::from_parts(61_156_605, 562)
            .saturating_add(Weight::from_parts(96_275_921, 261).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((4_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((4_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::PruneHead` (r:1 w:0)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:64 w:64)
    fn clear_reveal_period(n: u32) -> Weight {
        // Fastest run: 58_729 ns.
        Weight::from_parts(64_612_032, 343)
            .saturating_add(Weight::from_parts(4_423_257, 58).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
}
