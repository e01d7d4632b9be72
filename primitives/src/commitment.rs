//! The commit-reveal commitment.
//!
//! `blake2_256(SCALE(("cacheon/commit/v1", miner, arena_id, target_id, content_hash, salt)))`.
//! The committer's account is inside the preimage, so a commitment seen in the pool can only be
//! revealed by the account that made it.

use codec::Encode;

use crate::{Commitment, ContentHash};

/// Domain separator of version 1 commitments.
pub const COMMIT_DOMAIN: &str = "cacheon/commit/v1";

/// The commitment a miner publishes before revealing a bundle.
pub fn commitment<A: Encode>(
    miner: &A,
    arena_id: &[u8],
    target_id: &[u8],
    content_hash: &ContentHash,
    salt: &[u8; 32],
) -> Commitment {
    let preimage = (
        COMMIT_DOMAIN,
        miner,
        arena_id,
        target_id,
        content_hash,
        salt,
    )
        .encode();
    sp_crypto_hashing::blake2_256(&preimage)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Golden vector, computed independently with Python's `hashlib.blake2b(digest_size=32)`
    /// over the hand-written SCALE bytes (see docs/encodings.md). The off-chain tools reuse it.
    #[test]
    fn golden_commitment() {
        let miner = [7u8; 32];
        let c = commitment(
            &miner,
            b"cpu-tiny",
            b"activation.silu_and_mul",
            &[1u8; 32],
            &[2u8; 32],
        );
        assert_eq!(hex(&c), GOLDEN_COMMITMENT);
    }

    #[test]
    fn every_field_is_bound() {
        let base = commitment(&[7u8; 32], b"a", b"t", &[1; 32], &[2; 32]);
        assert_ne!(base, commitment(&[8u8; 32], b"a", b"t", &[1; 32], &[2; 32]));
        assert_ne!(base, commitment(&[7u8; 32], b"b", b"t", &[1; 32], &[2; 32]));
        assert_ne!(base, commitment(&[7u8; 32], b"a", b"u", &[1; 32], &[2; 32]));
        assert_ne!(base, commitment(&[7u8; 32], b"a", b"t", &[3; 32], &[2; 32]));
        assert_ne!(base, commitment(&[7u8; 32], b"a", b"t", &[1; 32], &[4; 32]));
        // Length prefixes keep the arena/target boundary unambiguous.
        assert_ne!(
            commitment(&[7u8; 32], b"ab", b"c", &[1; 32], &[2; 32]),
            commitment(&[7u8; 32], b"a", b"bc", &[1; 32], &[2; 32])
        );
    }

    pub(crate) fn hex(b: &[u8]) -> alloc::string::String {
        b.iter().map(|x| alloc::format!("{x:02x}")).collect()
    }

    pub(crate) const GOLDEN_COMMITMENT: &str =
        "599f76f3dda893f8c5d088e63ce5b062d133b83ec9bdc497b0c8f7e39e06b1df";
}
