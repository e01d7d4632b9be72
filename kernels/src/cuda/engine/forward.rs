//! One forward pass, prefill or decode, as a sequence of steps: the embedding, ten steps
//! per layer, then the final norm, the LM head and the greedy argmax. [`CudaEngine::step`]
//! is the one place a step's launch is written; the per-operation breakdown
//! (`breakdown.rs`) times the same steps.

use super::*;

/// One launch (or, for the q|k|v projection, the launches) of a forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Embed,
    /// `norm.rmsnorm` of the embeddings in layer 0; later layers add the previous MLP
    /// output to the residual first (`norm.fused_add_rmsnorm`).
    AttnNorm,
    /// q, k and the v cache rows: `linear.matmul` into the stacked buffer, then one engine
    /// kernel for RoPE and both cache rows (see `rope_fused`; Rope and KWrite then launch
    /// nothing), else the split kernel (or the fused GEMV for a decode row).
    QkvProj,
    Rope,
    KWrite,
    Attention,
    OProj,
    /// The attention output added to the residual, then normalized.
    MlpNorm,
    GateUpProj,
    SiluAndMul,
    DownProj,
    /// The last MLP output added to the residual, then normalized.
    FinalNorm,
    LmHead,
    Argmax,
}

/// The steps of one layer, in order.
pub(super) const LAYER_STEPS: [Step; 10] = [
    Step::AttnNorm,
    Step::QkvProj,
    Step::Rope,
    Step::KWrite,
    Step::Attention,
    Step::OProj,
    Step::MlpNorm,
    Step::GateUpProj,
    Step::SiluAndMul,
    Step::DownProj,
];

impl CudaEngine {
    /// One pass over every layer for the rows whose inputs [`Self::upload_step`] wrote;
    /// ends with the logits and the greedy tokens (`s.next`). Only queues work.
    pub(super) fn forward(&self, pass: Pass) -> Result<(), CudaEngineError> {
        let mut residual = self.ptr(&self.s.hidden);
        self.step(Step::Embed, pass, 0, &mut residual)?;
        for l in 0..self.weights.layers.len() {
            for step in LAYER_STEPS {
                self.step(step, pass, l, &mut residual)?;
            }
        }
        for step in [Step::FinalNorm, Step::LmHead, Step::Argmax] {
            self.step(step, pass, 0, &mut residual)?;
        }
        Ok(())
    }

