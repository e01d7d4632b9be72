//! A lane's engine: the arena's model with the incumbent stack and, in a candidate lane,
//! the candidate's kernels installed. It runs the timed workload, the audit reads (the
//! workload with a sample of the calls recorded) and teacher forcing; timings are taken by the referee around the requests, never here.
//! [`LaneEngine`] is what both backends do; this file holds the CPU one
//! ([`super::cuda_engine_lane`] the CUDA one).

use std::sync::{Arc, Mutex};

use cacheon_kernels::bundle;
use cacheon_kernels::collective::ShmGroup;
use cacheon_kernels::cpu::engine::{CallPhase, SlotObserver};
use cacheon_kernels::cpu::engine::{Engine, SlotTable};
use cacheon_kernels::model::sampler::argmax;
use cacheon_kernels::model::{llama_gguf, Logits, ModelConfig, Weights};
use cacheon_kernels::slots::args::{changed_inputs, Buffer, SlotArgs};
use cacheon_kernels::slots::call::{SlotCall, Tensor};
use cacheon_kernels::slots::probe::{self, Change};
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions, CpuBundle, SlotId};

use super::held_logits::{HostHeld, RowLayout};
use crate::lane::protocol::{
    AuditCall, CallSample, EngineWeights, RankGroup, ReadSpec, RecordedCall, RunResult,
};

/// What a lane's engine does for the referee, on either backend: the backends give the
/// steps, the workload read is written once ([`LaneEngine::run`]).
pub trait LaneEngine {
    fn vocab(&self) -> usize;

    fn max_seq(&self) -> usize;

    /// Sequences the engine holds at once.
    fn max_batch(&self) -> usize;

    /// Empties every sequence and restarts the slot dispatch counts.
    fn reset(&mut self);

    /// Empties every sequence (the dispatch counts go on).
    fn clear(&mut self);

    /// Prefills `prompt` into the empty sequence `seq`; returns the greedy next token.
    fn prefill(&mut self, seq: usize, prompt: &[u32]) -> Result<u32, String>;

    /// Appends `tokens[b]` to sequence `b` for every `b < tokens.len()`, all in one pass;
    /// returns the greedy next token of each.
    fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>, String>;

    /// The next-token logits of the last prefill or decode (`[rows, vocab]`: 1 after a
    /// prefill, one a sequence after a decode).
    fn last_logits(&self) -> Result<Vec<f32>, String>;

    /// Each slot's dispatch count since the last reset (indexed like `SlotId::ALL`).
    fn dispatch_counts(&self) -> Vec<u64>;

    /// Makes room to hold a read of `rows` generated positions (dropping the last one's).
    fn hold_begin(&mut self, rows: usize) -> Result<(), String>;

    /// Holds the last pass's first `count` logit rows as held rows `first`,
    /// `first + stride`, … ([`super::held_logits`]).
    fn hold_rows(&mut self, first: usize, count: usize, stride: usize) -> Result<(), String>;

    /// Rows `which` of the held read, one after another (`[which.len(), vocab]`).
    fn held_rows(&self, which: &[usize]) -> Result<Vec<f32>, String>;

