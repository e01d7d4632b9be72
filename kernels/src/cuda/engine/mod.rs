//! The engine on CUDA (DESIGN 7.2): the Llama-family decoder of [`crate::model`] in bf16
//! on one GPU, with cuBLAS GEMMs (bf16 in and out, f32 accumulation) and the slot kernels
//! from a [`CudaSlotTable`]. Reads top to bottom like the CPU model: embed, then per
//! layer norm → fused QKV GEMM → split (q, k out; v into the cache) → `position.rope` →
//! k into the cache → attention → o GEMM → `norm.fused_add_rmsnorm` → fused gate/up GEMM →
//! `activation.silu_and_mul` → down GEMM; then the final norm, the LM head GEMM and a
//! greedy argmax on the device.
//!
//! - **Attention.** Decode calls the `attention.decode` slot once per layer for the whole
//!   batch. Prefill does not use the slot (one call per prompt token would be far too
//!   slow): it writes the prompt's keys and values to the cache, then per layer two
//!   strided-batched cuBLAS GEMMs (scores = q·kᵀ·scale in f32, one batch per KV head and
//!   query head of its group, GQA through the strides), the engine's causal softmax
//!   kernel (bf16 probabilities) and probabilities·v. Prompts longer than the prefill
//!   capacity run in chunks (each chunk sees the cache up to its own positions).
//! - **Decode graphs.** A decode step for `n` sequences runs in a batch bucket (the
//!   smallest of 1, 8, 32 and `max_batch` that holds `n`; padding rows get token 0,
//!   position 0, sequence length 0 and no cache write). The step's inputs (tokens,
//!   positions, sequence lengths, cache rows) live in fixed device buffers written
//!   before each step, so one captured graph per bucket replays every step: the first
//!   step of a bucket runs eagerly (which also warms cuBLAS and the kernels' shared-memory
//!   opt-ins), then is captured; later steps replay. A capture that fails is reported by
//!   [`CudaEngine::graph_note`] and that bucket stays eager.
//! - **Weights** are uploaded from the crate's [`Weights`] (f32 → bf16 on the host, round
//!   to nearest even) or synthesized on the device from a seed ([`WeightSource`]): same
//!   roles and scales as [`Weights::synthesize`] (embeddings `U[-1, 1)`, norms `1 ± 0.1`,
//!   projections uniform with std `1/sqrt(in)`) but a different generator, so the values
//!   differ from the host-synthesized ones. This keeps `llama8b-8l` (5.6 GB in bf16) from
//!   needing 11 GB of host f32.
//! - **Slot dispatch counts** count launches; a graph replay adds the slot launches its
//!   capture recorded.
//!
//! The engine owns every allocation, its stream, the cuBLAS handle (and its workspace)
//! and every launch.
//!
//! Files: this one holds the engine's state, its construction and the prefill and decode
//! entry points; `forward` the forward pass; `weights` the device weights; `buffers` the
//! scratch memory; `gemm` the products; `launch` the engine's own kernels; `graphs` the
//! decode graphs; `profile` and `breakdown` the timing; `slot_table` the slot kernels.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::{result as blas, sys as blas_sys, CudaBlas};
use cudarc::driver::{result, sys, CudaFunction, CudaGraph, CudaModule, CudaSlice, DevicePtr};

use super::build::{build_cuda_bundle, CudaBuildOptions};
use super::device::{driver_err, CudaDevice, DeviceError};
use super::kernel::{CudaKernel, LaunchError};
use super::{loader, nvrtc};
use crate::bundle::stock;
use crate::model::weights::{tensor_specs, TensorRole};
use crate::model::{EngineError, ModelConfig, Weights};
use crate::slots::stacks::DispatchCounts;
use crate::slots::SlotId;

/// Default decode batch buckets (capped by the engine's `max_batch`, which is a bucket).
pub const DEFAULT_BUCKETS: [usize; 3] = [1, 8, 32];

/// Why the CUDA engine refused or failed a request.
#[derive(Debug, thiserror::Error)]
pub enum CudaEngineError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("stock bundle `{name}`: {error}")]
    Build { name: String, error: String },
    #[error("slot table: {0}")]
    Slots(String),
    #[error("engine kernels: {0}")]
    Kernels(String),
    #[error("cuBLAS: {0}")]
    Blas(String),
}

