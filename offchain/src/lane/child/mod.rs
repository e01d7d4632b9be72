//! The lane process itself (`cacheon lane`): the only place candidate code runs.
//!
//! It reads requests from stdin and answers on its reply descriptor (see
//! [`super::protocol`]; stdout and stderr go to the lane's log). It builds one bundle
//! (preprocessor screen, compile, artifact screen) and (for speed lanes) the engine, then
//! seals itself with Landlock and its seccomp filter, and only then loads the bundle's
//! library, so no bundle code ever runs unsealed. Then it runs verification cases or
//! workloads:
//! for each, it generates the seeded inputs, poisons the outputs, fills the guard bands,
//! copies the inputs, says `Entering`, calls the kernel, and reports what the harness saw
//! (guard bands, inputs) with the raw outputs. It judges nothing: the referee recomputes
//! the inputs from the seeds and compares with its own trusted reference.

use std::io::{self, BufReader, BufWriter, Write};
use std::os::fd::FromRawFd;

use cacheon_kernels::cpu::build::{
    CompiledCpuBundle, CpuBuildError, CpuBuildOptions, CpuBundle, CpuSources,
};
use cacheon_kernels::slots::SlotId;

use cacheon_kernels::slots::args::Buffer;

use super::harness::{case_args, guard_hits, GUARD_BITS, POISON_BITS};
use super::protocol::{
    read_frame, send, send_f32s, send_i32s, AuditSample, BuildStage, CallCheck, EngineWeights,
    Frame, RankGroup, ReadSpec, RecordedCall, Reply, Request, RunResult, Special,
};
use super::sandbox::{self, landlock};
use super::Sealed;
use crate::arena::LaneBackend;
use cuda_engine_lane::CudaEngineLane;
use engine_lane::{EngineLane, LaneEngine};

mod build;
mod calls;
pub mod cuda_case;
pub mod cuda_engine_lane;
pub mod engine_lane;
pub mod held_logits;

use build::*;
use calls::*;

enum Loaded {
    /// Built and screened, loaded once the lane is sealed (with its origin label).
    CpuCompiled((String, CompiledCpuBundle)),
    /// Compiled and screened, its module loaded once the lane is sealed.
    CudaCompiled((String, cacheon_kernels::cuda::CompiledBundle)),
    /// Being loaded (only while the seal loads it).
    Loading,
    Cpu(CpuBundle),
    Cuda(Box<cuda_case::CudaLane>),
}

/// The arena's engine, once loaded.
enum Engine {
    Cpu(Box<EngineLane>),
    Cuda(Box<CudaEngineLane>),
}

impl Engine {
    fn lane(&mut self) -> &mut dyn LaneEngine {
        match self {
            Engine::Cpu(e) => e.as_mut(),
            Engine::Cuda(e) => e.as_mut(),
        }
    }
}

/// Everything a lane holds.
struct LaneState {
    backend: LaneBackend,
    /// Built bundles not yet installed in the engine, in build order (verification uses
    /// the last; `InstallCandidate` installs them all).
    loaded: Vec<Loaded>,
    engine: Option<Engine>,
    /// GPU 0, opened on first use (CUDA lanes): the bundle and the engine share it.
    gpu: Option<cacheon_kernels::CudaDevice>,
    /// What is in force, once sealed.
    sealed: Option<Sealed>,
    /// Whether a CPU lane's allow-list is installed (after its bundles are mapped).
    allow_list: bool,
    /// The label of the bundle built last (for its kernels' reports).
    origin: String,
}

impl LaneState {
    /// Landlock first (it needs the paths it allows), then seccomp; once. Then a built
    /// CPU bundle is loaded (its library mapped): the first moment any of its code could
    /// run, so it happens under the seal and as candidate code (`Entering`).
    fn seal(&mut self, out: &mut impl Write) -> io::Result<Result<Sealed, Reply>> {
        let cuda = self.backend == LaneBackend::Cuda;
        let sealed = *self.sealed.get_or_insert_with(|| {
            let landlock = std::env::current_dir()
                .map_err(|e| e.to_string())
                .and_then(|dir| landlock::restrict_filesystem(&dir, cuda));
            if let Err(e) = &landlock {
                eprintln!("lane: landlock: {e}");
            }
            let seccomp = sandbox::install_seccomp(!cuda);
            if let Err(e) = &seccomp {
                eprintln!("lane: seccomp: {e}");
            }
            Sealed {
                landlock: landlock.unwrap_or(false),
                seccomp: seccomp.is_ok(),
            }
        });
        for at in 0..self.loaded.len() {
            if !matches!(
                self.loaded[at],
                Loaded::CpuCompiled(_) | Loaded::CudaCompiled(_)
            ) {
                continue;
            }
            entering(out, "loading the bundle".into())?;
            let loaded = match std::mem::replace(&mut self.loaded[at], Loaded::Loading) {
                Loaded::CpuCompiled((origin, compiled)) => compiled
                    .load(&origin)
                    .map(Loaded::Cpu)
                    .map_err(|e| e.to_string()),
                Loaded::CudaCompiled((origin, compiled)) => self.gpu().and_then(|dev| {
                    cuda_case::CudaLane::load(dev, compiled, &origin)
                        .map(|lane| Loaded::Cuda(Box::new(lane)))
                }),
                _ => unreachable!("matched above"),
            };
            match loaded {
                Ok(l) => self.loaded[at] = l,
                Err(log) => {
                    return Ok(Err(Reply::BuildFailed {
                        stage: BuildStage::Build,
                        log,
                    }))
                }
            }
        }
        // CPU bundles are mapped now: the allow-list leaves nothing else to do
        // (sandbox::install_cpu_allow_list). Builds and loads happen before the seal.
        if !cuda && !self.allow_list {
            self.allow_list = true;
            if let Err(e) = sandbox::install_cpu_allow_list() {
                eprintln!("lane: seccomp allow-list: {e}");
                if let Some(s) = self.sealed.as_mut() {
                    s.seccomp = false;
                }
            }
        }
        Ok(Ok(self.sealed.unwrap_or(sealed)))
    }

