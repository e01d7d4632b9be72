//! Verdicts other than a crown, end to end with the real node and three validators: a
//! kernel the engine never calls FAILs `NotFaster`; a kernel that writes past its output
//! FAILs `Cheating`; another miner's copy of an earlier proposal, renamed, reformatted and
//! wrapped in code of its own (new bytes and a new fingerprint, so only containment sees
//! it) FAILs `CopyOf`; the stock kernel renamed and reformatted FAILs `Policy` before anyone
//! measures it. Each test prints what it waits for and fails with the events it saw. Needs
//! `cacheon` and `cacheon-node` built (scripts/test.sh builds them first).

use std::path::{Path, PathBuf};

use cacheon_e2e::{diagnostics, propose, repo_root, watch, Node, Validator, Watched};

/// What a copier does to a revealed bundle whose one source is `source`: local names
/// changed (`renames`), comments rewritten, the layout and the bundle's name changed, the
/// source moved; with `wrap`, code of its own around the copy (an unused helper before it,
/// another after). Written to `dir/name`.
fn copy_of(
    original: &Path,
    source: &str,
    renames: &[(&str, &str)],
    wrap: bool,
    dir: &Path,
    name: &str,
) -> PathBuf {
    let src = std::fs::read_to_string(original.join(source)).unwrap();
    let body = src.split_once("#include <math.h>").unwrap().1;
    let mut body = body.replace("    ", "  ");
    for (from, to) in renames {
        body = body.replace(from, to);
    }
    let (before, after) = if wrap {
        (
            "static inline float eve_scaled(float x, float s) { return x * s + 0.5f * s; }\n",
            "\nstatic inline int eve_rounds(int n) { return n > 8 ? n / 8 : 1; }\n",
        )
    } else {
        ("", "")
    };
    let copied =
        format!("// attention, my own fast version\n#include <math.h>\n{before}{body}{after}");
    let manifest = std::fs::read_to_string(original.join("manifest.toml")).unwrap();
    let old_name = manifest
        .lines()
        .find_map(|l| l.strip_prefix("name = "))
        .unwrap()
        .to_string();
    let manifest = manifest
        .replace(&old_name, &format!("\"{name}\""))
        .replace(source, "src/attn.c");
    let out = dir.join(name);
    std::fs::create_dir_all(out.join("src")).unwrap();
    std::fs::write(out.join("src/attn.c"), copied).unwrap();
    std::fs::write(out.join("manifest.toml"), manifest).unwrap();
    out
}