    /// One read of the workload ([`ReadSpec`]): the single sequence, then the batched
    /// part in an emptied cache. Tokens (and, with `keep_logits`, logits) sequence by
    /// sequence; with `hold_logits`, every generated position's logits are also held for
    /// [`LaneEngine::held_rows`] until the next read.
    fn run(
        &mut self,
        read: &ReadSpec,
        keep_logits: bool,
        hold_logits: bool,
    ) -> Result<RunResult, String> {
        let fits = |p: &[u32], steps: usize| !p.is_empty() && p.len() + steps <= self.max_seq();
        if !fits(&read.prompt, read.decode_steps)
            || read.batch.len() > self.max_batch()
            || !read.batch.iter().all(|p| fits(p, read.batch_steps))
        {
            return Err("the workload does not fit the engine's max_seq and max_batch".into());
        }
        let layout = RowLayout::of(read);
        if hold_logits {
            self.hold_begin(layout.rows())?;
        }
        self.reset();
        let vocab = self.vocab();
        let mut kept = keep_logits.then(Vec::new);
        let mut next = self.prefill(0, &read.prompt)?;
        let mut tokens = Vec::with_capacity(read.generated());
        loop {
            if let Some(k) = kept.as_mut() {
                k.extend(self.last_logits()?);
            }
            if hold_logits {
                self.hold_rows(layout.single_row(tokens.len()), 1, 1)?;
            }
            tokens.push(next);
            if tokens.len() > read.decode_steps {
                break;
            }
            next = self.decode(&[next])?[0];
        }
        if !read.batch.is_empty() {
            self.clear();
            let rows = read.batch.len();
            // Per sequence: its tokens and (kept) logits, joined sequence by sequence.
            let mut seq_tokens = vec![Vec::with_capacity(read.batch_steps + 1); rows];
            let mut seq_logits = vec![Vec::new(); rows];
            let mut next = Vec::with_capacity(rows);
            for (b, p) in read.batch.iter().enumerate() {
                next.push(self.prefill(b, p)?);
                if keep_logits {
                    seq_logits[b].extend(self.last_logits()?);
                }
                if hold_logits {
                    self.hold_rows(layout.batched_row(b, 0), 1, 1)?;
                }
            }
            for step in 0..=read.batch_steps {
                for (b, &t) in next.iter().enumerate() {
                    seq_tokens[b].push(t);
                }
                if step == read.batch_steps {
                    break;
                }
                next = self.decode(&next)?;
                if keep_logits {
                    let all = self.last_logits()?;
                    for (b, row) in all.chunks(vocab).take(rows).enumerate() {
                        seq_logits[b].extend_from_slice(row);
                    }
                }
                if hold_logits {
                    self.hold_rows(layout.batched_row(0, step + 1), rows, layout.per_batched)?;
                }
            }
            tokens.extend(seq_tokens.into_iter().flatten());
            if let Some(k) = kept.as_mut() {
                k.extend(seq_logits.into_iter().flatten());
            }
        }
        Ok(RunResult {
            tokens,
            dispatch_counts: self.dispatch_counts(),
            logits: kept,
        })
    }

    /// One read of the workload (graphs off) with the sampled calls recorded: the read's
    /// result as for [`LaneEngine::run`] (no logits), then the recorded calls; where the
    /// engine can, each sampled call is preceded by an in-place probe drawn from
    /// `probe_seed`, recorded too.
    fn audit(
        &mut self,
        read: &ReadSpec,
        sample: CallSample,
        probe_seed: u64,
    ) -> Result<(RunResult, Vec<RecordedCall>), String>;

    /// Next-token logits at positions `from..tokens.len()` of one sequence fed `tokens`
    /// from empty (`[tokens.len() - from, vocab]`).
    fn teacher_force(&mut self, tokens: &[u32], from: usize) -> Result<Vec<f32>, String>;
}

/// A recorded call as it travels to the referee: the `index`-th call of its slot, with
/// the inputs (ABI order) it changed.
pub fn recorded_call(
    index: u64,
    args: SlotArgs,
    outputs: Vec<Vec<f32>>,
    inputs_changed: Vec<usize>,
) -> RecordedCall {
    let meta = AuditCall {
        rank: 0,
        slot: args.slot.as_str().to_string(),
        index,
        inputs_changed,
        shape: args.shape.clone(),
        scalars: args.scalars.clone(),
        int_inputs: args
            .inputs
            .iter()
            .map(|b| matches!(b, Buffer::I32(_)))
            .collect(),
        outputs: outputs.len(),
        kept_features: None,
        probe: false,
    };
    RecordedCall {
        call: meta,
        inputs: args.inputs,
        outputs,
    }
}

pub struct EngineLane {
    engine: Engine,
    /// The logits of the last prefill or decode.
    logits: Vec<f32>,
    /// The last read's logits, where it held them.
    held: HostHeld,
}

/// Bytes of weights one forward pass must read at least: every matrix and norm except the
/// embedding table (a forward reads only its tokens' rows of it).
pub fn weight_bytes(cfg: &ModelConfig) -> u64 {
    let embed = cfg.vocab_size * cfg.hidden_size;
    (cfg.parameter_count().saturating_sub(embed) * 4) as u64
}

