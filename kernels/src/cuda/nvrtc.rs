//! One NVRTC compilation: a `.cu` source plus in-memory headers to PTX, with the compiler
//! log, under a wall-clock limit. Needs `libnvrtc` but no GPU.
//!
//! [`compile`] runs NVRTC in this process: it cannot be killed, so the compile runs on its
//! own thread and the caller stops waiting at the deadline (the thread is left to finish
//! or not). That is for trusted sources (the stock kernels). A miner's source goes through
//! [`compile_sandboxed`]: NVRTC reads hostile input, so it runs in a child process of its
//! own (`<exe> nvrtc-child <dir>`, served by [`serve_child`]) inside the compiler's sandbox
//! ([`crate::sandbox::compiler`]: rlimits, Landlock, seccomp, its process group killed
//! afterwards), and only PTX comes back for the screens.

use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use cudarc::nvrtc::sys;
use serde::{Deserialize, Serialize};

/// What a compile produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NvrtcOutput {
    pub ptx: String,
    /// Compiler messages (warnings), possibly empty.
    pub log: String,
}

/// Why a compile produced no PTX.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Serialize, Deserialize)]
pub enum NvrtcError {
    #[error("NVRTC (libnvrtc.so.13) is not available: {0}")]
    Unavailable(String),
    #[error("compilation failed ({code}):\n{log}")]
    Failed { code: String, log: String },
    #[error("compilation took longer than {seconds} s")]
    Timeout { seconds: u64 },
    #[error("NVRTC call `{call}` failed: {code}")]
    Api { call: String, code: String },
    #[error("source or option contains a NUL byte")]
    Nul,
}

fn check(call: &'static str, r: sys::nvrtcResult) -> Result<(), NvrtcError> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(NvrtcError::Api {
            call: call.to_string(),
            code: format!("{r:?}"),
        })
    }
}

fn c_string(s: &str) -> Result<CString, NvrtcError> {
    CString::new(s).map_err(|_| NvrtcError::Nul)
}

