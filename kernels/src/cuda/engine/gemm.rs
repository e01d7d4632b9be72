//! Matrix products: every projection is a `linear.matmul` slot call, served by the slot
//! table's kernels inside their `when` domains (the stock GEMV takes single rows) and by
//! the slot's validator-owned builtin, cuBLAS (bf16 in and out, f32 accumulation), outside
//! them; plus the q|k|v projection, whose decode row is the engine's own fused GEMV while
//! the stock kernel would serve it.

use super::*;

/// Row counts up to which the q|k|v projection is the engine's fused GEMV (which writes
/// q, k and the v cache itself; the slot's stock GEMV takes the same single row for every
/// other projection). Measured on an H200 (llama8b-8l decode, 2026-12-02): at 1 row the
/// GEMV step took 1.492 ms against cuBLAS's 1.524 ms; at 8 rows 3.824 ms against 1.890 ms.
pub(super) const GEMV_MAX_ROWS: usize = 1;

/// Heads a block of `eng_rope_cache_rows` takes (`ROPE_HEADS` in the kernel).
const ROPE_ROWS_HEADS: usize = 8;

/// Largest head dim `eng_rope_cache_rows` takes (twice its `ROPE_TABLE`).
pub(super) const ROPE_ROWS_MAX_HEAD_DIM: usize = 256;

pub(super) fn blas_err(call: &str, e: blas::CublasError) -> CudaEngineError {
    CudaEngineError::Blas(format!("{call}: {:?}", e.0))
}

/// A cuBLAS handle on `stream` that uses `workspace` (so nothing is allocated during a
/// graph capture).
pub(super) fn blas_handle(
    stream: &Arc<cudarc::driver::CudaStream>,
    workspace: &CudaSlice<u8>,
) -> Result<CudaBlas, CudaEngineError> {
    if !loader::cublas_present() {
        return Err(CudaEngineError::Blas(
            "libcublas.so.13 not found (loader path, $CUDA_HOME, /usr/local/cuda*, PyTorch's nvidia/cu13)".into(),
        ));
    }
    let blas = CudaBlas::new(stream.clone()).map_err(|e| blas_err("cublasCreate", e))?;
    let ws = workspace.device_ptr(stream).0;
    // SAFETY: the workspace outlives the handle (both owned by the engine, which drops
    // the handle first) and is only used by work queued on the engine's stream.
    unsafe { blas_sys::cublasSetWorkspace_v2(*blas.handle(), ws as *mut c_void, workspace.len()) }
        .result()
        .map_err(|e| blas_err("cublasSetWorkspace", e))?;
    Ok(blas)
}

impl CudaEngine {
    /// Whether the q|k|v projection of `m` rows of `x` by `w` (inner size `k`) can be the
    /// fused GEMV (16-byte vectors).
    fn uses_gemv(&self, m: usize, k: usize, x: u64, w: u64) -> bool {
        self.opts.small_gemv
            && m <= GEMV_MAX_ROWS
            && k.is_multiple_of(8)
            && x.is_multiple_of(16)
            && w.is_multiple_of(16)
    }

    /// Blocks of 8 warps (one output feature per warp, grid-stride) for `n` features.
    pub(super) fn gemv_blocks(&self, n: usize) -> u32 {
        let sms = self.dev.info().multiprocessors.max(1) as usize;
        n.div_ceil(8).min(sms * 8) as u32
    }

    /// Whether the q|k|v projection of `n` rows is one GEMV that writes q, k and the v
    /// cache rows itself (no split launch): the GEMV's conditions, and the stock
    /// `linear.matmul` kernel serving the product (a proposal whose domain takes it gets the
    /// call, then the split kernel runs).
    pub(super) fn qkv_fused(&self, n: usize, x: u64, w: u64) -> bool {
        let c = &self.config;
        let shape = [
            n as i64,
            (c.q_dim() + 2 * c.kv_dim()) as i64,
            c.hidden_size as i64,
        ];
        self.uses_gemv(n, c.hidden_size, x, w)
            && self.slots.stock_serves(SlotId::LinearMatmul, &shape)
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
                &self.kernels.gemv_qkv,
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
        self.linear(qkv, x, w, n, q_dim + 2 * kv_dim, h)?;
        self.qkv_split(n, vc)
    }

