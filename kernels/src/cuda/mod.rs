//! The CUDA backend: opening a GPU, the one build-and-load path for CUDA bundles (stock
//! and miner alike), loaded kernels typed by their slot, device-side arguments, and the
//! timing harness for benchmarks. Mirrors the CPU backend ([`crate::cpu::build`],
//! [`crate::cpu::kernel`]).
//!
//! Every CUDA library is opened at run time (cudarc's dynamic loading), so this module
//! builds, and its GPU-free parts (the include screen, the PTX ABI check) run, on machines
//! without a GPU or a CUDA toolkit; opening a device there returns
//! [`DeviceError::DriverUnavailable`] or [`DeviceError::NoGpu`].
//!
//! | Module | What it is |
//! |---|---|
//! | [`device`] | [`CudaDevice::open`]: context + one stream, device facts, typed errors. |
//! | [`loader`] | Finding `libcuda`/`libnvrtc` and the toolkit headers at run time. |
//! | [`screen`] | The include screen (allow-listed system headers, bundle headers only). |
//! | [`nvrtc`] | One NVRTC compile with in-memory headers and a time limit. |
//! | [`ptx_cache`] | NVRTC builds filed by the SHA-256 of what decides them, read back instead of compiled. |
//! | [`ptx`] | Parsing `.entry` parameter lists out of PTX; the ABI check. |
//! | [`build`] | [`build_cuda_bundle`]: manifest → screen → NVRTC → ABI → load. |
//! | [`kernel`] | [`CudaKernel`] (launch with manifest geometry) and [`DeviceArgs`]. |
//! | [`engine`] | [`CudaEngine`]: the bf16 Llama decoder (cuBLAS GEMMs, slot kernels, decode graphs). |
//! | [`timing`] | Graph-replay timing with events, copy bandwidth, bytes moved. |

pub mod build;
pub mod device;
pub mod engine;
pub mod kernel;
pub mod loader;
pub mod nvrtc;
pub mod ptx;
pub mod ptx_cache;
pub mod screen;
pub mod timing;

pub use build::{
    build_cuda_bundle, compile_cuda_bundle, load_cuda_bundle, BuildStage, CompiledBundle,
    CudaBuildError, CudaBuildOptions, CudaBundle,
};
pub use device::{CudaDevice, DeviceError, DeviceInfo};
pub use engine::{
    CudaEngine, CudaEngineError, CudaEngineOptions, CudaSlotTable, OpTime, WeightSource,
};
pub use kernel::{evaluate_geometry, CudaKernel, DeviceArgs, Geometry, LaunchError, Residency};
pub use ptx::AbiError;
pub use ptx::ARENA_ARCH;
pub use screen::ScreenError;
