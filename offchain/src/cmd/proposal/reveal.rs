//! `reveal`: the bundle's bytes and salt, once the reveal delay has passed on chain.

use std::path::Path;
use std::time::Duration;

use cacheon::chain::reads;
use cacheon::chain::{self, api, AccountId, ChainError, Client};
use cacheon::exit;
use cacheon_kernels::bundle;
use serde_json::json;

use crate::cmd::{Out, StateArgs};
use crate::{ChainArgs, KeyArgs};

use super::connect::{connect, fail};
use super::record::{load_records, save_record};

pub async fn reveal(out: &Out, dir: &Path, key: &KeyArgs, c: &ChainArgs, state: &StateArgs) -> i32 {
    reveal_id(out, dir, key, c, state).await.0
}

/// `reveal`, also returning the proposal id on success.
pub async fn reveal_id(
    out: &Out,
    dir: &Path,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> (i32, Option<u64>) {
    match reveal_steps(out, dir, key, c, state).await {
        Ok(id) => (exit::OK, Some(id)),
        Err(code) => (code, None),
    }
}

pub(in crate::cmd) async fn reveal_steps(
    out: &Out,
    dir: &Path,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> Result<u64, i32> {
    let files = match bundle::read_dir(dir) {
        Ok(f) => f,
        Err(e) => return Err(out.error(&format!("{}: {e}", dir.display()), exit::USAGE)),
    };
    let canonical = match bundle::canonical_bytes(&files, bundle::MAX_BUNDLE_BYTES) {
        Ok(b) => b,
        Err(e) => return Err(out.error(&format!("{}: {e}", dir.display()), exit::FAIL)),
    };
    let hash = hex::encode(cacheon_primitives::bundle::content_hash(&canonical));
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return Err(fail(out, e)),
    };
    let account = chain::account(&signer);
    let Some(mut record) = load_records(state)
        .into_iter()
        .filter(|r| {
            r.content_hash == hash && r.account == account.to_string() && r.proposal.is_none()
        })
        .max_by_key(|r| r.commit_block.unwrap_or(0))
    else {
        return Err(out.error(
            &format!(
                "no unrevealed commitment of {account} to bundle 0x{hash} in {} (run `cacheon commit` first; the bytes must be unchanged)",
                state.dir().display()
            ),
            exit::USAGE,
        ));
    };
    let commitment: [u8; 32] = hex::decode(&record.commitment)
        .ok()
        .and_then(|v| v.try_into().ok())
        .expect("records hold 32-byte commitments");
    let salt: [u8; 32] = hex::decode(&record.salt)
        .ok()
        .and_then(|v| v.try_into().ok())
        .expect("records hold 32-byte salts");
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return Err(code),
    };
    // Wait until the reveal delay has passed in a finalized block.
    wait_for_reveal_delay(
        out,
        &client,
        account,
        commitment,
        &record.commitment,
        c.timeout,
    )
    .await?;
    let call = api::transactions().cacheon().reveal(
        chain::bounded(record.arena.as_bytes()),
        chain::bounded(record.target.as_bytes()),
        salt,
        chain::bounded(&canonical),
    );
    let (events, block) =
        match chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await {
            Ok(r) => r,
            Err(e) => return Err(fail(out, e)),
        };
    let Some(Ok(revealed)) = events.find_first::<api::cacheon::events::Revealed>() else {
        return Err(out.error(
            "the reveal was finalized without a Revealed event",
            exit::CHAIN_REFUSED,
        ));
    };
    record.proposal = Some(revealed.proposal);
    let _ = save_record(state, &record);
    if let Some(Ok(full)) = events.find_first::<api::cacheon::events::QueueWasFull>() {
        return Err(out.error(
            &format!(
                "proposal {} was revealed in finalized block #{block} but not queued: the queue of {} was full. \
                 The bytes are yours (your commitment owns them; the evaluation fee paid for that) and \
                 their deposit comes back when the proposal is pruned; submit them again \
                 (`cacheon submit`) to be measured",
                full.proposal, record.arena
            ),
            exit::CHAIN_REFUSED,
        ));
    }
    out.emit(
        json!({"event": "revealed", "proposal": revealed.proposal, "content_hash": hash, "bytes": revealed.bytes,
               "arena": record.arena, "target": record.target, "block": block}),
        || {
            format!(
                "revealed: proposal {} ({} bytes) queued on {} for {} in finalized block #{block}\n  follow it with `cacheon watch {}`",
                revealed.proposal, revealed.bytes, record.arena, record.target, revealed.proposal
            )
        },
    );
    Ok(revealed.proposal)
}

/// Waits until the reveal delay after the commitment's block has passed in a finalized
/// block, for at most `timeout` seconds; the commitment must stay pending meanwhile
/// (`shown` is its hex, for the error).
async fn wait_for_reveal_delay(
    out: &Out,
    client: &Client,
    account: AccountId,
    commitment: [u8; 32],
    shown: &str,
    timeout: u64,
) -> Result<(), i32> {
    let deadline = std::time::Instant::now() + Duration::from_secs(timeout);
    loop {
        let at = match client.at_current_block().await {
            Ok(a) => a,
            Err(e) => return Err(fail(out, ChainError::Unavailable(e.to_string()))),
        };
        let commit_block = match reads::fetch(&at, api::storage().cacheon().commits(), (account, commitment)).await {
            Ok(Some(r)) => r.at as u64,
            Ok(None) => {
                return Err(out.error(
                    &format!("commitment 0x{shown} is not pending on chain (revealed, cancelled or never finalized)"),
                    exit::CHAIN_REFUSED,
                ))
            }
            Err(e) => return Err(fail(out, e)),
        };
        let delay = reads::reveal_delay(&at);
        if at.block_number() >= commit_block + delay {
            break;
        }
        if std::time::Instant::now() > deadline {
            return Err(fail(
                out,
                ChainError::Timeout("the reveal delay did not pass in time".into()),
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Ok(())
}
