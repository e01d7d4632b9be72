//! `cacheon challenge PROPOSAL`: put a standing crown back in front of other operators, and
//! how `cacheon status` shows a challenge and a revocation (docs/settlement.md, "Crown
//! challenges, revocation, slashing and unbonding").

use cacheon::chain::{api, ProposalStatus};
use cacheon::exit;
use serde_json::{json, Value};

use super::display::{units, who};
use super::operator::send;
use super::Out;
use crate::{ChainArgs, KeyArgs};

pub async fn challenge(out: &Out, proposal: u64, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let call = api::tx().cacheon().challenge(proposal);
    let (events, block, _) = match send(out, &call, key, c).await {
        Ok(r) => r,
        Err(code) => return code,
    };
    let Some(Ok(opened)) = events.find_first::<api::cacheon::events::ChallengeOpened>() else {
        return out.error(
            "the challenge was finalized without a ChallengeOpened event",
            exit::CHAIN_REFUSED,
        );
    };
    let challenger = opened.challenger.to_string();
    out.emit(
        json!({"event": "challenged", "challenge": opened.challenge, "proposal": opened.proposal,
               "challenger": challenger, "bond": opened.bond.to_string(),
               "deadline": opened.deadline, "block": block}),
        || {
            format!(
                "challenge {} of crown {} opened in finalized block #{block}\n  \
                 bond {} held from {} until the outcome: back if the crown is revoked (with part \
                 of what its operators lose) or the challenge expires, paid to the operators if \
                 two re-qualify the crown\n  \
                 deadline block #{}: without two agreeing answers by then it expires\n  \
                 follow it with `cacheon status {}`",
                opened.challenge,
                opened.proposal,
                units(opened.bond as i128),
                who(&challenger),
                opened.deadline,
                opened.proposal
            )
        },
    );
    exit::OK
}

/// A revoked proposal's revocation as JSON (`None` for any other status).
pub fn revocation_json(status: &ProposalStatus) -> Option<Value> {
    match status {
        ProposalStatus::Revoked {
            at,
            challenge,
            reason,
        } => Some(json!({"at": at, "challenge": challenge, "reason": format!("{reason:?}")})),
        _ => None,
    }
}

/// The lines `cacheon status N` shows of a revocation and of an open challenge (the JSON of
/// [`revocation_json`] and `stakes::challenge_json`).
pub fn challenge_lines(revocation: &Value, challenge: &Value) -> String {
    let mut s = String::new();
    if revocation.is_object() {
        s.push_str(&format!(
            "\n  revoked at block #{} by challenge {}: two operators found it wrong ({})",
            revocation["at"],
            revocation["challenge"],
            text(&revocation["reason"])
        ));
    }
    if !challenge.is_object() {
        return s;
    }
    let amount = |v: &Value| {
        v.as_str()
            .and_then(|a| a.parse::<i128>().ok())
            .map_or("?".into(), units)
    };
    s.push_str(&format!(
        "\n  challenged: challenge {} by {}, bond {}, deadline block #{}",
        challenge["challenge"],
        who(text(&challenge["challenger"]).as_str()),
        amount(&challenge["bond"]),
        challenge["deadline"]
    ));
    for l in challenge["leases"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "\n    re-qualifying: {} until block #{}",
            who(text(&l["validator"]).as_str()),
            l["expires_at"]
        ));
    }
    for a in challenge["answers"].as_array().into_iter().flatten() {
        let verdict = match a["reason"].as_str() {
            Some(r) => format!("{} {r}", text(&a["verdict"])),
            None => format!("{} at {} ppm", text(&a["verdict"]), a["speedup_ppm"]),
        };
        s.push_str(&format!(
            "\n    answered by {}: {verdict}, evidence {}",
            who(text(&a["validator"]).as_str()),
            text(&a["evidence"])
        ));
    }
    if challenge["answers"].as_array().is_none_or(|a| a.is_empty())
        && challenge["leases"].as_array().is_none_or(|l| l.is_empty())
    {
        s.push_str("\n    no operator has leased it yet");
    }
    s
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_a_revocation_and_every_turn_of_a_challenge() {
        let revoked = json!({"at": 88, "challenge": 0, "reason": "Incorrect"});
        let lines = challenge_lines(&revoked, &Value::Null);
        assert_eq!(
            lines,
            "\n  revoked at block #88 by challenge 0: two operators found it wrong (Incorrect)"
        );
        let open = json!({"challenge": 2, "challenger": "x", "bond": "100000000000000",
            "deadline": 14_500, "leases": [{"validator": "v", "expires_at": 400}],
            "answers": [{"verdict": "fail", "reason": "Incorrect", "validator": "w",
                         "evidence": "ab"}]});
        let lines = challenge_lines(&Value::Null, &open);
        assert!(
            lines.contains("challenge 2 by x, bond 100 UNIT, deadline block #14500"),
            "{lines}"
        );
        assert!(
            lines.contains("re-qualifying: v until block #400"),
            "{lines}"
        );
        assert!(
            lines.contains("answered by w: fail Incorrect, evidence ab"),
            "{lines}"
        );
        let waiting = json!({"challenge": 3, "challenger": "x", "bond": "1", "deadline": 9,
            "leases": [], "answers": []});
        assert!(challenge_lines(&Value::Null, &waiting).contains("no operator has leased it yet"));
        assert_eq!(challenge_lines(&Value::Null, &Value::Null), "");
    }
}
