//! Validators against a real dev node, with real processes only: two validators (Alice and
//! Bob, registered for `cpu-tiny` in the development genesis) qualify a miner's clear win
//! to a crown; the same on the split arena `cpu-tp2`, whose lanes are groups of rank
//! processes; a validator killed mid-attempt never attests that lease, and the proposal
//! still completes after the lease expires. Needs `cacheon` and `cacheon-node` built
//! (scripts/test.sh builds them first).

use std::time::{Duration, Instant};

use cacheon_e2e::{diagnostics, free_port, propose, propose_in, repo_root, watch, Node, Validator};

/// Watches proposal `id` until it is crowned (600 s at most), with the validators' logs
/// where it is not.
fn watch_to_crown(node: &Node, id: u64, validators: [&Validator; 2]) -> cacheon_e2e::Watched {
    eprintln!("waiting for: proposal {id} to be leased, qualified by both validators, and crowned (600 s budget)");
    let w = watch(&node.url, id, 600);
    assert_eq!(
        w.code,
        0,
        "not crowned; events {:#?}\n{}",
        w.events,
        diagnostics(node, &validators)
    );
    assert!(w.names().contains(&"crowned"), "{:?}", w.names());
    w
}

#[test]
fn two_validators_crown_a_clear_win() {
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);
    cacheon_e2e::only_validators(&node.url, "cpu-tiny", &["//Alice", "//Bob"]);
    let metrics_port = free_port();
    let alice = Validator::start(
        "alice",
        "//Alice",
        &node.url,
        dir.path(),
        Some(metrics_port),
    );
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose(&node.url, &dir.path().join("miner"), &bundle, "//Charlie");
    let w = watch_to_crown(&node, id, [&alice, &bob]);
    // Alice publishes her endpoint: while she held a lease of it (primary or reproduction),
    // `cacheon watch` showed her attempt as it went, from her `/attempt`.
    let alice_ss58 = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
    let progress: Vec<_> = w
        .events
        .iter()
        .filter(|e| e["event"] == "attempt_progress")
        .collect();
    assert!(
        progress.iter().any(|e| e["validator"] == alice_ss58
            && e["stage"].is_string()
            && e["elapsed_s"].is_u64()),
        "{progress:#?}"
    );
    let names = w.names();
    let passes = names.iter().filter(|n| **n == "pass_recorded").count();
    assert!(passes >= 1, "a primary PASS before the crown: {names:?}");
    // Both validators attested a PASS for this proposal (one primary, one reproduction);
    // the last one marks its row a moment after the crown is finalized.
    for v in [&alice, &bob] {
        let start = Instant::now();
        loop {
            let rows = v.attempts();
            if rows
                .iter()
                .any(|(p, s, o)| *p == id as i64 && s == "attested" && o.as_deref() == Some("pass"))
            {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{}: {rows:?}",
                v.name
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // Alice's endpoint publishes the report of her attested attempt: `cacheon evidence
    // --from` fetches it, checks its SHA-256 against the digest and keeps it; a digest she
    // never published is not served.
    let conn = rusqlite::Connection::open(alice.data.join("validator.sqlite")).unwrap();
    let digest: String = conn
        .query_row(
            "SELECT evidence FROM attempts WHERE proposal = ?1 AND state = 'attested'",
            [id as i64],
            |r| r.get(0),
        )
        .unwrap();
    let from = format!("http://127.0.0.1:{metrics_port}");
    let fetched = dir.path().join("fetched");
    let (code, lines, err) = cacheon_e2e::run_lines(&[
        "evidence",
        &digest,
        "--from",
        &from,
        "--evidence-dir",
        fetched.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{lines:?}\n{err}");
    assert_eq!(lines[0]["verdict"], "pass", "{lines:?}");
    assert_eq!(lines[0]["arena"], "cpu-tiny");
    assert!(
        fetched.join(format!("{digest}.json")).exists(),
        "kept locally"
    );
    let (code, _, _) = cacheon_e2e::run_lines(&["evidence", &"ab".repeat(32), "--from", &from]);
    assert_eq!(code, 2, "an unpublished digest is not served");

    let body = std::net::TcpStream::connect(("127.0.0.1", metrics_port))
        .and_then(|mut s| {
            use std::io::{Read, Write};
            s.write_all(b"GET /metrics HTTP/1.0\r\n\r\n")?;
            let mut b = String::new();
            s.read_to_string(&mut b)?;
            Ok(b)
        })
        .expect("metrics endpoint answers");
    assert!(
        body.contains("cacheon_validator_last_finalized_block"),
        "{body}"
    );
    assert!(
        body.contains("cacheon_validator_attempts_total{verdict=\"pass\"}"),
        "{body}"
    );
    // Between attempts there is nothing running.
    let body = std::net::TcpStream::connect(("127.0.0.1", metrics_port))
        .and_then(|mut s| {
            use std::io::{Read, Write};
            s.write_all(b"GET /attempt HTTP/1.0\r\n\r\n")?;
            let mut b = String::new();
            s.read_to_string(&mut b)?;
            Ok(b)
        })
        .expect("the attempt endpoint answers");
    assert!(body.ends_with(r#"{"attempt":null}"#), "{body}");
}

#[test]
fn two_validators_crown_an_experts_kernel_on_the_split_arena() {
    // cpu-tp2: tiny-moe over two rank processes a lane. The experts kernel (1.28 measured
    // offline) is measured by each validator in lanes of ranks, reproduced, and crowned.
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);
    cacheon_e2e::only_validators(&node.url, "cpu-tp2", &["//Alice", "//Bob"]);
    let alice = Validator::start_in("cpu-tp2", "alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start_in("cpu-tp2", "bob", "//Bob", &node.url, dir.path(), None);
    let bundle = repo_root().join("examples/cpu/moe-experts-avx2");
    let id = propose_in(
        "cpu-tp2",
        &node.url,
        &dir.path().join("miner"),
        &bundle,
        "//Charlie",
    );
    watch_to_crown(&node, id, [&alice, &bob]);
    // The crown is cpu-tp2's incumbent for the experts.
    let (code, lines, err) = cacheon_e2e::run_lines(&["arena", "cpu-tp2", "--url", &node.url]);
    assert_eq!(code, 0, "{lines:?}\n{err}");
    let incumbents = lines[0]["incumbents"].to_string();
    assert!(
        incumbents.contains("moe.fused_experts") && incumbents.contains(&id.to_string()),
        "{incumbents}"
    );
}

#[test]
fn a_validator_killed_mid_attempt_never_attests_that_lease() {
    let dir = cacheon_e2e::TestDir::new();
    // 300 ms blocks: the 300-block lease runs out in about 90 s, long enough for one whole
    // attempt on a loaded two-core CI machine (with 100 ms blocks, 30 s, CI saw three leases
    // expire), short enough to keep the test near three minutes.
    let node = Node::dev(dir.path(), 300);
    let mut alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose(&node.url, &dir.path().join("miner"), &bundle, "//Charlie");
    eprintln!("waiting for: Alice to lease proposal {id}, then killing her mid-attempt");
    let start = Instant::now();
    while !alice.log_text().contains("leased") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "Alice never leased\n{}",
            diagnostics(&node, &[&alice])
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    alice.kill();
    let rows = alice.attempts();
    assert!(
        rows.iter()
            .any(|(p, s, _)| *p == id as i64 && s == "leased"),
        "{rows:?}"
    );
    // Nobody holds the lease any more: seal the blocks up to its end on demand rather than
    // wait out the rest of its 90 s.
    let expires_at = lease_end(&node.url, id);
    node.seal_until(expires_at);
    // The lease expired (before anything below follows the chain): Alice's stall is counted
    // and the proposal is back in the queue.
    let (status, attempts) = status_and_attempts(&node.url, id);
    assert!(
        matches!(status, cacheon_e2e::Status::Queued) && attempts == 1,
        "the interrupted lease expired into the queue as one stall: {status:?}, {attempts} attempts"
    );

    // Alice's expired lease counts as her stall: while another registered operator may take
    // the proposal she sits it out, so Bob and Dave (the dev chain's third validator) finish
    // it; Alice, restarted, only abandons her interrupted attempt.
    eprintln!("waiting for: Alice restarted, Bob and Dave to finish the proposal (600 s budget)");
    let alice2 = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let dave = Validator::start("dave", "//Dave", &node.url, dir.path(), None);
    let w = watch(&node.url, id, 600);
    assert_eq!(
        w.code,
        0,
        "not crowned; events {:#?}\n{}",
        w.events,
        diagnostics(&node, &[&alice2, &bob, &dave])
    );
    // The interrupted attempt was abandoned on restart, never attested.
    let rows = alice2.attempts();
    let first = rows
        .iter()
        .find(|(p, _, _)| *p == id as i64)
        .expect("Alice's first lease is indexed");
    assert_eq!(first.1, "abandoned", "{rows:?}");
    assert!(
        alice2.log_text().contains("interrupted"),
        "{}",
        alice2.log_text()
    );
}

/// Proposal `id`'s status and attempt count at the finalized head.
fn status_and_attempts(url: &str, id: u64) -> (cacheon_e2e::Status, u32) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = cacheon::chain::connect(url, Duration::from_secs(30))
            .await
            .expect("connect");
        let at = client.at_current_block().await.expect("read");
        let p = cacheon::chain::reads::proposal_at(&at, id)
            .await
            .expect("read")
            .expect("the proposal exists");
        (p.status, p.attempts)
    })
}

/// The block at which the lease on proposal `id` ends (it must be leased).
fn lease_end(url: &str, id: u64) -> u64 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = cacheon::chain::connect(url, Duration::from_secs(30))
            .await
            .expect("connect");
        match cacheon_e2e::proposal_status(&client, id)
            .await
            .expect("read")
        {
            Some(cacheon_e2e::Status::Primary { lease })
            | Some(cacheon_e2e::Status::Reproduction { lease, .. }) => lease.expires_at as u64,
            other => panic!("proposal {id} is not leased: {other:?}"),
        }
    })
}
