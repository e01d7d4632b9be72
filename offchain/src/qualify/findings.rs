//! What the screens find and report, shared by every step of an attempt: the steps' names
//! ([`Stage`]), how a step ends ([`Finding`], [`Outcome`]; a lane's error as either), the
//! screens' options, progress and report ([`ScreenReport`], with what passed the static steps
//! and each verification case's record).

use std::path::PathBuf;

use cacheon_kernels::bundle::manifest::Manifest;
use cacheon_primitives::{ContentHash, FailReason, NoDecisionReason};
use serde::Serialize;

use super::stage_times::StageTimes;
use crate::fingerprint::Earlier;
use crate::lane::protocol::Special;
use crate::lane::{Deadlines, LaneError};

/// The steps, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Pack,
    Policy,
    /// Normalized-copy detection against earlier proposals (validators only).
    Copy,
    Build,
    Abi,
    Verify,
    Graph,
    /// The rest of an attempt (`qualify`): speed reads, audit A, pristine reference T.
    Speed,
    Audit,
    Pristine,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Pack => "pack",
            Stage::Policy => "policy",
            Stage::Copy => "copy",
            Stage::Build => "build",
            Stage::Abi => "abi",
            Stage::Verify => "verify",
            Stage::Graph => "graph",
            Stage::Speed => "speed",
            Stage::Audit => "audit",
            Stage::Pristine => "pristine",
        }
    }
}

/// Why a screen failed the proposal (the miner's fault).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub stage: Stage,
    #[serde(serialize_with = "ser_reason")]
    pub reason: FailReason,
    pub detail: String,
}

fn ser_reason<S: serde::Serializer>(r: &FailReason, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&reason_name(*r))
}

/// The on-chain name of a FAIL reason.
pub fn reason_name(r: FailReason) -> String {
    match r {
        FailReason::CopyOf(p) => format!("CopyOf({p})"),
        other => format!("{other:?}"),
    }
}

/// How the screens ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail(Finding),
    NoDecision {
        #[serde(serialize_with = "ser_nd")]
        reason: NoDecisionReason,
        detail: String,
    },
}

fn ser_nd<S: serde::Serializer>(r: &NoDecisionReason, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{r:?}"))
}

pub fn fail(stage: Stage, reason: FailReason, detail: impl Into<String>) -> Finding {
    Finding {
        stage,
        reason,
        detail: detail.into(),
    }
}

/// What passed the static steps.
#[derive(Clone, Debug)]
pub struct Packed {
    pub manifest: Manifest,
    pub canonical: Vec<u8>,
    pub content_hash: ContentHash,
}

/// Options for a screening run.
#[derive(Clone, Debug)]
pub struct ScreenOptions {
    /// The `cacheon` binary that runs lanes (`cacheon lane`).
    pub lane_exe: PathBuf,
    /// Secret seed the cases' inputs derive from; fresh per attempt.
    pub seed: u64,
    pub deadlines: Deadlines,
    /// Guard-band elements on each side of every output.
    pub guard: usize,
    /// Graph replays per graph case (DESIGN: at least 3).
    pub graph_replays: usize,
    /// Earlier proposals (the miner's own marked) for the copy screen; `None` skips the
    /// stage (offline runs have nothing to compare against).
    pub earlier: Option<Vec<Earlier>>,
}

impl ScreenOptions {
    pub fn new(lane_exe: PathBuf, seed: u64) -> Self {
        ScreenOptions {
            lane_exe,
            seed,
            deadlines: Deadlines::default(),
            guard: 1024,
            graph_replays: 3,
            earlier: None,
        }
    }
}

/// Everything a screening run found.
#[derive(Clone, Debug, Serialize)]
pub struct ScreenReport {
    pub arena: &'static str,
    pub content_hash: Option<String>,
    /// The normalized fingerprint (`fingerprint`), once the manifest parsed.
    pub fingerprint: Option<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The steps that ran to completion, in order.
    pub passed_stages: Vec<Stage>,
    pub cases: Vec<CaseRecord>,
    pub build_log: String,
    pub machine: String,
    pub lane_network_namespace: bool,
    pub lane_seccomp: bool,
    /// Whether the lane's Landlock filesystem ruleset was in force (false on kernels
    /// without Landlock).
    pub lane_landlock: bool,
    pub seed: u64,
    /// Where the screens' time went: the static steps, the screening lane's start and
    /// build, the verification and graph cases.
    pub stage_ms: StageTimes,
    /// The canonical bytes and manifest the static steps accepted, for the steps after the
    /// screens (not part of the evidence: the content hash names them).
    #[serde(skip)]
    pub packed: Option<Packed>,
}

/// Progress of a screening run, for a progress bar.
#[derive(Clone, Debug)]
pub enum Progress {
    Stage(Stage),
    Cases { done: usize, total: usize },
}

/// A lane error while running candidate code is the candidate's (FAIL); any other is
/// ours (NoDecision).
pub fn lane_outcome(stage: Stage, e: LaneError) -> Outcome {
    match e {
        LaneError::CandidateDied { .. }
        | LaneError::CandidateTimeout { .. }
        | LaneError::CandidateFault { .. } => {
            let reason = if stage == Stage::Build {
                FailReason::Build
            } else {
                FailReason::Incorrect
            };
            Outcome::Fail(fail(stage, reason, e.to_string()))
        }
        LaneError::CandidateForged { .. } => {
            Outcome::Fail(fail(stage, FailReason::Cheating, e.to_string()))
        }
        LaneError::Infrastructure(detail) => Outcome::NoDecision {
            reason: NoDecisionReason::Infrastructure,
            detail,
        },
    }
}

/// One verification case as run.
#[derive(Clone, Debug, Serialize)]
pub struct CaseRecord {
    pub stage: Stage,
    pub slot: &'static str,
    pub shape: Vec<i64>,
    pub special: Special,
    pub calls: usize,
    pub passed: bool,
    /// Smallest matched fraction over the calls, parts per million.
    pub matched_ppm: u64,
    pub max_abs_err: f64,
    pub millis: u64,
}
