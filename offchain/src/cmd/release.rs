//! `cacheon integrate PROPOSAL` (a maintainer turns a standing crown into an integrated
//! contribution) and `cacheon release build|verify` (a signed engine release from
//! integrated contributions, and its check). The objects and rules are in
//! `cacheon::release` and docs/release.md; this module reads the chain and runs the
//! verification cases.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cacheon::chain::{self, api, reads, ProposalStatus};
use cacheon::exit;
use cacheon::qualify::findings::{Outcome, ScreenOptions};
use cacheon::qualify::screens::run_screens;
use cacheon::release::{self, Contribution, FileDigest, Keys, Review};
use cacheon_kernels::bundle::BundleFile;
use serde_json::json;

use super::display::who;
use super::Out;
use crate::{ChainArgs, KeyArgs};

/// `cacheon release …`.
#[derive(clap::Subcommand)]
pub enum ReleaseCommand {
    /// Build an engine release of ARENA from integrated contributions (`cacheon integrate`),
    /// signed by a release key: each contribution checked (maintainer's signature, files,
    /// ContentHash), its pinned verification seeds run again, its library built; one kernel
    /// per target. Two builds of the same inputs on one toolchain give the same bytes.
    Build {
        #[arg(long)]
        arena: String,
        /// An integrated contribution's directory (repeat for each).
        #[arg(long = "contribution", required = true)]
        contributions: Vec<PathBuf>,
        /// The release directory to write (must not exist).
        #[arg(long)]
        into: PathBuf,
        /// Who may sign (default: the keys built in, offchain/release-keys.toml).
        #[arg(long)]
        keys: Option<PathBuf>,
        #[command(flatten)]
        key: KeyArgs,
    },
    /// Mark a verified release on chain, signed by a release key: a
    /// `System::remark_with_event` naming its digest, arena and proposals. The explorer
    /// lists the marks of the release keys it trusts (`/releases`), with the speedup each
    /// release's crowns brought.
    Mark {
        dir: PathBuf,
        #[arg(long)]
        keys: Option<PathBuf>,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Check a release: the release key's signature, every contribution and digest, no
    /// file the manifest does not name, the engine digests; each library built again here
    /// must be the release's byte for byte (unless --no-rebuild); with --check-chain, every
    /// kernel's crown on the chain at --url (crowned, or retired since; never revoked).
    Verify {
        dir: PathBuf,
        #[arg(long)]
        keys: Option<PathBuf>,
        #[arg(long)]
        no_rebuild: bool,
        #[arg(long)]
        check_chain: bool,
        #[command(flatten)]
        chain: ChainArgs,
    },
}

pub fn run(out: &Out, command: ReleaseCommand) -> i32 {
    match command {
        ReleaseCommand::Build {
            arena,
            contributions,
            into,
            keys,
            key,
        } => build(out, &arena, &contributions, &into, keys.as_deref(), &key),
        ReleaseCommand::Mark {
            dir,
            keys,
            key,
            chain,
        } => mark(out, &dir, keys.as_deref(), &key, &chain),
        ReleaseCommand::Verify {
            dir,
            keys,
            no_rebuild,
            check_chain,
            chain,
        } => verify(
            out,
            &dir,
            keys.as_deref(),
            !no_rebuild,
            check_chain.then_some(&chain),
        ),
    }
}

/// The latest finalized block of the node at `c` (a message and exit code when it cannot
/// be reached).
async fn latest_block(c: &ChainArgs) -> Result<chain::At, (String, i32)> {
    let unavailable = |e: chain::ChainError| (e.to_string(), e.exit_code());
    let client = chain::connect(&c.url, Duration::from_secs(c.timeout))
        .await
        .map_err(unavailable)?;
    client
        .at_current_block()
        .await
        .map_err(|e| unavailable(chain::unavailable(e)))
}

/// The crowned proposal `id` as an integration needs it: its record and its bundle's files
/// (checked against the ContentHash the chain holds).
async fn read_crown(
    id: u64,
    c: &ChainArgs,
) -> Result<(chain::Proposal, u64, u32, Vec<BundleFile>), (String, i32)> {
    let unavailable = |e: chain::ChainError| (e.to_string(), e.exit_code());
    let at = latest_block(c).await?;
    let p = reads::proposal_at(&at, id)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| (format!("no proposal {id}"), exit::USAGE))?;
    let (crowned_at, speedup_ppm) = match &p.status {
        ProposalStatus::Crowned { at, speedup_ppm, .. } => (*at as u64, *speedup_ppm),
        ProposalStatus::Retired { .. } => {
            return Err((
                format!("proposal {id} was crowned and has been superseded or displaced since: only a standing crown is integrated"),
                exit::FAIL,
            ))
        }
        ProposalStatus::Revoked { .. } => {
            return Err((format!("proposal {id}'s crown was revoked: it is never integrated"), exit::FAIL))
        }
        other => {
            return Err((
                format!("proposal {id} is not crowned ({}): only a crown is integrated", super::proposal::status_name(other).0),
                exit::FAIL,
            ))
        }
    };
    // The bytes the node serves are checked against the ContentHash before they unpack.
    let files = reads::bundle_files(&at, &p.content_hash)
        .await
        .map_err(|e| (format!("proposal {id}'s bundle: {e}"), exit::FAIL))?;
    Ok((p, crowned_at, speedup_ppm, files))
}

