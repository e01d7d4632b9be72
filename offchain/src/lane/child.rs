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

use cacheon_kernels::args::SlotArgs;
use cacheon_kernels::cases;
use cacheon_kernels::cpu_build::{
    CompiledCpuBundle, CpuBuildError, CpuBuildOptions, CpuBundle, CpuSources,
};
use cacheon_kernels::slots::SlotId;

use cacheon_kernels::args::Buffer;

use super::cuda_case;
use super::cuda_engine_lane::CudaEngineLane;
use super::engine_lane::{EngineLane, LaneEngine};
use super::protocol::{
    read_frame, send, send_f32s, send_i32s, AuditSample, BuildStage, CallCheck, Frame, GuardHit,
    Reply, Request, Special,
};
use super::{isolation, landlock, Sealed};
use crate::arena::LaneBackend;

/// Bits written into every output element before a call: a quiet NaN with a payload no
/// arithmetic produces, so an element the kernel did not write is recognisable.
pub const POISON_BITS: u32 = 0x7fc5_a5a5;
/// Bits of the guard bands around every output.
pub const GUARD_BITS: u32 = 0x7fc3_c3c3;

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
            let seccomp = isolation::install_seccomp(!cuda);
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
        Ok(Ok(sealed))
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
pub fn run(backend: LaneBackend) -> i32 {
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    // Replies go to their own descriptor, set up by the referee; stdout is the lane's log.
    // SAFETY: the referee opens REPLY_FD for every lane it starts, and nothing else in
    // this process owns it.
    let replies = unsafe { std::fs::File::from_raw_fd(super::protocol::REPLY_FD) };
    let mut out = BufWriter::new(replies);
    let ready = Reply::Ready {
        pid: std::process::id(),
        network_namespace: isolation::in_private_network_namespace(),
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
            } => match state.seal(&mut out) {
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
                Ok(Ok(_)) => verify(
                    state.loaded.last(),
                    &slot,
                    &shape,
                    &seeds,
                    special,
                    guard,
                    graph,
                    &mut out,
                ),
            },
            Request::LoadEngine {
                model,
                weights_seed,
                max_seq,
                stack,
            } => match blobs(stack) {
                Ok(stack) => {
                    load_engine(&mut state, &model, weights_seed, max_seq, &stack, &mut out)
                }
                Err(_) => return fault(&mut out, "missing incumbent bundle blobs"),
            },
            Request::InstallCandidate => install_candidate(&mut state, &mut out),
            Request::Run {
                prompt,
                decode_steps,
                keep_logits,
            } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_run(&mut state, &prompt, decode_steps, keep_logits, &mut out),
                Ok(Err(reply)) => send(&mut out, &reply),
                Err(e) => Err(e),
            },
            Request::Audit {
                prompt,
                decode_steps,
                sample,
            } => match state.seal(&mut out) {
                Ok(Ok(_)) => engine_audit(&mut state, &prompt, decode_steps, &sample, &mut out),
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

fn build(
    state: &mut LaneState,
    origin: &str,
    unscreened_probe: bool,
    bytes: &[u8],
    out: &mut impl Write,
) -> io::Result<()> {
    let files = match cacheon_kernels::bundle::from_canonical_bytes(
        bytes,
        cacheon_kernels::bundle::MAX_BUNDLE_BYTES,
    ) {
        Ok(f) => f,
        Err(e) => {
            let reply = Reply::BuildFailed {
                stage: BuildStage::Bundle,
                log: e.to_string(),
            };
            return send(out, &reply);
        }
    };
    state.origin = origin.to_string();
    match state.backend {
        LaneBackend::Cpu => {
            let (reply, compiled) = build_cpu(&files, !unscreened_probe);
            if let Some(c) = compiled {
                state
                    .loaded
                    .push(Loaded::CpuCompiled((origin.to_string(), c)));
            }
            send(out, &reply)
        }
        // NVRTC compiles in a sandboxed process of its own (`cacheon nvrtc-child`); a
        // crash or hang there is the candidate's. The module is loaded only once the lane
        // is sealed.
        LaneBackend::Cuda => match entering(out, "compiling the bundle".into())
            .map_err(|e| e.to_string())
            .and_then(|_| state.gpu())
            .and_then(|dev| cuda_case::CudaLane::compile(&files).map(|r| r.map(|c| (c, dev))))
        {
            Ok(Ok((compiled, dev))) => {
                let machine = cuda_case::machine(&dev);
                let log = compiled.log();
                state
                    .loaded
                    .push(Loaded::CudaCompiled((origin.to_string(), compiled)));
                send(out, &Reply::Built { log, machine })
            }
            Ok(Err((stage, log))) => send(out, &Reply::BuildFailed { stage, log }),
            Err(message) => send(out, &Reply::Fault { message }),
        },
    }
}

/// Builds a CPU bundle without loading it: the preprocessor output through the source
/// screen, the compile, the artifact screen. The reply says what it came to.
fn build_cpu(
    files: &[cacheon_kernels::BundleFile],
    screened: bool,
) -> (Reply, Option<CompiledCpuBundle>) {
    let opts = CpuBuildOptions {
        screen_artifact: screened,
        ..CpuBuildOptions::default()
    };
    let failed = |stage, log: String| (Reply::BuildFailed { stage, log }, None);
    let result = CpuSources::write(files, &opts).and_then(|sources| {
        let preprocessed = sources.preprocess(&opts)?;
        Ok((sources, preprocessed))
    });
    let (sources, preprocessed) = match result {
        Ok(r) => r,
        Err(e) => return build_failure(e),
    };
    for p in preprocessed.iter().filter(|_| screened) {
        if let Err(v) = crate::policy::screen_preprocessed(p, files) {
            let stage = if v.rule.fail_reason() == cacheon_primitives::FailReason::Cheating {
                BuildStage::Cheating
            } else {
                BuildStage::Policy
            };
            return failed(stage, format!("after preprocessing: {v}"));
        }
    }
    match sources.compile(&opts) {
        Ok(compiled) => {
            let reply = Reply::Built {
                log: compiled.log().to_string(),
                machine: cpu_model(),
            };
            (reply, Some(compiled))
        }
        Err(e) => build_failure(e),
    }
}

fn build_failure(e: CpuBuildError) -> (Reply, Option<CompiledCpuBundle>) {
    let stage = match &e {
        CpuBuildError::Bundle(_) | CpuBuildError::Manifest(_) | CpuBuildError::WrongBackend(_) => {
            BuildStage::Bundle
        }
        CpuBuildError::Artifact(_) => BuildStage::Policy,
        CpuBuildError::Build { .. }
        | CpuBuildError::Preprocess { .. }
        | CpuBuildError::Timeout { .. }
        | CpuBuildError::Load { .. } => BuildStage::Build,
        CpuBuildError::MissingEntry { .. } | CpuBuildError::Abi { .. } => BuildStage::Abi,
        CpuBuildError::Io(_) | CpuBuildError::CompilerUnavailable { .. } => {
            return (
                Reply::Fault {
                    message: e.to_string(),
                },
                None,
            )
        }
    };
    let log = match e {
        CpuBuildError::Build { log }
        | CpuBuildError::Preprocess { log }
        | CpuBuildError::Timeout { log, .. } => log,
        other => other.to_string(),
    };
    (Reply::BuildFailed { stage, log }, None)
}

fn load_engine(
    state: &mut LaneState,
    model: &str,
    weights_seed: u64,
    max_seq: usize,
    stack: &[Vec<u8>],
    out: &mut impl Write,
) -> io::Result<()> {
    if state.sealed.is_some() {
        return send(
            out,
            &Reply::Fault {
                message: "the lane is sealed: load the engine before sealing".into(),
            },
        );
    }
    let loaded = match state.backend {
        LaneBackend::Cpu => EngineLane::load(model, weights_seed, max_seq, stack, None)
            .map(|(e, bytes)| (Engine::Cpu(Box::new(e)), bytes)),
        LaneBackend::Cuda => state.gpu().and_then(|dev| {
            CudaEngineLane::load(&dev, model, weights_seed, max_seq, stack)
                .map(|(e, bytes)| (Engine::Cuda(Box::new(e)), bytes))
        }),
    };
    match loaded {
        Ok((mut engine, weight_bytes)) => {
            let vocab = engine.lane().vocab();
            state.engine = Some(engine);
            send(
                out,
                &Reply::EngineReady {
                    vocab,
                    weight_bytes,
                },
            )
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

fn install_candidate(state: &mut LaneState, out: &mut impl Write) -> io::Result<()> {
    let ready = match state.engine.as_ref() {
        Some(Engine::Cpu(_)) => state.loaded.iter().all(|l| matches!(l, Loaded::Cpu(_))),
        Some(Engine::Cuda(_)) => state.loaded.iter().all(|l| matches!(l, Loaded::Cuda(_))),
        None => false,
    };
    if !ready || state.loaded.is_empty() {
        return send(
            out,
            &Reply::Fault {
                message: "install needs a loaded engine and bundles built and loaded for it".into(),
            },
        );
    }
    // In build order: a later bundle goes over an earlier one.
    for item in std::mem::take(&mut state.loaded) {
        match (state.engine.as_mut(), item) {
            (Some(Engine::Cpu(engine)), Loaded::Cpu(bundle)) => engine.install(&bundle),
            // The kernels move into the engine's slot table.
            (Some(Engine::Cuda(engine)), Loaded::Cuda(lane)) => engine.install(lane.into_kernels()),
            _ => unreachable!("checked above"),
        }
    }
    let vocab = state.engine.as_mut().map_or(0, |e| e.lane().vocab());
    send(
        out,
        &Reply::EngineReady {
            vocab,
            weight_bytes: 0,
        },
    )
}

fn no_engine(out: &mut impl Write) -> io::Result<()> {
    send(
        out,
        &Reply::Fault {
            message: "no engine is loaded".into(),
        },
    )
}

fn engine_run(
    state: &mut LaneState,
    prompt: &[u32],
    decode_steps: usize,
    keep_logits: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(engine) = state.engine.as_mut().map(Engine::lane) else {
        return no_engine(out);
    };
    entering(out, "the timed workload".into())?;
    match engine.run(prompt, decode_steps, keep_logits) {
        Ok((tokens, dispatch, logits)) => {
            send(out, &Reply::Ran { tokens, dispatch })?;
            if let Some(l) = logits {
                send_f32s(out, &l)?;
            }
            Ok(())
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

fn engine_audit(
    state: &mut LaneState,
    prompt: &[u32],
    decode_steps: usize,
    sample: &[AuditSample],
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(engine) = state.engine.as_mut().map(Engine::lane) else {
        return no_engine(out);
    };
    let Some(sample) = sample
        .iter()
        .map(|s| Some((SlotId::parse(&s.slot)?, s.calls.clone())))
        .collect::<Option<Vec<_>>>()
    else {
        return send(
            out,
            &Reply::Fault {
                message: "unknown slot in an audit request".into(),
            },
        );
    };
    entering(out, "an audit read of the workload".into())?;
    match engine.audit(prompt, decode_steps, sample) {
        Ok(((tokens, dispatch, _), calls)) => {
            let metas = calls.iter().map(|(m, _, _)| m.clone()).collect();
            send(
                out,
                &Reply::Audited {
                    tokens,
                    dispatch,
                    calls: metas,
                },
            )?;
            for (_, inputs, outputs) in &calls {
                for b in inputs {
                    match b {
                        Buffer::F32(v) => send_f32s(out, v)?,
                        Buffer::I32(v) => send_i32s(out, v)?,
                    }
                }
                for o in outputs {
                    send_f32s(out, o)?;
                }
            }
            Ok(())
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

fn engine_force(
    state: &mut LaneState,
    tokens: &[u32],
    from: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(engine) = state.engine.as_mut().map(Engine::lane) else {
        return no_engine(out);
    };
    entering(out, "teacher forcing".into())?;
    match engine.teacher_force(tokens, from) {
        Ok(logits) => {
            send(
                out,
                &Reply::Forced {
                    positions: tokens.len().saturating_sub(from),
                },
            )?;
            send_f32s(out, &logits)
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

/// A generated call for a case: the seeded inputs with the special values applied.
pub fn case_args(slot: SlotId, shape: &[i64], seed: u64, special: Special) -> SlotArgs {
    let mut args = cases::generate(slot, shape, seed);
    special.apply(&mut args);
    args
}

#[allow(clippy::too_many_arguments)]
fn verify(
    loaded: Option<&Loaded>,
    slot: &str,
    shape: &[i64],
    seeds: &[u64],
    special: Special,
    guard: usize,
    graph: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let fault = |message: String| Reply::Fault { message };
    let Some(slot) = SlotId::parse(slot) else {
        return send(out, &fault(format!("unknown slot {slot}")));
    };
    if shape.len() != slot.spec().shape_symbols().len() || shape.iter().any(|&v| v < 0) {
        return send(out, &fault(format!("bad shape {shape:?} for {slot}")));
    }
    match loaded {
        None
        | Some(Loaded::CpuCompiled(_))
        | Some(Loaded::CudaCompiled(_))
        | Some(Loaded::Loading) => send(out, &fault("no bundle is loaded".into())),
        Some(Loaded::Cpu(bundle)) => {
            let Some(kernel) = bundle.kernel(slot) else {
                return send(out, &fault(format!("the bundle has no kernel for {slot}")));
            };
            if graph {
                return send(out, &fault("CPU lanes have no graphs".into()));
            }
            send(
                out,
                &Reply::Entering {
                    what: format!("{slot} at {shape:?}"),
                },
            )?;
            out.flush()?;
            let (checks, outputs) = cpu_calls(kernel, slot, shape, seeds, special, guard);
            send(
                out,
                &Reply::Called {
                    checks,
                    outputs: outputs.len(),
                },
            )?;
            for o in &outputs {
                send_f32s(out, o)?;
            }
            Ok(())
        }
        Some(Loaded::Cuda(lane)) => {
            send(
                out,
                &Reply::Entering {
                    what: format!("{slot} at {shape:?}"),
                },
            )?;
            out.flush()?;
            match lane.calls(slot, shape, seeds, special, guard, graph) {
                Ok((checks, outputs)) => {
                    send(
                        out,
                        &Reply::Called {
                            checks,
                            outputs: outputs.len(),
                        },
                    )?;
                    for o in &outputs {
                        send_f32s(out, o)?;
                    }
                    Ok(())
                }
                Err(message) => send(out, &fault(message)),
            }
        }
    }
}

/// Runs the CPU kernel once per seed on the same buffers: poisoned outputs inside guard
/// bands, fresh inputs copied into the same allocations. Returns what the harness saw and
/// the outputs (call-major).
fn cpu_calls(
    kernel: &cacheon_kernels::CpuKernel,
    slot: SlotId,
    shape: &[i64],
    seeds: &[u64],
    special: Special,
    guard: usize,
) -> (Vec<CallCheck>, Vec<Vec<f32>>) {
    let mut args = case_args(slot, shape, seeds.first().copied().unwrap_or(0), special);
    let lens = args.output_lens();
    let mut bufs: Vec<Vec<f32>> = lens.iter().map(|n| vec![0.0; n + 2 * guard]).collect();
    let mut checks = Vec::new();
    let mut outputs = Vec::new();
    for (k, &seed) in seeds.iter().enumerate() {
        if k > 0 {
            let fresh = case_args(slot, shape, seed, special);
            // Fresh contents at the same addresses; the scalars stay the first call's (as
            // in a captured graph), which is what the referee expects.
            for (dst, src) in args.inputs.iter_mut().zip(fresh.inputs) {
                copy_into(dst, src);
            }
        }
        for (buf, &n) in bufs.iter_mut().zip(&lens) {
            buf.fill(f32::from_bits(GUARD_BITS));
            buf[guard..guard + n].fill(f32::from_bits(POISON_BITS));
        }
        let before = args.inputs.clone();
        {
            let mut views: Vec<&mut [f32]> = bufs
                .iter_mut()
                .zip(&lens)
                .map(|(b, &n)| &mut b[guard..guard + n])
                .collect();
            kernel.call_into(&args, &mut views);
        }
        let mut check = CallCheck::default();
        for (i, (buf, &n)) in bufs.iter().zip(&lens).enumerate() {
            check.guard_hits.extend(guard_hits(
                i,
                buf.iter().map(|v| v.to_bits()),
                n,
                guard,
                GUARD_BITS,
            ));
            let out = &buf[guard..guard + n];
            check.unwritten += out.iter().filter(|v| v.to_bits() == POISON_BITS).count() as u64;
            outputs.push(out.to_vec());
        }
        check.inputs_changed = cacheon_kernels::args::changed_inputs(&before, &args.inputs);
        checks.push(check);
    }
    (checks, outputs)
}

/// Copies `src` into `dst`'s existing allocation (same address, fresh contents).
fn copy_into(dst: &mut cacheon_kernels::args::Buffer, src: cacheon_kernels::args::Buffer) {
    use cacheon_kernels::args::Buffer;
    match (dst, src) {
        (Buffer::F32(d), Buffer::F32(s)) => d.copy_from_slice(&s),
        (Buffer::I32(d), Buffer::I32(s)) => d.copy_from_slice(&s),
        _ => unreachable!("the same slot and shape give the same buffer kinds"),
    }
}

/// The first overwritten guard element on each side of output `output`, if any.
pub fn guard_hits<T: PartialEq + Copy>(
    output: usize,
    bits: impl Iterator<Item = T>,
    n: usize,
    guard: usize,
    pattern: T,
) -> Vec<GuardHit> {
    let bits: Vec<T> = bits.collect();
    let mut hits = Vec::new();
    // Before the output: the nearest overwritten element.
    if let Some(i) = (0..guard).rev().find(|&i| bits[i] != pattern) {
        hits.push(GuardHit {
            output,
            offset: i as i64 - guard as i64,
        });
    }
    if let Some(i) = (guard + n..bits.len()).find(|&i| bits[i] != pattern) {
        hits.push(GuardHit {
            output,
            offset: (i - guard) as i64,
        });
    }
    hits
}
