//! Choosing the next token from logits: greedy, or temperature sampling from a seeded
//! generator (deterministic for a given seed).

use crate::rng::Rng;

/// How tokens are chosen.
#[derive(Clone, Debug)]
pub enum Sampler {
    /// The highest logit; ties go to the lowest token id.
    Greedy,
    /// Sample from `softmax(logits / temperature)`.
    Temperature { temperature: f32, rng: Rng },
}

impl Sampler {
    pub fn greedy() -> Sampler {
        Sampler::Greedy
    }

    /// Temperature sampling; a temperature of 0 or less is greedy.
    pub fn temperature(temperature: f32, seed: u64) -> Sampler {
        if temperature <= 0.0 {
            return Sampler::Greedy;
        }
        Sampler::Temperature {
            temperature,
            rng: Rng::derive(seed, "sampler"),
        }
    }

    /// Picks a token from one row of logits.
    pub fn sample(&mut self, logits: &[f32]) -> u32 {
        match self {
            Sampler::Greedy => argmax(logits),
            Sampler::Temperature { temperature, rng } => {
                let t = *temperature as f64;
                let max = logits
                    .iter()
                    .fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                let weights: Vec<f64> = logits
                    .iter()
                    .map(|&v| ((v as f64 - max) / t).exp())
                    .collect();
                let total: f64 = weights.iter().sum();
                let mut u = rng.next_f64() * total;
                for (i, w) in weights.iter().enumerate() {
                    if u < *w {
                        return i as u32;
                    }
                    u -= w;
                }
                argmax(logits)
            }
        }
    }
}

/// Index of the largest value (first one on ties; NaN never wins).
pub fn argmax(values: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] || values[best].is_nan() {
            best = i;
        }
    }
    best as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_and_seeded_temperature() {
        assert_eq!(Sampler::greedy().sample(&[0.1, 3.0, 3.0, -1.0]), 1);
        let logits = [0.0, 1.0, 2.0, 0.5];
        let draw = |seed| {
            let mut s = Sampler::temperature(1.0, seed);
            (0..64).map(|_| s.sample(&logits)).collect::<Vec<_>>()
        };
        assert_eq!(draw(9), draw(9));
        assert_ne!(draw(9), draw(10));
        assert!(
            draw(9).iter().any(|&t| t != 2),
            "sampling should not be greedy"
        );
        let mut cold = Sampler::temperature(1e-3, 1);
        assert!((0..32).all(|_| cold.sample(&logits) == 2));
    }
}
