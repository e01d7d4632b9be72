//! `cacheon submit DIR`: commit, wait out the reveal delay, reveal, and watch the proposal
//! to its end, in one command. Resumable: the commit record (with its salt) is on disk
//! before the commitment is sent, so the same command run again after a crash or a kill
//! picks up where the last one stopped. It looks, in this order, for
//! 1. the proposal already revealed (the record says so, or the chain's owner of the
//!    bundle's content is this account): it watches that proposal;
//! 2. a commitment of this account to these bytes still pending on chain: it reveals it;
//! 3. a record whose commitment never reached the chain (killed before finalization): it
//!    sends that commitment again, with the same salt;
//!
//! and otherwise commits afresh.

use cacheon::chain::{self, api, reads};
use cacheon::exit;
use cacheon_kernels::bundle;
use serde_json::json;

use super::proposal::{self, connect, fail, load_records, save_record, CommitRecord};
use super::{display, quote, Out, StateArgs};
use crate::ProposalArgs;

/// Where a submission stands, from the records on disk and the chain.
enum Resume {
    Watch(u64),
    Reveal,
    Resend(CommitRecord),
    Fresh,
}

pub async fn submit(out: &Out, p: &ProposalArgs, watch_secs: u64, yes: bool) -> i32 {
    let (dir, key, c, state) = (p.dir.as_path(), &p.key, &p.chain, &p.state);
    let canonical = match bundle::read_dir(dir)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            bundle::canonical_bytes(&f, bundle::MAX_BUNDLE_BYTES).map_err(|e| e.to_string())
        }) {
        Ok(b) => b,
        Err(e) => return out.error(&format!("{}: {e}", dir.display()), exit::USAGE),
    };
    let hash = cacheon_primitives::bundle::content_hash(&canonical);
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let account = chain::account(&signer);
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let resume = match where_it_stands(&client, state, &hash, &account).await {
        Ok(r) => r,
        Err(e) => return fail(out, e),
    };
    let hash_hex = hex::encode(hash);
    let id = match resume {
        Resume::Watch(id) => {
            out.emit(
                json!({"event": "resumed", "step": "watch", "proposal": id, "content_hash": hash_hex}),
                || format!("resuming: bundle 0x{hash_hex} is already proposal {id}"),
            );
            id
        }
        other => {
            let code = match other {
                Resume::Reveal => {
                    out.emit(
                        json!({"event": "resumed", "step": "reveal", "content_hash": hash_hex}),
                        || format!("resuming: bundle 0x{hash_hex} is committed; revealing"),
                    );
                    exit::OK
                }
                Resume::Resend(mut record) => {
                    out.emit(
                        json!({"event": "resumed", "step": "commit", "commitment": record.commitment}),
                        || format!("resuming: sending commitment 0x{} again (same salt)", record.commitment),
                    );
                    proposal::send_commit(out, &mut record, key, c, state).await
                }
                _ => {
                    match proposal::prepare_commit(out, dir, &p.arena, p.target.clone(), key, state)
                    {
                        Ok(mut record) => {
                            match agree_to_quote(out, &client, &signer, &record, &canonical, yes)
                                .await
                            {
                                Ok(()) => {
                                    proposal::send_commit(out, &mut record, key, c, state).await
                                }
                                Err(code) => {
                                    // Nothing was sent: no record may make a later run send it.
                                    let _ = std::fs::remove_file(proposal::record_path(
                                        state,
                                        &record.commitment,
                                    ));
                                    code
                                }
                            }
                        }
                        Err(code) => code,
                    }
                }
            };
            if code != exit::OK {
                return code;
            }
            match proposal::reveal_steps(out, dir, key, c, state).await {
                Ok(id) => id,
                Err(code) => return code,
            }
        }
    };
    proposal::watch(out, id, c, watch_secs).await
}

/// Prints what the submission will hold and cost and goes on only if the account can pay
/// it and the user agrees: `--yes`, or `y` at the prompt on a terminal. Without either,
/// nothing is sent.
async fn agree_to_quote(
    out: &Out,
    client: &chain::Client,
    signer: &subxt_signer::sr25519::Keypair,
    record: &CommitRecord,
    canonical: &[u8],
    yes: bool,
) -> Result<(), i32> {
    let q = quote::quote(client, signer, &record.arena, &record.target, canonical)
        .await
        .map_err(|e| fail(out, e))?;
    out.emit(q.json(), || q.human(canonical.len()));
    if !q.affordable() {
        return Err(out.error(
            &format!(
                "the account has {} free and the submission needs {}: nothing was sent",
                display::units(q.free as i128),
                display::units(q.needed() as i128)
            ),
            exit::CHAIN_REFUSED,
        ));
    }
    if yes {
        return Ok(());
    }
    use std::io::{BufRead, IsTerminal, Write};
    if out.json || !std::io::stdin().is_terminal() {
        return Err(out.error(
            "not submitted: pass --yes to submit without a prompt (the quote is above)",
            exit::USAGE,
        ));
    }
    eprint!("submit? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err(out.error("not submitted", exit::USAGE))
    }
}

/// Reads the records of this account's commitments to `hash` and the chain's state of them.
async fn where_it_stands(
    client: &chain::Client,
    state: &StateArgs,
    hash: &[u8; 32],
    account: &chain::AccountId,
) -> Result<Resume, chain::ChainError> {
    let hash_hex = hex::encode(hash);
    let mut records: Vec<CommitRecord> = load_records(state)
        .into_iter()
        .filter(|r| r.content_hash == hash_hex && r.account == account.to_string())
        .collect();
    records.sort_by_key(|r| r.commit_block.unwrap_or(u64::MAX));
    if let Some(id) = records.iter().filter_map(|r| r.proposal).max() {
        return Ok(Resume::Watch(id));
    }
    let at = client
        .at_current_block()
        .await
        .map_err(|e| chain::ChainError::Unavailable(e.to_string()))?;
    // Revealed, but killed before the record was updated: the chain names the owner.
    let owner = reads::fetch(&at, api::storage().cacheon().content_owners(), (*hash,)).await?;
    if let Some(o) = owner.filter(|o| o.miner == *account) {
        if let Some(mut r) = records.pop() {
            r.proposal = Some(o.proposal);
            let _ = save_record(state, &r);
        }
        return Ok(Resume::Watch(o.proposal));
    }
    for r in &records {
        let Some(commitment) = hex::decode(&r.commitment)
            .ok()
            .and_then(|v| <[u8; 32]>::try_from(v).ok())
        else {
            continue;
        };
        let pending = reads::fetch(
            &at,
            api::storage().cacheon().commits(),
            (*account, commitment),
        )
        .await?;
        if pending.is_some() {
            return Ok(Resume::Reveal);
        }
    }
    // A record never finalized (no block): send it again; one finalized and gone (cancelled,
    // or revealed by another account first) starts afresh.
    Ok(records
        .into_iter()
        .find(|r| r.commit_block.is_none())
        .map_or(Resume::Fresh, Resume::Resend))
}
