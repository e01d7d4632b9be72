//! What the copy screen needs from the chain: the proposals with priority over the one
//! being attempted, with their fingerprints (cached in the validator's store).

use super::*;
use crate::chain::reads;

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
    let next = reads::fetch(at, api::storage().cacheon().next_proposal_id(), ())
        .await?
        .unwrap_or(0);
    let mut earlier = Vec::new();
    for q in (0..next).filter(|q| *q != id) {
        let Some(p) = reads::proposal_at(at, q).await? else {
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
    let Some(stored) = reads::fetch(at, api::storage().cacheon().bundles(), (*hash,)).await? else {
        debug!(
            content_hash = hex::encode(hash),
            "no fingerprint for the copy screen: the bundle is no longer stored"
        );
        return Ok(None);
    };
    let bytes = stored.0;
    let fp = cacheon_kernels::bundle::from_canonical_bytes(
        &bytes,
        cacheon_kernels::bundle::MAX_BUNDLE_BYTES,
    )
    .ok()
    .and_then(|files| fingerprint_of(&files));
    store.record_fingerprint(hash, fp)?;
    Ok(fp)
}