/// The verification cases of `files` in `arena` for `seed`, in a lane: the case count, or
/// why they did not pass.
fn run_cases(
    files: &[BundleFile],
    arena: cacheon::arena::Arena,
    exe: &Path,
    seed: u64,
) -> Result<usize, String> {
    let report = run_screens(
        files,
        arena,
        &ScreenOptions::new(exe.to_path_buf(), seed),
        &mut |_| {},
    );
    match report.outcome {
        Outcome::Pass => Ok(report.cases.len()),
        Outcome::Fail(f) => Err(format!(
            "{:?} at {}: {}",
            f.reason,
            f.stage.as_str(),
            f.detail
        )),
        Outcome::NoDecision { detail, .. } => Err(format!("no decision: {detail}")),
    }
}

/// What a key signs.
#[derive(Clone, Copy)]
enum Role {
    Maintainer,
    Release,
}

/// The signing key of `key`, its account and the key list (`keys`, else the embedded
/// one), if the list names the key for `role`; otherwise why not.
fn signing_key(
    key: &KeyArgs,
    keys: Option<&Path>,
    role: Role,
) -> Result<(subxt_signer::sr25519::Keypair, String, Keys), String> {
    let signer =
        chain::signer(key.suri.as_deref(), key.key_file.as_deref()).map_err(|e| e.to_string())?;
    let keys = Keys::load(keys).map_err(|e| e.to_string())?;
    let me = chain::account(&signer).to_string();
    let (allowed, name) = match role {
        Role::Maintainer => (&keys.maintainers, "maintainer"),
        Role::Release => (&keys.release, "release"),
    };
    if !allowed.contains(&me) {
        return Err(format!(
            "{} is not a {name} key (offchain/release-keys.toml, or --keys FILE)",
            who(&me)
        ));
    }
    Ok((signer, me, keys))
}

