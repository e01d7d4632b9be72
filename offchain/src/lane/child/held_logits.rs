//! A read's logits held in the lane after it answered: every generated position's
//! next-token logits, kept where the engine computed them (device memory on the GPU) until
//! the next read, so that the referee can ask for the few rows it judges
//! (`Request::LogitRows`) once the timed read is over, instead of every row travelling
//! with every read (a GPU read's 1,161 positions of 128,256 logits are 600 MB as f32).
//!
//! Rows are held in the order the read's tokens come back (`ReadSpec::sequences`): the
//! single sequence's, then each batched sequence's. A batched decode step's rows (one a
//! sequence) go to rows `stride` apart, one copy a step.

/// Where a read's passes put their logit rows among the held rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLayout {
    /// Rows of the single sequence (its prefill's, then one a decode step).
    pub single: usize,
    /// Rows of each batched sequence.
    pub per_batched: usize,
    pub batched: usize,
}

impl RowLayout {
    pub fn of(read: &crate::lane::protocol::ReadSpec) -> RowLayout {
        RowLayout {
            single: read.decode_steps + 1,
            per_batched: read.batch_steps + 1,
            batched: read.batch.len(),
        }
    }

    /// Rows in all.
    pub fn rows(&self) -> usize {
        self.single + self.batched * self.per_batched
    }

    /// The held row of the single sequence's `t`-th generated token.
    pub fn single_row(&self, t: usize) -> usize {
        t
    }

    /// The held row of batched sequence `b`'s `t`-th generated token; the rows of one
    /// batched step are `per_batched` apart.
    pub fn batched_row(&self, b: usize, t: usize) -> usize {
        self.single + b * self.per_batched + t
    }
}

/// Held rows in host memory (the CPU engine's logits live there).
#[derive(Debug, Default)]
pub struct HostHeld {
    vocab: usize,
    rows: Vec<f32>,
}

impl HostHeld {
    /// Drops what was held and makes room for `rows` rows of `vocab`.
    pub fn begin(&mut self, rows: usize, vocab: usize) {
        self.vocab = vocab;
        self.rows.clear();
        self.rows.resize(rows * vocab, f32::NAN);
    }

    /// Holds `logits` (`count` rows) as rows `first`, `first + stride`, ….
    pub fn hold(
        &mut self,
        logits: &[f32],
        first: usize,
        count: usize,
        stride: usize,
    ) -> Result<(), String> {
        let v = self.vocab;
        if logits.len() < count * v
            || (count > 0 && (first + (count - 1) * stride + 1) * v > self.rows.len())
        {
            return Err("logit rows outside the held read".into());
        }
        for k in 0..count {
            let at = (first + k * stride) * v;
            self.rows[at..at + v].copy_from_slice(&logits[k * v..(k + 1) * v]);
        }
        Ok(())
    }

    /// Rows `which` of the held read, one after another.
    pub fn rows(&self, which: &[usize]) -> Result<Vec<f32>, String> {
        let v = self.vocab;
        let mut out = Vec::with_capacity(which.len() * v);
        for &r in which {
            let row = self
                .rows
                .get(r * v..(r + 1) * v)
                .ok_or_else(|| format!("row {r} is not held"))?;
            out.extend_from_slice(row);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::protocol::ReadSpec;

    #[test]
    fn batched_rows_land_a_sequence_apart() {
        let read = ReadSpec {
            prompt: vec![1, 2],
            decode_steps: 3,
            batch: vec![vec![1], vec![2]],
            batch_steps: 2,
        };
        let l = RowLayout::of(&read);
        assert_eq!(l.rows(), read.generated());
        assert_eq!(
            (l.single_row(3), l.batched_row(0, 0), l.batched_row(1, 2)),
            (3, 4, 9)
        );
        let mut h = HostHeld::default();
        h.begin(l.rows(), 2);
        // The second batched step's two rows (token 2 of each batched sequence).
        h.hold(&[1.0, 2.0, 3.0, 4.0], l.batched_row(0, 2), 2, l.per_batched)
            .unwrap();
        assert_eq!(h.rows(&[6, 9]).unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert!(h.rows(&[10]).is_err());
        assert!(h.hold(&[0.0; 4], 9, 2, 1).is_err());
    }
}
