//! Verdicts other than a crown, end to end with the real node and two validators: the
//! incumbent's own bytes proposed again FAIL `NotFaster`; a kernel that writes past its
//! output FAILs `Cheating`. Each test prints what it waits for and fails with the events
//! it saw. Needs `cacheon-node` (scripts/test.sh builds it first).

mod common;
#[path = "common/node.rs"]
mod node;

use std::path::Path;
use std::process::{Child, Stdio};

use common::{cacheon, repo_root};
use serde_json::Value;

struct Running(Vec<Child>);

impl Drop for Running {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn run(args: &[&str]) -> (i32, Vec<Value>) {
    let out = cacheon()
        .arg("--json")
        .args(args)
        .output()
        .expect("run cacheon");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

fn propose(url: &str, state: &Path, bundle: &str, suri: &str) -> u64 {
    let state = state.to_str().unwrap();
    let (code, lines) = run(&[
        "commit",
        bundle,
        "--suri",
        suri,
        "--url",
        url,
        "--state-dir",
        state,
    ]);
    assert_eq!(code, 0, "commit {bundle}: {lines:?}");
    let (code, lines) = run(&[
        "reveal",
        bundle,
        "--suri",
        suri,
        "--url",
        url,
        "--state-dir",
        state,
    ]);
    assert_eq!(code, 0, "reveal {bundle}: {lines:?}");
    lines[0]["proposal"].as_u64().unwrap()
}

#[test]
fn not_faster_and_cheating_bundles_fail_on_chain_with_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let node = node::DevNode::start(dir.path(), 500);
    let mut running = Running(Vec::new());
    for (name, suri) in [("alice", "//Alice"), ("bob", "//Bob")] {
        let log = std::fs::File::create(dir.path().join(format!("{name}.log"))).unwrap();
        let child = cacheon()
            .args([
                "validator",
                "--arena",
                "cpu-tiny",
                "--suri",
                suri,
                "--url",
                &node.url,
            ])
            .arg("--data-dir")
            .arg(dir.path().join(name))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        running.0.push(child);
    }
    let stock = repo_root().join("kernels/stock/cpu/attention_decode");
    let cheat = repo_root().join("examples/cpu/fail-out-of-bounds");
    let slow = propose(
        &node.url,
        &dir.path().join("charlie"),
        stock.to_str().unwrap(),
        "//Charlie",
    );
    let bad = propose(
        &node.url,
        &dir.path().join("dave"),
        cheat.to_str().unwrap(),
        "//Dave",
    );
    for (id, reason) in [(slow, "NotFaster"), (bad, "Cheating")] {
        eprintln!("waiting for: proposal {id} to fail with {reason} (300 s budget)");
        let (code, events) = run(&[
            "watch",
            &id.to_string(),
            "--url",
            &node.url,
            "--for-secs",
            "300",
        ]);
        let logs: String = ["alice", "bob"]
            .iter()
            .map(|n| {
                std::fs::read_to_string(dir.path().join(format!("{n}.log"))).unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            code,
            1,
            "proposal {id} did not end failed: {events:#?}\n{}\n{logs}",
            node.log_tail()
        );
        // Seen as it happens, or (when it ended before `watch` started) in the first status.
        let seen = events
            .iter()
            .any(|e| e["event"] == "failed" && e["reason"] == reason)
            || events.iter().any(|e| {
                e["event"] == "status"
                    && e["status_detail"].as_str()
                        == Some(&format!("Failed {{ reason: {reason} }}"))
            });
        assert!(
            seen,
            "proposal {id} did not fail with {reason}: {events:#?}\n{logs}"
        );
        assert_eq!(events.last().unwrap()["status"], "failed");
    }
}
