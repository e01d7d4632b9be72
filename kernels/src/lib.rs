//! Cacheon kernels: the slot ABIs and registry, trusted references, stock kernels, bundle
//! manifests, the CPU build-and-load path, and the engine (a Llama-family decoder) the
//! kernels plug into.
//!
//! Backend-neutral pieces: [`slots`], [`reference`], [`compare`], [`args`], [`cases`],
//! [`bundle`], [`manifest`], [`launch_expr`], [`stock`]. CPU backend: [`cpu_build`],
//! [`cpu_kernel`], and the CPU engine in [`engine`]. CUDA backend: [`cuda`] (device,
//! NVRTC build path, PTX ABI check, kernels, timing), loaded at run time so that the crate
//! builds and its tests run on machines without a GPU.

pub mod args;
pub mod bundle;
pub mod cases;
pub mod compare;
pub mod compiler_sandbox;
pub mod cpu_artifact;
pub mod cpu_build;
pub mod cpu_kernel;
pub mod cuda;
pub mod engine;
pub mod landlock;
pub mod launch_expr;
pub mod manifest;
pub mod reference;
pub mod rng;
pub mod slots;
pub mod stock;

pub use bundle::BundleFile;
pub use cpu_build::{
    build_cpu_bundle, CompiledCpuBundle, CpuBuildError, CpuBuildOptions, CpuBundle, CpuSources,
};
pub use cpu_kernel::CpuKernel;
pub use cuda::{
    build_cuda_bundle, CudaBuildError, CudaBuildOptions, CudaBundle, CudaDevice, CudaKernel,
};
pub use manifest::{Manifest, ManifestError};
pub use slots::{SlotId, ABI_VERSION};