    fn gpu(&mut self) -> Result<cacheon_kernels::CudaDevice, String> {
        if let Some(d) = &self.gpu {
            return Ok(d.clone());
        }
        let d = cacheon_kernels::CudaDevice::open(0).map_err(|e| e.to_string())?;
        self.gpu = Some(d.clone());
        Ok(d)
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// Runs the lane until `Shutdown` or the end of stdin. Returns the process exit code.
/// Makes the allocator behave the same in every lane, whatever the lane did before: glibc
/// raises its mmap threshold each time a large mmapped block is freed, so a lane that once
/// freed a large buffer (most likely an audit read's reply: only the candidate lane runs those)
/// would from then on take the engine's per-pass scratch from the heap, without the page
/// faults the other lane still pays on every pass: a 2-5 % head start for the candidate's
/// lane in some attempts, measured with the stock kernel as its own candidate. With both
/// thresholds set, the dynamic adjustment is off: blocks up to 32 MiB (glibc's largest
/// mmap threshold) come from the heap and freed heap memory is kept, in every lane alike.
fn fix_allocator() {
    // SAFETY: mallopt only changes the allocator's parameters; called before this lane
    // allocates anything that depends on them.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

pub fn run(backend: LaneBackend) -> i32 {
    fix_allocator();
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    // Replies go to their own descriptor, set up by the referee; stdout is the lane's log.
    // SAFETY: the referee opens REPLY_FD for every lane it starts, and nothing else in
    // this process owns it.
    let replies = unsafe { std::fs::File::from_raw_fd(super::protocol::REPLY_FD) };
    let mut out = BufWriter::new(replies);
    let ready = Reply::Ready {
        pid: std::process::id(),
        network_namespace: sandbox::in_private_network_namespace(),
    };
    if send(&mut out, &ready).and_then(|_| out.flush()).is_err() {
        return 2;
    }
    let mut state = LaneState {
        backend,
        loaded: Vec::new(),
        engine: None,
        gpu: None,
        sealed: None,
        allow_list: false,
        origin: String::new(),
    };
    loop {
        let request = match read_frame(&mut input) {
            Ok(Some(Frame::Json(j))) => match serde_json::from_slice::<Request>(&j) {
                Ok(r) => r,
                Err(e) => return fault(&mut out, &format!("bad request: {e}")),
            },
            Ok(None) => return 0,
            Ok(Some(Frame::Blob(_))) => return fault(&mut out, "unexpected blob"),
            Err(e) => return fault(&mut out, &format!("reading a request: {e}")),
        };
        let mut blobs = |n: usize| -> Result<Vec<Vec<u8>>, i32> {
            (0..n)
                .map(|_| match read_frame(&mut input) {
                    Ok(Some(Frame::Blob(b))) => Ok(b),
                    _ => Err(2),
                })
                .collect()
        };
        let result = match request {
            Request::Shutdown => return 0,
            Request::Build {
                origin,
                unscreened_probe,
            } => match blobs(1) {
                Ok(b) => build(&mut state, &origin, unscreened_probe, &b[0], &mut out),
                Err(_) => return fault(&mut out, "a build request needs the bundle blob"),
            },
            Request::Seal => match state.seal(&mut out) {
                Ok(Ok(Sealed { seccomp, landlock })) => {
                    send(&mut out, &Reply::Sealed { seccomp, landlock })
                }
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
            Request::Verify {
                slot,
                shape,
                seeds,
                special,
                guard,
                graph,
                probe,
            } => match state.seal(&mut out) {
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
                Ok(Ok(_)) => verify(
                    state.loaded.last(),
                    &slot,
                    (&shape, &seeds, probe),
                    special,
                    guard,
                    graph,
                    &mut out,
                ),
            },
            Request::LoadEngine {
                model,
                weights,
                max_seq,
                max_batch,
                stack,
                group,
            } => match blobs(stack) {
                Ok(stack) => load_engine(
                    &mut state,
                    &model,
                    &weights,
                    (max_seq, max_batch),
                    group.as_ref(),
                    &stack,
                    &mut out,
                ),
                Err(_) => return fault(&mut out, "missing incumbent bundle blobs"),
            },
            Request::InstallCandidate => install_candidate(&mut state, &mut out),
            Request::Run {
                read,
                keep_logits,
                hold_logits,
            } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_run(&mut state, &read, (keep_logits, hold_logits), &mut out),
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
            Request::LogitRows { rows } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_logit_rows(&mut state, &rows, &mut out),
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
            Request::Audit {
                read,
                sample,
                feature_seed,
                probe_seed,
            } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_audit(
                    &mut state,
                    &read,
                    &sample,
                    (feature_seed, probe_seed),
                    &mut out,
                ),
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
            Request::TeacherForce { tokens, from } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_force(&mut state, &tokens, from, &mut out),
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
        };
        if let Err(e) = result.and_then(|_| out.flush()) {
            // The referee is gone or sent nonsense; nothing useful is left to do.
            eprintln!("lane: {e}");
            return 2;
        }
    }
}

fn fault(out: &mut impl Write, message: &str) -> i32 {
    let _ = send(
        out,
        &Reply::Fault {
            message: message.to_string(),
        },
    );
    let _ = out.flush();
    2
}

fn entering(out: &mut impl Write, what: String) -> io::Result<()> {
    send(out, &Reply::Entering { what })?;
    out.flush()
}
