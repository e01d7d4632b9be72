//! Lane runners (DESIGN 7.1): candidate code runs only in a child process started from
//! this binary (`cacheon lane`), isolated by [`sandbox`], spoken to with the typed
//! messages of [`protocol`] over its stdin and stdout, and killed at a deadline.
//!
//! The parent keeps track of whether the lane was running candidate code (it says
//! `Entering` first): a lane that dies or overruns its deadline there is the candidate's
//! fault; anywhere else it is ours (NoDecision). Once a lane has loaded candidate code
//! ([`Lane::mark_candidate`]), it is the candidate's for good: candidate code shares the
//! process with the lane's harness and can write anything anywhere in it, so whatever
//! such a lane does wrong (dies, hangs, faults, sends bytes or frames nobody asked for) is
//! FAIL, never NoDecision — a lane cannot choose NoDecision for its own bundle.
//!
//! Between requests the referee freezes a lane (`SIGSTOP` to its process group, `SIGCONT`
//! with the next request), so a lane that is not being asked anything does no work at all
//! while the other is timed.

pub mod child;
pub mod harness;
pub mod protocol;
pub mod sandbox;

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use protocol::{
    read_frame, send, send_blob, CallCheck, CallSample, EngineWeights, Frame, ReadSpec,
    RecordedCall, Reply, Request, RunResult,
};

use crate::arena::LaneBackend;

/// Why a lane did not answer as asked.
#[derive(Debug, thiserror::Error)]
pub enum LaneError {
    /// The lane died while running candidate code (a crash, a kill by a resource limit).
    #[error("the lane died while {during}: {status}")]
    CandidateDied { during: String, status: String },
    /// The lane overran its deadline while running candidate code.
    #[error("the lane did not finish {during} within {seconds} s and was killed")]
    CandidateTimeout { during: String, seconds: u64 },
    /// A lane holding candidate code could not do what was asked (a launch error, a fault
    /// of the engine around the candidate's kernels).
    #[error("the lane holding the candidate failed {during}: {message}")]
    CandidateFault { during: String, message: String },
    /// A lane holding candidate code sent what the protocol does not allow: bytes that are
    /// no frame, a frame nobody asked for, a reply to another request.
    #[error("the lane holding the candidate sent a forged or unexpected reply: {detail}")]
    CandidateForged { detail: String },
    /// Anything else: our side.
    #[error("lane infrastructure: {0}")]
    Infrastructure(String),
}

/// How long a lane may take.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    pub start: Duration,
    pub build: Duration,
    pub call: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            start: Duration::from_secs(30),
            build: Duration::from_secs(180),
            call: Duration::from_secs(120),
        }
    }
}

/// A started lane process.
pub struct Lane {
    child: Child,
    to_lane: BufWriter<ChildStdin>,
    from_lane: mpsc::Receiver<std::io::Result<Frame>>,
    /// The lane's private working directory (removed when the lane is dropped).
    dir: tempfile::TempDir,
    stderr_path: PathBuf,
    /// What the lane said it was doing last, when that was candidate code.
    inside: Option<String>,
    deadlines: Deadlines,
    pub network_namespace: bool,
    /// The lane has loaded candidate code: everything it does is the candidate's.
    candidate: bool,
    /// The loaded engine's vocabulary (0 before `load_engine`).
    vocab: usize,
    /// The lane is stopped (`SIGSTOP`) until the next request.
    frozen: bool,
}

/// What a sealed lane has in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sealed {
    /// The seccomp filter (no new programs or processes, no network sockets).
    pub seccomp: bool,
    /// The Landlock filesystem ruleset (see [`landlock`]); false where the kernel has none.
    pub landlock: bool,
}

/// What a build came to.
#[derive(Clone, Debug)]
pub enum BuildOutcome {
    Built {
        log: String,
        machine: String,
    },
    Failed {
        stage: protocol::BuildStage,
        log: String,
    },
}

