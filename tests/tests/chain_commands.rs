//! The miner's chain commands against a real dev node: commit, reveal (waiting out the
//! reveal delay), status, a copy refused, withdraw, and watch following the proposal to its
//! end. Needs `cacheon` and `cacheon-node` built (scripts/test.sh builds them first).

use cacheon_e2e::{repo_root, run_lines as run, Node};
use serde_json::Value;

#[test]
fn commit_reveal_status_copy_withdraw_and_watch() {
    let logs = cacheon_e2e::TestDir::new();
    let node = Node::dev(logs.path(), 250);
    let url = node.url.as_str();
    let state = logs.path().join("state");
    let state = state.to_str().unwrap();
    let bundle = repo_root().join("examples/cpu/silu-avx2");
    let bundle = bundle.to_str().unwrap();
    let chain = ["--url", url, "--timeout", "60"];
    let ctx = |what: &str, lines: &[Value], err: &str| {
        format!("{what}: {lines:?}\nstderr: {err}\n{}", node.log_tail())
    };

    eprintln!("waiting for: Charlie's commit to be finalized");
    let mut args = vec![
        "commit",
        bundle,
        "--suri",
        "//Charlie",
        "--state-dir",
        state,
    ];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("commit", &lines, &err));
    let committed = &lines[0];
    assert_eq!(committed["event"], "committed");
    assert_eq!(committed["target"], "activation.silu_and_mul");
    assert!(
        std::path::Path::new(committed["record"].as_str().unwrap()).exists(),
        "salt kept on disk"
    );

    eprintln!("waiting for: the reveal delay, then the reveal to be finalized");
    let mut args = vec![
        "reveal",
        bundle,
        "--suri",
        "//Charlie",
        "--state-dir",
        state,
    ];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("reveal", &lines, &err));
    let proposal = lines[0]["proposal"].as_u64().expect("a proposal id");
    assert_eq!(lines[0]["content_hash"], committed["content_hash"]);
    let id = proposal.to_string();

    let mut args = vec!["status", id.as_str()];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("status", &lines, &err));
    assert_eq!(lines[0]["status"], "queued");
    assert_eq!(lines[0]["arena"], "cpu-tiny");

    eprintln!("waiting for: Dave's commit and reveal of the same bytes, to be refused as a copy");
    let mut args = vec!["commit", bundle, "--suri", "//Dave", "--state-dir", state];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("Dave's commit", &lines, &err));
    let mut args = vec!["reveal", bundle, "--suri", "//Dave", "--state-dir", state];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 4, "{}", ctx("Dave's reveal", &lines, &err));
    assert!(
        lines[0]["error"]
            .as_str()
            .unwrap()
            .contains("CopyOfOtherMiner"),
        "{lines:?}"
    );

    eprintln!("waiting for: the withdrawal, then watch to see the proposal end");
    let mut args = vec!["withdraw", id.as_str(), "--suri", "//Charlie"];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("withdraw", &lines, &err));
    let mut args = vec!["watch", id.as_str(), "--for-secs", "60"];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(
        code,
        1,
        "withdrawn is an end without a crown: {}",
        ctx("watch", &lines, &err)
    );
    assert_eq!(lines.last().unwrap()["event"], "end");
    assert_eq!(lines.last().unwrap()["status"], "withdrawn");

    let mut args = vec!["status"];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("status", &lines, &err));
    let arenas: Vec<&str> = lines[0]["arenas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["arena"].as_str().unwrap())
        .collect();
    assert!(
        arenas.contains(&"cpu-tiny") && arenas.contains(&"h200-llama8b"),
        "{arenas:?}"
    );

    // The arena contract, from chain, and this build's agreement with it.
    let mut args = vec!["arena", "cpu-smollm2"];
    args.extend(chain);
    let (code, lines, err) = run(&args);
    assert_eq!(code, 0, "{}", ctx("arena", &lines, &err));
    let a = &lines[0];
    assert_eq!(a["arena"], "cpu-smollm2");
    assert_eq!(a["contract"]["min_margin_ppm"], 50_000);
    assert_eq!(a["contract"]["required_distinct_validators"], 2);
    assert_eq!(a["contract"]["status"], "active");
    assert!(a["contract"]["targets"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("linear.matmul")));
    assert_eq!(a["this_build_agrees"], true, "{a}");
    assert_eq!(a["workload"]["model"], "smollm2-135m");
    let mut args = vec!["arena", "no-such-arena"];
    args.extend(chain);
    let (code, _, _) = run(&args);
    assert_eq!(code, 2, "an unknown arena is a usage error");

    // The demo on the GPU arena refuses, before it starts anything, where no GPU opens
    // (CI has none); an unknown arena is a usage error.
    if !std::path::Path::new("/dev/nvidia0").exists() {
        let (code, lines, _) = run(&["demo", "--arena", "h200-llama8b", "--bundle", bundle]);
        assert_eq!(code, 2, "{lines:?}");
        assert!(
            lines[0]["error"].as_str().unwrap().contains("CUDA GPU"),
            "{lines:?}"
        );
    }
    let (code, _, _) = run(&["demo", "--arena", "no-such-arena"]);
    assert_eq!(code, 2, "an unknown arena is a usage error");

    // Without a node: exit 5, said plainly.
    let (code, lines, _) = run(&["status", "--url", "ws://127.0.0.1:9", "--timeout", "1"]);
    assert_eq!(code, 5, "{lines:?}");
}
