//! The pallet's rules, one file per concern (mirroring `tests/`): configuration
//! (`governance.rs`), reveal (`reveal.rs`), leases and deadlines (`leases.rs`),
//! attestations (`attest.rs`), sealed primary PASSes and their reveal (`blind.rs`), crowns (`crown.rs`), evaluation
//! fees (`fees.rs`), operator bonds and their slashing (`bonds.rs`) and crown challenges
//! (`challenge.rs`). Every function verifies first and
//! writes last; dispatch is transactional, so an error after a write still leaves storage
//! unchanged.

use crate::*;
use alloc::{collections::BTreeSet, vec::Vec};
use cacheon_primitives::{commitment, content_hash, decode_bundle, is_valid_id};

mod attest;
mod blind;
mod bonds;
mod challenge;
mod crown;
mod fees;
mod governance;
mod leases;
mod reveal;

/// Blocks from the first choice in which a deadline (a lease's end, a reproduction wait's) may
/// be scheduled when the first choice is full. Every pending proposal has at most one
/// deadline, so with `MaxLeasesPerBlock × DEADLINE_TRIES ≥ MaxArenas × MaxQueueLen` (checked
/// by `integrity_test`) a deadline always finds room: nobody can crowd out a lease or a PASS
/// by filling the schedule.
pub(crate) const DEADLINE_TRIES: u32 = 64;

/// A primary PASS and the deadline of its wait for a reproduction: the one it kept (a
/// reproduction that ended without a verdict), or `None` for a fresh wait.
type PrimaryWait<T> = (
    PrimaryPass<<T as frame_system::Config>::AccountId>,
    Option<BlockNumberFor<T>>,
);