    /// Whether `pass` applies RoPE and writes both cache rows in one engine kernel after
    /// the q|k|v product ([`CudaEngineOptions::fuse_qkv_rope`]; the Rope and KWrite steps
    /// then launch nothing, and no split kernel runs): a pass whose RoPE call the stock
    /// `position.rope` kernel serves, with an even head dim (at most
    /// [`ROPE_ROWS_MAX_HEAD_DIM`] when the pass has several rows). The product stays a
    /// `linear.matmul` call, served by whichever kernel's domain takes it (a proposal's
    /// too), unless [`CudaEngineOptions::qkv_pair_gemv`] asks for the engine's one-launch
    /// pair GEMV at one row.
    pub(super) fn rope_fused(&self, pass: Pass) -> bool {
        let c = &self.config;
        let n = pass.rows();
        let shape = [
            n as i64,
            c.num_attention_heads as i64,
            c.kv_heads() as i64,
            c.head_dim() as i64,
        ];
        self.opts.fuse_qkv_rope
            && c.head_dim().is_multiple_of(2)
            && (n == 1 || c.head_dim() <= ROPE_ROWS_MAX_HEAD_DIM)
            && self.slots.stock_serves(SlotId::Rope, &shape)
    }

    /// Whether layer `l`'s fused q|k|v step of `n` rows (see [`Self::rope_fused`]) is the
    /// engine's one-launch pair GEMV: asked for, one row, and the GEMV's conditions met.
    pub(super) fn qkv_pair(&self, n: usize, l: usize) -> bool {
        self.opts.qkv_pair_gemv
            && n == 1
            && self.qkv_fused(
                1,
                self.ptr(&self.s.normed),
                self.ptr(&self.weights.layers[l].qkv),
            )
    }

    /// Whether layer `l` of `pass` runs gate|up with SwiGLU as one engine GEMV
    /// ([`CudaEngineOptions::fuse_gate_up_silu`]; the SiluAndMul step then launches nothing): a
    /// one-row decode step, 16-byte vectors, the stock `linear.matmul` and
    /// `activation.silu_and_mul` kernels serving both calls, and no `mlp.gate_up_silu`
    /// kernel taking the seam.
    pub(super) fn swiglu_fused(&self, pass: Pass, l: usize) -> bool {
        let c = &self.config;
        let Pass::Decode { bucket: 1 } = pass else {
            return false;
        };
        let (h, inter) = (c.hidden_size as i64, c.intermediate_size as i64);
        self.opts.fuse_gate_up_silu
            && self.uses_gemv(
                1,
                c.hidden_size,
                self.ptr(&self.s.normed),
                self.ptr(&self.weights.layers[l].gate_up),
            )
            && !self.seam_serves(1)
            && self
                .slots
                .stock_serves(SlotId::LinearMatmul, &[1, 2 * inter, h])
            && self.slots.stock_serves(SlotId::SiluAndMul, &[1, inter])
    }

