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
//!
//! A lane of an arena whose engine is split over ranks is a group of lane processes, one a
//! rank ([`Lane::spawn_ranks`]), each started, sealed and frozen like a lane of one, each
//! pinned to a core of its own, meeting in a group file the referee makes
//! (`cacheon_kernels::collective::ShmGroup`). The referee asks every rank the same thing
//! and takes one answer from the group: the replicated results (tokens, logits, dispatch
//! counts) must agree bit for bit, or the lane is at fault; an audit brings back every
//! rank's calls. The first rank to fail decides the error: the referee stops the group
//! file at once, so the others do not wait out their barrier's deadline for it.

pub mod build_cache;
pub mod child;
pub mod harness;
mod process;
pub mod protocol;
pub mod sandbox;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cacheon_kernels::collective::ShmGroup;
use process::LaneProcess;
use protocol::{
    CallCheck, CallSample, EngineWeights, RankGroup, ReadSpec, RecordedCall, Request, RunResult,
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

impl LaneError {
    /// The same error, saying which rank of a split lane it came from.
    fn on_rank(self, rank: usize) -> LaneError {
        let at = |s: String| format!("{s} (rank {rank})");
        match self {
            LaneError::CandidateDied { during, status } => LaneError::CandidateDied {
                during: at(during),
                status,
            },
            LaneError::CandidateTimeout { during, seconds } => LaneError::CandidateTimeout {
                during: at(during),
                seconds,
            },
            LaneError::CandidateFault { during, message } => LaneError::CandidateFault {
                during: at(during),
                message,
            },
            LaneError::CandidateForged { detail } => {
                LaneError::CandidateForged { detail: at(detail) }
            }
            LaneError::Infrastructure(m) => LaneError::Infrastructure(at(m)),
        }
    }
}

/// A lane: one lane process, or one a rank for an engine split over ranks.
pub struct Lane {
    ranks: Vec<LaneProcess>,
    /// The ranks' group file (a lane of several ranks, once its engine is loaded); its
    /// directory goes with the lane.
    group: Option<(tempfile::TempDir, PathBuf)>,
    /// Woken by every frame of every rank (a lane of several ranks).
    wake: Option<mpsc::Receiver<()>>,
    deadlines: Deadlines,
    /// Every rank runs in a private network namespace.
    pub network_namespace: bool,
}

impl Lane {
    /// Starts a lane of one process (`exe lane --backend B`).
    pub fn spawn(
        exe: &Path,
        backend: LaneBackend,
        deadlines: Deadlines,
    ) -> Result<Lane, LaneError> {
        Self::spawn_ranks(exe, backend, deadlines, 1)
    }

    /// Starts a lane of `world` rank processes, rank `r` pinned to the `r`-th highest core
    /// the referee may use.
    pub fn spawn_ranks(
        exe: &Path,
        backend: LaneBackend,
        deadlines: Deadlines,
        world: usize,
    ) -> Result<Lane, LaneError> {
        if world == 0 {
            return Err(LaneError::Infrastructure(
                "a lane needs at least one rank".into(),
            ));
        }
        let cores = sandbox::allowed_cpus();
        if backend == LaneBackend::Cpu && world > cores {
            return Err(LaneError::Infrastructure(format!(
                "a lane of {world} ranks needs a core for each; the referee may use {cores}"
            )));
        }
        let (tx, wake) = if world > 1 {
            let (tx, rx) = mpsc::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let ranks = (0..world)
            .map(|r| LaneProcess::spawn(exe, backend, deadlines, r, tx.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Lane {
            network_namespace: ranks.iter().all(|p| p.network_namespace),
            ranks,
            group: None,
            wake,
            deadlines,
        })
    }

    /// How many rank processes the lane has.
    pub fn world(&self) -> usize {
        self.ranks.len()
    }

    /// From now on the lane holds candidate code: its failures are the candidate's.
    pub fn mark_candidate(&mut self) {
        self.ranks.iter_mut().for_each(LaneProcess::mark_candidate);
    }

    /// Stops every rank until the next request (`SIGSTOP` to its process group and to it).
    pub fn freeze(&mut self) {
        self.ranks.iter_mut().for_each(LaneProcess::freeze);
    }

    /// The first rank's private directory.
    pub fn dir(&self) -> &Path {
        self.ranks[0].dir()
    }

    /// The last lines each rank wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        if let [one] = self.ranks.as_slice() {
            return one.stderr_tail();
        }
        let tails: Vec<String> = self
            .ranks
            .iter()
            .enumerate()
            .map(|(r, p)| format!("rank {r}: {}", p.stderr_tail()))
            .collect();
        tails.join("\n")
    }

    /// Sends every rank its request (`req(rank)`) with `blobs`, then takes each rank's
    /// answer with `answer` as it comes: the whole of every answer within `deadline`. The first
    /// rank to fail stops the group and ends the lane.
    fn ask<T>(
        &mut self,
        req: impl Fn(usize) -> Request,
        blobs: &[&[u8]],
        deadline: Duration,
        mut answer: impl FnMut(&mut LaneProcess) -> Result<T, LaneError>,
    ) -> Result<Vec<T>, LaneError> {
        // Wakes left from earlier answers (every frame sends one) say nothing now.
        if let Some(wake) = &self.wake {
            while wake.try_recv().is_ok() {}
        }
        for r in 0..self.ranks.len() {
            let sent = self.ranks[r].request(&req(r), blobs, deadline);
            if let Err(e) = sent {
                return Err(self.rank_failed(r, e));
            }
        }
        if let [one] = self.ranks.as_mut_slice() {
            return Ok(vec![answer(one)?]);
        }
        let mut got: Vec<Option<T>> = self.ranks.iter().map(|_| None).collect();
        let start = Instant::now();
        loop {
            for r in 0..self.ranks.len() {
                if got[r].is_none() && self.ranks[r].reply_ready() {
                    match answer(&mut self.ranks[r]) {
                        Ok(v) => got[r] = Some(v),
                        Err(e) => {
                            let (r, e) = self.first_cause(r, e, &got, &mut answer);
                            return Err(self.rank_failed(r, e));
                        }
                    }
                }
            }
            if got.iter().all(Option::is_some) {
                return Ok(got.into_iter().flatten().collect());
            }
            let left = deadline.saturating_sub(start.elapsed());
            if left.is_zero() {
                let r = got
                    .iter()
                    .position(Option::is_none)
                    .expect("a rank is missing");
                let e = self.ranks[r].overran(deadline);
                return Err(self.rank_failed(r, e));
            }
            if let Some(wake) = &self.wake {
                let _ = wake.recv_timeout(left);
            }
        }
    }

    /// The error that started it, when rank `r`'s error `e` only says another rank failed
    /// first (the group poisoned or stopped, or its barrier's deadline passed without it):
    /// that rank's own error, if it comes within a moment, else `e`.
    fn first_cause<T>(
        &mut self,
        r: usize,
        e: LaneError,
        got: &[Option<T>],
        answer: &mut impl FnMut(&mut LaneProcess) -> Result<T, LaneError>,
    ) -> (usize, LaneError) {
        // `GroupError`'s words for it (kernels/src/collective/shm.rs).
        let echoes = |e: &LaneError| {
            let text = e.to_string();
            ["gave up on the group", "stopped the group", "ranks came"]
                .iter()
                .any(|t| text.contains(t))
        };
        if !echoes(&e) {
            return (r, e);
        }
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            for o in (0..self.ranks.len()).filter(|&o| o != r && got[o].is_none()) {
                if self.ranks[o].reply_ready() {
                    if let Err(other) = answer(&mut self.ranks[o]) {
                        if !echoes(&other) {
                            return (o, other);
                        }
                    }
                }
            }
            if let Some(wake) = &self.wake {
                let _ = wake.recv_timeout(until.saturating_duration_since(Instant::now()));
            }
        }
        (r, e)
    }

    /// Rank `r` failed with `e`: the group is stopped (no rank waits for it any more) and
    /// every rank killed.
    fn rank_failed(&mut self, r: usize, e: LaneError) -> LaneError {
        if self.ranks.len() == 1 {
            return e;
        }
        if let Some((_, path)) = &self.group {
            let _ = ShmGroup::stop(path);
        }
        self.ranks.iter_mut().for_each(LaneProcess::kill);
        e.on_rank(r)
    }

    /// The ranks' answers, which must be the same (`same`): the first, or the lane's
    /// fault (the candidate's, where any rank holds candidate code).
    fn agreed<T>(
        &mut self,
        what: &str,
        answers: Vec<T>,
        same: impl Fn(&T, &T) -> Option<String>,
    ) -> Result<T, LaneError> {
        let differs = answers.iter().enumerate().skip(1).find_map(|(r, a)| {
            same(&answers[0], a).map(|d| format!("rank {r}'s {d} differ from rank 0's"))
        });
        let Some(detail) = differs else {
            return Ok(answers.into_iter().next().expect("a lane has a rank"));
        };
        let candidate = self.ranks.iter().any(LaneProcess::holds_candidate);
        self.ranks.iter_mut().for_each(LaneProcess::kill);
        Err(if candidate {
            LaneError::CandidateFault {
                during: what.into(),
                message: format!("{detail}: the ranks' replicated results must agree bit for bit"),
            }
        } else {
            LaneError::Infrastructure(format!("{what}: {detail}"))
        })
    }

    /// Builds a bundle (its canonical bytes) in every rank; it is loaded when the lane is
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
        let outcomes = self.ask(
            |_| req.clone(),
            &[canonical],
            self.deadlines.build,
            |p| p.built(),
        )?;
        // A build that failed in any rank failed.
        let mut outcomes = outcomes.into_iter();
        let first = outcomes.next().expect("a lane has a rank");
        Ok(outcomes
            .find(|o| matches!(o, BuildOutcome::Failed { .. }))
            .unwrap_or(first))
    }

    /// Restricts every rank's filesystem view (Landlock) and installs its seccomp filter
    /// (no compiler runs after this), then loads the built bundle; says which of the two
    /// are in force in every rank. A bundle that fails to load is the candidate's failure.
    pub fn seal(&mut self) -> Result<Sealed, LaneError> {
        let all = self.ask(|_| Request::Seal, &[], self.deadlines.start, |p| p.sealed())?;
        Ok(Sealed {
            seccomp: all.iter().all(|s| s.seccomp),
            landlock: all.iter().all(|s| s.landlock),
        })
    }

    /// Assembles the arena's engine (`max_batch` sequences of `max_seq` positions) with the
    /// incumbent stack (canonical bundle bytes, in order); in a lane of several ranks each
    /// rank holds its shard and the group file is made here. Returns the vocabulary size
    /// and the weight bytes one forward pass reads (the whole model's).
    pub fn load_engine(
        &mut self,
        model: &str,
        weights: EngineWeights,
        max_seq: usize,
        max_batch: usize,
        stack: &[Vec<u8>],
    ) -> Result<(usize, u64), LaneError> {
        let world = self.ranks.len();
        let group = if world > 1 {
            Some(self.make_group(model, max_seq.max(max_batch), world)?)
        } else {
            None
        };
        let req = |rank| Request::LoadEngine {
            model: model.to_string(),
            weights: weights.clone(),
            max_seq,
            max_batch,
            stack: stack.len(),
            group: group.as_ref().map(|path| RankGroup {
                path: path.display().to_string(),
                rank,
                world,
            }),
        };
        let blobs: Vec<&[u8]> = stack.iter().map(Vec::as_slice).collect();
        let build = self.deadlines.build;
        let ready = self.ask(req, &blobs, build, |p| p.engine_ready(true))?;
        self.agreed("loading the engine", ready, |a, b| {
            (a != b).then(|| "vocabulary and weight bytes".to_string())
        })
    }

    /// The group file of a lane of `world` ranks exchanging up to `rows` rows of the
    /// model's hidden size: in `/dev/shm` where there is one (memory, never disk).
    fn make_group(&mut self, model: &str, rows: usize, world: usize) -> Result<PathBuf, LaneError> {
        let infra = |e: String| LaneError::Infrastructure(format!("the ranks' group file: {e}"));
        let cfg = cacheon_kernels::model::ModelConfig::named(model)
            .ok_or_else(|| infra(format!("unknown model shape `{model}`")))?;
        let shm = Path::new("/dev/shm");
        let mut b = tempfile::Builder::new();
        b.prefix("cacheon-ranks-");
        let dir = if shm.is_dir() {
            b.tempdir_in(shm)
        } else {
            b.tempdir()
        }
        .map_err(|e| infra(e.to_string()))?;
        let path = dir.path().join("group");
        ShmGroup::create(&path, world, rows * cfg.hidden_size).map_err(|e| infra(e.to_string()))?;
        self.group = Some((dir, path.clone()));
        Ok(path)
    }

    /// How long the first rank's engine took to load, part by part (ms), as it said.
    pub fn engine_load_ms(&self) -> &[(String, f64)] {
        &self.ranks[0].engine_load_ms
    }

    /// The first rank's NVRTC builds read back from the build cache and compiled.
    pub fn builds(&self) -> protocol::BuildCounts {
        self.ranks[0].builds
    }

    /// Installs the built candidate's kernels into every rank's engine.
    pub fn install_candidate(&mut self) -> Result<(), LaneError> {
        let start = self.deadlines.start;
        self.ask(
            |_| Request::InstallCandidate,
            &[],
            start,
            |p| p.engine_ready(false),
        )?;
        Ok(())
    }

    /// One workload read: generated tokens, dispatch counts, and the logits if asked
    /// (every rank's, equal bit for bit). With `hold_logits` the lane holds every generated
    /// position's logits until its next read ([`Lane::logit_rows`]).
    pub fn run(
        &mut self,
        read: &ReadSpec,
        keep_logits: bool,
        hold_logits: bool,
    ) -> Result<RunResult, LaneError> {
        let req = Request::Run {
            read: read.clone(),
            keep_logits,
            hold_logits,
        };
        let all = self.ask(
            |_| req.clone(),
            &[],
            self.deadlines.call,
            |p| p.ran(read, keep_logits),
        )?;
        self.agreed("a read", all, |a, b| {
            if a.tokens != b.tokens {
                Some("tokens".into())
            } else if a.dispatch_counts != b.dispatch_counts {
                Some("dispatch counts".into())
            } else if !same_bits(
                a.logits.as_deref().unwrap_or(&[]),
                b.logits.as_deref().unwrap_or(&[]),
            ) {
                Some("logits".into())
            } else {
                None
            }
        })
    }

    /// Rows `rows` (in the order of the read's tokens) of the logits the last read held
    /// (`[rows.len(), vocab]`; every rank's, equal bit for bit).
    pub fn logit_rows(&mut self, rows: &[usize]) -> Result<Vec<f32>, LaneError> {
        let req = Request::LogitRows {
            rows: rows.to_vec(),
        };
        let n = rows.len();
        let all = self.ask(
            |_| req.clone(),
            &[],
            self.deadlines.call,
            |p| p.logit_rows(n),
        )?;
        self.agreed("held logits", all, |a, b| {
            (!same_bits(a, b)).then(|| "logits".to_string())
        })
    }

    /// An audit read: one workload read with the sampled calls recorded in every rank.
    /// Returns the read's tokens and dispatch counts, and every rank's recorded calls with
    /// their inputs and outputs (`AuditCall::rank` says whose).
    pub fn audit(
        &mut self,
        read: &ReadSpec,
        sample: &CallSample,
        feature_seed: u64,
        probe_seed: u64,
    ) -> Result<(RunResult, Vec<RecordedCall>), LaneError> {
        let req = Request::Audit {
            feature_seed,
            probe_seed,
            read: read.clone(),
            sample: sample
                .iter()
                .map(|(slot, calls)| protocol::AuditSample {
                    slot: slot.as_str().to_string(),
                    calls: calls.clone(),
                })
                .collect(),
        };
        let all = self.ask(|_| req.clone(), &[], self.deadlines.call, |p| p.audited())?;
        let (reads, calls): (Vec<RunResult>, Vec<Vec<RecordedCall>>) = all.into_iter().unzip();
        let read = self.agreed("an audit read", reads, |a, b| {
            (a.tokens != b.tokens || a.dispatch_counts != b.dispatch_counts)
                .then(|| "tokens or dispatch counts".to_string())
        })?;
        Ok((read, calls.into_iter().flatten().collect()))
    }

    /// Next-token logits at positions `from..` of one sequence fed `tokens`.
    pub fn teacher_force(&mut self, tokens: &[u32], from: usize) -> Result<Vec<f32>, LaneError> {
        let req = Request::TeacherForce {
            tokens: tokens.to_vec(),
            from,
        };
        let all = self.ask(|_| req.clone(), &[], self.deadlines.call, |p| p.forced())?;
        self.agreed("teacher forcing", all, |a, b| {
            (!same_bits(a, b)).then(|| "logits".to_string())
        })
    }

    /// Runs one verification case (in every rank); returns the harness's checks and the
    /// outputs (call-major: every output of call 0, then of call 1, …).
    pub fn verify(&mut self, req: &Request) -> Result<(Vec<CallCheck>, Vec<Vec<f32>>), LaneError> {
        let all = self.ask(|_| req.clone(), &[], self.deadlines.call, |p| p.called())?;
        self.agreed("a verification case", all, |a, b| {
            let same = a.1.len() == b.1.len() && a.1.iter().zip(&b.1).all(|(x, y)| same_bits(x, y));
            (!same).then(|| "outputs".to_string())
        })
    }

    /// Asks every rank to exit; kills those that do not within a few seconds.
    pub fn shutdown(&mut self) {
        self.ranks.iter_mut().for_each(LaneProcess::shutdown);
    }
}

/// Whether two float slices hold the same bits.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
