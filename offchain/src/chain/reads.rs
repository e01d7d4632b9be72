//! Every read of chain state the off-chain tools make, in one place: the pallet's view
//! functions where it has them (a proposal's status, an arena's incumbent stack), storage
//! for the rest. Bytes the node sends are checked before use (a bundle must hash to its
//! ContentHash).

use super::{
    api, bounded, unavailable, view, AccountId, At, ChainError, Proposal, ProposalStatus,
    RecordedFail,
};

/// A proposal and its status (the pallet's `proposal_status` view function).
pub async fn proposal_at(at: &At, id: u64) -> Result<Option<Proposal>, ChainError> {
    view(at, api::view_functions().cacheon().proposal_status(id)).await
}

/// The FAIL that ended proposal `id`, if it failed (and failed after the chain began
/// keeping them).
pub async fn fail_verdict_at(at: &At, id: u64) -> Result<Option<RecordedFail>, ChainError> {
    fetch(at, api::storage().cacheon().fail_verdicts(), (id,)).await
}

/// One storage value at `at`, decoded; `None` when absent.
pub async fn fetch<A: subxt::storage::Address>(
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

/// A bundle's canonical bytes from chain storage, with the ContentHash checked again.
pub async fn stored_bundle(at: &At, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
    let bytes = at
        .storage()
        .try_fetch(api::storage().cacheon().bundles(), (*hash,))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("bundle 0x{} is not in chain storage", hex::encode(hash)))?
        .decode()
        .map_err(|e| e.to_string())?
        .0;
    hashes_to(bytes, hash)
}

/// `bytes`, if they hash to `hash`: whatever the node sent is checked against the
/// ContentHash the proposal names before anything is built from it.
fn hashes_to(bytes: Vec<u8>, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
    if &cacheon_primitives::bundle::content_hash(&bytes) != hash {
        return Err(format!(
            "stored bundle bytes do not hash to 0x{}",
            hex::encode(hash)
        ));
    }
    Ok(bytes)
}

/// A proposal's files from chain storage.
pub async fn bundle_files(
    at: &At,
    hash: &[u8; 32],
) -> Result<Vec<cacheon_kernels::BundleFile>, String> {
    let bytes = stored_bundle(at, hash).await?;
    cacheon_kernels::bundle::from_canonical_bytes(&bytes, cacheon_kernels::bundle::MAX_BUNDLE_BYTES)
        .map_err(|e| e.to_string())
}

/// Whether `me` holds the lease of `proposal` that ends at `expires_at`, still open at `at`.
pub async fn lease_is_ours(
    at: &At,
    me: &AccountId,
    proposal: u64,
    expires_at: u64,
) -> Result<bool, ChainError> {
    let lease = proposal_at(at, proposal)
        .await?
        .and_then(|p| match p.status {
            ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => {
                Some(lease)
            }
            _ => None,
        });
    Ok(lease.is_some_and(|l| {
        &l.validator == me && l.expires_at as u64 == expires_at && at.block_number() < expires_at
    }))
}

/// The arena's crowned bundles (canonical bytes), oldest proposal first; without the crown
/// of proposal `leave_out` when one is named (the stack its revocation would leave: its
/// slots fall back to the arena's stock).
pub async fn incumbent_stack(
    at: &At,
    arena: &str,
    leave_out: Option<u64>,
) -> Result<Vec<Vec<u8>>, ChainError> {
    // The pallet's `incumbent_stack` view function: the arena's generation and its crowned
    // entries `(target, proposal, content_hash)`.
    let call = api::view_functions()
        .cacheon()
        .incumbent_stack(bounded(arena.as_bytes()));
    let Some((_, entries)) = view(at, call).await? else {
        return Err(unavailable(format!("the chain has no arena `{}`", arena)));
    };
    let mut entries: Vec<(u64, [u8; 32])> = entries
        .into_iter()
        .map(|(_, proposal, hash)| (proposal, hash))
        .filter(|(proposal, _)| Some(*proposal) != leave_out)
        .collect();
    entries.sort();
    let mut stack = Vec::new();
    for (_, hash) in entries {
        stack.push(stored_bundle(at, &hash).await.map_err(unavailable)?);
    }
    Ok(stack)
}

