//! Sealed PASSes (docs/settlement.md, "Blind verdicts"). Where two operators must agree, a
//! primary PASS goes on chain as a seal (`attest_sealed`), so the operator that reproduces
//! it cannot read its speedup or its evidence before attesting; once the reproduction has
//! PASSed, the chain waits `RevealTimeout` blocks for this validator to open the seal
//! (`reveal_pass`), then crowns. The salt is in the index before the seal is sent, and the
//! index's `sealed` rows are revealed from the loop, after a restart too. The report of a
//! sealed PASS is not served (the index publishes only `attested` rows) until it is revealed.

use std::io::Read;

use cacheon_primitives::pass_seal;

use super::*;
use crate::chain::{PrimaryPass, SealedPass};

/// Whether a reported attempt must be attested sealed: a PASS of a primary lease in an arena
/// where two operators must agree.
pub(super) async fn must_seal(
    at: &At,
    a: &store::Attempt,
    verdict: &Verdict,
) -> Result<bool, ValidatorError> {
    if a.phase != "primary" || !matches!(verdict, Verdict::Pass { .. }) {
        return Ok(false);
    }
    let key = (chain::bounded(a.arena.as_bytes()),);
    let info = fetch(at, api::storage().cacheon().arenas(), key).await?;
    Ok(info.is_some_and(|i| i.config.policy.required_distinct_validators >= 2))
}

/// This validator's sealed PASS that `status` holds, if any, and whether the chain now waits
/// for its reveal. (The same key may have sealed an earlier attempt of the same proposal:
/// callers compare the seal with the one their row opens.)
fn our_seal<'s>(status: &'s ApiStatus, me: &AccountId) -> Option<(&'s SealedPass, bool)> {
    let (primary, waits) = match status {
        ApiStatus::ReproductionQueued {
            primary: PrimaryPass::Sealed(p),
            ..
        }
        | ApiStatus::Reproduction {
            primary: PrimaryPass::Sealed(p),
            ..
        } => (p, false),
        ApiStatus::AwaitingReveal { primary, .. } => (primary, true),
        _ => return None,
    };
    (&primary.validator == me).then_some((primary, waits))
}

/// The pallet's refusals of a reveal that no retry changes.
const REFUSED_FOR_GOOD: [&str; 4] = [
    "SealMismatch",
    "BelowMargin",
    "SpeedupImplausible",
    "DuplicateEvidence",
];

/// Whether a proposal in `status` is still on its way (not ended): the report of a sealed
/// PASS that no longer counts is served only after that, so a later round cannot anchor on it.
fn pending(status: &ApiStatus) -> bool {
    matches!(
        status,
        ApiStatus::Queued
            | ApiStatus::Primary { .. }
            | ApiStatus::ReproductionQueued { .. }
            | ApiStatus::Reproduction { .. }
            | ApiStatus::AwaitingReveal { .. }
    )
}

/// 32 bytes from the kernel's random source.
fn fresh_salt() -> Result<[u8; 32], ValidatorError> {
    let mut salt = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut salt))
        .map_err(|e| ValidatorError::Storage(format!("no salt from /dev/urandom: {e}")))?;
    Ok(salt)
}

/// What opening the seal of attempt `a` takes: speedup, evidence and attempt digests, salt.
struct Opening {
    speedup_ppm: u32,
    evidence: [u8; 32],
    attempt: [u8; 32],
    salt: [u8; 32],
}

impl Opening {
    fn of(a: &store::Attempt, speedup_ppm: u32) -> Result<Opening, ValidatorError> {
        let missing = |what: &str| {
            ValidatorError::Storage(format!("sealed PASS of proposal {}: no {what}", a.proposal))
        };
        Ok(Opening {
            speedup_ppm,
            evidence: hex32(a.evidence.as_deref()).ok_or_else(|| missing("evidence digest"))?,
            attempt: hex32(a.attempt_digest.as_deref()).ok_or_else(|| missing("attempt digest"))?,
            salt: hex32(a.salt.as_deref()).ok_or_else(|| missing("salt"))?,
        })
    }

    fn seal(&self, proposal: u64, me: &AccountId, generation: u32) -> [u8; 32] {
        pass_seal(
            proposal,
            &me.0,
            generation,
            self.speedup_ppm,
            &self.evidence,
            &self.attempt,
            &self.salt,
        )
    }
}

fn speedup_of(a: &store::Attempt) -> Option<u32> {
    match a
        .verdict
        .as_deref()
        .and_then(|b| Verdict::decode(&mut &b[..]).ok())
    {
        Some(Verdict::Pass { speedup_ppm }) => Some(speedup_ppm),
        _ => None,
    }
}

