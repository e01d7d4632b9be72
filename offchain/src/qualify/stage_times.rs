//! Where an attempt's wall time went, stage by stage: the evidence's `stage_ms`. Every
//! stage is timed by the referee around what it asked of its lanes (a lane's own figures,
//! such as how long its engine took to load, are listed under the stage that asked, as
//! `stage.part`). On a GPU arena one attempt holds the GPU from start to end, so these are
//! also its GPU seconds.

use std::time::{Duration, Instant};

use serde::Serialize;

/// One stage's time: `count` spans adding up to `ms`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageTime {
    pub stage: String,
    pub ms: f64,
    pub count: u32,
}

/// The stages an attempt went through, in the order each first ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StageTimes(Vec<StageTime>);

impl StageTimes {
    /// Adds one span of `stage`.
    pub fn add(&mut self, stage: &str, took: Duration) {
        self.add_ms(stage, took.as_secs_f64() * 1e3);
    }

    /// Adds one span of `stage`, in milliseconds.
    pub fn add_ms(&mut self, stage: &str, ms: f64) {
        match self.0.iter_mut().find(|s| s.stage == stage) {
            Some(s) => {
                s.ms += ms;
                s.count += 1;
            }
            None => self.0.push(StageTime {
                stage: stage.to_string(),
                ms,
                count: 1,
            }),
        }
    }

    /// Runs `f` as one span of `stage`.
    pub fn time<T>(&mut self, stage: &str, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        self.add(stage, started.elapsed());
        out
    }

    /// Every span of `other`, added to this record.
    pub fn merge(&mut self, other: &StageTimes) {
        for s in &other.0 {
            match self.0.iter_mut().find(|m| m.stage == s.stage) {
                Some(m) => {
                    m.ms += s.ms;
                    m.count += s.count;
                }
                None => self.0.push(s.clone()),
            }
        }
    }

    /// Milliseconds of `stage` (0 if it never ran).
    pub fn ms(&self, stage: &str) -> f64 {
        self.0
            .iter()
            .find(|s| s.stage == stage)
            .map_or(0.0, |s| s.ms)
    }

    /// The stages, in the order each first ran.
    pub fn stages(&self) -> impl Iterator<Item = &StageTime> {
        self.0.iter()
    }

    /// Milliseconds of the top-level stages (those without a `.part`), which do not
    /// overlap: together, the attempt's timed time.
    pub fn top_level_ms(&self) -> f64 {
        self.0
            .iter()
            .filter(|s| !s.stage.contains('.'))
            .map(|s| s.ms)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_of_a_stage_add_up_in_first_run_order() {
        let mut t = StageTimes::default();
        t.add_ms("verify", 2.0);
        t.add_ms("lane_start", 3.0);
        t.add_ms("lane_start.engine", 1.5);
        t.add_ms("verify", 4.0);
        assert_eq!(t.ms("verify"), 6.0);
        assert_eq!(t.ms("audit"), 0.0);
        let order: Vec<(&str, u32)> = t.stages().map(|s| (s.stage.as_str(), s.count)).collect();
        assert_eq!(
            order,
            [("verify", 2), ("lane_start", 1), ("lane_start.engine", 1)]
        );
        assert_eq!(t.top_level_ms(), 9.0);
        let mut other = StageTimes::default();
        other.add_ms("audit", 1.0);
        other.add_ms("verify", 1.0);
        t.merge(&other);
        assert_eq!((t.ms("verify"), t.ms("audit")), (7.0, 1.0));
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json[0]["stage"], "verify");
        assert_eq!(json[0]["count"], 3);
    }
}