/// The pallet's `reveal_delay` constant (blocks between a commitment and its reveal).
pub fn reveal_delay(at: &At) -> u64 {
    at.constants()
        .entry(api::constants().cacheon().reveal_delay())
        .unwrap_or(0) as u64
}

/// The pallet's `reveal_window` constant (blocks a commitment stays revealable).
pub fn reveal_window(at: &At) -> Result<u64, ChainError> {
    at.constants()
        .entry(api::constants().cacheon().reveal_window())
        .map(|w| w as u64)
        .map_err(unavailable)
}

/// What the chain says of an arena that a validator must agree with to measure there.
pub fn chain_view(
    c: &api::runtime_types::pallet_cacheon::types::ArenaConfig<u32>,
) -> crate::arena::ChainArena {
    use api::runtime_types::cacheon_primitives::verdict::Backend as B;
    crate::arena::ChainArena {
        backend: match c.backend {
            B::Cpu => cacheon_primitives::Backend::Cpu,
            B::Cuda => cacheon_primitives::Backend::Cuda,
        },
        digests: cacheon_primitives::catalog::EngineDigests {
            model: c.model_digest,
            workload: c.workload_digest,
            stock: c.stock_digest,
        },
        min_margin_ppm: c.policy.min_margin_ppm,
        max_noise_ppm: c.policy.max_noise_ppm,
    }
}

/// An arena's contract as the chain holds it: what a miner measures against and a
/// validator must agree with (docs/arenas.md explains each field).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArenaContract {
    pub hardware: String,
    /// SHA-256 digests naming the engine's model, workload and stock kernel set, hex.
    pub model_digest: String,
    pub workload_digest: String,
    pub stock_digest: String,
    /// The targets proposals may name here.
    pub targets: Vec<String>,
    pub min_margin_ppm: u32,
    pub max_noise_ppm: u32,
    pub noise_multiplier: u32,
    pub lease_blocks: u32,
    pub max_attempts: u32,
    pub required_distinct_validators: u32,
    /// `active` or `paused`.
    pub status: &'static str,
    /// Registered validators.
    pub validators: u32,
    #[serde(skip)]
    pub view: crate::arena::ChainArena,
}

/// Where validator key `who` serves its evidence reports, as it published on chain.
pub async fn evidence_endpoint(at: &At, who: &AccountId) -> Result<Option<String>, ChainError> {
    Ok(
        fetch(at, api::storage().cacheon().evidence_endpoints(), (*who,))
            .await?
            .map(|b| String::from_utf8_lossy(&b.0).into_owned()),
    )
}

