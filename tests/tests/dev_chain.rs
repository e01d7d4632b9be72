//! `cacheon-node --dev --tmp`: a signed balance transfer reaches a finalized block.

use std::time::Duration;

use cacheon::chain::{api, Client};
use cacheon_e2e::{Node, TestDir};
use subxt_signer::sr25519::dev;

#[tokio::test(flavor = "multi_thread")]
async fn dev_chain_finalizes_a_signed_transfer() {
    let dir = TestDir::new();
    let node = Node::start("dev", &["--dev".into(), "--tmp".into()], dir.path());
    let client = node.client(Duration::from_secs(120)).await;
    eprintln!("waiting for a signed transfer Alice -> Bob to be finalized (30 s budget)");

    let bob: subxt::utils::AccountId32 = dev::bob().public_key().into();
    let before = free_balance(&client, &bob).await;

    let amount = 1_234_567_890u128;
    let transfer = api::transactions()
        .balances()
        .transfer_keep_alive(bob.into(), amount);
    let submitted = async {
        let at = client.at_current_block().await.map_err(|e| e.to_string())?;
        let progress = at
            .transactions()
            .sign_and_submit_then_watch_default(&transfer, &dev::alice())
            .await
            .map_err(|e| e.to_string())?;
        progress
            .wait_for_finalized_success()
            .await
            .map_err(|e| e.to_string())
    };
    let events = tokio::time::timeout(Duration::from_secs(30), submitted)
        .await
        .unwrap_or_else(|_| panic!("transfer not finalized within 30 s\n{}", node.log_tail()))
        .unwrap_or_else(|e| panic!("transfer failed: {e}\n{}", node.log_tail()));
    let transfer_event = events
        .find_first::<api::balances::events::Transfer>()
        .expect("decode events")
        .expect("a Transfer event");
    assert_eq!(transfer_event.amount, amount);

    let after = free_balance(&client, &bob).await;
    assert_eq!(
        after,
        before + amount,
        "Bob's finalized balance grew by the amount sent"
    );
}

/// `who`'s free balance at the latest finalized block.
async fn free_balance(client: &Client, who: &subxt::utils::AccountId32) -> u128 {
    let at = client.at_current_block().await.expect("finalized block");
    let account = at
        .storage()
        .entry(api::storage().system().account())
        .expect("System.Account exists");
    account
        .fetch((*who,))
        .await
        .expect("fetch account")
        .decode()
        .expect("decode account")
        .data
        .free
}
