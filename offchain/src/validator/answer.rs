//! Crown challenges, the validator's side (docs/settlement.md, "Crown challenges"): in each
//! served arena, the open challenges its operator may answer by the pallet's rules. It
//! leases one (`claim_challenge`), re-qualifies the challenged crown's bundle (its bytes are
//! on chain) with one attempt against the incumbent stack without that crown — the stack its
//! revocation would leave — and a fresh secret seed, stores the report as evidence and
//! answers (`answer_challenge`) with the verdict and the report's digest. A NoDecision (our
//! side failed, or the reads were too noisy) is not answered: the pallet lets each operator
//! answer once, and that answer would decide nothing; the lease lapses and the operator
//! leases the challenge again.
//!
//! Crash safety as for proposal leases: the lease is indexed before the attempt runs and the
//! report before the answer is sent; a restart abandons an interrupted attempt, and no answer
//! goes out under a lease that is no longer ours (it lapsed, or was answered).

use super::*;
use crate::chain::stakes::{self, Challenge};
use measure::{Finished, Subject};
use store::ChallengeAttempt;

/// Most operators that may hold a lease on, or have answered, one challenge: the pallet's
/// `MAX_CHALLENGE_TURNS` (a bound of its storage, not a constant in the metadata).
const MAX_CHALLENGE_TURNS: usize = 8;

/// A challenge lease this validator took: the challenge, the block its lease ends at, and
/// the challenged crown.
#[derive(Clone, Copy, Debug)]
struct ChallengeLease {
    challenge: u64,
    expires_at: u64,
    proposal: u64,
}

/// A challenge this validator may lease now.
pub(super) struct Answerable {
    pub(super) challenge: u64,
    pub(super) proposal: u64,
    pub(super) arena: Arena,
}

/// A validator key asking to answer a challenge, as the pallet's rules see it.
pub(super) struct Asker<'a> {
    pub(super) operator: &'a AccountId,
    /// The finalized block the decision is made at.
    pub(super) now: u64,
    /// The operator's bond in the challenge's arena, and the arena's required bond.
    pub(super) bonded: u128,
    pub(super) required: u128,
}

/// Why `asker` may not lease challenge `c`, as the pallet's error name (`claim_challenge`
/// would be refused with it), or `None` when it may. `belongs(account)` says whether an
/// account is the asker's key, its operator, or another key of its operator.
pub(super) fn refusal(
    c: &Challenge,
    asker: &Asker,
    belongs: impl Fn(&AccountId) -> bool,
) -> Option<&'static str> {
    let live = c
        .leases
        .0
        .iter()
        .filter(|l| l.expires_at as u64 > asker.now);
    if c.passes.0.iter().any(|p| &p.operator == asker.operator) {
        Some("PassedByOperator")
    } else if belongs(&c.miner) {
        Some("OwnProposal")
    } else if belongs(&c.challenger) {
        Some("OwnChallenge")
    } else if c.answers.0.iter().any(|a| &a.operator == asker.operator) {
        Some("AlreadyAnswered")
    } else if live.clone().any(|l| &l.operator == asker.operator) {
        Some("ChallengeLeaseHeld")
    } else if live.count() + c.answers.0.len() >= MAX_CHALLENGE_TURNS {
        Some("ChallengeFull")
    } else if asker.bonded < asker.required {
        Some("BondTooLow")
    } else {
        None
    }
}

