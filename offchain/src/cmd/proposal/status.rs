//! `status`: one proposal with its verdicts and their reports, or every arena's queue
//! and incumbents.

use cacheon::chain::{self, ChainError};
use cacheon::chain::{
    reads, stakes, PrimaryPass, Proposal, ProposalStatus, RecordedFail, RecordedPass, SealedPass,
};
use cacheon::exit;
use serde_json::json;

use crate::cmd::{display, Out};
use crate::ChainArgs;

use super::connect::{connect, fail};

/// A status's name, and whether it is final (crowned counts as final for `watch`).
pub fn status_name(s: &ProposalStatus) -> (&'static str, bool) {
    match s {
        ProposalStatus::Queued => ("queued", false),
        ProposalStatus::Primary { .. } => ("primary", false),
        ProposalStatus::ReproductionQueued { .. } => ("reproduction_queued", false),
        ProposalStatus::Reproduction { .. } => ("reproduction", false),
        ProposalStatus::Crowned { .. } => ("crowned", true),
        ProposalStatus::Retired { .. } => ("retired", true),
        ProposalStatus::Failed { .. } => ("failed", true),
        ProposalStatus::Expired => ("expired", true),
        ProposalStatus::Withdrawn => ("withdrawn", true),
        ProposalStatus::Dropped { .. } => ("dropped", true),
        ProposalStatus::Overturned { .. } => ("overturned", true),
        ProposalStatus::Revoked { .. } => ("revoked", true),
        ProposalStatus::AwaitingReveal { .. } => ("awaiting_reveal", false),
        ProposalStatus::NotQueued => ("not_queued", true),
    }
}

/// The verdicts a proposal's record names, each with its validator and evidence digest:
/// the PASSes of a crown or the primary PASS awaiting reproduction, a disputed FAIL
/// waiting for a second opinion, and the FAIL that ended it (`fail`, kept by the chain
/// beside the proposal).
pub(in crate::cmd) fn verdict_records(
    p: &Proposal,
    fail: Option<&RecordedFail>,
) -> Vec<serde_json::Value> {
    let pass = |r: &RecordedPass, role: &str| {
        json!({"role": role, "verdict": "pass", "validator": r.validator.to_string(),
               "speedup_ppm": r.speedup_ppm, "evidence": hex::encode(r.evidence_digest)})
    };
    let failed = |r: &RecordedFail, role: &str| {
        json!({"role": role, "verdict": "fail", "validator": r.validator.to_string(),
               "reason": format!("{:?}", r.reason), "evidence": hex::encode(r.evidence_digest)})
    };
    // A sealed PASS shows its validator and seal only: no speedup, no evidence before the
    // reveal.
    let sealed = |r: &SealedPass, role: &str| {
        json!({"role": role, "verdict": "pass", "validator": r.validator.to_string(),
               "seal": hex::encode(r.seal)})
    };
    let mut v = Vec::new();
    match &p.status {
        ProposalStatus::Crowned { passes, .. } => {
            v.extend(passes.0.iter().map(|r| pass(r, "crowning pass")))
        }
        ProposalStatus::ReproductionQueued { primary, .. }
        | ProposalStatus::Reproduction { primary, .. } => v.push(match primary {
            PrimaryPass::Open(r) => pass(r, "primary pass"),
            PrimaryPass::Sealed(r) => sealed(r, "sealed primary pass"),
        }),
        ProposalStatus::AwaitingReveal {
            primary,
            reproduction,
            ..
        } => {
            v.push(sealed(primary, "sealed primary pass"));
            v.push(pass(reproduction, "reproduction pass"));
        }
        _ => {}
    }
    if let Some(d) = &p.disputed {
        v.push(failed(d, "disputed fail"));
    }
    if let Some(f) = fail {
        v.push(failed(f, "final fail"));
    }
    v
}

