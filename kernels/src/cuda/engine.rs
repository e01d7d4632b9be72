//! The engine on CUDA (DESIGN 7.2): the Llama-family decoder of [`crate::engine`] in bf16
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

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::cublas::{result as blas, sys as blas_sys, CudaBlas};
use cudarc::driver::{result, sys, CudaFunction, CudaGraph, CudaModule, CudaSlice, DevicePtr};

use super::build::{build_cuda_bundle, CudaBuildOptions};
use super::device::{driver_err, CudaDevice, DeviceError};
use super::kernel::{CudaKernel, LaunchError};
use super::{loader, nvrtc};
use crate::engine::weights::{tensor_specs, TensorRole};
use crate::engine::{DispatchCounts, EngineError, ModelConfig, Weights};
use crate::slots::SlotId;
use crate::stock;

/// The engine's own kernels (see the file for what each does).
const ENGINE_KERNELS: &str = include_str!("engine_kernels.cu");

/// Row counts up to which the engine's GEMV kernel replaces cuBLAS. Measured on an H200
/// (llama8b-8l decode, 2026-12-02): at 1 row the GEMV step took 1.492 ms against cuBLAS's
/// 1.524 ms; at 8 rows 3.824 ms against 1.890 ms, so cuBLAS takes everything above one row.
pub const GEMV_MAX_ROWS: usize = 1;

/// Default decode batch buckets (capped by the engine's `max_batch`, which is a bucket).
pub const DEFAULT_BUCKETS: [usize; 3] = [1, 8, 32];
/// cuBLAS workspace the engine gives the handle (so nothing is allocated during capture).
const BLAS_WORKSPACE_BYTES: usize = 32 << 20;

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

fn blas_err(call: &str, e: blas::CublasError) -> CudaEngineError {
    CudaEngineError::Blas(format!("{call}: {:?}", e.0))
}

// ---------------------------------------------------------------------------------------
// The slot table.

/// Which loaded CUDA kernel serves each slot, with per-slot dispatch counters. Genesis
/// contents: the stock CUDA bundles; [`CudaSlotTable::install`] swaps one slot.
pub struct CudaSlotTable {
    kernels: Vec<CudaKernel>,
    counts: [AtomicU64; 5],
}

impl std::fmt::Debug for CudaSlotTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaSlotTable")
            .field("kernels", &self.kernels)
            .field("counts", &self.dispatch_counts())
            .finish()
    }
}

impl CudaSlotTable {
    /// A table from exactly one kernel per slot.
    pub fn new(kernels: Vec<CudaKernel>) -> Result<CudaSlotTable, CudaEngineError> {
        let mut slots: [Option<CudaKernel>; 5] = Default::default();
        for k in kernels {
            let at = k.slot().index();
            if slots[at].is_some() {
                return Err(CudaEngineError::Slots(format!(
                    "two kernels for {}",
                    k.slot()
                )));
            }
            slots[at] = Some(k);
        }
        let mut out = Vec::with_capacity(5);
        for (slot, k) in SlotId::ALL.iter().zip(slots) {
            out.push(k.ok_or_else(|| CudaEngineError::Slots(format!("no kernel for {slot}")))?);
        }
        Ok(CudaSlotTable {
            kernels: out,
            counts: Default::default(),
        })
    }

    /// The stock CUDA bundles, built by the one CUDA build path and loaded on `dev`.
    pub fn stock(dev: &CudaDevice) -> Result<CudaSlotTable, CudaEngineError> {
        let opts = CudaBuildOptions::default();
        let mut kernels = Vec::new();
        for b in stock::cuda_bundles() {
            let built = build_cuda_bundle(&b.files(), b.name, dev, &opts).map_err(|e| {
                CudaEngineError::Build {
                    name: b.name.to_string(),
                    error: e.to_string(),
                }
            })?;
            kernels.extend(built.into_kernels());
        }
        CudaSlotTable::new(kernels)
    }

    /// Puts `kernel` in its slot, returns the one it replaces and resets that slot's count.
    pub fn install(&mut self, kernel: CudaKernel) -> CudaKernel {
        let at = kernel.slot().index();
        self.counts[at].store(0, Ordering::Relaxed);
        std::mem::replace(&mut self.kernels[at], kernel)
    }

    pub fn kernel(&self, slot: SlotId) -> &CudaKernel {
        &self.kernels[slot.index()]
    }

    /// Calls per slot, in [`SlotId::ALL`] order.
    pub fn dispatch_counts(&self) -> DispatchCounts {
        std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed))
    }

    pub fn dispatch_count(&self, slot: SlotId) -> u64 {
        self.counts[slot.index()].load(Ordering::Relaxed)
    }

    pub fn reset_counts(&self) {
        self.counts
            .iter()
            .for_each(|c| c.store(0, Ordering::Relaxed));
    }

    fn set_counts(&self, counts: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(counts) {
            c.store(v, Ordering::Relaxed);
        }
    }

    fn add_counts(&self, delta: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(delta) {
            c.fetch_add(v, Ordering::Relaxed);
        }
    }

    /// One slot call on `stream` with the engine's device pointers (ABI order).
    fn launch(
        &self,
        stream: &cudarc::driver::CudaStream,
        slot: SlotId,
        outputs: &[u64],
        inputs: &[u64],
        scalars: &[f32],
        shape: &[i64],
    ) -> Result<(), LaunchError> {
        let k = self.kernel(slot);
        if !k.accepts(shape) {
            return Err(LaunchError::Args {
                slot,
                reason: format!("shape {shape:?} is outside the kernel's `when` domain"),
            });
        }
        k.launch_ptrs(stream, outputs, inputs, scalars, shape)?;
        self.counts[slot.index()].fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Device memory and launches.

type Buf = CudaSlice<u16>;

fn alloc_zeroed<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    dev: &CudaDevice,
    len: usize,
) -> Result<CudaSlice<T>, DeviceError> {
    dev.stream()
        .alloc_zeros::<T>(len.max(1))
        .map_err(|e| driver_err("cuMemAlloc", e))
}

/// A kernel argument of the engine's own kernels.
#[derive(Clone, Copy)]
enum Arg {
    Ptr(u64),
    I64(i64),
    U64(u64),
    F32(f32),
}

/// Where a weight tensor goes: a device pointer and its element count.
struct Placement {
    ptr: u64,
    len: usize,
    role: TensorRole,
    in_features: usize,
    name: String,
}

