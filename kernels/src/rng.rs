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
        self.state = self.state.wrapping_add(GAMMA);
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

    /// Moves the generator `n` draws ahead, as `n` calls of [`Rng::next_u64`] would
    /// (SplitMix64's state is a counter).
    pub fn skip(&mut self, n: u64) {
        self.state = self.state.wrapping_add(GAMMA.wrapping_mul(n));
    }

    /// `rows` rows of `width` uniform values in `[-a, a)`, row `r` multiplied by
    /// `scale(r)`: bit for bit what `rows` calls of `fill_uniform(width, a)` give, each
    /// row's values times its scale, and the generator ends where they would leave it.
    /// Large fills are split into chunks of rows generated on several threads (each chunk's
    /// generator skipped to its first draw); where the process may not start threads (a
    /// sealed CPU lane) a chunk is generated on the calling thread instead.
    pub fn fill_scaled_rows(
        &mut self,
        rows: usize,
        width: usize,
        a: f32,
        scale: impl Fn(usize) -> f32 + Sync,
    ) -> Vec<f32> {
        let mut out = vec![0f32; rows * width];
        if out.is_empty() {
            return out;
        }
        let fill = |mut rng: Rng, first_row: usize, chunk: &mut [f32]| {
            for (i, row) in chunk.chunks_mut(width).enumerate() {
                let s = scale(first_row + i);
                for v in row {
                    *v = rng.uniform(-a, a) * s;
                }
            }
        };
        let fill = &fill;
        let threads = if out.len() < PARALLEL_FILL_MIN {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(32))
        };
        let rows_per = rows.div_ceil(threads);
        let chunk_len = rows_per * width;
        let at = |k: usize| {
            let mut rng = self.clone();
            rng.skip((k * chunk_len) as u64);
            rng
        };
        let mut not_started = Vec::new();
        std::thread::scope(|scope| {
            let mut chunks = out.chunks_mut(chunk_len).enumerate();
            let first = chunks.next();
            for (k, chunk) in chunks {
                let rng = at(k);
                let started = std::thread::Builder::new()
                    .spawn_scoped(scope, move || fill(rng, k * rows_per, chunk));
                if started.is_err() {
                    not_started.push(k);
                }
            }
            if let Some((_, chunk)) = first {
                fill(at(0), 0, chunk);
            }
        });
        // A chunk whose thread could not start is generated here.
        for k in not_started {
            let end = ((k + 1) * chunk_len).min(out.len());
            fill(at(k), k * rows_per, &mut out[k * chunk_len..end]);
        }
        self.skip((rows * width) as u64);
        out
    }
}

/// SplitMix64's increment.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The smallest fill [`Rng::fill_scaled_rows`] spreads over threads (elements).
const PARALLEL_FILL_MIN: usize = 1 << 22;

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

    /// The threaded fill gives exactly the serial rows, small (one thread) and large
    /// (chunks on threads, a ragged last chunk), and leaves the generator where they do.
    #[test]
    fn scaled_rows_are_the_serial_rows() {
        for (rows, width) in [(0, 5), (3, 0), (7, 5), (1031, 4099)] {
            let scale = |r: usize| if r % 97 == 5 { 4.0 } else { 0.5 };
            let mut serial = Rng::derive(9, "rows");
            let want: Vec<f32> = (0..rows)
                .flat_map(|r| {
                    let s = scale(r);
                    serial
                        .fill_uniform(width, 2.0)
                        .into_iter()
                        .map(move |v| v * s)
                })
                .collect();
            let mut threaded = Rng::derive(9, "rows");
            let got = threaded.fill_scaled_rows(rows, width, 2.0, scale);
            assert!(
                want.len() == got.len()
                    && want
                        .iter()
                        .zip(&got)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{rows} x {width}"
            );
            assert_eq!(serial.next_u64(), threaded.next_u64(), "{rows} x {width}");
        }
    }
}
