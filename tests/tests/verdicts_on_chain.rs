//! Verdicts other than a crown, end to end with the real node and two validators: the
//! incumbent's own bytes proposed again FAIL `NotFaster`; a kernel that writes past its
//! output FAILs `Cheating`; another miner's renamed and reformatted copy of an earlier
//! proposal (new bytes, so the chain's exact-copy check lets it in) FAILs `CopyOf`. Each
//! test prints what it waits for and fails with the events it saw. Needs `cacheon` and
//! `cacheon-node` built (scripts/test.sh builds them first).

use std::path::{Path, PathBuf};

use cacheon_e2e::{diagnostics, propose, repo_root, watch, Node, Validator, Watched};

/// What a copier does to a revealed bundle: every local name changed, comments rewritten,
/// the layout and the bundle's name changed. Written under `dir`.
fn renamed_copy(original: &Path, dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(original.join("kernels/attention_decode.c")).unwrap();
    let body = src.split_once("#include <math.h>").unwrap().1;
    let copied = format!(
        "// attention, my own fast version\n#include <math.h>{}",
        body.replace("acc", "accumulator")
            .replace("denom", "norm_sum")
            .replace("max_score", "running_max")
            .replace("    ", "  ")
    );
    let manifest = std::fs::read_to_string(original.join("manifest.toml"))
        .unwrap()
        .replace("stock-cpu-attention_decode", "eves-attention")
        .replace("kernels/attention_decode.c", "src/attn.c");
    let out = dir.join("eve-bundle");
    std::fs::create_dir_all(out.join("src")).unwrap();
    std::fs::write(out.join("src/attn.c"), copied).unwrap();
    std::fs::write(out.join("manifest.toml"), manifest).unwrap();
    out
}

#[test]
fn not_faster_and_cheating_bundles_fail_on_chain_with_their_reasons() {
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let stock = repo_root().join("kernels/stock/cpu/attention_decode");
    let cheat = repo_root().join("examples/cpu/fail-out-of-bounds");
    let slow = propose(&node.url, &dir.path().join("charlie"), &stock, "//Charlie");
    let bad = propose(&node.url, &dir.path().join("dave"), &cheat, "//Dave");
    let copy = renamed_copy(&stock, dir.path());
    let copied = propose(&node.url, &dir.path().join("eve"), &copy, "//Eve");
    let copy_of = format!("CopyOf({slow})");
    for (id, reason) in [(slow, "NotFaster"), (bad, "Cheating"), (copied, &copy_of)] {
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
