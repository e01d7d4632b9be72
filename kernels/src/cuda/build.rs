//! The one build-and-load path for CUDA bundles, stock and miner alike (DESIGN 6, 7 steps
//! 2-4), mirroring [`crate::cpu::build`].
//!
//! 1. bundle limits and the manifest (backend must be `cuda`);
//! 2. the include screen ([`super::screen`]);
//! 3. NVRTC, once per distinct source, for the arena's architecture (`sm_90a` → PTX for
//!    `compute_90a`), with the bundle's headers and the validator's `stdint.h` passed in
//!    memory, under a wall-clock limit; the log goes back to the miner;
//! 4. the ABI check of every op's entry on the PTX ([`super::ptx`]);
//! 5. (with a device) the driver loads the PTX and each entry is resolved.
//!
//! Steps 1-4 need NVRTC but no GPU ([`compile_cuda_bundle`]); step 5 needs a device
//! ([`build_cuda_bundle`] does all five).
//!
//! System headers: NVRTC is first asked to compile with no include path. If that fails
//! because a header (`cuda_bf16.h`) cannot be found, it is asked again with the toolkit's
//! include folders ([`CudaBuildOptions::include_dirs`]; by default the first toolkit found
//! under `$CUDA_HOME`, `/usr/local/cuda`, ...). The screen has already limited `<...>`
//! includes to the arena's allow-list, so the include path only ever serves those.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::bundle::manifest::{Backend, Manifest, ManifestError};
use crate::bundle::{self, BundleError, BundleFile};
use crate::slots::SlotId;

use super::device::{driver_err, CudaDevice, DeviceError};
use super::kernel::CudaKernel;
use super::loader;
use super::nvrtc::{self, NvrtcError};
use super::ptx::{self, AbiError, ARENA_ARCH};
use super::ptx_cache;
use super::screen::{self, ScreenError};

/// How to build a CUDA bundle.
#[derive(Clone, Debug)]
pub struct CudaBuildOptions {
    /// The arena's architecture, `sm_XX[a]`; PTX is generated for `compute_XX[a]` and the
    /// driver compiles it for the device when the module loads.
    pub arch: String,
    /// NVRTC options besides the architecture (the arena's: C++17, no fast-math).
    pub flags: Vec<String>,
    /// Toolkit include folders for the second attempt (see the module docs); empty means
    /// NVRTC's built-in headers only.
    pub include_dirs: Vec<PathBuf>,
    /// Wall-clock limit per NVRTC compile.
    pub timeout: Duration,
    /// Longest compiler log kept (the rest is cut).
    pub max_log_bytes: usize,
    /// Largest bundle accepted.
    pub max_bundle_bytes: usize,
    /// Compile in a sandboxed child process of this executable (`<exe> nvrtc-child`, see
    /// [`nvrtc::compile_sandboxed`]) instead of in this process: for a miner's sources.
    pub sandbox_exe: Option<PathBuf>,
}

impl Default for CudaBuildOptions {
    fn default() -> Self {
        CudaBuildOptions {
            arch: ARENA_ARCH.to_string(),
            flags: vec!["--std=c++17".to_string()],
            include_dirs: loader::toolkit_include_dirs(),
            timeout: Duration::from_secs(60),
            max_log_bytes: 64 * 1024,
            max_bundle_bytes: bundle::MAX_BUNDLE_BYTES,
            sandbox_exe: None,
        }
    }
}

/// The qualification step a build failure belongs to (DESIGN 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStage {
    /// Step 2, static screen (manifest, bundle rules, source policy): the miner's fault.
    Screen,
    /// Step 3, build: the miner's fault.
    Build,
    /// Step 4, ABI: the miner's fault.
    Abi,
    /// Our side (no NVRTC, no driver, a driver error): NoDecision, never a miner FAIL.
    Infrastructure,
}

