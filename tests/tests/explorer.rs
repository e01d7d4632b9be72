//! `cacheon explorer` against a real dev chain, looked at in a real headless browser
//! (Debian's Chromium, which scripts/test.sh installs): two validators crown one proposal
//! and fail another; every page renders with the chain's data, every link on the pages
//! answers, the JSON twins parse, the proposal page's speed plot has its points, and a
//! screenshot of that page is written as a test artifact (`target/test-artifacts/
//! explorer-proposal.png` in the repository, or under `$CACHEON_ARTIFACTS`). Needs
//! `cacheon` and `cacheon-node` built (scripts/test.sh builds them first).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cacheon_e2e::{
    diagnostics, free_port, get, get_json, propose, repo_root, watch, Explorer, Node, Validator,
};

/// The browser: `$CHROMIUM`, else Debian's `/usr/bin/chromium`.
fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.exists(),
        "no Chromium at {} (scripts/test.sh installs Debian's chromium; or set CHROMIUM)",
        path.display()
    );
    path
}

/// Chromium headless on `url` with `args` (`--dump-dom`, `--screenshot=…`): its stdout.
fn browse(profile: &Path, url: &str, args: &[&str]) -> String {
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every `href="…"` of a page.
fn links(dom: &str) -> Vec<String> {
    dom.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| s.replace("&amp;", "&"))
        .collect()
}

#[test]
fn the_explorer_shows_the_market_in_a_headless_browser() {
    chromium();
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);
    cacheon_e2e::only_validators(&node.url, "cpu-tiny", &["//Alice", "//Bob"]);
    let ports = [free_port(), free_port()];
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), Some(ports[0]));
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), Some(ports[1]));
    let examples = repo_root().join("examples/cpu");
    let win = propose(
        &node.url,
        &dir.path().join("charlie"),
        &examples.join("matmul-avx2"),
        "//Charlie",
    );
    let bad = propose(
        &node.url,
        &dir.path().join("dave"),
        &examples.join("fail-wrong-math"),
        "//Dave",
    );
    let context = || diagnostics(&node, &[&alice, &bob]);
    eprintln!("waiting for: proposal {win} crowned, proposal {bad} failed (900 s budget)");
    let w = watch(&node.url, win, 600);
    assert_eq!(w.code, 0, "not crowned: {:#?}\n{}", w.events, context());
    let w = watch(&node.url, bad, 300);
    assert_eq!(w.code, 1, "not failed: {:#?}\n{}", w.events, context());

    let explorer = Explorer::start(&node.url, dir.path());
    let base = explorer.base.clone();
    // The index reaches the crown's epoch: Charlie holds weight in some epoch.
    eprintln!("waiting for: the explorer's weights to show Charlie (120 s budget)");
    let charlie =
        cacheon::chain::AccountId::from(subxt_signer::sr25519::dev::charlie().public_key())
            .to_string();
    let start = Instant::now();
    loop {
        let w = get_json(&format!("{base}/weights.json"));
        let held = w["epochs"].as_array().into_iter().flatten().any(|e| {
            e["weights"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p[0] == charlie.as_str())
        });
        if held {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no epoch with Charlie: {w:#}\n{}",
            context()
        );
        std::thread::sleep(Duration::from_secs(1));
    }

    let profile = dir.path().join("chromium");
    let pages: Vec<(String, Vec<&str>)> = vec![
        (
            "/".into(),
            vec!["cpu-tiny", "h200-llama8b", "crowned", "Charlie"],
        ),
        (
            "/arena/cpu-tiny".into(),
            vec![
                "Incumbent stack",
                "linear.matmul",
                "Charlie",
                "workload_digest",
                "mlp.gate_up_silu",
            ],
        ),
        (
            format!("/proposal/{win}"),
            vec!["crowned", "crowning pass", "SHA-256 checked", "speedup"],
        ),
        (
            format!("/proposal/{bad}"),
            vec!["failed", "Incorrect", "final fail"],
        ),
        (
            format!("/account/{charlie}"),
            vec![
                "As a miner",
                "crowned",
                "evaluation fees held",
                "As a validator",
            ],
        ),
        (
            "/weights".into(),
            vec![
                "Shares over epochs",
                "Charlie",
                "Evaluation fees earned",
                "Alice (",
                "Bob (",
            ],
        ),
    ];
    let mut seen_links = std::collections::BTreeSet::new();
    for (path, wants) in &pages {
        let dom = browse(&profile, &format!("{base}{path}"), &["--dump-dom"]);
        for want in wants {
            assert!(dom.contains(want), "{path} lacks {want:?}:\n{dom}");
        }
        assert!(!dom.contains("<script"), "{path}: no JavaScript");
        seen_links.extend(links(&dom));
        if *path == format!("/proposal/{win}") {
            // The speed plot: both lanes' reads and their ratios, the interval, the margin.
            let plot = dom
                .split("<svg class=\"reads\"")
                .nth(1)
                .expect("a reads plot");
            let plot = plot.split("</svg>").next().unwrap();
            let pairs = plot.matches("class=\"b\"").count();
            assert!(pairs >= 2, "{pairs} pairs plotted");
            assert_eq!(plot.matches("class=\"c\"").count(), pairs);
            assert_eq!(plot.matches("class=\"r\"").count(), pairs);
            assert!(plot.contains("class=\"interval\"") && plot.contains("class=\"margin\""));
        }
        if path == "/weights" {
            assert!(
                dom.contains("<svg class=\"shares\"") && dom.contains("<polyline"),
                "{dom}"
            );
        }
    }
    // Every link answers: the explorer's own pages and twins, and the validators' evidence.
    assert!(seen_links.len() > 8, "{seen_links:?}");
    for link in &seen_links {
        let url = if link.starts_with('/') {
            format!("{base}{link}")
        } else {
            link.clone()
        };
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "a link off this machine: {url}"
        );
        let (code, body) = get(&url);
        assert_eq!(code, 200, "{url}: {body}");
    }
    assert!(
        seen_links.iter().any(|l| l.contains("/evidence/")),
        "the verdicts link their reports: {seen_links:?}"
    );

    // The JSON twins carry what the pages show.
    let p = get_json(&format!("{base}/proposal/{win}.json"));
    assert_eq!(p["status"], "crowned");
    let reads = p["verdicts"][0]["report"]["baseline_ms"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(reads >= 2, "{p:#}");
    let a = get_json(&format!("{base}/arena/cpu-tiny.json"));
    assert_eq!(a["incumbents"][0]["proposal"], win, "{a:#}");
    assert_eq!(a["incumbents"][0]["miner"], charlie.as_str());
    let o = get_json(&format!("{base}/index.json"));
    assert!(
        o["arenas"]
            .as_array()
            .is_some_and(|a| a.len() == cacheon_primitives::catalog::ARENAS.len()),
        "{o:#}"
    );
    assert_eq!(get(&format!("{base}/proposal/999999")).0, 404);
    assert_eq!(get(&format!("{base}/arena/nowhere.json")).0, 404);

    // The proposal page as a person sees it.
    let artifacts = std::env::var_os("CACHEON_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/test-artifacts"));
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("explorer-proposal.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        &profile,
        &format!("{base}/proposal/{win}"),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1800",
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}
