//! Identities and encodings that the Cacheon runtime and its off-chain tools share.
//!
//! Everything here is `no_std` so the runtime compiles exactly the code the miner CLI and the
//! validator use: a bundle that packs here validates on chain, and a commitment computed here
//! is the one the chain recomputes on reveal.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod bundle;
pub mod catalog;
pub mod commitment;
pub mod ids;
pub mod seal;
pub mod verdict;

pub use bundle::{
    canonical_bytes, content_hash, decode_bundle, BundleError, BundleFile, BundleLimits,
};
pub use commitment::{commitment, COMMIT_DOMAIN};
pub use ids::{is_valid_endpoint, is_valid_id, MAX_ENDPOINT_BYTES, MAX_ID_LEN};
pub use seal::{pass_seal, Seal};
pub use verdict::{Backend, FailReason, NoDecisionReason, TargetKind, Verdict, PPM_ONE};

/// SHA-256 of a bundle's canonical bytes.
pub type ContentHash = [u8; 32];
/// Commitment to `(miner, arena, target, content_hash, salt)`; see [`commitment`].
pub type Commitment = [u8; 32];
/// SHA-256 of an attempt's canonical report.
pub type EvidenceDigest = [u8; 32];
/// Proposals are numbered by a counter on chain.
pub type ProposalId = u64;