/// One layer's weights in bf16 (HF `[out, in]` layout; q|k|v and gate|up stacked).
struct LayerWeights {
    attn_norm: Buf,
    qkv: Buf,
    o: Buf,
    mlp_norm: Buf,
    gate_up: Buf,
    down: Buf,
}

struct DeviceWeights {
    embed: Buf,
    layers: Vec<LayerWeights>,
    norm: Buf,
    lm_head: Buf,
}

/// Where the weights come from.
#[derive(Clone, Copy, Debug)]
pub enum WeightSource<'a> {
    /// Uploaded from host f32 weights (rounded to bf16).
    Host(&'a Weights),
    /// Synthesized on the device from a seed (see the module docs: not the values of
    /// [`Weights::synthesize`], the same scales).
    Synthesize { seed: u64 },
}

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
    /// Products with at most 8 rows (decode up to bucket 8, the prefill's LM head) use
    /// the engine's weight-streaming GEMV kernel instead of cuBLAS.
    pub small_gemv: bool,
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
        }
    }
}

/// Per-forward-pass scratch buffers, `rows` tokens each.
struct Scratch {
    tokens: CudaSlice<i32>,
    positions: CudaSlice<i32>,
    cache_rows: CudaSlice<i32>,
    seq_lens: CudaSlice<i32>,
    next: CudaSlice<i32>,
    hidden: Buf,
    res_a: Buf,
    res_b: Buf,
    normed: Buf,
    block_out: Buf,
    qkv: Buf,
    q: Buf,
    k: Buf,
    q_rot: Buf,
    k_rot: Buf,
    attn: Buf,
    gate_up: Buf,
    act: Buf,
    logits: Buf,
    /// Prefill attention: f32 scores and bf16 probabilities `[q_heads, n, klen]`, grown
    /// on demand (elements allocated).
    scores: Option<CudaSlice<f32>>,
    probs: Option<Buf>,
    blas_workspace: CudaSlice<u8>,
}

/// What a forward pass is.
#[derive(Clone, Copy, Debug)]
enum Pass {
    /// `n` consecutive tokens of sequence `seq` from position `start`.
    Prefill { seq: usize, start: usize, n: usize },
    /// One token for each of `bucket` rows (padded).
    Decode { bucket: usize },
}

struct Graph {
    graph: CudaGraph,
    /// Slot launches one replay makes.
    counts: DispatchCounts,
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
    _module: Arc<CudaModule>,
    k_synth: CudaFunction,
    k_embed: CudaFunction,
    k_qkv_split: CudaFunction,
    k_k_write: CudaFunction,
    k_softmax: CudaFunction,
    k_argmax: CudaFunction,
    k_gemv: CudaFunction,
    weights: DeviceWeights,
    k_cache: Vec<Buf>,
    v_cache: Vec<Buf>,
    lens: Vec<usize>,
    s: Scratch,
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

/// A seed per tensor name: FNV-1a of the name mixed with the model seed.
fn tensor_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
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
        let stream = dev.stream().clone();
        if !loader::cublas_present() {
            return Err(CudaEngineError::Blas(
                "libcublas.so.13 not found (loader path, $CUDA_HOME, /usr/local/cuda*, PyTorch's nvidia/cu13)".into(),
            ));
        }
        let blas = CudaBlas::new(stream.clone()).map_err(|e| blas_err("cublasCreate", e))?;

