//! `cacheon validator` (DESIGN 7): follows finalized blocks, leases proposals of the arenas
//! it serves in reveal order, runs one attempt at a time ([`crate::qualify::attempt`]) on
//! bundle bytes read from chain storage, stores the report content-addressed, indexes its
//! attempts in SQLite ([`store`]) and attests, confirming the attestation in a finalized
//! block. Before the screens it gathers the fingerprints of every earlier proposal
//! (cached in SQLite, so they outlive the chain's copy of the bytes) for the
//! copy screen ([`crate::fingerprint`]).
//!
//! Crash safety: the cursor (last finalized block whose events were processed) and every
//! attempt's state are persisted before the next step. On start, attempts that were still
//! running are abandoned to their lease expiry (NoDecision for the chain, never a miner
//! FAIL); finished reports whose lease is still held are attested; a lease that is no
//! longer held is never attested.

pub mod metrics;
pub mod store;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use codec::{Decode, Encode};
use subxt_signer::sr25519::Keypair;
use tracing::{debug, error, info, warn};

use crate::arena::{Arena, ChainArena};
use crate::chain::{self, api, unavailable, AccountId, ChainError, Client};
use crate::fingerprint::{fingerprint_of, Earlier};
use crate::qualify::{attempt, AttemptOptions};
use crate::screens::Outcome;
use cacheon_primitives::catalog::EngineDigests;
use cacheon_primitives::{FailReason, NoDecisionReason, Verdict};
use metrics::Metrics;
use store::{State, Store};

type ApiStatus = api::runtime_types::pallet_cacheon::types::ProposalStatus<AccountId, u32>;
type ApiProposal = api::runtime_types::pallet_cacheon::types::Proposal<AccountId, u32, u128>;

/// How a validator runs.
pub struct Config {
    pub url: String,
    pub key: Keypair,
    pub arenas: Vec<Arena>,
    pub data_dir: PathBuf,
    /// The `cacheon` binary (lanes are started from it).
    pub lane_exe: PathBuf,
    pub prometheus_port: Option<u16>,
    /// Per chain call (connection, finality).
    pub timeout: Duration,
}

fn db(e: rusqlite::Error) -> ChainError {
    ChainError::Input(format!("attempt index: {e}"))
}

