//! The miner's proposal commands, against a node: `commit`, `reveal`, `withdraw`,
//! `status`, `watch` (and the steps `submit.rs` chains).

use std::path::{Path, PathBuf};
use std::time::Duration;

use cacheon::arena;
use cacheon::chain::{self, api, unavailable, ChainError, Client};
use cacheon::exit;
use cacheon::qualify::screens;
use cacheon_kernels::bundle;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::events::describe;
use super::events::proposal_events;
use super::{display, Out, StateArgs};
use crate::{ChainArgs, KeyArgs};

use cacheon::chain::{reads, stakes, Proposal, ProposalStatus, RecordedFail, RecordedPass};

/// What `commit` keeps on disk so that `reveal` can find the salt, even after a crash.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CommitRecord {
    pub commitment: String,
    pub salt: String,
    pub arena: String,
    pub target: String,
    pub content_hash: String,
    pub account: String,
    pub dir: PathBuf,
    pub commit_block: Option<u64>,
    pub proposal: Option<u64>,
}

pub(super) fn record_path(state: &StateArgs, commitment: &str) -> PathBuf {
    state
        .dir()
        .join("commits")
        .join(format!("{commitment}.json"))
}

/// Writes the record atomically (temp file, fsync, rename).
pub(super) fn save_record(state: &StateArgs, r: &CommitRecord) -> std::io::Result<()> {
    use std::io::Write;
    let path = record_path(state, &r.commitment);
    let dir = path.parent().expect("a commits folder");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{}.tmp", r.commitment));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&serde_json::to_vec_pretty(r).expect("records serialize"))?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    std::fs::File::open(dir)?.sync_all()
}

pub(super) fn load_records(state: &StateArgs) -> Vec<CommitRecord> {
    let Ok(entries) = std::fs::read_dir(state.dir().join("commits")) else {
        return vec![];
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect()
}

pub(super) fn fail(out: &Out, e: ChainError) -> i32 {
    out.error(&e.to_string(), e.exit_code())
}

pub(super) async fn connect(out: &Out, c: &ChainArgs) -> Result<Client, i32> {
    chain::connect(&c.url, Duration::from_secs(c.timeout))
        .await
        .map_err(|e| fail(out, e))
}

fn random_salt() -> [u8; 32] {
    let mut salt = [0u8; 32];
    let ok = std::fs::File::open("/dev/urandom").and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut salt)
    });
    ok.expect("/dev/urandom is readable");
    salt
}

pub async fn commit(
    out: &Out,
    dir: &Path,
    arena_name: &str,
    target: Option<String>,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> i32 {
    match prepare_commit(out, dir, arena_name, target, key, state) {
        Ok(mut record) => send_commit(out, &mut record, key, c, state).await,
        Err(code) => code,
    }
}

/// A new commitment to the bundle in `dir`: static screen, fresh salt, and the record
/// saved on disk (before anything is sent, so the salt survives a crash).
pub(super) fn prepare_commit(
    out: &Out,
    dir: &Path,
    arena_name: &str,
    target: Option<String>,
    key: &KeyArgs,
    state: &StateArgs,
) -> Result<CommitRecord, i32> {
    let Some(arena) = arena::arena(arena_name) else {
        return Err(out.error(&format!("unknown arena `{arena_name}`"), exit::USAGE));
    };
    let files = match bundle::read_dir(dir) {
        Ok(f) => f,
        Err(e) => return Err(out.error(&format!("{}: {e}", dir.display()), exit::USAGE)),
    };
    // Refuse to spend a deposit on a bundle that cannot pass the static screen.
    let packed = match screens::static_screen(&files, arena) {
        Ok(p) => p,
        Err(f) => {
            return Err(out.error(
                &format!(
                    "{} fails the static screen ({} at {}): {}",
                    dir.display(),
                    screens::reason_name(f.reason),
                    f.stage.as_str(),
                    f.detail
                ),
                exit::FAIL,
            ))
        }
    };
    let target = target.unwrap_or_else(|| packed.manifest.target.id.to_string());
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return Err(fail(out, e)),
    };
    let account = chain::account(&signer);
    let salt = random_salt();
    let commitment = cacheon_primitives::commitment(
        &account.0,
        arena.name().as_bytes(),
        target.as_bytes(),
        &packed.content_hash,
        &salt,
    );
    let record = CommitRecord {
        commitment: hex::encode(commitment),
        salt: hex::encode(salt),
        arena: arena.name().to_string(),
        target,
        content_hash: hex::encode(packed.content_hash),
        account: account.to_string(),
        dir: dir.to_path_buf(),
        commit_block: None,
        proposal: None,
    };
    if let Err(e) = save_record(state, &record) {
        return Err(out.error(
            &format!("saving the commit record in {}: {e}", state.dir().display()),
            exit::USAGE,
        ));
    }
    Ok(record)
}