    /// The q|k|v projection of the `n` rows of `x` by layer `l`'s weights with RoPE and
    /// both cache writes (see [`Self::rope_fused`]): q rotated into `q_rot`, k rotated into
    /// the key cache rows, v into the value cache rows. The product is a `linear.matmul`
    /// call into the stacked buffer, then one small kernel does the rest
    /// (`eng_rope_cache_row` for one row, a thread a pair over the whole GPU;
    /// `eng_rope_cache_rows` for more, a block a row and 8 heads); or, with
    /// [`Self::qkv_pair`], one engine GEMV does it all.
    pub(super) fn qkv_rope_projection(
        &self,
        n: usize,
        l: usize,
        x: u64,
    ) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let (q_heads, kv_heads, hd) = (c.num_attention_heads, c.kv_heads(), c.head_dim());
        let out = (q_heads + 2 * kv_heads) * hd;
        let (q_rot, kc, vc) = (
            self.ptr(&self.s.q_rot),
            self.ptr(&self.k_cache[l]),
            self.ptr(&self.v_cache[l]),
        );
        let (rows, positions) = (self.ptr(&self.s.cache_rows), self.ptr(&self.s.positions));
        let w = self.ptr(&self.weights.layers[l].qkv);
        let (qh, kvh, d) = (q_heads as i64, kv_heads as i64, hd as i64);
        if self.qkv_pair(n, l) {
            return self.run(
                &self.kernels.gemv_qkv_rope,
                (self.gemv_blocks(out), 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(q_rot),
                    Arg::Ptr(kc),
                    Arg::Ptr(vc),
                    Arg::Ptr(rows),
                    Arg::Ptr(positions),
                    Arg::Ptr(x),
                    Arg::Ptr(w),
                    Arg::I64(qh),
                    Arg::I64(kvh),
                    Arg::I64(d),
                    Arg::I64(c.hidden_size as i64),
                    Arg::F32(c.rope_theta),
                ],
            );
        }
        let qkv = self.ptr(&self.s.qkv);
        self.linear(qkv, x, w, n, out, c.hidden_size)?;
        let (kernel, grid, block) = if n == 1 {
            (
                &self.kernels.rope_cache_row,
                ((out / 2).div_ceil(256) as u32, 1, 1),
                (256, 1, 1),
            )
        } else {
            let heads = q_heads + 2 * kv_heads;
            (
                &self.kernels.rope_cache_rows,
                (n as u32, heads.div_ceil(ROPE_ROWS_HEADS) as u32, 1),
                (64, 1, 1),
            )
        };
        self.run(
            kernel,
            grid,
            block,
            &[
                Arg::Ptr(q_rot),
                Arg::Ptr(kc),
                Arg::Ptr(vc),
                Arg::Ptr(rows),
                Arg::Ptr(positions),
                Arg::Ptr(qkv),
                Arg::I64(qh),
                Arg::I64(kvh),
                Arg::I64(d),
                Arg::F32(c.rope_theta),
            ],
        )
    }

    /// gate|up and SwiGLU of one decode row of `x` by layer `l`'s weights into `act` (see
    /// [`Self::swiglu_fused`]).
    pub(super) fn gate_up_silu_gemv(&self, l: usize, x: u64) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let inter = c.intermediate_size;
        self.run(
            &self.kernels.gemv_gate_up_silu,
            (self.gemv_blocks(2 * inter), 1, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(self.ptr(&self.s.act)),
                Arg::Ptr(x),
                Arg::Ptr(self.ptr(&self.weights.layers[l].gate_up)),
                Arg::I64(inter as i64),
                Arg::I64(c.hidden_size as i64),
            ],
        )
    }

    /// The split kernel: `qkv` rows into q, k and the v cache.
    pub(super) fn qkv_split(&self, n: usize, vc: u64) -> Result<(), CudaEngineError> {
        let c = &self.config;
        let s = &self.s;
        self.run(
            &self.kernels.qkv_split,
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

    /// `y[m, n] = x[m, k] · w[n, k]ᵀ`, bf16 row-major, as a `linear.matmul` call: the
    /// slot table's kernel whose domain takes `[m, n, k]`, else the builtin (cuBLAS).
    /// Without `small_gemv` (a benchmark's A/B switch; the validator never clears it)
    /// every product goes to the builtin.
    pub(super) fn linear(
        &self,
        y: u64,
        x: u64,
        w: u64,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<(), CudaEngineError> {
        let shape = [m as i64, n as i64, k as i64];
        if self.opts.small_gemv && self.slots.serves(SlotId::LinearMatmul, &shape) {
            let st = self.dev.stream();
            return Ok(self
                .slots
                .launch(st, SlotId::LinearMatmul, &[y], &[x, w], &[], &shape)?);
        }
        self.cublas_matmul(y, x, w, m, n, k)
    }

    /// The builtin: `linear.matmul` by cuBLAS. cuBLAS is column-major: it computes
    /// `yᵀ = w · xᵀ` (`w` transposed as stored, `x` as is).
    fn cublas_matmul(
        &self,
        y: u64,
        x: u64,
        w: u64,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<(), CudaEngineError> {
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
}