impl EngineLane {
    /// Genesis stock kernels, then each incumbent bundle in order; with a `group`, this
    /// rank's shard of the model (`Engine::new_rank`), else the whole model. The weight
    /// bytes returned are the whole model's: a read of a split engine is timed and judged
    /// as one pass over all the weights, whichever rank holds them.
    pub fn load(
        model: &str,
        weights: &EngineWeights,
        (max_seq, max_batch): (usize, usize),
        group: Option<&RankGroup>,
        stack: &[Vec<u8>],
    ) -> Result<(EngineLane, u64), String> {
        let cfg =
            ModelConfig::named(model).ok_or_else(|| format!("unknown model shape `{model}`"))?;
        let opts = CpuBuildOptions::default();
        let mut slots = SlotTable::genesis_cpu(&opts).map_err(|e| e.to_string())?;
        for (i, bytes) in stack.iter().enumerate() {
            let files = bundle::from_canonical_bytes(bytes, bundle::MAX_BUNDLE_BYTES)
                .map_err(|e| format!("incumbent bundle {i}: {e}"))?;
            let built = build_cpu_bundle(&files, &format!("incumbent {i}"), &opts)
                .map_err(|e| format!("incumbent bundle {i}: {e}"))?;
            slots.install_bundle(&built);
        }
        let weights = match weights {
            EngineWeights::Synthesized { seed } => Weights::synthesize(&cfg, *seed),
            EngineWeights::File { path, sha256 } => {
                let m = llama_gguf::load_verified(std::path::Path::new(path), sha256)
                    .map_err(|e| e.to_string())?;
                if m.config != cfg {
                    return Err(format!("{path} is not a `{model}` model"));
                }
                m.weights
            }
        };
        let bytes = weight_bytes(&cfg);
        let engine = match group {
            None => Engine::new(cfg, weights, slots, max_batch, max_seq),
            Some(g) => {
                let shm = ShmGroup::join(std::path::Path::new(&g.path), g.rank)
                    .map_err(|e| e.to_string())?;
                if shm.world() != g.world {
                    return Err(format!(
                        "the group file holds {} ranks, the referee asked for {}",
                        shm.world(),
                        g.world
                    ));
                }
                Engine::new_rank(cfg, weights, slots, max_batch, max_seq, shm)
            }
        }
        .map_err(|e| e.to_string())?;
        Ok((
            EngineLane {
                engine,
                logits: Vec::new(),
                held: HostHeld::default(),
            },
            bytes,
        ))
    }

    /// Installs a candidate bundle's kernels (its dispatch counts start at zero).
    pub fn install(&mut self, bundle: &CpuBundle) {
        self.engine.slots_mut().install_bundle(bundle);
    }
}

impl LaneEngine for EngineLane {
    fn vocab(&self) -> usize {
        self.engine.config().vocab_size
    }

    fn max_seq(&self) -> usize {
        self.engine.max_seq()
    }

    fn max_batch(&self) -> usize {
        self.engine.batch()
    }

    fn reset(&mut self) {
        self.engine.reset();
        self.engine.slots().reset_counts();
    }

    fn clear(&mut self) {
        self.engine.reset();
    }

    fn prefill(&mut self, seq: usize, prompt: &[u32]) -> Result<u32, String> {
        self.logits = self
            .engine
            .prefill(seq, prompt, Logits::Last)
            .map_err(|e| e.to_string())?;
        Ok(argmax(&self.logits))
    }

    fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>, String> {
        self.logits = self.engine.decode(tokens).map_err(|e| e.to_string())?;
        Ok(self.logits.chunks(self.vocab()).map(argmax).collect())
    }

    fn last_logits(&self) -> Result<Vec<f32>, String> {
        Ok(self.logits.clone())
    }

    fn hold_begin(&mut self, rows: usize) -> Result<(), String> {
        self.held.begin(rows, self.vocab());
        Ok(())
    }

    fn hold_rows(&mut self, first: usize, count: usize, stride: usize) -> Result<(), String> {
        self.held.hold(&self.logits, first, count, stride)
    }

    fn held_rows(&self, which: &[usize]) -> Result<Vec<f32>, String> {
        self.held.rows(which)
    }

    fn dispatch_counts(&self) -> Vec<u64> {
        self.engine.slots().dispatch_counts().to_vec()
    }

