//! The one build-and-load path for CPU bundles, stock and miner alike (DESIGN 6, 7 step 3).
//!
//! Three steps, so that a lane can seal itself between building and loading:
//! 1. [`CpuSources::write`]: the bundle's files go into a fresh private temp dir;
//!    [`CpuSources::preprocess`] gives the compiler's own preprocessor output of each
//!    source (for the source screen, which then sees exactly what is compiled).
//! 2. [`CpuSources::compile`]: the ops' sources are compiled into one shared library by
//!    the system C compiler with the arena's flags in a sandbox of its own (rlimits, a
//!    wall-clock limit, Landlock and seccomp; its whole process group killed after every
//!    build: [`crate::sandbox::compiler`]), each entry's prototype is checked, and
//!    the library passes the artifact screen ([`crate::cpu::artifact`]), its instructions
//!    checked against the hardware class the flags' `-march=` names. No bundle code has
//!    run yet.
//! 3. [`CompiledCpuBundle::load`]: the library is `dlopen`ed with `RTLD_NOW | RTLD_LOCAL`
//!    and each op's entry symbol is resolved.
//!
//! [`build_cpu_bundle`] does all three. Bundles come in as in-memory files, so chain bytes
//! and folders go through the same code.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

use crate::bundle::manifest::{Backend, Manifest, ManifestError};
use crate::bundle::{self, BundleError, BundleFile};
use crate::cpu::artifact::isa::HardwareClass;
use crate::cpu::kernel::CpuKernel;
use crate::sandbox::compiler;
use crate::slots::SlotId;

/// The CPU arena's compiler flags (`cpu-tiny`): C11 with GNU extensions (which also keeps
/// trigraphs off, so the source screen and the compiler read the same characters), -O3,
/// x86-64-v3, PIC, no fast-math.
pub const ARENA_FLAGS: [&str; 5] = ["-std=gnu11", "-O3", "-march=x86-64-v3", "-fPIC", "-shared"];

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
    /// Run the artifact screen on the built library (always, except for the sandbox's
    /// own probes, which are built to do what the screen refuses).
    pub screen_artifact: bool,
}