/// Runs until the process is stopped; reconnects when the node goes away.
pub async fn run(cfg: Config) -> Result<(), ChainError> {
    std::fs::create_dir_all(&cfg.data_dir)
        .map_err(|e| ChainError::Input(format!("{}: {e}", cfg.data_dir.display())))?;
    let store = Store::open(&cfg.data_dir.join("validator.sqlite")).map_err(db)?;
    let metrics = Metrics::new();
    if let Some(port) = cfg.prometheus_port {
        let m = metrics.clone();
        tokio::spawn(async move {
            if let Err(e) = m.serve(port).await {
                warn!("metrics endpoint: {e}");
            }
        });
    }
    for a in store.in_state(State::Leased).map_err(db)? {
        warn!(
            proposal = a.proposal,
            expires_at = a.expires_at,
            "an attempt was interrupted: left to its lease expiry"
        );
        store
            .mark(a.proposal, a.expires_at, State::Abandoned, None)
            .map_err(db)?;
    }
    let me = chain::account(&cfg.key);
    info!(validator = %me, arenas = ?cfg.arenas.iter().map(|a| a.name).collect::<Vec<_>>(), "validator starting");
    loop {
        match session(&cfg, &store, &metrics, &me).await {
            Ok(()) => return Ok(()),
            Err(ChainError::Input(e)) => return Err(ChainError::Input(e)),
            Err(e) => {
                warn!("{e}; reconnecting in 2 s");
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        }
    }
}

/// One connection's life: follow finalized blocks until the subscription ends.
async fn session(
    cfg: &Config,
    store: &Store,
    metrics: &Metrics,
    me: &AccountId,
) -> Result<(), ChainError> {
    let client = chain::connect(&cfg.url, cfg.timeout).await?;
    check_served_arenas(&client, cfg).await?;
    let mut blocks = client.stream_blocks().await.map_err(unavailable)?;
    while let Some(block) = blocks.next().await {
        let block = block.map_err(unavailable)?;
        let n = block.number();
        metrics.last_finalized_block.set(n as i64);
        catch_up(&client, store, me, n).await?;
        // Decide on the newest finalized state, not on a block the stream had queued.
        let at = client.at_current_block().await.map_err(unavailable)?;
        for a in store.in_state(State::Reported).map_err(db)? {
            attest(&client, store, metrics, cfg, me, a).await?;
        }
        // Leases this process took whose attempt a lost connection cut short (a restart of
        // this process abandons them instead, in `run`): finish them while they are ours.
        for a in store.in_state(State::Leased).map_err(db)? {
            resume(&client, store, metrics, cfg, me, a).await?;
        }
        if let Some((id, arena)) = next_claimable(&at, cfg, me, metrics).await? {
            work_on(&client, store, metrics, cfg, me, id, arena).await?;
        }
    }
    Err(ChainError::Unavailable(
        "the finalized block subscription ended".into(),
    ))
}

/// Processes the events of every finalized block after the cursor, up to `head`.
async fn catch_up(
    client: &Client,
    store: &Store,
    me: &AccountId,
    head: u64,
) -> Result<(), ChainError> {
    let from = match store.cursor().map_err(db)? {
        Some(c) if c < head => (c + 1).max(head.saturating_sub(1000)),
        Some(_) => return Ok(()),
        None => head,
    };
    for b in from..=head {
        let at = client.at_block(b).await.map_err(unavailable)?;
        let events = at.events().fetch().await.map_err(unavailable)?;
        for e in events
            .find::<api::cacheon::events::LeaseExpired>()
            .flatten()
        {
            if &e.validator == me {
                for a in store.all().map_err(db)? {
                    if a.proposal == e.proposal
                        && matches!(a.state, State::Leased | State::Reported)
                    {
                        warn!(
                            proposal = a.proposal,
                            "our lease expired before an attestation"
                        );
                        store
                            .mark(a.proposal, a.expires_at, State::Abandoned, None)
                            .map_err(db)?;
                    }
                }
            }
        }
        // Every revealed bundle's fingerprint, while its bytes are surely in storage.
        for e in events.find::<api::cacheon::events::Revealed>().flatten() {
            remember_fingerprint(&at, store, &e.content_hash).await?;
        }
        for e in events.find::<api::cacheon::events::Crowned>().flatten() {
            info!(
                proposal = e.proposal,
                speedup_ppm = e.speedup_ppm,
                generation = e.generation,
                "crowned"
            );
        }
        store.set_cursor(b).map_err(db)?;
    }
    Ok(())
}

type At = subxt::client::ClientAtBlock<
    subxt::PolkadotConfig,
    subxt::client::OnlineClientAtBlockImpl<subxt::PolkadotConfig>,
>;

async fn proposal_at(at: &At, id: u64) -> Result<Option<ApiProposal>, ChainError> {
    at.storage()
        .try_fetch(api::storage().cacheon().proposals(), (id,))
        .await
        .map_err(unavailable)?
        .map(|v| v.decode().map_err(unavailable))
        .transpose()
}

type ApiArenaConfig = api::runtime_types::pallet_cacheon::types::ArenaConfig<u32>;

/// What the chain says of an arena, as far as this build must agree with it.
fn chain_view(c: &ApiArenaConfig) -> ChainArena {
    use api::runtime_types::cacheon_primitives::verdict::Backend as B;
    ChainArena {
        backend: match c.backend {
            B::Cpu => cacheon_primitives::Backend::Cpu,
            B::Cuda => cacheon_primitives::Backend::Cuda,
        },
        digests: EngineDigests {
            model: c.model_digest,
            workload: c.workload_digest,
            stock: c.stock_digest,
        },
        min_margin_ppm: c.policy.min_margin_ppm,
        max_noise_ppm: c.policy.max_noise_ppm,
    }
}

/// Says, once a connection, which served arenas this build may not measure for (the
/// chain's engine or policy differs) or that the chain does not have; those are skipped.
async fn check_served_arenas(client: &Client, cfg: &Config) -> Result<(), ChainError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    for arena in &cfg.arenas {
        let key = (chain::bounded(arena.name.as_bytes()),);
        match fetch(&at, api::storage().cacheon().arenas(), key).await? {
            None => warn!(
                arena = arena.name,
                "the chain has no such arena: not served"
            ),
            Some(info) => {
                if let Some(why) = arena.disagreement(&chain_view(&info.config)) {
                    error!("{why}: not served (run a build that matches the chain)");
                }
            }
        }
    }
    Ok(())
}