impl Session<'_> {
    /// Attests reported PASS `a` sealed (its lease still ours): keeps a salt in the index
    /// first, then sends the seal.
    pub(super) async fn attest_sealed(
        &self,
        a: store::Attempt,
        speedup_ppm: u32,
    ) -> Result<(), ValidatorError> {
        let salt = self
            .store
            .keep_salt(a.proposal, a.expires_at, &hex::encode(fresh_salt()?))?;
        let a = store::Attempt {
            salt: Some(salt),
            ..a
        };
        let seal = Opening::of(&a, speedup_ppm)?.seal(a.proposal, self.me, a.generation);
        let call = api::transactions()
            .cacheon()
            .attest_sealed(a.proposal, a.generation, seal);
        info!(proposal = a.proposal, seal = %hex::encode(seal), "sealing a PASS");
        match self.submit(&call).await {
            Ok((_, block)) => self.finalized(&a, State::Sealed, block, "attest_sealed"),
            Err(ChainError::Refused(e)) => {
                // The pool refuses a resubmission of a seal that is already on its way: the
                // chain decides whether it is there.
                warn!(proposal = a.proposal, "sealed PASS refused: {e}");
                let at = self.client.at_current_block().await.map_err(unavailable)?;
                self.seal_on_chain_or_abandon(&a, &at).await
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Follows finalized blocks and reveals this validator's sealed PASSes as soon as the
    /// chain waits for them, beside the loop that runs attempts (an attempt can outlast the
    /// reveal's deadline). Returns when the subscription ends or on an error.
    pub(super) async fn reveal_sealed(&self) -> Result<(), ValidatorError> {
        let mut blocks = self.client.stream_blocks().await.map_err(unavailable)?;
        while let Some(block) = blocks.next().await {
            block.map_err(unavailable)?;
            for a in self.store.in_state(State::Sealed)? {
                self.reveal(a).await?;
            }
        }
        Err(ChainError::Unavailable("the finalized block subscription ended".into()).into())
    }

    /// A reported attempt whose lease is no longer ours: if it is a PASS whose seal the
    /// chain holds (the seal was finalized, then this process stopped before it noted so),
    /// it is sealed; otherwise nothing of it will be attested.
    pub(super) async fn seal_on_chain_or_abandon(
        &self,
        a: &store::Attempt,
        at: &At,
    ) -> Result<(), ValidatorError> {
        if let (Some(speedup), Some(p)) = (speedup_of(a), proposal_at(at, a.proposal).await?) {
            if let (Some((sealed, _)), Ok(open)) =
                (our_seal(&p.status, self.me), Opening::of(a, speedup))
            {
                if sealed.seal == open.seal(a.proposal, self.me, a.generation) {
                    info!(proposal = a.proposal, "our sealed PASS is on chain");
                    return Ok(self
                        .store
                        .mark(a.proposal, a.expires_at, State::Sealed, None)?);
                }
            }
        }
        warn!(
            proposal = a.proposal,
            "the lease is no longer ours (expired, or already attested): not attesting"
        );
        Ok(self
            .store
            .mark(a.proposal, a.expires_at, State::Abandoned, None)?)
    }

    /// Reveals sealed PASS `a` once the chain waits for it; leaves it while the
    /// reproduction is still to come; marks it done once the chain no longer holds it (the
    /// proposal moved on: a missed reveal, a dropped PASS, an expiry).
    pub(super) async fn reveal(&self, a: store::Attempt) -> Result<(), ValidatorError> {
        let at = self.client.at_current_block().await.map_err(unavailable)?;
        let status = proposal_at(&at, a.proposal).await?.map(|p| p.status);
        let speedup = speedup_of(&a).ok_or_else(|| {
            ValidatorError::Storage(format!("sealed attempt {} is not a PASS", a.proposal))
        })?;
        let open = Opening::of(&a, speedup)?;
        let ours = open.seal(a.proposal, self.me, a.generation);
        match status.as_ref().and_then(|s| our_seal(s, self.me)) {
            Some((sealed, true)) if sealed.seal == ours => {}
            Some((sealed, false)) if sealed.seal == ours => return Ok(()),
            _ if status.as_ref().is_some_and(pending) => return Ok(()),
            _ => {
                info!(
                    proposal = a.proposal,
                    "our sealed PASS no longer counts and the proposal has ended: its report may be served"
                );
                return Ok(self
                    .store
                    .mark(a.proposal, a.expires_at, State::Attested, None)?);
            }
        }
        let call = api::transactions().cacheon().reveal_pass(
            a.proposal,
            open.speedup_ppm,
            open.evidence,
            open.attempt,
            open.salt,
        );
        match self.submit(&call).await {
            Ok((_, block)) => self.finalized(&a, State::Attested, block, "reveal"),
            Err(ChainError::Refused(e)) if REFUSED_FOR_GOOD.iter().any(|r| e.contains(r)) => {
                // The opening itself is refused (the arena's policy changed since the seal, or
                // the reproduction's digests equal ours): no retry can change that.
                error!(proposal = a.proposal, "reveal refused: {e}");
                Ok(self
                    .store
                    .mark(a.proposal, a.expires_at, State::Abandoned, None)?)
            }
            Err(ChainError::Refused(e)) => {
                // A resubmitted reveal already on its way, or a passing refusal: the row stays
                // `sealed`, and the next block looks at the chain again.
                warn!(proposal = a.proposal, "reveal refused: {e}");
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }
}
