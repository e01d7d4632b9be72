//! The one build-and-load path for CPU bundles, stock and miner alike (DESIGN 6, 7 step 3).
//!
//! The bundle's files are written into a fresh private temp dir, the ops' sources are
//! compiled into one shared library by the system C compiler with the arena's flags under
//! a wall-clock limit (the whole compiler process group is killed on timeout), the library
//! is `dlopen`ed with `RTLD_NOW | RTLD_LOCAL`, and each op's entry symbol is resolved.
//! Bundles come in as in-memory files, so chain bytes and folders go through the same code.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use wait_timeout::ChildExt;

use crate::bundle::{self, BundleError, BundleFile};
use crate::cpu_kernel::CpuKernel;
use crate::manifest::{Backend, Manifest, ManifestError};
use crate::slots::SlotId;

/// The CPU arena's compiler flags (`cpu-tiny`): C11, -O3, x86-64-v3, PIC, no fast-math.
pub const ARENA_FLAGS: [&str; 5] = ["-std=c11", "-O3", "-march=x86-64-v3", "-fPIC", "-shared"];

/// How to build a CPU bundle.
#[derive(Clone, Debug)]
pub struct CpuBuildOptions {
    /// The C compiler driver.
    pub compiler: PathBuf,
    /// Code-generation flags (the arena's).
    pub flags: Vec<String>,
    /// Libraries linked after the sources.
    pub link_flags: Vec<String>,
    /// Wall-clock limit for the compiler.
    pub timeout: Duration,
    /// Longest compiler log kept (the rest is cut).
    pub max_log_bytes: usize,
    /// Largest bundle accepted.
    pub max_bundle_bytes: usize,
}

impl Default for CpuBuildOptions {
    fn default() -> Self {
        CpuBuildOptions {
            compiler: PathBuf::from("cc"),
            flags: ARENA_FLAGS.iter().map(|s| s.to_string()).collect(),
            link_flags: vec!["-lm".to_string()],
            timeout: Duration::from_secs(60),
            max_log_bytes: 64 * 1024,
            max_bundle_bytes: bundle::MAX_BUNDLE_BYTES,
        }
    }
}

