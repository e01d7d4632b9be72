//! Weights for `pallet-cacheon`, measured by `cacheon-node benchmark-pallet` (see
//! docs/weights.md). Do not edit by hand: regenerate.
//!
//! Except the functions marked "Estimated": added with their calls on a machine where the node
//! could not be built, by hand, from the measured functions whose storage they resemble (reads
//! and writes counted from the code at their worst path, ref time rounded up). The next
//! regeneration measures them like the rest.
//!
//! Machine: Intel(R) Xeon(R) Processor, 2 cores. Wasm runtime (compiled by wasmtime), genesis preset
//! `development`, 20 steps, 10 repeats; 171s in all. 1-minute load average 5.21 before, 1.86 after
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

/// Weights for a runtime, with its own database weights (`T::DbWeight`).
pub struct SubstrateWeight<T>(PhantomData<T>);
impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 310_315 ns.
        Weight::from_parts(320_265_000, 301)
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
        // Fastest run: 931_461 ns.
        Weight::from_parts(1_397_910_427, 2_546)
            .saturating_add(Weight::from_parts(9_882, 0).saturating_mul(b.into()))
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
        // Fastest run: 351_782 ns.
        Weight::from_parts(364_155_000, 790)
            .saturating_add(T::DbWeight::get().reads(6))
            .saturating_add(T::DbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 273_174 ns.
        Weight::from_parts(290_124_000, 568)
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
        // Fastest run: 1_268_002 ns.
        Weight::from_parts(2_101_954_366, 5_096)
            .saturating_add(Weight::from_parts(38_197_856, 294).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(72))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 2_653_070 ns.
        Weight::from_parts(2_757_479_000, 8_029)
            .saturating_add(T::DbWeight::get().reads(102))
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
        // Fastest run: 668_624 ns.
        Weight::from_parts(750_866_000, 2_912)
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
        // Fastest run: 2_744_219 ns.
        Weight::from_parts(2_780_218_000, 8_170)
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
        // Fastest run: 3_288_844 ns.
        Weight::from_parts(3_293_443_000, 2_802)
            .saturating_add(Weight::from_parts(286_400_698, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(213_165_124, 438).saturating_mul(m.into()))
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
        // Fastest run: 281_945 ns.
        Weight::from_parts(329_660_912, 956)
            .saturating_add(Weight::from_parts(21_052_768, 75).saturating_mul(t.into()))
            .saturating_add(T::DbWeight::get().reads(11))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 656_126 ns.
        Weight::from_parts(724_124_000, 2_579)
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 174_494 ns.
        Weight::from_parts(183_958_000, 953)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 187_243 ns.
        Weight::from_parts(196_982_000, 1_097)
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 86_105 ns.
        Weight::from_parts(91_494_000, 404)
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_413 ns.
        Weight::from_parts(42_581_000, 0).saturating_add(T::DbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 44_694 ns.
        Weight::from_parts(505_292_852, 5_318)
            .saturating_add(Weight::from_parts(1_948_424_085, 565).saturating_mul(n.into()))
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
        // Fastest run: 1_437_489 ns.
        Weight::from_parts(1_726_582_262, 2_048)
            .saturating_add(Weight::from_parts(264_490_156, 563).saturating_mul(n.into()))
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
        // Fastest run: 364_052 ns.
        Weight::from_parts(373_034_000, 908)
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().writes(6))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        // Fastest run: 335_991 ns.
        Weight::from_parts(340_809_000, 662)
            .saturating_add(T::DbWeight::get().reads(4))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        // Fastest run: 280_446 ns (measured when it released at once; the unbonding
        // chunk's read and write, and its proof, added by hand: regenerate).
        Weight::from_parts(290_419_000, 1_100)
            .saturating_add(T::DbWeight::get().reads(5))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        // Fastest run: 86_566 ns.
        Weight::from_parts(96_110_000, 387)
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
        // Fastest run: 90_971 ns.
        Weight::from_parts(91_931_000, 324)
            .saturating_add(Weight::from_parts(38_198_355, 153).saturating_mul(c.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 85_496 ns.
        Weight::from_parts(1_242_327_267, 18_972)
            .saturating_add(Weight::from_parts(209_890_419, 6).saturating_mul(n.into()))
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
        // Fastest run: 38_079 ns.
        Weight::from_parts(134_273_678, 562)
            .saturating_add(Weight::from_parts(118_320_242, 261).saturating_mul(n.into()))
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
        // Fastest run: 59_385 ns.
        Weight::from_parts(65_858_137, 343)
            .saturating_add(Weight::from_parts(4_492_852, 58).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(3))
            .saturating_add(T::DbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((1_u64).saturating_mul(n.into())))
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
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(450_000_000, 4_200)
            .saturating_add(T::DbWeight::get().reads(71))
            .saturating_add(T::DbWeight::get().writes(7))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:2 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim_challenge() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(300_000_000, 4_200)
            .saturating_add(T::DbWeight::get().reads(7))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    fn answer_challenge() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(380_000_000, 4_200)
            .saturating_add(T::DbWeight::get().reads(11))
            .saturating_add(T::DbWeight::get().writes(1))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:1)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    /// Storage: `System::Account` (r:4 w:4)
    fn answer_challenge_reject() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(1_100_000_000, 4_800)
            .saturating_add(T::DbWeight::get().reads(18))
            .saturating_add(T::DbWeight::get().writes(9))
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
    /// Storage: `Cacheon::Incumbents` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:127 w:127)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::OperatorBonds` (r:2 w:2)
    /// Storage: `Cacheon::Proposals` (r:128 w:128)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:2 w:2)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    /// Storage: `System::Account` (r:6 w:6)
    fn answer_challenge_revoke(q: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(2_600_000_000, 5_600)
            .saturating_add(Weight::from_parts(120_000_000, 517).saturating_mul(q.into()))
            .saturating_add(T::DbWeight::get().reads(34))
            .saturating_add(T::DbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes(26))
            .saturating_add(T::DbWeight::get().writes((2_u64).saturating_mul(q.into())))
    }
    /// The range of component `n` is `[0, 8]`.
    /// Storage: `Balances::Holds` (r:8 w:8)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:8)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:8)
    /// Storage: `Cacheon::OpenChallenges` (r:8 w:8)
    /// Storage: `System::Account` (r:8 w:8)
    fn expire_challenges(n: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(60_000_000, 1_500)
            .saturating_add(Weight::from_parts(420_000_000, 4_300).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(1))
            .saturating_add(T::DbWeight::get().reads((4_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(1))
            .saturating_add(T::DbWeight::get().writes((5_u64).saturating_mul(n.into())))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:0)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw_unbonded() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(420_000_000, 6_000)
            .saturating_add(T::DbWeight::get().reads(12))
            .saturating_add(T::DbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn attest_sealed() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `attest_pass`'s storage
        // and ref time (the same path without the speedup check).
        Weight::from_parts(2_760_000_000, 8_029)
            .saturating_add(T::DbWeight::get().reads(102))
            .saturating_add(T::DbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: as `attest_crown`, less the lease (`OpenLeases`), plus the seal's hash.
    fn reveal_pass(q: u32, m: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `attest_crown` plus the
        // seal's blake2 (a few µs) and the `Validators` read of the reproduction's key.
        Weight::from_parts(3_400_000_000, 2_900)
            .saturating_add(Weight::from_parts(286_400_698, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(213_165_124, 438).saturating_mul(m.into()))
            .saturating_add(T::DbWeight::get().reads(17))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(T::DbWeight::get().writes(11))
            .saturating_add(T::DbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(T::DbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:32 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn reveals_missed(n: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `expire_leases` per
        // deadline, plus a fresh reproduction wait scheduled (up to 64 blocks tried).
        Weight::from_parts(505_292_852, 5_318)
            .saturating_add(Weight::from_parts(2_400_000_000, 565).saturating_mul(n.into()))
            .saturating_add(T::DbWeight::get().reads(57))
            .saturating_add(T::DbWeight::get().reads((68_u64).saturating_mul(n.into())))
            .saturating_add(T::DbWeight::get().writes(2))
            .saturating_add(T::DbWeight::get().writes((2_u64).saturating_mul(n.into())))
    }
}

/// The same weights with RocksDB's database weights, for tests and mocks.
impl WeightInfo for () {
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn commit() -> Weight {
        // Fastest run: 310_315 ns.
        Weight::from_parts(320_265_000, 301)
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
        // Fastest run: 931_461 ns.
        Weight::from_parts(1_397_910_427, 2_546)
            .saturating_add(Weight::from_parts(9_882, 0).saturating_mul(b.into()))
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
        // Fastest run: 351_782 ns.
        Weight::from_parts(364_155_000, 790)
            .saturating_add(RocksDbWeight::get().reads(6))
            .saturating_add(RocksDbWeight::get().writes(8))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Commits` (r:1 w:1)
    /// Storage: `Cacheon::PendingCommits` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn cancel_commit() -> Weight {
        // Fastest run: 273_174 ns.
        Weight::from_parts(290_124_000, 568)
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
        // Fastest run: 1_268_002 ns.
        Weight::from_parts(2_101_954_366, 5_096)
            .saturating_add(Weight::from_parts(38_197_856, 294).saturating_mul(q.into()))
            .saturating_add(RocksDbWeight::get().reads(72))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn attest_pass() -> Weight {
        // Fastest run: 2_653_070 ns.
        Weight::from_parts(2_757_479_000, 8_029)
            .saturating_add(RocksDbWeight::get().reads(102))
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
        // Fastest run: 668_624 ns.
        Weight::from_parts(750_866_000, 2_912)
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
        // Fastest run: 2_744_219 ns.
        Weight::from_parts(2_780_218_000, 8_170)
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
        // Fastest run: 3_288_844 ns.
        Weight::from_parts(3_293_443_000, 2_802)
            .saturating_add(Weight::from_parts(286_400_698, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(213_165_124, 438).saturating_mul(m.into()))
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
        // Fastest run: 281_945 ns.
        Weight::from_parts(329_660_912, 956)
            .saturating_add(Weight::from_parts(21_052_768, 75).saturating_mul(t.into()))
            .saturating_add(RocksDbWeight::get().reads(11))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(t.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::CounterForArenas` (r:1 w:1)
    /// Storage: `Cacheon::Targets` (r:32 w:0)
    fn set_arena() -> Weight {
        // Fastest run: 656_126 ns.
        Weight::from_parts(724_124_000, 2_579)
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().writes(2))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn add_validator() -> Weight {
        // Fastest run: 174_494 ns.
        Weight::from_parts(183_958_000, 953)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:1)
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:1 w:1)
    fn remove_validator() -> Weight {
        // Fastest run: 187_243 ns.
        Weight::from_parts(196_982_000, 1_097)
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::EvidenceEndpoints` (r:0 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    fn set_evidence_endpoint() -> Weight {
        // Fastest run: 86_105 ns.
        Weight::from_parts(91_494_000, 404)
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Emissions` (r:0 w:1)
    fn set_emissions() -> Weight {
        // Fastest run: 38_413 ns.
        Weight::from_parts(42_581_000, 0).saturating_add(RocksDbWeight::get().writes(1))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:34 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn expire_leases(n: u32) -> Weight {
        // Fastest run: 44_694 ns.
        Weight::from_parts(505_292_852, 5_318)
            .saturating_add(Weight::from_parts(1_948_424_085, 565).saturating_mul(n.into()))
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
        // Fastest run: 1_437_489 ns.
        Weight::from_parts(1_726_582_262, 2_048)
            .saturating_add(Weight::from_parts(264_490_156, 563).saturating_mul(n.into()))
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
        // Fastest run: 364_052 ns.
        Weight::from_parts(373_034_000, 908)
            .saturating_add(RocksDbWeight::get().reads(5))
            .saturating_add(RocksDbWeight::get().writes(6))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn bond() -> Weight {
        // Fastest run: 335_991 ns.
        Weight::from_parts(340_809_000, 662)
            .saturating_add(RocksDbWeight::get().reads(4))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:1)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn unbond() -> Weight {
        // Fastest run: 280_446 ns (measured when it released at once; the unbonding
        // chunk's read and write, and its proof, added by hand: regenerate).
        Weight::from_parts(290_419_000, 1_100)
            .saturating_add(RocksDbWeight::get().reads(5))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:0 w:1)
    fn set_required_bond() -> Weight {
        // Fastest run: 86_566 ns.
        Weight::from_parts(96_110_000, 387)
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
        // Fastest run: 90_971 ns.
        Weight::from_parts(91_931_000, 324)
            .saturating_add(Weight::from_parts(38_198_355, 153).saturating_mul(c.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(c.into())))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// The range of component `n` is `[0, 64]`.
    /// Storage: `Cacheon::Payout` (r:1 w:1)
    /// Storage: `Cacheon::Weights` (r:1 w:0)
    /// Storage: `System::Account` (r:65 w:65)
    fn pay_emissions(n: u32) -> Weight {
        // Fastest run: 85_496 ns.
        Weight::from_parts(1_242_327_267, 18_972)
            .saturating_add(Weight::from_parts(209_890_419, 6).saturating_mul(n.into()))
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
        // Fastest run: 38_079 ns.
        Weight::from_parts(134_273_678, 562)
            .saturating_add(Weight::from_parts(118_320_242, 261).saturating_mul(n.into()))
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
        // Fastest run: 59_385 ns.
        Weight::from_parts(65_858_137, 343)
            .saturating_add(Weight::from_parts(4_492_852, 58).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(3))
            .saturating_add(RocksDbWeight::get().reads((1_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((1_u64).saturating_mul(n.into())))
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
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(450_000_000, 4_200)
            .saturating_add(RocksDbWeight::get().reads(71))
            .saturating_add(RocksDbWeight::get().writes(7))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::KeyOperators` (r:2 w:0)
    /// Storage: `Cacheon::OperatorBonds` (r:1 w:0)
    /// Storage: `Cacheon::RequiredBonds` (r:1 w:0)
    /// Storage: `Cacheon::Validators` (r:1 w:0)
    fn claim_challenge() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(300_000_000, 4_200)
            .saturating_add(RocksDbWeight::get().reads(7))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    fn answer_challenge() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(380_000_000, 4_200)
            .saturating_add(RocksDbWeight::get().reads(11))
            .saturating_add(RocksDbWeight::get().writes(1))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:1 w:1)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:1)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    /// Storage: `System::Account` (r:4 w:4)
    fn answer_challenge_reject() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(1_100_000_000, 4_800)
            .saturating_add(RocksDbWeight::get().reads(18))
            .saturating_add(RocksDbWeight::get().writes(9))
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
    /// Storage: `Cacheon::Incumbents` (r:0 w:1)
    /// Storage: `Cacheon::LeaseDeadlines` (r:127 w:127)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:1)
    /// Storage: `Cacheon::OperatorBonds` (r:2 w:2)
    /// Storage: `Cacheon::Proposals` (r:128 w:128)
    /// Storage: `Cacheon::PruneQueue` (r:0 w:1)
    /// Storage: `Cacheon::PruneTail` (r:1 w:1)
    /// Storage: `Cacheon::Queue` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:2 w:2)
    /// Storage: `Cacheon::Validators` (r:9 w:0)
    /// Storage: `System::Account` (r:6 w:6)
    fn answer_challenge_revoke(q: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(2_600_000_000, 5_600)
            .saturating_add(Weight::from_parts(120_000_000, 517).saturating_mul(q.into()))
            .saturating_add(RocksDbWeight::get().reads(34))
            .saturating_add(RocksDbWeight::get().reads((2_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes(26))
            .saturating_add(RocksDbWeight::get().writes((2_u64).saturating_mul(q.into())))
    }
    /// The range of component `n` is `[0, 8]`.
    /// Storage: `Balances::Holds` (r:8 w:8)
    /// Storage: `Cacheon::ChallengeDeadlines` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:8)
    /// Storage: `Cacheon::CrownChallenges` (r:0 w:8)
    /// Storage: `Cacheon::OpenChallenges` (r:8 w:8)
    /// Storage: `System::Account` (r:8 w:8)
    fn expire_challenges(n: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(60_000_000, 1_500)
            .saturating_add(Weight::from_parts(420_000_000, 4_300).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(1))
            .saturating_add(RocksDbWeight::get().reads((4_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(1))
            .saturating_add(RocksDbWeight::get().writes((5_u64).saturating_mul(n.into())))
    }
    /// Storage: `Balances::Holds` (r:1 w:1)
    /// Storage: `Cacheon::Challenges` (r:8 w:0)
    /// Storage: `Cacheon::OpenChallenges` (r:1 w:0)
    /// Storage: `Cacheon::Unbonding` (r:1 w:1)
    /// Storage: `System::Account` (r:1 w:1)
    fn withdraw_unbonded() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md).
        Weight::from_parts(420_000_000, 6_000)
            .saturating_add(RocksDbWeight::get().reads(12))
            .saturating_add(RocksDbWeight::get().writes(3))
    }
    /// Storage: `Cacheon::Arenas` (r:1 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:1 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::OpenLeases` (r:1 w:1)
    /// Storage: `Cacheon::Proposals` (r:1 w:1)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn attest_sealed() -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `attest_pass`'s storage
        // and ref time (the same path without the speedup check).
        Weight::from_parts(2_760_000_000, 8_029)
            .saturating_add(RocksDbWeight::get().reads(102))
            .saturating_add(RocksDbWeight::get().writes(4))
    }
    /// The range of component `q` is `[0, 127]`.
    /// The range of component `m` is `[2, 8]`.
    /// Storage: as `attest_crown`, less the lease (`OpenLeases`), plus the seal's hash.
    fn reveal_pass(q: u32, m: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `attest_crown` plus the
        // seal's blake2 (a few µs) and the `Validators` read of the reproduction's key.
        Weight::from_parts(3_400_000_000, 2_900)
            .saturating_add(Weight::from_parts(286_400_698, 517).saturating_mul(q.into()))
            .saturating_add(Weight::from_parts(213_165_124, 438).saturating_mul(m.into()))
            .saturating_add(RocksDbWeight::get().reads(17))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().reads((5_u64).saturating_mul(m.into())))
            .saturating_add(RocksDbWeight::get().writes(11))
            .saturating_add(RocksDbWeight::get().writes((7_u64).saturating_mul(q.into())))
            .saturating_add(RocksDbWeight::get().writes((6_u64).saturating_mul(m.into())))
    }
    /// The range of component `n` is `[0, 32]`.
    /// Storage: `Cacheon::Arenas` (r:32 w:0)
    /// Storage: `Cacheon::KeyOperators` (r:32 w:0)
    /// Storage: `Cacheon::LeaseDeadlines` (r:65 w:2)
    /// Storage: `Cacheon::Proposals` (r:32 w:32)
    /// Storage: `Cacheon::Validators` (r:33 w:0)
    fn reveals_missed(n: u32) -> Weight {
        // Estimated, not measured yet: regenerate (docs/weights.md). `expire_leases` per
        // deadline, plus a fresh reproduction wait scheduled (up to 64 blocks tried).
        Weight::from_parts(505_292_852, 5_318)
            .saturating_add(Weight::from_parts(2_400_000_000, 565).saturating_mul(n.into()))
            .saturating_add(RocksDbWeight::get().reads(57))
            .saturating_add(RocksDbWeight::get().reads((68_u64).saturating_mul(n.into())))
            .saturating_add(RocksDbWeight::get().writes(2))
            .saturating_add(RocksDbWeight::get().writes((2_u64).saturating_mul(n.into())))
    }
}