    fn audit(
        &mut self,
        read: &ReadSpec,
        sample: CallSample,
        probe_seed: u64,
    ) -> Result<(RunResult, Vec<RecordedCall>), String> {
        let recorder = Arc::new(Recorder {
            sample,
            probe_seed,
            seen: Mutex::new([0; SlotId::ALL.len()]),
            pending: Mutex::new(None),
            calls: Mutex::new(Vec::new()),
        });
        self.engine.slots_mut().set_observer(Some(recorder.clone()));
        let result = self.run(read, false, false);
        self.engine.slots_mut().set_observer(None);
        let result = result?;
        let calls = std::mem::take(&mut *recorder.calls.lock().expect("recorder lock"));
        Ok((result, calls))
    }

    fn teacher_force(&mut self, tokens: &[u32], from: usize) -> Result<Vec<f32>, String> {
        if from >= tokens.len() || tokens.len() > self.engine.max_seq() {
            return Err("the sequence does not fit the engine's max_seq".into());
        }
        self.engine.reset();
        let all = self
            .engine
            .prefill(0, tokens, Logits::All)
            .map_err(|e| e.to_string())?;
        Ok(all[from * self.vocab()..].to_vec())
    }
}

/// Records the sampled calls of some slots: a private copy of the inputs before the kernel
/// runs, the outputs after, and which inputs the call changed; before each, an in-place
/// probe of the same kernel on the same buffers, recorded as a call of its own.
struct Recorder {
    sample: CallSample,
    probe_seed: u64,
    /// Calls of each slot seen so far in the read (indexed like `SlotId::ALL`).
    seen: Mutex<[u64; SlotId::ALL.len()]>,
    /// The call being recorded: its index and its arguments before it ran.
    pending: Mutex<Option<(u64, SlotArgs)>>,
    calls: Mutex<Vec<RecordedCall>>,
}

impl Recorder {
    /// The index the next call of `slot` gets, if the sample wants it.
    fn wanted_next(&self, slot: SlotId) -> Option<u64> {
        let (_, wanted) = self.sample.iter().find(|(s, _)| *s == slot)?;
        let next = self.seen.lock().expect("recorder lock")[slot.index()];
        wanted.contains(&next).then_some(next)
    }
}

impl SlotObserver for Recorder {
    fn probe(&self, call: &SlotCall<'_>) -> Option<Vec<Change>> {
        let index = self.wanted_next(call.slot)?;
        let changes = probe::changes(probe::call_seed(self.probe_seed, call.slot, index), call);
        (!changes.is_empty()).then_some(changes)
    }

    fn probed(&self, call: &SlotCall<'_>, outputs: &[&[f32]]) {
        let Some(index) = self.wanted_next(call.slot) else {
            return;
        };
        let args = call.to_args().expect("engine calls fit the ABI");
        let outputs = outputs.iter().map(|o| o.to_vec()).collect();
        let mut rec = recorded_call(index, args, outputs, vec![]);
        rec.call.probe = true;
        self.calls.lock().expect("recorder lock").push(rec);
    }

    fn observe(&self, phase: CallPhase, call: &SlotCall<'_>, outputs: &[&[f32]]) {
        let slot = call.slot;
        let Some((_, wanted)) = self.sample.iter().find(|(s, _)| *s == slot) else {
            return;
        };
        match phase {
            CallPhase::Before => {
                let index = {
                    let mut seen = self.seen.lock().expect("recorder lock");
                    let i = seen[slot.index()];
                    seen[slot.index()] += 1;
                    i
                };
                if wanted.contains(&index) {
                    let args = call.to_args().expect("engine calls fit the ABI");
                    *self.pending.lock().expect("recorder lock") = Some((index, args));
                }
            }
            CallPhase::After => {
                if let Some((index, args)) = self.pending.lock().expect("recorder lock").take() {
                    let outputs = outputs.iter().map(|o| o.to_vec()).collect();
                    let after: Vec<Buffer> = call.inputs.iter().map(Tensor::to_buffer).collect();
                    let changed = changed_inputs(&args.inputs, &after);
                    self.calls
                        .lock()
                        .expect("recorder lock")
                        .push(recorded_call(index, args, outputs, changed));
                }
            }
        }
    }
}
