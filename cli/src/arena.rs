//! The arenas this tool knows how to screen for, off chain: which backend runs a bundle,
//! and which element type its kernels take. They mirror the genesis arenas of the runtime
//! (`cpu-tiny`, `h200-llama8b`).

use cacheon_kernels::manifest::Backend;
use cacheon_kernels::slots::Dtype;

/// Which kind of lane process runs an arena's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneBackend {
    Cpu,
    Cuda,
}

impl LaneBackend {
    pub fn as_str(self) -> &'static str {
        match self {
            LaneBackend::Cpu => "cpu",
            LaneBackend::Cuda => "cuda",
        }
    }

    /// The manifest backend bundles for this lane declare.
    pub fn manifest_backend(self) -> Backend {
        match self {
            LaneBackend::Cpu => Backend::Cpu,
            LaneBackend::Cuda => Backend::Cuda,
        }
    }

    /// The element type the arena's kernels compute in.
    pub fn dtype(self) -> Dtype {
        match self {
            LaneBackend::Cpu => Dtype::F32,
            LaneBackend::Cuda => Dtype::Bf16,
        }
    }
}

/// One arena, as the off-chain tools see it.
#[derive(Clone, Copy, Debug)]
pub struct Arena {
    pub name: &'static str,
    pub backend: LaneBackend,
}

pub const ARENAS: [Arena; 2] = [
    Arena {
        name: "cpu-tiny",
        backend: LaneBackend::Cpu,
    },
    Arena {
        name: "h200-llama8b",
        backend: LaneBackend::Cuda,
    },
];

/// The arena named `name`.
pub fn arena(name: &str) -> Option<Arena> {
    ARENAS.iter().copied().find(|a| a.name == name)
}

/// The arena screened for by default on a device.
pub fn default_arena(backend: LaneBackend) -> Arena {
    *ARENAS
        .iter()
        .find(|a| a.backend == backend)
        .expect("one arena per backend")
}