/// Why a CPU bundle could not be built or loaded.
#[derive(Debug, thiserror::Error)]
pub enum CpuBuildError {
    #[error("bundle: {0}")]
    Bundle(#[from] BundleError),
    #[error("manifest: {0}")]
    Manifest(#[from] ManifestError),
    #[error("bundle is for the {0:?} backend, not cpu")]
    WrongBackend(Backend),
    #[error("could not prepare the build: {0}")]
    Io(String),
    #[error("compiler `{compiler}` could not be started: {message}")]
    CompilerUnavailable { compiler: String, message: String },
    #[error("build failed:\n{log}")]
    Build { log: String },
    #[error("build took longer than {seconds} s and was killed")]
    Timeout { seconds: u64, log: String },
    #[error("built library could not be loaded: {message}")]
    Load { message: String },
    #[error("entry `{name}` is not exported by the built library")]
    MissingEntry { name: String },
    #[error("entry `{entry}` does not have the parameter list of {slot}:\n{log}")]
    Abi {
        slot: SlotId,
        entry: String,
        log: String,
    },
}

/// A built and loaded CPU bundle.
#[derive(Debug)]
pub struct CpuBundle {
    pub manifest: Manifest,
    /// Compiler output (warnings), for the miner.
    pub log: String,
    kernels: Vec<CpuKernel>,
}

impl CpuBundle {
    /// The loaded kernel for a slot, if the bundle provides one.
    pub fn kernel(&self, slot: SlotId) -> Option<&CpuKernel> {
        self.kernels.iter().find(|k| k.slot() == slot)
    }

    /// Every loaded kernel, in manifest order.
    pub fn kernels(&self) -> &[CpuKernel] {
        &self.kernels
    }
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> CpuBuildError {
    CpuBuildError::Io(format!("{what} {}: {e}", path.display()))
}

/// Builds a CPU bundle and loads its kernels. `origin` labels the kernels (a stock
/// bundle's name, a proposal id) for reports.
pub fn build_cpu_bundle(
    files: &[BundleFile],
    origin: &str,
    opts: &CpuBuildOptions,
) -> Result<CpuBundle, CpuBuildError> {
    bundle::check_bundle(files, opts.max_bundle_bytes)?;
    let manifest = Manifest::from_bundle(files)?;
    if manifest.backend != Backend::Cpu {
        return Err(CpuBuildError::WrongBackend(manifest.backend));
    }
    let dir = tempfile::Builder::new()
        .prefix("cacheon-cpu-build-")
        .tempdir()
        .map_err(|e| CpuBuildError::Io(format!("creating a temp dir: {e}")))?;
    let src_root = dir.path().join("bundle");
    for f in files {
        let path = src_root.join(&f.path);
        let parent = path.parent().expect("bundle paths are relative files");
        fs::create_dir_all(parent).map_err(|e| io_err("creating", parent, e))?;
        fs::write(&path, &f.data).map_err(|e| io_err("writing", &path, e))?;
    }
    let lib_path = dir.path().join("libbundle.so");
    let mut sources: Vec<&str> = Vec::new();
    for op in &manifest.ops {
        if !sources.contains(&op.source.as_str()) {
            sources.push(&op.source);
        }
    }
    let log = compile(&src_root, &sources, &lib_path, dir.path(), opts)?;
    for op in &manifest.ops {
        check_prototype(&src_root, op, dir.path(), opts)?;
    }
    // SAFETY: loading runs the library's initialisers; candidate bundles are only built
    // and loaded inside lane-runner processes (DESIGN 7.1).
    let lib = unsafe { Library::open(Some(&lib_path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| {
        CpuBuildError::Load {
            message: with_source(&e),
        }
    })?;
    let lib = Arc::new(lib);
    let mut kernels = Vec::new();
    for op in &manifest.ops {
        // SAFETY: we only take the symbol's address; it is typed by the manifest's slot.
        let addr =
            unsafe { lib.get::<*const std::ffi::c_void>(op.entry.as_bytes()) }.map_err(|_| {
                CpuBuildError::MissingEntry {
                    name: op.entry.clone(),
                }
            })?;
        let addr = *addr;
        if addr.is_null() {
            return Err(CpuBuildError::MissingEntry {
                name: op.entry.clone(),
            });
        }
        kernels.push(CpuKernel::new(
            op.slot,
            op.entry.clone(),
            origin.to_string(),
            op.when.clone(),
            addr,
            lib.clone(),
        ));
    }
    Ok(CpuBundle {
        manifest,
        log,
        kernels,
    })
}

/// ABI step for C: a translation unit that includes the op's source and then declares the
/// entry with the slot's exact prototype. The compiler refuses a conflicting earlier
/// definition (other parameter types or count, another return type), so the check reads
/// the signature itself, not only the symbol name that `dlsym` sees.
fn check_prototype(
    src_root: &Path,
    op: &crate::manifest::Op,
    work: &Path,
    opts: &CpuBuildOptions,
) -> Result<(), CpuBuildError> {
    let check = src_root.join(format!("cacheon-abi-check-{}.c", op.slot.index()));
    let text = format!(
        "#include <stdint.h>\n#include \"{}\"\n{};\n",
        op.source,
        crate::slots::c_prototype(op.slot, Some(&op.entry))
    );
    fs::write(&check, text).map_err(|e| io_err("writing", &check, e))?;
    let mut flags: Vec<String> = opts
        .flags
        .iter()
        .filter(|f| f.as_str() != "-shared")
        .cloned()
        .collect();
    flags.push("-fsyntax-only".to_string());
    let syntax = CpuBuildOptions {
        flags,
        link_flags: vec![],
        ..opts.clone()
    };
    let name = check
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    match compile_with(src_root, &[name], None, work, &syntax) {
        Ok(_) => Ok(()),
        Err(CpuBuildError::Build { log }) | Err(CpuBuildError::Timeout { log, .. }) => {
            Err(CpuBuildError::Abi {
                slot: op.slot,
                entry: op.entry.clone(),
                log,
            })
        }
        Err(e) => Err(e),
    }
}

fn with_source(e: &dyn std::error::Error) -> String {
    match e.source() {
        Some(s) => format!("{e}: {s}"),
        None => e.to_string(),
    }
}

fn read_log(path: &Path, max: usize) -> String {
    let mut bytes = Vec::new();
    if let Ok(f) = File::open(path) {
        let _ = f.take(max as u64 + 1).read_to_end(&mut bytes);
    }
    let cut = bytes.len() > max;
    bytes.truncate(max);
    let mut log = String::from_utf8_lossy(&bytes).into_owned();
    if cut {
        log.push_str("\n[log truncated]");
    }
    log
}

fn compile(
    src_root: &Path,
    sources: &[&str],
    out: &Path,
    work: &Path,
    opts: &CpuBuildOptions,
) -> Result<String, CpuBuildError> {
    compile_with(src_root, sources, Some(out), work, opts)
}

/// Runs the compiler on `sources`; with `out`, the result must exist afterwards.
fn compile_with(
    src_root: &Path,
    sources: &[&str],
    out: Option<&Path>,
    work: &Path,
    opts: &CpuBuildOptions,
) -> Result<String, CpuBuildError> {
    use std::os::unix::process::CommandExt;
    let log_path = work.join("build.log");
    let log_file = File::create(&log_path).map_err(|e| io_err("creating", &log_path, e))?;
    let log_err = log_file
        .try_clone()
        .map_err(|e| io_err("opening", &log_path, e))?;
    let mut cmd = Command::new(&opts.compiler);
    cmd.args(&opts.flags).args(sources);
    if let Some(out) = out {
        cmd.arg("-o").arg(out);
    }
    cmd.args(&opts.link_flags)
        .current_dir(src_root)
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err)
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| CpuBuildError::CompilerUnavailable {
            compiler: opts.compiler.display().to_string(),
            message: e.to_string(),
        })?;
    let status = child
        .wait_timeout(opts.timeout)
        .map_err(|e| CpuBuildError::Io(format!("waiting for the compiler: {e}")))?;
    let Some(status) = status else {
        // Kill the whole group: the driver's cc1/as/ld children too.
        let pgid = child.id() as libc::pid_t;
        // SAFETY: plain kill(2) on the process group we created for this child.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = child.wait();
        let log = read_log(&log_path, opts.max_log_bytes);
        return Err(CpuBuildError::Timeout {
            seconds: opts.timeout.as_secs(),
            log,
        });
    };
    let log = read_log(&log_path, opts.max_log_bytes);
    if !status.success() || out.is_some_and(|o| !o.exists()) {
        return Err(CpuBuildError::Build { log });
    }
    Ok(log)
}
