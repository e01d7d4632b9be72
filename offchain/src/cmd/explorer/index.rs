//! The explorer's history: every finalized block's Cacheon events, read once in order from
//! block 1 and then as finality advances. The chain keeps a proposal's present state and
//! the latest weight vector; what happened before (each lease and verdict, each epoch's
//! weights and payout) exists only in events, so the explorer indexes them itself.

use std::sync::Arc;
use std::time::Duration;

use cacheon::chain::{api, Client};
use serde_json::{json, Value};
use tokio::sync::RwLock;

use super::super::events::proposal_events;

/// What the explorer has read of the chain so far.
#[derive(Default)]
pub struct Index {
    /// The last finalized block whose events are in here (0: none yet).
    pub head: u64,
    /// Proposal events block by block (within a block grouped by kind), each with
    /// `block`, `event` and `proposal`: reveals, leases, verdicts, crowns and every other end.
    pub events: Vec<Value>,
    /// One entry an epoch: `epoch`, `block`, `weights` (`[account, ppm]` pairs) and, once
    /// paid, `paid` (planck, as a string).
    pub epochs: Vec<Value>,
    /// Engine releases marked on chain (`cacheon release mark`) by a release key this build
    /// trusts: `block`, `signer`, `digest`, `arena`, `proposals`.
    pub releases: Vec<Value>,
    /// Why the last catch-up stopped, while it keeps failing (the node went away).
    pub error: Option<String>,
    /// The first block read, when the node keeps no state before it (a pruned node: events
    /// are state, and a node keeps the last 256 blocks' by default). `None`: from block 1.
    pub from: Option<u64>,
}

impl Index {
    /// The events of one proposal, oldest first.
    pub fn of_proposal(&self, id: u64) -> Vec<Value> {
        self.events
            .iter()
            .filter(|e| e["proposal"] == id)
            .cloned()
            .collect()
    }
}

/// Blocks read before the index is published for the pages (so a long catch-up shows
/// progress rather than nothing).
const BATCH: u64 = 64;
/// How far behind the finalized head a pruned node surely still has state (its default
/// keeps 256 blocks).
const PRUNED_WINDOW: u64 = 200;

