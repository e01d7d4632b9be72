//! A crown superseded by a faster one, end to end with the real node and two validators:
//! Charlie's plain-C bundle for the atomic target `attention.rope_decode.v1` (RoPE table,
//! one-pass attention) is crowned; Eve's AVX2 bundle for the same target (RoPE table, GQA
//! attention), measured by both validators against the stack that now holds Charlie's
//! crown, is crowned too. Charlie's crown is retired in the same block as superseded (its
//! claim ends, the incumbent entry names Eve's proposal) and the next epoch's weights go to
//! Eve. Prints what it waits for; fails with every Cacheon event it saw.
//!
//! Why the atomic target: the speed gain is what the validators measure, and a crown and its
//! successor must each clear the 2 % margin by a safe distance on a noisy 2-core machine.
//! `attention.decode` alone is about 13 % of the workload with the stock kernel and 1.5 % with
//! the fastest one here, so two steps within it are about 6 % each; RoPE adds about 2 %, and
//! the atomic steps here are 7-9 % each (examples/README.md).

use std::time::Duration;

use cacheon_e2e::{
    diagnostics, propose, repo_root, run_lines, CacheonEvent, Chain, Node, RetireCause, TestDir,
    Validator,
};

#[test]
fn a_faster_crown_supersedes_the_old_one_and_the_weights_move() {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 500);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let ctx = || diagnostics(&node, &[&alice, &bob]);
    let mut chain = Chain::new(&node.url);
    let examples = repo_root().join("examples/cpu");

    let old = propose(
        &node.url,
        &dir.path().join("charlie"),
        &examples.join("rope-decode-c"),
        "//Charlie",
    );
    let old_crown = chain.wait_crowned(old, Duration::from_secs(300), ctx);
    let CacheonEvent::Crowned { miner: charlie, .. } = &chain.seen[old_crown].event else {
        unreachable!()
    };
    let charlie = *charlie;
    let charlie_weights = chain.wait_for_from(
        old_crown,
        "an epoch's weights with Charlie's crown: all of them to Charlie",
        Duration::from_secs(60),
        |e| matches!(&e.event, CacheonEvent::WeightsSet { weights, .. } if weights.0 == [(charlie, 1_000_000)]),
        ctx,
    );

    let new = propose(
        &node.url,
        &dir.path().join("eve"),
        &examples.join("rope-decode-avx2"),
        "//Eve",
    );
    let new_crown = chain.wait_crowned(new, Duration::from_secs(300), ctx);
    let (crown_block, eve) = match &chain.seen[new_crown].event {
        CacheonEvent::Crowned {
            miner, generation, ..
        } => {
            assert_eq!(*generation, 2, "the second crown of the arena");
            (chain.seen[new_crown].block, *miner)
        }
        _ => unreachable!(),
    };
    assert_ne!(eve, charlie);

    // Retired in the crown's own block, superseded by the new crown.
    let retired = chain
        .seen
        .iter()
        .position(|e| matches!(e.event, CacheonEvent::Retired { proposal, .. } if proposal == old));
    let ok = retired.is_some_and(|i| {
        chain.seen[i].block == crown_block
            && matches!(chain.seen[i].event, CacheonEvent::Retired { cause: RetireCause::Superseded { by }, .. } if by == new)
    });
    if !ok {
        let msg =
            format!("want proposal {old} retired, superseded by {new}, in block #{crown_block}");
        chain.fail(&msg, &ctx());
    }
    // The claims and the stack as a client sees them: only Eve's crown is left.
    let claims = chain.claims();
    if claims.len() != 1 || claims[0].0 != new || claims[0].2 != "attention.rope_decode.v1" {
        chain.fail(
            &format!("claims after the supersession: {claims:?}"),
            &ctx(),
        );
    }
    let (code, lines, err) = run_lines(&["status", &old.to_string(), "--url", &node.url]);
    assert_eq!(code, 0, "{lines:?} {err}");
    assert_eq!(lines[0]["status"], "retired", "{lines:?}");
    let (code, lines, err) = run_lines(&["status", "--url", &node.url]);
    assert_eq!(code, 0, "{lines:?} {err}");
    let cpu = lines[0]["arenas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arena"] == "cpu-tiny")
        .unwrap();
    assert_eq!(cpu["generation"], 2, "{cpu}");
    assert_eq!(
        cpu["incumbents"],
        serde_json::json!([{"target": "attention.rope_decode.v1", "proposal": new}]),
        "{cpu}"
    );

    // The weights move: the first epoch after the crown gives everything to Eve.
    let w = chain.wait_for_from(
        new_crown,
        "the next epoch's weights",
        Duration::from_secs(60),
        |e| matches!(e.event, CacheonEvent::WeightsSet { .. }),
        ctx,
    );
    let CacheonEvent::WeightsSet { weights, .. } = &chain.seen[w].event else {
        unreachable!()
    };
    if weights.0 != [(eve, 1_000_000)] {
        let msg = format!("the weights after the supersession: {}", chain.seen[w].text);
        chain.fail(&msg, &ctx());
    }
    eprintln!(
        "weights moved from Charlie (block #{}) to Eve (block #{})",
        chain.seen[charlie_weights].block, chain.seen[w].block
    );
}
