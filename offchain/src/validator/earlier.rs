//! What the copy screen needs from the chain: the proposals with priority over the one
//! being attempted, with their fingerprints and containment signatures (cached in the
//! validator's store).

use super::*;
use crate::chain::reads;
use crate::fingerprint::containment::Signature;

/// Every proposal with priority over `id` (an earlier commit block, or the same block and a
/// lower id: the chain's order for owners of one ContentHash) whose code is known, marked by
/// whether another miner revealed it (the miner's own too: an earliest match of its own is
/// no copy) and whether it was ever crowned. A proposal revealed after `id` can have
/// priority: a copier that got its reveal in first still committed later. Its code is cached
/// when a reveal was followed (or an earlier attempt read it), else computed from the bytes
/// while the chain still stores them; proposals whose bytes are gone and were never seen
/// here are skipped (debug log).
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
        if let Some((fingerprint, signature)) = remember_code(at, store, &p.content_hash).await? {
            earlier.push(Earlier {
                proposal: q,
                commit_block: p.commit_block as u64,
                fingerprint,
                other_miner: &p.miner != miner,
                crowned: matches!(
                    p.status,
                    ApiStatus::Crowned { .. } | ApiStatus::Retired { .. }
                ),
                signature,
            });
        }
    }
    Ok(earlier)
}

/// A bundle's fingerprint and containment signature from the cache, else computed from its
/// bytes in storage at `at` and cached; `None` when it does not decode or its manifest does
/// not parse (cached too), or its bytes are gone (not cached). A fingerprint cached before
/// signatures were comes with an empty signature once the bytes are gone.
pub(super) async fn remember_code(
    at: &At,
    store: &Store,
    hash: &[u8; 32],
) -> Result<Option<(Fingerprint, Signature)>, ValidatorError> {
    let cached = store.fingerprint(hash)?;
    if let Some(None) = cached {
        return Ok(None);
    }
    if let (Some(Some(fp)), Some(sig)) = (cached, store.signature(hash)?) {
        return Ok(Some((fp, sig)));
    }
    // A transport error is ours (the attempt must not go on without the comparison); bytes
    // no longer stored are a proposal this validator never saw while they were.
    let Some(stored) = reads::fetch(at, api::storage().cacheon().bundles(), (*hash,)).await? else {
        debug!(
            content_hash = hex::encode(hash),
            "no code for the copy screen: the bundle is no longer stored"
        );
        return Ok(cached.flatten().map(|fp| (fp, Signature::default())));
    };
    let files = cacheon_kernels::bundle::from_canonical_bytes(
        &stored.0,
        cacheon_kernels::bundle::MAX_BUNDLE_BYTES,
    )
    .ok();
    remember_files(store, hash, files.as_deref())
}

/// Caches the fingerprint and signature of a bundle's `files` (`None`: they did not
/// decode) and returns them; `None` when the manifest does not parse.
pub(super) fn remember_files(
    store: &Store,
    hash: &[u8; 32],
    files: Option<&[cacheon_kernels::bundle::BundleFile]>,
) -> Result<Option<(Fingerprint, Signature)>, ValidatorError> {
    let manifest = files.and_then(|f| cacheon_kernels::Manifest::from_bundle(f).ok());
    let code = files.zip(manifest).map(|(files, m)| {
        (
            crate::fingerprint::fingerprint(files, &m),
            Signature::of(files, &m),
        )
    });
    store.record_fingerprint(hash, code.as_ref().map(|c| c.0))?;
    if let Some((_, sig)) = &code {
        store.record_signature(hash, sig)?;
    }
    Ok(code)
}