#[test]
fn not_faster_cheating_and_copied_bundles_fail_on_chain_with_their_reasons() {
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);
    let ports = [
        cacheon_e2e::free_port(),
        cacheon_e2e::free_port(),
        cacheon_e2e::free_port(),
    ];
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), Some(ports[0]));
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), Some(ports[1]));
    // A third operator (the dev chain registers Dave for cpu-tiny): a FAIL sticks only when a
    // second operator's FAILs too, and an attempt that reads a drifting baseline on a loaded
    // machine ends NoDecision, which bars its operator from that proposal while another may
    // take it. With two validators one NoDecision left the NotFaster proposal waiting for an
    // operator nobody ran (a CI run on 2026-12-07 failed so). (Dave's key signs his validator's
    // calls, so the cheat is Ferdie's: one key's transactions from two processes clash.)
    let dave = Validator::start("dave", "//Dave", &node.url, dir.path(), Some(ports[2]));
    let never_called = repo_root().join("examples/cpu/fail-never-dispatched");
    let cheat = repo_root().join("examples/cpu/fail-out-of-bounds");
    let stock = repo_root().join("kernels/stock/cpu/attention_decode");
    let slow = propose(
        &node.url,
        &dir.path().join("charlie"),
        &never_called,
        "//Charlie",
    );
    let bad = propose(&node.url, &dir.path().join("ferdie"), &cheat, "//Ferdie");
    let renames = [
        ("acc", "accumulator"),
        ("denom", "norm_sum"),
        ("dot(", "inner("),
    ];
    let copy = copy_of(
        &never_called,
        "kernels/attention.c",
        &renames,
        true,
        dir.path(),
        "eves-attention",
    );
    let copied = propose(&node.url, &dir.path().join("eve"), &copy, "//Eve");
    let renames = [
        ("acc", "accumulator"),
        ("denom", "norm_sum"),
        ("max_score", "running_max"),
    ];
    let restock = copy_of(
        &stock,
        "kernels/attention_decode.c",
        &renames,
        false,
        dir.path(),
        "charlies-attention",
    );
    let stock_copy = propose(
        &node.url,
        &dir.path().join("charlie-2"),
        &restock,
        "//Charlie",
    );
    let copy_reason = format!("CopyOf({slow})");
    for (id, reason) in [
        (slow, "NotFaster"),
        (bad, "Cheating"),
        (copied, &copy_reason),
        (stock_copy, "Policy"),
    ] {
        eprintln!("waiting for: proposal {id} to fail with {reason} (300 s budget)");
        let Watched { code, events } = watch(&node.url, id, 300);
        assert_eq!(
            code,
            1,
            "proposal {id} did not end failed: {events:#?}\n{}",
            diagnostics(&node, &[&alice, &bob, &dave])
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
            diagnostics(&node, &[&alice, &bob, &dave])
        );
        assert_eq!(events.last().unwrap()["status"], "failed");

        // `status` names the FAIL that ended it and, from the endpoint its validator
        // published on chain, shows its report (checked against the digest the chain
        // keeps): stage, reason, detail.
        // A CopyOf ends on the PASS that would have crowned it: its report is that PASS's.
        let final_fail = status_final_fail(&node.url, id, &ports, &dir.path().join("fetched"));
        assert_eq!(final_fail["reason"], reason, "{final_fail:#}");
        let report = &final_fail["report"];
        // The report records the arena's contract at the lease's block (what the validator
        // measured under).
        let saved = report["saved"].as_str().expect("the report was kept");
        let full: serde_json::Value =
            serde_json::from_slice(&std::fs::read(saved).unwrap()).unwrap();
        let contract = &full["contract"];
        assert!(
            contract["workload_digest"]
                .as_str()
                .is_some_and(|d| d.len() == 64)
                && contract["block"].as_u64().is_some_and(|b| b > 0)
                && contract["min_margin_ppm"].is_u64(),
            "{contract:#}"
        );
        if reason.starts_with("CopyOf") {
            assert!(report["saved"].is_string(), "{final_fail:#}");
        } else {
            assert_eq!(report["reason"], reason, "{final_fail:#}");
            assert!(
                report["stage"].is_string()
                    && report["detail"].as_str().is_some_and(|d| !d.is_empty()),
                "{final_fail:#}"
            );
        }
    }
}

/// `cacheon status ID --json`'s final FAIL, once its report is published (a validator marks
/// its attempt attested a moment after the verdict is final). No `--from`: each verdict's
/// report comes from the endpoint its validator published on chain (one of `ports`).
fn status_final_fail(url: &str, id: u64, ports: &[u16], fetched: &Path) -> serde_json::Value {
    let start = std::time::Instant::now();
    loop {
        let mut args = vec![
            "status".to_string(),
            id.to_string(),
            "--url".into(),
            url.into(),
        ];
        args.push("--evidence-dir".into());
        args.push(fetched.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, lines, err) = cacheon_e2e::run_lines(&args);
        assert_eq!(code, 0, "{lines:?}\n{err}");
        let verdicts = lines[0]["verdicts"].as_array().cloned().unwrap_or_default();
        let last = verdicts
            .iter()
            .find(|v| v["role"] == "final fail")
            .cloned()
            .unwrap_or_else(|| panic!("no final FAIL in {:#}", lines[0]));
        let published: Vec<String> = ports
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect();
        assert!(
            last["endpoint"]
                .as_str()
                .is_some_and(|e| published.iter().any(|p| p == e)),
            "the FAIL's validator publishes none of {published:?}: {last:#}"
        );
        if last["report"].is_object() || start.elapsed() > std::time::Duration::from_secs(30) {
            return last;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
}
