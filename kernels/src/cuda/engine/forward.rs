//! One forward pass: prefill or decode, layer by layer.

use super::*;

impl CudaEngine {
    /// One pass over every layer for the rows whose inputs [`Self::upload_step`] wrote;
    /// ends with the logits and the greedy tokens (`s.next`). Only queues work.
    pub(super) fn forward(&self, pass: Pass) -> Result<(), CudaEngineError> {
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
            &self.kernels.embed,
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
            let (q, k) = (p(&s.q), p(&s.k));
            let (q_rot, k_rot, attn) = (p(&s.q_rot), p(&s.k_rot), p(&s.attn));
            self.qkv_projection(n, normed, p(&lw.qkv), vc)?;
            slots.launch(
                st,
                SlotId::Rope,
                &[q_rot, k_rot],
                &[q, k, positions],
                &[c.rope_theta],
                &[ni, q_heads as i64, kv_heads as i64, hd as i64],
            )?;
            self.run(
                &self.kernels.k_write,
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
        self.argmax(rows, logits)
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
