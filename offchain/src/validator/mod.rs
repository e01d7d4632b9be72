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
//!
//! Crown challenges: besides proposals, it answers the open challenges of the served arenas
//! its operator may answer (`answer`): it leases one, re-qualifies the crown with one
//! attempt against the incumbent stack without it, and answers with the verdict and the
//! report's digest, with the same crash safety.
//!
//! Files: this one runs the loop and a proposal lease's attempt and attestation; `claim`
//! picks the next lease; `measure` runs one attempt for a lease (a proposal's, or a
//! challenge's re-qualification); `answer` the challenges; `seal` sealed primary PASSes
//! and their reveals; `earlier` the copy screen's reads; [`store`] the SQLite index;
//! [`metrics`] the Prometheus endpoint.

mod answer;
mod claim;
mod earlier;
mod error;
pub mod live;
mod measure;
pub mod metrics;
mod seal;
pub mod store;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use codec::{Decode, Encode};
use subxt_signer::sr25519::Keypair;
use tracing::{debug, error, info, warn};

use crate::arena::Arena;
use crate::chain::reads::{bundle_files, fetch, incumbent_stack, lease_is_ours, proposal_at};
use crate::chain::At;
use crate::chain::{self, api, unavailable, AccountId, ChainError, Client};
use crate::fingerprint::{Earlier, Fingerprint};
use crate::qualify::findings::Outcome;
use crate::qualify::{attempt, AttemptOptions};
use answer::next_answerable;
use cacheon_primitives::{FailReason, NoDecisionReason, Verdict};
use claim::{check_served_arenas, contract_disagreement, next_claimable};
use earlier::*;
pub use error::ValidatorError;
use measure::{Finished, Subject};
use metrics::Metrics;
use store::{State, Store};

use crate::chain::ProposalStatus as ApiStatus;

/// How a validator runs.
pub struct Config {
    pub url: String,
    pub key: Keypair,
    pub arenas: Vec<Arena>,
    pub data_dir: PathBuf,
    /// The `cacheon` binary (lanes are started from it).
    pub lane_exe: PathBuf,
    pub prometheus_port: Option<u16>,
    /// Where miners reach the evidence endpoint, published on chain at start (`Some("")`
    /// withdraws it; `None` leaves the chain's record alone).
    pub public_url: Option<String>,
    /// Per chain call (connection, finality).
    pub timeout: Duration,
}

/// Runs until the process is stopped; reconnects when the node goes away.
pub async fn run(cfg: Config) -> Result<(), ValidatorError> {
    std::fs::create_dir_all(&cfg.data_dir)
        .map_err(|e| ValidatorError::Storage(format!("{}: {e}", cfg.data_dir.display())))?;
    let store = Store::open(&cfg.data_dir.join("validator.sqlite"))?;
    let metrics = Metrics::new();
    if let Some(port) = cfg.prometheus_port {
        let m = metrics.clone();
        let data_dir = cfg.data_dir.clone();
        tokio::spawn(async move {
            if let Err(e) = m.serve(port, data_dir).await {
                warn!("metrics endpoint: {e}");
            }
        });
    }
    for a in store.in_state(State::Leased)? {
        warn!(
            proposal = a.proposal,
            expires_at = a.expires_at,
            "an attempt was interrupted: left to its lease expiry"
        );
        store.mark(a.proposal, a.expires_at, State::Abandoned, None)?;
    }
    for a in store.challenges_in_state(State::Leased)? {
        warn!(
            challenge = a.challenge,
            expires_at = a.expires_at,
            "a re-qualification was interrupted: its challenge lease is left to lapse"
        );
        store.mark_challenge(a.challenge, a.expires_at, State::Abandoned, None)?;
    }
    let me = chain::account(&cfg.key);
    info!(validator = %me, arenas = ?cfg.arenas.iter().map(|a| a.name()).collect::<Vec<_>>(), "validator starting");
    loop {
        match session(&cfg, &store, &metrics, &me).await {
            Ok(()) => return Ok(()),
            Err(e) if !e.is_transient() => return Err(e),
            Err(e) => {
                warn!("{e}; reconnecting in 2 s");
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        }
    }
}

/// One connection's state: the validator's settings, index and metrics, and the client.
struct Session<'a> {
    cfg: &'a Config,
    store: &'a Store,
    metrics: &'a Metrics,
    me: &'a AccountId,
    client: Client,
    /// One transaction of this key at a time: the reveal loop runs beside the work loop,
    /// and two submissions at once could take the same nonce.
    sending: tokio::sync::Mutex<()>,
}

