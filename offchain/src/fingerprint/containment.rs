//! Containment: a bundle that carries an earlier proposal's kernel inside code of its own.
//!
//! The fingerprint ([`super`]) catches a copy made by renaming and reformatting; a copier
//! who also adds code (a dead function, an unused branch, a second op, a wrapper around the
//! copied entry) changes it. Containment asks instead how much of the earlier kernel's code
//! is in the candidate: both are normalized as for the fingerprint, except that every name
//! the bundle declares becomes one placeholder (added code must not shift a numbering), and
//! cut into overlapping runs of [`GRAM`] tokens; a fixed quarter of those runs, chosen by
//! their hash, is the kernel's [`Signature`]. The candidate contains the earlier kernel when
//! at least [`CONTAINED_PERMILLE`] of the earlier signature's runs are in the candidate's.
//! Sampling by hash keeps the same runs in both, so the share is estimated without bias.
//!
//! Whose code it is ([`original_contained`]): only an earlier kernel's *own* code counts —
//! its runs that are not in the arena's stock code (building on the stock kernels is what
//! miners are meant to do) — and only when that is at least [`MIN_TOKENS`] long (short
//! code is mostly shared idioms). It is attributed to the earliest proposal whose code
//! contains it (a copier's proposal that a later honest one happens to contain points back
//! to the code it copied), and it is a copy when that owner is another miner's and was never
//! crowned: a crowned kernel is the public baseline every later proposal is measured
//! against, and improving it is honest work.
//!
//! What it does not catch, by design: a copied kernel whose statements were reordered or
//! rewritten (not a mechanical edit), or one spread over many macros.

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::Manifest;

use super::{file_tokens, Normalizer};

/// The algorithm's version: cached signatures of another version are not compared.
pub const VERSION: u32 = 1;

/// Length of a run of normalized tokens.
pub const GRAM: usize = 12;

/// One run in `SAMPLE` (by hash) is kept in a signature.
const SAMPLE: u64 = 4;

/// An earlier kernel shorter than this (normalized tokens) is never called contained:
/// short kernels are mostly shared idioms.
pub const MIN_TOKENS: u32 = 200;

/// Share of an earlier kernel's sampled runs that must be in the candidate (per mille).
pub const CONTAINED_PERMILLE: u32 = 900;

/// A bundle's kernel code as containment compares it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Signature {
    /// Normalized tokens of the ops' sources (headers included once).
    pub tokens: u32,
    /// Hashes of the sampled runs, sorted, without repeats.
    pub grams: Vec<u64>,
}

impl Signature {
    /// The signature of the ops' sources of a bundle whose manifest parsed.
    pub fn of(files: &[BundleFile], manifest: &Manifest) -> Signature {
        let tokens = file_tokens(files);
        let mut n = Normalizer::new(files, &tokens, true);
        let mut ops: Vec<_> = manifest.ops.iter().collect();
        ops.sort_by_key(|op| op.slot.index());
        for op in ops {
            n.file(&op.source);
        }
        let text = String::from_utf8_lossy(&n.out);
        let toks: Vec<&str> = text.lines().collect();
        let mut grams: Vec<u64> = toks
            .windows(GRAM)
            .map(|w| {
                let h = cacheon_primitives::bundle::content_hash(w.join("\n").as_bytes());
                u64::from_le_bytes(h[..8].try_into().expect("8 bytes"))
            })
            .filter(|h| h % SAMPLE == 0)
            .collect();
        grams.sort_unstable();
        grams.dedup();
        Signature {
            tokens: toks.len() as u32,
            grams,
        }
    }

    /// The signature of a bundle's files, `None` when its manifest does not parse.
    pub fn of_files(files: &[BundleFile]) -> Option<Signature> {
        Manifest::from_bundle(files)
            .ok()
            .map(|m| Signature::of(files, &m))
    }

