//! `cacheon-try-state` against a live dev chain: a fresh chain passes; after Root (sudo)
//! writes a state that breaks one of the settlement pallet's invariants (the prune queue's
//! head past its tail), the check fails with exit code 1 and names the invariant, and an
//! unreachable node is exit code 2. Needs `cacheon-node` and `cacheon-try-state` built.

use std::process::Command;

use cacheon::chain::api;
use cacheon_e2e::{sudo, try_state_bin, Node, RuntimeCall};
use codec::Encode;
use sp_crypto_hashing::twox_128;

fn try_state(url: &str) -> (i32, serde_json::Value) {
    let out = Command::new(try_state_bin())
        .args(["--json", "--url", url])
        .output()
        .expect("run cacheon-try-state");
    let line = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(line.trim()).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report)
}

#[test]
fn try_state_passes_a_live_chain_and_catches_a_broken_invariant() {
    let dir = cacheon_e2e::TestDir::new();
    let node = Node::dev(dir.path(), 500);

    eprintln!("waiting for: try-state of a fresh dev chain");
    let (code, report) = try_state(&node.url);
    assert_eq!(code, 0, "{report}");
    assert!(report["keys"].as_u64().unwrap() > 10, "{report}");

    eprintln!("waiting for: sudo writing a broken prune queue head");
    let mut key = twox_128(b"Cacheon").to_vec();
    key.extend(twox_128(b"PruneHead"));
    let set = RuntimeCall::System(
        api::runtime_types::frame_system::pallet::Call::set_storage {
            items: vec![(key, 5u64.encode())],
        },
    );
    sudo(&node.url, set);
    let (code, report) = try_state(&node.url);
    assert_eq!(code, 1, "{report}");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("prune queue has an entry outside its head and tail"),
        "{report}"
    );

    drop(node);
    let (code, report) = try_state("ws://127.0.0.1:9");
    assert_eq!(code, 2, "{report}");
    assert_eq!(report["stage"], "read", "{report}");
}
