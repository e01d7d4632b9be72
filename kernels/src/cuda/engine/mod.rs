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

/// Output features from which the GEMV kernel keeps eight weight loads per lane in flight
/// instead of four (H200: ~2-3 % faster for the LM head and gate|up, slower for the
/// 4096- and 6144-feature products).
const GEMV_WIDE_N: usize = 16384;

/// Output features from which the GEMV kernel stages x in shared memory once per block
/// (`eng_gemv_wide_xs`): the LM head, where each warp takes ~15 rows (H200: 238.7 against
/// 242.3 µs; slower for gate|up, down, o and q|k|v).
const GEMV_SHARED_X_N: usize = 65536;

/// Most blocks the argmax kernel gives one row (each takes a strided share of the vocab;
/// 256 threads, about 8 values each).
const ARGMAX_MAX_BLOCKS: usize = 128;

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

mod breakdown;
mod forward;
mod slot_table;

pub use breakdown::OpTime;
pub use slot_table::{CudaSlotTable, RecordedLaunch};

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
    /// The argmax kernel's per-block best keys (`ARGMAX_MAX_BLOCKS` per row) and per-row
    /// finished-block counters (zero between launches: the last block resets its row's).
    argmax_part: CudaSlice<u64>,
    argmax_count: CudaSlice<u32>,
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
    k_gemv_qkv: CudaFunction,
    k_gemv_wide: CudaFunction,
    k_gemv_wide_xs: CudaFunction,
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
        let (k_gemv, k_gemv_qkv, k_gemv_wide) = (
            func("eng_gemv")?,
            func("eng_gemv_qkv")?,
            func("eng_gemv_wide")?,
        );
        let k_gemv_wide_xs = func("eng_gemv_wide_xs")?;

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
            argmax_part: alloc_zeroed::<u64>(&dev, rows * ARGMAX_MAX_BLOCKS)?,
            argmax_count: alloc_zeroed::<u32>(&dev, rows)?,
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
            k_gemv_qkv,
            k_gemv_wide,
            k_gemv_wide_xs,
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
        self.run_smem(f, grid, block, 0, args)
    }

    /// [`Self::run`] with `smem` bytes of dynamic shared memory.
    fn run_smem(
        &self,
        f: &CudaFunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        smem: u32,
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
                smem,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| CudaEngineError::Device(driver_err("cuLaunchKernel", e)))
    }

    /// Whether a product of `m` rows with inner size `k` goes to the GEMV kernel.
    fn uses_gemv(&self, m: usize, k: usize, x: u64, w: u64) -> bool {
        self.opts.small_gemv
            && m <= GEMV_MAX_ROWS
            && k.is_multiple_of(8)
            && x.is_multiple_of(16)
            && w.is_multiple_of(16)
    }

    /// Blocks of 8 warps (one output feature per warp, grid-stride) for `n` features.
    fn gemv_blocks(&self, n: usize) -> u32 {
        let sms = self.dev.info().multiprocessors.max(1) as usize;
        n.div_ceil(8).min(sms * 8) as u32
    }

    /// Whether the q|k|v projection of `n` rows is one GEMV that writes q, k and the v
    /// cache rows itself (no split launch).
    pub(super) fn qkv_fused(&self, n: usize, x: u64, w: u64) -> bool {
        self.uses_gemv(n, self.config.hidden_size, x, w)
    }

    /// The q|k|v projection of `n` rows of `x` by `w`: q and k into the scratch buffers,
    /// v into the cache rows of `cache_rows` (of `vc`), either as one GEMV kernel or as
    /// a GEMM into `qkv` and the split kernel.
    pub(super) fn qkv_projection(
        &self,
        n: usize,
        x: u64,
        w: u64,
        vc: u64,
    ) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let (h, q_dim, kv_dim) = (c.hidden_size, c.q_dim(), c.kv_dim());
        let (q, k) = (self.ptr(&self.s.q), self.ptr(&self.s.k));
        let cache_rows = self.ptr(&self.s.cache_rows);
        if self.qkv_fused(n, x, w) {
            return self.run(
                &self.k_gemv_qkv,
                (self.gemv_blocks(q_dim + 2 * kv_dim), 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(q),
                    Arg::Ptr(k),
                    Arg::Ptr(vc),
                    Arg::Ptr(cache_rows),
                    Arg::Ptr(x),
                    Arg::Ptr(w),
                    Arg::I64(n as i64),
                    Arg::I64(q_dim as i64),
                    Arg::I64(kv_dim as i64),
                    Arg::I64(h as i64),
                ],
            );
        }
        let qkv = self.ptr(&self.s.qkv);
        self.gemm(qkv, x, w, n, q_dim + 2 * kv_dim, h)?;
        self.qkv_split(n, vc)
    }

    /// The split kernel: `qkv` rows into q, k and the v cache.
    pub(super) fn qkv_split(&self, n: usize, vc: u64) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let s = &self.s;
        self.run(
            &self.k_qkv_split,
            (n as u32, 1, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(self.ptr(&s.q)),
                Arg::Ptr(self.ptr(&s.k)),
                Arg::Ptr(vc),
                Arg::Ptr(self.ptr(&s.qkv)),
                Arg::Ptr(self.ptr(&s.cache_rows)),
                Arg::I64(c.q_dim() as i64),
                Arg::I64(c.kv_dim() as i64),
            ],
        )
    }

    /// Greedy tokens of `rows` rows of `logits` into `s.next`.
    pub(super) fn argmax(&self, rows: usize, logits: u64) -> Result<(), CudaEngineError> {
        let vocab = self.config.vocab_size;
        let nb = vocab.div_ceil(256 * 8).clamp(1, ARGMAX_MAX_BLOCKS) as u32;
        self.run(
            &self.k_argmax,
            (rows as u32, nb, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(self.ptr(&self.s.next)),
                Arg::Ptr(logits),
                Arg::I64(vocab as i64),
                Arg::Ptr(self.ptr(&self.s.argmax_part)),
                Arg::Ptr(self.ptr(&self.s.argmax_count)),
            ],
        )
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
        if self.uses_gemv(m, k, x, w) {
            // x in shared memory for the widest products, within the default 48 KiB.
            let x_bytes = m * k * 2;
            let (f, smem) = if n >= GEMV_SHARED_X_N && x_bytes <= 48 * 1024 {
                (&self.k_gemv_wide_xs, x_bytes as u32)
            } else if n >= GEMV_WIDE_N {
                (&self.k_gemv_wide, 0)
            } else {
                (&self.k_gemv, 0)
            };
            return self.run_smem(
                f,
                (self.gemv_blocks(n), 1, 1),
                (256, 1, 1),
                smem,
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

    /// Runs the prepared decode step: a graph replay, or eagerly (then captured). While
    /// the slot table records calls, every step runs eagerly and nothing is captured.
    fn run_decode(&mut self, bucket: usize) -> Result<(), CudaEngineError> {
        let recording = self.slots.is_recording();
        if let Some(g) = self.graphs.get(&bucket).filter(|_| !recording) {
            g.graph
                .launch()
                .map_err(|e| driver_err("cuGraphLaunch", e))?;
            self.slots.add_counts(&g.counts);
            return Ok(());
        }
        self.forward(Pass::Decode { bucket })?;
        if self.opts.use_graphs && !recording && !self.graph_failures.contains_key(&bucket) {
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
            "eng_gemv_qkv",
            "eng_gemv_wide",
            "eng_gemv_wide_xs",
        ] {
            assert!(ENGINE_KERNELS.contains(&format!(" {name}(")), "{name}");
        }
    }
}
