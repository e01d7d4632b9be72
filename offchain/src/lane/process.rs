//! One lane process: its start in the sandbox, the frames it sends, whose fault it is when
//! it dies, overruns or misbehaves. A [`super::Lane`] is one of these, or a group of them
//! (one a rank) for an engine split over ranks.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::protocol::{
    self, read_frame, send, send_blob, CallCheck, Frame, ReadSpec, RecordedCall, Reply, Request,
    RunResult,
};
use super::{sandbox, BuildOutcome, Deadlines, LaneError, Sealed};
use crate::arena::LaneBackend;

/// A started lane process.
pub(super) struct LaneProcess {
    /// Its rank in its lane (0 in a lane of one process).
    rank: usize,
    child: Child,
    to_lane: BufWriter<ChildStdin>,
    from_lane: mpsc::Receiver<std::io::Result<Frame>>,
    /// A frame [`LaneProcess::reply_ready`] took out of the channel, not read yet.
    peeked: Option<std::io::Result<Frame>>,
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
    /// How long its engine took to load, part by part, as the lane said (ms).
    pub engine_load_ms: protocol::PartTimes,
    /// Its NVRTC builds read back from the build cache and compiled, as it last said.
    pub builds: protocol::BuildCounts,
    /// The lane is stopped (`SIGSTOP`) until the next request.
    frozen: bool,
    /// The lane process is gone and waited for: no signal goes to its ids again.
    reaped: bool,
    /// When the whole answer to the current request (its reply and every blob after it)
    /// must have come, and the deadline that was.
    answer_by: (Instant, Duration),
}