/// Keeps `index` up with the chain's finalized head until the process ends; a failure is
/// recorded in the index and retried.
pub async fn follow(client: Client, index: Arc<RwLock<Index>>) {
    loop {
        match catch_up(&client, &index).await {
            Ok(()) => index.write().await.error = None,
            Err(e) => {
                tracing::warn!(error = %e, "explorer: reading the chain's events");
                index.write().await.error = Some(e);
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Reads every finalized block's events up to the head into `index` (from where it stopped;
/// on a pruned node, from the oldest block it surely keeps).
pub(in crate::cmd) async fn catch_up(client: &Client, index: &RwLock<Index>) -> Result<(), String> {
    let head = client
        .at_current_block()
        .await
        .map_err(|e| e.to_string())?
        .block_number();
    loop {
        let from = index.read().await.head + 1;
        if from > head {
            return Ok(());
        }
        let to = head.min(from + BATCH - 1);
        let (mut events, mut epochs) = (Vec::new(), Vec::new());
        let (mut paid, mut releases) = (Vec::new(), Vec::new());
        for n in from..=to {
            let read = async {
                let at = client.at_block(n).await.map_err(|e| e.to_string())?;
                let events = at.events().fetch().await.map_err(|e| e.to_string())?;
                let marks = release_marks(&at, &events, n).await?;
                Ok::<_, String>((events, marks))
            };
            let (block, marks) = match read.await {
                Ok(b) => b,
                // An old block whose state the node no longer keeps: start from the oldest
                // it surely has, and say so on the pages.
                Err(e) if n + PRUNED_WINDOW < head && state_is_gone(&e) => {
                    tracing::warn!(block = n, error = %e, "explorer: no state this far back (a pruned node); indexing from the last {PRUNED_WINDOW} blocks");
                    let mut idx = index.write().await;
                    idx.head = head - PRUNED_WINDOW;
                    idx.from = Some(head - PRUNED_WINDOW + 1);
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            let (e, w, p) = read_block(&block, n);
            events.extend(e);
            epochs.extend(w);
            paid.extend(p);
            releases.extend(marks);
        }
        let mut idx = index.write().await;
        idx.events.extend(events);
        idx.epochs.extend(epochs);
        idx.releases.extend(releases);
        for (epoch, total) in paid {
            if let Some(e) = idx.epochs.iter_mut().rev().find(|e| e["epoch"] == epoch) {
                e["paid"] = json!(total);
            }
        }
        idx.head = to;
    }
}

/// The releases marked in block `block` (`cacheon release mark`): a successful
/// `System::remark_with_event` whose remark is a release mark, sent by a release key this
/// build trusts. The `Remarked` event names the sender (and only the remark's hash); the
/// remark itself is read from the extrinsic the event belongs to.
async fn release_marks(
    at: &cacheon::chain::At,
    events: &subxt::events::Events<subxt::PolkadotConfig>,
    block: u64,
) -> Result<Vec<Value>, String> {
    let trusted = cacheon::release::Keys::embedded().release;
    let senders: Vec<(usize, String)> = events
        .iter()
        .flatten()
        .filter_map(|ev| {
            let subxt::events::Phase::ApplyExtrinsic(i) = ev.phase() else {
                return None;
            };
            let remarked = ev
                .decode_fields_as::<api::system::events::Remarked>()?
                .ok()?;
            let sender = remarked.sender.to_string();
            trusted.contains(&sender).then_some((i as usize, sender))
        })
        .collect();
    if senders.is_empty() {
        return Ok(Vec::new());
    }
    let extrinsics = at.extrinsics().fetch().await.map_err(|e| e.to_string())?;
    let mut marks = Vec::new();
    for ext in extrinsics.iter().flatten() {
        let Some((_, sender)) = senders.iter().find(|(i, _)| *i == ext.index()) else {
            continue;
        };
        let Some(Ok(call)) =
            ext.decode_call_data_fields_as::<api::system::calls::RemarkWithEvent>()
        else {
            continue;
        };
        if let Some(mut mark) = cacheon::release::parse_mark(&call.remark) {
            mark["block"] = json!(block);
            mark["signer"] = json!(sender);
            marks.push(mark);
        }
    }
    Ok(marks)
}

/// Whether a node's error says it keeps no state for the block (pruned), rather than that
/// it is unreachable (which is retried).
fn state_is_gone(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    ["discarded", "pruned", "unknown block", "unknownblock"]
        .iter()
        .any(|m| e.contains(m))
}

/// One block's proposal events, weight vectors and payouts (epoch, planck).
fn read_block(
    events: &subxt::events::Events<subxt::PolkadotConfig>,
    block: u64,
) -> (Vec<Value>, Vec<Value>, Vec<(u32, String)>) {
    use api::cacheon::events as ev;
    let mut found: Vec<Value> = events
        .find::<ev::Revealed>()
        .flatten()
        .map(|e| {
            json!({"event": "revealed", "proposal": e.proposal, "miner": e.miner.to_string(),
                   "arena": String::from_utf8_lossy(&e.arena.0),
                   "target": String::from_utf8_lossy(&e.target.0)})
        })
        .collect();
    found.extend(proposal_events(events, None));
    for v in &mut found {
        v["block"] = json!(block);
    }
    let epochs = events
        .find::<ev::WeightsSet>()
        .flatten()
        .map(|w| {
            let weights: Vec<(String, u32)> = w
                .weights
                .0
                .iter()
                .map(|(a, p)| (a.to_string(), *p))
                .collect();
            json!({"epoch": w.epoch, "block": block, "weights": weights})
        })
        .collect();
    let paid = events
        .find::<ev::EmissionsPaid>()
        .flatten()
        .map(|p| (p.epoch, p.total.to_string()))
        .collect();
    (found, epochs, paid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_pruned_nodes_answer_skips_history() {
        assert!(state_is_gone(
            "Rpc error: State already discarded for 0x12ab…"
        ));
        assert!(!state_is_gone("Rpc error: connection closed"));
    }
}
