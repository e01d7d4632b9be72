//! The chain state an attempt reads: proposals, stored bundles, leases, earlier proposals
//! for the copy screen and the arena's incumbent stack. Proposals and the incumbent stack
//! come through the pallet's view functions ([`crate::chain::view`]); the rest from storage.

use super::*;

pub(super) use crate::chain::At;

/// A proposal and its status (the pallet's `proposal_status` view function).
pub(super) async fn proposal_at(at: &At, id: u64) -> Result<Option<ApiProposal>, ChainError> {
    chain::view(at, api::view_functions().cacheon().proposal_status(id)).await
}

/// One storage value at `at`, decoded; `None` when absent.
pub(super) async fn fetch<A: subxt::storage::Address>(
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
pub(super) async fn stored_bundle(at: &At, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
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
pub(super) async fn bundle_files(
    at: &At,
    hash: &[u8; 32],
) -> Result<Vec<cacheon_kernels::BundleFile>, String> {
    let bytes = stored_bundle(at, hash).await?;
    cacheon_kernels::bundle::from_canonical_bytes(&bytes, cacheon_kernels::bundle::MAX_BUNDLE_BYTES)
        .map_err(|e| e.to_string())
}

/// Whether `me` holds the lease of `proposal` that ends at `expires_at`, still open at `at`.
pub(super) async fn lease_is_ours(
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
pub(super) async fn earlier_proposals(
    at: &At,
    store: &Store,
    id: u64,
    commit_block: u64,
    miner: &AccountId,
) -> Result<Vec<Earlier>, ValidatorError> {
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
pub(super) async fn remember_fingerprint(
    at: &At,
    store: &Store,
    hash: &[u8; 32],
) -> Result<Option<[u8; 32]>, ValidatorError> {
    if let Some(fp) = store.fingerprint(hash)? {
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
    store.record_fingerprint(hash, fp)?;
    Ok(fp)
}

/// The arena's crowned bundles (canonical bytes), oldest proposal first.
pub(super) async fn incumbent_stack(at: &At, arena: Arena) -> Result<Vec<Vec<u8>>, ChainError> {
    // The pallet's `incumbent_stack` view function: the arena's generation and its crowned
    // entries `(target, proposal, content_hash)`.
    let call = api::view_functions()
        .cacheon()
        .incumbent_stack(chain::bounded(arena.name().as_bytes()));
    let Some((_, entries)) = chain::view(at, call).await? else {
        return Err(unavailable(format!(
            "the chain has no arena `{}`",
            arena.name()
        )));
    };
    let mut entries: Vec<(u64, [u8; 32])> = entries
        .into_iter()
        .map(|(_, proposal, hash)| (proposal, hash))
        .collect();
    entries.sort();
    let mut stack = Vec::new();
    for (_, hash) in entries {
        stack.push(stored_bundle(at, &hash).await.map_err(unavailable)?);
    }
    Ok(stack)
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