/// The oldest open challenge of a served arena this validator may answer, whose crown's
/// bytes are still on chain. Challenges come before proposals in the loop: an operator
/// answers each at most once, so they cannot starve the queue.
pub(super) async fn next_answerable(
    at: &At,
    cfg: &Config,
    me: &AccountId,
) -> Result<Option<Answerable>, ValidatorError> {
    for arena in &cfg.arenas {
        let arena_id = || chain::bounded(arena.name().as_bytes());
        let open = stakes::open_challenges(at, arena.name()).await?;
        if open.is_empty() {
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
        if contract_disagreement(arena, &info).is_some() {
            continue;
        }
        let asker = Asker {
            operator: &operator,
            now: at.block_number(),
            bonded: stakes::stake_of(at, arena.name(), &operator).await?.bonded,
            required: stakes::required_bond(at, arena.name()).await?,
        };
        for (id, c) in open {
            let mut operators = Vec::new();
            for who in [c.miner, c.challenger] {
                let of = fetch(at, api::storage().cacheon().key_operators(), (who,)).await?;
                operators.push((who, of.map(|(o, _)| o)));
            }
            let belongs = |who: &AccountId| {
                who == me
                    || who == &operator
                    || operators
                        .iter()
                        .any(|(w, o)| w == who && o.as_ref() == Some(&operator))
            };
            if let Some(why) = refusal(&c, &asker, belongs) {
                debug!(
                    challenge = id,
                    proposal = c.proposal,
                    "not ours to answer: {why}"
                );
                continue;
            }
            if !crown_bytes_stored(at, c.proposal).await? {
                debug!(
                    challenge = id,
                    proposal = c.proposal,
                    "the challenged crown's bundle is no longer stored: nothing to re-qualify"
                );
                continue;
            }
            return Ok(Some(Answerable {
                challenge: id,
                proposal: c.proposal,
                arena: *arena,
            }));
        }
    }
    Ok(None)
}

/// Whether proposal `id` and its bundle's bytes are still in chain storage (a crown
/// superseded while challenged has released them).
async fn crown_bytes_stored(at: &At, id: u64) -> Result<bool, ValidatorError> {
    let Some(p) = proposal_at(at, id).await? else {
        return Ok(false);
    };
    let refs = fetch(
        at,
        api::storage().cacheon().bundle_refs(),
        (p.content_hash,),
    )
    .await?;
    Ok(refs.is_some_and(|n| n > 0))
}

/// Whether `me` holds the lease of challenge `id` that ends at `expires_at`, still open at
/// `at`.
async fn challenge_lease_is_ours(
    at: &At,
    me: &AccountId,
    id: u64,
    expires_at: u64,
) -> Result<bool, ChainError> {
    let now = at.block_number();
    Ok(stakes::challenge_at(at, id).await?.is_some_and(|c| {
        c.leases
            .0
            .iter()
            .any(|l| &l.validator == me && l.expires_at as u64 == expires_at && now < expires_at)
    }))
}

impl Session<'_> {
    /// Leases challenge `a`, re-qualifies its crown, stores the report and answers.
    pub(super) async fn work_on_challenge(&self, a: Answerable) -> Result<(), ValidatorError> {
        let call = api::transactions().cacheon().claim_challenge(a.challenge);
        let submitted = self.submit(&call).await;
        let (events, block) = match submitted {
            Ok(r) => r,
            Err(ChainError::Refused(e)) => {
                info!(challenge = a.challenge, "challenge lease refused: {e}");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        let leased = events
            .find::<api::cacheon::events::ChallengeLeased>()
            .flatten()
            .find(|e| &e.validator == self.me);
        let Some(leased) = leased else {
            return Err(
                unavailable("claim_challenge finalized without a ChallengeLeased event").into(),
            );
        };
        let lease = ChallengeLease {
            challenge: a.challenge,
            expires_at: leased.expires_at as u64,
            proposal: a.proposal,
        };
        self.store.record_challenge_lease(
            lease.challenge,
            lease.expires_at,
            lease.proposal,
            a.arena.name(),
        )?;
        self.metrics
            .attestations
            .with_label_values(&["claim_challenge"])
            .inc();
        info!(
            challenge = a.challenge,
            proposal = a.proposal,
            expires_at = lease.expires_at,
            block,
            "challenge leased: re-qualifying the crown against the stack without it"
        );
        let at = self.client.at_block(block).await.map_err(unavailable)?;
        self.requalify(lease, a.arena, &at).await
    }

    /// One attempt of the challenged crown's bundle against the stack without it, read at
    /// `at`; then the report is stored and the challenge answered.
    async fn requalify(
        &self,
        lease: ChallengeLease,
        arena: Arena,
        at: &At,
    ) -> Result<(), ValidatorError> {
        let subject = Subject {
            proposal: lease.proposal,
            leave_out: Some(lease.proposal),
        };
        let mut finished = self.measure(subject, arena, at).await?;
        finished.report["challenge"] = serde_json::json!({
            "challenge": lease.challenge,
            "proposal": lease.proposal,
            "stack": "the incumbent stack without the challenged crown",
        });
        self.finish_challenge(lease, finished).await
    }

    /// Stores the report as evidence, indexes the re-qualification as reported and answers.
    async fn finish_challenge(
        &self,
        lease: ChallengeLease,
        f: Finished,
    ) -> Result<(), ValidatorError> {
        let bytes = serde_json::to_vec_pretty(&f.report).expect("JSON");
        let (digest, _) = crate::evidence::store(&self.cfg.data_dir.join("evidence"), &bytes)
            .map_err(|e| ValidatorError::Storage(format!("storing evidence: {e}")))?;
        self.store.record_challenge_report(
            lease.challenge,
            lease.expires_at,
            &f.verdict.encode(),
            &digest,
            f.outcome,
        )?;
        let seconds = f.started.elapsed().as_secs_f64();
        self.metrics.attempts.with_label_values(&[f.outcome]).inc();
        self.metrics.attempt_seconds.observe(seconds);
        info!(challenge = lease.challenge, proposal = lease.proposal, outcome = f.outcome, evidence = %digest, seconds, "re-qualification finished");
        if let Some(a) = self
            .store
            .get_challenge(lease.challenge, lease.expires_at)?
        {
            self.answer(a).await?;
        }
        Ok(())
    }

    /// Answers a reported re-qualification if its lease is still ours; otherwise abandons it.
    /// A NoDecision is not answered (see below).
    pub(super) async fn answer(&self, a: ChallengeAttempt) -> Result<(), ValidatorError> {
        let at = self.client.at_current_block().await.map_err(unavailable)?;
        if !challenge_lease_is_ours(&at, self.me, a.challenge, a.expires_at).await? {
            warn!(
                challenge = a.challenge,
                "the challenge lease is no longer ours (lapsed, or already answered): not answering"
            );
            return Ok(self.store.mark_challenge(
                a.challenge,
                a.expires_at,
                State::Abandoned,
                None,
            )?);
        }
        let verdict = a
            .verdict
            .as_deref()
            .and_then(|b| Verdict::decode(&mut &b[..]).ok())
            .ok_or_else(|| {
                ValidatorError::Storage(format!(
                    "challenge {} has no readable verdict",
                    a.challenge
                ))
            })?;
        if let Verdict::NoDecision { reason } = verdict {
            // An answer would decide nothing and spend this operator's one answer: the lease
            // lapses instead, and the operator may lease the challenge again.
            warn!(challenge = a.challenge, ?reason, "no decision: not answering; the challenge lease is left to lapse and will be leased again");
            return Ok(self.store.mark_challenge(
                a.challenge,
                a.expires_at,
                State::Abandoned,
                None,
            )?);
        }
        let digest: [u8; 32] = a
            .evidence
            .as_deref()
            .and_then(|h| hex::decode(h).ok())
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| {
                ValidatorError::Storage(format!("challenge {} has no evidence digest", a.challenge))
            })?;
        let call =
            api::transactions()
                .cacheon()
                .answer_challenge(a.challenge, to_api(verdict), digest);
        match self.submit(&call).await {
            Ok((events, block)) => {
                self.store.mark_challenge(
                    a.challenge,
                    a.expires_at,
                    State::Attested,
                    Some(block),
                )?;
                let outcome = a.outcome.as_deref().unwrap_or("no_decision");
                self.metrics
                    .challenge_answers
                    .with_label_values(&[outcome])
                    .inc();
                self.metrics
                    .attestations
                    .with_label_values(&["answer_challenge"])
                    .inc();
                info!(
                    challenge = a.challenge,
                    proposal = a.proposal,
                    outcome,
                    block,
                    "challenge answer finalized"
                );
                log_challenge_end(&events, a.challenge);
                Ok(())
            }
            Err(ChainError::Refused(e)) => {
                warn!(challenge = a.challenge, "challenge answer refused: {e}");
                Ok(self
                    .store
                    .mark_challenge(a.challenge, a.expires_at, State::Abandoned, None)?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Runs the re-qualification of a challenge lease `Leased` in the store (after a lost
    /// connection) if it is still ours; otherwise marks it abandoned.
    pub(super) async fn resume_challenge(&self, a: ChallengeAttempt) -> Result<(), ValidatorError> {
        let at = self.client.at_current_block().await.map_err(unavailable)?;
        let arena = self.served_arena(&a.arena);
        let lease = ChallengeLease {
            challenge: a.challenge,
            expires_at: a.expires_at,
            proposal: a.proposal,
        };
        match arena {
            Some(arena)
                if challenge_lease_is_ours(&at, self.me, a.challenge, a.expires_at).await? =>
            {
                info!(
                    challenge = a.challenge,
                    "resuming the re-qualification a lost connection cut short"
                );
                self.requalify(lease, arena, &at).await
            }
            _ => {
                warn!(
                    challenge = a.challenge,
                    "a challenge lease whose attempt was cut short is no longer ours: abandoned"
                );
                Ok(self
                    .store
                    .mark_challenge(a.challenge, a.expires_at, State::Abandoned, None)?)
            }
        }
    }
}

/// Logs how an answer ended its challenge, if it did (a revocation or a rejection).
fn log_challenge_end(events: &chain::Events, challenge: u64) {
    use api::cacheon::events as ev;
    for e in events.find::<ev::CrownRevoked>().flatten() {
        if e.challenge == challenge {
            info!(challenge, proposal = e.proposal, reason = ?e.reason, slashed = e.slashed, "our answer revoked the crown");
        }
    }
    for e in events.find::<ev::ChallengeRejected>().flatten() {
        if e.challenge == challenge {
            info!(
                challenge,
                proposal = e.proposal,
                "our answer rejected the challenge: the crown stands"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::runtime_types::bounded_collections::bounded_vec::BoundedVec;
    use api::runtime_types::pallet_cacheon::types as t;

    fn account(n: u8) -> AccountId {
        AccountId::from([n; 32])
    }

    /// A challenge of a crown that operators 1 and 2 passed, Eve's (5) proposal, challenged
    /// by 6; operator 3 holds a lease until block 50.
    fn challenge() -> Challenge {
        let pass = |op: u8| t::RecordedPass {
            validator: account(op),
            operator: account(op),
            speedup_ppm: 1_100_000,
            generation: 1,
            evidence_digest: [op; 32],
            attempt_digest: [op; 32],
        };
        t::Challenge {
            proposal: 7,
            arena: BoundedVec(b"cpu-tiny".to_vec()),
            target: BoundedVec(b"activation.silu_and_mul".to_vec()),
            miner: account(5),
            challenger: account(6),
            bond: 100,
            passes: BoundedVec(vec![pass(1), pass(2)]),
            deadline: 1_000,
            leases: BoundedVec(vec![t::ChallengeLease {
                validator: account(3),
                operator: account(3),
                expires_at: 50,
            }]),
            answers: BoundedVec(vec![]),
        }
    }

    fn asks(c: &Challenge, operator: u8, now: u64, bonded: u128) -> Option<&'static str> {
        let op = account(operator);
        let asker = Asker {
            operator: &op,
            now,
            bonded,
            required: 10,
        };
        refusal(c, &asker, |who| who == &op)
    }

    #[test]
    fn only_an_operator_the_pallet_would_lease_to_may_answer() {
        let c = challenge();
        assert_eq!(asks(&c, 4, 10, 10), None, "a bonded bystander");
        assert_eq!(asks(&c, 1, 10, 10), Some("PassedByOperator"));
        assert_eq!(asks(&c, 5, 10, 10), Some("OwnProposal"));
        assert_eq!(asks(&c, 6, 10, 10), Some("OwnChallenge"));
        assert_eq!(asks(&c, 3, 10, 10), Some("ChallengeLeaseHeld"));
        assert_eq!(
            asks(&c, 3, 50, 10),
            None,
            "its lease lapsed: it may lease again"
        );
        assert_eq!(asks(&c, 4, 10, 9), Some("BondTooLow"));
        let mut answered = challenge();
        answered.answers.0.push(t::ChallengeAnswer {
            validator: account(4),
            operator: account(4),
            verdict: api::runtime_types::cacheon_primitives::verdict::Verdict::Pass {
                speedup_ppm: 1_100_000,
            },
            evidence_digest: [4; 32],
        });
        assert_eq!(asks(&answered, 4, 10, 10), Some("AlreadyAnswered"));
        let mut full = challenge();
        for n in 10..17 {
            full.leases.0.push(t::ChallengeLease {
                validator: account(n),
                operator: account(n),
                expires_at: 60,
            });
        }
        assert_eq!(asks(&full, 4, 10, 10), Some("ChallengeFull"));
        assert_eq!(asks(&full, 4, 60, 10), None, "every lease lapsed");
    }
}