/// The earliest proposal of a served arena this validator may lease, by the pallet's rules
/// (`Claimant::eligible` and `in_turn`): reveal order; never a proposal of its operator's
/// keys, one its operator already stalled or failed, or the reproduction of its operator's
/// PASS; and the attempt that would crown only once the proposal's content priority is final
/// and no earlier proposal for an overlapping target is pending.
async fn next_claimable(
    at: &At,
    cfg: &Config,
    me: &AccountId,
    metrics: &Metrics,
) -> Result<Option<(u64, Arena)>, ChainError> {
    let reveal_window = at
        .constants()
        .entry(api::constants().cacheon().reveal_window())
        .map_err(unavailable)? as u64;
    let now = at.block_number();
    let mut depth = 0;
    let mut found = None;
    for arena in &cfg.arenas {
        let arena_id = || chain::bounded(arena.name.as_bytes());
        let queue = fetch(at, api::storage().cacheon().queue(), (arena_id(),))
            .await?
            .map(|q| q.0)
            .unwrap_or_default();
        depth += queue.len();
        if found.is_some() {
            continue;
        }
        let Some(operator) =
            fetch(at, api::storage().cacheon().validators(), (arena_id(), *me)).await?
        else {
            continue;
        };
        let Some(info) = fetch(at, api::storage().cacheon().arenas(), (arena_id(),)).await? else {
            continue;
        };
        // Never measure for an arena whose engine or policy is not the one this build runs.
        if arena.disagreement(&chain_view(&info.config)).is_some() {
            continue;
        }
        let required = info.config.policy.required_distinct_validators;
        let mut ahead: Vec<ApiTarget> = Vec::new();
        for id in queue {
            let Some(p) = proposal_at(at, id).await? else {
                continue;
            };
            let crowning = match &p.status {
                ApiStatus::Queued => Some(required <= 1),
                ApiStatus::ReproductionQueued { primary, .. } if primary.operator != operator => {
                    Some(true)
                }
                _ => None,
            };
            // Never the operator's own proposal, whichever of its keys (any arena) revealed it.
            let own = crowning.is_some()
                && (&p.miner == me
                    || p.miner == operator
                    || fetch(at, api::storage().cacheon().key_operators(), (p.miner,))
                        .await?
                        .is_some_and(|(o, _)| o == operator));
            let eligible = !own && !p.excluded.0.contains(&operator) && crowning.is_some();
            let spec = fetch(
                at,
                api::storage().cacheon().targets(),
                (chain::bounded(&p.target.0),),
            )
            .await?;
            let in_turn = crowning != Some(true)
                || (now >= p.commit_block as u64 + reveal_window
                    && spec
                        .as_ref()
                        .is_none_or(|s| !ahead.iter().any(|a| overlaps(a, s))));
            if eligible && in_turn {
                found = Some((id, *arena));
                break;
            }
            let pending = !matches!(
                p.status,
                ApiStatus::Crowned { .. }
                    | ApiStatus::Retired { .. }
                    | ApiStatus::Failed { .. }
                    | ApiStatus::Expired
                    | ApiStatus::Withdrawn
                    | ApiStatus::Dropped { .. }
            );
            if let Some(spec) = spec.filter(|_| pending) {
                ahead.push(spec);
            }
        }
    }
    metrics.queue_depth.set(depth as i64);
    Ok(found)
}

type ApiTarget = api::runtime_types::pallet_cacheon::types::TargetSpec;

