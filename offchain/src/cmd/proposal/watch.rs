//! `watch`: a proposal's events as they are finalized, until it ends, and the lease
//! holder's attempt as it goes (`attempt_progress`, from the endpoint it published).

use std::time::Duration;

use cacheon::chain::{api, unavailable, ChainError, Client};
use cacheon::chain::{reads, Proposal, ProposalStatus};
use cacheon::exit;
use serde_json::json;

use crate::cmd::Out;
use crate::ChainArgs;

use super::connect::{connect, fail};
use super::status::{proposal_json, status_name};
use crate::cmd::events::{describe, proposal_events};
use crate::cmd::evidence::running_attempt;

/// A proposal and the finalized block it was read at (the pallet's `proposal_status` view
/// function).
async fn fetch_proposal(client: &Client, id: u64) -> Result<Option<(u64, Proposal)>, ChainError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    let p = reads::proposal_at(&at, id).await?;
    Ok(p.map(|p| (at.block_number(), p)))
}

pub async fn watch(out: &Out, proposal: u64, c: &ChainArgs, for_secs: u64) -> i32 {
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let work = async {
        let status_block = match fetch_proposal(&client, proposal).await? {
            None => return Err(ChainError::Input(format!("no proposal {proposal}"))),
            Some((block, p)) => {
                let mut v = proposal_json(proposal, &p);
                v["event"] = json!("status");
                v["block"] = json!(block);
                out.emit(v.clone(), || describe(&json!({"event": "status", "block": block, "status": v["status"], "attempts": p.attempts})));
                let (_, fin) = status_name(&p.status);
                if fin {
                    return Ok(p.status);
                }
                block
            }
        };
        let mut blocks = client.stream_blocks().await.map_err(unavailable)?;
        // The subscription may skip finalized blocks (a slow reader's subscription is
        // dropped by the node and resubscribed from the newest head): read every block
        // between the last one read and the one announced, so no event is missed.
        let mut next = status_block + 1;
        let mut last_progress = None;
        while let Some(block) = blocks.next().await {
            let block = block.map_err(unavailable)?;
            let head = block.number();
            let from = next;
            if from > head {
                continue;
            }
            for number in from..=head {
                let at = client.at_block(number).await.map_err(unavailable)?;
                let events = at.events().fetch().await.map_err(unavailable)?;
                for mut v in proposal_events(&events, Some(proposal)) {
                    v["block"] = json!(number);
                    out.emit(v.clone(), || describe(&v));
                }
            }
            next = head + 1;
            let at = client.at_block(head).await.map_err(unavailable)?;
            let status =
                reads::fetch(&at, api::storage().cacheon().proposals(), (proposal,)).await?;
            if let Some(p) = status {
                let p: Proposal = p;
                if status_name(&p.status).1 {
                    return Ok(p.status);
                }
                // The lease holder's attempt as it goes, when it publishes it: a line each
                // time its stage or count moves.
                if let Some(a) = running_attempt(&at, proposal, &p.status).await {
                    let now = (a["stage"].clone(), a["done"].clone());
                    if last_progress.as_ref() != Some(&now) {
                        last_progress = Some(now);
                        let v = json!({
                            "event": "attempt_progress", "proposal": proposal, "block": head,
                            "validator": a["validator"], "stage": a["stage"], "done": a["done"],
                            "total": a["total"], "elapsed_s": a["elapsed_s"],
                        });
                        out.emit(v.clone(), || describe(&v));
                    }
                }
            }
        }
        Err(ChainError::Unavailable(
            "the block subscription ended".into(),
        ))
    };
    match tokio::time::timeout(Duration::from_secs(for_secs), work).await {
        Err(_) => fail(
            out,
            ChainError::Timeout(format!(
                "proposal {proposal} did not finish within {for_secs} s"
            )),
        ),
        Ok(Err(e)) => fail(out, e),
        Ok(Ok(status)) => {
            let (name, _) = status_name(&status);
            out.emit(
                json!({"event": "end", "proposal": proposal, "status": name}),
                || format!("proposal {proposal} ended: {name}"),
            );
            if matches!(status, ProposalStatus::Crowned { .. }) {
                exit::OK
            } else {
                exit::FAIL
            }
        }
    }
}
