//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Machine: Intel(R) Xeon(R) Processor, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 336s in all. 1-minute load average 0.25 before, 1.00 after
//! (other builds on the machine inflate the timings).
//! Ref time: min-squares fit (inter-quartile range) of the timed runs. Reads and writes:
//! counted by the benchmarking state, System's per-block keys excluded. Proof size: recorded.
//!
//! Command:
//!   cacheon-node benchmark-pallet --steps 20 --repeat 10 --output pallets/settlement/src/weights.rs

#![allow(unused_parens, unused_imports)]

use core::marker::PhantomData;
use polkadot_sdk::polkadot_sdk_frame::deps::frame_support::weights::RuntimeDbWeight;
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
    fn challenge() -> Weight;
    fn claim_challenge() -> Weight;
    fn answer_challenge() -> Weight;
    fn answer_challenge_reject() -> Weight;
    /// `q`: queue length scanned for PASSes measured with the revoked crown in the stack.
    fn answer_challenge_revoke(q: u32) -> Weight;
    /// `n`: challenges expiring in the block.
    fn expire_challenges(n: u32) -> Weight;
    fn withdraw_unbonded() -> Weight;
    /// A sealed primary PASS recorded (or a stale attestation sent back to the queue).
    fn attest_sealed() -> Weight;
    /// `q`: queue length scanned for stale passes; `m`: targets displaced by the crown.
    fn reveal_pass(q: u32, m: u32) -> Weight;
    /// `n`: sealed PASSes whose reveal is missed in the block.
    fn reveals_missed(n: u32) -> Weight;
}