/// `cacheon integrate PROPOSAL --into DIR`.
pub fn integrate(
    out: &Out,
    id: u64,
    into: &Path,
    seeds: u32,
    keys: Option<&Path>,
    key: &KeyArgs,
    c: &ChainArgs,
) -> i32 {
    let (signer, me, _) = match signing_key(key, keys, Role::Maintainer) {
        Ok(x) => x,
        Err(msg) => return out.error(&msg, exit::USAGE),
    };
    if into.exists() {
        return out.error(
            &format!(
                "{} exists: an integration writes a new directory",
                into.display()
            ),
            exit::USAGE,
        );
    }
    let (p, crowned_at, speedup_ppm, files) = match super::block_on(read_crown(id, c)) {
        Ok(x) => x,
        Err((msg, code)) => return out.error(&msg, code),
    };
    let arena_name = String::from_utf8_lossy(&p.arena.0).into_owned();
    let Some(arena) = cacheon::arena::arena(&arena_name) else {
        return out.error(
            &format!("arena {arena_name} is unknown to this build"),
            exit::USAGE,
        );
    };
    let exe = match super::lane_exe(out) {
        Ok(e) => e,
        Err(code) => return code,
    };
    // The contribution's own tests: fresh seeds, every case passed, pinned in the record.
    let mut pinned = Vec::new();
    let mut cases = 0;
    for _ in 0..seeds.max(1) {
        let seed = match super::seed_or_fresh(out, None) {
            Ok(s) => s,
            Err(code) => return code,
        };
        match run_cases(&files, arena, &exe, seed) {
            Ok(n) => cases = n,
            Err(e) => {
                return out.error(
                    &format!("proposal {id} does not pass its verification here (seed {seed}): {e}; not integrated"),
                    exit::FAIL,
                )
            }
        }
        pinned.push(seed);
    }
    let miner = p.miner.to_string();
    let record = Contribution {
        format: release::CONTRIBUTION_FORMAT.into(),
        proposal: id,
        arena: arena_name.clone(),
        target: String::from_utf8_lossy(&p.target.0).into_owned(),
        content_hash: hex::encode(p.content_hash),
        crowned_at,
        speedup_ppm,
        miner: miner.clone(),
        files: files
            .iter()
            .map(|f| FileDigest {
                path: f.path.clone(),
                sha256: release::sha256_hex(&f.data),
            })
            .collect(),
        review: Review {
            maintainer: me.clone(),
            read: files.iter().map(|f| f.path.clone()).collect(),
            verify_seeds: pinned.clone(),
            cases,
            attribution: miner.clone(),
        },
    };
    let target = record.target.clone();
    if let Err(e) = release::write_contribution(into, record, &files, &signer) {
        return out.error(&e.to_string(), exit::USAGE);
    }
    out.emit(
        json!({"event": "integrated", "proposal": id, "arena": arena_name, "target": target,
            "dir": into.display().to_string(), "content_hash": hex::encode(p.content_hash),
            "crowned_at": crowned_at, "miner": miner, "maintainer": me, "verify_seeds": pinned,
            "cases": cases}),
        || {
            format!(
                "integrated proposal {id} ({target} on {arena_name}, by {}, crowned at #{crowned_at}) into {}: {} files, {cases} verification cases passed for each of {} pinned seeds; signed by {}",
                who(&miner),
                into.display(),
                files.len(),
                pinned.len(),
                who(&me)
            )
        },
    );
    exit::OK
}

fn build(
    out: &Out,
    arena: &str,
    contributions: &[PathBuf],
    into: &Path,
    keys: Option<&Path>,
    key: &KeyArgs,
) -> i32 {
    let (signer, me, keys) = match signing_key(key, keys, Role::Release) {
        Ok(x) => x,
        Err(msg) => return out.error(&msg, exit::USAGE),
    };
    let Some(arena) = cacheon::arena::arena(arena) else {
        return out.error(
            &format!("no arena `{arena}` ({})", cacheon::arena::names()),
            exit::USAGE,
        );
    };
    let exe = match super::lane_exe(out) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let rerun = |files: &[BundleFile], seed: u64| run_cases(files, arena, &exe, seed).map(|_| ());
    let inputs = release::BuildInputs {
        arena,
        contributions,
        keys: &keys,
        rerun: &rerun,
    };
    match release::build_release(&inputs, into, &signer) {
        Ok(r) => {
            let digest = r.digest();
            out.emit(
                json!({"event": "release_built", "dir": into.display().to_string(),
                    "release_digest": digest, "release": r}),
                || {
                    let mut s = format!(
                        "release of {} built into {} (release digest {digest}), signed by {}:",
                        r.arena,
                        into.display(),
                        who(&me)
                    );
                    s.push_str(&kernel_lines(&r));
                    s
                },
            );
            exit::OK
        }
        Err(e) => out.error(&format!("the release is not built: {e}"), exit::FAIL),
    }
}

