//! Per-operation timing of one decode step or one prefill pass (`cacheon-cuda-engine-bench
//! --breakdown`): each distinct step of [`CudaEngine::forward`], launched by the same
//! [`CudaEngine::step`].

use super::*;

use super::forward::Step;

/// An operation to time: name, detail, step, launches per pass, bytes per launch.
type Op = (&'static str, String, Step, usize, u64);

/// `activation.silu_and_mul` of `n` rows, once a layer.
fn silu_op(n: usize, inter: usize, layers: usize) -> Op {
    let bytes = 2 * 3 * (n * inter) as u64;
    (
        "silu_and_mul",
        format!("{n}x{inter}"),
        Step::SiluAndMul,
        layers,
        bytes,
    )
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
        let pass = Pass::Decode { bucket: n };
        let fused = self.qkv_fused(
            n,
            self.ptr(&self.s.normed),
            self.ptr(&self.weights.layers[0].qkv),
        );
        let rope_fused = self.rope_fused(pass);
        let pair = rope_fused && self.qkv_pair(n, 0);
        let nb = n as u64;
        let kv_read: u64 = self.lens[..n]
            .iter()
            .map(|&l| ((l + 1) * kv_dim * 2 * 2) as u64)
            .sum();
        let gemm_impl = |out: usize, k: usize| self.matmul_impl(n, out, k);
        let gemm = |name: &'static str, op: Step, out: usize, k: usize, launches: usize| {
            let bytes = 2 * (out * k + n * k + n * out) as u64;
            (
                name,
                format!("{} {n}x{k} · {out}x{k}", gemm_impl(out, k)),
                op,
                launches,
                bytes,
            )
        };
        let mut ops = self.norm_ops(n);
        ops.extend([(
            if rope_fused {
                "qkv_proj+rope+kv_write"
            } else {
                "qkv_proj+v_write"
            },
            if pair {
                format!("fused pair gemv {n}x{h} · {qkv_out}x{h}, rope, both cache rows")
            } else if rope_fused {
                format!(
                    "{} {n}x{h} · {qkv_out}x{h} + rope, both cache rows",
                    gemm_impl(qkv_out, h)
                )
            } else if fused {
                format!("fused gemv {n}x{h} · {qkv_out}x{h}")
            } else {
                format!("{} + split", gemm_impl(qkv_out, h))
            },
            Step::QkvProj,
            layers,
            2 * (qkv_out * h + n * h + n * qkv_out) as u64
                + if pair || (fused && !rope_fused) {
                    0
                } else {
                    2 * 2 * (n * qkv_out) as u64
                }
                + 4 * nb,
        )]);
        if !rope_fused {
            ops.extend(self.rope_ops(n));
        }
        ops.extend([
            (
                "attention.decode",
                format!(
                    "{n}x{} heads, kv len {:?}",
                    c.num_attention_heads,
                    self.lens[..n].iter().map(|l| l + 1).collect::<Vec<_>>()
                ),
                Step::Attention,
                layers,
                2 * 2 * (n * q_dim) as u64 + kv_read + 4 * nb,
            ),
            gemm("o_proj", Step::OProj, h, q_dim, layers),
        ]);
        let mlp = if self.swiglu_fused(pass, 0) {
            vec![(
                "gate_up_silu",
                format!("fused pair gemv {n}x{h} · {}x{h}, swiglu", 2 * inter),
                Step::GateUpProj,
                layers,
                2 * (2 * inter * h + n * h + n * inter) as u64,
            )]
        } else {
            self.mlp_seam_ops(n).unwrap_or_else(|| {
                vec![
                    gemm("gate_up_proj", Step::GateUpProj, 2 * inter, h, layers),
                    silu_op(n, inter, layers),
                ]
            })
        };
        ops.extend(mlp);
        ops.extend([
            gemm("down_proj", Step::DownProj, h, inter, layers),
            gemm("lm_head", Step::LmHead, vocab, h, 1),
            (
                "argmax",
                format!("{n}x{vocab}"),
                Step::Argmax,
                1,
                2 * (n * vocab) as u64 + 4 * nb,
            ),
        ]);
        let out = self.time_ops(ops, pass, warmup, reps, true)?;
        self.slots.set_counts(&counts);
        Ok(out)
    }

    /// Times every distinct operation of one prefill pass of `n` prompt tokens (sequence
    /// 0, from position 0; `n` at most `max_prefill`) the same way as
    /// [`Self::decode_breakdown`], eagerly only (a prefill is not graph-replayed). Writes
    /// sequence 0's first `n` cache rows; lengths and slot dispatch counts stay as they were.
    pub fn prefill_breakdown(
        &mut self,
        n: usize,
        warmup: usize,
        reps: usize,
    ) -> Result<Vec<OpTime>, CudaEngineError> {
        if n == 0 || n > self.opts.max_prefill || n > self.opts.max_seq {
            return Err(CudaEngineError::Kernels(format!(
                "a prefill breakdown takes 1..={} tokens, not {n}",
                self.opts.max_prefill.min(self.opts.max_seq)
            )));
        }
        let c = self.config.clone();
        let toks: Vec<i32> = (0..n as i32)
            .map(|t| (t * 7919 + 1) % c.vocab_size as i32)
            .collect();
        let pos: Vec<i32> = (0..n as i32).collect();
        self.upload_step(&toks, &pos, &pos, &[])?;
        let shape = self.prefill_attention_shape(n, n);
        let slot_attention = self.prefill_slot_serves(&shape);
        if !slot_attention {
            self.ensure_prefill_scratch(n, n)?;
        }
        self.dev.synchronize()?;
        let counts = self.slots.dispatch_counts();
        let layers = c.num_hidden_layers;
        let (h, inter, vocab) = (c.hidden_size, c.intermediate_size, c.vocab_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let qkv_out = q_dim + 2 * kv_dim;
        let nb = n as u64;
        let gemm_impl = |m: usize, out: usize, k: usize| self.matmul_impl(m, out, k);
        let gemm = |name: &'static str, op: Step, m: usize, out: usize, k: usize, launches| {
            (
                name,
                format!("{} {m}x{k} · {out}x{k}", gemm_impl(m, out, k)),
                op,
                launches,
                2 * (out * k + m * k + m * out) as u64,
            )
        };
        let attention = if slot_attention {
            let top = self.slots.kernel(SlotId::AttentionPrefill);
            top.map_or("", |k| k.entry()).to_string()
        } else {
            "builtin (cuBLAS + softmax)".to_string()
        };
        let pass = Pass::Prefill {
            seq: 0,
            start: 0,
            n,
        };
        let rope_fused = self.rope_fused(pass);
        let mut ops = self.norm_ops(n);
        ops.extend([{
            let (_, detail, op, l, b) = gemm("qkv_proj", Step::QkvProj, n, qkv_out, h, layers);
            let (name, detail) = if rope_fused {
                (
                    "qkv_proj+rope+kv_write",
                    format!("{detail} + rope, both cache rows"),
                )
            } else {
                ("qkv_proj", format!("{detail} + split"))
            };
            (name, detail, op, l, b + 2 * 2 * (n * qkv_out) as u64)
        }]);
        if !rope_fused {
            ops.extend(self.rope_ops(n));
        }
        ops.extend([
            (
                "attention.prefill",
                format!(
                    "{attention} {n} rows x {} heads, causal over {n}",
                    c.num_attention_heads
                ),
                Step::Attention,
                layers,
                2 * 2 * (n * q_dim) as u64 + 2 * 2 * (n * kv_dim) as u64 + 4 * nb,
            ),
            gemm("o_proj", Step::OProj, n, h, q_dim, layers),
        ]);
        ops.extend(self.mlp_seam_ops(n).unwrap_or_else(|| {
            vec![
                gemm("gate_up_proj", Step::GateUpProj, n, 2 * inter, h, layers),
                silu_op(n, inter, layers),
            ]
        }));
        ops.extend([
            gemm("down_proj", Step::DownProj, n, h, inter, layers),
            gemm("lm_head", Step::LmHead, 1, vocab, h, 1),
            (
                "argmax",
                format!("1x{vocab}"),
                Step::Argmax,
                1,
                2 * vocab as u64 + 4,
            ),
        ]);
        let out = self.time_ops(ops, pass, warmup, reps.max(1), false)?;
        self.slots.set_counts(&counts);
        Ok(out)
    }

    /// The MLP seam of `n` rows as one operation, where a `mlp.gate_up_silu` kernel takes
    /// it (`None`: its members, timed as two).
    fn mlp_seam_ops(&self, n: usize) -> Option<Vec<Op>> {
        if !self.seam_serves(n) {
            return None;
        }
        let c = &self.config;
        let (h, inter) = (c.hidden_size, c.intermediate_size);
        let entry = self
            .slots
            .kernel(SlotId::GateUpSilu)
            .map_or("", |k| k.entry());
        Some(vec![(
            "gate_up_silu",
            format!("{entry} {n}x{h} · {}x{h}", 2 * inter),
            Step::GateUpProj,
            c.num_hidden_layers,
            2 * (2 * inter * h + n * h + n * inter) as u64,
        )])
    }

    /// The embedding and the norms of a pass of `n` rows: the same in decode and prefill.
    fn norm_ops(&self, n: usize) -> Vec<Op> {
        let (h, layers) = (self.config.hidden_size, self.config.num_hidden_layers);
        let (nb, hb) = (n as u64, h as u64);
        vec![
            (
                "embedding",
                format!("{n} rows of {h}"),
                Step::Embed,
                1,
                2 * 2 * nb * hb + 4 * nb,
            ),
            (
                "rmsnorm",
                format!("{n}x{h} (layer 0)"),
                Step::AttnNorm,
                1,
                2 * (2 * nb * hb + hb),
            ),
            (
                "fused_add_rmsnorm",
                format!("{n}x{h} ({} attn + {layers} mlp + final)", layers - 1),
                Step::MlpNorm,
                2 * layers,
                2 * (4 * nb * hb + hb),
            ),
        ]
    }

    /// RoPE and the key-cache write of a pass of `n` rows.
    fn rope_ops(&self, n: usize) -> [Op; 2] {
        let c = &self.config;
        let (q_dim, kv_dim, layers, nb) = (c.q_dim(), c.kv_dim(), c.num_hidden_layers, n as u64);
        [
            (
                "rope",
                format!("{n}x({q_dim}+{kv_dim})"),
                Step::Rope,
                layers,
                2 * 2 * (n * (q_dim + kv_dim)) as u64 + 4 * nb,
            ),
            (
                "k_write",
                format!("{n}x{kv_dim}"),
                Step::KWrite,
                layers,
                2 * 2 * (n * kv_dim) as u64 + 4 * nb,
            ),
        ]
    }

    /// Times each of `ops` (name, detail, step, launches per pass, bytes per launch) of
    /// `pass`: `reps` launches after `warmup`, eagerly between two events, and with
    /// `graphs` as a captured graph of `reps` launches too.
    fn time_ops(
        &mut self,
        ops: Vec<Op>,
        pass: Pass,
        warmup: usize,
        reps: usize,
        graphs: bool,
    ) -> Result<Vec<OpTime>, CudaEngineError> {
        let layers = self.config.num_hidden_layers;
        let mut out = Vec::with_capacity(ops.len());
        for (name, detail, op, launches, bytes) in ops {
            if launches == 0 {
                continue;
            }
            // Layer 0's attention norm is the one `norm.rmsnorm`; the others cycle layers.
            let layer = move |i: usize| if op == Step::AttnNorm { 0 } else { i % layers };
            // Eager.
            for i in 0..warmup {
                self.launch_step(op, pass, layer(i))?;
            }
            self.dev.synchronize()?;
            let (start, end) = self.events()?;
            start
                .record(self.dev.stream())
                .map_err(|e| driver_err("cuEventRecord", e))?;
            for i in 0..reps {
                self.launch_step(op, pass, layer(i))?;
            }
            end.record(self.dev.stream())
                .map_err(|e| driver_err("cuEventRecord", e))?;
            self.dev.synchronize()?;
            let eager_ms = start
                .elapsed_ms(&end)
                .map_err(|e| driver_err("cuEventElapsedTime", e))?
                as f64;
            // Graph of `reps` launches.
            let captured = if graphs {
                Some(self.capture_step_op(op, pass, reps, layer))
            } else {
                None
            };
            let graph_us = match captured {
                Some(Ok(g)) => {
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
                _ => None,
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
        Ok(out)
    }

    /// Captures `reps` launches of `op` (layer `layer(i)` for the i-th) into a graph.
    fn capture_step_op(
        &self,
        op: Step,
        pass: Pass,
        reps: usize,
        layer: impl Fn(usize) -> usize,
    ) -> Result<CudaGraph, CudaEngineError> {
        let stream = self.dev.stream().clone();
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
        let mut body = Ok(());
        for i in 0..reps {
            body = self.launch_step(op, pass, layer(i));
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

    /// One launch of `op` of `pass` on layer `l`'s weights and caches, as
    /// [`Self::forward`] launches it (the residual ping-pong fixed: `res_a` in, `res_b` out).
    fn launch_step(&self, op: Step, pass: Pass, l: usize) -> Result<(), CudaEngineError> {
        let mut residual = self.ptr(&self.s.res_a);
        self.step(op, pass, l, &mut residual)
    }
}