fn text_of(buf: Vec<c_char>) -> String {
    let bytes: Vec<u8> = buf
        .into_iter()
        .map(|c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The NVRTC version, `(major, minor)`.
pub fn version() -> Result<(i32, i32), NvrtcError> {
    if !super::loader::nvrtc_present() {
        return Err(NvrtcError::Unavailable("library not found".into()));
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: plain out-parameters.
    check("nvrtcVersion", unsafe {
        sys::nvrtcVersion(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe {
            sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn compile_blocking(
    name: &str,
    source: &str,
    headers: &[(String, String)],
    options: &[String],
) -> Result<NvrtcOutput, NvrtcError> {
    let c_src = c_string(source)?;
    let c_name = c_string(name)?;
    let c_headers: Vec<CString> = headers
        .iter()
        .map(|(_, body)| c_string(body))
        .collect::<Result<_, _>>()?;
    let c_include_names: Vec<CString> = headers
        .iter()
        .map(|(n, _)| c_string(n))
        .collect::<Result<_, _>>()?;
    let header_ptrs: Vec<*const c_char> = c_headers.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<*const c_char> = c_include_names.iter().map(|c| c.as_ptr()).collect();
    let c_opts: Vec<CString> = options
        .iter()
        .map(|o| c_string(o))
        .collect::<Result<_, _>>()?;
    let opt_ptrs: Vec<*const c_char> = c_opts.iter().map(|c| c.as_ptr()).collect();

    let mut raw: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: every pointer refers to a live NUL-terminated string owned above; the arrays
    // have `headers.len()` entries each (or are null when empty).
    check("nvrtcCreateProgram", unsafe {
        sys::nvrtcCreateProgram(
            &mut raw,
            c_src.as_ptr(),
            c_name.as_ptr(),
            headers.len() as i32,
            if headers.is_empty() {
                std::ptr::null()
            } else {
                header_ptrs.as_ptr()
            },
            if headers.is_empty() {
                std::ptr::null()
            } else {
                name_ptrs.as_ptr()
            },
        )
    })?;
    let prog = Program(raw);
    // SAFETY: `prog` is a live program; the option array outlives the call.
    let compiled =
        unsafe { sys::nvrtcCompileProgram(prog.0, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
    let mut log_size = 0usize;
    // SAFETY: live program, plain out-parameter.
    check("nvrtcGetProgramLogSize", unsafe {
        sys::nvrtcGetProgramLogSize(prog.0, &mut log_size)
    })?;
    let mut log_buf: Vec<c_char> = vec![0; log_size.max(1)];
    // SAFETY: the buffer has the size NVRTC asked for.
    check("nvrtcGetProgramLog", unsafe {
        sys::nvrtcGetProgramLog(prog.0, log_buf.as_mut_ptr())
    })?;
    let log = text_of(log_buf);
    if compiled != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(NvrtcError::Failed {
            code: format!("{compiled:?}"),
            log,
        });
    }
    let mut ptx_size = 0usize;
    // SAFETY: live, compiled program.
    check("nvrtcGetPTXSize", unsafe {
        sys::nvrtcGetPTXSize(prog.0, &mut ptx_size)
    })?;
    let mut ptx_buf: Vec<c_char> = vec![0; ptx_size.max(1)];
    // SAFETY: the buffer has the size NVRTC asked for.
    check("nvrtcGetPTX", unsafe {
        sys::nvrtcGetPTX(prog.0, ptx_buf.as_mut_ptr())
    })?;
    Ok(NvrtcOutput {
        ptx: text_of(ptx_buf),
        log,
    })
}

/// Compiles `source` (named `name` in messages) with `headers` as `(include name, text)`
/// pairs and the given NVRTC options; gives up after `timeout`.
pub fn compile(
    name: &str,
    source: &str,
    headers: &[(String, String)],
    options: &[String],
    timeout: Duration,
) -> Result<NvrtcOutput, NvrtcError> {
    if !super::loader::nvrtc_present() {
        return Err(NvrtcError::Unavailable(
            "library not found on the loader path, under $CUDA_HOME or /usr/local/cuda*".into(),
        ));
    }
    let (tx, rx) = mpsc::channel();
    let (name, source) = (name.to_string(), source.to_string());
    let (headers, options) = (headers.to_vec(), options.to_vec());
    std::thread::Builder::new()
        .name("cacheon-nvrtc".into())
        .spawn(move || {
            let r =
                std::panic::catch_unwind(|| compile_blocking(&name, &source, &headers, &options))
                    .unwrap_or_else(|p| {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "panic".into());
                        Err(NvrtcError::Unavailable(msg))
                    });
            let _ = tx.send(r);
        })
        .map_err(|e| NvrtcError::Unavailable(format!("cannot start the compile thread: {e}")))?;
    match rx.recv_timeout(timeout) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(NvrtcError::Timeout {
            seconds: timeout.as_secs(),
        }),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(NvrtcError::Unavailable(
            "the compile thread ended without an answer".into(),
        )),
    }
}

/// Whether a failed compile's log says a header could not be found.
pub fn log_says_header_missing(log: &str) -> bool {
    log.contains("cannot open source file") || log.contains("could not open source file")
}

/// One compile as it travels to the child process.
#[derive(Serialize, Deserialize)]
struct ChildRequest {
    name: String,
    source: String,
    headers: Vec<(String, String)>,
    options: Vec<String>,
    timeout_ms: u64,
}

const REQUEST: &str = "request.json";
const REPLY: &str = "reply.json";

/// Compiles like [`compile`], in a sandboxed child process of `exe` (the `cacheon` binary,
/// whose hidden `nvrtc-child` command calls [`serve_child`]). The child sees its own
/// scratch folder, the system's and the CUDA toolkit's files (read-only), nothing else;
/// it has no network, and nothing it starts outlives it.
pub fn compile_sandboxed(
    exe: &Path,
    name: &str,
    source: &str,
    headers: &[(String, String)],
    options: &[String],
    timeout: Duration,
) -> Result<NvrtcOutput, NvrtcError> {
    let unavailable = |what: &str, e: &dyn std::fmt::Display| {
        NvrtcError::Unavailable(format!("sandboxed NVRTC: {what}: {e}"))
    };
    let dir = tempfile::Builder::new()
        .prefix("cacheon-nvrtc-")
        .tempdir()
        .map_err(|e| unavailable("creating its folder", &e))?;
    let request = ChildRequest {
        name: name.to_string(),
        source: source.to_string(),
        headers: headers.to_vec(),
        options: options.to_vec(),
        timeout_ms: timeout.as_millis() as u64,
    };
    let text = serde_json::to_vec(&request).map_err(|e| unavailable("encoding", &e))?;
    std::fs::write(dir.path().join(REQUEST), text).map_err(|e| unavailable("writing", &e))?;
    let log = dir.path().join("child.log");
    let log_file = std::fs::File::create(&log).map_err(|e| unavailable("creating", &e))?;
    let log_err = log_file
        .try_clone()
        .map_err(|e| unavailable("opening", &e))?;
    let mut cmd = Command::new(exe);
    cmd.arg("nvrtc-child")
        .arg(dir.path())
        .current_dir(dir.path())
        .env_clear()
        .env("TMPDIR", dir.path())
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err);
    // What the loader needs to find NVRTC where this process found it.
    for var in [
        "PATH",
        "LD_LIBRARY_PATH",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ] {
        if let Some(v) = std::env::var_os(var) {
            cmd.env(var, v);
        }
    }
    let readable: Vec<PathBuf> = super::loader::toolkit_roots()
        .into_iter()
        .chain(super::loader::nvrtc_dirs())
        .collect();
    // The child's own limit comes first; this one covers a child that ignores it.
    let grace = timeout + Duration::from_secs(5);
    let status = crate::sandbox::compiler::run(cmd, exe, dir.path(), dir.path(), grace, &readable)
        .map_err(|e| unavailable("running", &e))?;
    let Some(status) = status else {
        return Err(NvrtcError::Timeout {
            seconds: timeout.as_secs(),
        });
    };
    match std::fs::read(dir.path().join(REPLY)) {
        Ok(bytes) => serde_json::from_slice::<Result<NvrtcOutput, NvrtcError>>(&bytes)
            .map_err(|e| unavailable("its reply", &e))?,
        Err(_) => {
            let mut text = std::fs::read_to_string(&log).unwrap_or_default();
            text.truncate(4096);
            Err(NvrtcError::Failed {
                code: format!("the compiler process ended ({status}) without a reply"),
                log: text,
            })
        }
    }
}

/// The child side of [`compile_sandboxed`]: compiles the request in `dir` and writes the
/// reply beside it. Returns the process exit code.
pub fn serve_child(dir: &Path) -> i32 {
    let request: ChildRequest = match std::fs::read(dir.join(REQUEST))
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("nvrtc-child: bad request: {e}");
            return 2;
        }
    };
    let reply = compile(
        &request.name,
        &request.source,
        &request.headers,
        &request.options,
        Duration::from_millis(request.timeout_ms),
    );
    let written = serde_json::to_vec(&reply)
        .map_err(|e| e.to_string())
        .and_then(|b| std::fs::write(dir.join(REPLY), b).map_err(|e| e.to_string()));
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("nvrtc-child: writing the reply: {e}");
            2
        }
    }
}
