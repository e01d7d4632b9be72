//! A small deterministic generator (SplitMix64). Seeded runs give the same numbers on
//! every machine, which the weight synthesis, the verification inputs and temperature
//! sampling all rely on.

/// SplitMix64: 64-bit state, full period, passes BigCrush; more than enough here.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// A generator for a named sub-stream, so adding a stream never shifts another's numbers.
    pub fn derive(seed: u64, label: &str) -> Self {
        // FNV-1a over the label, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in label.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        let mut rng = Rng::new(seed ^ h);
        rng.next_u64();
        rng
    }

    /// A generator for a named sub-stream of a *secret* seed (an attempt's): seeded from
    /// SHA-256 of the seed and the label, so no number it gives (a prompt token, a case
    /// seed, an audit position that candidate code might read in its lane's memory) leads
    /// back to the seed or to another stream. [`Rng::derive`]'s mix is invertible: fine
    /// for public seeds (weights), not for secret ones.
    pub fn secret(seed: u64, label: &str) -> Self {
        let mut text = b"cacheon/secret-stream/v1/".to_vec();
        text.extend_from_slice(&seed.to_le_bytes());
        text.extend_from_slice(label.as_bytes());
        let digest = sp_crypto_hashing::sha2_256(&text);
        let mut state = [0u8; 8];
        state.copy_from_slice(&digest[..8]);
        Rng::new(u64::from_le_bytes(state))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`, rounded to f32.
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        (lo as f64 + (hi as f64 - lo as f64) * self.next_f64()) as f32
    }

    /// Uniform integer in `[0, n)`; `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        // Multiply-shift; the bias is below 2^-64 * n, irrelevant here.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Fills a vector with uniform values in `[-a, a)`.
    pub fn fill_uniform(&mut self, len: usize, a: f32) -> Vec<f32> {
        (0..len).map(|_| self.uniform(-a, a)).collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn secret_streams_differ_by_label_and_seed_and_are_not_the_public_ones() {
        use super::Rng;
        let first = |mut r: Rng| r.next_u64();
        let a = first(Rng::secret(7, "workload-prompt/1"));
        assert_eq!(
            a,
            first(Rng::secret(7, "workload-prompt/1")),
            "deterministic"
        );
        assert_ne!(a, first(Rng::secret(7, "workload-prompt/2")));
        assert_ne!(a, first(Rng::secret(8, "workload-prompt/1")));
        assert_ne!(a, first(Rng::derive(7, "workload-prompt/1")));
    }

    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert_eq!(a, (0..4).map(|_| r.next_u64()).collect::<Vec<_>>());
        let mut r = Rng::derive(1, "x");
        for _ in 0..1000 {
            let v = r.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&v));
            assert!(r.below(5) < 5);
        }
        assert_ne!(
            Rng::derive(1, "a").next_u64(),
            Rng::derive(1, "b").next_u64()
        );
    }
}
