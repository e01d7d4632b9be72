//! Verdicts a validator attests, and the small enums the catalog uses.

use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use scale_info::TypeInfo;

use crate::ProposalId;

/// One million parts per million: a speedup of exactly 1×.
pub const PPM_ONE: u32 = 1_000_000;

/// Where an arena's kernels run.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cuda,
    Cpu,
}

/// A singleton slot target, or an atomic group of slots replaced together.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    Slot,
    Atomic,
}

/// Why a proposal failed: the miner's fault. Terminal.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum FailReason {
    /// The source did not compile with the arena's flags.
    Build,
    /// The entry point is missing or its parameters differ from the slot's ABI.
    Abi,
    /// Outputs differ from the trusted reference at a verification shape.
    Incorrect,
    /// Wrong results under CUDA graph capture and replay.
    GraphUnsafe,
    /// Not proven faster than the incumbent by the arena's margin.
    NotFaster,
    /// Correct per call but the model's behaviour changed (audit A or pristine reference T).
    BehaviourChanged,
    /// Tampering: timings below the physical floor, stale outputs, guard-band writes, input
    /// mutation, clock reads and similar.
    Cheating,
    /// A normalized copy of an earlier proposal.
    CopyOf(ProposalId),
    /// The bundle breaks the arena's policy (schema, features, source rules).
    Policy,
}

impl FailReason {
    /// Whether one validator's FAIL for this reason needs a second operator's agreement
    /// before it sticks. `Build`, `Abi` and `Policy` are facts anyone can re-derive from the
    /// bundle alone; `Cheating` names an act the evidence shows. The others are measurements
    /// one machine could get wrong (or one operator could fake to veto a rival).
    pub fn is_disputable(&self) -> bool {
        !matches!(
            self,
            Self::Build | Self::Abi | Self::Policy | Self::Cheating
        )
    }
}

/// Why no decision was reached: infrastructure, never the miner's fault.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum NoDecisionReason {
    /// A fault of the validator's machine or software.
    Infrastructure,
    /// Baseline bookends drifted beyond the arena's `max_noise_ppm`.
    Noise,
    /// The attempt ran out of time for reasons not attributable to the candidate.
    Timeout,
}

/// What one qualification attempt concluded.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Encode,
    Decode,
    DecodeWithMemTracking,
    MaxEncodedLen,
    TypeInfo,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum Verdict {
    /// Proven faster: `speedup_ppm` is the lower end of the speedup's 95 % interval.
    Pass {
        speedup_ppm: u32,
    },
    Fail {
        reason: FailReason,
    },
    NoDecision {
        reason: NoDecisionReason,
    },
}