mod breakdown;
mod buffers;
mod forward;
mod gemm;
mod graphs;
mod held;
mod launch;
mod profile;
mod slot_table;
mod weights;

use buffers::{alloc_zeroed, Buf, Scratch};
use gemm::{blas_err, blas_handle};
use graphs::Graph;
use launch::{Arg, EngineKernels, ARGMAX_MAX_BLOCKS};
use weights::DeviceWeights;

pub use breakdown::OpTime;
pub use slot_table::{CudaSlotTable, RecordedLaunch};
pub use weights::WeightSource;

/// Sizes of the engine's buffers and its decode buckets.
#[derive(Clone, Debug)]
pub struct CudaEngineOptions {
    /// Sequences in the KV cache (and the largest decode batch).
    pub max_batch: usize,
    /// Positions per sequence in the KV cache.
    pub max_seq: usize,
    /// Most prompt tokens per prefill pass (longer prompts run in chunks).
    pub max_prefill: usize,
    /// Decode batch buckets (each at most `max_batch`; `max_batch` is always one).
    pub buckets: Vec<usize>,
    /// Replay decode steps from CUDA graphs (else every step launches eagerly).
    pub use_graphs: bool,
    /// Projections go through the `linear.matmul` slot table (stock GEMV for single rows)
    /// and the q|k|v decode row through the engine's fused GEMV; off, every product goes to
    /// cuBLAS (a benchmark's A/B switch; the validator never clears it).
    pub small_gemv: bool,
    /// Prefill attention through the `attention.prefill` slot table (stock: a flash kernel,
    /// one pass over the keys on tensor cores); off, by the slot's builtin, two cuBLAS
    /// products around a causal softmax kernel with the `[heads, n, klen]` scores in memory
    /// (a benchmark's A/B switch and the cross-check of `cuda_engine`; the validator never
    /// clears it).
    pub flash_prefill: bool,
    /// The engine's own decode kernels (embedding, key-cache write, q|k|v GEMV, argmax)
    /// launch with programmatic dependent launch, overlapping their start with the drain of
    /// the grid before (the stock slot kernels' switch is [`CudaSlotTable::stock_with`]); a
    /// benchmark's A/B switch, the validator never clears it.
    pub programmatic_launch: bool,
    /// Every pass (decode and prefill) applies RoPE and writes both cache rows in one
    /// engine kernel after the q|k|v product (`eng_rope_cache_row` at one row,
    /// `eng_rope_cache_rows` at more: no `position.rope`, split or k-write launch) while
    /// the stock rope kernel serves the call; the product itself is a `linear.matmul` call
    /// like any other. A rope proposal whose domain takes the call
    /// turns it off, so the proposal is what runs. A benchmark's A/B switch; the validator
    /// never clears it.
    pub fuse_qkv_rope: bool,
    /// A batch-1 decode step runs gate|up with SwiGLU as one engine GEMV (no
    /// `activation.silu_and_mul` launch) while the stock `linear.matmul` and `silu_and_mul`
    /// kernels serve both calls and no `mlp.gate_up_silu` kernel takes the seam; a proposal
    /// for any of them turns it off. Off: on an H100 the fused GEMV has not yet matched the
    /// stock gate|up GEMV plus the SwiGLU launch (`performance.md`); a benchmark's
    /// experiment (`--fuse-swiglu`).
    pub fuse_gate_up_silu: bool,
    /// With `fuse_qkv_rope` and the stock `linear.matmul` kernel serving the q|k|v row,
    /// that step is instead the engine's one-launch pair GEMV (`eng_gemv_qkv_rope`: the
    /// product, RoPE and both cache rows), the default before the stock
    /// GEMV plus the RoPE + cache-row kernel measured 15.7 µs a step faster on an H100. A
    /// benchmark's A/B switch (`--qkv-pair`).
    pub qkv_pair_gemv: bool,
}

impl CudaEngineOptions {
    pub fn new(max_batch: usize, max_seq: usize, max_prefill: usize) -> CudaEngineOptions {
        CudaEngineOptions {
            max_batch,
            max_seq,
            max_prefill,
            buckets: DEFAULT_BUCKETS.to_vec(),
            use_graphs: true,
            small_gemv: true,
            flash_prefill: true,
            programmatic_launch: true,
            fuse_qkv_rope: true,
            fuse_gate_up_silu: false,
            qkv_pair_gemv: false,
        }
    }
}