/// As the pallet's `overlaps`: the same target, a shared member slot, or one displacing the
/// other.
fn overlaps(a: &ApiTarget, b: &ApiTarget) -> bool {
    let ids = |v: &[api::runtime_types::bounded_collections::bounded_vec::BoundedVec<u8>]| {
        v.iter().map(|i| i.0.clone()).collect::<Vec<_>>()
    };
    let (a_members, b_members) = (ids(&a.members.0), ids(&b.members.0));
    a.id.0 == b.id.0
        || a_members.iter().any(|m| b_members.contains(m))
        || ids(&a.displaces.0).contains(&b.id.0)
        || ids(&b.displaces.0).contains(&a.id.0)
}

/// One storage value at `at`, decoded; `None` when absent.
async fn fetch<A: subxt::storage::Address>(
    at: &At,
    address: A,
    keys: A::KeyParts,
) -> Result<Option<A::Value>, ChainError> {
    at.storage()
        .try_fetch(address, keys)
        .await
        .map_err(unavailable)?
        .map(|v| v.decode().map_err(unavailable))
        .transpose()
}

/// Leases `id`, runs the attempt, stores the report and attests.
async fn work_on(
    client: &Client,
    store: &Store,
    metrics: &Metrics,
    cfg: &Config,
    me: &AccountId,
    id: u64,
    arena: Arena,
) -> Result<(), ChainError> {
    let call = api::transactions().cacheon().claim(id);
    let (events, block) = match chain::submit(client, &call, &cfg.key, cfg.timeout).await {
        Ok(r) => r,
        Err(ChainError::Refused(e)) => {
            info!(
                proposal = id,
                "claim refused (another validator was first?): {e}"
            );
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let Some(Ok(leased)) = events.find_first::<api::cacheon::events::Leased>() else {
        return Err(unavailable("claim finalized without a Leased event"));
    };
    let phase = format!("{:?}", leased.phase).to_lowercase();
    store
        .record_lease(
            id,
            leased.expires_at as u64,
            leased.generation,
            &phase,
            arena.name,
        )
        .map_err(db)?;
    metrics.attestations.with_label_values(&["claim"]).inc();
    info!(
        proposal = id,
        phase,
        generation = leased.generation,
        expires_at = leased.expires_at,
        block,
        "leased"
    );

    let at = client.at_block(block).await.map_err(unavailable)?;
    run_attempt(
        client,
        store,
        metrics,
        cfg,
        me,
        id,
        leased.expires_at as u64,
        arena,
        &at,
    )
    .await
}

/// Runs the attempt of a lease `Leased` in the store (after a reconnect) if it is still
/// ours; otherwise marks it abandoned.
async fn resume(
    client: &Client,
    store: &Store,
    metrics: &Metrics,
    cfg: &Config,
    me: &AccountId,
    a: store::Attempt,
) -> Result<(), ChainError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    let arena = cfg.arenas.iter().find(|x| x.name == a.arena).copied();
    match arena {
        Some(arena) if lease_is_ours(&at, me, a.proposal, a.expires_at).await? => {
            info!(
                proposal = a.proposal,
                "resuming the attempt a lost connection cut short"
            );
            run_attempt(
                client,
                store,
                metrics,
                cfg,
                me,
                a.proposal,
                a.expires_at,
                arena,
                &at,
            )
            .await
        }
        _ => {
            warn!(
                proposal = a.proposal,
                "a lease whose attempt was cut short is no longer ours: abandoned"
            );
            store
                .mark(a.proposal, a.expires_at, State::Abandoned, None)
                .map_err(db)
        }
    }
}

/// Screens, times and reports the attempt of lease (`id`, `expires_at`), reading chain
/// state at `at`, then attests.
#[allow(clippy::too_many_arguments)]
async fn run_attempt(
    client: &Client,
    store: &Store,
    metrics: &Metrics,
    cfg: &Config,
    me: &AccountId,
    id: u64,
    expires_at: u64,
    arena: Arena,
    at: &At,
) -> Result<(), ChainError> {
    let Some(p) = proposal_at(at, id).await? else {
        return Err(unavailable(format!("proposal {id} vanished")));
    };
    let files = bundle_files(at, &p.content_hash).await;
    if let Ok(files) = &files {
        // Kept for later proposals' copy screens, also when this validator did not follow
        // the reveal.
        store
            .record_fingerprint(&p.content_hash, fingerprint_of(files))
            .map_err(db)?;
    }
    let stack = incumbent_stack(at, arena).await?;
    let earlier = earlier_proposals(at, store, id, p.commit_block as u64, &p.miner).await?;
    let seed = crate::qualify::fresh_seed();
    let started = Instant::now();
    let report = match files {
        Ok(files) => {
            let opts = AttemptOptions {
                lane_exe: cfg.lane_exe.clone(),
                seed,
                stack,
                deadlines: Default::default(),
                earlier: Some(earlier),
                copy_bandwidth: None,
            };
            tokio::task::spawn_blocking(move || attempt(&files, arena, &opts, &mut |_| {}))
                .await
                .map_err(|e| unavailable(format!("attempt task: {e}")))?
        }
        Err(detail) => {
            warn!(proposal = id, "{detail}");
            return finish(
                store,
                metrics,
                cfg,
                client,
                me,
                id,
                expires_at,
                Verdict::NoDecision {
                    reason: NoDecisionReason::Infrastructure,
                },
                "no_decision",
                serde_json::json!({"error": detail}),
                seed,
                started,
            )
            .await;
        }
    };
    let verdict = match &report.outcome {
        Outcome::Pass => Verdict::Pass {
            speedup_ppm: report.speedup_ppm.unwrap_or(0),
        },
        Outcome::Fail(f) => Verdict::Fail { reason: f.reason },
        Outcome::NoDecision { reason, .. } => Verdict::NoDecision { reason: *reason },
    };
    let outcome = report.verdict();
    let value = serde_json::to_value(&report).map_err(|e| unavailable(e.to_string()))?;
    finish(
        store, metrics, cfg, client, me, id, expires_at, verdict, outcome, value, seed, started,
    )
    .await
}

#[allow(clippy::too_many_arguments)]
async fn finish(
    store: &Store,
    metrics: &Metrics,
    cfg: &Config,
    client: &Client,
    me: &AccountId,
    id: u64,
    expires_at: u64,
    verdict: Verdict,
    outcome: &str,
    report: serde_json::Value,
    seed: u64,
    started: Instant,
) -> Result<(), ChainError> {
    let bytes = serde_json::to_vec_pretty(&report).expect("JSON");
    let (digest, _) = crate::evidence::store(&cfg.data_dir.join("evidence"), &bytes)
        .map_err(|e| ChainError::Input(format!("storing evidence: {e}")))?;
    let attempt_digest = hex::encode(cacheon_primitives::bundle::content_hash(
        &(me.0, id, expires_at, seed).encode(),
    ));
    store
        .record_report(
            id,
            expires_at,
            &verdict.encode(),
            &digest,
            &attempt_digest,
            outcome,
        )
        .map_err(db)?;
    metrics.attempts.with_label_values(&[outcome]).inc();
    metrics
        .attempt_seconds
        .observe(started.elapsed().as_secs_f64());
    info!(proposal = id, outcome, evidence = %digest, seconds = started.elapsed().as_secs_f64(), "attempt finished");
    if let Some(a) = store.get(id, expires_at).map_err(db)? {
        attest(client, store, metrics, cfg, me, a).await?;
    }
    Ok(())
}

/// Attests a reported attempt if its lease is still ours; otherwise abandons it.
async fn attest(
    client: &Client,
    store: &Store,
    metrics: &Metrics,
    cfg: &Config,
    me: &AccountId,
    a: store::Attempt,
) -> Result<(), ChainError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    if !lease_is_ours(&at, me, a.proposal, a.expires_at).await? {
        warn!(
            proposal = a.proposal,
            "the lease is no longer ours (expired, or already attested): not attesting"
        );
        return store
            .mark(a.proposal, a.expires_at, State::Abandoned, None)
            .map_err(db);
    }
    let verdict = a
        .verdict
        .as_deref()
        .and_then(|b| Verdict::decode(&mut &b[..]).ok())
        .ok_or_else(|| {
            ChainError::Input(format!("attempt {} has no readable verdict", a.proposal))
        })?;
    let digest = |h: &Option<String>| -> [u8; 32] {
        h.as_deref()
            .and_then(|h| hex::decode(h).ok())
            .and_then(|v| v.try_into().ok())
            .unwrap_or([0; 32])
    };
    let attestation = api::runtime_types::pallet_cacheon::types::Attestation {
        verdict: to_api(verdict),
        incumbent_generation: a.generation,
        evidence_digest: digest(&a.evidence),
        attempt_digest: digest(&a.attempt_digest),
    };
    let call = api::transactions()
        .cacheon()
        .attest(a.proposal, attestation);
    match chain::submit(client, &call, &cfg.key, cfg.timeout).await {
        Ok((_, block)) => {
            store
                .mark(a.proposal, a.expires_at, State::Attested, Some(block))
                .map_err(db)?;
            metrics.attestations.with_label_values(&["attest"]).inc();
            info!(proposal = a.proposal, block, "attestation finalized");
            Ok(())
        }
        Err(ChainError::Refused(e)) => {
            warn!(proposal = a.proposal, "attestation refused: {e}");
            store
                .mark(a.proposal, a.expires_at, State::Abandoned, None)
                .map_err(db)
        }
        Err(e) => Err(e),
    }
}

