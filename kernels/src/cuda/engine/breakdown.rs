//! Per-operation timing of one decode step (`cacheon-engine-bench --breakdown`).

use super::*;

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
        let fused = self.qkv_fused(
            n,
            self.ptr(&self.s.normed),
            self.ptr(&self.weights.layers[0].qkv),
        );
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
            if fused {
                (
                    "qkv_proj",
                    format!("gemv+split {n}x{h} · {qkv_out}x{h}"),
                    StepOp::QkvProj,
                    layers,
                    2 * (qkv_out * h + n * h + n * qkv_out) as u64 + 4 * nb,
                )
            } else {
                gemm("qkv_proj", StepOp::QkvProj, qkv_out, h, layers)
            },
            (
                "qkv_split+v_write",
                if fused {
                    "fused into qkv_proj".to_string()
                } else {
                    format!("{n}x{qkv_out}")
                },
                StepOp::QkvSplit,
                if fused { 0 } else { layers },
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
            if launches == 0 {
                continue;
            }
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
                &self.kernels.embed,
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
            StepOp::QkvProj => {
                if self.qkv_fused(n, normed, p(&lw.qkv)) {
                    self.qkv_projection(n, normed, p(&lw.qkv), vc)
                } else {
                    self.gemm(qkv, normed, p(&lw.qkv), n, q_dim + 2 * kv_dim, h)
                }
            }
            StepOp::QkvSplit => self.qkv_split(n, vc),
            StepOp::Rope => Ok(slots.launch(
                st,
                SlotId::Rope,
                &[q_rot, k_rot],
                &[q, k, positions],
                &[c.rope_theta],
                &[ni, q_heads as i64, kv_heads as i64, hd as i64],
            )?),
            StepOp::KWrite => self.run(
                &self.kernels.k_write,
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
            StepOp::Argmax => self.argmax(n, logits),
        }
    }
}
