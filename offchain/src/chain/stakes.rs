//! Reads of what operators and challengers stake (docs/settlement.md, "Crown challenges,
//! revocation, slashing and unbonding"): operator bonds and their unbonding chunks per
//! arena, the arena's required bond, and the open crown challenges with their leases and
//! answers.

use super::reads::fetch;
use super::{api, bounded, unavailable, AccountId, At, ChainError};

/// An open crown challenge as the pallet stores it.
pub type Challenge = api::runtime_types::pallet_cacheon::types::Challenge<AccountId, u32, u128>;

/// An operator's stake in one arena.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stake {
    /// Bonded now: what counts towards the arena's required bond.
    pub bonded: u128,
    /// Unbonding chunks `(release_at, amount)`: out of the bond, still held and slashable
    /// until `withdraw_unbonded` releases them.
    pub unbonding: Vec<(u64, u128)>,
}

impl Stake {
    /// The bond and every unbonding chunk: what a revocation can slash.
    pub fn slashable(&self) -> u128 {
        self.unbonding
            .iter()
            .fold(self.bonded, |sum, (_, amount)| sum.saturating_add(*amount))
    }
}

/// What an operator must have bonded in `arena` before its keys may lease there (zero when
/// the admin set none).
pub async fn required_bond(at: &At, arena: &str) -> Result<u128, ChainError> {
    let key = (bounded(arena.as_bytes()),);
    Ok(fetch(at, api::storage().cacheon().required_bonds(), key)
        .await?
        .unwrap_or(0))
}

/// `operator`'s stake in `arena`.
pub async fn stake_of(at: &At, arena: &str, operator: &AccountId) -> Result<Stake, ChainError> {
    let key = || (bounded(arena.as_bytes()), *operator);
    let bonded = fetch(at, api::storage().cacheon().operator_bonds(), key())
        .await?
        .unwrap_or(0);
    let unbonding = fetch(at, api::storage().cacheon().unbonding(), key())
        .await?
        .map(|chunks| {
            chunks
                .0
                .iter()
                .map(|c| (c.release_at as u64, c.amount))
                .collect()
        })
        .unwrap_or_default();
    Ok(Stake { bonded, unbonding })
}

/// Every operator with a bond in `arena`, with its bond, largest first.
pub async fn bonds_in(at: &At, arena: &str) -> Result<Vec<(AccountId, u128)>, ChainError> {
    let mut bonds = Vec::new();
    let mut it = at
        .storage()
        .iter(
            api::storage().cacheon().operator_bonds(),
            (bounded(arena.as_bytes()),),
        )
        .await
        .map_err(unavailable)?;
    while let Some(kv) = it.next().await {
        let kv = kv.map_err(unavailable)?;
        let amount = kv.value().decode().map_err(unavailable)?;
        let operator = kv
            .key()
            .ok()
            .and_then(|k| k.part(1))
            .and_then(|p| p.decode_as::<AccountId>().ok().flatten())
            .ok_or_else(|| unavailable("an operator bond's key names no account"))?;
        bonds.push((operator, amount));
    }
    bonds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0 .0.cmp(&b.0 .0)));
    Ok(bonds)
}

/// Challenge `id`, while it is open.
pub async fn challenge_at(at: &At, id: u64) -> Result<Option<Challenge>, ChainError> {
    fetch(at, api::storage().cacheon().challenges(), (id,)).await
}

/// The open challenge of crown `proposal`, if it is challenged.
pub async fn challenge_of_crown(
    at: &At,
    proposal: u64,
) -> Result<Option<(u64, Challenge)>, ChainError> {
    let Some(id) = fetch(at, api::storage().cacheon().crown_challenges(), (proposal,)).await?
    else {
        return Ok(None);
    };
    Ok(challenge_at(at, id).await?.map(|c| (id, c)))
}

/// The open challenges of `arena`, oldest first.
pub async fn open_challenges(at: &At, arena: &str) -> Result<Vec<(u64, Challenge)>, ChainError> {
    let ids = fetch(
        at,
        api::storage().cacheon().open_challenges(),
        (bounded(arena.as_bytes()),),
    )
    .await?
    .map(|ids| ids.0)
    .unwrap_or_default();
    let mut open = Vec::new();
    for id in ids {
        if let Some(c) = challenge_at(at, id).await? {
            open.push((id, c));
        }
    }
    Ok(open)
}

/// The pallet's `ChallengeBond` constant: what `challenge` holds from the challenger.
pub fn challenge_bond(at: &At) -> Result<u128, ChainError> {
    at.constants()
        .entry(api::constants().cacheon().challenge_bond())
        .map_err(unavailable)
}

/// A challenge as JSON (what `cacheon status` and the explorer show): the crown, who opened
/// it with what bond, its deadline, the leases open at block `now` and the answers given.
pub fn challenge_json(id: u64, c: &Challenge, now: u64) -> serde_json::Value {
    let leases: Vec<_> = c
        .leases
        .0
        .iter()
        .filter(|l| l.expires_at as u64 > now)
        .map(|l| {
            serde_json::json!({"validator": l.validator.to_string(),
                               "operator": l.operator.to_string(),
                               "expires_at": l.expires_at})
        })
        .collect();
    let answers: Vec<_> = c
        .answers
        .0
        .iter()
        .map(|a| {
            let mut v = super::verdict_json(&a.verdict);
            v["validator"] = serde_json::json!(a.validator.to_string());
            v["operator"] = serde_json::json!(a.operator.to_string());
            v["evidence"] = serde_json::json!(hex::encode(a.evidence_digest));
            v
        })
        .collect();
    let crowned_by: Vec<_> = c.passes.0.iter().map(|p| p.operator.to_string()).collect();
    serde_json::json!({
        "challenge": id,
        "proposal": c.proposal,
        "arena": String::from_utf8_lossy(&c.arena.0),
        "target": String::from_utf8_lossy(&c.target.0),
        "miner": c.miner.to_string(),
        "challenger": c.challenger.to_string(),
        "bond": c.bond.to_string(),
        "deadline": c.deadline,
        "crowned_by": crowned_by,
        "leases": leases,
        "answers": answers,
    })
}