/// What a forward pass is.
#[derive(Clone, Copy, Debug)]
enum Pass {
    /// `n` consecutive tokens of sequence `seq` from position `start`.
    Prefill { seq: usize, start: usize, n: usize },
    /// One token for each of `bucket` rows (padded).
    Decode { bucket: usize },
}

impl Pass {
    /// The rows the pass computes.
    fn rows(self) -> usize {
        match self {
            Pass::Prefill { n, .. } => n,
            Pass::Decode { bucket } => bucket,
        }
    }
}

/// The bf16 Llama decoder on one GPU.
pub struct CudaEngine {
    // Field order is drop order: graphs first, the cuBLAS handle before its workspace
    // (in `s`), the buffers before the device handle.
    graphs: BTreeMap<usize, Graph>,
    /// Buckets whose capture failed, with the reason (they run eagerly).
    graph_failures: BTreeMap<usize, String>,
    config: ModelConfig,
    opts: CudaEngineOptions,
    slots: CudaSlotTable,
    blas: CudaBlas,
    kernels: EngineKernels,
    weights: DeviceWeights,
    k_cache: Vec<Buf>,
    v_cache: Vec<Buf>,
    lens: Vec<usize>,
    /// A read's logit rows, where the engine holds them (`held.rs`).
    held: Option<held::HeldLogits>,
    s: Scratch,
    /// How long building it took, part by part (`CudaEngine::build_times`).
    build_times: Vec<(&'static str, std::time::Duration)>,
    dev: CudaDevice,
}

impl std::fmt::Debug for CudaEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaEngine")
            .field("config", &self.config)
            .field("opts", &self.opts)
            .field("lens", &self.lens)
            .finish()
    }
}

impl CudaEngine {
    /// Builds the engine on `dev`: compiles its own kernels, creates the cuBLAS handle,
    /// allocates every buffer (KV cache zeroed) and loads or synthesizes the weights.
    pub fn new(
        dev: &CudaDevice,
        config: ModelConfig,
        weights: WeightSource<'_>,
        slots: CudaSlotTable,
        opts: CudaEngineOptions,
    ) -> Result<CudaEngine, CudaEngineError> {
        config.validate()?;
        if config.moe.is_some() {
            return Err(EngineError::Config(
                "the CUDA engine has no mixture-of-experts layers yet".into(),
            )
            .into());
        }
        if let WeightSource::Host(w) = weights {
            w.check_shapes(&config).map_err(EngineError::Weights)?;
        }
        let bad = |m: &str| Err(CudaEngineError::Engine(EngineError::Config(m.into())));
        if opts.max_batch == 0 || opts.max_seq == 0 || opts.max_prefill == 0 {
            return bad("max_batch, max_seq and max_prefill must be positive");
        }
        if opts.max_seq > config.max_position_embeddings {
            return bad("max_seq must be at most max_position_embeddings");
        }
        if opts.max_batch * opts.max_seq > i32::MAX as usize {
            return bad("max_batch * max_seq must fit an int32 cache row");
        }
        if config.head_dim() > 256 {
            return bad("the stock attention kernel takes head_dim up to 256");
        }
        let dev = dev.clone();
        let started = std::time::Instant::now();
        let kernels = EngineKernels::load(&dev)?;
        let mut build_times = vec![("kernels", started.elapsed())];
        let started = std::time::Instant::now();
        let dw = DeviceWeights::zeroed(&dev, &config)?;
        let cache_len = opts.max_batch * opts.max_seq * config.kv_dim();
        let mut k_cache = Vec::new();
        let mut v_cache = Vec::new();
        for _ in 0..config.num_hidden_layers {
            k_cache.push(alloc_zeroed::<u16>(&dev, cache_len)?);
            v_cache.push(alloc_zeroed::<u16>(&dev, cache_len)?);
        }
        let s = Scratch::new(
            &dev,
            &config,
            opts.max_batch.max(opts.max_prefill),
            opts.max_batch,
        )?;
        let blas = blas_handle(dev.stream(), &s.blas_workspace)?;
        build_times.push(("buffers", started.elapsed()));

        let mut opts = opts;
        opts.buckets.retain(|&b| b > 0 && b < opts.max_batch);
        opts.buckets.push(opts.max_batch);
        opts.buckets.sort_unstable();
        opts.buckets.dedup();

        let mut engine = CudaEngine {
            lens: vec![0; opts.max_batch],
            dev,
            config,
            opts,
            slots,
            blas,
            kernels,
            weights: dw,
            k_cache,
            v_cache,
            s,
            graphs: BTreeMap::new(),
            graph_failures: BTreeMap::new(),
            held: None,
            build_times,
        };
        let started = std::time::Instant::now();
        engine.fill_weights(weights)?;
        engine.dev.synchronize()?;
        engine.build_times.push(("weights", started.elapsed()));
        Ok(engine)
    }

