//! One validator that answers NoDecision to everything cannot expire a proposal that the
//! others can measure, end to end: the test itself is Alice, a registered validator, driving
//! the real node through a real subxt client — it takes the first lease of Charlie's proposal
//! and attests NoDecision, is refused a second lease in a row, and keeps grabbing every lease
//! it may take and answering NoDecision while Bob and Dave (real `cacheon validator`
//! processes) measure. Version 1's rules expired a proposal after three NoDecisions from
//! anyone; now the proposal is crowned, and Charlie's evaluation fee pays Bob's and Dave's
//! crowning PASSes and none of Alice's stalls. Then `cacheon-try-state` checks the live chain's state
//! against the runtime's invariants. Needs `cacheon`, `cacheon-node` and `cacheon-try-state`
//! built.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cacheon::chain::{self, api, ChainError, Client};
use cacheon_e2e::{
    assert_try_state, diagnostics, lease_and_attest, propose, repo_root, watch, Node, Validator,
};
use subxt_signer::sr25519::Keypair;

/// Leases `id` as `key` and, if that worked, attests NoDecision for the lease's generation.
/// Returns the chain's refusal when it refused the lease.
async fn stall_once(client: &Client, key: &Keypair, id: u64) -> Result<(), ChainError> {
    use api::runtime_types::cacheon_primitives::verdict::{NoDecisionReason, Verdict};
    let stall = Verdict::NoDecision {
        reason: NoDecisionReason::Infrastructure,
    };
    lease_and_attest(client, key, id, stall, 0xAA)
        .await
        .map(|_| ())
}

#[test]
fn one_validator_attesting_no_decision_cannot_expire_a_proposal() {
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 1000);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose(&node.url, &dir.path().join("charlie"), &bundle, "//Charlie");

    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = rt
        .block_on(chain::connect(&node.url, Duration::from_secs(30)))
        .expect("connect");
    let alice = chain::signer(Some("//Alice"), None).unwrap();

    eprintln!("waiting for: Alice's first lease and NoDecision on proposal {id}");
    rt.block_on(stall_once(&client, &alice, id))
        .expect("Alice, a registered validator, takes the first lease");
    let again = rt.block_on(stall_once(&client, &alice, id));
    assert!(
        matches!(&again, Err(ChainError::Refused(e)) if e.contains("OperatorExcluded")),
        "a second lease in a row for the same stalling operator: {again:?}"
    );

    // Alice keeps stalling whatever she may lease, while Bob and Dave measure.
    let stop = Arc::new(AtomicBool::new(false));
    let stalls = Arc::new(AtomicU32::new(1));
    let hostile = {
        let (stop, stalls, client, alice) = (stop.clone(), stalls.clone(), client.clone(), alice);
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if handle.block_on(stall_once(&client, &alice, id)).is_ok() {
                    stalls.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        })
    };
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let dave = Validator::start("dave", "//Dave", &node.url, dir.path(), None);

    eprintln!("waiting for: proposal {id} to be crowned despite Alice (300 s budget)");
    let started = Instant::now();
    let w = watch(&node.url, id, 300);
    stop.store(true, Ordering::Relaxed);
    hostile.join().unwrap();
    eprintln!(
        "Alice stalled {} time(s); crowned after {:.0} s",
        stalls.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        w.code,
        0,
        "the proposal was not crowned: {:#?}\n{}",
        w.events,
        diagnostics(&node, &[&bob, &dave])
    );
    assert!(
        !w.names().contains(&"expired"),
        "the proposal expired: {:?}",
        w.names()
    );
    // Charlie's evaluation fee paid the two PASSes that crowned the proposal, Bob's and
    // Dave's (each its own operator on the dev chain), and nothing to Alice's stalls.
    let account =
        |suri: &str| chain::account(&chain::signer(Some(suri), None).unwrap()).to_string();
    let mut paid: Vec<String> = w
        .events
        .iter()
        .filter(|e| e["event"] == "verdict_paid")
        .filter_map(|e| e["operator"].as_str().map(str::to_string))
        .collect();
    paid.sort();
    let mut crowners = vec![account("//Bob"), account("//Dave")];
    crowners.sort();
    assert_eq!(paid, crowners, "the verdicts paid: {:#?}", w.events);
    // `cacheon history` tells the same from the chain's events: Charlie's fee held and all
    // of it paid, the crown; Bob earned one verdict's worth, Alice nothing.
    let history = |who: &str| {
        let (code, lines, err) = cacheon_e2e::run_lines(&["history", who, "--url", &node.url]);
        assert_eq!(code, 0, "{lines:?}\n{err}");
        lines.last().cloned().expect("one JSON object")
    };
    let charlie = history("//Charlie");
    assert_eq!(charlie["crowns"], 1, "{charlie:#}");
    assert_eq!(charlie["proposals"][0]["status"], "crowned", "{charlie:#}");
    let held: u128 = charlie["fees"]["held"].as_str().unwrap().parse().unwrap();
    assert!(
        held > 0 && charlie["fees"]["paid"] == charlie["fees"]["held"],
        "{charlie:#}"
    );
    let bob = history(&account("//Bob"));
    assert_eq!(bob["verdicts_paid"], 1, "{bob:#}");
    assert_eq!(history("//Alice")["verdicts_paid"], 0);
    assert_try_state(&node.url);
}