/// A 32-byte digest stored as hex in the index.
fn hex32(h: Option<&str>) -> Option<[u8; 32]> {
    h.and_then(|h| hex::decode(h).ok())
        .and_then(|v| v.try_into().ok())
}

impl Session<'_> {
    /// Notes `call` (a metrics label) on attempt `a` finalized in `block`: the row moves to
    /// `state` with that block, the call is counted and logged.
    fn finalized(
        &self,
        a: &store::Attempt,
        state: State,
        block: u64,
        call: &str,
    ) -> Result<(), ValidatorError> {
        self.store
            .mark(a.proposal, a.expires_at, state, Some(block))?;
        self.metrics.attestations.with_label_values(&[call]).inc();
        info!(proposal = a.proposal, block, call, "finalized");
        Ok(())
    }

    /// Submits `call` signed by this validator's key and waits for its finalized block.
    async fn submit<Call: subxt::transactions::Payload>(
        &self,
        call: &Call,
    ) -> Result<(chain::Events, u64), ChainError> {
        let _one_at_a_time = self.sending.lock().await;
        chain::submit(&self.client, call, &self.cfg.key, self.cfg.timeout).await
    }
}

/// A lease this validator took: the proposal and the block its lease expires at (the key of
/// its attempt in the index).
#[derive(Clone, Copy, Debug)]
struct Lease {
    proposal: u64,
    expires_at: u64,
}

/// Publishes `url` as this key's evidence endpoint unless the chain already holds it (an
/// empty `url` withdraws the published one).
async fn publish_endpoint(
    client: &Client,
    cfg: &Config,
    me: &AccountId,
    url: &str,
) -> Result<(), ValidatorError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    let current = crate::chain::reads::evidence_endpoint(&at, me).await?;
    if current.as_deref().unwrap_or("") == url {
        return Ok(());
    }
    let call = api::tx()
        .cacheon()
        .set_evidence_endpoint(chain::bounded(url.as_bytes()));
    chain::submit(client, &call, &cfg.key, cfg.timeout).await?;
    if url.is_empty() {
        info!("evidence endpoint withdrawn on chain");
    } else {
        info!(endpoint = url, "evidence endpoint published on chain");
    }
    Ok(())
}

/// One connection's life: follow finalized blocks until the subscription ends.
async fn session(
    cfg: &Config,
    store: &Store,
    metrics: &Metrics,
    me: &AccountId,
) -> Result<(), ValidatorError> {
    let client = chain::connect(&cfg.url, cfg.timeout).await?;
    check_served_arenas(&client, cfg, metrics).await?;
    if let Some(url) = &cfg.public_url {
        // Not worth stopping for: the endpoint is for miners' convenience, the attestations
        // are what the chain needs.
        if let Err(e) = publish_endpoint(&client, cfg, me, url).await {
            warn!("evidence endpoint not published: {e}");
        }
    }
    let s = Session {
        cfg,
        store,
        metrics,
        me,
        client,
        sending: tokio::sync::Mutex::new(()),
    };
    // Sealed PASSes are revealed from their own loop: the chain waits `RevealTimeout` blocks
    // for a reveal, and an attempt of another lease may take longer than that.
    tokio::select! {
        r = work(&s) => r,
        r = s.reveal_sealed() => r,
    }
}