/// Adds to each verdict record the `endpoint` its validator published on chain, if any.
pub(in crate::cmd) async fn with_endpoints(
    at: &chain::At,
    records: &mut [serde_json::Value],
) -> Result<(), ChainError> {
    for r in records.iter_mut() {
        let who = r["validator"]
            .as_str()
            .and_then(|v| v.parse::<chain::AccountId>().ok());
        if let Some(who) = who {
            if let Some(url) = reads::evidence_endpoint(at, &who).await? {
                r["endpoint"] = json!(url);
            }
        }
    }
    Ok(())
}

/// `records` with each report fetched (`fetch`), or why not, added; the lines that say so.
fn with_reports(records: &mut [serde_json::Value], fetch: &crate::cmd::evidence::Fetch) -> String {
    let mut text = String::new();
    for r in records.iter_mut() {
        let digest = r["evidence"].as_str().unwrap_or_default().to_string();
        text.push_str(&format!(
            "\n  {} by {}: {}{}, evidence {digest}",
            r["role"].as_str().unwrap_or_default(),
            display::who(r["validator"].as_str().unwrap_or_default()),
            r["verdict"].as_str().unwrap_or_default(),
            r["reason"]
                .as_str()
                .map(|x| format!(" {x}"))
                .unwrap_or_else(|| format!(" at {} ppm", r["speedup_ppm"])),
        ));
        if r["reason"]
            .as_str()
            .is_some_and(|x| x.starts_with("CopyOf"))
        {
            // The copy was measured and would have been crowned: the FAIL names that PASS.
            text.push_str("\n    (the report of the PASS that would have crowned the copy)");
        }
        if digest.is_empty() {
            // A sealed PASS: its evidence is not served before the reveal.
            text.push_str("\n    sealed: no evidence before the reveal");
            continue;
        }
        // The endpoints given with --from first, then the one the validator published.
        let mut from = fetch.clone();
        if let Some(url) = r["endpoint"].as_str() {
            from.from.push(url.to_string());
            text.push_str(&format!("\n    published at {url}/evidence/{digest}.json"));
        }
        match from.report(&digest) {
            Ok(Some((report, saved))) => {
                let summary = crate::cmd::evidence::describe(&report, &digest, &saved);
                for line in summary.lines() {
                    text.push_str(&format!("\n    {line}"));
                }
                r["report"] = json!({
                    "stage": report["stage"], "reason": report["reason"],
                    "detail": report["detail"], "interval": report["speed"]["interval"],
                    "saved": saved.display().to_string(),
                });
            }
            Ok(None) => text.push_str(&format!(
                "\n    report: cacheon evidence {digest} --from <the validator's endpoint> (it publishes none on chain)"
            )),
            Err(why) => {
                text.push_str(&format!("\n    report not fetched: {why}"));
                r["report_error"] = json!(why);
            }
        }
    }
    text
}

pub(in crate::cmd) fn proposal_json(id: u64, p: &Proposal) -> serde_json::Value {
    let (name, _) = status_name(&p.status);
    json!({
        "proposal": id,
        "miner": p.miner.to_string(),
        "arena": String::from_utf8_lossy(&p.arena.0),
        "target": String::from_utf8_lossy(&p.target.0),
        "content_hash": hex::encode(p.content_hash),
        "reveal_block": p.reveal_block,
        "attempts": p.attempts,
        "status": name,
        "status_detail": format!("{:?}", p.status),
    })
}