    /// How long [`CudaEngine::new`] took, part by part: its own kernels (compiled or read
    /// from the build cache, and loaded), the buffers and cuBLAS handle, the weights.
    pub fn build_times(&self) -> &[(&'static str, std::time::Duration)] {
        &self.build_times
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn options(&self) -> &CudaEngineOptions {
        &self.opts
    }

    pub fn device(&self) -> &CudaDevice {
        &self.dev
    }

    pub fn slots(&self) -> &CudaSlotTable {
        &self.slots
    }

    pub fn max_batch(&self) -> usize {
        self.opts.max_batch
    }

    pub fn max_seq(&self) -> usize {
        self.opts.max_seq
    }

    pub fn seq_len(&self, seq: usize) -> usize {
        self.lens[seq]
    }

    /// Empties every sequence.
    pub fn reset(&mut self) {
        self.lens.fill(0);
    }

    /// Declares that sequence `seq` holds `len` positions (for benchmarks: decode at a
    /// realistic context without prefilling it; the cache rows keep whatever they hold).
    pub fn set_seq_len(&mut self, seq: usize, len: usize) -> Result<(), CudaEngineError> {
        if seq >= self.opts.max_batch || len > self.opts.max_seq {
            return Err(EngineError::Config("set_seq_len out of range".into()).into());
        }
        self.lens[seq] = len;
        Ok(())
    }

    /// The decode bucket for `n` sequences.
    pub fn bucket_for(&self, n: usize) -> usize {
        *self
            .opts
            .buckets
            .iter()
            .find(|&&b| b >= n)
            .unwrap_or(&self.opts.max_batch)
    }

    fn check_tokens(&self, tokens: &[u32]) -> Result<(), CudaEngineError> {
        if tokens.is_empty() {
            return Err(EngineError::Empty.into());
        }
        let vocab = self.config.vocab_size;
        if let Some(&t) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(EngineError::TokenOutOfRange { token: t, vocab }.into());
        }
        Ok(())
    }

    /// Writes `rows` int32 step inputs (tokens, positions, cache rows, sequence lengths).
    fn upload_step(
        &mut self,
        tokens: &[i32],
        positions: &[i32],
        cache_rows: &[i32],
        seq_lens: &[i32],
    ) -> Result<(), CudaEngineError> {
        let stream = self.dev.stream().clone();
        let s = &mut self.s;
        for (src, dst) in [
            (tokens, &mut s.tokens),
            (positions, &mut s.positions),
            (cache_rows, &mut s.cache_rows),
            (seq_lens, &mut s.seq_lens),
        ] {
            if !src.is_empty() {
                stream
                    .memcpy_htod(src, dst)
                    .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            }
        }
        Ok(())
    }

    /// Runs `tokens` of sequence `seq` from its current length on, filling the cache
    /// (chunks of at most `max_prefill`). Returns the greedy next token; the last
    /// token's logits are then [`CudaEngine::logits`]`(1)`.
    pub fn prefill(&mut self, seq: usize, tokens: &[u32]) -> Result<u32, CudaEngineError> {
        self.prefill_queued(seq, tokens)?;
        Ok(self.download_next(1)?[0])
    }

    /// [`CudaEngine::prefill`] without waiting for the result (for timing).
    pub fn prefill_queued(&mut self, seq: usize, tokens: &[u32]) -> Result<(), CudaEngineError> {
        if seq >= self.opts.max_batch {
            return Err(EngineError::NoSuchSequence {
                seq,
                batch: self.opts.max_batch,
            }
            .into());
        }
        self.check_tokens(tokens)?;
        let start = self.lens[seq];
        if start + tokens.len() > self.opts.max_seq {
            return Err(EngineError::SequenceFull {
                seq,
                len: start + tokens.len(),
                max_seq: self.opts.max_seq,
            }
            .into());
        }
        for chunk in tokens.chunks(self.opts.max_prefill) {
            let start = self.lens[seq];
            let n = chunk.len();
            let toks: Vec<i32> = chunk.iter().map(|&t| t as i32).collect();
            let pos: Vec<i32> = (start..start + n).map(|p| p as i32).collect();
            let rows: Vec<i32> = (start..start + n)
                .map(|p| (seq * self.opts.max_seq + p) as i32)
                .collect();
            self.upload_step(&toks, &pos, &rows, &[])?;
            let shape = self.prefill_attention_shape(n, start + n);
            if !self.prefill_slot_serves(&shape) {
                self.ensure_prefill_scratch(n, start + n)?;
            }
            self.forward(Pass::Prefill { seq, start, n })?;
            self.lens[seq] += n;
        }
        Ok(())
    }

    /// One decode step: `tokens[b]` is appended to sequence `b` for `b < tokens.len()`
    /// (at most `max_batch`). Returns the greedy next token of each; the logits are then
    /// [`CudaEngine::logits`]`(tokens.len())`.
    pub fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>, CudaEngineError> {
        let n = tokens.len();
        self.prepare_decode(tokens)?;
        let bucket = self.bucket_for(n);
        self.run_decode(bucket)?;
        let next = self.download_next(n)?;
        for l in &mut self.lens[..n] {
            *l += 1;
        }
        Ok(next)
    }

    /// Uploads one decode step's inputs (without advancing the sequences).
    fn prepare_decode(&mut self, tokens: &[u32]) -> Result<(), CudaEngineError> {
        let n = tokens.len();
        if n > self.opts.max_batch {
            return Err(EngineError::BatchMismatch {
                batch: self.opts.max_batch,
                got: n,
            }
            .into());
        }
        self.check_tokens(tokens)?;
        for (seq, &len) in self.lens[..n].iter().enumerate() {
            if len >= self.opts.max_seq {
                return Err(EngineError::SequenceFull {
                    seq,
                    len: len + 1,
                    max_seq: self.opts.max_seq,
                }
                .into());
            }
        }
        let bucket = self.bucket_for(n);
        let mut toks = vec![0i32; bucket];
        let mut pos = vec![0i32; bucket];
        let mut rows = vec![-1i32; bucket];
        let mut lens = vec![0i32; bucket];
        for b in 0..n {
            let p = self.lens[b];
            toks[b] = tokens[b] as i32;
            pos[b] = p as i32;
            rows[b] = (b * self.opts.max_seq + p) as i32;
            lens[b] = p as i32 + 1;
        }
        self.upload_step(&toks, &pos, &rows, &lens)
    }

    /// The greedy tokens of the last pass's first `n` rows (waits for the stream).
    fn download_next(&self, n: usize) -> Result<Vec<u32>, CudaEngineError> {
        let mut out = vec![0i32; n];
        let stream = self.dev.stream();
        stream
            .memcpy_dtoh(&self.s.next.slice(0..n), &mut out[..])
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        self.dev.synchronize()?;
        Ok(out.into_iter().map(|t| t as u32).collect())
    }

    /// The last pass's logits, `rows` rows (1 after a prefill, the batch after a decode),
    /// as f32 `[rows, vocab]`.
    pub fn logits(&self, rows: usize) -> Result<Vec<f32>, CudaEngineError> {
        let n = rows.min(self.opts.max_batch) * self.config.vocab_size;
        let mut bits = vec![0u16; n];
        let stream = self.dev.stream();
        stream
            .memcpy_dtoh(&self.s.logits.slice(0..n), &mut bits[..])
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        self.dev.synchronize()?;
        Ok(bits
            .into_iter()
            .map(|b| half::bf16::from_bits(b).to_f32())
            .collect())
    }
}