/// Follows finalized blocks: attests reported attempts, answers challenges, takes the next
/// lease and runs its attempt. Returns when the subscription ends or on an error.
async fn work(s: &Session<'_>) -> Result<(), ValidatorError> {
    let (cfg, store, metrics, me) = (s.cfg, s.store, s.metrics, s.me);
    let mut blocks = s.client.stream_blocks().await.map_err(unavailable)?;
    while let Some(block) = blocks.next().await {
        let block = block.map_err(unavailable)?;
        let n = block.number();
        metrics.last_finalized_block.set(n as i64);
        catch_up(&s.client, store, me, n).await?;
        // Decide on the newest finalized state, not on a block the stream had queued.
        let at = s.client.at_current_block().await.map_err(unavailable)?;
        for a in store.in_state(State::Reported)? {
            s.attest(a).await?;
        }
        // Leases this process took whose attempt a lost connection cut short (a restart of
        // this process abandons them instead, in `run`): finish them while they are ours.
        for a in store.in_state(State::Leased)? {
            s.resume(a).await?;
        }
        for a in store.challenges_in_state(State::Reported)? {
            s.answer(a).await?;
        }
        for a in store.challenges_in_state(State::Leased)? {
            s.resume_challenge(a).await?;
        }
        // A challenge first: an operator answers each at most once, so challenges cannot
        // starve the queue, and a wrong crown costs the arena until it is revoked.
        if let Some(c) = next_answerable(&at, cfg, me).await? {
            s.work_on_challenge(c).await?;
        } else if let Some((id, arena)) = next_claimable(&at, cfg, me, metrics).await? {
            s.work_on(id, arena).await?;
        }
    }
    Err(ChainError::Unavailable("the finalized block subscription ended".into()).into())
}

/// Processes the events of every finalized block after the cursor, up to `head`.
async fn catch_up(
    client: &Client,
    store: &Store,
    me: &AccountId,
    head: u64,
) -> Result<(), ValidatorError> {
    let from = match store.cursor()? {
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
                for a in store.all()? {
                    if a.proposal == e.proposal
                        && matches!(a.state, State::Leased | State::Reported)
                    {
                        warn!(
                            proposal = a.proposal,
                            "our lease expired before an attestation"
                        );
                        store.mark(a.proposal, a.expires_at, State::Abandoned, None)?;
                    }
                }
            }
        }
        // Every revealed bundle's fingerprint, while its bytes are surely in storage.
        for e in events.find::<api::cacheon::events::Revealed>().flatten() {
            remember_code(&at, store, &e.content_hash).await?;
        }
        for e in events.find::<api::cacheon::events::Crowned>().flatten() {
            info!(
                proposal = e.proposal,
                speedup_ppm = e.speedup_ppm,
                generation = e.generation,
                "crowned"
            );
        }
        for e in events
            .find::<api::cacheon::events::ChallengeOpened>()
            .flatten()
        {
            info!(
                challenge = e.challenge,
                proposal = e.proposal,
                deadline = e.deadline,
                "crown challenged"
            );
        }
        for e in events
            .find::<api::cacheon::events::CrownRevoked>()
            .flatten()
        {
            info!(challenge = e.challenge, proposal = e.proposal, reason = ?e.reason, "crown revoked");
        }
        store.set_cursor(b)?;
    }
    Ok(())
}