        // The engine's own kernels.
        let (maj, min) = dev.info().compute_capability;
        let compiled = nvrtc::compile(
            "cacheon_engine.cu",
            ENGINE_KERNELS,
            &[],
            &[
                format!("--gpu-architecture=compute_{maj}{min}"),
                "--std=c++17".into(),
            ],
            std::time::Duration::from_secs(60),
        )
        .map_err(|e| CudaEngineError::Kernels(e.to_string()))?;
        let module = dev
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_src(compiled.ptx))
            .map_err(|e| driver_err("cuModuleLoadData", e))?;
        let func = |name: &str| {
            module
                .load_function(name)
                .map_err(|e| CudaEngineError::Device(driver_err("cuModuleGetFunction", e)))
        };
        let (k_synth, k_embed, k_qkv_split) = (
            func("eng_synth")?,
            func("eng_embed")?,
            func("eng_qkv_split")?,
        );
        let (k_k_write, k_softmax, k_argmax) = (
            func("eng_k_write")?,
            func("eng_causal_softmax")?,
            func("eng_argmax")?,
        );
        let k_gemv = func("eng_gemv")?;

        // Weights.
        let c = &config;
        let (h, inter, v) = (c.hidden_size, c.intermediate_size, c.vocab_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let z = |n: usize| alloc_zeroed::<u16>(&dev, n);
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for _ in 0..c.num_hidden_layers {
            layers.push(LayerWeights {
                attn_norm: z(h)?,
                qkv: z((q_dim + 2 * kv_dim) * h)?,
                o: z(h * q_dim)?,
                mlp_norm: z(h)?,
                gate_up: z(2 * inter * h)?,
                down: z(h * inter)?,
            });
        }
        let dw = DeviceWeights {
            embed: z(v * h)?,
            layers,
            norm: z(h)?,
            lm_head: z(v * h)?,
        };

        // KV cache and scratch.
        let rows = opts.max_batch.max(opts.max_prefill);
        let cache_len = opts.max_batch * opts.max_seq * kv_dim;
        let mut k_cache = Vec::new();
        let mut v_cache = Vec::new();
        for _ in 0..c.num_hidden_layers {
            k_cache.push(z(cache_len)?);
            v_cache.push(z(cache_len)?);
        }
        let i = |n: usize| alloc_zeroed::<i32>(&dev, n);
        let s = Scratch {
            tokens: i(rows)?,
            positions: i(rows)?,
            cache_rows: i(rows)?,
            seq_lens: i(rows)?,
            next: i(rows)?,
            hidden: z(rows * h)?,
            res_a: z(rows * h)?,
            res_b: z(rows * h)?,
            normed: z(rows * h)?,
            block_out: z(rows * h)?,
            qkv: z(rows * (q_dim + 2 * kv_dim))?,
            q: z(rows * q_dim)?,
            k: z(rows * kv_dim)?,
            q_rot: z(rows * q_dim)?,
            k_rot: z(rows * kv_dim)?,
            attn: z(rows * q_dim)?,
            gate_up: z(rows * 2 * inter)?,
            act: z(rows * inter)?,
            logits: z(opts.max_batch * v)?,
            scores: None,
            probs: None,
            blas_workspace: alloc_zeroed::<u8>(&dev, BLAS_WORKSPACE_BYTES)?,
        };
        let ws = s.blas_workspace.device_ptr(&stream).0;
        // SAFETY: the workspace outlives the handle (both owned by the engine, which drops
        // the handle first) and is only used by work queued on the engine's stream.
        unsafe {
            blas_sys::cublasSetWorkspace_v2(*blas.handle(), ws as *mut c_void, BLAS_WORKSPACE_BYTES)
        }
        .result()
        .map_err(|e| blas_err("cublasSetWorkspace", e))?;

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
            _module: module,
            k_synth,
            k_embed,
            k_qkv_split,
            k_k_write,
            k_softmax,
            k_argmax,
            k_gemv,
            weights: dw,
            k_cache,
            v_cache,
            s,
            graphs: BTreeMap::new(),
            graph_failures: BTreeMap::new(),
        };
        engine.fill_weights(weights)?;
        engine.dev.synchronize()?;
        Ok(engine)
    }

    fn ptr<T>(&self, b: &CudaSlice<T>) -> u64 {
        b.device_ptr(self.dev.stream()).0
    }

    /// Every tensor of [`tensor_specs`] with its device destination.
    fn placements(&self) -> Vec<Placement> {
        let c = &self.config;
        let (h, inter) = (c.hidden_size, c.intermediate_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let mut dest: Vec<u64> = vec![self.ptr(&self.weights.embed)];
        for l in &self.weights.layers {
            let qkv = self.ptr(&l.qkv);
            let gu = self.ptr(&l.gate_up);
            dest.extend([
                self.ptr(&l.attn_norm),
                qkv,
                qkv + (q_dim * h * 2) as u64,
                qkv + ((q_dim + kv_dim) * h * 2) as u64,
                self.ptr(&l.o),
                self.ptr(&l.mlp_norm),
                gu,
                gu + (inter * h * 2) as u64,
                self.ptr(&l.down),
            ]);
        }
        dest.push(self.ptr(&self.weights.norm));
        dest.push(self.ptr(&self.weights.lm_head));
        tensor_specs(c)
            .into_iter()
            .zip(dest)
            .map(|(spec, ptr)| Placement {
                ptr,
                len: spec.shape.iter().product(),
                role: spec.role,
                in_features: spec.shape.get(1).copied().unwrap_or(1),
                name: spec.name,
            })
            .collect()
    }

    fn fill_weights(&mut self, source: WeightSource<'_>) -> Result<(), CudaEngineError> {
        let stream = self.dev.stream().clone();
        let places = self.placements();
        match source {
            WeightSource::Host(w) => {
                for (p, t) in places.iter().zip(w.ordered()) {
                    let bits: Vec<u16> = t
                        .iter()
                        .map(|&x| half::bf16::from_f32(x).to_bits())
                        .collect();
                    // SAFETY: `p.ptr` holds `p.len` == `bits.len()` bf16 values; the copy
                    // is waited for before `bits` is dropped.
                    unsafe {
                        self.dev
                            .context()
                            .bind_to_thread()
                            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                        result::memcpy_htod_async(p.ptr, &bits, stream.cu_stream())
                            .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
                    }
                    self.dev.synchronize()?;
                }
            }
            WeightSource::Synthesize { seed } => {
                let tied = self.config.tie_word_embeddings;
                for p in &places {
                    if tied && p.name == "lm_head.weight" {
                        let embed = self.ptr(&self.weights.embed);
                        // SAFETY: both tensors hold `p.len` bf16 values.
                        unsafe {
                            result::memcpy_dtod_async(p.ptr, embed, p.len * 2, stream.cu_stream())
                        }
                        .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                        continue;
                    }
                    let (center, half_width) = match p.role {
                        TensorRole::Embedding => (0.0, 1.0),
                        TensorRole::Norm => (1.0, 0.1),
                        TensorRole::Linear => (0.0, (3.0 / p.in_features as f32).sqrt()),
                    };
                    let sms = self.dev.info().multiprocessors.max(1) as u32;
                    self.run(
                        &self.k_synth,
                        (sms * 8, 1, 1),
                        (256, 1, 1),
                        &[
                            Arg::Ptr(p.ptr),
                            Arg::U64(p.len as u64),
                            Arg::U64(tensor_seed(seed, &p.name)),
                            Arg::F32(center),
                            Arg::F32(half_width),
                        ],
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Launches one of the engine's own kernels on the engine's stream.
    fn run(
        &self,
        f: &CudaFunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        args: &[Arg],
    ) -> Result<(), CudaEngineError> {
        // Every argument in an 8-byte cell (an f32 in the low 4 bytes, little endian).
        let mut cells: Vec<u64> = args
            .iter()
            .map(|a| match *a {
                Arg::Ptr(v) | Arg::U64(v) => v,
                Arg::I64(v) => v as u64,
                Arg::F32(v) => v.to_bits() as u64,
            })
            .collect();
        let mut params: Vec<*mut c_void> = cells
            .iter_mut()
            .map(|c| c as *mut u64 as *mut c_void)
            .collect();
        let stream = self.dev.stream();
        // SAFETY: each kernel of `engine_kernels.cu` is called with its parameter list
        // (pointers and 64-bit integers in 8-byte cells, floats in 4 bytes); the buffers
        // hold what the shapes imply.
        unsafe {
            stream
                .context()
                .bind_to_thread()
                .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            result::launch_kernel(
                f.cu_function(),
                grid,
                block,
                0,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| CudaEngineError::Device(driver_err("cuLaunchKernel", e)))
    }

    /// `y[m, n] = x[m, k] · w[n, k]ᵀ`, bf16 row-major, f32 accumulation: the engine's
    /// GEMV kernel for at most [`GEMV_MAX_ROWS`] rows (when `small_gemv`), else cuBLAS. cuBLAS is
    /// column-major: it computes `yᵀ = w · xᵀ` (`w` transposed as stored, `x` as is).
    fn gemm(
        &self,
        y: u64,
        x: u64,
        w: u64,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<(), CudaEngineError> {
        if self.opts.small_gemv
            && m <= GEMV_MAX_ROWS
            && k.is_multiple_of(8)
            && x.is_multiple_of(16)
            && w.is_multiple_of(16)
        {
            let sms = self.dev.info().multiprocessors.max(1) as usize;
            let blocks = n.div_ceil(8).min(sms * 8) as u32;
            return self.run(
                &self.k_gemv,
                (blocks, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(y),
                    Arg::Ptr(x),
                    Arg::Ptr(w),
                    Arg::I64(m as i64),
                    Arg::I64(n as i64),
                    Arg::I64(k as i64),
                ],
            );
        }
        let (alpha, beta) = (1.0f32, 0.0f32);
        use blas_sys::{
            cublasComputeType_t as C, cublasGemmAlgo_t as G, cublasOperation_t as O,
            cudaDataType as D,
        };
        // SAFETY: `w` holds n·k, `x` m·k and `y` m·n bf16 values on the engine's stream;
        // alpha and beta are host scalars read during the call.
        unsafe {
            blas::gemm_ex(
                *self.blas.handle(),
                O::CUBLAS_OP_T,
                O::CUBLAS_OP_N,
                n as i32,
                m as i32,
                k as i32,
                &alpha as *const f32 as *const c_void,
                w as *const c_void,
                D::CUDA_R_16BF,
                k as i32,
                x as *const c_void,
                D::CUDA_R_16BF,
                k as i32,
                &beta as *const f32 as *const c_void,
                y as *mut c_void,
                D::CUDA_R_16BF,
                n as i32,
                C::CUBLAS_COMPUTE_32F,
                G::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| blas_err("cublasGemmEx", e))
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

    /// Swapping a slot's kernel drops every captured graph (they hold the old kernel).
    pub fn slots_mut(&mut self) -> &mut CudaSlotTable {
        self.graphs.clear();
        &mut self.slots
    }

    pub fn set_use_graphs(&mut self, on: bool) {
        self.opts.use_graphs = on;
    }

    /// Chooses the GEMV kernel (on) or cuBLAS (off) for products of at most 8 rows; drops
    /// the captured graphs.
    pub fn set_small_gemv(&mut self, on: bool) {
        self.opts.small_gemv = on;
        self.graphs.clear();
        self.graph_failures.clear();
    }

    /// Buckets with a captured decode graph.
    pub fn graph_buckets(&self) -> Vec<usize> {
        self.graphs.keys().copied().collect()
    }

    /// Why a bucket's capture failed (it then runs eagerly), if one did.
    pub fn graph_note(&self) -> Option<String> {
        if self.graph_failures.is_empty() {
            return None;
        }
        Some(
            self.graph_failures
                .iter()
                .map(|(b, e)| format!("bucket {b}: {e}"))
                .collect::<Vec<_>>()
                .join("; "),
        )
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

    /// Bytes of weights one decode step reads (everything but the embedding table).
    pub fn weight_bytes_per_step(&self) -> u64 {
        let w = &self.weights;
        let mut n = w.norm.len() + w.lm_head.len();
        for l in &w.layers {
            n += l.attn_norm.len() + l.qkv.len() + l.o.len() + l.mlp_norm.len();
            n += l.gate_up.len() + l.down.len();
        }
        2 * n as u64
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
            self.ensure_prefill_scratch(n, start + n)?;
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

    /// Runs the prepared decode step: a graph replay, or eagerly (then captured).
    fn run_decode(&mut self, bucket: usize) -> Result<(), CudaEngineError> {
        if let Some(g) = self.graphs.get(&bucket) {
            g.graph
                .launch()
                .map_err(|e| driver_err("cuGraphLaunch", e))?;
            self.slots.add_counts(&g.counts);
            return Ok(());
        }
        self.forward(Pass::Decode { bucket })?;
        if self.opts.use_graphs && !self.graph_failures.contains_key(&bucket) {
            self.dev.synchronize()?;
            match self.capture(bucket) {
                Ok(g) => {
                    self.graphs.insert(bucket, g);
                }
                Err(e) => {
                    self.graph_failures.insert(bucket, e.to_string());
                }
            }
        }
        Ok(())
    }

    /// Captures one decode step of `bucket` rows (records only; runs nothing).
    fn capture(&mut self, bucket: usize) -> Result<Graph, CudaEngineError> {
        let stream = self.dev.stream().clone();
        let before = self.slots.dispatch_counts();
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
        let body = self.forward(Pass::Decode { bucket });
        let end = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        let after = self.slots.dispatch_counts();
        self.slots.set_counts(&before);
        body?;
        let graph = end
            .map_err(|e| driver_err("cuStreamEndCapture", e))?
            .ok_or_else(|| CudaEngineError::Kernels("captured an empty graph".into()))?;
        graph.upload().map_err(|e| driver_err("cuGraphUpload", e))?;
        let counts = std::array::from_fn(|i| after[i] - before[i]);
        Ok(Graph { graph, counts })
    }

    /// Device time of one decode step for sequences `0..n` at their current lengths:
    /// the bucket's graph (captured first if needed) replayed `warmup` times, then
    /// `replays` times between two events. The sequences do not advance: every replay
    /// writes the same cache row. Milliseconds per step.
    pub fn time_decode(
        &mut self,
        n: usize,
        warmup: usize,
        replays: usize,
    ) -> Result<f64, CudaEngineError> {
        let tokens: Vec<u32> = (0..n as u32)
            .map(|t| (t * 7919 + 1) % self.config.vocab_size as u32)
            .collect();
        self.prepare_decode(&tokens)?;
        let bucket = self.bucket_for(n);
        self.run_decode(bucket)?; // eager (+ capture) on first use
        for _ in 0..warmup {
            self.run_decode(bucket)?;
        }
        self.dev.synchronize()?;
        let (start, end) = self.events()?;
        start
            .record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        for _ in 0..replays {
            self.run_decode(bucket)?;
        }
        end.record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.dev.synchronize()?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(ms as f64 / replays.max(1) as f64)
    }

    /// Device time (ms) of prefilling `tokens` into sequence `seq` (which is reset first).
    pub fn time_prefill(&mut self, seq: usize, tokens: &[u32]) -> Result<f64, CudaEngineError> {
        self.lens[seq] = 0;
        self.dev.synchronize()?;
        let (start, end) = self.events()?;
        start
            .record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.prefill_queued(seq, tokens)?;
        end.record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.dev.synchronize()?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(ms as f64)
    }

    fn events(
        &self,
    ) -> Result<(cudarc::driver::CudaEvent, cudarc::driver::CudaEvent), CudaEngineError> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let ctx = self.dev.context();
        let a = ctx
            .new_event(flags)
            .map_err(|e| driver_err("cuEventCreate", e))?;
        let b = ctx
            .new_event(flags)
            .map_err(|e| driver_err("cuEventCreate", e))?;
        Ok((a, b))
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

    /// Downloads a weight tensor by its HF name (bf16 as f32), for tests.
    pub fn weight(&self, name: &str) -> Result<Option<Vec<f32>>, CudaEngineError> {
        let Some(p) = self.placements().into_iter().find(|p| p.name == name) else {
            return Ok(None);
        };
        let mut bits = vec![0u16; p.len];
        // SAFETY: `p.ptr` holds `p.len` bf16 values; waited for below.
        unsafe {
            self.dev
                .context()
                .bind_to_thread()
                .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            result::memcpy_dtoh_async(&mut bits, p.ptr, self.dev.stream().cu_stream())
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
        }
        self.dev.synchronize()?;
        Ok(Some(
            bits.into_iter()
                .map(|b| half::bf16::from_bits(b).to_f32())
                .collect(),
        ))
    }

    /// Grows the prefill attention buffers to `[q_heads, n, klen]`.
    fn ensure_prefill_scratch(&mut self, n: usize, klen: usize) -> Result<(), CudaEngineError> {
        let need = self.config.num_attention_heads * n * klen;
        if self.s.scores.as_ref().is_none_or(|b| b.len() < need) {
            self.s.scores = None;
            self.s.probs = None;
            self.dev.synchronize()?;
            self.s.scores = Some(alloc_zeroed::<f32>(&self.dev, need)?);
            self.s.probs = Some(alloc_zeroed::<u16>(&self.dev, need)?);
        }
        Ok(())
    }

    /// One pass over every layer for the rows whose inputs [`Self::upload_step`] wrote;
    /// ends with the logits and the greedy tokens (`s.next`). Only queues work.
    fn forward(&self, pass: Pass) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let st = self.dev.stream();
        let s = &self.s;
        let w = &self.weights;
        let slots = &self.slots;
        let (h, inter, eps, vocab) = (
            c.hidden_size,
            c.intermediate_size,
            c.rms_norm_eps,
            c.vocab_size,
        );
        let (q_heads, kv_heads, hd) = (c.num_attention_heads, c.kv_heads(), c.head_dim());
        let (q_dim, kv_dim, max_seq) = (c.q_dim(), c.kv_dim(), self.opts.max_seq);
        let scale = 1.0 / (hd as f32).sqrt();
        let n = match pass {
            Pass::Prefill { n, .. } => n,
            Pass::Decode { bucket } => bucket,
        };
        let p = |b: &Buf| self.ptr(b);
        let (ni, hi) = (n as i64, h as i64);
        let (tokens, positions) = (self.ptr(&s.tokens), self.ptr(&s.positions));
        let (cache_rows, seq_lens) = (self.ptr(&s.cache_rows), self.ptr(&s.seq_lens));
        let (hidden, normed, block_out) = (p(&s.hidden), p(&s.normed), p(&s.block_out));
        let (res_a, res_b) = (p(&s.res_a), p(&s.res_b));
        let other = |cur: u64| if cur == res_a { res_b } else { res_a };

        // Embedding.
        self.run(
            &self.k_embed,
            (n as u32, 1, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(hidden),
                Arg::Ptr(p(&w.embed)),
                Arg::Ptr(tokens),
                Arg::I64(hi),
            ],
        )?;

        let mut cur = hidden;
        for (l, lw) in w.layers.iter().enumerate() {
            let (kc, vc) = (p(&self.k_cache[l]), p(&self.v_cache[l]));
            // Attention norm; from layer 1 on it also adds the previous MLP output.
            if l == 0 {
                slots.launch(
                    st,
                    SlotId::RmsNorm,
                    &[normed],
                    &[hidden, p(&lw.attn_norm)],
                    &[eps],
                    &[ni, hi],
                )?;
            } else {
                let next = other(cur);
                slots.launch(
                    st,
                    SlotId::FusedAddRmsNorm,
                    &[normed, next],
                    &[block_out, cur, p(&lw.attn_norm)],
                    &[eps],
                    &[ni, hi],
                )?;
                cur = next;
            }

            // Projections, KV cache write, RoPE.
            let (qkv, q, k) = (p(&s.qkv), p(&s.q), p(&s.k));
            let (q_rot, k_rot, attn) = (p(&s.q_rot), p(&s.k_rot), p(&s.attn));
            self.gemm(qkv, normed, p(&lw.qkv), n, q_dim + 2 * kv_dim, h)?;
            self.run(
                &self.k_qkv_split,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(q),
                    Arg::Ptr(k),
                    Arg::Ptr(vc),
                    Arg::Ptr(qkv),
                    Arg::Ptr(cache_rows),
                    Arg::I64(q_dim as i64),
                    Arg::I64(kv_dim as i64),
                ],
            )?;
            slots.launch(
                st,
                SlotId::Rope,
                &[q_rot, k_rot],
                &[q, k, positions],
                &[c.rope_theta],
                &[ni, q_heads as i64, kv_heads as i64, hd as i64],
            )?;
            self.run(
                &self.k_k_write,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(kc),
                    Arg::Ptr(k_rot),
                    Arg::Ptr(cache_rows),
                    Arg::I64(kv_dim as i64),
                ],
            )?;

            // Attention.
            match pass {
                Pass::Decode { .. } => slots.launch(
                    st,
                    SlotId::AttentionDecode,
                    &[attn],
                    &[q_rot, kc, vc, seq_lens],
                    &[scale],
                    &[
                        ni,
                        q_heads as i64,
                        kv_heads as i64,
                        hd as i64,
                        max_seq as i64,
                    ],
                )?,
                Pass::Prefill { seq, start, n } => {
                    let base = (seq * max_seq * kv_dim * 2) as u64;
                    self.prefill_attention(
                        kc + base,
                        vc + base,
                        start + n,
                        n,
                        positions,
                        q_rot,
                        attn,
                        scale,
                    )?;
                }
            }
            self.gemm(block_out, attn, p(&lw.o), n, h, q_dim)?;

            // MLP norm with the attention residual add, then SwiGLU.
            let next = other(cur);
            slots.launch(
                st,
                SlotId::FusedAddRmsNorm,
                &[normed, next],
                &[block_out, cur, p(&lw.mlp_norm)],
                &[eps],
                &[ni, hi],
            )?;
            cur = next;
            let (gate_up, act) = (p(&s.gate_up), p(&s.act));
            self.gemm(gate_up, normed, p(&lw.gate_up), n, 2 * inter, h)?;
            slots.launch(
                st,
                SlotId::SiluAndMul,
                &[act],
                &[gate_up],
                &[],
                &[ni, inter as i64],
            )?;
            self.gemm(block_out, act, p(&lw.down), n, h, inter)?;
        }

        // Final norm with the last residual add, LM head, greedy argmax.
        let next = other(cur);
        slots.launch(
            st,
            SlotId::FusedAddRmsNorm,
            &[normed, next],
            &[block_out, cur, p(&w.norm)],
            &[eps],
            &[ni, hi],
        )?;
        let (rows, src) = match pass {
            Pass::Decode { .. } => (n, normed),
            Pass::Prefill { .. } => (1, normed + ((n - 1) * h * 2) as u64),
        };
        let logits = p(&s.logits);
        self.gemm(logits, src, p(&w.lm_head), rows, vocab, h)?;
        self.run(
            &self.k_argmax,
            (rows as u32, 1, 1),
            (1024, 1, 1),
            &[
                Arg::Ptr(self.ptr(&s.next)),
                Arg::Ptr(logits),
                Arg::I64(vocab as i64),
            ],
        )?;
        Ok(())
    }

    /// Causal attention of `n` prompt rows (positions from `positions`) over the first
    /// `klen` cache rows of one sequence (`kc`, `vc`: its `[max_seq, kv_heads, head_dim]`
    /// caches): scores by strided-batched GEMM (f32), the causal softmax kernel, then
    /// probabilities · v (bf16) straight into `attn [n, q_heads, head_dim]`.
    #[allow(clippy::too_many_arguments)]
    fn prefill_attention(
        &self,
        kc: u64,
        vc: u64,
        klen: usize,
        n: usize,
        positions: u64,
        q_rot: u64,
        attn: u64,
        scale: f32,
    ) -> Result<(), CudaEngineError> {
        use blas_sys::{
            cublasComputeType_t as C, cublasGemmAlgo_t as G, cublasOperation_t as O,
            cudaDataType as D,
        };
        let c = &self.config;
        let (q_heads, kv_heads, hd) = (c.num_attention_heads, c.kv_heads(), c.head_dim());
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let group = q_heads / kv_heads;
        let scores = self.ptr(self.s.scores.as_ref().expect("ensure_prefill_scratch"));
        let probs = self.ptr(self.s.probs.as_ref().expect("ensure_prefill_scratch"));
        let (zero, one) = (0.0f32, 1.0f32);
        let head_block = (n * klen) as i64; // elements of one head's [n, klen] block
                                            // Query head h = g·group + i: one batched call per i, batch over KV heads g.
        for i in 0..group {
            // scores_h [n, klen] = q_h [n, hd] · k_gᵀ; column-major: scores_hᵀ = k_g · q_hᵀ.
            // SAFETY: every matrix lies inside its buffer: k/v rows `klen <= max_seq` of
            // the sequence, q_rot `[n, q_dim]`, scores `[q_heads, n, klen]` f32.
            unsafe {
                blas::gemm_strided_batched_ex(
                    *self.blas.handle(),
                    O::CUBLAS_OP_T,
                    O::CUBLAS_OP_N,
                    klen as i32,
                    n as i32,
                    hd as i32,
                    &scale as *const f32 as *const c_void,
                    kc as *const c_void,
                    D::CUDA_R_16BF,
                    kv_dim as i32,
                    hd as i64,
                    (q_rot + (i * hd * 2) as u64) as *const c_void,
                    D::CUDA_R_16BF,
                    q_dim as i32,
                    (group * hd) as i64,
                    &zero as *const f32 as *const c_void,
                    (scores + (i as i64 * head_block * 4) as u64) as *mut c_void,
                    D::CUDA_R_32F,
                    klen as i32,
                    group as i64 * head_block,
                    kv_heads as i32,
                    C::CUBLAS_COMPUTE_32F,
                    G::CUBLAS_GEMM_DEFAULT,
                )
            }
            .map_err(|e| blas_err("cublasGemmStridedBatchedEx (scores)", e))?;
        }
        self.run(
            &self.k_softmax,
            (n as u32, q_heads as u32, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(probs),
                Arg::Ptr(scores),
                Arg::Ptr(positions),
                Arg::I64(n as i64),
                Arg::I64(klen as i64),
            ],
        )?;
        for i in 0..group {
            // out_h [n, hd] = probs_h [n, klen] · v_g [klen, hd]; column-major:
            // out_hᵀ = v_gᵀ · probs_hᵀ, written with leading dimension q_dim.
            // SAFETY: as above; attn is `[n, q_dim]` bf16.
            unsafe {
                blas::gemm_strided_batched_ex(
                    *self.blas.handle(),
                    O::CUBLAS_OP_N,
                    O::CUBLAS_OP_N,
                    hd as i32,
                    n as i32,
                    klen as i32,
                    &one as *const f32 as *const c_void,
                    vc as *const c_void,
                    D::CUDA_R_16BF,
                    kv_dim as i32,
                    hd as i64,
                    (probs + (i as i64 * head_block * 2) as u64) as *const c_void,
                    D::CUDA_R_16BF,
                    klen as i32,
                    group as i64 * head_block,
                    &zero as *const f32 as *const c_void,
                    (attn + (i * hd * 2) as u64) as *mut c_void,
                    D::CUDA_R_16BF,
                    q_dim as i32,
                    (group * hd) as i64,
                    kv_heads as i32,
                    C::CUBLAS_COMPUTE_32F,
                    G::CUBLAS_GEMM_DEFAULT,
                )
            }
            .map_err(|e| blas_err("cublasGemmStridedBatchedEx (values)", e))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Decode-step breakdown (for `cacheon-engine-bench --breakdown`).

/// Which launch of a decode step an [`OpTime`] is (see [`CudaEngine::decode_breakdown`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepOp {
    Embed,
    RmsNorm,
    FusedAddRmsNorm,
    QkvProj,
    QkvSplit,
    Rope,
    KWrite,
    Attention,
    OProj,
    GateUpProj,
    SiluAndMul,
    DownProj,
    LmHead,
    Argmax,
}

/// One distinct operation of a decode step, timed in isolation on the engine's buffers.
#[derive(Clone, Debug)]
pub struct OpTime {
    /// Short name (`qkv_proj`, `attention.decode`, …).
    pub name: &'static str,
    /// Shape and implementation, e.g. `gemv 1x4096 · 6144x4096`.
    pub detail: String,
    /// Launches of this operation in one decode step.
    pub launches_per_step: usize,
    /// Bytes one launch must move (weights and activations read, outputs written).
    pub bytes_per_launch: u64,
    /// Device µs per launch, launched eagerly back to back between two events.
    pub eager_us: f64,
    /// Device µs per launch inside a captured graph of back-to-back launches (what a
    /// graph-replayed step pays per node); `None` where the capture failed.
    pub graph_us: Option<f64>,
}

impl CudaEngine {
    /// Times every distinct operation of a decode step of `n` sequences (`0..n` at
    /// their current lengths, which do not advance; `n` must be a bucket so no padding
    /// rows exist): each launched `reps` times after `warmup` launches, eagerly between
    /// two events, and again as a captured graph of `reps` launches (replayed twice as
    /// warm-up, then 5 times under events). Per-layer operations cycle through the
    /// layers' weights and caches (so a repeated launch does not find its weights in L2),
    /// with the same arguments [`Self::forward`] gives them. Slot dispatch counts are
    /// restored afterwards. Writes only scratch buffers and the step's own cache row.
    pub fn decode_breakdown(
        &mut self,
        n: usize,
        warmup: usize,
        reps: usize,
    ) -> Result<Vec<OpTime>, CudaEngineError> {
        let tokens: Vec<u32> = (0..n as u32)
            .map(|t| (t * 7919 + 1) % self.config.vocab_size as u32)
            .collect();
        self.prepare_decode(&tokens)?;
        self.dev.synchronize()?;
        let counts = self.slots.dispatch_counts();
        let reps = reps.max(1);
        let c = self.config.clone();
        let layers = c.num_hidden_layers;
        let (h, inter, vocab) = (c.hidden_size, c.intermediate_size, c.vocab_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let qkv_out = q_dim + 2 * kv_dim;
        let (nb, hb) = (n as u64, h as u64);
        let kv_read: u64 = self.lens[..n]
            .iter()
            .map(|&l| ((l + 1) * kv_dim * 2 * 2) as u64)
            .sum();
        let gemm_impl = |k: usize| {
            if self.opts.small_gemv && n <= GEMV_MAX_ROWS && k.is_multiple_of(8) {
                "gemv"
            } else {
                "cuBLAS"
            }
        };
        let gemm = |name: &'static str, op: StepOp, out: usize, k: usize, launches: usize| {
            let bytes = 2 * (out * k + n * k + n * out) as u64;
            (
                name,
                format!("{} {n}x{k} · {out}x{k}", gemm_impl(k)),
                op,
                launches,
                bytes,
            )
        };
        let ops: Vec<(&'static str, String, StepOp, usize, u64)> = vec![
            (
                "embedding",
                format!("{n} rows of {h}"),
                StepOp::Embed,
                1,
                2 * 2 * nb * hb + 4 * nb,
            ),
            (
                "rmsnorm",
                format!("{n}x{h} (layer 0)"),
                StepOp::RmsNorm,
                1,
                2 * (2 * nb * hb + hb),
            ),
            (
                "fused_add_rmsnorm",
                format!("{n}x{h} ({} attn + {layers} mlp + final)", layers - 1),
                StepOp::FusedAddRmsNorm,
                2 * layers,
                2 * (4 * nb * hb + hb),
            ),
            gemm("qkv_proj", StepOp::QkvProj, qkv_out, h, layers),
            (
                "qkv_split+v_write",
                format!("{n}x{qkv_out}"),
                StepOp::QkvSplit,
                layers,
                2 * 2 * (n * qkv_out) as u64 + 4 * nb,
            ),
            (
                "rope",
                format!("{n}x({q_dim}+{kv_dim})"),
                StepOp::Rope,
                layers,
                2 * 2 * (n * (q_dim + kv_dim)) as u64 + 4 * nb,
            ),
            (
                "k_write",
                format!("{n}x{kv_dim}"),
                StepOp::KWrite,
                layers,
                2 * 2 * (n * kv_dim) as u64 + 4 * nb,
            ),
            (
                "attention.decode",
                format!(
                    "{n}x{} heads, kv len {:?}",
                    c.num_attention_heads,
                    self.lens[..n].iter().map(|l| l + 1).collect::<Vec<_>>()
                ),
                StepOp::Attention,
                layers,
                2 * 2 * (n * q_dim) as u64 + kv_read + 4 * nb,
            ),
            gemm("o_proj", StepOp::OProj, h, q_dim, layers),
            gemm("gate_up_proj", StepOp::GateUpProj, 2 * inter, h, layers),
            (
                "silu_and_mul",
                format!("{n}x{inter}"),
                StepOp::SiluAndMul,
                layers,
                2 * 3 * (n * inter) as u64,
            ),
            gemm("down_proj", StepOp::DownProj, h, inter, layers),
            gemm("lm_head", StepOp::LmHead, vocab, h, 1),
            (
                "argmax",
                format!("{n}x{vocab}"),
                StepOp::Argmax,
                1,
                2 * (n * vocab) as u64 + 4 * nb,
            ),
        ];
        let mut out = Vec::with_capacity(ops.len());
        for (name, detail, op, launches, bytes) in ops {
            let layer = |i: usize| i % layers;
            // Eager.
            for i in 0..warmup {
                self.launch_step_op(op, n, layer(i))?;
            }
            self.dev.synchronize()?;
            let (start, end) = self.events()?;
            start
                .record(self.dev.stream())
                .map_err(|e| driver_err("cuEventRecord", e))?;
            for i in 0..reps {
                self.launch_step_op(op, n, layer(i))?;
            }
            end.record(self.dev.stream())
                .map_err(|e| driver_err("cuEventRecord", e))?;
            self.dev.synchronize()?;
            let eager_ms = start
                .elapsed_ms(&end)
                .map_err(|e| driver_err("cuEventElapsedTime", e))?
                as f64;
            // Graph of `reps` launches.
            let graph_us = match self.capture_step_op(op, n, reps, layer) {
                Ok(g) => {
                    for _ in 0..2 {
                        g.launch().map_err(|e| driver_err("cuGraphLaunch", e))?;
                    }
                    self.dev.synchronize()?;
                    let (start, end) = self.events()?;
                    start
                        .record(self.dev.stream())
                        .map_err(|e| driver_err("cuEventRecord", e))?;
                    for _ in 0..5 {
                        g.launch().map_err(|e| driver_err("cuGraphLaunch", e))?;
                    }
                    end.record(self.dev.stream())
                        .map_err(|e| driver_err("cuEventRecord", e))?;
                    self.dev.synchronize()?;
                    let ms = start
                        .elapsed_ms(&end)
                        .map_err(|e| driver_err("cuEventElapsedTime", e))?
                        as f64;
                    Some(ms * 1e3 / (5 * reps) as f64)
                }
                Err(_) => None,
            };
            out.push(OpTime {
                name,
                detail,
                launches_per_step: launches,
                bytes_per_launch: bytes,
                eager_us: eager_ms * 1e3 / reps as f64,
                graph_us,
            });
        }
        self.slots.set_counts(&counts);
        Ok(out)
    }

    /// Captures `reps` launches of `op` (layer `layer(i)` for the i-th) into a graph.
    fn capture_step_op(
        &self,
        op: StepOp,
        n: usize,
        reps: usize,
        layer: impl Fn(usize) -> usize,
    ) -> Result<CudaGraph, CudaEngineError> {
        let stream = self.dev.stream().clone();
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
        let mut body = Ok(());
        for i in 0..reps {
            body = self.launch_step_op(op, n, layer(i));
            if body.is_err() {
                break;
            }
        }
        let end = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        body?;
        let graph = end
            .map_err(|e| driver_err("cuStreamEndCapture", e))?
            .ok_or_else(|| CudaEngineError::Kernels("captured an empty graph".into()))?;
        graph.upload().map_err(|e| driver_err("cuGraphUpload", e))?;
        Ok(graph)
    }

    /// One launch of `op` for a decode step of `n` rows on layer `l`'s weights and
    /// caches, with the arguments [`Self::forward`] gives it (the residual ping-pong
    /// fixed: `res_a` in, `res_b` out).
    fn launch_step_op(&self, op: StepOp, n: usize, l: usize) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let st = self.dev.stream();
        let s = &self.s;
        let w = &self.weights;
        let lw = &w.layers[l];
        let slots = &self.slots;
        let (h, inter, eps, vocab) = (
            c.hidden_size,
            c.intermediate_size,
            c.rms_norm_eps,
            c.vocab_size,
        );
        let (q_heads, kv_heads, hd) = (c.num_attention_heads, c.kv_heads(), c.head_dim());
        let (q_dim, kv_dim, max_seq) = (c.q_dim(), c.kv_dim(), self.opts.max_seq);
        let scale = 1.0 / (hd as f32).sqrt();
        let p = |b: &Buf| self.ptr(b);
        let (ni, hi) = (n as i64, h as i64);
        let (kc, vc) = (p(&self.k_cache[l]), p(&self.v_cache[l]));
        let (tokens, positions) = (self.ptr(&s.tokens), self.ptr(&s.positions));
        let (cache_rows, seq_lens) = (self.ptr(&s.cache_rows), self.ptr(&s.seq_lens));
        let (hidden, normed, block_out) = (p(&s.hidden), p(&s.normed), p(&s.block_out));
        let (res_a, res_b) = (p(&s.res_a), p(&s.res_b));
        let (qkv, q, k) = (p(&s.qkv), p(&s.q), p(&s.k));
        let (q_rot, k_rot, attn) = (p(&s.q_rot), p(&s.k_rot), p(&s.attn));
        let (gate_up, act, logits) = (p(&s.gate_up), p(&s.act), p(&s.logits));
        match op {
            StepOp::Embed => self.run(
                &self.k_embed,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(hidden),
                    Arg::Ptr(p(&w.embed)),
                    Arg::Ptr(tokens),
                    Arg::I64(hi),
                ],
            ),
            StepOp::RmsNorm => Ok(slots.launch(
                st,
                SlotId::RmsNorm,
                &[normed],
                &[hidden, p(&lw.attn_norm)],
                &[eps],
                &[ni, hi],
            )?),
            StepOp::FusedAddRmsNorm => Ok(slots.launch(
                st,
                SlotId::FusedAddRmsNorm,
                &[normed, res_b],
                &[block_out, res_a, p(&lw.mlp_norm)],
                &[eps],
                &[ni, hi],
            )?),
            StepOp::QkvProj => self.gemm(qkv, normed, p(&lw.qkv), n, q_dim + 2 * kv_dim, h),
            StepOp::QkvSplit => self.run(
                &self.k_qkv_split,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(q),
                    Arg::Ptr(k),
                    Arg::Ptr(vc),
                    Arg::Ptr(qkv),
                    Arg::Ptr(cache_rows),
                    Arg::I64(q_dim as i64),
                    Arg::I64(kv_dim as i64),
                ],
            ),
            StepOp::Rope => Ok(slots.launch(
                st,
                SlotId::Rope,
                &[q_rot, k_rot],
                &[q, k, positions],
                &[c.rope_theta],
                &[ni, q_heads as i64, kv_heads as i64, hd as i64],
            )?),
            StepOp::KWrite => self.run(
                &self.k_k_write,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(kc),
                    Arg::Ptr(k_rot),
                    Arg::Ptr(cache_rows),
                    Arg::I64(kv_dim as i64),
                ],
            ),
            StepOp::Attention => Ok(slots.launch(
                st,
                SlotId::AttentionDecode,
                &[attn],
                &[q_rot, kc, vc, seq_lens],
                &[scale],
                &[
                    ni,
                    q_heads as i64,
                    kv_heads as i64,
                    hd as i64,
                    max_seq as i64,
                ],
            )?),
            StepOp::OProj => self.gemm(block_out, attn, p(&lw.o), n, h, q_dim),
            StepOp::GateUpProj => self.gemm(gate_up, normed, p(&lw.gate_up), n, 2 * inter, h),
            StepOp::SiluAndMul => Ok(slots.launch(
                st,
                SlotId::SiluAndMul,
                &[act],
                &[gate_up],
                &[],
                &[ni, inter as i64],
            )?),
            StepOp::DownProj => self.gemm(block_out, act, p(&lw.down), n, h, inter),
            StepOp::LmHead => self.gemm(logits, normed, p(&w.lm_head), n, vocab, h),
            StepOp::Argmax => self.run(
                &self.k_argmax,
                (n as u32, 1, 1),
                (1024, 1, 1),
                &[
                    Arg::Ptr(self.ptr(&s.next)),
                    Arg::Ptr(logits),
                    Arg::I64(vocab as i64),
                ],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_seeds_differ_by_name_and_seed() {
        assert_ne!(tensor_seed(1, "a"), tensor_seed(1, "b"));
        assert_ne!(tensor_seed(1, "a"), tensor_seed(2, "a"));
        assert_eq!(
            tensor_seed(7, "lm_head.weight"),
            tensor_seed(7, "lm_head.weight")
        );
    }

    #[test]
    fn engine_kernels_have_no_includes() {
        assert!(!ENGINE_KERNELS.contains("#include"));
        for name in [
            "eng_synth",
            "eng_embed",
            "eng_qkv_split",
            "eng_k_write",
            "eng_causal_softmax",
            "eng_argmax",
            "eng_gemv",
        ] {
            assert!(ENGINE_KERNELS.contains(&format!(" {name}(")), "{name}");
        }
    }
}
