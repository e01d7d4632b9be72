//! Verdicts other than a crown, end to end with the real node and two validators: the
//! incumbent's own bytes proposed again FAIL `NotFaster`; a kernel that writes past its
//! output FAILs `Cheating`. Each test prints what it waits for and fails with the events
//! it saw. Needs `cacheon` and `cacheon-node` built (scripts/test.sh builds them first).

use cacheon_e2e::{diagnostics, propose, repo_root, watch, DevNode, Validator, Watched};

#[test]
fn not_faster_and_cheating_bundles_fail_on_chain_with_their_reasons() {
    let dir = cacheon_e2e::TestDir::new();
    let node = DevNode::start(dir.path(), 500);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let stock = repo_root().join("kernels/stock/cpu/attention_decode");
    let cheat = repo_root().join("examples/cpu/fail-out-of-bounds");
    let slow = propose(&node.url, &dir.path().join("charlie"), &stock, "//Charlie");
    let bad = propose(&node.url, &dir.path().join("dave"), &cheat, "//Dave");
    for (id, reason) in [(slow, "NotFaster"), (bad, "Cheating")] {
        eprintln!("waiting for: proposal {id} to fail with {reason} (300 s budget)");
        let Watched { code, events } = watch(&node.url, id, 300);
        assert_eq!(
            code,
            1,
            "proposal {id} did not end failed: {events:#?}\n{}",
            diagnostics(&node, &[&alice, &bob])
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
            "proposal {id} did not fail with {reason}: {events:#?}\n{}",
            diagnostics(&node, &[&alice, &bob])
        );
        assert_eq!(events.last().unwrap()["status"], "failed");
    }
}
