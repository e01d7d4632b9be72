//! What the lane and the referee agree on about one call: the seeded inputs of a case, the
//! poison and guard-band bits, and how an overwritten guard band is reported. The referee
//! rebuilds the inputs from the seed with [`case_args`]; the lane builds the same ones.

use cacheon_kernels::slots::args::SlotArgs;
use cacheon_kernels::slots::cases;
use cacheon_kernels::slots::SlotId;

use super::protocol::{GuardHit, Special};

/// Bits written into every output element before a call: a quiet NaN with a payload no
/// arithmetic produces, so an element the kernel did not write is recognisable.
pub const POISON_BITS: u32 = 0x7fc5_a5a5;

/// Bits of the guard bands around every output.
pub const GUARD_BITS: u32 = 0x7fc3_c3c3;

/// A generated call for a case: the seeded inputs with the special values applied.
pub fn case_args(slot: SlotId, shape: &[i64], seed: u64, special: Special) -> SlotArgs {
    let mut args = cases::generate(slot, shape, seed);
    special.apply(&mut args);
    args
}

/// The first overwritten guard element on each side of output `output`, if any.
pub fn guard_hits<T: PartialEq + Copy>(
    output: usize,
    bits: impl Iterator<Item = T>,
    n: usize,
    guard: usize,
    pattern: T,
) -> Vec<GuardHit> {
    let bits: Vec<T> = bits.collect();
    let mut hits = Vec::new();
    // Before the output: the nearest overwritten element.
    if let Some(i) = (0..guard).rev().find(|&i| bits[i] != pattern) {
        hits.push(GuardHit {
            output,
            offset: i as i64 - guard as i64,
        });
    }
    if let Some(i) = (guard + n..bits.len()).find(|&i| bits[i] != pattern) {
        hits.push(GuardHit {
            output,
            offset: (i - guard) as i64,
        });
    }
    hits
}