    /// Queues one step of `pass` on layer `l`'s weights and caches (`l` is ignored by the
    /// steps outside the layers). `residual` is the buffer holding the residual stream;
    /// the norms that add to it write the sum to the other of `res_a` and `res_b` and
    /// move `residual` there (the embeddings in `hidden` are layer 0's residual).
    pub(super) fn step(
        &self,
        step: Step,
        pass: Pass,
        l: usize,
        residual: &mut u64,
    ) -> Result<(), CudaEngineError> {
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
        let n = pass.rows();
        let p = |b: &Buf| self.ptr(b);
        let (ni, hi) = (n as i64, h as i64);
        let (kc, vc) = (p(&self.k_cache[l]), p(&self.v_cache[l]));
        let (hidden, normed, block_out) = (p(&s.hidden), p(&s.normed), p(&s.block_out));
        let (q, k, q_rot, k_rot, attn) = (p(&s.q), p(&s.k), p(&s.q_rot), p(&s.k_rot), p(&s.attn));
        let (gate_up, act, logits) = (p(&s.gate_up), p(&s.act), p(&s.logits));
        // Adds `block_out` to the residual stream and normalizes the sum with `norm_w`.
        let add_norm = |residual: &mut u64, norm_w: u64| -> Result<(), CudaEngineError> {
            let (res_a, res_b) = (p(&s.res_a), p(&s.res_b));
            let next = if *residual == res_a { res_b } else { res_a };
            slots.launch(
                st,
                SlotId::FusedAddRmsNorm,
                &[normed, next],
                &[block_out, *residual, norm_w],
                &[eps],
                &[ni, hi],
            )?;
            *residual = next;
            Ok(())
        };
        match step {
            Step::Embed => self.run(
                &self.kernels.embed,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(hidden),
                    Arg::Ptr(p(&w.embed)),
                    Arg::Ptr(self.ptr(&s.tokens)),
                    Arg::I64(hi),
                ],
            ),
            Step::AttnNorm if l == 0 => Ok(slots.launch(
                st,
                SlotId::RmsNorm,
                &[normed],
                &[hidden, p(&lw.attn_norm)],
                &[eps],
                &[ni, hi],
            )?),
            Step::AttnNorm => add_norm(residual, p(&lw.attn_norm)),
            Step::QkvProj if self.rope_fused(pass) => self.qkv_rope_projection(n, l, normed),
            Step::QkvProj => self.qkv_projection(n, normed, p(&lw.qkv), vc),
            // Done with the q|k|v projection.
            Step::Rope | Step::KWrite if self.rope_fused(pass) => Ok(()),
            Step::Rope => Ok(slots.launch(
                st,
                SlotId::Rope,
                &[q_rot, k_rot],
                &[q, k, self.ptr(&s.positions)],
                &[c.rope_theta],
                &[ni, q_heads as i64, kv_heads as i64, hd as i64],
            )?),
            Step::KWrite => self.run(
                &self.kernels.k_write,
                (n as u32, 1, 1),
                (256, 1, 1),
                &[
                    Arg::Ptr(kc),
                    Arg::Ptr(k_rot),
                    Arg::Ptr(self.ptr(&s.cache_rows)),
                    Arg::I64(kv_dim as i64),
                ],
            ),
            Step::Attention => {
                let scale = 1.0 / (hd as f32).sqrt();
                match pass {
                    Pass::Decode { .. } => Ok(slots.launch(
                        st,
                        SlotId::AttentionDecode,
                        &[attn],
                        &[q_rot, kc, vc, self.ptr(&s.seq_lens)],
                        &[scale],
                        &[
                            ni,
                            q_heads as i64,
                            kv_heads as i64,
                            hd as i64,
                            max_seq as i64,
                        ],
                    )?),
                    Pass::Prefill { seq, start, n } => {
                        let base = (seq * max_seq * kv_dim * 2) as u64;
                        let (kc, vc) = (kc + base, vc + base);
                        let positions = self.ptr(&s.positions);
                        self.prefill_attention(kc, vc, start + n, n, positions, q_rot, attn, scale)
                    }
                }
            }
            Step::OProj => self.linear(block_out, attn, p(&lw.o), n, h, q_dim),
            Step::MlpNorm => add_norm(residual, p(&lw.mlp_norm)),
            // The MLP seam: one `mlp.gate_up_silu` call where a kernel's domain takes it
            // (then SiluAndMul has nothing left to do), else its members.
            Step::GateUpProj if self.seam_serves(n) => Ok(slots.launch(
                st,
                SlotId::GateUpSilu,
                &[act],
                &[normed, p(&lw.gate_up)],
                &[],
                &self.gate_up_silu_shape(n),
            )?),
            Step::GateUpProj if self.swiglu_fused(pass, l) => self.gate_up_silu_gemv(l, normed),
            Step::GateUpProj => self.linear(gate_up, normed, p(&lw.gate_up), n, 2 * inter, h),
            Step::SiluAndMul if self.seam_serves(n) || self.swiglu_fused(pass, l) => Ok(()),
            Step::SiluAndMul => Ok(slots.launch(
                st,
                SlotId::SiluAndMul,
                &[act],
                &[gate_up],
                &[],
                &[ni, inter as i64],
            )?),
            Step::DownProj => self.linear(block_out, act, p(&lw.down), n, h, inter),
            Step::FinalNorm => add_norm(residual, p(&w.norm)),
            // A prefill's logits are its last row's.
            Step::LmHead => match pass {
                Pass::Decode { .. } => self.linear(logits, normed, p(&w.lm_head), n, vocab, h),
                Pass::Prefill { .. } => {
                    let last = normed + ((n - 1) * h * 2) as u64;
                    self.linear(logits, last, p(&w.lm_head), 1, vocab, h)
                }
            },
            Step::Argmax => match pass {
                Pass::Decode { .. } => self.argmax(n, logits),
                Pass::Prefill { .. } => self.argmax(1, logits),
            },
        }
    }

    /// Causal attention of `n` prompt rows (positions from `positions`) over the first
    /// `klen` cache rows of one sequence (`kc`, `vc`: its `[max_seq, kv_heads, head_dim]`
    /// caches) into `attn [n, q_heads, head_dim]`: the `attention.prefill` slot (stock: the
    /// flash kernel) where its stack takes the shape, else the builtin below.
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
        let shape = self.prefill_attention_shape(n, klen);
        if self.prefill_slot_serves(&shape) {
            let st = self.dev.stream();
            return Ok(self.slots.launch(
                st,
                SlotId::AttentionPrefill,
                &[attn],
                &[q_rot, kc, vc, positions],
                &[scale],
                &shape,
            )?);
        }
        self.prefill_attention_gemm(kc, vc, klen, n, positions, q_rot, attn, scale)
    }

    /// The `mlp.gate_up_silu` shape of `n` rows.
    pub(super) fn gate_up_silu_shape(&self, n: usize) -> [i64; 3] {
        let c = &self.config;
        [n as i64, c.intermediate_size as i64, c.hidden_size as i64]
    }

    /// Whether a kernel takes the MLP seam of `n` rows (else its member slots serve it).
    pub(super) fn seam_serves(&self, n: usize) -> bool {
        self.slots
            .serves(SlotId::GateUpSilu, &self.gate_up_silu_shape(n))
    }

    /// The `attention.prefill` shape of `n` prompt rows over `klen` cache rows.
    pub(super) fn prefill_attention_shape(&self, n: usize, klen: usize) -> [i64; 5] {
        let c = &self.config;
        [
            n as i64,
            c.num_attention_heads as i64,
            c.kv_heads() as i64,
            c.head_dim() as i64,
            klen as i64,
        ]
    }

    /// Who serves a product of `m` rows, `out` features and `k` inputs: the entry of the
    /// `linear.matmul` kernel whose domain takes it, or `cuBLAS` (the builtin).
    pub(super) fn matmul_impl(&self, m: usize, out: usize, k: usize) -> String {
        let shape = [m as i64, out as i64, k as i64];
        if self.opts.small_gemv && self.slots.serves(SlotId::LinearMatmul, &shape) {
            let top = self.slots.kernel(SlotId::LinearMatmul);
            top.map_or("cuBLAS", |k| k.entry()).to_string()
        } else {
            "cuBLAS".to_string()
        }
    }

    /// Whether a prefill's attention at `shape` goes to the `attention.prefill` slot table
    /// ([`CudaEngineOptions::flash_prefill`]), not to the builtin.
    pub(super) fn prefill_slot_serves(&self, shape: &[i64]) -> bool {
        self.opts.flash_prefill && self.slots.serves(SlotId::AttentionPrefill, shape)
    }

    /// The builtin of `attention.prefill`: scores by strided-batched GEMM (f32) into the
    /// `[heads, n, klen]` scratch, the causal softmax kernel, then probabilities · v (bf16).
    #[allow(clippy::too_many_arguments)]
    fn prefill_attention_gemm(
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
            &self.kernels.softmax,
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
