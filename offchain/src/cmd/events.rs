//! The chain's events as `cacheon watch` prints them and the explorer indexes them: every
//! event about a proposal (leases, verdicts, crowns and every other end, what its
//! evaluation fee held, paid and returned, and the challenges of a crown) as one JSON object with `event` and `proposal`, and a line for people.

use cacheon::chain::api;
use serde_json::json;

use super::display;

/// The events of one block that concern a proposal (`only` that one, or any), as JSON lines
/// with `event` and `proposal` fields: leases, verdicts, crowns and every other end.
pub fn proposal_events(
    events: &subxt::events::Events<subxt::PolkadotConfig>,
    only: Option<u64>,
) -> Vec<serde_json::Value> {
    use api::cacheon::events as ev;
    let mut seen = Vec::new();
    macro_rules! collect {
        ($ty:ident, $name:literal, |$e:ident| $body:expr) => {
            for $e in events.find::<ev::$ty>().flatten() {
                if only.is_none_or(|p| $e.proposal == p) {
                    let mut v = $body;
                    v["event"] = json!($name);
                    v["proposal"] = json!($e.proposal);
                    seen.push(v);
                }
            }
        };
    }
    collect!(
        Leased,
        "leased",
        |e| json!({"validator": e.validator.to_string(), "phase": format!("{:?}", e.phase).to_lowercase(), "generation": e.generation, "expires_at": e.expires_at})
    );
    collect!(
        PassRecorded,
        "pass_recorded",
        |e| json!({"validator": e.validator.to_string(), "speedup_ppm": e.speedup_ppm, "evidence": hex::encode(e.evidence_digest)})
    );
    collect!(
        PassSealed,
        "pass_sealed",
        |e| json!({"validator": e.validator.to_string(), "seal": hex::encode(e.seal)})
    );
    collect!(
        PassRevealed,
        "pass_revealed",
        |e| json!({"validator": e.validator.to_string(), "speedup_ppm": e.speedup_ppm, "evidence": hex::encode(e.evidence_digest)})
    );
    collect!(
        RevealMissed,
        "reveal_missed",
        |e| json!({"validator": e.validator.to_string()})
    );
    collect!(
        Failed,
        "failed",
        |e| json!({"validator": e.validator.to_string(), "reason": format!("{:?}", e.reason), "evidence": hex::encode(e.evidence_digest)})
    );
    collect!(
        FailRecorded,
        "fail_recorded",
        |e| json!({"validator": e.validator.to_string(), "reason": format!("{:?}", e.reason), "evidence": hex::encode(e.evidence_digest)})
    );
    collect!(
        AttestationsDisagreed,
        "attestations_disagreed",
        |e| json!({"pass": e.pass_validator.to_string(), "pass_evidence": e.pass_evidence.map(hex::encode), "fail": e.fail_validator.to_string(), "fail_evidence": hex::encode(e.fail_evidence), "reason": format!("{:?}", e.reason)})
    );
    collect!(
        NoDecisionRecorded,
        "no_decision",
        |e| json!({"validator": e.validator.to_string(), "reason": format!("{:?}", e.reason), "attempts": e.attempts})
    );
    collect!(
        LeaseExpired,
        "lease_expired",
        |e| json!({"validator": e.validator.to_string(), "attempts": e.attempts})
    );
    collect!(
        AttestationStale,
        "attestation_stale",
        |e| json!({"validator": e.validator.to_string(), "generation": e.generation, "current": e.current})
    );
    collect!(
        PassDropped,
        "pass_dropped",
        |e| json!({"generation": e.generation})
    );
    collect!(
        ProposalDropped,
        "dropped",
        |e| json!({"displaced_by": e.displaced_by})
    );
    collect!(Expired, "expired", |e| json!({"attempts": e.attempts}));
    collect!(
        ReproductionTimedOut,
        "reproduction_timed_out",
        |e| json!({"primary_validator": e.primary_validator.to_string()})
    );
    collect!(
        DepositSlashed,
        "deposit_slashed",
        |e| json!({"miner": e.miner.to_string(), "amount": e.amount.to_string()})
    );
    collect!(Withdrawn, "withdrawn", |_e| json!({}));
    collect!(
        EvaluationFeeHeld,
        "evaluation_fee_held",
        |e| json!({"miner": e.miner.to_string(), "amount": e.amount.to_string()})
    );
    collect!(
        VerdictPaid,
        "verdict_paid",
        |e| json!({"operator": e.operator.to_string(), "amount": e.amount.to_string()})
    );
    collect!(
        EvaluationFeeReturned,
        "evaluation_fee_returned",
        |e| json!({"miner": e.miner.to_string(), "amount": e.amount.to_string()})
    );
    collect!(
        QueueWasFull,
        "queue_was_full",
        |e| json!({"arena": String::from_utf8_lossy(&e.arena.0)})
    );
    collect!(
        Crowned,
        "crowned",
        |e| json!({"miner": e.miner.to_string(), "speedup_ppm": e.speedup_ppm, "generation": e.generation, "target": String::from_utf8_lossy(&e.target.0)})
    );
    collect!(
        Retired,
        "retired",
        |e| json!({"cause": format!("{:?}", e.cause)})
    );
    collect!(
        ChallengeOpened,
        "challenge_opened",
        |e| json!({"challenge": e.challenge, "challenger": e.challenger.to_string(), "bond": e.bond.to_string(), "deadline": e.deadline})
    );
    collect!(
        CrownRevoked,
        "crown_revoked",
        |e| json!({"challenge": e.challenge, "reason": format!("{:?}", e.reason), "slashed": e.slashed.to_string(), "challenger_reward": e.challenger_reward.to_string()})
    );
    collect!(
        ChallengeRejected,
        "challenge_rejected",
        |e| json!({"challenge": e.challenge, "paid_each": e.paid_each.to_string(),
                   "requalified_by": e.requalified_by.0.iter().map(|a| a.to_string()).collect::<Vec<_>>()})
    );
    collect!(
        ChallengeExpired,
        "challenge_expired",
        |e| json!({"challenge": e.challenge})
    );
    seen
}