fn mark(out: &Out, dir: &Path, keys: Option<&Path>, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let (signer, me, keys) = match signing_key(key, keys, Role::Release) {
        Ok(x) => x,
        Err(msg) => return out.error(&msg, exit::USAGE),
    };
    let v = match release::verify(dir, &keys, false) {
        Ok(v) => v,
        Err(e) => return out.error(&format!("the release is refused: {e}"), exit::FAIL),
    };
    let digest = v.release.digest();
    let remark = v.release.mark();
    let sent = super::block_on(async {
        let client = chain::connect(&c.url, Duration::from_secs(c.timeout)).await?;
        let call = api::transactions().system().remark_with_event(remark);
        chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await
    });
    match sent {
        Ok((_, block)) => {
            out.emit(
                json!({"event": "release_marked", "block": block, "release_digest": digest,
                    "arena": v.release.arena, "signer": me}),
                || {
                    format!(
                        "release {digest} ({}) marked on chain in finalized block #{block} by {}",
                        v.release.arena,
                        who(&me)
                    )
                },
            );
            exit::OK
        }
        Err(e) => out.error(&e.to_string(), e.exit_code()),
    }
}

fn kernel_lines(r: &release::Release) -> String {
    r.kernels
        .iter()
        .map(|k| {
            format!(
                "\n  #{} {} by {} ({:.4}x, crowned at #{}), lib {}…",
                k.proposal,
                k.target,
                who(&k.miner),
                k.speedup_ppm as f64 / 1e6,
                k.crowned_at,
                &k.library.sha256[..12]
            )
        })
        .collect()
}

fn verify(
    out: &Out,
    dir: &Path,
    keys: Option<&Path>,
    rebuild: bool,
    chain: Option<&ChainArgs>,
) -> i32 {
    let keys = match Keys::load(keys) {
        Ok(k) => k,
        Err(e) => return out.error(&e.to_string(), exit::USAGE),
    };
    let v = match release::verify(dir, &keys, rebuild) {
        Ok(v) => v,
        Err(e) => return out.error(&format!("the release is refused: {e}"), exit::FAIL),
    };
    let mut crowns = Vec::new();
    if let Some(c) = chain {
        match super::block_on(crowns_on_chain(&v.release, c)) {
            Ok(list) => crowns = list,
            Err((msg, code)) => return out.error(&msg, code),
        }
    }
    let digest = v.release.digest();
    out.emit(
        json!({"event": "release_verified", "dir": dir.display().to_string(), "release_digest": digest,
            "signer": v.signer, "arena": v.release.arena, "rebuilt": rebuild, "crowns": crowns,
            "kernels": v.release.kernels}),
        || {
            let mut s = format!(
                "verified release {} ({}, release.json SHA-256 {digest}), signed by {}{}{}:",
                dir.display(),
                v.release.arena,
                who(&v.signer),
                if rebuild { "; every library rebuilt here, identical" } else { "" },
                if chain.is_some() { "; every crown checked on chain" } else { "" },
            );
            s.push_str(&kernel_lines(&v.release));
            s
        },
    );
    exit::OK
}

/// Each kernel's crown on the chain: `[proposal, status]`; an error (exit 1) when one is
/// revoked, never crowned or holds other bytes.
async fn crowns_on_chain(
    r: &release::Release,
    c: &ChainArgs,
) -> Result<Vec<serde_json::Value>, (String, i32)> {
    let unavailable = |e: chain::ChainError| (e.to_string(), e.exit_code());
    let at = latest_block(c).await?;
    let mut out = Vec::new();
    for k in &r.kernels {
        let p = reads::proposal_at(&at, k.proposal)
            .await
            .map_err(unavailable)?
            .ok_or_else(|| {
                (
                    format!("proposal {} is not on this chain", k.proposal),
                    exit::FAIL,
                )
            })?;
        let status = super::proposal::status_name(&p.status).0;
        let was_crowned = matches!(
            p.status,
            ProposalStatus::Crowned { .. } | ProposalStatus::Retired { .. }
        );
        if !was_crowned || hex::encode(p.content_hash) != k.content_hash {
            return Err((
                format!("proposal {}'s crown does not stand behind this release: it is {status} on chain with ContentHash {}", k.proposal, hex::encode(p.content_hash)),
                exit::FAIL,
            ));
        }
        out.push(json!([k.proposal, status]));
    }
    Ok(out)
}
