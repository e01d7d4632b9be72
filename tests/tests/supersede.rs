//! A crown superseded by a faster one, end to end with the real node and two validators:
//! Charlie's bundle for `attention.decode` is the incumbent and an epoch's weights give him
//! everything; Eve's GQA kernel for the same target, measured by both validators against the
//! stack that holds Charlie's crown, is crowned too. Charlie's crown is retired in the same
//! block as superseded (its claim ends, the incumbent entry names Eve's proposal) and the
//! next epoch's weights go to Eve. Prints what it waits for; fails with every Cacheon event
//! it saw.
//!
//! Charlie's crown is a fixture incumbent (`tests/fixtures/attention-decode-twice`: the
//! stock attention's work done twice), passed by the test itself as Alice and Bob before
//! their validators start, so that the one measured step, Eve's, wins by far more than the
//! 2 % margin on a loaded 2-core machine (docs/e2e.md gives the figures).

use std::time::Duration;

use cacheon_e2e::{
    diagnostics, fixture_incumbent, propose, repo_root, run_lines, CacheonEvent, FixtureIncumbent,
    RetireCause,
};

#[test]
fn a_faster_crown_supersedes_the_old_one_and_the_weights_move() {
    // Bound in this order, dropped in the reverse: the processes before their folder.
    let FixtureIncumbent {
        dir,
        node,
        mut chain,
        alice,
        bob,
        proposal: old,
        crowned: old_crown,
    } = fixture_incumbent();
    let examples = repo_root().join("examples/cpu");
    let ctx = || diagnostics(&node, &[&alice, &bob]);
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
        &examples.join("attention-gqa-avx2"),
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
    if claims.len() != 1 || claims[0].0 != new || claims[0].2 != "attention.decode" {
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
        serde_json::json!([{"target": "attention.decode", "proposal": new}]),
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