/// JSON keys whose string values are amounts in planck.
pub fn is_amount_key(key: &str) -> bool {
    matches!(
        key,
        "amount" | "bond" | "slashed" | "challenger_reward" | "paid_each" | "total" | "required"
    )
}

/// One event as a line for people: block, name, and its fields with accounts by name and
/// amounts in UNIT.
pub fn describe(v: &serde_json::Value) -> String {
    let name = v["event"].as_str().unwrap_or_default();
    let mut fields: Vec<String> = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "event" | "proposal" | "block"))
                .map(|(k, val)| {
                    let text = match val.as_str() {
                        Some(a) if display::is_account_key(k) => display::who(a),
                        Some(amount) if is_amount_key(k) => amount
                            .parse()
                            .map(display::units)
                            .unwrap_or_else(|_| amount.to_string()),
                        Some(s) => s.to_string(),
                        None => val.to_string(),
                    };
                    format!("{k}={text}")
                })
                .collect()
        })
        .unwrap_or_default();
    fields.sort();
    format!(
        "#{:<6} {name:<22} {}",
        v["block"].to_string(),
        fields.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revocation_reads_with_its_amounts_in_unit_and_its_challenger_by_name() {
        let ferdie =
            cacheon::chain::AccountId::from(subxt_signer::sr25519::dev::ferdie().public_key());
        let line = describe(
            &json!({"event": "crown_revoked", "block": 42, "proposal": 3,
            "challenge": 0, "reason": "Incorrect", "slashed": "2000000000000000",
            "challenger_reward": "1000000000000000", "challenger": ferdie.to_string()}),
        );
        assert!(line.starts_with("#42     crown_revoked"), "{line}");
        for part in [
            "challenge=0",
            "challenger=Ferdie (",
            "challenger_reward=1000 UNIT",
            "reason=Incorrect",
            "slashed=2000 UNIT",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
    }
}