impl Lane {
    /// Starts `exe lane --backend B` with an empty environment in a fresh private
    /// directory, with the isolation of [`sandbox::ChildSetup`].
    pub fn spawn(
        exe: &Path,
        backend: LaneBackend,
        deadlines: Deadlines,
    ) -> Result<Lane, LaneError> {
        use std::os::unix::process::CommandExt;
        let infra =
            |what: &str, e: std::io::Error| LaneError::Infrastructure(format!("{what}: {e}"));
        let dir = tempfile::Builder::new()
            .prefix("cacheon-lane-")
            .tempdir()
            .map_err(|e| infra("creating the lane directory", e))?;
        let stderr_path = dir.path().join("lane.stderr");
        let stderr = File::create(&stderr_path).map_err(|e| infra("creating the lane log", e))?;
        let limits = match backend {
            LaneBackend::Cpu => sandbox::Limits::CPU_LANE,
            LaneBackend::Cuda => sandbox::Limits::CUDA_LANE,
        };
        let setup = sandbox::ChildSetup::new(limits);
        let work = dir.path().join("work");
        std::fs::create_dir(&work).map_err(|e| infra("creating the lane directory", e))?;
        // Replies come on a pipe of their own (the lane's descriptor 3); its stdout goes to
        // the log with its stderr, so printing cannot forge a reply.
        let (reply_read, reply_write) =
            std::io::pipe().map_err(|e| infra("creating the reply pipe", e))?;
        let reply_fd = std::os::fd::AsRawFd::as_raw_fd(&reply_write);
        let log_out = stderr
            .try_clone()
            .map_err(|e| infra("opening the lane log", e))?;
        let mut cmd = Command::new(exe);
        cmd.args(["lane", "--backend", backend.as_str()])
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("TMPDIR", &work)
            .env("LC_ALL", "C")
            .current_dir(&work)
            .stdin(Stdio::piped())
            .stdout(log_out)
            .stderr(stderr);
        if backend == LaneBackend::Cuda {
            // The driver and NVRTC are found through these (no keys among them).
            for var in ["CUDA_HOME", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"] {
                if let Some(v) = std::env::var_os(var) {
                    cmd.env(var, v);
                }
            }
        }
        // SAFETY: `apply` and dup2 only make async-signal-safe system calls on prepared
        // data; dup2 gives the lane the reply pipe as REPLY_FD, without close-on-exec.
        unsafe {
            cmd.pre_exec(move || {
                if reply_fd == protocol::REPLY_FD {
                    // dup2 onto itself keeps close-on-exec: clear it instead.
                    if libc::fcntl(reply_fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                } else if libc::dup2(reply_fd, protocol::REPLY_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                setup.apply()
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| infra(&format!("starting {}", exe.display()), e))?;
        // Only the lane may hold the write end: its end of file then means the lane is gone.
        drop(reply_write);
        let stdout = reply_read;
        let stdin = child.stdin.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("lane-reader".into())
            .spawn(move || {
                let mut r = BufReader::new(stdout);
                loop {
                    match read_frame(&mut r) {
                        Ok(Some(f)) => {
                            if tx.send(Ok(f)).is_err() {
                                return;
                            }
                        }
                        Ok(None) => return,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
            })
            .map_err(|e| infra("starting the lane reader", e))?;
        let mut lane = Lane {
            child,
            to_lane: BufWriter::new(stdin),
            from_lane: rx,
            dir,
            stderr_path,
            inside: None,
            deadlines,
            network_namespace: false,
            candidate: false,
            vocab: 0,
            frozen: false,
        };
        match lane.reply(deadlines.start)? {
            Reply::Ready {
                network_namespace, ..
            } => lane.network_namespace = network_namespace,
            other => {
                return Err(LaneError::Infrastructure(format!(
                    "lane said {other:?} first"
                )))
            }
        }
        Ok(lane)
    }

    /// From now on the lane holds candidate code: its failures are the candidate's.
    pub fn mark_candidate(&mut self) {
        self.candidate = true;
    }

    /// Stops the lane until the next request (`SIGSTOP` to its process group and to it).
    pub fn freeze(&mut self) {
        self.signal(libc::SIGSTOP);
        self.frozen = true;
    }

    fn thaw(&mut self) {
        if self.frozen {
            self.signal(libc::SIGCONT);
            self.frozen = false;
        }
    }

    /// Signals the lane's process group (the lane and anything it started before the
    /// seal) and the lane process itself, so a lane that left its group is still stopped.
    fn signal(&self, sig: libc::c_int) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on the process group this lane leads and on the lane.
        unsafe {
            libc::kill(-pid, sig);
            libc::kill(pid, sig);
        }
    }

    /// What the lane did wrong, as the candidate's fault where the lane holds it.
    fn misbehaved(&mut self, detail: String) -> LaneError {
        self.kill();
        if self.candidate || self.inside.is_some() {
            LaneError::CandidateForged { detail }
        } else {
            LaneError::Infrastructure(detail)
        }
    }

    /// The lane's private directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The last lines the lane wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = File::open(&self.stderr_path) {
            let mut buf = Vec::new();
            let _ = f.read_to_end(&mut buf);
            let start = buf.len().saturating_sub(4096);
            text = String::from_utf8_lossy(&buf[start..]).into_owned();
        }
        text
    }

    fn kill(&mut self) {
        self.frozen = false;
        // The lane leads its own process group: take the compiler and anything else too.
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on the process group this lane leads.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn died(&mut self) -> LaneError {
        let status = match self.child.wait() {
            Ok(s) => describe_status(s),
            Err(e) => e.to_string(),
        };
        let tail = self.stderr_tail();
        let status = if tail.trim().is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", tail.trim())
        };
        match self.inside.take() {
            Some(during) => LaneError::CandidateDied { during, status },
            None if self.candidate => LaneError::CandidateDied {
                during: "between requests".into(),
                status,
            },
            None => LaneError::Infrastructure(format!("the lane exited: {status}")),
        }
    }

    /// The next non-`Entering` reply, within `deadline` of each frame.
    fn reply(&mut self, deadline: Duration) -> Result<Reply, LaneError> {
        loop {
            let frame = match self.from_lane.recv_timeout(deadline) {
                Ok(Ok(f)) => f,
                Ok(Err(e)) => return Err(self.misbehaved(format!("reading from the lane: {e}"))),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.kill();
                    let during = match self.inside.take() {
                        Some(during) => Some(during),
                        None if self.candidate => Some("a request".to_string()),
                        None => None,
                    };
                    return Err(match during {
                        Some(during) => LaneError::CandidateTimeout {
                            during,
                            seconds: deadline.as_secs(),
                        },
                        None => LaneError::Infrastructure(format!(
                            "the lane did not answer within {} s",
                            deadline.as_secs()
                        )),
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(self.died()),
            };
            let Frame::Json(json) = frame else {
                return Err(self.misbehaved("a blob where a reply was due".into()));
            };
            let reply: Reply = match serde_json::from_slice(&json) {
                Ok(r) => r,
                Err(e) => return Err(self.misbehaved(format!("undecodable reply: {e}"))),
            };
            match reply {
                Reply::Entering { what } => self.inside = Some(what),
                Reply::Fault { message } => {
                    let during = self.inside.take();
                    self.kill();
                    return Err(match during {
                        Some(during) => LaneError::CandidateFault { during, message },
                        None if self.candidate => LaneError::CandidateFault {
                            during: "a request".into(),
                            message,
                        },
                        None => LaneError::Infrastructure(message),
                    });
                }
                other => {
                    self.inside = None;
                    return Ok(other);
                }
            }
        }
    }

    fn blob(&mut self, deadline: Duration) -> Result<Vec<u8>, LaneError> {
        match self.from_lane.recv_timeout(deadline) {
            Ok(Ok(Frame::Blob(b))) => Ok(b),
            Ok(Ok(Frame::Json(_))) => Err(self.misbehaved("a reply where a blob was due".into())),
            Ok(Err(e)) => Err(self.misbehaved(format!("reading from the lane: {e}"))),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(self.died()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(self.misbehaved("the lane stopped sending outputs".into()))
            }
        }
    }

    /// A reply of the wrong kind for the request.
    fn unexpected(&mut self, reply: Reply) -> LaneError {
        self.misbehaved(format!("unexpected reply {reply:?}"))
    }

    fn request(&mut self, req: &Request, blob: Option<&[u8]>) -> Result<(), LaneError> {
        // Every frame answers a request: anything waiting now was sent unasked.
        if let Ok(frame) = self.from_lane.try_recv() {
            let what = match frame {
                Ok(Frame::Json(j)) => format!(
                    "a frame nobody asked for: {}",
                    String::from_utf8_lossy(&j[..j.len().min(200)])
                ),
                Ok(Frame::Blob(b)) => format!("a blob of {} bytes nobody asked for", b.len()),
                Err(e) => format!("bytes that are no frame: {e}"),
            };
            return Err(self.misbehaved(what));
        }
        self.thaw();
        let res = send(&mut self.to_lane, req)
            .and_then(|_| blob.map_or(Ok(()), |b| send_blob(&mut self.to_lane, b)))
            .and_then(|_| self.to_lane.flush());
        res.map_err(|e| LaneError::Infrastructure(format!("writing to the lane: {e}")))
    }

    /// Builds a bundle (its canonical bytes) in the lane; it is loaded when the lane is
    /// sealed.
    pub fn build(&mut self, canonical: &[u8], origin: &str) -> Result<BuildOutcome, LaneError> {
        self.build_with(canonical, origin, false)
    }

    /// Builds a probe without the preprocessor and artifact screens: for the sandbox's own
    /// tests only, which show what the seal stops in code no screen would let through.
    pub fn build_unscreened_probe(&mut self, canonical: &[u8]) -> Result<BuildOutcome, LaneError> {
        self.build_with(canonical, "probe", true)
    }

    fn build_with(
        &mut self,
        canonical: &[u8],
        origin: &str,
        unscreened_probe: bool,
    ) -> Result<BuildOutcome, LaneError> {
        let req = Request::Build {
            origin: origin.to_string(),
            unscreened_probe,
        };
        self.request(&req, Some(canonical))?;
        match self.reply(self.deadlines.build)? {
            Reply::Built { log, machine } => Ok(BuildOutcome::Built { log, machine }),
            Reply::BuildFailed { stage, log } => Ok(BuildOutcome::Failed { stage, log }),
            other => Err(self.unexpected(other)),
        }
    }

    /// Restricts the lane's filesystem view (Landlock) and installs the seccomp filter (no
    /// compiler runs after this), then loads the built bundle; says which of the two are
    /// in force. A bundle that fails to load is the candidate's failure.
    pub fn seal(&mut self) -> Result<Sealed, LaneError> {
        self.request(&Request::Seal, None)?;
        match self.reply(self.deadlines.start)? {
            Reply::Sealed { seccomp, landlock } => Ok(Sealed { seccomp, landlock }),
            Reply::BuildFailed { log, .. } => Err(LaneError::CandidateFault {
                during: "loading the bundle".into(),
                message: log,
            }),
            other => Err(self.unexpected(other)),
        }
    }

    /// Assembles the arena's engine (`max_batch` sequences of `max_seq` positions) with the
    /// incumbent stack (canonical bundle bytes, in order). Returns the vocabulary size and the weight bytes one forward pass reads.
    pub fn load_engine(
        &mut self,
        model: &str,
        weights: EngineWeights,
        max_seq: usize,
        max_batch: usize,
        stack: &[Vec<u8>],
    ) -> Result<(usize, u64), LaneError> {
        let req = Request::LoadEngine {
            model: model.to_string(),
            weights,
            max_seq,
            max_batch,
            stack: stack.len(),
        };
        self.request(&req, None)?;
        for b in stack {
            send_blob(&mut self.to_lane, b)
                .and_then(|_| self.to_lane.flush())
                .map_err(|e| LaneError::Infrastructure(format!("writing to the lane: {e}")))?;
        }
        match self.reply(self.deadlines.build)? {
            Reply::EngineReady {
                vocab,
                weight_bytes,
            } => {
                self.vocab = vocab;
                Ok((vocab, weight_bytes))
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// Installs the built candidate's kernels into the loaded engine.
    pub fn install_candidate(&mut self) -> Result<(), LaneError> {
        self.request(&Request::InstallCandidate, None)?;
        match self.reply(self.deadlines.start)? {
            Reply::EngineReady { .. } => Ok(()),
            other => Err(self.unexpected(other)),
        }
    }

    /// One workload read: generated tokens, dispatch counts, and the logits if asked.
    pub fn run(&mut self, read: &ReadSpec, keep_logits: bool) -> Result<RunResult, LaneError> {
        let req = Request::Run {
            read: read.clone(),
            keep_logits,
        };
        self.request(&req, None)?;
        let deadline = self.deadlines.call;
        match self.reply(deadline)? {
            Reply::Ran { tokens, dispatch } => {
                let logits = if keep_logits {
                    // A sequence's blob holds one row of the vocabulary per token it
                    // generated, no more.
                    let mut all = Vec::new();
                    for (_, n) in read.sequences() {
                        let blob = self.f32_blob(deadline)?;
                        if blob.len() != n * self.vocab {
                            let detail =
                                format!("a sequence of {n} tokens came with {} logits", blob.len());
                            return Err(self.misbehaved(detail));
                        }
                        all.extend(blob);
                    }
                    Some(all)
                } else {
                    None
                };
                Ok(RunResult {
                    tokens,
                    dispatch_counts: dispatch,
                    logits,
                })
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// An audit read: one workload read with the sampled calls recorded. Returns the
    /// read's tokens and dispatch counts, and every recorded call with its inputs and
    /// outputs.
    pub fn audit(
        &mut self,
        read: &ReadSpec,
        sample: &CallSample,
        feature_seed: u64,
    ) -> Result<(RunResult, Vec<RecordedCall>), LaneError> {
        use cacheon_kernels::slots::args::Buffer;
        let req = Request::Audit {
            feature_seed,
            read: read.clone(),
            sample: sample
                .iter()
                .map(|(slot, calls)| protocol::AuditSample {
                    slot: slot.as_str().to_string(),
                    calls: calls.clone(),
                })
                .collect(),
        };
        self.request(&req, None)?;
        let deadline = self.deadlines.call;
        let (tokens, dispatch, calls) = match self.reply(deadline)? {
            Reply::Audited {
                tokens,
                dispatch,
                calls,
            } => (tokens, dispatch, calls),
            other => return Err(self.unexpected(other)),
        };
        let mut out = Vec::with_capacity(calls.len());
        for meta in calls {
            let mut inputs = Vec::new();
            for &int in &meta.int_inputs {
                let blob = self.blob(deadline)?;
                let decoded = if int {
                    protocol::i32s(&blob).map(Buffer::I32)
                } else {
                    protocol::f32s(&blob).map(Buffer::F32)
                };
                match decoded {
                    Ok(b) => inputs.push(b),
                    Err(e) => return Err(self.misbehaved(format!("bad audit blob: {e}"))),
                }
            }
            let mut outputs = Vec::new();
            for _ in 0..meta.outputs {
                outputs.push(self.f32_blob(deadline)?);
            }
            out.push(RecordedCall {
                call: meta,
                inputs,
                outputs,
            });
        }
        let read = RunResult {
            tokens,
            dispatch_counts: dispatch,
            logits: None,
        };
        Ok((read, out))
    }

    /// Next-token logits at positions `from..` of one sequence fed `tokens`.
    pub fn teacher_force(&mut self, tokens: &[u32], from: usize) -> Result<Vec<f32>, LaneError> {
        let req = Request::TeacherForce {
            tokens: tokens.to_vec(),
            from,
        };
        self.request(&req, None)?;
        let deadline = self.deadlines.call;
        match self.reply(deadline)? {
            Reply::Forced { .. } => self.f32_blob(deadline),
            other => Err(self.unexpected(other)),
        }
    }

    fn f32_blob(&mut self, deadline: Duration) -> Result<Vec<f32>, LaneError> {
        let blob = self.blob(deadline)?;
        match protocol::f32s(&blob) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.misbehaved(format!("bad blob: {e}"))),
        }
    }

    /// Runs one verification case; returns the harness's checks and the outputs
    /// (call-major: every output of call 0, then of call 1, …).
    pub fn verify(&mut self, req: &Request) -> Result<(Vec<CallCheck>, Vec<Vec<f32>>), LaneError> {
        self.request(req, None)?;
        let deadline = self.deadlines.call;
        match self.reply(deadline)? {
            Reply::Called { checks, outputs } => {
                let mut out = Vec::with_capacity(outputs);
                for _ in 0..outputs {
                    out.push(self.f32_blob(deadline)?);
                }
                Ok((checks, out))
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// Asks the lane to exit; kills it if it does not within a few seconds.
    pub fn shutdown(&mut self) {
        self.thaw();
        let _ = self.request(&Request::Shutdown, None);
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

fn describe_status(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(sig)) => {
            let name = match sig {
                libc::SIGSEGV => "SIGSEGV",
                libc::SIGBUS => "SIGBUS",
                libc::SIGFPE => "SIGFPE",
                libc::SIGILL => "SIGILL",
                libc::SIGABRT => "SIGABRT",
                libc::SIGKILL => "SIGKILL",
                libc::SIGXCPU => "SIGXCPU (CPU time limit)",
                libc::SIGXFSZ => "SIGXFSZ (file size limit)",
                libc::SIGSYS => "SIGSYS",
                _ => "a signal",
            };
            format!("killed by {name} ({sig})")
        }
        _ => "unknown exit".into(),
    }
}
