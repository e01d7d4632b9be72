//! Weights for `pallet-cacheon`.
//!
//! The storage read/write counts follow each call's worst path (benchmarks in
//! `benchmarking.rs` set that path up). The ref-time constants are provisional: they were
//! set from the benchmarks' shapes, not yet measured on reference hardware. Regenerate this
//! file with the node's `benchmark pallet` command once the node exists (see docs/weights.md).

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

/// Weights for a runtime using the node's database.
pub struct SubstrateWeight<T>(PhantomData<T>);
impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
    fn commit() -> Weight {
        Weight::from_parts(40_000_000, 3_600)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    fn reveal(b: u32) -> Weight {
        // SHA-256, blake2 and the canonical decode are linear in the bundle.
        Weight::from_parts(120_000_000, 8_000)
            .saturating_add(Weight::from_parts(12_000, 1).saturating_mul(b.into()))
            .saturating_add(T::DbWeight::get().reads(14))
            .saturating_add(T::DbWeight::get().writes(12))
    }
    fn withdraw() -> Weight {
        Weight::from_parts(45_000_000, 6_000)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    fn cancel_commit() -> Weight {
        Weight::from_parts(35_000_000, 3_600)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    fn claim(q: u32) -> Weight {
        Weight::from_parts(40_000_000, 6_000)
            .saturating_add(Weight::from_parts(6_000_000, 600).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().reads(q.into()))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    fn attest_crown(q: u32, m: u32) -> Weight {
        Weight::from_parts(90_000_000, 10_000)
            .saturating_add(Weight::from_parts(6_000_000, 600).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(20_000_000, 1_200).saturating_mul(m.into()))
            .saturating_add(T::DbWeight::get().reads(12))
            .saturating_add(T::DbWeight::get().reads((q as u64).saturating_add(4 * m as u64)))
            .saturating_add(T::DbWeight::get().writes(12))
            .saturating_add(T::DbWeight::get().writes((q as u64).saturating_add(5 * m as u64)))
    }
    fn set_target(t: u32) -> Weight {
        Weight::from_parts(30_000_000, 3_000)
            .saturating_add(Weight::from_parts(3_000_000, 600).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads(t.into()))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    fn set_arena() -> Weight {
        Weight::from_parts(40_000_000, 4_000)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    fn add_validator() -> Weight {
        Weight::from_parts(25_000_000, 3_000)
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    fn remove_validator() -> Weight {
        Weight::from_parts(25_000_000, 3_000)
            .saturating_add(T::DbWeight::get().reads(2))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    fn set_emissions() -> Weight {
        Weight::from_parts(15_000_000, 0).saturating_add(T::DbWeight::get().writes(1))
    }
    fn expire_leases(n: u32) -> Weight {
        Weight::from_parts(5_000_000, 1_000)
            .saturating_add(Weight::from_parts(35_000_000, 6_000).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().reads(2 * n as u64))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes(3 * n as u64))
    }
    fn close_epoch(c: u32) -> Weight {
        Weight::from_parts(20_000_000, 2_000)
            .saturating_add(Weight::from_parts(45_000_000, 2_600).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads(2 * c as u64))
            .saturating_add(T::DbWeight::get().writes(3))
            .saturating_add(T::DbWeight::get().writes(2 * c as u64))
    }
}

/// The same weights against RocksDB-like defaults, for tests and mocks.
impl WeightInfo for () {
    fn commit() -> Weight {
        Weight::from_parts(40_000_000, 3_600)
    }
    fn reveal(b: u32) -> Weight {
        Weight::from_parts(120_000_000, 8_000)
            .saturating_add(Weight::from_parts(12_000, 1).saturating_mul(b.into()))
    }
    fn withdraw() -> Weight {
        Weight::from_parts(45_000_000, 6_000)
    }
    fn cancel_commit() -> Weight {
        Weight::from_parts(35_000_000, 3_600)
    }
    fn claim(q: u32) -> Weight {
        Weight::from_parts(40_000_000, 6_000)
            .saturating_add(Weight::from_parts(6_000_000, 600).saturating_mul(q.into()))
    }
    fn attest_crown(q: u32, m: u32) -> Weight {
        Weight::from_parts(90_000_000, 10_000)
            .saturating_add(Weight::from_parts(6_000_000, 600).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(20_000_000, 1_200).saturating_mul(m.into()))
    }
    fn set_target(t: u32) -> Weight {
        Weight::from_parts(30_000_000, 3_000)
            .saturating_add(Weight::from_parts(3_000_000, 600).saturating_mul(t.into()))
    }
    fn set_arena() -> Weight {
        Weight::from_parts(40_000_000, 4_000)
    }
    fn add_validator() -> Weight {
        Weight::from_parts(25_000_000, 3_000)
    }
    fn remove_validator() -> Weight {
        Weight::from_parts(25_000_000, 3_000)
    }
    fn set_emissions() -> Weight {
        Weight::from_parts(15_000_000, 0)
    }
    fn expire_leases(n: u32) -> Weight {
        Weight::from_parts(5_000_000, 1_000)
            .saturating_add(Weight::from_parts(35_000_000, 6_000).saturating_mul(n.into()))
    }
    fn close_epoch(c: u32) -> Weight {
        Weight::from_parts(20_000_000, 2_000)
            .saturating_add(Weight::from_parts(45_000_000, 2_600).saturating_mul(c.into()))
    }
}
