//! `cacheon-try-state`: the try-runtime check of a live chain, without the try-runtime CLI.
//!
//! It reads every storage key and value of a running node at one block (`state_getKeysPaged`,
//! `state_queryStorageAt`), loads them into an in-memory externalities, and there runs this
//! repository's runtime natively, built with `try-runtime`: `Executive::try_runtime_upgrade`
//! with every check (each migration's `pre_upgrade`/`post_upgrade`, then every pallet's
//! `try_state`). A chain whose state breaks an invariant of the code at HEAD, or that a
//! migration of HEAD cannot move, fails here before a runtime upgrade would fail on chain.
//!
//! Exit codes: 0 the state passes, 1 a check failed, 2 the state could not be read.
//!
//! Build it on its own (`cargo build -p cacheon-try-state`): it turns on the runtime's
//! `try-runtime` feature, which must not reach the node's own build.

use anyhow::{anyhow, Context, Result};
use cacheon_runtime::{Cacheon, Executive};
use clap::Parser;
use polkadot_sdk::polkadot_sdk_frame::deps::{
    frame_try_runtime::UpgradeCheckSelect, sp_io::TestExternalities,
};
use serde_json::{json, Value};
use subxt::rpcs::{rpc_params, RpcClient};

/// Keys fetched per `state_getKeysPaged` call, and values per `state_queryStorageAt` call.
const PAGE: usize = 512;

#[derive(Parser)]
#[command(
    name = "cacheon-try-state",
    about = "Check a live chain's state against this repository's runtime (migrations and try_state)",
    long_about = "Downloads every storage key of a running Cacheon node at one block, then runs this \
repository's runtime natively on it: the runtime upgrade's migrations with their pre/post checks and \
every pallet's try_state invariants.\n\nExit codes: 0 the state passes; 1 a check failed; 2 the \
state could not be read."
)]
struct Args {
    /// The node's RPC endpoint.
    #[arg(long, default_value = "ws://127.0.0.1:9944")]
    url: String,
    /// Block hash to read (0x…); default: the finalized head.
    #[arg(long)]
    at: Option<String>,
    /// One JSON object on stdout instead of a human summary.
    #[arg(long)]
    json: bool,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let state = match read_state(&args.url, args.at.as_deref()).await {
        Ok(s) => s,
        Err(e) => {
            report(
                &args,
                json!({"ok": false, "stage": "read", "error": format!("{e:#}")}),
            );
            std::process::exit(2);
        }
    };
    let (keys, bytes) = (
        state.pairs.len(),
        state
            .pairs
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum::<usize>(),
    );
    match check(state.pairs) {
        Ok(migration_ref_time) => report(
            &args,
            json!({"ok": true, "block": state.number, "hash": state.hash, "keys": keys, "bytes": bytes,
                   "migration_weight": migration_ref_time}),
        ),
        Err(e) => {
            report(
                &args,
                json!({"ok": false, "stage": "check", "block": state.number, "hash": state.hash,
                       "keys": keys, "error": format!("{e:#}")}),
            );
            std::process::exit(1);
        }
    }
}

fn report(args: &Args, v: Value) {
    if args.json {
        println!("{v}");
    } else if v["ok"] == true {
        println!(
            "ok: block #{} ({}): {} keys, {} bytes; migrations and every pallet's try_state pass",
            v["block"],
            v["hash"].as_str().unwrap_or("?"),
            v["keys"],
            v["bytes"]
        );
    } else {
        eprintln!(
            "error ({}): {}",
            v["stage"].as_str().unwrap_or("?"),
            v["error"].as_str().unwrap_or("?")
        );
    }
}

struct ChainState {
    hash: String,
    number: u64,
    pairs: Vec<(Vec<u8>, Vec<u8>)>,
}

async fn read_state(url: &str, at: Option<&str>) -> Result<ChainState> {
    let rpc = RpcClient::from_insecure_url(url)
        .await
        .with_context(|| format!("connect to {url}"))?;
    let hash: String = match at {
        Some(h) => h.to_string(),
        None => rpc.request("chain_getFinalizedHead", rpc_params![]).await?,
    };
    let header: Value = rpc.request("chain_getHeader", rpc_params![&hash]).await?;
    let number = header["number"]
        .as_str()
        .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
        .ok_or_else(|| anyhow!("block {hash} has no header"))?;

    let mut keys: Vec<String> = Vec::new();
    loop {
        let start = keys.last().cloned();
        let page: Vec<String> = rpc
            .request("state_getKeysPaged", rpc_params!["0x", PAGE, start, &hash])
            .await
            .context("state_getKeysPaged")?;
        let done = page.len() < PAGE;
        keys.extend(page);
        if done {
            break;
        }
    }
    let mut pairs = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(PAGE) {
        let sets: Vec<Value> = rpc
            .request("state_queryStorageAt", rpc_params![chunk, &hash])
            .await
            .context("state_queryStorageAt")?;
        for set in &sets {
            for change in set["changes"].as_array().into_iter().flatten() {
                let key = decode_hex(&change[0])?;
                // A key listed a moment ago has a value at the same block.
                let value = decode_hex(&change[1]).context("a listed key has no value")?;
                pairs.push((key, value));
            }
        }
    }
    if pairs.len() != keys.len() {
        return Err(anyhow!(
            "{} keys listed but {} values read",
            keys.len(),
            pairs.len()
        ));
    }
    Ok(ChainState {
        hash,
        number,
        pairs,
    })
}

fn decode_hex(v: &Value) -> Result<Vec<u8>> {
    let s = v
        .as_str()
        .ok_or_else(|| anyhow!("expected a hex string, got {v}"))?;
    Ok(hex::decode(s.trim_start_matches("0x"))?)
}

/// Runs the migrations (with their checks) and every pallet's `try_state` on `pairs`;
/// returns the migrations' ref time.
fn check(pairs: Vec<(Vec<u8>, Vec<u8>)>) -> Result<u64> {
    let mut ext = TestExternalities::new_empty();
    for (k, v) in pairs {
        ext.insert(k, v);
    }
    ext.execute_with(|| {
        let weight = Executive::try_runtime_upgrade(UpgradeCheckSelect::All).map_err(|e| {
            // The executive only says that some try_state failed (and logs which); name the
            // settlement pallet's broken invariant when it is one of them.
            match Cacheon::do_try_state() {
                Err(detail) => anyhow!("runtime upgrade checks: {e:?}; Cacheon: {detail:?}"),
                Ok(()) => anyhow!("runtime upgrade checks: {e:?}"),
            }
        })?;
        Ok(weight.ref_time())
    })
}
