//! What one attempt found, stored as evidence: the screens' report, the speed reads, the
//! audit and the pristine reference.

use serde::Serialize;

use super::findings::{Outcome, ScreenReport};
use super::stage_times::StageTimes;
use super::{audit, speed};
use crate::lane::protocol::BuildCounts;

/// The speed step's record.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpeedRecord {
    pub baseline_ms: Vec<f64>,
    pub candidate_ms: Vec<f64>,
    pub interval: Option<speed::Interval>,
    pub decision: Option<speed::Decision>,
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
    pub baseline_drift_ppm: u64,
    /// Times both lanes were started (1, or one more every `order_block` pairs where the
    /// arena sets one, the order alternating).
    pub lane_starts: u32,
    /// Lower bound on a read's time: weight bytes of every forward pass at the measured
    /// copy bandwidth of a buffer that size.
    pub floor_ms: f64,
    pub copy_gb_per_s: f64,
    /// Each slot's dispatch count in the candidate's reads.
    pub candidate_dispatch: Vec<(String, u64)>,
    /// The largest KL (nats) of a timed read's next-token distribution from the baseline
    /// read's at the same position (arenas that judge distributions).
    pub max_read_kl: Option<f64>,
    /// Each judged read's largest KL (nats), in read order.
    pub read_kl: Vec<f64>,
    /// Whether the baseline lane started first (drawn from the secret seed; where the
    /// arena restarts the lanes, the first start's order).
    pub base_started_first: bool,
    /// The speed lanes' NVRTC builds read back from the build cache and compiled.
    pub lane_builds: BuildCounts,
}

/// The pristine reference's record.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PristineRecord {
    pub kl_baseline: f64,
    pub kl_candidate: f64,
    pub kl_bound: f64,
    pub envelope: f64,
}

/// Everything one attempt found; stored as evidence.
#[derive(Clone, Debug, Serialize)]
pub struct AttemptReport {
    pub arena: &'static str,
    pub content_hash: Option<String>,
    pub seed: u64,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The lower end of the speedup's 95 % interval in ppm: what a PASS attests (set
    /// whenever the speed step decided, for the record).
    pub speedup_ppm: Option<u32>,
    pub machine: String,
    pub wall_ms: u64,
    /// Where the wall time went, stage by stage (`stage_times.rs`); `other` is what no
    /// stage timed.
    pub stage_ms: StageTimes,
    pub screens: ScreenReport,
    pub speed: Option<SpeedRecord>,
    pub audit: Option<audit::AuditSummary>,
    pub pristine: Option<PristineRecord>,
    pub workload: crate::arena::Workload,
}

impl AttemptReport {
    /// The verdict's short name: `pass`, `fail` or `no_decision`.
    pub fn verdict(&self) -> &'static str {
        match self.outcome {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "fail",
            Outcome::NoDecision { .. } => "no_decision",
        }
    }
}
