//! The one builder of bundle manifests (`manifest.toml`) for tests, written as a bundle
//! writes one: the ABI line, the competition, then one `[[ops]]` table per op. The
//! `cacheon` crate's integration tests use this file too (`offchain/tests/common/mod.rs`).

use std::fmt;

use cacheon_kernels::{BundleFile, ABI_VERSION};

/// A manifest under construction; [`fmt::Display`] writes its text.
#[derive(Clone, Debug)]
pub struct Manifest {
    target: String,
    mode: &'static str,
    /// Each op's lines, in order.
    ops: Vec<Vec<String>>,
}

impl Manifest {
    /// A manifest for `slot`'s singleton target (`mode = "slot"`) with one CPU op (`f32`).
    pub fn cpu(slot: impl fmt::Display, source: &str, entry: &str) -> Manifest {
        Manifest::singleton(&slot).cpu_op(slot, source, entry)
    }

    /// A manifest for `slot`'s singleton target with one CUDA op (`bf16`); its launch
    /// geometry follows with [`Manifest::line`].
    pub fn cuda(slot: impl fmt::Display, source: &str, entry: &str) -> Manifest {
        Manifest::singleton(&slot).cuda_op(slot, source, entry)
    }

    /// A manifest for an atomic target (`mode = "atomic"`); its ops follow.
    pub fn atomic(target: &str) -> Manifest {
        Manifest {
            target: target.to_string(),
            mode: "atomic",
            ops: Vec::new(),
        }
    }

    fn singleton(slot: &impl fmt::Display) -> Manifest {
        Manifest {
            target: slot.to_string(),
            mode: "slot",
            ops: Vec::new(),
        }
    }

    /// One more op, on the CPU (`f32`).
    pub fn cpu_op(self, slot: impl fmt::Display, source: &str, entry: &str) -> Manifest {
        self.op(slot, "cpu", source, entry, "f32")
    }

    /// One more op, on CUDA (`bf16`).
    pub fn cuda_op(self, slot: impl fmt::Display, source: &str, entry: &str) -> Manifest {
        self.op(slot, "cuda", source, entry, "bf16")
    }

    fn op(
        mut self,
        slot: impl fmt::Display,
        backend: &str,
        source: &str,
        entry: &str,
        dtype: &str,
    ) -> Manifest {
        self.ops.push(vec![
            format!("slot = \"{slot}\""),
            format!("backend = \"{backend}\""),
            format!("source = \"{source}\""),
            format!("entry = \"{entry}\""),
            format!("dtype = \"{dtype}\""),
        ]);
        self
    }

    /// One more line of the last op, as written: `block = [128, 1, 1]`, `when = { ... }`.
    pub fn line(mut self, line: impl Into<String>) -> Manifest {
        self.ops
            .last_mut()
            .expect("an op to add the line to")
            .push(line.into());
        self
    }

    /// The bundle of this manifest and `files` (path, text), in that order.
    pub fn bundle(&self, files: &[(&str, &str)]) -> Vec<BundleFile> {
        std::iter::once(BundleFile::new("manifest.toml", self.to_string()))
            .chain(
                files
                    .iter()
                    .map(|(path, text)| BundleFile::new(*path, *text)),
            )
            .collect()
    }
}

impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "abi = \"{ABI_VERSION}\"")?;
        writeln!(f, "[competition]")?;
        writeln!(f, "target = \"{}\"", self.target)?;
        writeln!(f, "mode = \"{}\"", self.mode)?;
        for op in &self.ops {
            writeln!(f, "[[ops]]")?;
            for line in op {
                writeln!(f, "{line}")?;
            }
        }
        Ok(())
    }
}
