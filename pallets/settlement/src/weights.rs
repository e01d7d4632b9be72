//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Machine: Intel(R) Xeon(R) Processor, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 148s in all. 1-minute load average 0.48 before, 0.96 after
//! (other builds on the machine inflate the timings).
//! Ref time: min-squares fit (inter-quartile range) of the timed runs. Reads and writes:
//! counted by the benchmarking state, System's per-block keys excluded. Proof size: recorded.
//!
//! Command:
//!   cacheon-node benchmark-pallet --steps 20 --repeat 10 --output pallets/settlement/src/weights.rs
//!
//! Not yet measured: `expire_overdue`, `overturn_fail`, `bond`, `unbond` and
//! `set_required_bond` (their benchmarks exist) are bounded by measured neighbours until the
//! next run (the bonds' by `commit`, `cancel_commit` and `set_emissions`) — `expire_overdue`'s item by `expire_leases`'
//! (which also walks every validator key) plus a read of every arena's queue front,
//! `overturn_fail` by `withdraw` (a hold released where it makes one transfer) plus its reads
//! and writes.

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
        // Fastest run: 309_161 ns.
        Weight::from_parts(323_804_000, 301)
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
        // Fastest run: 899_349 ns.
        Weight::from_parts(1_048_589_027, 2_410)
            .saturating_add(Weight::from_parts(8_074, 0).saturating_mul(b.into()))
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
        // Fastest run: 354_904 ns.
        Weight::from_parts(362_311_000, 790)
            .saturating_add(T::DbWeight::get().reads(6))
            .saturating_add(T::DbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 270_906 ns.
        Weight::from_parts(279_415_000, 568)
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
        // Fastest run: 1_253_709 ns.
        Weight::from_parts(1_421_338_645, 4_949)
            .saturating_add(Weight::from_parts(40_600_398, 293).saturating_mul(q.into()))
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
        // Fastest run: 1_207_315 ns.
        Weight::from_parts(1_233_527_000, 4_491)
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
        // Fastest run: 609_887 ns.
        Weight::from_parts(619_876_000, 2_665)
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
        // Fastest run: 2_931_350 ns.
        Weight::from_parts(2_981_480_000, 9_297)
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
        // Fastest run: 3_208_753 ns.
        Weight::from_parts(3_279_686_000, 2_652)
            .saturating_add(Weight::from_parts(270_436_268, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(111_121_027, 431).saturating_mul(m.into()))
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
        // Fastest run: 246_310 ns.
        Weight::from_parts(259_242_499, 645)
            .saturating_add(Weight::from_parts(22_544_171, 80).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(8))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 645_611 ns.
        Weight::from_parts(654_600_000, 2_375)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 172_763 ns.
        Weight::from_parts(176_210_000, 887)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 184_223 ns.
        Weight::from_parts(198_982_000, 1_031)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 97_887 ns.
        Weight::from_parts(155_519_000, 404)
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 46_699 ns.
        Weight::from_parts(55_893_000, 0).saturating_add(T::DbWeight::get().writes(1))
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
        // Fastest run: 45_248 ns.
        Weight::from_parts(222_536_670, 6_196)
            .saturating_add(Weight::from_parts(1_681_140_773, 677).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(58))
            .saturating_add(T::DbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(4))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Not measured (see the header): `expire_leases`' per-item cost, plus `Cacheon::Arenas`
    /// (r:9), `Cacheon::Queue` (r:8) and `Cacheon::Proposals` (r:8) for the queue fronts.
    fn expire_overdue(n: u32) -> Weight {
        Weight::from_parts(222_536_670, 6_196)
            .saturating_add(Weight::from_parts(1_681_140_773, 677).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(25))
            .saturating_add(T::DbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Not measured (see the header): `withdraw`'s cost.
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:1 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `System::Account` (r:2 w:2)
    fn overturn_fail() -> Weight {
        Weight::from_parts(362_311_000, 790)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(5))
    }
    /// Not measured (see the header): `commit`'s cost (a hold and a counter).
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        Weight::from_parts(323_804_000, 301)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Not measured (see the header): `cancel_commit`'s cost (a release and a counter).
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        Weight::from_parts(279_415_000, 568)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Not measured (see the header): `set_emissions`' cost.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        Weight::from_parts(55_893_000, 0)
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
        // Fastest run: 92_848 ns.
        Weight::from_parts(96_689_000, 324)
            .saturating_add(Weight::from_parts(37_664_386, 153).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 64_693 ns.
        Weight::from_parts(254_296_749, 18_972)
            .saturating_add(Weight::from_parts(182_385_718, 6).saturating_mul(n.into()))
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
        // Fastest run: 37_875 ns.
        Weight::from_parts(55_120_942, 562)
            .saturating_add(Weight::from_parts(95_585_989, 261).saturating_mul(n.into()))
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
        // Fastest run: 59_336 ns.
        Weight::from_parts(65_954_341, 343)
            .saturating_add(Weight::from_parts(4_539_328, 58).saturating_mul(n.into()))
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
        // Fastest run: 309_161 ns.
        Weight::from_parts(323_804_000, 301)
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
        // Fastest run: 899_349 ns.
        Weight::from_parts(1_048_589_027, 2_410)
            .saturating_add(Weight::from_parts(8_074, 0).saturating_mul(b.into()))
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
        // Fastest run: 354_904 ns.
        Weight::from_parts(362_311_000, 790)
            .saturating_add(RocksDbWeight::get().reads(6))
            .saturating_add(RocksDbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 270_906 ns.
        Weight::from_parts(279_415_000, 568)
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
        // Fastest run: 1_253_709 ns.
        Weight::from_parts(1_421_338_645, 4_949)
            .saturating_add(Weight::from_parts(40_600_398, 293).saturating_mul(q.into()))
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
        // Fastest run: 1_207_315 ns.
        Weight::from_parts(1_233_527_000, 4_491)
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
        // Fastest run: 609_887 ns.
        Weight::from_parts(619_876_000, 2_665)
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
        // Fastest run: 2_931_350 ns.
        Weight::from_parts(2_981_480_000, 9_297)
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
        // Fastest run: 3_208_753 ns.
        Weight::from_parts(3_279_686_000, 2_652)
            .saturating_add(Weight::from_parts(270_436_268, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(111_121_027, 431).saturating_mul(m.into()))
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
        // Fastest run: 246_310 ns.
        Weight::from_parts(259_242_499, 645)
            .saturating_add(Weight::from_parts(22_544_171, 80).saturating_mul(t.into()))
            .saturating_add(RocksDbWeight::get().reads(8))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 645_611 ns.
        Weight::from_parts(654_600_000, 2_375)
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 172_763 ns.
        Weight::from_parts(176_210_000, 887)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 184_223 ns.
        Weight::from_parts(198_982_000, 1_031)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 97_887 ns.
        Weight::from_parts(155_519_000, 404)
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 46_699 ns.
        Weight::from_parts(55_893_000, 0).saturating_add(RocksDbWeight::get().writes(1))
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
        // Fastest run: 45_248 ns.
        Weight::from_parts(222_536_670, 6_196)
            .saturating_add(Weight::from_parts(1_681_140_773, 677).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(58))
            .saturating_add(RocksDbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(4))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Not measured (see the header): `expire_leases`' per-item cost, plus `Cacheon::Arenas`
    /// (r:9), `Cacheon::Queue` (r:8) and `Cacheon::Proposals` (r:8) for the queue fronts.
    fn expire_overdue(n: u32) -> Weight {
        Weight::from_parts(222_536_670, 6_196)
            .saturating_add(Weight::from_parts(1_681_140_773, 677).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(25))
            .saturating_add(RocksDbWeight::get().reads((6_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(n.into())))
    }
    /// Not measured (see the header): `withdraw`'s cost.
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:1 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `System::Account` (r:2 w:2)
    fn overturn_fail() -> Weight {
        Weight::from_parts(362_311_000, 790)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(5))
    }
    /// Not measured (see the header): `commit`'s cost (a hold and a counter).
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        Weight::from_parts(323_804_000, 301)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Not measured (see the header): `cancel_commit`'s cost (a release and a counter).
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        Weight::from_parts(279_415_000, 568)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Not measured (see the header): `set_emissions`' cost.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        Weight::from_parts(55_893_000, 0)
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
        // Fastest run: 92_848 ns.
        Weight::from_parts(96_689_000, 324)
            .saturating_add(Weight::from_parts(37_664_386, 153).saturating_mul(c.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 64_693 ns.
        Weight::from_parts(254_296_749, 18_972)
            .saturating_add(Weight::from_parts(182_385_718, 6).saturating_mul(n.into()))
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
        // Fastest run: 37_875 ns.
        Weight::from_parts(55_120_942, 562)
            .saturating_add(Weight::from_parts(95_585_989, 261).saturating_mul(n.into()))
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
        // Fastest run: 59_336 ns.
        Weight::from_parts(65_954_341, 343)
            .saturating_add(Weight::from_parts(4_539_328, 58).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
    }
}
