//! Cacheon kernels: the slot ABIs and registry, trusted references, stock kernels, bundle
//! manifests, the CPU build-and-load path, and the engine (a Llama-family decoder) the
//! kernels plug into.
//!
//! One folder per family:
//! - [`slots`]: the slot registry and ABIs, and what a call is checked with — the argument
//!   buffers ([`slots::args`]), seeded cases ([`slots::cases`]), the trusted references
//!   ([`slots::reference`]) and the comparison ([`slots::compare`]).
//! - [`bundle`]: a bundle's files, its manifest and launch expressions, and the embedded
//!   stock bundles ([`bundle::stock`]).
//! - [`sandbox`]: Landlock and the sandboxed compiler process.
//! - [`source`]: C and CUDA source text as the screens read it (comments, logical lines).
//! - [`model`]: the model both engines run (config, weights, checkpoints, sampling, the
//!   tensor-parallel split).
//! - [`collective`]: what tensor-parallel ranks share (the CPU ranks' shared memory).
//! - [`cpu`]: building, screening and loading C bundles, and the CPU engine.
//! - [`cuda`]: device, NVRTC build path, PTX ABI check, kernels, timing and the CUDA engine,
//!   loaded at run time so that the crate builds and its tests run on machines without a GPU.

pub mod bundle;
pub mod collective;
pub mod cpu;
pub mod cuda;
pub mod model;
pub mod rng;
pub mod sandbox;
pub mod slots;
pub mod source;

pub use bundle::manifest::{Manifest, ManifestError};
pub use bundle::BundleFile;
pub use cpu::build::{
    build_cpu_bundle, CompiledCpuBundle, CpuBuildError, CpuBuildOptions, CpuBundle, CpuSources,
};
pub use cpu::kernel::CpuKernel;
pub use cuda::{
    build_cuda_bundle, CudaBuildError, CudaBuildOptions, CudaBundle, CudaDevice, CudaKernel,
};
pub use slots::{SlotId, ABI_VERSION};