/// The measured weights, with the database weights `D` (a runtime's `T::DbWeight`, or
/// RocksDB's for tests and mocks).
pub struct Measured<D>(PhantomData<D>);
impl<D: Get<RuntimeDbWeight>> WeightInfo for Measured<D> {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 260_202 ns.
        Weight::from_parts(430_141_000, 334)
            .saturating_add(D::get().reads(4))
            .saturating_add(D::get().writes(4))
    }
    /// The range of component `b` is `[256, 524288]`.
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::ContentOwners` (r:1 w:1)
    /// Storage: `Cacheon::EvaluationFees` (r:1 w:0)
    /// Storage: `Cacheon::FailedContents` (r:1 w:0)
    /// Storage: `Cacheon::FeeEscrows` (r:0 w:1)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextProposalId` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:0 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:1 w:0)
    /// Storage: `System::Account` (r:2 w:2)
    fn reveal(b: u32) -> Weight {
        // Fastest run: 970_393 ns.
        Weight::from_parts(1_265_883_472, 2_760)
            .saturating_add(Weight::from_parts(6_942, 0).saturating_mul(b.into()))
            .saturating_add(D::get().reads(15))
            .saturating_add(D::get().writes(13))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FeeEscrows` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw() -> Weight {
        // Fastest run: 480_109 ns.
        Weight::from_parts(653_229_000, 880)
            .saturating_add(D::get().reads(7))
            .saturating_add(D::get().writes(9))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 235_706 ns.
        Weight::from_parts(282_323_000, 601)
            .saturating_add(D::get().reads(4))
            .saturating_add(D::get().writes(4))
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
        // Fastest run: 1_145_286 ns.
        Weight::from_parts(1_736_776_238, 5_133)
            .saturating_add(Weight::from_parts(42_448_844, 295).saturating_mul(q.into()))
            .saturating_add(D::get().reads(72))
            .saturating_add(D::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(D::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:34 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 2_418_577 ns.
        Weight::from_parts(2_626_682_000, 8_133)
            .saturating_add(D::get().reads(103))
            .saturating_add(D::get().writes(4))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:0 w:1)
    /// Storage: `Cacheon::FeeEscrows` (r:1 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:0 w:1)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:4 w:4)
    fn attest_fail() -> Weight {
        // Fastest run: 930_024 ns.
        Weight::from_parts(1_009_114_000, 3_232)
            .saturating_add(D::get().reads(15))
            .saturating_add(D::get().writes(17))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:34 w:0)
    fn attest_requeue() -> Weight {
        // Fastest run: 2_413_950 ns.
        Weight::from_parts(2_656_800_000, 8_208)
            .saturating_add(D::get().reads(103))
            .saturating_add(D::get().writes(4))
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
    /// Storage: `Cacheon::FeeEscrows` (r:136 w:136)
    /// Storage: `Cacheon::Incumbents` (r:10 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:128 w:128)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:136 w:136)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:135)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:9 w:0)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:130 w:130)
    fn attest_crown(q: u32, m: u32) -> Weight {
        // Fastest run: 4_397_865 ns.
        Weight::from_parts(7_928_545_996, 3_177)
            .saturating_add(Weight::from_parts(353_905_493, 582).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(814_919_541, 490).saturating_mul(m.into()))
            .saturating_add(D::get().reads(19))
            .saturating_add(D::get().reads((6_u64).saturating_mul(q.into())))
            .saturating_add(D::get().reads((6_u64).saturating_mul(m.into())))
            .saturating_add(D::get().writes(14))
            .saturating_add(D::get().writes((8_u64).saturating_mul(q.into())))
            .saturating_add(D::get().writes((7_u64).saturating_mul(m.into())))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn attest_sealed() -> Weight {
        // Fastest run: 2_243_893 ns.
        Weight::from_parts(2_414_689_000, 8_066)
            .saturating_add(D::get().reads(102))
            .saturating_add(D::get().writes(4))
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
    /// Storage: `Cacheon::FeeEscrows` (r:136 w:136)
    /// Storage: `Cacheon::Incumbents` (r:10 w:9)
    /// Storage: `Cacheon::LeaseDeadlines` (r:128 w:128)
    /// Storage: `Cacheon::Proposals` (r:136 w:136)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:135)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:9 w:0)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:130 w:130)
    fn reveal_pass(q: u32, m: u32) -> Weight {
        // Fastest run: 4_331_785 ns.
        Weight::from_parts(4_493_479_000, 3_123)
            .saturating_add(Weight::from_parts(403_615_812, 582).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(99_663_494, 490).saturating_mul(m.into()))
            .saturating_add(D::get().reads(18))
            .saturating_add(D::get().reads((6_u64).saturating_mul(q.into())))
            .saturating_add(D::get().reads((6_u64).saturating_mul(m.into())))
            .saturating_add(D::get().writes(13))
            .saturating_add(D::get().writes((8_u64).saturating_mul(q.into())))
            .saturating_add(D::get().writes((7_u64).saturating_mul(m.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn reveals_missed(n: u32) -> Weight {
        // Fastest run: 36_672 ns.
        Weight::from_parts(2_480_147_846, 5_350)
            .saturating_add(Weight::from_parts(1_644_053_963, 593).saturating_mul(n.into()))
            .saturating_add(D::get().reads(56))
            .saturating_add(D::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(2))
            .saturating_add(D::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `t` is `[2, 64]`.
    /// Storage: `Cacheon::Arenas` (r:5 w:0)
    /// Storage: `Cacheon::Incumbents` (r:4 w:0)
    /// Storage: `Cacheon::Targets` (r:51 w:1)
    fn set_target(t: u32) -> Weight {
        // Fastest run: 243_343 ns.
        Weight::from_parts(314_111_898, 989)
            .saturating_add(Weight::from_parts(19_277_075, 75).saturating_mul(t.into()))
            .saturating_add(D::get().reads(11))
            .saturating_add(D::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(D::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 562_999 ns.
        Weight::from_parts(659_982_000, 2_612)
            .saturating_add(D::get().reads(34))
            .saturating_add(D::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 165_468 ns.
        Weight::from_parts(182_066_000, 990)
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 182_549 ns.
        Weight::from_parts(196_973_000, 1_134)
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 88_420 ns.
        Weight::from_parts(93_700_000, 437)
            .saturating_add(D::get().reads(1))
            .saturating_add(D::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 34_996 ns.
        Weight::from_parts(37_546_000, 0).saturating_add(D::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 44_871 ns.
        Weight::from_parts(4_817_982_572, 5_354)
            .saturating_add(Weight::from_parts(1_578_942_351, 566).saturating_mul(n.into()))
            .saturating_add(D::get().reads(57))
            .saturating_add(D::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(2))
            .saturating_add(D::get().writes((1_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Balances::Holds` (r:32 w:32)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::BundleRefs` (r:32 w:32)
    /// Storage: `Cacheon::Bundles` (r:0 w:32)
    /// Storage: `Cacheon::FeeEscrows` (r:32 w:32)
    /// Storage: `Cacheon::LeaseDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:32)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:1)
    /// Storage: `System::Account` (r:32 w:32)
    fn expire_overdue(n: u32) -> Weight {
        // Fastest run: 1_327_466 ns.
        Weight::from_parts(1_523_376_570, 2_082)
            .saturating_add(Weight::from_parts(465_053_629, 632).saturating_mul(n.into()))
            .saturating_add(D::get().reads(157))
            .saturating_add(D::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(3))
            .saturating_add(D::get().writes((7_u64).saturating_mul(n.into())))
    }
    /// Storage: `Cacheon::FailVerdicts` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::SlashedDeposits` (r:1 w:1)
    /// Storage: `System::Account` (r:2 w:2)
    fn overturn_fail() -> Weight {
        // Fastest run: 322_541 ns.
        Weight::from_parts(360_310_000, 942)
            .saturating_add(D::get().reads(5))
            .saturating_add(D::get().writes(6))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        // Fastest run: 288_507 ns.
        Weight::from_parts(305_283_000, 695)
            .saturating_add(D::get().reads(4))
            .saturating_add(D::get().writes(3))
    }
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    fn unbond() -> Weight {
        // Fastest run: 128_651 ns.
        Weight::from_parts(142_849_000, 590)
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().writes(2))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:0)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw_unbonded() -> Weight {
        // Fastest run: 394_986 ns.
        Weight::from_parts(439_173_000, 2_196)
            .saturating_add(D::get().reads(12))
            .saturating_add(D::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        // Fastest run: 78_762 ns.
        Weight::from_parts(89_799_000, 420)
            .saturating_add(D::get().reads(1))
            .saturating_add(D::get().writes(1))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:64 w:1)
    /// Storage: `Cacheon::Challenges` (r:0 w:1)
    /// Storage: `Cacheon::CrownChallenges` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:1 w:0)
    /// Storage: `Cacheon::NextChallengeId` (r:1 w:1)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:0)
    /// Storage: `System::Account` (r:1 w:1)
    fn challenge() -> Weight {
        // Fastest run: 1_244_546 ns.
        Weight::from_parts(1_390_105_000, 4_736)
            .saturating_add(D::get().reads(71))
            .saturating_add(D::get().writes(7))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:2 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim_challenge() -> Weight {
        // Fastest run: 249_014 ns.
        Weight::from_parts(294_699_000, 2_877)
            .saturating_add(D::get().reads(7))
            .saturating_add(D::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:8 w:0)
    fn answer_challenge() -> Weight {
        // Fastest run: 372_794 ns.
        Weight::from_parts(461_043_000, 2_495)
            .saturating_add(D::get().reads(10))
            .saturating_add(D::get().writes(1))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:1)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:4 w:3)
    fn answer_challenge_reject() -> Weight {
        // Fastest run: 1_211_703 ns.
        Weight::from_parts(1_395_520_000, 2_679)
            .saturating_add(D::get().reads(11))
            .saturating_add(D::get().writes(8))
    }
    /// The range of component `q` is `[0, 127]`.
    /// Storage: `Balances::Holds` (r:4 w:4)
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::BundleRefs` (r:1 w:1)
    /// Storage: `Cacheon::Bundles` (r:0 w:1)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::Claims` (r:1 w:1)
    /// Storage: `Cacheon::CounterForClaims` (r:1 w:1)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:1)
    /// Storage: `Cacheon::FailedContents` (r:0 w:1)
    /// Storage: `Cacheon::FeeEscrows` (r:1 w:1)
    /// Storage: `Cacheon::Incumbents` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:126 w:126)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::OperatorBonds` (r:2 w:2)
    /// Storage: `Cacheon::Proposals` (r:127 w:127)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:2 w:2)
    /// Storage: `Cacheon::Validators` (r:2 w:0)
    /// Storage: `System::Account` (r:5 w:5)
    fn answer_challenge_revoke(q: u32) -> Weight {
        // Fastest run: 1_636_877 ns.
        Weight::from_parts(1_943_231_919, 5_005)
            .saturating_add(Weight::from_parts(51_653_523, 341).saturating_mul(q.into()))
            .saturating_add(D::get().reads(26))
            .saturating_add(D::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(D::get().writes(28))
            .saturating_add(D::get().writes((2_u64).saturating_mul(q.into())))
    }
    /// The range of component `n` is `[0, 8]`.
    /// Storage: `Balances::Holds` (r:8 w:8)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:8)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:8)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `System::Account` (r:8 w:8)
    fn expire_challenges(n: u32) -> Weight {
        // Fastest run: 28_976 ns.
        Weight::from_parts(60_393_623, 372)
            .saturating_add(Weight::from_parts(213_763_708, 318).saturating_mul(n.into()))
            .saturating_add(D::get().reads(2))
            .saturating_add(D::get().reads((3_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(2))
            .saturating_add(D::get().writes((4_u64).saturating_mul(n.into())))
    }
    /// The range of component `c` is `[0, 512]`.
    /// Storage: `Cacheon::Claims` (r:513 w:0)
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:0 w:1)
    /// Storage: `Cacheon::WeightsEpoch` (r:0 w:1)
    /// Storage: `System::Account` (r:1 w:0)
    fn close_epoch(c: u32) -> Weight {
        // Fastest run: 91_363 ns.
        Weight::from_parts(97_146_000, 383)
            .saturating_add(Weight::from_parts(35_321_066, 153).saturating_mul(c.into()))
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(D::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 52_632 ns.
        Weight::from_parts(225_339_286, 19_005)
            .saturating_add(Weight::from_parts(166_237_876, 6).saturating_mul(n.into()))
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(2))
            .saturating_add(D::get().writes((1_u64).saturating_mul(n.into())))
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
        // Fastest run: 37_202 ns.
        Weight::from_parts(30_758_125, 599)
            .saturating_add(Weight::from_parts(108_348_481, 261).saturating_mul(n.into()))
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().reads((5_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(1))
            .saturating_add(D::get().writes((5_u64).saturating_mul(n.into())))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::PruneHead` (r:1 w:0)
    /// Storage: `Cacheon::PruneTail` (r:1 w:0)
    /// Storage: `Cacheon::RevealsClearedBelow` (r:1 w:1)
    /// Storage: `Cacheon::RevealsInPeriod` (r:64 w:64)
    fn clear_reveal_period(n: u32) -> Weight {
        // Fastest run: 50_315 ns.
        Weight::from_parts(71_337_900, 376)
            .saturating_add(Weight::from_parts(4_068_834, 58).saturating_mul(n.into()))
            .saturating_add(D::get().reads(3))
            .saturating_add(D::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(D::get().writes(1))
            .saturating_add(D::get().writes((1_u64).saturating_mul(n.into())))
    }
}

/// Weights for a runtime, with its own database weights (`T::DbWeight`).
pub type SubstrateWeight<T> = Measured<<T as frame_system::Config>::DbWeight>;

/// The same weights with RocksDB's database weights, for tests and mocks.
#[rustfmt::skip]
impl WeightInfo for () {
    fn commit() -> Weight { Measured::<RocksDbWeight>::commit() }
    fn reveal(b: u32) -> Weight { Measured::<RocksDbWeight>::reveal(b) }
    fn withdraw() -> Weight { Measured::<RocksDbWeight>::withdraw() }
    fn cancel_commit() -> Weight { Measured::<RocksDbWeight>::cancel_commit() }
    fn claim(q: u32) -> Weight { Measured::<RocksDbWeight>::claim(q) }
    fn attest_pass() -> Weight { Measured::<RocksDbWeight>::attest_pass() }
    fn attest_fail() -> Weight { Measured::<RocksDbWeight>::attest_fail() }
    fn attest_requeue() -> Weight { Measured::<RocksDbWeight>::attest_requeue() }
    fn attest_crown(q: u32, m: u32) -> Weight { Measured::<RocksDbWeight>::attest_crown(q, m) }
    fn attest_sealed() -> Weight { Measured::<RocksDbWeight>::attest_sealed() }
    fn reveal_pass(q: u32, m: u32) -> Weight { Measured::<RocksDbWeight>::reveal_pass(q, m) }
    fn reveals_missed(n: u32) -> Weight { Measured::<RocksDbWeight>::reveals_missed(n) }
    fn set_target(t: u32) -> Weight { Measured::<RocksDbWeight>::set_target(t) }
    fn set_arena() -> Weight { Measured::<RocksDbWeight>::set_arena() }
    fn add_validator() -> Weight { Measured::<RocksDbWeight>::add_validator() }
    fn remove_validator() -> Weight { Measured::<RocksDbWeight>::remove_validator() }
    fn set_evidence_endpoint() -> Weight { Measured::<RocksDbWeight>::set_evidence_endpoint() }
    fn set_emissions() -> Weight { Measured::<RocksDbWeight>::set_emissions() }
    fn expire_leases(n: u32) -> Weight { Measured::<RocksDbWeight>::expire_leases(n) }
    fn expire_overdue(n: u32) -> Weight { Measured::<RocksDbWeight>::expire_overdue(n) }
    fn overturn_fail() -> Weight { Measured::<RocksDbWeight>::overturn_fail() }
    fn bond() -> Weight { Measured::<RocksDbWeight>::bond() }
    fn unbond() -> Weight { Measured::<RocksDbWeight>::unbond() }
    fn withdraw_unbonded() -> Weight { Measured::<RocksDbWeight>::withdraw_unbonded() }
    fn set_required_bond() -> Weight { Measured::<RocksDbWeight>::set_required_bond() }
    fn challenge() -> Weight { Measured::<RocksDbWeight>::challenge() }
    fn claim_challenge() -> Weight { Measured::<RocksDbWeight>::claim_challenge() }
    fn answer_challenge() -> Weight { Measured::<RocksDbWeight>::answer_challenge() }
    fn answer_challenge_reject() -> Weight { Measured::<RocksDbWeight>::answer_challenge_reject() }
    fn answer_challenge_revoke(q: u32) -> Weight { Measured::<RocksDbWeight>::answer_challenge_revoke(q) }
    fn expire_challenges(n: u32) -> Weight { Measured::<RocksDbWeight>::expire_challenges(n) }
    fn close_epoch(c: u32) -> Weight { Measured::<RocksDbWeight>::close_epoch(c) }
    fn pay_emissions(n: u32) -> Weight { Measured::<RocksDbWeight>::pay_emissions(n) }
    fn prune_proposals(n: u32) -> Weight { Measured::<RocksDbWeight>::prune_proposals(n) }
    fn clear_reveal_period(n: u32) -> Weight { Measured::<RocksDbWeight>::clear_reveal_period(n) }
}
