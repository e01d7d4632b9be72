//! A node restart in the middle of a proposal loses nothing, with real processes only: the
//! dev node keeps its chain in a folder (not `--tmp`); it is killed while Alice is in the
//! middle of the proposal's primary attempt and started again on the same folder and ports.
//! The chain continues from where it was, the proposal is still there, the validators
//! reconnect and carry on from their persisted state: the attempt that ran across the
//! restart is attested after it by the lease holder, no lease expires, and the proposal is
//! crowned. Prints what it waits for; fails with every Cacheon event it saw.

use std::time::Duration;

use cacheon_e2e::{
    diagnostics, proposal_of, propose, repo_root, run_lines, CacheonEvent, Chain, Node, TestDir,
    Validator,
};

#[test]
fn a_node_restart_mid_proposal_loses_nothing() {
    let dir = TestDir::new();
    let mut node = Node::dev(dir.path(), 500);
    cacheon_e2e::only_validators(&node.url, "cpu-tiny", &["//Alice", "//Bob"]);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let mut chain = Chain::new(&node.url);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose(&node.url, &dir.path().join("charlie"), &bundle, "//Charlie");

    let leased = chain.wait_for(
        &format!("proposal {id}'s primary lease (an attempt is running)"),
        Duration::from_secs(120),
        |e| matches!(e.event, CacheonEvent::Leased { proposal, .. } if proposal == id),
        || diagnostics(&node, &[&alice, &bob]),
    );
    let CacheonEvent::Leased {
        validator: leaseholder,
        ..
    } = chain.seen[leased].event
    else {
        unreachable!()
    };
    let head = chain.poll().expect("the node answers before the restart");
    node.stop();
    eprintln!("the node is down at finalized block #{head}; starting it again in 5 s");
    std::thread::sleep(Duration::from_secs(5));
    node.restart();

    // The same chain: it goes on from where it stopped, and the proposal is still there.
    chain.wait_head_above(head, Duration::from_secs(60), || {
        diagnostics(&node, &[&alice, &bob])
    });
    let (code, lines, err) = run_lines(&["status", &id.to_string(), "--url", &node.url]);
    assert_eq!(code, 0, "proposal {id} after the restart: {lines:?} {err}");
    let status = lines[0]["status"].as_str().unwrap_or_default().to_string();
    assert!(
        ["primary", "reproduction_queued", "reproduction", "crowned"].contains(&status.as_str()),
        "proposal {id} after the restart: {lines:?}"
    );
    eprintln!("after the restart proposal {id} is {status}");

    chain.wait_crowned(id, Duration::from_secs(300), || {
        diagnostics(&node, &[&alice, &bob])
    });
    // The attempt that was running across the restart was attested after it, by the
    // validator that held the lease, and no lease of this proposal ever expired.
    let ctx = diagnostics(&node, &[&alice, &bob]);
    let first_verdict = chain.seen.iter().find(|e| {
        proposal_of(&e.event) == Some(id)
            && matches!(
                e.event,
                CacheonEvent::PassRecorded { .. }
                    | CacheonEvent::PassSealed { .. }
                    | CacheonEvent::NoDecisionRecorded { .. }
                    | CacheonEvent::Failed { .. }
            )
    });
    let attested_after = first_verdict.is_some_and(|e| {
        e.block > head
            && matches!(
                e.event,
                CacheonEvent::PassRecorded { validator, .. }
                    | CacheonEvent::PassSealed { validator, .. }
                    | CacheonEvent::NoDecisionRecorded { validator, .. } if validator == leaseholder
            )
    });
    if !attested_after {
        let msg = format!("{leaseholder}'s lease from before #{head} was not attested after it");
        chain.fail(&msg, &ctx);
    }
    if chain
        .seen
        .iter()
        .any(|e| matches!(e.event, CacheonEvent::LeaseExpired { proposal, .. } if proposal == id))
    {
        chain.fail(&format!("a lease of proposal {id} expired"), &ctx);
    }
    for v in [&alice, &bob] {
        assert!(
            v.log_text().contains("reconnecting"),
            "{} did not see the node go away:\n{}",
            v.name,
            v.log_text()
        );
    }
}
