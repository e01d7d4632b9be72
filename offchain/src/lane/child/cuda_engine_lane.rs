//! A lane's engine on the CUDA arena: [`CudaEngine`] (bf16, cuBLAS, the slot kernels,
//! decode replayed from CUDA graphs) with the incumbent stack and, in a candidate lane,
//! the candidate's kernels installed. Weights are synthesized on the device from the
//! arena's seed, so every lane of an attempt holds the same model.

use std::time::Instant;

use cacheon_kernels::bundle;
use cacheon_kernels::cuda::{
    build_cuda_bundle, CudaBuildOptions, CudaDevice, CudaEngine, CudaEngineOptions, CudaKernel,
    CudaSlotTable, WeightSource,
};
use cacheon_kernels::model::ModelConfig;

use super::engine_lane::{recorded_call, LaneEngine};
use crate::lane::protocol::{
    CallSample, EngineWeights, PartTimes, ReadSpec, RecordedCall, RunResult,
};

/// Most prompt tokens one prefill pass takes (longer prompts run in chunks): the arena's
/// whole prompt in one pass.
const MAX_PREFILL: usize = 2048;

pub struct CudaEngineLane {
    engine: CudaEngine,
    /// Rows of the last pass's logits (1 after a prefill, the batch after a decode).
    rows: usize,
}

impl CudaEngineLane {
    /// The stock CUDA kernels, then each incumbent bundle in order, on `dev`. Returns the
    /// lane, the weight bytes one forward pass reads and how long each part took (ms).
    pub fn load(
        dev: &CudaDevice,
        model: &str,
        weights: &EngineWeights,
        max_seq: usize,
        max_batch: usize,
        stack: &[Vec<u8>],
    ) -> Result<(CudaEngineLane, u64, PartTimes), String> {
        let cfg =
            ModelConfig::named(model).ok_or_else(|| format!("unknown model shape `{model}`"))?;
        let EngineWeights::Synthesized { seed: weights_seed } = *weights else {
            return Err("the CUDA engine does not load model files yet".into());
        };
        let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
        let started = Instant::now();
        let mut slots = CudaSlotTable::stock(dev).map_err(|e| e.to_string())?;
        let mut parts = vec![("stock_kernels".to_string(), ms(started))];
        let started = Instant::now();
        let opts = CudaBuildOptions::default();
        for (i, bytes) in stack.iter().enumerate() {
            let files = bundle::from_canonical_bytes(bytes, bundle::MAX_BUNDLE_BYTES)
                .map_err(|e| format!("incumbent bundle {i}: {e}"))?;
            let built = build_cuda_bundle(&files, &format!("incumbent {i}"), dev, &opts)
                .map_err(|e| format!("incumbent bundle {i}: {e}"))?;
            for k in built.into_kernels() {
                slots.install(k);
            }
        }
        parts.push(("stack".to_string(), ms(started)));
        let eopts = CudaEngineOptions::new(max_batch, max_seq, MAX_PREFILL.min(max_seq));
        let engine = CudaEngine::new(
            dev,
            cfg,
            WeightSource::Synthesize { seed: weights_seed },
            slots,
            eopts,
        )
        .map_err(|e| e.to_string())?;
        let bytes = engine.weight_bytes_per_step();
        parts.extend(
            engine
                .build_times()
                .iter()
                .map(|(part, took)| (format!("engine_{part}"), took.as_secs_f64() * 1e3)),
        );
        Ok((CudaEngineLane { engine, rows: 1 }, bytes, parts))
    }

    /// Puts a candidate's kernels in their slots (their dispatch counts start at zero).
    pub fn install(&mut self, kernels: Vec<CudaKernel>) {
        for k in kernels {
            self.engine.slots_mut().install(k);
        }
    }
}

impl LaneEngine for CudaEngineLane {
    fn vocab(&self) -> usize {
        self.engine.config().vocab_size
    }

    fn max_seq(&self) -> usize {
        self.engine.max_seq()
    }

    fn max_batch(&self) -> usize {
        self.engine.max_batch()
    }

    fn reset(&mut self) {
        self.engine.reset();
        self.engine.slots().reset_counts();
    }

    fn clear(&mut self) {
        self.engine.reset();
    }

    fn prefill(&mut self, seq: usize, prompt: &[u32]) -> Result<u32, String> {
        self.rows = 1;
        self.engine.prefill(seq, prompt).map_err(|e| e.to_string())
    }

    fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>, String> {
        self.rows = tokens.len();
        self.engine.decode(tokens).map_err(|e| e.to_string())
    }

    fn last_logits(&self) -> Result<Vec<f32>, String> {
        self.engine.logits(self.rows).map_err(|e| e.to_string())
    }

    fn hold_begin(&mut self, rows: usize) -> Result<(), String> {
        self.engine.hold_begin(rows).map_err(|e| e.to_string())
    }

    /// One device-to-device copy a pass, queued behind it (the read never waits for it).
    fn hold_rows(&mut self, first: usize, count: usize, stride: usize) -> Result<(), String> {
        self.engine
            .hold_logits(first, count, stride)
            .map_err(|e| e.to_string())
    }

    fn held_rows(&self, which: &[usize]) -> Result<Vec<f32>, String> {
        self.engine.held_logits(which).map_err(|e| e.to_string())
    }

    fn dispatch_counts(&self) -> Vec<u64> {
        self.engine.slots().dispatch_counts().to_vec()
    }

    fn audit(
        &mut self,
        read: &ReadSpec,
        sample: CallSample,
        _probe_seed: u64,
    ) -> Result<(RunResult, Vec<RecordedCall>), String> {
        // No in-place probe on the GPU yet: the CUDA slot table records calls only.
        self.engine.slots_mut().record(sample);
        let result = self.run(read, false, false);
        let calls = self.engine.slots_mut().take_recorded();
        let result = result?;
        let calls = calls
            .into_iter()
            .map(|mut c| {
                let outputs = std::mem::take(&mut c.args.outputs);
                recorded_call(c.index, c.args, outputs, c.inputs_changed)
            })
            .collect();
        Ok((result, calls))
    }

    /// The prefix up to `from` in one prefill, then one decode step per later token: the
    /// same kernels and graphs that produced the logits being compared.
    fn teacher_force(&mut self, tokens: &[u32], from: usize) -> Result<Vec<f32>, String> {
        if from >= tokens.len() || tokens.len() > self.engine.max_seq() {
            return Err("the sequence does not fit the engine's max_seq".into());
        }
        self.engine.reset();
        self.rows = 1;
        self.engine
            .prefill(0, &tokens[..=from])
            .map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity((tokens.len() - from) * self.vocab());
        out.extend(self.last_logits()?);
        for &t in &tokens[from + 1..] {
            self.engine.decode(&[t]).map_err(|e| e.to_string())?;
            out.extend(self.last_logits()?);
        }
        Ok(out)
    }
}
