//! What each page shows, as JSON (the page's twin): read from the chain at its latest
//! finalized block, from the event index, and for a proposal from its validators' evidence
//! reports. The HTML is rendered from exactly these values (`html.rs`).

use cacheon::chain::{api, bounded, reads, At, ProposalStatus};
use serde_json::{json, Value};

use super::super::proposal::{proposal_json, verdict_records};
use super::AppState;

/// Why a page cannot be shown.
pub enum PageError {
    /// No such arena or proposal (404).
    NotFound(String),
    /// The node did not answer (503).
    Chain(String),
}

fn chain_err(e: impl std::fmt::Display) -> PageError {
    PageError::Chain(e.to_string())
}

async fn latest(s: &AppState) -> Result<At, PageError> {
    s.client.at_current_block().await.map_err(chain_err)
}

/// Verdict events, as the overview lists them.
fn is_verdict(e: &Value) -> bool {
    matches!(
        e["event"].as_str(),
        Some(
            "pass_recorded"
                | "failed"
                | "fail_recorded"
                | "crowned"
                | "no_decision"
                | "expired"
                | "attestations_disagreed"
        )
    )
}

/// `/`: the arenas, the latest verdicts, the latest weights.
pub async fn overview(s: &AppState) -> Result<Value, PageError> {
    let at = latest(s).await?;
    let arenas: Vec<Value> = reads::arena_summaries(&at)
        .await
        .map_err(chain_err)?
        .into_iter()
        .map(|a| {
            json!({"arena": a.id, "generation": a.generation, "queue": a.queue,
                   "crowned": a.incumbents.len(), "status": a.contract.status,
                   "hardware": a.contract.hardware,
                   "backend": format!("{:?}", a.contract.view.backend).to_lowercase(),
                   "min_margin_ppm": a.contract.min_margin_ppm})
        })
        .collect();
    let idx = s.index.read().await;
    let recent: Vec<Value> = idx
        .events
        .iter()
        .rev()
        .filter(|e| is_verdict(e))
        .take(20)
        .cloned()
        .collect();
    Ok(json!({
        "block": at.block_number(),
        "indexed_to": idx.head,
        "index_error": idx.error,
        "arenas": arenas,
        "recent_verdicts": recent,
        "weights": idx.epochs.last(),
    }))
}

/// A pending proposal's lease holder and deadline, if a validator holds it now.
fn lease_of(status: &ProposalStatus) -> Option<Value> {
    match status {
        ProposalStatus::Primary { lease } => Some(
            json!({"phase": "primary", "validator": lease.validator.to_string(), "expires_at": lease.expires_at}),
        ),
        ProposalStatus::Reproduction { lease, .. } => Some(
            json!({"phase": "reproduction", "validator": lease.validator.to_string(), "expires_at": lease.expires_at}),
        ),
        _ => None,
    }
}

/// `/arena/ID`: its contract, its incumbent stack (each crowned target with its proposal,
/// miner and speedup) and its queue with the lease holders.
pub async fn arena(s: &AppState, id: &str) -> Result<Value, PageError> {
    let at = latest(s).await?;
    let info = reads::fetch(&at, api::storage().cacheon().arenas(), (bounded(id.as_bytes()),))
        .await
        .map_err(chain_err)?
        .ok_or_else(|| PageError::NotFound(format!("no arena `{id}`")))?;
    let contract = reads::contract_of(&info);
    let summary = reads::arena_summaries(&at)
        .await
        .map_err(chain_err)?
        .into_iter()
        .find(|a| a.id == id);
    let mut stack = Vec::new();
    for (target, proposal) in summary.map(|a| a.incumbents).unwrap_or_default() {
        let p = reads::proposal_at(&at, proposal).await.map_err(chain_err)?;
        let (miner, speedup_ppm, crowned_at) = match &p {
            Some(p) => match &p.status {
                ProposalStatus::Crowned {
                    at, speedup_ppm, ..
                } => (p.miner.to_string(), Some(*speedup_ppm), Some(*at)),
                _ => (p.miner.to_string(), None, None),
            },
            None => (String::new(), None, None),
        };
        stack.push(json!({"target": target, "proposal": proposal, "miner": miner,
                          "speedup_ppm": speedup_ppm, "crowned_at": crowned_at}));
    }
    let queue_ids = reads::fetch(&at, api::storage().cacheon().queue(), (bounded(id.as_bytes()),))
        .await
        .map_err(chain_err)?
        .map_or(Vec::new(), |q| q.0);
    let mut queue = Vec::new();
    for (position, id) in queue_ids.into_iter().enumerate() {
        if let Some(p) = reads::proposal_at(&at, id).await.map_err(chain_err)? {
            let mut v = proposal_json(id, &p);
            v["position"] = json!(position);
            v["lease"] = json!(lease_of(&p.status));
            queue.push(v);
        }
    }
    Ok(json!({
        "arena": id,
        "block": at.block_number(),
        "generation": info.generation,
        "contract": contract,
        "incumbents": stack,
        "queue": queue,
    }))
}