/// Why a CUDA bundle could not be built or loaded.
#[derive(Debug, thiserror::Error)]
pub enum CudaBuildError {
    #[error("bundle: {0}")]
    Bundle(#[from] BundleError),
    #[error("manifest: {0}")]
    Manifest(#[from] ManifestError),
    #[error("bundle is for the {0:?} backend, not cuda")]
    WrongBackend(Backend),
    #[error("source screen: {0}")]
    Screen(#[from] ScreenError),
    #[error("{0}")]
    NvrtcUnavailable(String),
    #[error("build of `{source_path}` failed:\n{log}")]
    Build { source_path: String, log: String },
    #[error("build of `{source_path}` took longer than {seconds} s")]
    Timeout { source_path: String, seconds: u64 },
    #[error("ABI: {0}")]
    Abi(#[from] AbiError),
    #[error("{0}")]
    Ptx(#[from] ptx::PtxViolation),
    #[error("the driver could not load `{source_path}`: {message}")]
    Load {
        source_path: String,
        message: String,
    },
    #[error("device: {0}")]
    Device(#[from] DeviceError),
}

impl CudaBuildError {
    /// Which qualification step failed, and so whose fault it is.
    pub fn stage(&self) -> BuildStage {
        match self {
            CudaBuildError::Bundle(_)
            | CudaBuildError::Manifest(_)
            | CudaBuildError::WrongBackend(_)
            | CudaBuildError::Screen(_)
            | CudaBuildError::Ptx(_) => BuildStage::Screen,
            CudaBuildError::Build { .. }
            | CudaBuildError::Timeout { .. }
            | CudaBuildError::Load { .. } => BuildStage::Build,
            CudaBuildError::Abi(_) => BuildStage::Abi,
            CudaBuildError::NvrtcUnavailable(_) | CudaBuildError::Device(_) => {
                BuildStage::Infrastructure
            }
        }
    }
}

/// One compiled source of a bundle.
#[derive(Clone, Debug)]
pub struct CompiledSource {
    /// Bundle path of the `.cu` file.
    pub source: String,
    pub ptx: String,
    /// Compiler output for the miner (possibly empty).
    pub log: String,
}

/// A bundle that passed steps 1-4: screened, compiled, ABI-checked; not loaded.
#[derive(Clone, Debug)]
pub struct CompiledBundle {
    pub manifest: Manifest,
    pub sources: Vec<CompiledSource>,
    /// How long NVRTC took, all sources together.
    pub compile_time: Duration,
}

impl CompiledBundle {
    /// The combined compiler log, one section per source.
    pub fn log(&self) -> String {
        let mut log = String::new();
        for s in &self.sources {
            if !s.log.trim().is_empty() {
                log.push_str(&format!("== {}\n{}\n", s.source, s.log.trim_end()));
            }
        }
        log
    }
}

fn cut(mut log: String, max: usize) -> String {
    if log.len() > max {
        let mut at = max;
        while !log.is_char_boundary(at) {
            at -= 1;
        }
        log.truncate(at);
        log.push_str("\n[log truncated]");
    }
    log
}

/// The NVRTC architecture option for an arena architecture: `sm_90a` → `compute_90a`.
pub fn ptx_arch(arch: &str) -> String {
    match arch.strip_prefix("sm_") {
        Some(rest) => format!("compute_{rest}"),
        None => arch.to_string(),
    }
}

/// The headers NVRTC may open, by every spelling the include screen accepted (`screened`,
/// each source's includes), plus the validator's `stdint.h`.
fn nvrtc_headers(
    files: &[BundleFile],
    screened: &[(String, Vec<screen::Include>)],
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> =
        vec![("stdint.h".to_string(), screen::STDINT_H.to_string())];
    for (_, includes) in screened {
        for inc in includes {
            if let screen::Include::Bundle { spelling, path } = inc {
                let f = bundle::find(files, path).expect("the screen resolved it");
                let text = String::from_utf8_lossy(&f.data).into_owned();
                for name in [spelling, path] {
                    if !headers.iter().any(|(n, _)| n == name) {
                        headers.push((name.clone(), text.clone()));
                    }
                }
            }
        }
    }
    headers
}

/// Steps 1-4 (see the module docs): needs NVRTC, not a GPU.
pub fn compile_cuda_bundle(
    files: &[BundleFile],
    opts: &CudaBuildOptions,
) -> Result<CompiledBundle, CudaBuildError> {
    bundle::check_bundle(files, opts.max_bundle_bytes)?;
    let manifest = Manifest::from_bundle(files)?;
    if manifest.backend != Backend::Cuda {
        return Err(CudaBuildError::WrongBackend(manifest.backend));
    }
    let screened = screen::screen_bundle(files)?;

    let headers = nvrtc_headers(files, &screened);

    let mut options = vec![format!("--gpu-architecture={}", ptx_arch(&opts.arch))];
    options.extend(opts.flags.iter().cloned());
    let mut with_includes = options.clone();
    for d in &opts.include_dirs {
        with_includes.push(format!("--include-path={}", d.display()));
    }

    let started = Instant::now();
    let mut sources: Vec<CompiledSource> = Vec::new();
    for op in &manifest.ops {
        if sources.iter().any(|s| s.source == op.source) {
            continue;
        }
        let f = bundle::find(files, &op.source).expect("the manifest checked it");
        let text = std::str::from_utf8(&f.data).expect("the screen checked it");
        // The program is named by the file's base name: NVRTC may look for quoted
        // includes beside the program's name on disk, and a path like `kernels/x.cu` must
        // not make it look in the validator's working directory.
        let name = op.source.rsplit('/').next().unwrap_or(&op.source);
        let result = compile_source(name, text, &headers, [&options, &with_includes], opts);
        match result {
            Ok((ptx, log)) => sources.push(CompiledSource {
                source: op.source.clone(),
                ptx,
                log: cut(log, opts.max_log_bytes),
            }),
            Err(NvrtcError::Failed { log, .. }) => {
                return Err(CudaBuildError::Build {
                    source_path: op.source.clone(),
                    log: cut(log, opts.max_log_bytes),
                })
            }
            Err(NvrtcError::Timeout { seconds }) => {
                return Err(CudaBuildError::Timeout {
                    source_path: op.source.clone(),
                    seconds,
                })
            }
            Err(e @ NvrtcError::Nul) => {
                return Err(CudaBuildError::Build {
                    source_path: op.source.clone(),
                    log: e.to_string(),
                })
            }
            Err(e) => return Err(CudaBuildError::NvrtcUnavailable(e.to_string())),
        }
    }
    let compile_time = started.elapsed();

    for op in &manifest.ops {
        let src = sources
            .iter()
            .find(|s| s.source == op.source)
            .expect("compiled above");
        ptx::check_abi(op.slot, &op.entry, &src.ptx)?;
    }
    for src in &sources {
        ptx::screen_ptx(&src.ptx)?;
    }
    Ok(CompiledBundle {
        manifest,
        sources,
        compile_time,
    })
}

/// One source to PTX with its log: read back from the build cache ([`ptx_cache`]) where
/// the same source was compiled before, else compiled, in this process or in the
/// compiler's sandbox as `opts` says: first with NVRTC's built-in headers only, then, if a
/// system header was missing, with the toolkit's include folders (`option_sets[1]`; the
/// log then says so).
fn compile_source(
    name: &str,
    text: &str,
    headers: &[(String, String)],
    option_sets: [&[String]; 2],
    opts: &CudaBuildOptions,
) -> Result<(String, String), NvrtcError> {
    let attempt = |opts_now: &[String]| match &opts.sandbox_exe {
        Some(exe) => nvrtc::compile_sandboxed(exe, name, text, headers, opts_now, opts.timeout),
        None => nvrtc::compile(name, text, headers, opts_now, opts.timeout),
    };
    let compile = || {
        let mut result = attempt(option_sets[0]);
        let mut note = String::new();
        if let Err(NvrtcError::Failed { log, .. }) = &result {
            if nvrtc::log_says_header_missing(log) && !opts.include_dirs.is_empty() {
                note = format!(
                    "note: system headers from {}\n",
                    opts.include_dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                result = attempt(option_sets[1]);
            }
        }
        match result {
            Ok(out) => Ok((out.ptx, format!("{note}{}", out.log))),
            Err(NvrtcError::Failed { code, log }) => Err(NvrtcError::Failed {
                code,
                log: format!("{note}{log}"),
            }),
            Err(e) => Err(e),
        }
    };
    let Ok(nvrtc_version) = nvrtc::version() else {
        return compile();
    };
    let inputs = ptx_cache::CompileInputs {
        nvrtc_version,
        name,
        source: text,
        headers,
        option_sets: &option_sets,
        include_dirs: &opts.include_dirs,
    };
    ptx_cache::cached(&inputs, compile)
}

/// A built and loaded CUDA bundle.
#[derive(Debug)]
pub struct CudaBundle {
    pub manifest: Manifest,
    /// Compiler output (warnings), for the miner.
    pub log: String,
    pub compile_time: Duration,
    kernels: Vec<CudaKernel>,
}

impl CudaBundle {
    /// The loaded kernel for a slot, if the bundle provides one.
    pub fn kernel(&self, slot: SlotId) -> Option<&CudaKernel> {
        self.kernels.iter().find(|k| k.slot() == slot)
    }

    /// Every loaded kernel, in manifest order.
    pub fn kernels(&self) -> &[CudaKernel] {
        &self.kernels
    }

    /// Takes the kernels out (to put them in a slot table).
    pub fn into_kernels(self) -> Vec<CudaKernel> {
        self.kernels
    }
}

/// Step 5: loads a compiled bundle's modules on `dev` and resolves each op's entry.
/// `origin` labels the kernels (a stock bundle's name, a proposal id) for reports.
pub fn load_cuda_bundle(
    compiled: CompiledBundle,
    origin: &str,
    dev: &CudaDevice,
) -> Result<CudaBundle, CudaBuildError> {
    let ctx = dev.context();
    let max_smem = dev
        .info()
        .max_shared_mem_per_block_optin
        .clamp(0, u32::MAX as i64) as u32;
    let mut modules = Vec::new();
    for s in &compiled.sources {
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(s.ptx.clone()))
            .map_err(|e| CudaBuildError::Load {
                source_path: s.source.clone(),
                message: match driver_err("cuModuleLoadData", e) {
                    DeviceError::Driver { error, .. } => error,
                    other => other.to_string(),
                },
            })?;
        modules.push((s.source.clone(), module));
    }
    let mut kernels = Vec::new();
    for op in &compiled.manifest.ops {
        let module = &modules
            .iter()
            .find(|(src, _)| *src == op.source)
            .expect("one module per source")
            .1;
        let func = module.load_function(&op.entry).map_err(|_| {
            CudaBuildError::Abi(AbiError::MissingEntry {
                name: op.entry.clone(),
            })
        })?;
        // Clusters of up to 16 blocks (the portable limit is 8): Hopper holds them, and a
        // kernel's compile-time cluster dimensions above 8 fail to launch without this.
        // Older GPUs have no clusters (nor the attribute).
        if dev.info().compute_capability.0 >= 9 {
            // SAFETY: the function handle is live (its module is held by `func`).
            unsafe {
                cudarc::driver::result::function::set_function_attribute(
                    func.cu_function(),
                    cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                    1,
                )
            }
            .map_err(|e| CudaBuildError::Load {
                source_path: op.source.clone(),
                message: format!("cuFuncSetAttribute (non-portable cluster size): {e:?}"),
            })?;
        }
        let launch = op
            .launch
            .clone()
            .expect("validated CUDA ops carry launch geometry");
        // A cluster given twice (the manifest's `cluster` and `__cluster_dims__` in the
        // source) would fail at every launch: refuse it here, by name.
        if launch.cluster.is_some() {
            use cudarc::driver::sys::CUfunction_attribute as A;
            // SAFETY: the function handle is live (its module is held by `func`).
            let width = unsafe {
                cudarc::driver::result::function::get_function_attribute(
                    func.cu_function(),
                    A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                )
            }
            .unwrap_or(0);
            if width > 0 {
                return Err(CudaBuildError::Load {
                    source_path: op.source.clone(),
                    message: format!(
                        "`{}` declares compile-time cluster dimensions and the manifest gives `cluster`: keep one",
                        op.entry
                    ),
                });
            }
        }
        kernels.push(CudaKernel::new(
            op.slot,
            op.entry.clone(),
            origin.to_string(),
            func,
            launch,
            op.when.clone(),
            max_smem,
        ));
    }
    Ok(CudaBundle {
        log: compiled.log(),
        compile_time: compiled.compile_time,
        manifest: compiled.manifest,
        kernels,
    })
}

/// Steps 1-5: builds a CUDA bundle and loads its kernels on `dev`.
pub fn build_cuda_bundle(
    files: &[BundleFile],
    origin: &str,
    dev: &CudaDevice,
    opts: &CudaBuildOptions,
) -> Result<CudaBundle, CudaBuildError> {
    let compiled = compile_cuda_bundle(files, opts)?;
    load_cuda_bundle(compiled, origin, dev)
}
