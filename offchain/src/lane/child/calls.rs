//! Calling the loaded kernels: verification cases (poisoned outputs, guard bands, copied
//! inputs) and engine reads, audits and forced calls.

use super::*;
use crate::lane::protocol::{audit_features, keep_features};

pub(super) fn no_engine(out: &mut impl Write) -> io::Result<()> {
    send(
        out,
        &Reply::Fault {
            message: "no engine is loaded".into(),
        },
    )
}

pub(super) fn engine_run(
    state: &mut LaneState,
    read: &ReadSpec,
    (keep_logits, hold_logits): (bool, bool),
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(engine) = state.engine.as_mut().map(Engine::lane) else {
        return no_engine(out);
    };
    entering(out, "the timed workload".into())?;
    match engine.run(read, keep_logits, hold_logits) {
        Ok(RunResult {
            tokens,
            dispatch_counts: dispatch,
            logits,
        }) => {
            send(out, &Reply::Ran { tokens, dispatch })?;
            if let Some(l) = logits {
                // A blob a sequence: a whole read's logits can pass the frame limit.
                let vocab = engine.vocab();
                let mut at = 0;
                for (_, n) in read.sequences() {
                    let end = (at + n * vocab).min(l.len());
                    send_f32s(out, &l[at..end])?;
                    at = end;
                }
            }
            Ok(())
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

/// Rows of the last read's held logits, as one blob.
pub(super) fn engine_logit_rows(
    state: &mut LaneState,
    rows: &[usize],
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(engine) = state.engine.as_mut().map(Engine::lane) else {
        return no_engine(out);
    };
    match engine.held_rows(rows) {
        Ok(logits) => {
            send(out, &Reply::LogitRows { rows: rows.len() })?;
            send_f32s(out, &logits)
        }
        Err(message) => send(out, &Reply::Fault { message }),
    }
}

pub(super) fn engine_audit(
    state: &mut LaneState,
    read: &ReadSpec,
    sample: &[AuditSample],
    (feature_seed, probe_seed): (u64, u64),
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
    match engine.audit(read, sample, probe_seed) {
        Ok((
            RunResult {
                tokens,
                dispatch_counts: dispatch,
                ..
            },
            mut calls,
        )) => {
            // Calls too large to send whole keep the output features drawn now, once the
            // read is over, from the referee's secret seed.
            for c in &mut calls {
                let Some(slot) = SlotId::parse(&c.call.slot) else {
                    continue;
                };
                if let Some(f) = audit_features(feature_seed, slot, c.call.index, &c.call.shape) {
                    keep_features(slot, &c.call.shape, &mut c.inputs, &mut c.outputs, &f);
                    c.call.kept_features = Some(f);
                }
            }
            let metas = calls.iter().map(|c| c.call.clone()).collect();
            send(
                out,
                &Reply::Audited {
                    tokens,
                    dispatch,
                    calls: metas,
                },
            )?;
            for RecordedCall {
                inputs, outputs, ..
            } in &calls
            {
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

pub(super) fn engine_force(
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

#[allow(clippy::too_many_arguments)]
pub(super) fn verify(
    loaded: Option<&Loaded>,
    slot: &str,
    (shape, seeds, probe): (&[i64], &[u64], Option<u64>),
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
            let (checks, outputs) = cpu_calls(kernel, slot, (shape, seeds, probe), special, guard);
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
/// bands, fresh inputs copied into the same allocations; with a `probe` seed, once more on
/// the last call's inputs with their persistent part changed in place
/// (`cacheon_kernels::slots::probe`). Returns what the harness saw and the outputs
/// (call-major).
pub(super) fn cpu_calls(
    kernel: &cacheon_kernels::CpuKernel,
    slot: SlotId,
    (shape, seeds, probe): (&[i64], &[u64], Option<u64>),
    special: Special,
    guard: usize,
) -> (Vec<CallCheck>, Vec<Vec<f32>>) {
    let mut args = case_args(slot, shape, seeds.first().copied().unwrap_or(0), special);
    let lens = args.output_lens();
    let mut bufs: Vec<Vec<f32>> = lens.iter().map(|n| vec![0.0; n + 2 * guard]).collect();
    let mut checks = Vec::new();
    let mut outputs = Vec::new();
    let probe_call = probe.map(|p| (seeds.last().copied().unwrap_or(0), Some(p)));
    let calls = seeds.iter().map(|&s| (s, None)).chain(probe_call);
    for (k, (seed, probe)) in calls.enumerate() {
        if let Some(p) = probe {
            let changes = args.with_call(|c| cacheon_kernels::slots::probe::changes(p, c));
            cacheon_kernels::slots::probe::apply(&mut args.inputs, &changes);
        } else if k > 0 {
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
            args.with_call(|call| kernel.call_into(call, &mut views));
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
        check.inputs_changed = cacheon_kernels::slots::args::changed_inputs(&before, &args.inputs);
        checks.push(check);
    }
    (checks, outputs)
}

/// Copies `src` into `dst`'s existing allocation (same address, fresh contents).
pub(super) fn copy_into(
    dst: &mut cacheon_kernels::slots::args::Buffer,
    src: cacheon_kernels::slots::args::Buffer,
) {
    use cacheon_kernels::slots::args::Buffer;
    match (dst, src) {
        (Buffer::F32(d), Buffer::F32(s)) => d.copy_from_slice(&s),
        (Buffer::I32(d), Buffer::I32(s)) => d.copy_from_slice(&s),
        _ => unreachable!("the same slot and shape give the same buffer kinds"),
    }
}