    /// The share (per mille) of this kernel's sampled runs that are in `other`.
    pub fn share_in(&self, other: &Signature) -> u32 {
        if self.grams.is_empty() {
            return 0;
        }
        let (mut i, mut j, mut shared) = (0, 0, 0u64);
        while i < self.grams.len() && j < other.grams.len() {
            match self.grams[i].cmp(&other.grams[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        (shared * 1000 / self.grams.len() as u64) as u32
    }

    /// Whether `other` contains this kernel.
    pub fn contained_in(&self, other: &Signature) -> bool {
        self.share_in(other) >= CONTAINED_PERMILLE
    }

    /// The union of `signatures` (the stock kernels of an arena, as one body of code).
    pub fn union<'a>(signatures: impl IntoIterator<Item = &'a Signature>) -> Signature {
        let mut out = Signature::default();
        for s in signatures {
            out.tokens += s.tokens;
            out.grams.extend_from_slice(&s.grams);
        }
        out.grams.sort_unstable();
        out.grams.dedup();
        out
    }
}

/// An earlier proposal as containment sees it.
#[derive(Clone, Debug)]
pub struct EarlierCode<'a> {
    pub proposal: u64,
    pub commit_block: u64,
    /// Revealed by another account than the screened proposal's miner.
    pub other_miner: bool,
    /// Crowned at some point (the incumbent now, or retired since).
    pub crowned: bool,
    pub signature: &'a Signature,
}

/// The proposal whose code `candidate` carries, when that is a copy. Only an earlier
/// kernel's own code counts: its sampled runs that are not in the `stock` code. The
/// candidate carries an earlier kernel when at least [`CONTAINED_PERMILLE`] of that own
/// code is in it and the own code is at least [`MIN_TOKENS`] tokens (estimated from the
/// sample); the code is attributed to the earliest proposal (commit block, then id) that
/// carries it too, and it is a copy when that owner is another miner's proposal that was
/// never crowned. Returns the owner and the share (per mille) found in the candidate.
pub fn original_contained(
    candidate: &Signature,
    earlier: &[EarlierCode<'_>],
    stock: &Signature,
) -> Option<(u64, u32)> {
    let priority = |e: &EarlierCode<'_>| (e.commit_block, e.proposal);
    let own = |e: &EarlierCode<'_>| Signature {
        tokens: e.signature.tokens,
        grams: e
            .signature
            .grams
            .iter()
            .copied()
            .filter(|g| stock.grams.binary_search(g).is_err())
            .collect(),
    };
    let mut contained: Vec<(&EarlierCode<'_>, Signature, u32)> = earlier
        .iter()
        .map(|e| (e, own(e)))
        .filter(|(_, own)| own.grams.len() as u64 * SAMPLE >= u64::from(MIN_TOKENS))
        .map(|(e, own)| {
            let share = own.share_in(candidate);
            (e, own, share)
        })
        .filter(|(_, _, share)| *share >= CONTAINED_PERMILLE)
        .collect();
    contained.sort_by_key(|(e, _, _)| priority(e));
    for (e, own, share) in contained {
        // The earliest proposal (e itself at the latest) whose code holds e's own code.
        let owner = earlier
            .iter()
            .filter(|o| priority(o) <= priority(e) && own.contained_in(o.signature))
            .min_by_key(|o| priority(o))
            .unwrap_or(e);
        if owner.other_miner && !owner.crowned {
            return Some((owner.proposal, share));
        }
    }
    None
}

/// Whether every op of the bundle is the arena's stock kernel for its slot, renamed and
/// reformatted (`stock_source`: the stock bundle of a slot, if the arena has one) with the
/// stock op's backend, dtype, launch and domain: a bundle that cannot be faster than the
/// code it copies. A bundle with any op of its own, or any launch of its own, is not.
pub fn is_stock_copy(
    files: &[BundleFile],
    manifest: &Manifest,
    stock_source: impl Fn(cacheon_kernels::slots::SlotId) -> Option<Vec<BundleFile>>,
) -> bool {
    !manifest.ops.is_empty()
        && manifest.ops.iter().all(|op| {
            let Some(stock) = stock_source(op.slot) else {
                return false;
            };
            let Ok(stock_manifest) = Manifest::from_bundle(&stock) else {
                return false;
            };
            let Some(stock_op) = stock_manifest.ops.iter().find(|s| s.slot == op.slot) else {
                return false;
            };
            let shape = |o: &cacheon_kernels::bundle::manifest::Op| {
                format!("{:?} {:?} {:?} {:?}", o.backend, o.dtype, o.launch, o.when)
            };
            shape(op) == shape(stock_op)
                && op_tokens(files, &op.source) == op_tokens(&stock, &stock_op.source)
        })
}

/// One op's source (its bundle headers inlined) normalized as for the fingerprint.
fn op_tokens(files: &[BundleFile], source: &str) -> Vec<u8> {
    let tokens = file_tokens(files);
    let mut n = Normalizer::new(files, &tokens, false);
    n.file(source);
    n.out
}

#[cfg(test)]
mod tests;
