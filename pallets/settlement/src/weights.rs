//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Machine: AMD EPYC, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 291s in all. 1-minute load average 26.01 before, 1.82 after
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
    /// `q`: queue length scanned for stale passes; `m`: targets displaced by the crown.
    fn attest_crown(q: u32, m: u32) -> Weight;
    /// `t`: targets visited by the displacement cycle check.
    fn set_target(t: u32) -> Weight;
    fn set_arena() -> Weight;
    fn add_validator() -> Weight;
    fn remove_validator() -> Weight;
    fn set_emissions() -> Weight;
    /// `n`: leases expiring in the block.
    fn expire_leases(n: u32) -> Weight;
    /// `c`: active reward claims.
    fn close_epoch(c: u32) -> Weight;
}

/// Weights for a runtime, with its own database weights (`T::DbWeight`).
pub struct SubstrateWeight<T>(PhantomData<T>);
impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 330_852 ns.
        Weight::from_parts(336_871_000, 268)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `b` is `[256, 524288]`.
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Bundles` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::Emissions` (r:1 w:0)
    /// Storage: `Cacheon::FirstRevealer` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInEpoch` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 973_868 ns.
        Weight::from_parts(1_042_902_266, 3_396)
            .saturating_add(Weight::from_parts(15_256, 0).saturating_mul(b.into()))
            .saturating_add(T::DbWeight::get().reads(14))
            .saturating_add(T::DbWeight::get().writes(11))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw() -> Weight {
        // Fastest run: 1_247_346 ns.
        Weight::from_parts(1_289_017_000, 524_957)
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().writes(5))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 290_032 ns.
        Weight::from_parts(480_164_000, 519)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 255]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:256 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 202_972 ns.
        Weight::from_parts(15_690_189, 1_113)
            .saturating_add(Weight::from_parts(23_074_418, 60).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// The range of component `q` is `[0, 255]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: `Balances::Holds` (r:256 w:256)
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:263 w:263)
    /// Storage: `Cacheon::Claims` (r:9 w:9)
    /// Storage: `Cacheon::CounterForClaims` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:9 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:264 w:264)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    /// Storage: `System::Account` (r:256 w:256)
    fn attest_crown(q: u32, m: u32) -> Weight {
        // Fastest run: 2_684_093 ns.
        Weight::from_parts(9_131_831_556, 1_827)
            .saturating_add(Weight::from_parts(326_798_514, 706).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(0, 598).saturating_mul(m.into()))
            .saturating_add(T::DbWeight::get().reads(11))
            .saturating_add(T::DbWeight::get().reads((4_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().reads((4_u64).saturating_mul(m.into())))
            .saturating_add(T::DbWeight::get().writes(9))
            .saturating_add(T::DbWeight::get().writes((4_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes((4_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:3 w:0)
    /// Storage: `Cacheon::Incumbents` (r:2 w:0)
    /// Storage: `Cacheon::Targets` (r:58 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 228_530 ns.
        Weight::from_parts(199_529_938, 478)
            .saturating_add(Weight::from_parts(25_625_741, 81).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(6))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 672_571 ns.
        Weight::from_parts(700_662_000, 2_237)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 155_912 ns.
        Weight::from_parts(186_658_000, 632)
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 160_990 ns.
        Weight::from_parts(169_993_000, 652)
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 44_145 ns.
        Weight::from_parts(45_026_000, 0).saturating_add(T::DbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 28_302 ns.
        Weight::from_parts(18_833_820, 607)
            .saturating_add(Weight::from_parts(63_233_259, 190).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:513 w:513)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 414_857 ns.
        Weight::from_parts(1_162_257_030, 782)
            .saturating_add(Weight::from_parts(270_567_436, 89).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(c.into())))
            .saturating_add(T::DbWeight::get().writes(3))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(c.into())))
    }
}

/// The same weights with RocksDB's database weights, for tests and mocks.
impl WeightInfo for () {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 330_852 ns.
        Weight::from_parts(336_871_000, 268)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `b` is `[256, 524288]`.
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Bundles` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::Emissions` (r:1 w:0)
    /// Storage: `Cacheon::FirstRevealer` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInEpoch` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 973_868 ns.
        Weight::from_parts(1_042_902_266, 3_396)
            .saturating_add(Weight::from_parts(15_256, 0).saturating_mul(b.into()))
            .saturating_add(RocksDbWeight::get().reads(14))
            .saturating_add(RocksDbWeight::get().writes(11))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw() -> Weight {
        // Fastest run: 1_247_346 ns.
        Weight::from_parts(1_289_017_000, 524_957)
            .saturating_add(RocksDbWeight::get().reads(5))
            .saturating_add(RocksDbWeight::get().writes(5))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 290_032 ns.
        Weight::from_parts(480_164_000, 519)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 255]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:256 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim(q: u32) -> Weight {
        // Fastest run: 202_972 ns.
        Weight::from_parts(15_690_189, 1_113)
            .saturating_add(Weight::from_parts(23_074_418, 60).saturating_mul(q.into()))
            .saturating_add(RocksDbWeight::get().reads(5))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// The range of component `q` is `[0, 255]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: `Balances::Holds` (r:256 w:256)
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:263 w:263)
    /// Storage: `Cacheon::Claims` (r:9 w:9)
    /// Storage: `Cacheon::CounterForClaims` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:9 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:264 w:264)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    /// Storage: `System::Account` (r:256 w:256)
    fn attest_crown(q: u32, m: u32) -> Weight {
        // Fastest run: 2_684_093 ns.
        Weight::from_parts(9_131_831_556, 1_827)
            .saturating_add(Weight::from_parts(326_798_514, 706).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(0, 598).saturating_mul(m.into()))
            .saturating_add(RocksDbWeight::get().reads(11))
            .saturating_add(RocksDbWeight::get().reads((4_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().reads((4_u64).saturating_mul(m.into())))
            .saturating_add(RocksDbWeight::get().writes(9))
            .saturating_add(RocksDbWeight::get().writes((4_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes((4_u64).saturating_mul(m.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:3 w:0)
    /// Storage: `Cacheon::Incumbents` (r:2 w:0)
    /// Storage: `Cacheon::Targets` (r:58 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 228_530 ns.
        Weight::from_parts(199_529_938, 478)
            .saturating_add(Weight::from_parts(25_625_741, 81).saturating_mul(t.into()))
            .saturating_add(RocksDbWeight::get().reads(6))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 672_571 ns.
        Weight::from_parts(700_662_000, 2_237)
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 155_912 ns.
        Weight::from_parts(186_658_000, 632)
            .saturating_add(RocksDbWeight::get().reads(2))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 160_990 ns.
        Weight::from_parts(169_993_000, 652)
            .saturating_add(RocksDbWeight::get().reads(2))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 44_145 ns.
        Weight::from_parts(45_026_000, 0).saturating_add(RocksDbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:64 w:64)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 28_302 ns.
        Weight::from_parts(18_833_820, 607)
            .saturating_add(Weight::from_parts(63_233_259, 190).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(2))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:513 w:513)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 414_857 ns.
        Weight::from_parts(1_162_257_030, 782)
            .saturating_add(Weight::from_parts(270_567_436, 89).saturating_mul(c.into()))
            .saturating_add(RocksDbWeight::get().reads(2))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(c.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(c.into())))
    }
}
