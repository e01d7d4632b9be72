//! The seal of a blind primary PASS.
//!
//! `blake2_256(SCALE((proposal, validator, incumbent_generation, speedup_ppm, evidence_digest,
//! attempt_digest, salt)))`. In an arena where two operators must agree, the primary PASS is
//! attested as this seal only (`attest_sealed`) and opened after the reproduction's verdict
//! (`reveal_pass`), so the reproduction cannot read the primary's speedup or evidence. The
//! validator's account is inside the preimage, so nobody else can submit or open the seal; the
//! secret salt keeps the few plausible speedups from being guessed off the seal.

use codec::Encode;

use crate::{EvidenceDigest, ProposalId};

/// What the sealing validator stores with its PASS, and what the chain computes again at the
/// reveal.
pub type Seal = [u8; 32];

/// The seal of `validator`'s PASS of `proposal`, measured against `incumbent_generation`.
pub fn pass_seal<A: Encode>(
    proposal: ProposalId,
    validator: &A,
    incumbent_generation: u32,
    speedup_ppm: u32,
    evidence_digest: &EvidenceDigest,
    attempt_digest: &[u8; 32],
    salt: &[u8; 32],
) -> Seal {
    let preimage = (
        proposal,
        validator,
        incumbent_generation,
        speedup_ppm,
        evidence_digest,
        attempt_digest,
        salt,
    )
        .encode();
    sp_crypto_hashing::blake2_256(&preimage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commitment::tests::hex;

    /// Golden vector, computed independently with Python's `hashlib.blake2b(digest_size=32)`
    /// over the hand-written SCALE bytes: `42u64` LE, the 32-byte account, `3u32` LE,
    /// `1_050_000u32` LE, then the two digests and the salt, 144 bytes. The off-chain tools
    /// reuse it.
    #[test]
    fn golden_seal() {
        let seal = pass_seal(42, &[7u8; 32], 3, 1_050_000, &[1; 32], &[2; 32], &[9; 32]);
        assert_eq!(hex(&seal), GOLDEN_SEAL);
    }

    #[test]
    fn the_preimage_is_the_scale_tuple_in_order() {
        let mut bytes = alloc::vec::Vec::new();
        bytes.extend_from_slice(&42u64.to_le_bytes());
        bytes.extend_from_slice(&[7u8; 32]);
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&1_050_000u32.to_le_bytes());
        bytes.extend_from_slice(&[1u8; 32]);
        bytes.extend_from_slice(&[2u8; 32]);
        bytes.extend_from_slice(&[9u8; 32]);
        assert_eq!(
            pass_seal(42, &[7u8; 32], 3, 1_050_000, &[1; 32], &[2; 32], &[9; 32]),
            sp_crypto_hashing::blake2_256(&bytes)
        );
    }

    #[test]
    fn every_field_is_bound() {
        let base = pass_seal(1, &[7u8; 32], 0, 1_100_000, &[1; 32], &[2; 32], &[3; 32]);
        for other in [
            pass_seal(2, &[7u8; 32], 0, 1_100_000, &[1; 32], &[2; 32], &[3; 32]),
            pass_seal(1, &[8u8; 32], 0, 1_100_000, &[1; 32], &[2; 32], &[3; 32]),
            pass_seal(1, &[7u8; 32], 1, 1_100_000, &[1; 32], &[2; 32], &[3; 32]),
            pass_seal(1, &[7u8; 32], 0, 1_100_001, &[1; 32], &[2; 32], &[3; 32]),
            pass_seal(1, &[7u8; 32], 0, 1_100_000, &[4; 32], &[2; 32], &[3; 32]),
            pass_seal(1, &[7u8; 32], 0, 1_100_000, &[1; 32], &[4; 32], &[3; 32]),
            pass_seal(1, &[7u8; 32], 0, 1_100_000, &[1; 32], &[2; 32], &[4; 32]),
        ] {
            assert_ne!(base, other);
        }
    }

    pub(crate) const GOLDEN_SEAL: &str =
        "2deb490373ba8459551a1816cb2a7a8c1fbe32e1c4d845a34ee5f10033ddbea4";
}