impl Default for CpuBuildOptions {
    fn default() -> Self {
        CpuBuildOptions {
            compiler: PathBuf::from("cc"),
            flags: ARENA_FLAGS.iter().map(|s| s.to_string()).collect(),
            // No toolchain start-up files: the library then has no load-time code at all,
            // which the artifact screen requires.
            link_flags: vec!["-nostartfiles".to_string(), "-lm".to_string()],
            timeout: Duration::from_secs(60),
            max_log_bytes: 64 * 1024,
            max_bundle_bytes: bundle::MAX_BUNDLE_BYTES,
            screen_artifact: true,
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
    #[error("{0}")]
    Artifact(#[from] crate::cpu::artifact::ArtifactViolation),
    #[error("the preprocessor failed:\n{log}")]
    Preprocess { log: String },
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

impl From<compiler::SandboxError> for CpuBuildError {
    fn from(e: compiler::SandboxError) -> Self {
        match e {
            compiler::SandboxError::Unavailable { compiler, message } => {
                CpuBuildError::CompilerUnavailable { compiler, message }
            }
            compiler::SandboxError::Io(message) => CpuBuildError::Io(message),
        }
    }
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

/// A bundle's files written out for the compiler, not yet compiled.
pub struct CpuSources {
    dir: tempfile::TempDir,
    src_root: PathBuf,
    manifest: Manifest,
    /// The ops' source files, each once, in manifest order.
    sources: Vec<String>,
}

/// A compiled library that passed the artifact screen; none of its code has run.
pub struct CompiledCpuBundle {
    /// Keeps the library file until it is loaded.
    _dir: tempfile::TempDir,
    lib_path: PathBuf,
    manifest: Manifest,
    log: String,
}

/// One source as the compiler's preprocessor sees it (`cc -E` with the arena's flags).
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The source's bundle path.
    pub source: String,
    /// The preprocessor's output, line markers included.
    pub text: String,
    /// The bundle's own folder as written in the line markers.
    pub root: PathBuf,
}

/// Builds a CPU bundle and loads its kernels. `origin` labels the kernels (a stock
/// bundle's name, a proposal id) for reports.
pub fn build_cpu_bundle(
    files: &[BundleFile],
    origin: &str,
    opts: &CpuBuildOptions,
) -> Result<CpuBundle, CpuBuildError> {
    CpuSources::write(files, opts)?.compile(opts)?.load(origin)
}

impl CpuSources {
    /// Checks the bundle and writes its files into a fresh private temp dir.
    pub fn write(
        files: &[BundleFile],
        opts: &CpuBuildOptions,
    ) -> Result<CpuSources, CpuBuildError> {
        bundle::check_bundle(files, opts.max_bundle_bytes)?;
        let manifest = Manifest::from_bundle(files)?;
        if manifest.backend != Backend::Cpu {
            return Err(CpuBuildError::WrongBackend(manifest.backend));
        }
        let dir = tempfile::Builder::new()
            .prefix("cacheon-cpu-build-")
            .tempdir()
            .map_err(|e| CpuBuildError::Io(format!("creating a temp dir: {e}")))?;
        let src_root = dir.path().join(BUNDLE_DIR);
        for f in files {
            let path = src_root.join(&f.path);
            let parent = path.parent().expect("bundle paths are relative files");
            fs::create_dir_all(parent).map_err(|e| io_err("creating", parent, e))?;
            fs::write(&path, &f.data).map_err(|e| io_err("writing", &path, e))?;
        }
        let mut sources: Vec<String> = Vec::new();
        for op in &manifest.ops {
            if !sources.contains(&op.source) {
                sources.push(op.source.clone());
            }
        }
        Ok(CpuSources {
            dir,
            src_root,
            manifest,
            sources,
        })
    }

    /// The manifest of the written bundle.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Each op source through the compiler's own preprocessor, with the arena's flags.
    pub fn preprocess(&self, opts: &CpuBuildOptions) -> Result<Vec<Preprocessed>, CpuBuildError> {
        let cpp = without_linking(opts, "-E");
        let mut out = Vec::new();
        for source in &self.sources {
            let target = self.dir.path().join("preprocessed.i");
            match compile_with(
                &self.src_root,
                &[source],
                Some(&target),
                self.dir.path(),
                &cpp,
            ) {
                Ok(_) => {}
                Err(CpuBuildError::Build { log }) | Err(CpuBuildError::Timeout { log, .. }) => {
                    return Err(CpuBuildError::Preprocess { log })
                }
                Err(e) => return Err(e),
            }
            let text = fs::read(&target).map_err(|e| io_err("reading", &target, e))?;
            out.push(Preprocessed {
                source: source.clone(),
                text: String::from_utf8_lossy(&text).into_owned(),
                root: self.src_root.clone(),
            });
        }
        Ok(out)
    }

    /// Compiles the library, checks every entry's prototype and screens the artifact.
    pub fn compile(self, opts: &CpuBuildOptions) -> Result<CompiledCpuBundle, CpuBuildError> {
        let lib_path = self.dir.path().join("libbundle.so");
        let sources: Vec<&str> = self.sources.iter().map(String::as_str).collect();
        let log = compile(&self.src_root, &sources, &lib_path, self.dir.path(), opts)?;
        for op in &self.manifest.ops {
            check_prototype(&self.src_root, op, self.dir.path(), opts)?;
        }
        let bytes = fs::read(&lib_path).map_err(|e| io_err("reading", &lib_path, e))?;
        if opts.screen_artifact {
            let class = HardwareClass::of_flags(&opts.flags).ok_or_else(|| {
                CpuBuildError::Io(format!(
                    "the build's flags name no x86-64 hardware class (`-march=x86-64-vN`): {}",
                    opts.flags.join(" ")
                ))
            })?;
            crate::cpu::artifact::screen_library(&bytes, class)?;
        }
        Ok(CompiledCpuBundle {
            _dir: self.dir,
            lib_path,
            manifest: self.manifest,
            log,
        })
    }
}

impl CompiledCpuBundle {
    /// Compiler output (warnings), for the miner.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The built shared library (an engine release ships and checks its bytes).
    pub fn library(&self) -> &Path {
        &self.lib_path
    }

    /// Loads the library and resolves each op's entry.
    pub fn load(self, origin: &str) -> Result<CpuBundle, CpuBuildError> {
        // SAFETY: the artifact screen refused every kind of load-time code, so loading runs
        // none of the bundle's; candidate bundles are only loaded inside sealed lane
        // processes (DESIGN 7.1).
        let lib =
            unsafe { Library::open(Some(&self.lib_path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| {
                CpuBuildError::Load {
                    message: with_source(&e),
                }
            })?;
        let lib = Arc::new(lib);
        let mut kernels = Vec::new();
        for op in &self.manifest.ops {
            // SAFETY: we only take the symbol's address; it is typed by the manifest's slot.
            let addr = unsafe { lib.get::<*const std::ffi::c_void>(op.entry.as_bytes()) }.map_err(
                |_| CpuBuildError::MissingEntry {
                    name: op.entry.clone(),
                },
            )?;
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
            manifest: self.manifest,
            log: self.log,
            kernels,
        })
    }
}

/// ABI step for C: a translation unit that includes the op's source and then declares the
/// entry with the slot's exact prototype. The compiler refuses a conflicting earlier
/// definition (other parameter types or count, another return type), so the check reads
/// The bundle's folder inside a build's folder.
const BUNDLE_DIR: &str = "bundle";

/// the signature itself, not only the symbol name that `dlsym` sees.
fn check_prototype(
    src_root: &Path,
    op: &crate::bundle::manifest::Op,
    work: &Path,
    opts: &CpuBuildOptions,
) -> Result<(), CpuBuildError> {
    // The check file lives in the build's own folder, beside the bundle's and outside it:
    // no bundle path can be (or block) it. Both paths are relative (the compiler runs in
    // the bundle's folder), so what `__FILE__` spells is the same in every build.
    debug_assert_eq!(src_root, work.join(BUNDLE_DIR));
    let check = format!("abi-check-{}.c", op.slot.index());
    let source = format!("{BUNDLE_DIR}/{}", op.source);
    if source.contains(['"', '\\', '\n']) {
        return Err(CpuBuildError::Io(format!("{source}: not a plain path")));
    }
    let text = format!(
        "#include <stdint.h>\n#include \"{source}\"\n{};\n",
        crate::slots::c_prototype(op.slot, Some(&op.entry))
    );
    let path = work.join(&check);
    fs::write(&path, text).map_err(|e| io_err("writing", &path, e))?;
    let syntax = without_linking(opts, "-fsyntax-only");
    let name = format!("../{check}");
    match compile_with(src_root, &[name.as_str()], None, work, &syntax) {
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

/// The arena's options for a compiler run that links nothing (the preprocessor, a syntax
/// check): its flags without `-shared`, plus `mode`.
fn without_linking(opts: &CpuBuildOptions, mode: &str) -> CpuBuildOptions {
    let mut flags: Vec<String> = opts
        .flags
        .iter()
        .filter(|f| f.as_str() != "-shared")
        .cloned()
        .collect();
    flags.push(mode.to_string());
    CpuBuildOptions {
        flags,
        link_flags: vec![],
        ..opts.clone()
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

/// Runs the compiler on `sources` in its sandbox ([`crate::sandbox::compiler`]); with
/// `out`, the result must exist afterwards.
fn compile_with(
    src_root: &Path,
    sources: &[&str],
    out: Option<&Path>,
    work: &Path,
    opts: &CpuBuildOptions,
) -> Result<String, CpuBuildError> {
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
        // Temporary files in the build directory: nowhere else is writable.
        .env("TMPDIR", work)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err);
    let status = compiler::run(cmd, &opts.compiler, src_root, work, opts.timeout, &[])?;
    let log = read_log(&log_path, opts.max_log_bytes);
    let Some(status) = status else {
        return Err(CpuBuildError::Timeout {
            seconds: opts.timeout.as_secs(),
            log,
        });
    };
    if !status.success() || out.is_some_and(|o| !o.exists()) {
        return Err(CpuBuildError::Build { log });
    }
    Ok(log)
}