/// `/proposal/N`: its record, its verdicts with their reports (fetched from the endpoint each
/// validator published, checked against the digest the chain keeps, kept in the evidence
/// folder), and its events.
pub async fn proposal(s: &AppState, id: u64) -> Result<Value, PageError> {
    let at = latest(s).await?;
    let p = reads::proposal_at(&at, id)
        .await
        .map_err(chain_err)?
        .ok_or_else(|| PageError::NotFound(format!("no proposal {id}")))?;
    let final_fail = match &p.status {
        ProposalStatus::Failed { .. } => reads::fail_verdict_at(&at, id)
            .await
            .map_err(chain_err)?,
        _ => None,
    };
    let mut v = proposal_json(id, &p);
    let mut records = verdict_records(&p, final_fail.as_ref());
    for r in records.iter_mut() {
        let who = r["validator"]
            .as_str()
            .and_then(|v| v.parse::<cacheon::chain::AccountId>().ok());
        if let Some(who) = who {
            if let Some(url) = reads::evidence_endpoint(&at, &who)
                .await
                .map_err(chain_err)?
            {
                r["endpoint"] = json!(url);
            }
        }
    }
    let fetch = s.fetch.clone();
    let records = tokio::task::spawn_blocking(move || with_reports(records, &fetch))
        .await
        .map_err(chain_err)?;
    let margin_ppm = reads::fetch(
        &at,
        api::storage().cacheon().arenas(),
        (bounded(&p.arena.0),),
    )
    .await
    .map_err(chain_err)?
    .map(|a| a.config.policy.min_margin_ppm);
    v["block"] = json!(at.block_number());
    v["min_margin_ppm"] = json!(margin_ppm);
    v["verdicts"] = json!(records);
    v["events"] = json!(s.index.read().await.of_proposal(id));
    Ok(v)
}

/// Each verdict with what its report says (stage, reason, detail, the speed reads and
/// interval, the machine), or why the report could not be had.
fn with_reports(mut records: Vec<Value>, fetch: &super::super::evidence::Fetch) -> Vec<Value> {
    for r in records.iter_mut() {
        let digest = r["evidence"].as_str().unwrap_or_default().to_string();
        let mut from = fetch.clone();
        from.from.extend(r["endpoint"].as_str().map(str::to_string));
        match from.report(&digest) {
            Ok(Some((report, _))) => {
                let speed = &report["speed"];
                r["report"] = json!({
                    "verdict": report["verdict"], "stage": report["stage"],
                    "reason": report["reason"], "detail": report["detail"],
                    "machine": report["machine"], "wall_ms": report["wall_ms"],
                    "baseline_ms": speed["baseline_ms"], "candidate_ms": speed["candidate_ms"],
                    "interval": speed["interval"], "min_margin_ppm": speed["min_margin_ppm"],
                });
            }
            Ok(None) => r["report_error"] = json!("its validator publishes no evidence endpoint"),
            Err(why) => r["report_error"] = json!(why),
        }
    }
    records
}

/// `/weights`: every epoch's weight vector since genesis (from the index), and the vector
/// the chain holds now.
pub async fn weights(s: &AppState) -> Result<Value, PageError> {
    let at = latest(s).await?;
    let current = reads::fetch(&at, api::storage().cacheon().weights(), ())
        .await
        .map_err(chain_err)?;
    let current: Vec<(String, u32)> = current
        .map(|w| w.0.iter().map(|(a, p)| (a.to_string(), *p)).collect())
        .unwrap_or_default();
    let epoch = reads::fetch(&at, api::storage().cacheon().weights_epoch(), ())
        .await
        .map_err(chain_err)?;
    let idx = s.index.read().await;
    Ok(json!({
        "block": at.block_number(),
        "indexed_to": idx.head,
        "current": {"epoch": epoch, "weights": current},
        "epochs": idx.epochs,
    }))
}
