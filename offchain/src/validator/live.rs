//! The attempt in progress, as the validator's endpoint publishes it on `/attempt`: which
//! proposal, the stage, the cases or pairs read of the stage's total, and how long it has
//! run. `cacheon watch` and the explorer's proposal page show it while a lease is held.
//!
//! What it leaves out, by decision: the seed and the prompts (secret until the attempt is
//! attested) and the interval so far. A reproduction must not read the primary's speedup
//! before it measured its own (the primary PASS is sealed for that); an interval published
//! live would hand it over. The pair count says only that reads go on: a decision ends the
//! attempt and the endpoint answers `null` from then on.

use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::qualify::findings::{Progress, Stage};

/// One attempt running.
#[derive(Clone, Debug, Serialize)]
struct Running {
    proposal: u64,
    arena: String,
    /// `lease` (a proposal's attempt) or `challenge` (the re-qualification of a crown).
    kind: &'static str,
    stage: &'static str,
    /// Verification cases or speed pairs read in this stage, of `total`.
    done: usize,
    total: usize,
    /// Unix seconds when the attempt started.
    started: u64,
    #[serde(skip)]
    since: Instant,
}

/// The validator's attempt in progress, shared by the attempt and the endpoint.
#[derive(Clone, Default)]
pub struct LiveAttempt(Arc<Mutex<Option<Running>>>);

impl LiveAttempt {
    /// An attempt of `proposal` starts; the returned guard clears it when dropped (the
    /// attempt ended, or its task was cancelled).
    pub fn start(&self, proposal: u64, arena: &str, challenge: bool) -> LiveGuard {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        *self.0.lock().expect("live attempt") = Some(Running {
            proposal,
            arena: arena.to_string(),
            kind: if challenge { "challenge" } else { "lease" },
            stage: Stage::Pack.as_str(),
            done: 0,
            total: 0,
            started,
            since: Instant::now(),
        });
        LiveGuard(self.clone())
    }

    /// What the attempt reports as it goes.
    pub fn progress(&self, p: Progress) {
        if let Some(r) = self.0.lock().expect("live attempt").as_mut() {
            match p {
                Progress::Stage(s) => {
                    r.stage = s.as_str();
                    (r.done, r.total) = (0, 0);
                }
                Progress::Cases { done, total } => (r.done, r.total) = (done, total),
            }
        }
    }

    /// `{"attempt": null}` or `{"attempt": {...}}` with the seconds it has run.
    pub fn json(&self) -> String {
        let running = self.0.lock().expect("live attempt").clone();
        let v = running.map(|r| {
            let mut v = serde_json::to_value(&r).expect("JSON");
            v["elapsed_s"] = serde_json::json!(r.since.elapsed().as_secs());
            v
        });
        serde_json::json!({ "attempt": v }).to_string()
    }
}

/// Clears the live attempt when dropped.
pub struct LiveGuard(LiveAttempt);

impl Drop for LiveGuard {
    fn drop(&mut self) {
        *self.0 .0.lock().expect("live attempt") = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_is_published_while_it_runs_and_gone_when_it_ends() {
        let live = LiveAttempt::default();
        assert_eq!(live.json(), r#"{"attempt":null}"#);
        let guard = live.start(7, "cpu-tiny", false);
        live.progress(Progress::Stage(Stage::Speed));
        live.progress(Progress::Cases { done: 3, total: 40 });
        let v: serde_json::Value = serde_json::from_str(&live.json()).unwrap();
        let a = &v["attempt"];
        assert_eq!(a["proposal"], 7);
        assert_eq!(a["arena"], "cpu-tiny");
        assert_eq!(a["kind"], "lease");
        assert_eq!(a["stage"], "speed");
        assert_eq!(
            (a["done"].as_u64(), a["total"].as_u64()),
            (Some(3), Some(40))
        );
        assert!(a["elapsed_s"].is_u64() && a["started"].as_u64() > Some(0));
        // Nothing secret and no interval: only these fields.
        let mut keys: Vec<_> = a.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "arena",
                "done",
                "elapsed_s",
                "kind",
                "proposal",
                "stage",
                "started",
                "total"
            ]
        );
        // A new stage starts its count afresh.
        live.progress(Progress::Stage(Stage::Audit));
        let v: serde_json::Value = serde_json::from_str(&live.json()).unwrap();
        assert_eq!(v["attempt"]["done"], 0);
        drop(guard);
        assert_eq!(live.json(), r#"{"attempt":null}"#);
    }
}
