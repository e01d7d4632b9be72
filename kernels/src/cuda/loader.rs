//! Finding the CUDA libraries at run time. cudarc opens `libcuda` and `libnvrtc` by bare
//! name (`dlopen("libnvrtc.so.13")`), which only searches the loader path. A GPU machine
//! often has the toolkit under `/usr/local/cuda` without it being on that path, so before
//! cudarc looks, we open the libraries from the usual folders by full path (`RTLD_GLOBAL`,
//! kept open for the life of the process). The loader then matches cudarc's bare-name
//! `dlopen` against the already-loaded library's SONAME. Nothing here panics or fails when
//! no library exists: that is how CPU-only machines run the crate.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

/// The CUDA major version the bindings were built for (the `cuda-13000` feature).
pub const CUDA_MAJOR: u32 = 13;

fn env_roots() -> Vec<PathBuf> {
    [
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .filter(|v| !v.is_empty())
    .map(PathBuf::from)
    .collect()
}

/// Toolkit roots to look in: `$CUDA_HOME` and friends, `/usr/local/cuda`,
/// `/usr/local/cuda-13*`, in that order, existing folders only.
pub fn toolkit_roots() -> Vec<PathBuf> {
    let mut roots = env_roots();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut versioned: Vec<PathBuf> = std::fs::read_dir("/usr/local")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("cuda-{CUDA_MAJOR}")))
        })
        .collect();
    versioned.sort();
    versioned.reverse();
    roots.extend(versioned);
    let mut seen = Vec::new();
    for r in roots {
        if r.is_dir() && !seen.contains(&r) {
            seen.push(r);
        }
    }
    seen
}

/// Python wheels' CUDA folders (`site-packages/nvidia/cu13`, `.../cuda_nvrtc`), where a
/// machine with PyTorch but no toolkit keeps its NVRTC.
fn wheel_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for venv_lib in ["/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib"] {
        for py in std::fs::read_dir(venv_lib).into_iter().flatten().flatten() {
            let name = py.file_name();
            if !name.to_string_lossy().starts_with("python3") {
                continue;
            }
            for sp in ["site-packages", "dist-packages"] {
                let nv = py.path().join(sp).join("nvidia");
                for sub in [
                    format!("cu{CUDA_MAJOR}"),
                    "cuda_nvrtc".into(),
                    "cublas".into(),
                ] {
                    let d = nv.join(sub);
                    if d.is_dir() {
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// Folders outside the toolkit roots where NVRTC may live (the wheels'), for a sandbox
/// that must let a compiler process read them.
pub fn nvrtc_dirs() -> Vec<PathBuf> {
    wheel_dirs()
}

fn lib_dirs_under(root: &Path) -> Vec<PathBuf> {
    ["lib64", "lib", "targets/x86_64-linux/lib"]
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.is_dir())
        .collect()
}

fn try_open(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    // SAFETY: loading a vendor library by full path runs its initialisers, exactly what
    // cudarc's own dlopen of the same library would do.
    match unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) } {
        Ok(lib) => {
            // Kept for the life of the process, like cudarc's own handle.
            std::mem::forget(lib);
            true
        }
        Err(_) => false,
    }
}

/// Opens `libcuda.so.1` and `libnvrtc.so.13` from well-known folders when they are not
/// already on the loader path. Runs once; cheap afterwards.
pub fn preload() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        // SAFETY: probing dlopen of the vendor library names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            let dirs = [
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib64",
                "/usr/local/nvidia/lib64",
                "/usr/local/nvidia/lib",
                "/usr/lib/wsl/lib",
            ];
            for d in dirs {
                if try_open(&Path::new(d).join("libcuda.so.1")) {
                    break;
                }
            }
        }
        // SAFETY: as above.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            let mut dirs: Vec<PathBuf> = toolkit_roots()
                .iter()
                .flat_map(|r| lib_dirs_under(r))
                .collect();
            for w in wheel_dirs() {
                dirs.push(w.join("lib"));
            }
            let name = format!("libnvrtc.so.{CUDA_MAJOR}");
            for d in dirs {
                if try_open(&d.join(&name)) {
                    // NVRTC opens its builtins library (`libnvrtc-builtins.so.13.0`) by
                    // bare name too: load it from the same folder first.
                    let prefix = format!("libnvrtc-builtins.so.{CUDA_MAJOR}");
                    for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                        let f = e.file_name();
                        let f = f.to_string_lossy();
                        if f.starts_with(&prefix) {
                            try_open(&e.path());
                        }
                    }
                    break;
                }
            }
        }
    });
}

/// Whether the CUDA driver library can be opened (after [`preload`]).
pub fn driver_present() -> bool {
    preload();
    // SAFETY: probing dlopen of the vendor library names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Whether NVRTC can be opened (after [`preload`]).
pub fn nvrtc_present() -> bool {
    preload();
    // SAFETY: probing dlopen of the vendor library names.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Whether cuBLAS (`libcublas.so.13`, with `libcublasLt.so.13` beside it) can be opened.
/// Like [`preload`], opens it by full path from the toolkit folders or the PyTorch
/// wheels' `nvidia/cu13/lib` first when it is not on the loader path.
pub fn cublas_present() -> bool {
    static DONE: OnceLock<()> = OnceLock::new();
    preload();
    DONE.get_or_init(|| {
        // SAFETY: probing dlopen of the vendor library names.
        if unsafe { cudarc::cublas::sys::is_culib_present() } {
            return;
        }
        let mut dirs: Vec<PathBuf> = toolkit_roots()
            .iter()
            .flat_map(|r| lib_dirs_under(r))
            .collect();
        for w in wheel_dirs() {
            dirs.push(w.join("lib"));
        }
        for d in dirs {
            let name = format!("libcublas.so.{CUDA_MAJOR}");
            if d.join(&name).exists() {
                // libcublas needs libcublasLt from the same folder.
                try_open(&d.join(format!("libcublasLt.so.{CUDA_MAJOR}")));
                if try_open(&d.join(&name)) {
                    break;
                }
            }
        }
    });
    // SAFETY: as above.
    unsafe { cudarc::cublas::sys::is_culib_present() }
}

/// Include folders holding the toolkit's `cuda_bf16.h` (and, for CUDA 13, the `cccl`
/// folder beside it, where `<nv/target>` lives), for NVRTC builds that cannot find the
/// CUDA headers on their own.
pub fn toolkit_include_dirs() -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    for r in toolkit_roots() {
        candidates.push(r.join("include"));
        candidates.push(r.join("targets/x86_64-linux/include"));
    }
    for w in wheel_dirs() {
        candidates.push(w.join("include"));
    }
    for d in candidates {
        if d.join("cuda_bf16.h").is_file() {
            let mut dirs = vec![d.clone()];
            let cccl = d.join("cccl");
            if cccl.is_dir() {
                dirs.push(cccl);
            }
            return dirs;
        }
    }
    Vec::new()
}
