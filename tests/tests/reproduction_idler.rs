//! An operator that leases a passed proposal's reproduction and idles cannot run out the
//! proposal's wait for a reproduction, end to end on `cpu-smollm2`, whose lease (600 blocks)
//! is as long as the wait (`ReproductionTimeout`, 600 blocks): before the rule, the wait's
//! deadline fell inside the idler's lease and the passed proposal timed out after one stall.
//! The test itself is the operators, through a real subxt client on the real node, measuring
//! nothing: Alice PASSes the primary of Charlie's proposal (sealed), Bob leases the reproduction and
//! lets the lease run out (600 blocks of 100 ms), the proposal goes back to waiting with the
//! time it had left (not `ReproductionTimedOut`), Bob may not lease it again, and Dave
//! reproduces it and Alice opens her seal: a crown. Needs `cacheon` and `cacheon-node` built.

use std::time::{Duration, Instant};

use cacheon::chain::{self, api, ChainError};
use cacheon_e2e::{
    lease_and_attest, proposal_status, propose_in, repo_root, reveal, CacheonEvent, Chain, Node,
    Status, TestDir,
};

type Verdict = api::runtime_types::cacheon_primitives::verdict::Verdict;

#[test]
fn a_reproduction_lease_idler_cannot_expire_a_passed_proposal() {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 100);
    let mut chain = Chain::new(&node.url);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose_in(
        "cpu-smollm2",
        &node.url,
        &dir.path().join("charlie"),
        &bundle,
        "//Charlie",
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = rt
        .block_on(chain::connect(&node.url, Duration::from_secs(30)))
        .expect("connect");
    let key = |suri: &str| chain::signer(Some(suri), None).unwrap();
    let status = || rt.block_on(proposal_status(&client, id)).unwrap().unwrap();
    let pass = || Verdict::Pass {
        speedup_ppm: 1_100_000,
    };

    eprintln!("waiting for: Alice's primary PASS of proposal {id}");
    let alices = rt
        .block_on(lease_and_attest(&client, &key("//Alice"), id, pass(), 0x11))
        .expect("Alice passes the primary")
        .expect("a primary PASS in a two-operator arena goes on chain sealed");
    let Status::ReproductionQueued { until, .. } = status() else {
        panic!("waits for its reproduction: {:?}", status());
    };

    // Bob's reproduction lease is a crowning lease: it starts once the proposal's content
    // priority is final.
    eprintln!("waiting for: Bob's reproduction lease");
    let bob = key("//Bob");
    let start = Instant::now();
    loop {
        let claim = api::transactions().cacheon().claim(id);
        match rt.block_on(chain::submit(
            &client,
            &claim,
            &bob,
            Duration::from_secs(30),
        )) {
            Ok(_) => break,
            Err(ChainError::Refused(e))
                if e.contains("PriorityNotFinal") && start.elapsed() < Duration::from_secs(60) =>
            {
                std::thread::sleep(Duration::from_millis(300))
            }
            Err(e) => panic!("Bob's reproduction lease: {e}"),
        }
    }
    let Status::Reproduction { lease, .. } = status() else {
        panic!("Bob holds the reproduction: {:?}", status());
    };
    assert!(
        lease.expires_at > until,
        "the lease (to #{}) outlasts the wait it found (to #{until}): the old rule's trap",
        lease.expires_at
    );

    // Bob idles. (The blocks are waited for, not sealed on demand: the event follower reads
    // every block, and 600 blocks sealed at once left it behind a 100 ms chain.)
    let expired = chain.wait_for(
        "Bob's idle lease to run out (600 blocks of 100 ms)",
        Duration::from_secs(180),
        |e| matches!(e.event, CacheonEvent::LeaseExpired { proposal, .. } if proposal == id),
        String::new,
    );
    let Status::ReproductionQueued { until: after, .. } = status() else {
        chain.fail(
            &format!("proposal {id} did not go back to its wait: {:?}", status()),
            "",
        );
    };
    let expired_at = chain.seen[expired].block as u32;
    assert!(
        after > expired_at,
        "the wait goes on after the lease (to #{after}, the lease ended at #{expired_at})"
    );
    let stored = rt
        .block_on(chain::reads::proposal_at(
            &rt.block_on(client.at_current_block()).unwrap(),
            id,
        ))
        .unwrap()
        .unwrap();
    assert_eq!(stored.attempts, 1, "one stall counted");

    let again = rt.block_on(chain::submit(
        &client,
        &api::transactions().cacheon().claim(id),
        &bob,
        Duration::from_secs(30),
    ));
    assert!(
        matches!(&again, Err(ChainError::Refused(e)) if e.contains("OperatorExcluded")),
        "the idler leases it again: {again:?}"
    );
    eprintln!("waiting for: Dave's reproduction PASS");
    rt.block_on(lease_and_attest(&client, &key("//Dave"), id, pass(), 0x33))
        .expect("Dave reproduces");
    let Status::AwaitingReveal { .. } = status() else {
        panic!("waits for Alice to open her seal: {:?}", status());
    };
    rt.block_on(reveal(&client, &key("//Alice"), &alices))
        .expect("Alice reveals her PASS");
    chain.wait_crowned(id, Duration::from_secs(30), String::new);
    let timed_out = chain
        .seen
        .iter()
        .any(|e| matches!(e.event, CacheonEvent::ReproductionTimedOut { .. }));
    assert!(!timed_out, "{}", chain.events_text());
}
