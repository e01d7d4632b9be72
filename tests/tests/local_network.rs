//! `--chain local`: four Aura + GRANDPA authorities on loopback. One node is killed:
//! the others keep producing and finalizing blocks; restarted, it catches up.

use std::time::Duration;

use cacheon_e2e::{finalized_number, Node, TestDir};

fn authority_args(key: &str, base: &std::path::Path, bootnode: Option<&str>) -> Vec<String> {
    // A fixed network key per authority, so a restarted node keeps its peer identity.
    let node_key = format!("{:064x}", key.bytes().map(u64::from).sum::<u64>());
    let mut args: Vec<String> = vec![
        "--node-key".into(),
        node_key,
        "--chain".into(),
        "local".into(),
        format!("--{key}"),
        "--base-path".into(),
        base.display().to_string(),
        "--allow-private-ip".into(),
        "--rpc-cors".into(),
        "all".into(),
    ];
    if let Some(b) = bootnode {
        args.push("--bootnodes".into());
        args.push(b.into());
    }
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn finality_survives_one_node_down_and_the_node_catches_up() {
    let dir = TestDir::new();
    let keys = ["alice", "bob", "charlie", "dave"];
    let base = |k: &str| dir.path().join(k);

    let alice = Node::start(
        "alice",
        &authority_args("alice", &base("alice"), None),
        dir.path(),
    );
    let boot = alice.multiaddr(Duration::from_secs(120));
    let mut nodes = vec![alice];
    for k in &keys[1..] {
        nodes.push(Node::start(
            k,
            &authority_args(k, &base(k), Some(&boot)),
            dir.path(),
        ));
    }
    let mut clients = Vec::new();
    for n in &nodes {
        clients.push(n.client(Duration::from_secs(180)).await);
    }

    eprintln!("waiting for the four authorities to finalize block #3");
    nodes[0]
        .wait_for_finalized(&clients[0], 3, Duration::from_secs(180))
        .await;

    // Bob goes down: Alice, Charlie and Dave are three of four GRANDPA voters, enough.
    nodes[1].stop();
    let at_kill = finalized_number(&clients[0]).await;
    eprintln!(
        "killed bob at finalized #{at_kill}; waiting for finality to pass #{}",
        at_kill + 3
    );
    nodes[0]
        .wait_for_finalized(&clients[0], at_kill + 3, Duration::from_secs(120))
        .await;
    nodes[2]
        .wait_for_finalized(&clients[2], at_kill + 3, Duration::from_secs(60))
        .await;

    // Bob restarts on his old database and ports and catches up with the others.
    nodes[1].restart();
    let bob_client = nodes[1].client(Duration::from_secs(180)).await;
    let target = finalized_number(&clients[0]).await;
    eprintln!("bob restarted; waiting for him to finalize #{target}");
    nodes[1]
        .wait_for_finalized(&bob_client, target, Duration::from_secs(120))
        .await;
}