/// Sends a saved record's commitment and waits for it in a finalized block.
pub(super) async fn send_commit(
    out: &Out,
    record: &mut CommitRecord,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> i32 {
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let commitment: [u8; 32] = hex::decode(&record.commitment)
        .ok()
        .and_then(|v| v.try_into().ok())
        .expect("records hold 32-byte commitments");
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let call = api::transactions().cacheon().commit(commitment);
    let (_, block) =
        match chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await {
            Ok(r) => r,
            Err(e) => return fail(out, e),
        };
    record.commit_block = Some(block);
    let _ = save_record(state, record);
    out.emit(
        json!({"event": "committed", "commitment": record.commitment, "content_hash": record.content_hash,
               "arena": record.arena, "target": record.target, "block": block,
               "record": record_path(state, &record.commitment).display().to_string()}),
        || {
            format!(
                "committed 0x{} in finalized block #{block}\n  bundle 0x{} for {} on {}\n  salt kept in {}",
                record.commitment,
                record.content_hash,
                record.target,
                record.arena,
                record_path(state, &record.commitment).display()
            )
        },
    );
    exit::OK
}

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

pub(super) async fn reveal_steps(
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
    let deadline = std::time::Instant::now() + Duration::from_secs(c.timeout);
    loop {
        let at = match client.at_current_block().await {
            Ok(a) => a,
            Err(e) => return Err(fail(out, ChainError::Unavailable(e.to_string()))),
        };
        let commit_block = match reads::fetch(&at, api::storage().cacheon().commits(), (account, commitment)).await {
            Ok(Some(r)) => r.at as u64,
            Ok(None) => {
                return Err(out.error(
                    &format!("commitment 0x{} is not pending on chain (revealed, cancelled or never finalized)", record.commitment),
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

pub async fn withdraw(out: &Out, proposal: u64, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let call = api::transactions().cacheon().withdraw(proposal);
    match chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await {
        Ok((_, block)) => {
            out.emit(
                json!({"event": "withdrawn", "proposal": proposal, "block": block}),
                || format!("withdrew proposal {proposal} in finalized block #{block}"),
            );
            exit::OK
        }
        Err(e) => fail(out, e),
    }
}

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
    }
}

/// A proposal and the finalized block it was read at (the pallet's `proposal_status` view
/// function).
async fn fetch_proposal(client: &Client, id: u64) -> Result<Option<(u64, Proposal)>, ChainError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    let p = reads::proposal_at(&at, id).await?;
    Ok(p.map(|p| (at.block_number(), p)))
}

/// The verdicts a proposal's record names, each with its validator and evidence digest:
/// the PASSes of a crown or the primary PASS awaiting reproduction, a disputed FAIL
/// waiting for a second opinion, and the FAIL that ended it (`fail`, kept by the chain
/// beside the proposal).
pub(super) fn verdict_records(p: &Proposal, fail: Option<&RecordedFail>) -> Vec<serde_json::Value> {
    let pass = |r: &RecordedPass, role: &str| {
        json!({"role": role, "verdict": "pass", "validator": r.validator.to_string(),
               "speedup_ppm": r.speedup_ppm, "evidence": hex::encode(r.evidence_digest)})
    };
    let failed = |r: &RecordedFail, role: &str| {
        json!({"role": role, "verdict": "fail", "validator": r.validator.to_string(),
               "reason": format!("{:?}", r.reason), "evidence": hex::encode(r.evidence_digest)})
    };
    let mut v = Vec::new();
    match &p.status {
        ProposalStatus::Crowned { passes, .. } => {
            v.extend(passes.0.iter().map(|r| pass(r, "crowning pass")))
        }
        ProposalStatus::ReproductionQueued { primary, .. }
        | ProposalStatus::Reproduction { primary, .. } => v.push(pass(primary, "primary pass")),
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
pub(super) async fn with_endpoints(
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
fn with_reports(records: &mut [serde_json::Value], fetch: &super::evidence::Fetch) -> String {
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
        // The endpoints given with --from first, then the one the validator published.
        let mut from = fetch.clone();
        if let Some(url) = r["endpoint"].as_str() {
            from.from.push(url.to_string());
            text.push_str(&format!("\n    published at {url}/evidence/{digest}.json"));
        }
        match from.report(&digest) {
            Ok(Some((report, saved))) => {
                let summary = super::evidence::describe(&report, &digest, &saved);
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

pub(super) fn proposal_json(id: u64, p: &Proposal) -> serde_json::Value {
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
    fetch: &super::evidence::Fetch,
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
        v["revocation"] = json!(super::challenge::revocation_json(&p.status));
        v["challenge"] =
            json!(open.map(|(c, challenge)| stakes::challenge_json(c, &challenge, block)));
        let challenge_lines = super::challenge::challenge_lines(&v["revocation"], &v["challenge"]);
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