impl Session<'_> {
    /// Leases `id`, runs the attempt, stores the report and attests.
    async fn work_on(&self, id: u64, arena: Arena) -> Result<(), ValidatorError> {
        let call = api::transactions().cacheon().claim(id);
        let submitted = self.submit(&call).await;
        let (events, block) = match submitted {
            Ok(r) => r,
            Err(ChainError::Refused(e)) => {
                info!(
                    proposal = id,
                    "claim refused (another validator was first?): {e}"
                );
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        let Some(Ok(leased)) = events.find_first::<api::cacheon::events::Leased>() else {
            return Err(unavailable("claim finalized without a Leased event").into());
        };
        let phase = format!("{:?}", leased.phase).to_lowercase();
        let lease = Lease {
            proposal: id,
            expires_at: leased.expires_at as u64,
        };
        self.store.record_lease(
            id,
            lease.expires_at,
            leased.generation,
            &phase,
            arena.name(),
        )?;
        self.metrics
            .attestations
            .with_label_values(&["claim"])
            .inc();
        info!(
            proposal = id,
            phase,
            generation = leased.generation,
            expires_at = leased.expires_at,
            block,
            "leased"
        );
        let at = self.client.at_block(block).await.map_err(unavailable)?;
        self.run_attempt(lease, arena, &at).await
    }

    /// The arena of this validator's called `name`, if it serves one (a lease recorded before
    /// a restart may name an arena it no longer serves).
    fn served_arena(&self, name: &str) -> Option<Arena> {
        self.cfg.arenas.iter().find(|x| x.name() == name).copied()
    }

    /// Runs the attempt of a lease `Leased` in the store (after a reconnect) if it is still
    /// ours; otherwise marks it abandoned.
    async fn resume(&self, a: store::Attempt) -> Result<(), ValidatorError> {
        let at = self.client.at_current_block().await.map_err(unavailable)?;
        let arena = self.served_arena(&a.arena);
        let lease = Lease {
            proposal: a.proposal,
            expires_at: a.expires_at,
        };
        match arena {
            Some(arena) if lease_is_ours(&at, self.me, a.proposal, a.expires_at).await? => {
                info!(
                    proposal = a.proposal,
                    "resuming the attempt a lost connection cut short"
                );
                self.run_attempt(lease, arena, &at).await
            }
            _ => {
                warn!(
                    proposal = a.proposal,
                    "a lease whose attempt was cut short is no longer ours: abandoned"
                );
                Ok(self
                    .store
                    .mark(a.proposal, a.expires_at, State::Abandoned, None)?)
            }
        }
    }

    /// Screens, times and reports the attempt of `lease`, reading chain state at `at`, then
    /// attests.
    async fn run_attempt(&self, lease: Lease, arena: Arena, at: &At) -> Result<(), ValidatorError> {
        let subject = Subject {
            proposal: lease.proposal,
            leave_out: None,
        };
        let finished = self.measure(subject, arena, at).await?;
        self.finish(lease, finished).await
    }

    /// Stores the report as evidence, indexes the attempt as reported and attests it.
    async fn finish(&self, lease: Lease, f: Finished) -> Result<(), ValidatorError> {
        let bytes = serde_json::to_vec_pretty(&f.report).expect("JSON");
        let (digest, _) = crate::evidence::store(&self.cfg.data_dir.join("evidence"), &bytes)
            .map_err(|e| ValidatorError::Storage(format!("storing evidence: {e}")))?;
        let attempt_digest = hex::encode(cacheon_primitives::bundle::content_hash(
            &(self.me.0, lease.proposal, lease.expires_at, f.seed).encode(),
        ));
        self.store.record_report(
            lease.proposal,
            lease.expires_at,
            &f.verdict.encode(),
            &digest,
            &attempt_digest,
            f.outcome,
        )?;
        let seconds = f.started.elapsed().as_secs_f64();
        self.metrics.attempts.with_label_values(&[f.outcome]).inc();
        self.metrics.attempt_seconds.observe(seconds);
        info!(proposal = lease.proposal, outcome = f.outcome, evidence = %digest, seconds, "attempt finished");
        if let Some(a) = self.store.get(lease.proposal, lease.expires_at)? {
            self.attest(a).await?;
        }
        Ok(())
    }

    /// Attests a reported attempt if its lease is still ours; otherwise abandons it.
    async fn attest(&self, a: store::Attempt) -> Result<(), ValidatorError> {
        let at = self.client.at_current_block().await.map_err(unavailable)?;
        if !lease_is_ours(&at, self.me, a.proposal, a.expires_at).await? {
            return self.seal_on_chain_or_abandon(&a, &at).await;
        }
        let verdict = a
            .verdict
            .as_deref()
            .and_then(|b| Verdict::decode(&mut &b[..]).ok())
            .ok_or_else(|| {
                ValidatorError::Storage(format!("attempt {} has no readable verdict", a.proposal))
            })?;
        if let Verdict::Pass { speedup_ppm } = verdict {
            if seal::must_seal(&at, &a, &verdict).await? {
                return self.attest_sealed(a, speedup_ppm).await;
            }
        }
        let digest = |h: &Option<String>| hex32(h.as_deref()).unwrap_or([0; 32]);
        let attestation = api::runtime_types::pallet_cacheon::types::Attestation {
            verdict: to_api(verdict),
            incumbent_generation: a.generation,
            evidence_digest: digest(&a.evidence),
            attempt_digest: digest(&a.attempt_digest),
        };
        let call = api::transactions()
            .cacheon()
            .attest(a.proposal, attestation);
        match self.submit(&call).await {
            Ok((_, block)) => self.finalized(&a, State::Attested, block, "attest"),
            Err(ChainError::Refused(e)) => {
                warn!(proposal = a.proposal, "attestation refused: {e}");
                Ok(self
                    .store
                    .mark(a.proposal, a.expires_at, State::Abandoned, None)?)
            }
            Err(e) => Err(e.into()),
        }
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
