//! `cacheon history ACCOUNT`: what an account did, from the chain's events since block 1 (the
//! explorer's account page, in a terminal): as a miner, every proposal it revealed with its
//! status now, its crowns, and what its evaluation fees held, paid to verdicts and got back;
//! as a validator, its verdicts by kind and what they earned. The events are read block by
//! block, so a long chain takes a while (a progress bar counts the blocks).

use std::str::FromStr;
use std::sync::Arc;

use cacheon::chain::{self, AccountId, ChainError};
use cacheon::exit;
use serde_json::{json, Value};
use tokio::sync::RwLock;

use super::display::{units, who};
use super::explorer::{account_history, catch_up, with_statuses, Index};
use super::proposal::{connect, fail};
use super::{progress_bar, Out};
use crate::ChainArgs;

/// `account`: an SS58 address, or a dev account's secret URI (`//Charlie`), whose public
/// account is meant.
pub async fn history(out: &Out, account: &str, c: &ChainArgs) -> i32 {
    let who_id = match parse_account(account) {
        Ok(a) => a.to_string(),
        Err(e) => return out.error(&e, exit::USAGE),
    };
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let index = Arc::new(RwLock::new(Index::default()));
    let head = match client.at_current_block().await {
        Ok(at) => at.block_number(),
        Err(e) => return fail(out, chain::unavailable(e)),
    };
    let bar = progress_bar(out, "reading events {bar:30} block {pos}/{len}");
    bar.set_length(head);
    // The index reads in batches; a pruned node's catch-up stops once at its oldest block.
    loop {
        if let Err(e) = catch_up(&client, &index).await {
            bar.finish_and_clear();
            return fail(out, ChainError::Unavailable(e));
        }
        let read = index.read().await.head;
        bar.set_position(read);
        if read >= head {
            break;
        }
    }
    bar.finish_and_clear();
    let idx = index.read().await;
    let mut v = account_history(&idx.events, &who_id);
    let at = match client.at_current_block().await {
        Ok(at) => at,
        Err(e) => return fail(out, chain::unavailable(e)),
    };
    if let Err(e) = with_statuses(&at, &mut v).await {
        return fail(out, e);
    }
    v["block"] = json!(at.block_number());
    v["read_from"] = json!(idx.from.unwrap_or(1));
    if let Some(o) = v.as_object_mut() {
        o.remove("events");
    }
    out.emit(v.clone(), || human(&v));
    exit::OK
}

fn parse_account(text: &str) -> Result<AccountId, String> {
    if text.starts_with("//") {
        return chain::signer(Some(text), None)
            .map(|k| chain::account(&k))
            .map_err(|e| e.to_string());
    }
    AccountId::from_str(text)
        .map_err(|_| format!("`{text}` is neither an SS58 account nor a dev URI like //Charlie"))
}

fn human(v: &Value) -> String {
    let amount = |v: &Value| {
        v.as_str()
            .and_then(|a| a.parse::<i128>().ok())
            .map_or("–".into(), units)
    };
    let mut s = format!(
        "{} (events of blocks #{}..#{})\nas a miner:",
        who(v["account"].as_str().unwrap_or_default()),
        v["read_from"],
        v["block"]
    );
    let proposals = v["proposals"].as_array().cloned().unwrap_or_default();
    if proposals.is_empty() {
        s.push_str(" no proposal revealed");
    }
    for p in &proposals {
        s.push_str(&format!(
            "\n  #{} {} {} {} (revealed at #{})",
            p["proposal"],
            p["arena"].as_str().unwrap_or_default(),
            p["target"].as_str().unwrap_or_default(),
            p["status"].as_str().unwrap_or_default(),
            p["block"]
        ));
    }
    let fees = &v["fees"];
    s.push_str(&format!(
        "\n  crowns {}; evaluation fees held {}, paid to verdicts {}, returned {}\nas a validator: {} verdict(s) paid, earned {}; {} stall(s), {} disagreement(s) with another operator",
        v["crowns"],
        amount(&fees["held"]),
        amount(&fees["paid"]),
        amount(&fees["returned"]),
        v["verdicts_paid"],
        amount(&v["earned"]),
        v["stalls"],
        v["disagreements"],
    ));
    for (kind, n) in v["verdicts"].as_object().into_iter().flatten() {
        s.push_str(&format!("\n  {kind}: {n}"));
    }
    s
}