fn to_api(v: Verdict) -> api::runtime_types::cacheon_primitives::verdict::Verdict {
    use api::runtime_types::cacheon_primitives::verdict as t;
    match v {
        Verdict::Pass { speedup_ppm } => t::Verdict::Pass { speedup_ppm },
        Verdict::Fail { reason } => t::Verdict::Fail {
            reason: match reason {
                FailReason::Build => t::FailReason::Build,
                FailReason::Abi => t::FailReason::Abi,
                FailReason::Incorrect => t::FailReason::Incorrect,
                FailReason::GraphUnsafe => t::FailReason::GraphUnsafe,
                FailReason::NotFaster => t::FailReason::NotFaster,
                FailReason::BehaviourChanged => t::FailReason::BehaviourChanged,
                FailReason::Cheating => t::FailReason::Cheating,
                FailReason::CopyOf(p) => t::FailReason::CopyOf(p),
                FailReason::Policy => t::FailReason::Policy,
            },
        },
        Verdict::NoDecision { reason } => t::Verdict::NoDecision {
            reason: match reason {
                NoDecisionReason::Infrastructure => t::NoDecisionReason::Infrastructure,
                NoDecisionReason::Noise => t::NoDecisionReason::Noise,
                NoDecisionReason::Timeout => t::NoDecisionReason::Timeout,
            },
        },
    }
}

