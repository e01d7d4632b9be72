//! What each page shows, as JSON (the page's twin): read from the chain at its latest
//! finalized block, from the event index, and for a proposal from its validators' evidence
//! reports. The HTML is rendered from exactly these values (`html.rs`; an arena's bonds,
//! challenges and revoked crowns in `stakes.rs`).

use cacheon::chain::{api, bounded, reads, stakes, At, ProposalStatus};
use serde_json::{json, Value};

use super::super::proposal::{proposal_json, verdict_records, with_endpoints};
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
                | "pass_sealed"
                | "pass_revealed"
                | "reveal_missed"
                | "failed"
                | "fail_recorded"
                | "crowned"
                | "no_decision"
                | "expired"
                | "attestations_disagreed"
                | "crown_revoked"
                | "challenge_rejected"
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
    let mut v = read_so_far(&at, &idx);
    v["arenas"] = json!(arenas);
    v["recent_verdicts"] = json!(recent);
    v["weights"] = json!(idx.epochs.last());
    Ok(v)
}

/// What every page built from the index says about it: the finalized `block` the chain
/// state was read at, how far the history is read (`indexed_to`, `indexed_from` on a
/// pruned node) and why reading stalled (`index_error`).
fn read_so_far(at: &At, idx: &super::index::Index) -> Value {
    json!({
        "block": at.block_number(),
        "indexed_to": idx.head,
        "indexed_from": idx.from,
        "index_error": idx.error,
    })
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
    let info = reads::fetch(
        &at,
        api::storage().cacheon().arenas(),
        (bounded(id.as_bytes()),),
    )
    .await
    .map_err(chain_err)?
    .ok_or_else(|| PageError::NotFound(format!("no arena `{id}`")))?;
    let contract = reads::contract_of(&info);
    let incumbents = reads::incumbents_of(&at, id.as_bytes())
        .await
        .map_err(chain_err)?;
    let mut stack = Vec::new();
    for (target, proposal) in incumbents {
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
        stack.push(
            json!({"target": target, "proposal": proposal, "miner": miner,
                          "speedup_ppm": speedup_ppm, "crowned_at": crowned_at}),
        );
    }
    let queue_ids = reads::fetch(
        &at,
        api::storage().cacheon().queue(),
        (bounded(id.as_bytes()),),
    )
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
    let stakes = super::stakes::arena_stakes(&at, id, &*s.index.read().await)
        .await
        .map_err(PageError::Chain)?;
    Ok(json!({
        "arena": id,
        "block": at.block_number(),
        "generation": info.generation,
        "contract": contract,
        "incumbents": stack,
        "queue": queue,
        "stakes": stakes,
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
        ProposalStatus::Failed { .. } => {
            reads::fail_verdict_at(&at, id).await.map_err(chain_err)?
        }
        _ => None,
    };
    let mut v = proposal_json(id, &p);
    let mut records = verdict_records(&p, final_fail.as_ref());
    with_endpoints(&at, &mut records).await.map_err(chain_err)?;
    let (fetch, failed) = (s.fetch.clone(), s.failed.clone());
    let records = tokio::task::spawn_blocking(move || with_reports(records, &fetch, &failed))
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
    let challenge = stakes::challenge_of_crown(&at, id)
        .await
        .map_err(chain_err)?
        .map(|(c, challenge)| stakes::challenge_json(c, &challenge, at.block_number()));
    v["challenge"] = json!(challenge);
    v["running"] = json!(crate::cmd::evidence::running_attempt(&at, id, &p.status).await);
    v["block"] = json!(at.block_number());
    v["min_margin_ppm"] = json!(margin_ppm);
    v["verdicts"] = json!(records);
    v["events"] = json!(s.index.read().await.of_proposal(id));
    Ok(v)
}

/// `/releases`: the engine releases marked on chain by a trusted release key, newest
/// first, each with the speedup its crowns brought: the product of their crowned speedups,
/// read from the chain while a crown stands (`Crowned` keeps it) and from the indexed
/// `crowned` event once it was retired (`None` when neither has it: a pruned node's index
/// may start after the crown).
pub async fn releases(s: &AppState) -> Result<Value, PageError> {
    let at = latest(s).await?;
    let idx = s.index.read().await;
    let mut releases = Vec::new();
    for r in idx.releases.iter().rev() {
        let mut speedup = Some(1.0);
        for p in r["proposals"].as_array().into_iter().flatten() {
            let p = p.as_u64().unwrap_or(u64::MAX);
            let standing = match reads::proposal_at(&at, p).await.map_err(chain_err)? {
                Some(q) => match q.status {
                    ProposalStatus::Crowned { speedup_ppm, .. } => Some(u64::from(speedup_ppm)),
                    _ => None,
                },
                None => None,
            };
            let ppm = standing.or_else(|| {
                idx.events
                    .iter()
                    .find(|e| e["event"] == "crowned" && e["proposal"] == p)
                    .and_then(|e| e["speedup_ppm"].as_u64())
            });
            speedup = speedup.zip(ppm).map(|(x, ppm)| x * ppm as f64 / 1e6);
        }
        let mut r = r.clone();
        r["speedup"] = json!(speedup);
        releases.push(r);
    }
    let mut v = read_so_far(&at, &idx);
    v["releases"] = json!(releases);
    Ok(v)
}

/// `/account/SS58`: what an account did as a miner (its proposals and their status now, its
/// crowns, what its evaluation fees held, paid and got back) and as a validator (its
/// verdicts, what they earned), from the event index and the chain's proposals.
pub async fn account(s: &AppState, id: &str) -> Result<Value, PageError> {
    use std::str::FromStr;
    let who = cacheon::chain::AccountId::from_str(id)
        .map_err(|_| PageError::NotFound(format!("`{id}` is not an SS58 account")))?
        .to_string();
    let at = latest(s).await?;
    let idx = s.index.read().await;
    let mut v = account_history(&idx.events, &who);
    with_statuses(&at, &mut v).await.map_err(chain_err)?;
    for (k, x) in read_so_far(&at, &idx).as_object().into_iter().flatten() {
        v[k] = x.clone();
    }
    Ok(v)
}

/// An account's history in the indexed events: `account`, `proposals` it revealed
/// (`proposal`, `block`, `arena`, `target`), `fees` as a miner (`held`, `paid`, `returned`,
/// planck as text), `crowns`, `verdicts` it attested by kind, `earned` (planck as text),
/// `verdicts_paid`, `stalls` (leases run out, NoDecisions, stale attestations) and
/// `disagreements` (a PASS and a FAIL of one proposal, one of them its) as an operator, and
/// every event that names it.
pub(in crate::cmd) fn account_history(events: &[Value], who: &str) -> Value {
    let names = |e: &Value| {
        e.as_object()
            .is_some_and(|o| o.iter().any(|(k, v)| is_account_field(k) && v == who))
    };
    let planck = |e: &Value| -> u128 {
        e["amount"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .unwrap_or(0)
    };
    let mine: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|e| e["event"] == "revealed" && e["miner"] == who)
        .filter_map(|e| e["proposal"].as_u64())
        .collect();
    let proposals: Vec<Value> = events
        .iter()
        .filter(|e| e["event"] == "revealed" && e["miner"] == who)
        .map(|e| json!({"proposal": e["proposal"], "block": e["block"], "arena": e["arena"], "target": e["target"]}))
        .collect();
    let (mut held, mut paid, mut returned, mut earned) = (0u128, 0u128, 0u128, 0u128);
    let (mut crowns, mut verdicts_paid, mut stalls, mut disagreements) = (0u32, 0u32, 0u32, 0u32);
    let mut verdicts: std::collections::BTreeMap<String, u32> = Default::default();
    for e in events {
        let name = e["event"].as_str().unwrap_or_default();
        let of_mine = e["proposal"].as_u64().is_some_and(|p| mine.contains(&p));
        match name {
            "evaluation_fee_held" if e["miner"] == who => held += planck(e),
            "evaluation_fee_returned" if e["miner"] == who => returned += planck(e),
            "crowned" if e["miner"] == who => crowns += 1,
            _ => {}
        }
        if name == "verdict_paid" {
            if of_mine {
                paid += planck(e);
            }
            if e["operator"] == who {
                earned += planck(e);
                verdicts_paid += 1;
            }
        }
        if e["validator"] == who {
            *verdicts.entry(name.to_string()).or_default() += 1;
            // Leases it let run out, attempts it ended without a decision, attestations
            // measured against an incumbent that had moved on.
            if matches!(
                name,
                "lease_expired" | "no_decision_recorded" | "attestation_stale"
            ) {
                stalls += 1;
            }
        }
        // A PASS and a FAIL of one proposal by two operators: this account was one of them.
        if name == "attestations_disagreed"
            && (e["pass_validator"] == who || e["fail_validator"] == who)
        {
            disagreements += 1;
        }
    }
    let named: Vec<Value> = events
        .iter()
        .filter(|e| names(e) || e["proposal"].as_u64().is_some_and(|p| mine.contains(&p)))
        .cloned()
        .collect();
    json!({
        "account": who,
        "proposals": proposals,
        "crowns": crowns,
        "fees": {"held": held.to_string(), "paid": paid.to_string(), "returned": returned.to_string()},
        "verdicts": verdicts,
        "earned": earned.to_string(),
        "verdicts_paid": verdicts_paid,
        "stalls": stalls,
        "disagreements": disagreements,
        "events": named,
    })
}

/// Gives each of an account history's `proposals` its `status` at `at` (`pruned` once the
/// chain has deleted it).
pub(in crate::cmd) async fn with_statuses(
    at: &At,
    history: &mut Value,
) -> Result<(), cacheon::chain::ChainError> {
    for p in history["proposals"].as_array_mut().into_iter().flatten() {
        let id = p["proposal"].as_u64().unwrap_or(0);
        let status = reads::proposal_at(at, id).await?;
        p["status"] = status.map_or(json!("pruned"), |s| proposal_json(id, &s)["status"].clone());
    }
    Ok(())
}

/// Event fields that hold an account.
fn is_account_field(key: &str) -> bool {
    super::super::display::is_account_key(key)
}

/// Timed pairs a page shows of one report (an attempt's budget is far below this).
const MAX_PAIRS: usize = 1000;
/// Characters of a report's detail a page shows.
const MAX_DETAIL: usize = 16 * 1024;
/// How long a failed fetch of a report is not tried again.
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// A report's timed reads as a page plots them: finite, positive, at most [`MAX_PAIRS`]
/// (a report is its validator's word: the digest proves who wrote it, not that it is sane).
fn reads(v: &Value) -> Vec<f64> {
    v.as_array()
        .into_iter()
        .flatten()
        .take(MAX_PAIRS)
        .map_while(|x| x.as_f64().filter(|x| x.is_finite() && *x > 0.0 && *x < 1e9))
        .collect()
}

/// A short text field of a report, cut to `max` characters.
fn cut(v: &Value, max: usize) -> Value {
    match v.as_str() {
        Some(s) if s.chars().count() > max => {
            json!(format!(
                "{}… (cut)",
                s.chars().take(max).collect::<String>()
            ))
        }
        Some(s) => json!(s),
        None => Value::Null,
    }
}

/// Each verdict with what its report says (stage, reason, detail, the speed reads and
/// interval, the machine), or why the report could not be had. A fetch that failed is not
/// tried again for [`RETRY_AFTER`] (`failed`: digest → when and why).
fn with_reports(
    mut records: Vec<Value>,
    fetch: &super::super::evidence::Fetch,
    failed: &super::Failures,
) -> Vec<Value> {
    for r in records.iter_mut() {
        let digest = r["evidence"].as_str().unwrap_or_default().to_string();
        if digest.is_empty() {
            // A sealed PASS: no evidence before the reveal.
            continue;
        }
        let recent = failed
            .lock()
            .ok()
            .and_then(|f| f.get(&digest).cloned())
            .filter(|(when, _)| when.elapsed() < RETRY_AFTER);
        if let Some((_, why)) = recent {
            r["report_error"] = json!(format!("{why} (tried less than a minute ago)"));
            continue;
        }
        let mut from = fetch.clone();
        from.from.extend(r["endpoint"].as_str().map(str::to_string));
        match from.report(&digest) {
            Ok(Some((report, _))) => {
                let speed = &report["speed"];
                let interval = &speed["interval"];
                let finite = ["speedup", "low", "high"]
                    .iter()
                    .all(|k| interval[*k].as_f64().is_some_and(f64::is_finite));
                r["report"] = json!({
                    "verdict": cut(&report["verdict"], 64), "stage": cut(&report["stage"], 64),
                    "reason": cut(&report["reason"], 256), "detail": cut(&report["detail"], MAX_DETAIL),
                    "machine": cut(&report["machine"], 256), "wall_ms": report["wall_ms"].as_u64(),
                    "baseline_ms": reads(&speed["baseline_ms"]),
                    "candidate_ms": reads(&speed["candidate_ms"]),
                    "interval": if finite { interval.clone() } else { Value::Null },
                    "min_margin_ppm": speed["min_margin_ppm"].as_u64(),
                });
            }
            Ok(None) => r["report_error"] = json!("its validator publishes no evidence endpoint"),
            Err(why) => {
                if let Ok(mut f) = failed.lock() {
                    f.insert(digest, (std::time::Instant::now(), why.clone()));
                }
                r["report_error"] = json!(why);
            }
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
    let epoch_blocks = reads::fetch(&at, api::storage().cacheon().emissions(), ())
        .await
        .map_err(chain_err)?
        .map(|e| e.epoch_blocks as u64);
    let idx = s.index.read().await;
    let mut v = read_so_far(&at, &idx);
    v["current"] = json!({"epoch": epoch, "weights": current});
    v["epochs"] = json!(idx.epochs);
    v["earnings"] = json!(earnings(&idx.events, epoch_blocks));
    Ok(v)
}

/// What each operator's verdicts earned from evaluation fees (`verdict_paid` events), per
/// epoch (the block's, as the chain counts epochs: `block / epoch_blocks`; 0 without an
/// emissions policy): `{epoch, operator, amount, verdicts}`, oldest epoch first.
fn earnings(events: &[Value], epoch_blocks: Option<u64>) -> Vec<Value> {
    let mut sums: std::collections::BTreeMap<(u64, String), (u128, u32)> = Default::default();
    for e in events.iter().filter(|e| e["event"] == "verdict_paid") {
        let block = e["block"].as_u64().unwrap_or(0);
        let epoch = epoch_blocks.filter(|b| *b > 0).map_or(0, |b| block / b);
        let operator = e["operator"].as_str().unwrap_or_default().to_string();
        let amount: u128 = e["amount"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .unwrap_or(0);
        let sum = sums.entry((epoch, operator)).or_default();
        sum.0 = sum.0.saturating_add(amount);
        sum.1 += 1;
    }
    sums.into_iter()
        .map(|((epoch, operator), (amount, verdicts))| {
            json!({"epoch": epoch, "operator": operator, "amount": amount.to_string(), "verdicts": verdicts})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accounts_history_sums_its_fees_as_miner_and_operator() {
        let events = vec![
            json!({"event": "revealed", "proposal": 1, "block": 2, "miner": "charlie", "arena": "cpu-tiny", "target": "t"}),
            json!({"event": "revealed", "proposal": 2, "block": 2, "miner": "eve", "arena": "cpu-tiny", "target": "t"}),
            json!({"event": "evaluation_fee_held", "proposal": 1, "block": 2, "miner": "charlie", "amount": "100"}),
            json!({"event": "pass_sealed", "proposal": 1, "block": 5, "validator": "alice"}),
            json!({"event": "verdict_paid", "proposal": 1, "block": 9, "operator": "alice", "amount": "50"}),
            json!({"event": "verdict_paid", "proposal": 1, "block": 9, "operator": "bob", "amount": "50"}),
            json!({"event": "crowned", "proposal": 1, "block": 9, "miner": "charlie"}),
            json!({"event": "verdict_paid", "proposal": 2, "block": 12, "operator": "alice", "amount": "7"}),
            json!({"event": "evaluation_fee_returned", "proposal": 2, "block": 12, "miner": "eve", "amount": "93"}),
            json!({"event": "lease_expired", "proposal": 2, "block": 10, "validator": "bob", "attempts": 1}),
            json!({"event": "no_decision_recorded", "proposal": 2, "block": 11, "validator": "bob", "attempts": 2}),
            json!({"event": "attestations_disagreed", "proposal": 2, "block": 11, "pass_validator": "dave", "fail_validator": "alice"}),
        ];
        let charlie = account_history(&events, "charlie");
        assert_eq!(charlie["proposals"].as_array().unwrap().len(), 1);
        assert_eq!(
            charlie["fees"],
            json!({"held": "100", "paid": "100", "returned": "0"})
        );
        assert_eq!(charlie["crowns"], 1);
        assert_eq!(
            charlie["events"].as_array().unwrap().len(),
            6,
            "{charlie:#}"
        );
        let alice = account_history(&events, "alice");
        assert_eq!(alice["earned"], "57");
        assert_eq!(alice["verdicts_paid"], 2);
        assert_eq!(alice["verdicts"], json!({"pass_sealed": 1}));
        assert!(alice["proposals"].as_array().unwrap().is_empty());
        assert_eq!(
            (alice["stalls"].as_u64(), alice["disagreements"].as_u64()),
            (Some(0), Some(1))
        );
        let bob = account_history(&events, "bob");
        assert_eq!(
            (bob["stalls"].as_u64(), bob["disagreements"].as_u64()),
            (Some(2), Some(0))
        );
        let eve = account_history(&events, "eve");
        assert_eq!(
            eve["fees"],
            json!({"held": "0", "paid": "7", "returned": "93"})
        );
    }

    #[test]
    fn earnings_sum_each_operators_paid_verdicts_per_epoch() {
        let paid = |block: u64, operator: &str, amount: &str| json!({"event": "verdict_paid", "block": block, "operator": operator, "amount": amount, "proposal": 1});
        let events = vec![
            paid(3, "alice", "100"),
            json!({"event": "crowned", "block": 3, "proposal": 1}),
            paid(3, "bob", "100"),
            paid(9, "alice", "50"),
            paid(12, "alice", "7"),
        ];
        assert_eq!(
            earnings(&events, Some(10)),
            vec![
                json!({"epoch": 0, "operator": "alice", "amount": "150", "verdicts": 2}),
                json!({"epoch": 0, "operator": "bob", "amount": "100", "verdicts": 1}),
                json!({"epoch": 1, "operator": "alice", "amount": "7", "verdicts": 1}),
            ]
        );
        // No emissions policy: one epoch, 0.
        assert_eq!(earnings(&events, None).len(), 2);
    }

    #[test]
    fn a_hostile_reports_reads_and_text_are_cut_to_what_a_page_can_show() {
        let many: Vec<f64> = (0..5000).map(|i| 10.0 + i as f64).collect();
        assert_eq!(reads(&json!(many)).len(), MAX_PAIRS);
        // Plotting stops at the first value that is no read (a string, NaN's null, a
        // negative or absurd time).
        assert_eq!(reads(&json!([1.0, 2.0, "x", 3.0])), vec![1.0, 2.0]);
        assert_eq!(reads(&json!([1.0, -2.0])), vec![1.0]);
        assert_eq!(reads(&json!([1e308, 1.0])), Vec::<f64>::new());
        assert!(reads(&json!({"not": "an array"})).is_empty());
        let long = "y".repeat(MAX_DETAIL + 10);
        let shown = cut(&json!(long), MAX_DETAIL);
        assert!(shown.as_str().unwrap().ends_with("(cut)"));
        assert_eq!(cut(&json!(3), 10), Value::Null);
    }
}