impl LaneProcess {
    /// Starts `exe lane --backend B` with an empty environment in a fresh private
    /// directory, with the isolation of [`sandbox::ChildSetup`] for rank `rank`. With
    /// `wake`, every frame the lane sends (and its end) also sends `()` there.
    pub fn spawn(
        exe: &Path,
        backend: LaneBackend,
        deadlines: Deadlines,
        rank: usize,
        wake: Option<mpsc::Sender<()>>,
    ) -> Result<LaneProcess, LaneError> {
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
        let setup = sandbox::ChildSetup::new(limits, rank);
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
            // What it builds from content alone is kept for the next lane.
            if let Some(dir) = super::build_cache::dir() {
                cmd.envs(super::build_cache::lane_env(&dir));
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
        // Bounded: a lane that sends faster than the referee reads waits on its pipe
        // instead of filling the referee's memory.
        let (tx, rx) = mpsc::sync_channel(2);
        std::thread::Builder::new()
            .name("lane-reader".into())
            .spawn(move || {
                let mut r = BufReader::new(stdout);
                let wake_up = || {
                    if let Some(w) = &wake {
                        let _ = w.send(());
                    }
                };
                loop {
                    let frame = read_frame(&mut r);
                    let end = !matches!(frame, Ok(Some(_)));
                    let gone = match frame {
                        Ok(Some(f)) => tx.send(Ok(f)).is_err(),
                        Ok(None) => false,
                        Err(e) => tx.send(Err(e)).is_err(),
                    };
                    if end || gone {
                        // The channel says Disconnected before anyone is woken.
                        drop(tx);
                        wake_up();
                        return;
                    }
                    wake_up();
                }
            })
            .map_err(|e| infra("starting the lane reader", e))?;
        let mut lane = LaneProcess {
            rank,
            child,
            peeked: None,
            to_lane: BufWriter::new(stdin),
            from_lane: rx,
            dir,
            stderr_path,
            inside: None,
            deadlines,
            network_namespace: false,
            candidate: false,
            vocab: 0,
            engine_load_ms: Vec::new(),
            builds: protocol::BuildCounts::default(),
            frozen: false,
            reaped: false,
            answer_by: (Instant::now(), deadlines.start),
        };
        lane.expect_within(deadlines.start);
        match lane.reply()? {
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
        if self.reaped {
            return;
        }
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

    /// Whether what this process does wrong is the candidate's doing.
    pub(super) fn holds_candidate(&self) -> bool {
        self.candidate || self.inside.is_some()
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

    pub(super) fn kill(&mut self) {
        self.frozen = false;
        if self.reaped {
            return;
        }
        // The lane leads its own process group: take the compiler and anything else too.
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on the process group this lane leads.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.reaped = true;
    }

    /// The reply pipe ended: the lane exited, or closed its end and runs on (killed then,
    /// and its doing where it holds candidate code).
    fn died(&mut self) -> LaneError {
        let mut exited = None;
        for _ in 0..100 {
            if let Ok(Some(s)) = self.child.try_wait() {
                exited = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let Some(exited) = exited else {
            return self.misbehaved("the lane closed its reply pipe and kept running".into());
        };
        self.reaped = true;
        let status = describe_status(exited);
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

    /// From now, the whole answer to the current request must come within `deadline`.
    fn expect_within(&mut self, deadline: Duration) {
        self.answer_by = (Instant::now() + deadline, deadline);
    }

    /// The next frame: the one [`LaneProcess::reply_ready`] looked at, else the next to
    /// come before the answer's deadline.
    fn next_frame(&mut self) -> Result<std::io::Result<Frame>, mpsc::RecvTimeoutError> {
        match self.peeked.take() {
            Some(f) => Ok(f),
            None => {
                let left = self.answer_by.0.saturating_duration_since(Instant::now());
                self.from_lane.recv_timeout(left)
            }
        }
    }

    /// Whether the answer to the current request has come, without waiting: `Entering`
    /// frames are taken as they come; a reply, a blob, bytes that are no frame and the
    /// lane's end all count (reading the reply then says which).
    pub(super) fn reply_ready(&mut self) -> bool {
        if self.peeked.is_some() {
            return true;
        }
        loop {
            match self.from_lane.try_recv() {
                Ok(Ok(Frame::Json(json))) => {
                    if let Ok(Reply::Entering { what }) = serde_json::from_slice(&json) {
                        self.inside = Some(what);
                        continue;
                    }
                    self.peeked = Some(Ok(Frame::Json(json)));
                    return true;
                }
                Ok(other) => {
                    self.peeked = Some(other);
                    return true;
                }
                Err(mpsc::TryRecvError::Empty) => return false,
                Err(mpsc::TryRecvError::Disconnected) => return true,
            }
        }
    }

    /// The lane did not answer within `deadline`: killed, and whose fault that is.
    pub(super) fn overran(&mut self, deadline: Duration) -> LaneError {
        self.kill();
        let during = match self.inside.take() {
            Some(during) => Some(during),
            None if self.candidate => Some("a request".to_string()),
            None => None,
        };
        match during {
            Some(during) => LaneError::CandidateTimeout {
                during,
                seconds: deadline.as_secs(),
            },
            None => LaneError::Infrastructure(format!(
                "the lane did not answer within {} s",
                deadline.as_secs()
            )),
        }
    }

    /// The next non-`Entering` reply, before the answer's deadline (frames announcing
    /// candidate code do not extend it).
    fn reply(&mut self) -> Result<Reply, LaneError> {
        loop {
            let frame = match self.next_frame() {
                Ok(Ok(f)) => f,
                Ok(Err(e)) => return Err(self.misbehaved(format!("reading from the lane: {e}"))),
                Err(mpsc::RecvTimeoutError::Timeout) => return Err(self.overran(self.answer_by.1)),
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

    fn blob(&mut self) -> Result<Vec<u8>, LaneError> {
        match self.next_frame() {
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

    /// Sends a request and the blobs that go with it; its whole answer is due within
    /// `deadline` from now.
    pub(super) fn request(
        &mut self,
        req: &Request,
        blobs: &[&[u8]],
        deadline: Duration,
    ) -> Result<(), LaneError> {
        self.expect_within(deadline);
        // Every frame answers a request: anything waiting now was sent unasked.
        if let Some(frame) = self
            .peeked
            .take()
            .or_else(|| self.from_lane.try_recv().ok())
        {
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
            .and_then(|_| {
                blobs
                    .iter()
                    .try_for_each(|b| send_blob(&mut self.to_lane, b))
            })
            .and_then(|_| self.to_lane.flush());
        // A lane holding candidate code that stops taking requests (closed its end, exited
        // on being woken) did so itself.
        res.map_err(|e| self.misbehaved(format!("the lane stopped taking requests: {e}")))
    }

    /// The answer to `Build`.
    pub(super) fn built(&mut self) -> Result<BuildOutcome, LaneError> {
        match self.reply()? {
            Reply::Built { log, machine } => Ok(BuildOutcome::Built { log, machine }),
            Reply::BuildFailed { stage, log } => Ok(BuildOutcome::Failed { stage, log }),
            other => Err(self.unexpected(other)),
        }
    }

    /// The answer to `Seal`. A bundle that fails to load is the candidate's failure.
    pub(super) fn sealed(&mut self) -> Result<Sealed, LaneError> {
        match self.reply()? {
            Reply::Sealed { seccomp, landlock } => Ok(Sealed { seccomp, landlock }),
            Reply::BuildFailed { log, .. } => Err(LaneError::CandidateFault {
                during: "loading the bundle".into(),
                message: log,
            }),
            other => Err(self.unexpected(other)),
        }
    }

    /// The answer to `LoadEngine` (`loaded`: the vocabulary it gives sizes every later
    /// read's logits) or `InstallCandidate`: the vocabulary and the weight bytes of a pass.
    pub(super) fn engine_ready(&mut self, loaded: bool) -> Result<(usize, u64), LaneError> {
        match self.reply()? {
            Reply::EngineReady {
                vocab,
                weight_bytes,
                load_ms,
                builds,
            } => {
                if loaded {
                    self.vocab = vocab;
                    self.engine_load_ms = load_ms;
                }
                self.builds = builds;
                Ok((vocab, weight_bytes))
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// The answer to `Run`.
    pub(super) fn ran(
        &mut self,
        read: &ReadSpec,
        keep_logits: bool,
    ) -> Result<RunResult, LaneError> {
        match self.reply()? {
            Reply::Ran { tokens, dispatch } => {
                let logits = if keep_logits {
                    // A sequence's blob holds one row of the vocabulary per token it
                    // generated, no more.
                    let mut all = Vec::new();
                    for (_, n) in read.sequences() {
                        let blob = self.f32_blob()?;
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

    /// The answer to `Audit`: the read's tokens and dispatch counts, and every recorded
    /// call with its inputs and outputs, labelled with this process's rank.
    pub(super) fn audited(&mut self) -> Result<(RunResult, Vec<RecordedCall>), LaneError> {
        use cacheon_kernels::slots::args::Buffer;
        let (tokens, dispatch, calls) = match self.reply()? {
            Reply::Audited {
                tokens,
                dispatch,
                calls,
            } => (tokens, dispatch, calls),
            other => return Err(self.unexpected(other)),
        };
        let mut out = Vec::with_capacity(calls.len());
        for mut meta in calls {
            meta.rank = self.rank;
            let mut inputs = Vec::new();
            for &int in &meta.int_inputs {
                let blob = self.blob()?;
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
                outputs.push(self.f32_blob()?);
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

    /// The answer to `TeacherForce`.
    pub(super) fn forced(&mut self) -> Result<Vec<f32>, LaneError> {
        match self.reply()? {
            Reply::Forced { .. } => self.f32_blob(),
            other => Err(self.unexpected(other)),
        }
    }

    /// The answer to `LogitRows`: `rows` rows of the vocabulary, no more.
    pub(super) fn logit_rows(&mut self, rows: usize) -> Result<Vec<f32>, LaneError> {
        match self.reply()? {
            Reply::LogitRows { rows: n } if n == rows => {
                let blob = self.f32_blob()?;
                if blob.len() != rows * self.vocab {
                    let detail = format!("{rows} held rows came as {} logits", blob.len());
                    return Err(self.misbehaved(detail));
                }
                Ok(blob)
            }
            other => Err(self.unexpected(other)),
        }
    }

    fn f32_blob(&mut self) -> Result<Vec<f32>, LaneError> {
        let blob = self.blob()?;
        match protocol::f32s(&blob) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.misbehaved(format!("bad blob: {e}"))),
        }
    }

    /// The answer to `Verify`: the harness's checks and the outputs (call-major).
    pub(super) fn called(&mut self) -> Result<(Vec<CallCheck>, Vec<Vec<f32>>), LaneError> {
        match self.reply()? {
            Reply::Called { checks, outputs } => {
                let mut out = Vec::with_capacity(outputs);
                for _ in 0..outputs {
                    out.push(self.f32_blob()?);
                }
                Ok((checks, out))
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// Asks the lane to exit; kills it if it does not within a few seconds.
    pub fn shutdown(&mut self) {
        self.thaw();
        let _ = self.request(&Request::Shutdown, &[], self.deadlines.start);
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

impl Drop for LaneProcess {
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