/// A bundle's canonical bytes from chain storage, with the ContentHash checked again.
async fn stored_bundle(at: &At, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
    let bytes = at
        .storage()
        .try_fetch(api::storage().cacheon().bundles(), (*hash,))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("bundle 0x{} is not in chain storage", hex::encode(hash)))?
        .decode()
        .map_err(|e| e.to_string())?
        .0;
    if &cacheon_primitives::bundle::content_hash(&bytes) != hash {
        return Err(format!(
            "stored bundle bytes do not hash to 0x{}",
            hex::encode(hash)
        ));
    }
    Ok(bytes)
}

/// A proposal's files from chain storage.
async fn bundle_files(
    at: &At,
    hash: &[u8; 32],
) -> Result<Vec<cacheon_kernels::BundleFile>, String> {
    let bytes = stored_bundle(at, hash).await?;
    cacheon_kernels::bundle::from_canonical_bytes(&bytes, cacheon_kernels::bundle::MAX_BUNDLE_BYTES)
        .map_err(|e| e.to_string())
}

/// Whether `me` holds the lease of `proposal` that ends at `expires_at`, still open at `at`.
async fn lease_is_ours(
    at: &At,
    me: &AccountId,
    proposal: u64,
    expires_at: u64,
) -> Result<bool, ChainError> {
    let lease = proposal_at(at, proposal)
        .await?
        .and_then(|p| match p.status {
            ApiStatus::Primary { lease } | ApiStatus::Reproduction { lease, .. } => Some(lease),
            _ => None,
        });
    Ok(lease.is_some_and(|l| {
        &l.validator == me && l.expires_at as u64 == expires_at && at.block_number() < expires_at
    }))
}