/// An arena's contract from its on-chain record.
pub fn contract_of(
    info: &api::runtime_types::pallet_cacheon::types::ArenaInfo<u32>,
) -> ArenaContract {
    let c = &info.config;
    let hex = |d: &[u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    ArenaContract {
        hardware: String::from_utf8_lossy(&c.hardware.0).into_owned(),
        model_digest: hex(&c.model_digest),
        workload_digest: hex(&c.workload_digest),
        stock_digest: hex(&c.stock_digest),
        targets: c
            .targets
            .0
            .iter()
            .map(|t| String::from_utf8_lossy(&t.0).into_owned())
            .collect(),
        min_margin_ppm: c.policy.min_margin_ppm,
        max_noise_ppm: c.policy.max_noise_ppm,
        noise_multiplier: c.policy.noise_multiplier,
        lease_blocks: c.policy.lease_blocks,
        max_attempts: c.policy.max_attempts,
        required_distinct_validators: c.policy.required_distinct_validators,
        status: match c.status {
            api::runtime_types::pallet_cacheon::types::Status::Active => "active",
            api::runtime_types::pallet_cacheon::types::Status::Paused => "paused",
        },
        validators: info.validators,
        view: chain_view(c),
    }
}

/// One arena as `cacheon status` and `cacheon arena` show it.
#[derive(Clone, Debug)]
pub struct ArenaSummary {
    pub id: String,
    pub generation: u64,
    pub contract: ArenaContract,
    /// What measuring a proposal costs there; `None` where the arena quotes nothing.
    pub evaluation_fee: Option<EvaluationFeeQuote>,
    /// Proposals waiting in its queue.
    pub queue: usize,
    /// Crowned targets: `(target id, proposal)`.
    pub incumbents: Vec<(String, u64)>,
}

/// An arena's crowned targets: `(target id, proposal)`.
pub async fn incumbents_of(at: &At, arena: &[u8]) -> Result<Vec<(String, u64)>, ChainError> {
    let mut incumbents = Vec::new();
    let mut inc = at
        .storage()
        .iter(api::storage().cacheon().incumbents(), (bounded(arena),))
        .await
        .map_err(unavailable)?;
    while let Some(kv) = inc.next().await {
        let kv = kv.map_err(unavailable)?;
        let entry = kv.value().decode().map_err(unavailable)?;
        let target = kv
            .key()
            .ok()
            .and_then(|k| k.part(1))
            .and_then(|p| {
                p.decode_as::<api::runtime_types::bounded_collections::bounded_vec::BoundedVec<u8>>(
                )
                .ok()
                .flatten()
            })
            .map(|b| String::from_utf8_lossy(&b.0).into_owned())
            .unwrap_or_default();
        incumbents.push((target, entry.proposal));
    }
    Ok(incumbents)
}

/// Every registered arena with its queue length and crowned targets.
/// An arena's evaluation fee as the chain quotes it, in planck.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct EvaluationFeeQuote {
    /// Machine time of the arena's median attempt.
    pub attempt_ms: u32,
    #[serde(serialize_with = "as_text")]
    pub price_per_second: u128,
    /// What one verdict the outcome confirms earns its operator.
    #[serde(serialize_with = "as_text")]
    pub per_verdict: u128,
}

/// Amounts in planck go to JSON as text (a u128 does not fit a JSON number).
fn as_text<S: serde::Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

/// `arena`'s evaluation fee (the pallet's `EvaluationFees`), `None` where it has none.
pub async fn evaluation_fee(
    at: &At,
    arena: &[u8],
) -> Result<Option<EvaluationFeeQuote>, ChainError> {
    let fee = fetch(
        at,
        api::storage().cacheon().evaluation_fees(),
        (bounded(arena),),
    )
    .await?;
    Ok(fee.map(|f| EvaluationFeeQuote {
        attempt_ms: f.attempt_ms,
        price_per_second: f.price_per_second,
        // As the pallet's `EvaluationFee::per_verdict`.
        per_verdict: f.price_per_second.saturating_mul(f.attempt_ms as u128) / 1_000,
    }))
}

pub async fn arena_summaries(at: &At) -> Result<Vec<ArenaSummary>, ChainError> {
    let mut out = Vec::new();
    let mut it = at
        .storage()
        .iter(api::storage().cacheon().arenas(), ())
        .await
        .map_err(unavailable)?;
    while let Some(kv) = it.next().await {
        let info = kv
            .map_err(unavailable)?
            .value()
            .decode()
            .map_err(unavailable)?;
        let queue = fetch(
            at,
            api::storage().cacheon().queue(),
            (bounded(&info.config.id.0),),
        )
        .await?
        .map_or(0, |q| q.0.len());
        let incumbents = incumbents_of(at, &info.config.id.0).await?;
        let contract = contract_of(&info);
        let evaluation_fee = evaluation_fee(at, &info.config.id.0).await?;
        out.push(ArenaSummary {
            id: String::from_utf8_lossy(&info.config.id.0).into_owned(),
            contract,
            evaluation_fee,
            generation: info.generation as u64,
            queue,
            incumbents,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_bytes_from_the_node_must_hash_to_the_proposals_content_hash() {
        let bytes = b"canonical bundle bytes".to_vec();
        let hash = cacheon_primitives::bundle::content_hash(&bytes);
        assert_eq!(hashes_to(bytes.clone(), &hash), Ok(bytes.clone()));
        let mut other = bytes;
        other[0] ^= 1;
        let err = hashes_to(other, &hash).unwrap_err();
        assert!(err.contains("do not hash to"), "{err}");
    }
}
