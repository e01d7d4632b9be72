//! `cacheon submit` against a real dev node: killed (SIGKILL) as soon as its commitment is
//! finalized, then run again, it reveals that commitment (no second commit, no second
//! deposit); killed after the reveal and run again, it watches the same proposal. Before a
//! new commitment it prints the quote and sends nothing without `--yes` (off a terminal) or
//! without the balance. Needs `cacheon` and `cacheon-node` built (scripts/test.sh builds
//! them first).

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use cacheon_e2e::{cacheon, repo_root, run_lines as run, Node};
use serde_json::Value;

/// Runs `cacheon --json ARGS` and kills it with SIGKILL once it prints an event named
/// `until`; returns the events printed until then.
fn run_until_killed(args: &[&str], until: &str) -> Vec<Value> {
    let mut child = cacheon()
        .arg("--json")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run cacheon");
    let stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let done = v["event"] == until;
        seen.push(v);
        if done {
            child.kill().expect("kill cacheon submit");
            break;
        }
    }
    let _ = child.wait();
    seen
}

#[test]
fn submit_killed_and_run_again_completes_the_proposal() {
    let logs = cacheon_e2e::TestDir::new();
    let node = Node::dev(logs.path(), 250);
    let url = node.url.as_str();
    let state = logs.path().join("state");
    let state = state.to_str().unwrap();
    let bundle = repo_root().join("examples/cpu/rmsnorm-avx2");
    let bundle = bundle.to_str().unwrap();
    // No validator runs: the proposal stays queued, and each watch runs out of time (exit 5).
    let args = [
        "submit",
        bundle,
        "--suri",
        "//Charlie",
        "--state-dir",
        state,
        "--url",
        url,
        "--timeout",
        "60",
        "--for-secs",
        "3",
        "--yes",
    ];

    eprintln!("waiting for: the first submit's commitment, then killing it");
    let first = run_until_killed(&args, "committed");
    assert_eq!(
        first[0]["event"], "quote",
        "the quote comes first: {first:?}"
    );
    let committed = first.last().expect("events before the kill");
    assert_eq!(committed["event"], "committed", "{first:?}");
    assert_eq!(committed["target"], "norm.rmsnorm");

    eprintln!("waiting for: the second submit to reveal that commitment, then killing it");
    let second = run_until_killed(&args, "revealed");
    let names: Vec<&str> = second.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(
        names,
        ["resumed", "revealed"],
        "{second:?}\n{}",
        node.log_tail()
    );
    assert_eq!(second[0]["step"], "reveal");
    assert_eq!(second[1]["content_hash"], committed["content_hash"]);
    let proposal = second[1]["proposal"].as_u64().expect("a proposal id");

    eprintln!("waiting for: the third submit to watch the same proposal");
    let (code, lines, err) = run(&args);
    assert_eq!(
        code, 5,
        "out of watching time with no validator: {lines:?}\n{err}"
    );
    assert_eq!(lines[0]["event"], "resumed", "{lines:?}");
    assert_eq!(lines[0]["step"], "watch");
    assert_eq!(lines[0]["proposal"].as_u64(), Some(proposal));
    assert_eq!(lines[1]["event"], "status", "{lines:?}");
    assert_eq!(lines[1]["status"], "queued");

    // One commitment was ever sent: the deposit was held once.
    let records = std::fs::read_dir(std::path::Path::new(state).join("commits"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".json")
        })
        .count();
    assert_eq!(records, 1, "one commit record");
}

fn planck(v: &Value, field: &str) -> u128 {
    v[field]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{field} in {v}"))
}

#[test]
fn submit_quotes_first_and_sends_nothing_without_yes_or_the_balance() {
    let logs = cacheon_e2e::TestDir::new();
    let node = Node::dev(logs.path(), 250);
    let url = node.url.as_str();
    let state = logs.path().join("state");
    let state = state.to_str().unwrap();
    let bundle = repo_root().join("examples/cpu/rmsnorm-avx2");
    let bundle = bundle.to_str().unwrap();
    let args = |suri: &'static str, extra: &[&'static str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "submit",
            bundle,
            "--suri",
            suri,
            "--state-dir",
            state,
            "--url",
            url,
            "--timeout",
            "60",
            "--for-secs",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run_args = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&a)
    };

    eprintln!("Charlie without --yes, off a terminal: the quote, then nothing sent");
    let (code, lines, err) = run_args(args("//Charlie", &[]));
    assert_eq!(code, 2, "{lines:?}\n{err}");
    let q = &lines[0];
    assert_eq!(q["event"], "quote", "{lines:?}");
    assert_eq!(q["affordable"], true);
    let held =
        planck(q, "commit_deposit") + planck(q, "bundle_deposit") + planck(q, "evaluation_fee");
    let spent = planck(q, "reveal_fee") + planck(q, "commit_tx_fee") + planck(q, "reveal_tx_fee");
    // The dev chain quotes cpu-tiny's median attempt at 0.01 UNIT a second, two verdicts.
    assert!(planck(q, "evaluation_fee") > 0, "{q}");
    assert_eq!(planck(q, "held"), held);
    assert_eq!(planck(q, "spent"), spent);
    assert!(
        planck(q, "needed") > held + spent,
        "the existential deposit stays: {q}"
    );
    assert!(
        planck(q, "commit_tx_fee") > 0 && planck(q, "reveal_tx_fee") > planck(q, "commit_tx_fee"),
        "the reveal carries the bundle: {q}"
    );
    // With --json the error is the last line: `{"error", "exit_code"}`.
    assert_eq!(
        lines.len(),
        2,
        "the quote, then the error: {lines:?}\n{err}"
    );
    let error = lines[1]["error"].as_str().unwrap_or_default();
    assert!(error.contains("--yes"), "{lines:?}");
    let free_before = planck(q, "free");

    eprintln!("an account without funds, with --yes: refused before anything is sent");
    let (code, lines, err) = run_args(args("//NoFunds", &["--yes"]));
    assert_eq!(code, 4, "{lines:?}\n{err}");
    assert_eq!(lines[0]["event"], "quote", "{lines:?}");
    assert_eq!(lines[0]["affordable"], false);
    assert_eq!(planck(&lines[0], "free"), 0);
    assert_eq!(
        lines.len(),
        2,
        "the quote, then the error: {lines:?}\n{err}"
    );
    let error = lines[1]["error"].as_str().unwrap_or_default();
    assert!(error.contains("nothing was sent"), "{lines:?}");

    eprintln!("Charlie with --yes: the same free balance (nothing was held), a fresh commitment");
    let a = args("//Charlie", &["--yes"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let events = run_until_killed(&a, "committed");
    let names: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(
        names,
        ["quote", "committed"],
        "a fresh commit, no resume: {events:?}"
    );
    assert_eq!(
        planck(&events[0], "free"),
        free_before,
        "the first run held nothing"
    );
}