/// Every proposal with priority over `id` (an earlier commit block, or the same block and a
/// lower id: the chain's order for owners of one ContentHash) whose fingerprint is known,
/// marked by whether another miner revealed it (the miner's own too: an earliest match of its
/// own is no copy). A proposal revealed after `id` can have priority: a copier that got its
/// reveal in first still committed later. Fingerprints are cached when a reveal was followed
/// (or an earlier attempt read it), else computed from the bytes while the chain still stores
/// them; proposals whose bytes are gone and were never seen here are skipped (debug log).
async fn earlier_proposals(
    at: &At,
    store: &Store,
    id: u64,
    commit_block: u64,
    miner: &AccountId,
) -> Result<Vec<Earlier>, ChainError> {
    let next = at
        .storage()
        .try_fetch(api::storage().cacheon().next_proposal_id(), ())
        .await
        .map_err(unavailable)?
        .map(|v| v.decode().map_err(unavailable))
        .transpose()?
        .unwrap_or(0);
    let mut earlier = Vec::new();
    for q in (0..next).filter(|q| *q != id) {
        let Some(p) = proposal_at(at, q).await? else {
            continue;
        };
        if (p.commit_block as u64, q) > (commit_block, id) {
            continue;
        }
        if let Some(fingerprint) = remember_fingerprint(at, store, &p.content_hash).await? {
            earlier.push(Earlier {
                proposal: q,
                commit_block: p.commit_block as u64,
                fingerprint,
                other_miner: &p.miner != miner,
            });
        }
    }
    Ok(earlier)
}

/// A bundle's fingerprint from the cache, else computed from its bytes in storage at `at`
/// and cached; `None` when it does not decode or its manifest does not parse (cached too),
/// or its bytes are gone (not cached).
async fn remember_fingerprint(
    at: &At,
    store: &Store,
    hash: &[u8; 32],
) -> Result<Option<[u8; 32]>, ChainError> {
    if let Some(fp) = store.fingerprint(hash).map_err(db)? {
        return Ok(fp);
    }
    // A transport error is ours (the attempt must not go on without the comparison); bytes
    // no longer stored are a proposal this validator never saw while they were.
    let Some(stored) = at
        .storage()
        .try_fetch(api::storage().cacheon().bundles(), (*hash,))
        .await
        .map_err(unavailable)?
    else {
        debug!(
            content_hash = hex::encode(hash),
            "no fingerprint for the copy screen: the bundle is no longer stored"
        );
        return Ok(None);
    };
    let bytes = stored.decode().map_err(unavailable)?.0;
    let fp = cacheon_kernels::bundle::from_canonical_bytes(
        &bytes,
        cacheon_kernels::bundle::MAX_BUNDLE_BYTES,
    )
    .ok()
    .and_then(|files| fingerprint_of(&files));
    store.record_fingerprint(hash, fp).map_err(db)?;
    Ok(fp)
}

/// The arena's crowned bundles (canonical bytes), oldest proposal first.
async fn incumbent_stack(at: &At, arena: Arena) -> Result<Vec<Vec<u8>>, ChainError> {
    let mut entries = Vec::new();
    let mut it = at
        .storage()
        .iter(
            api::storage().cacheon().incumbents(),
            (chain::bounded(arena.name.as_bytes()),),
        )
        .await
        .map_err(unavailable)?;
    while let Some(kv) = it.next().await {
        let kv = kv.map_err(unavailable)?;
        let e = kv.value().decode().map_err(unavailable)?;
        entries.push((e.proposal, e.content_hash));
    }
    entries.sort();
    let mut stack = Vec::new();
    for (_, hash) in entries {
        stack.push(stored_bundle(at, &hash).await.map_err(unavailable)?);
    }
    Ok(stack)
}