pub async fn status(
    out: &Out,
    proposal: Option<u64>,
    fetch: &crate::cmd::evidence::Fetch,
    c: &ChainArgs,
) -> i32 {
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    if let Some(id) = proposal {
        let at = match client.at_current_block().await {
            Ok(a) => a,
            Err(e) => return fail(out, ChainError::Unavailable(e.to_string())),
        };
        let p = match reads::proposal_at(&at, id).await {
            Ok(Some(p)) => p,
            Ok(None) => return out.error(&format!("no proposal {id}"), exit::USAGE),
            Err(e) => return fail(out, e),
        };
        let final_fail = match &p.status {
            ProposalStatus::Failed { .. } => match reads::fail_verdict_at(&at, id).await {
                Ok(f) => f,
                Err(e) => return fail(out, e),
            },
            _ => None,
        };
        let block = at.block_number();
        let mut v = proposal_json(id, &p);
        // A revoked crown's revocation, a standing one's open challenge.
        let open = match stakes::challenge_of_crown(&at, id).await {
            Ok(c) => c,
            Err(e) => return fail(out, e),
        };
        v["revocation"] = json!(crate::cmd::challenge::revocation_json(&p.status));
        v["challenge"] =
            json!(open.map(|(c, challenge)| stakes::challenge_json(c, &challenge, block)));
        let challenge_lines =
            crate::cmd::challenge::challenge_lines(&v["revocation"], &v["challenge"]);
        let mut records = verdict_records(&p, final_fail.as_ref());
        // Where each verdict's validator publishes its evidence (tried after `--from`).
        if let Err(e) = with_endpoints(&at, &mut records).await {
            return fail(out, e);
        }
        // Reports are fetched (blocking sockets) off the async runtime's threads.
        let lines = tokio::task::block_in_place(|| with_reports(&mut records, fetch));
        v["verdicts"] = json!(records);
        out.emit(v.clone(), || {
            format!(
                "proposal {id} at finalized block #{block}: {}\n  miner {}\n  {} / {}\n  ContentHash 0x{}\n  attempts {}\n  {}{challenge_lines}{lines}",
                v["status"].as_str().unwrap_or_default(),
                display::who(v["miner"].as_str().unwrap_or_default()),
                v["arena"].as_str().unwrap_or_default(),
                v["target"].as_str().unwrap_or_default(),
                v["content_hash"].as_str().unwrap_or_default(),
                p.attempts,
                v["status_detail"].as_str().unwrap_or_default(),
            )
        });
        return exit::OK;
    }
    // The arenas, their queues and incumbents.
    let at = match client.at_current_block().await {
        Ok(a) => a,
        Err(e) => return fail(out, ChainError::Unavailable(e.to_string())),
    };
    let summaries = match reads::arena_summaries(&at).await {
        Ok(a) => a,
        Err(e) => return fail(out, e),
    };
    let mut arenas: Vec<serde_json::Value> = Vec::new();
    for a in summaries {
        let incumbents: Vec<_> = a
            .incumbents
            .iter()
            .map(|(target, proposal)| json!({"target": target, "proposal": proposal}))
            .collect();
        let challenges: Vec<_> = match stakes::open_challenges(&at, &a.id).await {
            Ok(open) => open
                .iter()
                .map(|(id, c)| json!({"challenge": id, "proposal": c.proposal, "deadline": c.deadline}))
                .collect(),
            Err(e) => return fail(out, e),
        };
        arenas.push(
            json!({"arena": a.id, "generation": a.generation, "queue": a.queue,
                           "incumbents": incumbents, "open_challenges": challenges}),
        );
    }
    let block = at.block_number();
    out.emit(json!({"block": block, "arenas": arenas}), || {
        let mut s = format!("finalized block #{block}\n");
        for a in &arenas {
            s.push_str(&format!(
                "  {}: generation {}, {} queued, {} crowned target(s)\n",
                a["arena"].as_str().unwrap_or_default(),
                a["generation"],
                a["queue"],
                a["incumbents"].as_array().map_or(0, |v| v.len())
            ));
            for c in a["open_challenges"].as_array().into_iter().flatten() {
                s.push_str(&format!(
                    "    crown {} challenged (challenge {}, deadline block #{}): `cacheon status {}`\n",
                    c["proposal"], c["challenge"], c["deadline"], c["proposal"]
                ));
            }
        }
        s
    });
    exit::OK
}
