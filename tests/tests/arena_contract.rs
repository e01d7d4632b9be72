//! A validator measures only in the arena the chain describes: Root (sudo) changes
//! `cpu-tiny`'s model digest on a live dev chain; a validator started against it says at
//! connect that it will not serve the arena and why, and leaves a miner's proposal alone
//! while finalized blocks pass; once Root puts the genesis configuration back, the same
//! validator process leases the proposal. Needs `cacheon` and `cacheon-node` built.

use std::time::Duration;

use cacheon::chain::{self, api};
use cacheon_e2e::{
    diagnostics, proposal_of, propose, repo_root, sudo, CacheonEvent, Chain, Node, RuntimeCall,
    TestDir, Validator,
};
use cacheon_primitives::catalog;

type ApiArenaConfig = api::runtime_types::pallet_cacheon::types::ArenaConfig<u32>;

/// Submits `set_arena(config)` as Root.
fn set_arena(url: &str, config: ApiArenaConfig) {
    sudo(
        url,
        RuntimeCall::Cacheon(
            api::runtime_types::pallet_cacheon::pallet::Call::set_arena { config },
        ),
    );
}

/// `cpu-tiny`'s configuration as the chain holds it now.
fn cpu_tiny(url: &str) -> ApiArenaConfig {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = chain::connect(url, Duration::from_secs(30)).await.unwrap();
        let at = client.at_current_block().await.unwrap();
        let id = chain::bounded(catalog::CPU_TINY.id.as_bytes());
        at.storage()
            .try_fetch(api::storage().cacheon().arenas(), (id,))
            .await
            .unwrap()
            .expect("cpu-tiny is a genesis arena")
            .decode()
            .unwrap()
            .config
    })
}

#[test]
fn a_validator_serves_no_arena_whose_engine_differs_from_its_build() {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 250);
    eprintln!("waiting for: sudo changing cpu-tiny's model digest");
    let mut changed = cpu_tiny(&node.url);
    let genesis_model = changed.model_digest;
    changed.model_digest = catalog::engine_digest("model", "tiny-v2");
    set_arena(&node.url, changed);
    assert_eq!(
        cpu_tiny(&node.url).model_digest,
        catalog::engine_digest("model", "tiny-v2")
    );

    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose(&node.url, &dir.path().join("charlie"), &bundle, "//Charlie");
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let context = || diagnostics(&node, &[&alice]);

    // It says why at connect, and leases nothing while 40 finalized blocks (10 s) pass.
    let start = std::time::Instant::now();
    while !alice
        .log_text()
        .contains("arena `cpu-tiny`: the chain's model digest is")
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the validator never said why it skips cpu-tiny\n{}",
            context()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let log = alice.log_text();
    assert!(log.contains("this build runs model `tiny`"), "{log}");
    assert!(log.contains("not served"), "{log}");
    let mut chain = Chain::new(&node.url);
    let head = chain.wait_head_above(0, Duration::from_secs(30), context);
    chain.wait_head_above(head + 40, Duration::from_secs(60), context);
    let leased = |e: &cacheon_e2e::Seen| {
        proposal_of(&e.event) == Some(id) && matches!(e.event, CacheonEvent::Leased { .. })
    };
    assert!(
        !chain.seen.iter().any(leased),
        "leased in an arena whose engine differs\n{}",
        chain.events_text()
    );

    eprintln!("waiting for: sudo putting cpu-tiny's genesis configuration back");
    let mut genesis = cpu_tiny(&node.url);
    genesis.model_digest = genesis_model;
    set_arena(&node.url, genesis);
    chain.wait_for(
        &format!("Alice to lease proposal {id} once the arena is hers again"),
        Duration::from_secs(120),
        leased,
        context,
    );
}
