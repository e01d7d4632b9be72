//! Building the lane's bundle before the seal: the C or CUDA build, the engine, and the
//! candidate's kernels installed into it once the library is loaded.

use std::time::Instant;

use super::*;
use crate::lane::protocol::BuildCounts;

pub(super) fn build(
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
        // The GPU is opened first: a machine without one is the validator's fault, never
        // the candidate's (NoDecision, not a FAIL at build).
        LaneBackend::Cuda => match state
            .gpu()
            .and_then(|dev| {
                entering(out, "compiling the bundle".into())
                    .map(|()| dev)
                    .map_err(|e| e.to_string())
            })
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
pub(super) fn build_cpu(
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

pub(super) fn build_failure(e: CpuBuildError) -> (Reply, Option<CompiledCpuBundle>) {
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

/// Most sequences a lane's engine holds at once.
const MAX_BATCH: usize = 64;

pub(super) fn load_engine(
    state: &mut LaneState,
    model: &str,
    weights: &EngineWeights,
    (max_seq, max_batch): (usize, usize),
    group: Option<&RankGroup>,
    stack: &[Vec<u8>],
    out: &mut impl Write,
) -> io::Result<()> {
    if !(1..=MAX_BATCH).contains(&max_batch) {
        return send(
            out,
            &Reply::Fault {
                message: format!("max_batch {max_batch} is outside 1..={MAX_BATCH}"),
            },
        );
    }
    if state.sealed.is_some() {
        return send(
            out,
            &Reply::Fault {
                message: "the lane is sealed: load the engine before sealing".into(),
            },
        );
    }
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let mut load_ms: Vec<(String, f64)> = Vec::new();
    let loaded = match state.backend {
        LaneBackend::Cpu => EngineLane::load(model, weights, (max_seq, max_batch), group, stack)
            .map(|(e, bytes)| (Engine::Cpu(Box::new(e)), bytes)),
        LaneBackend::Cuda if group.is_some() => {
            Err("this build has no tensor-parallel CUDA engine (NCCL ranks are not built)".into())
        }
        LaneBackend::Cuda => state.gpu().and_then(|dev| {
            load_ms.push(("device_open".to_string(), ms(started)));
            CudaEngineLane::load(&dev, model, weights, max_seq, max_batch, stack).map(
                |(e, bytes, parts)| {
                    load_ms.extend(parts);
                    (Engine::Cuda(Box::new(e)), bytes)
                },
            )
        }),
    };
    load_ms.push(("total".to_string(), ms(started)));
    match loaded {
        Ok((mut engine, weight_bytes)) => {
            let vocab = engine.lane().vocab();
            state.engine = Some(engine);
            send(
                out,
                &Reply::EngineReady {
                    vocab,
                    weight_bytes,
                    load_ms,
                    builds: build_counts(),
                },
            )
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

pub(super) fn install_candidate(state: &mut LaneState, out: &mut impl Write) -> io::Result<()> {
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
            load_ms: Vec::new(),
            builds: build_counts(),
        },
    )
}

/// The lane's NVRTC builds so far: read back from the build cache, and compiled.
fn build_counts() -> BuildCounts {
    let (cached, compiled) = cacheon_kernels::cuda::ptx_cache::stats();
    BuildCounts { cached, compiled }
}
