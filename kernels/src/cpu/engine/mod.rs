//! The engine on CPU: the Llama-family decoder of [`crate::model`] in f32. Reads top to bottom: embed, then per layer
//! norm → q/k/v → RoPE → KV cache → attention → o → norm (+ residual) → gate/up → SwiGLU
//! → down, then the final norm and the LM head. gate/up → SwiGLU is a fused seam
//! (`mlp.gate_up_silu`): one call where an installed kernel takes it, else its two members. Every step but the embedding lookup and
//! the KV cache write is a slot call through the [`SlotTable`], the projections included
//! (`linear.matmul`; gate and up as one product over their stacked weights).
//!
//! A mixture-of-experts layer (`ModelConfig::moe`) replaces the MLP with the router's
//! scores (`linear.matmul`), the engine's own top-k routing ([`crate::model::moe::route`])
//! and one `moe.fused_experts` call over the experts the engine holds.
//!
//! Residual stream: the first layer's attention norm is `norm.rmsnorm` on the embeddings;
//! every later norm in a layer is `norm.fused_add_rmsnorm`, which adds the previous
//! sub-block's output to the residual and normalizes the sum in one call; the final norm
//! is `norm.rmsnorm` of the engine's own last add (that sum is needed nowhere else).
//!
//! Every slot output reaches the logits or the cache: a prefill that returns only its last
//! row's logits runs the last layer past its cache write for that row alone. (The one
//! exception: that layer's RoPE call rotates every row's query, of which only the last is
//! read — a few per cent of one call a prefill, far below any margin.)
//!
//! Tensor parallelism ([`Engine::new_rank`]): a rank runs its shard of the model
//! ([`crate::model::shard`]: a block of the heads and of the MLP features) with the same
//! code, and the outputs of the o and down projections, partial sums over its block, are
//! added up over the ranks' processes before the residual add: the rows meet in their
//! shared memory ([`crate::collective::ShmGroup`]) and a `collective.all_reduce` slot call
//! sums them.

pub mod slot_table;

pub use slot_table::{CallPhase, SlotObserver, SlotTable, SlotTableError};

use crate::collective::{GroupError, ShmGroup};
use crate::model::{shard, EngineError, Logits, ModelConfig, Sampler, Weights};
use crate::slots::call::in_place;
use crate::slots::call::Tensor::{F32, I32};
use crate::slots::SlotId;

/// Keys and values of every layer, laid out as the `attention.decode` ABI wants them:
/// `[batch, max_seq, kv_heads, head_dim]` per layer.
#[derive(Clone, Debug)]
struct KvCache {
    max_seq: usize,
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    /// Positions filled per sequence.
    lens: Vec<usize>,
}

/// How the rows of one forward pass attend.
#[derive(Clone, Copy)]
enum Attend {
    /// Consecutive tokens of one sequence: one `attention.decode` call per token, each
    /// seeing the positions up to its own (causal by `seq_lens`).
    Prefill { seq: usize },
    /// One token per sequence of the batch: a single `attention.decode` call.
    Decode,
}

/// A model, its slot table and its KV cache for `batch` sequences of up to `max_seq`.
#[derive(Debug)]
pub struct Engine {
    config: ModelConfig,
    weights: Weights,
    /// Per layer, `gate_proj` over `up_proj`: `[2 * intermediate, hidden]`, so one
    /// `linear.matmul` call writes each row's gate and up halves where `silu_and_mul`
    /// reads them; in a mixture-of-experts layer each held expert's so
    /// (`[experts, 2 * moe_intermediate, hidden]`, the `moe.fused_experts` layout).
    gate_up: Vec<Vec<f32>>,
    slots: SlotTable,
    cache: KvCache,
    /// The other ranks of a tensor-parallel engine (`None`: the whole model here).
    group: Option<ShmGroup>,
}

impl Engine {
    pub fn new(
        config: ModelConfig,
        weights: Weights,
        slots: SlotTable,
        batch: usize,
        max_seq: usize,
    ) -> Result<Engine, EngineError> {
        config.validate()?;
        weights
            .check_shapes(&config)
            .map_err(EngineError::Weights)?;
        if batch == 0 || max_seq == 0 || max_seq > config.max_position_embeddings {
            let msg = "batch and max_seq must be positive, max_seq at most max_position_embeddings";
            return Err(EngineError::Config(msg.into()));
        }
        let per_layer = batch * max_seq * config.kv_dim();
        let layers = config.num_hidden_layers;
        let cache = KvCache {
            max_seq,
            k: vec![vec![0f32; per_layer]; layers],
            v: vec![vec![0f32; per_layer]; layers],
            lens: vec![0; batch],
        };
        let gate_up = weights
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| match &config.moe {
                Some(m) if config.is_moe_layer(i) => {
                    let block = m.moe_intermediate_size * config.hidden_size;
                    l.gate_proj
                        .chunks(block)
                        .zip(l.up_proj.chunks(block))
                        .flat_map(|(g, u)| [g, u].concat())
                        .collect()
                }
                _ => [l.gate_proj.as_slice(), &l.up_proj].concat(),
            })
            .collect();
        Ok(Engine {
            config,
            weights,
            gate_up,
            slots,
            cache,
            group: None,
        })
    }

    /// Rank `group.rank()` of a tensor-parallel engine over `group.world()` processes:
    /// its shard of `weights` (the whole model's, of `config`), all-reducing the o and
    /// down projections' outputs with the other ranks. Every rank must make the same
    /// calls (prefill, decode) with the same tokens, in the same order.
    pub fn new_rank(
        config: ModelConfig,
        weights: Weights,
        slots: SlotTable,
        batch: usize,
        max_seq: usize,
        group: ShmGroup,
    ) -> Result<Engine, EngineError> {
        // An exchange holds a pass's rows: a prompt (up to max_seq) or a decode step.
        let rows = max_seq.max(batch);
        if group.capacity() < rows.saturating_mul(config.hidden_size) {
            return Err(EngineError::Config(format!(
                "the rank group's rows hold {} values; {rows} rows of {} need more",
                group.capacity(),
                config.hidden_size
            )));
        }
        let (local, part) = shard::shard(&config, &weights, group.rank(), group.world())?;
        drop(weights);
        let mut e = Engine::new(local, part, slots, batch, max_seq)?;
        e.group = Some(group);
        Ok(e)
    }

    /// `(rank, world)` of a tensor-parallel engine, `(0, 1)` for a whole one.
    pub fn rank(&self) -> (usize, usize) {
        self.group
            .as_ref()
            .map_or((0, 1), |g| (g.rank(), g.world()))
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    pub fn slots(&self) -> &SlotTable {
        &self.slots
    }

    /// For swapping kernels (`install`) or setting the observer.
    pub fn slots_mut(&mut self) -> &mut SlotTable {
        &mut self.slots
    }

    pub fn batch(&self) -> usize {
        self.cache.lens.len()
    }

    pub fn max_seq(&self) -> usize {
        self.cache.max_seq
    }

    /// Positions already in the cache for a sequence.
    pub fn seq_len(&self, seq: usize) -> usize {
        self.cache.lens[seq]
    }

    /// Empties every sequence (the cache contents are simply overwritten later).
    pub fn reset(&mut self) {
        self.cache.lens.fill(0);
    }

    /// Runs `tokens` of one sequence from its current length on, filling the cache.
    pub fn prefill(
        &mut self,
        seq: usize,
        tokens: &[u32],
        logits: Logits,
    ) -> Result<Vec<f32>, EngineError> {
        let batch = self.batch();
        if seq >= batch {
            return Err(EngineError::NoSuchSequence { seq, batch });
        }
        let start = self.cache.lens[seq];
        let rows: Vec<(usize, usize)> = (start..start + tokens.len()).map(|p| (seq, p)).collect();
        let last_only = logits == Logits::Last;
        let normed = self.forward(tokens, &rows, Attend::Prefill { seq }, last_only)?;
        self.cache.lens[seq] += tokens.len();
        let rows = if last_only { 1 } else { tokens.len() };
        Ok(self.lm_head(&normed, rows))
    }

    /// One decode step of the first `tokens.len()` sequences (at most the batch), in one
    /// pass: `tokens[b]` is appended to sequence `b`. Returns logits `[tokens.len(), vocab]`.
    pub fn decode(&mut self, tokens: &[u32]) -> Result<Vec<f32>, EngineError> {
        let (batch, n) = (self.batch(), tokens.len());
        if n == 0 || n > batch {
            return Err(EngineError::BatchMismatch { batch, got: n });
        }
        let rows: Vec<(usize, usize)> = self.cache.lens[..n]
            .iter()
            .enumerate()
            .map(|(b, &p)| (b, p))
            .collect();
        let normed = self.forward(tokens, &rows, Attend::Decode, false)?;
        self.cache.lens[..n].iter_mut().for_each(|l| *l += 1);
        Ok(self.lm_head(&normed, n))
    }

    /// Prefills `prompt` into sequence `seq`, then samples `max_new` tokens one at a time.
    pub fn generate(
        &mut self,
        seq: usize,
        prompt: &[u32],
        max_new: usize,
        sampler: &mut Sampler,
    ) -> Result<Vec<u32>, EngineError> {
        let mut out = Vec::with_capacity(max_new);
        if max_new == 0 {
            return Ok(out);
        }
        let mut logits = self.prefill(seq, prompt, Logits::Last)?;
        loop {
            let next = sampler.sample(&logits);
            out.push(next);
            if out.len() == max_new {
                return Ok(out);
            }
            logits = self.prefill(seq, &[next], Logits::Last)?;
        }
    }

    fn lm_head(&mut self, normed: &[f32], rows: usize) -> Vec<f32> {
        let (h, v) = (self.config.hidden_size, self.config.vocab_size);
        let mut logits = vec![0f32; rows * v];
        linear(
            &self.slots,
            &mut logits,
            &normed[..rows * h],
            &mut self.weights.lm_head,
            rows,
            v,
            h,
        );
        logits
    }

    /// One pass over every layer for `tokens`, where row `r` is sequence `rows[r].0` at
    /// position `rows[r].1`. Returns the final-normed hidden states `[tokens, hidden]`, or
    /// with `last_only` the last row's `[1, hidden]` (every row still fills the cache).
    fn forward(
        &mut self,
        tokens: &[u32],
        rows: &[(usize, usize)],
        attend: Attend,
        last_only: bool,
    ) -> Result<Vec<f32>, EngineError> {
        let Engine {
            config: c,
            weights: w,
            gate_up: gate_up_w,
            slots,
            cache,
            group,
        } = self;
        let n = tokens.len();
        if n == 0 {
            return Err(EngineError::Empty);
        }
        // Rows before this one leave the last layer after its cache write.
        let keep = if last_only { n - 1 } else { 0 };
        let layers = w.layers.len();
        for &(seq, pos) in rows {
            if pos >= cache.max_seq {
                return Err(EngineError::SequenceFull {
                    seq,
                    len: pos + 1,
                    max_seq: cache.max_seq,
                });
            }
        }
        let (h, inter, eps) = (c.hidden_size, c.intermediate_size, c.rms_norm_eps);
        let (q_heads, kv_heads, hd) = (c.num_attention_heads, c.kv_heads(), c.head_dim());
        let (q_dim, kv_dim, max_seq) = (c.q_dim(), c.kv_dim(), cache.max_seq);
        let scale = 1.0 / (hd as f32).sqrt();

        // Embedding.
        let mut hidden = vec![0f32; n * h];
        for (r, &t) in tokens.iter().enumerate() {
            if t as usize >= c.vocab_size {
                return Err(EngineError::TokenOutOfRange {
                    token: t,
                    vocab: c.vocab_size,
                });
            }
            hidden[r * h..(r + 1) * h].copy_from_slice(&w.embed_tokens[t as usize * h..][..h]);
        }
        let positions: Vec<i32> = rows.iter().map(|&(_, p)| p as i32).collect();

        let mut normed = vec![0f32; n * h];
        let mut residual = vec![0f32; n * h];
        let mut residual_next = vec![0f32; n * h];
        let mut block_out = vec![0f32; n * h];
        let (mut q, mut k, mut v) = (
            vec![0f32; n * q_dim],
            vec![0f32; n * kv_dim],
            vec![0f32; n * kv_dim],
        );
        let (mut q_rot, mut k_rot) = (vec![0f32; n * q_dim], vec![0f32; n * kv_dim]);
        let mut attn = vec![0f32; n * q_dim];
        let mut gate_up = vec![0f32; n * 2 * inter];
        let mut act = vec![0f32; n * inter];

        for (l, lw) in w.layers.iter_mut().enumerate() {
            // Attention norm; from layer 1 on it also adds the previous MLP output.
            if l == 0 {
                slots.call(
                    SlotId::RmsNorm,
                    &mut [&mut normed],
                    &[F32(&hidden), in_place(&mut lw.input_layernorm)],
                    &[eps],
                    &[n, h],
                );
                residual.copy_from_slice(&hidden);
            } else {
                // (On a tensor-parallel rank, the last MLP's output is still a partial sum.)
                add_norm(
                    group,
                    slots,
                    [&mut normed, &mut residual_next],
                    &mut block_out,
                    &mut residual,
                    &mut lw.input_layernorm,
                    eps,
                )?;
                std::mem::swap(&mut residual, &mut residual_next);
            }

            // Projections and RoPE.
            linear(slots, &mut q, &normed, &mut lw.q_proj, n, q_dim, h);
            linear(slots, &mut k, &normed, &mut lw.k_proj, n, kv_dim, h);
            linear(slots, &mut v, &normed, &mut lw.v_proj, n, kv_dim, h);
            slots.call(
                SlotId::Rope,
                &mut [&mut q_rot, &mut k_rot],
                &[F32(&q), in_place(&mut k), I32(&positions)],
                &[c.rope_theta],
                &[n, q_heads, kv_heads, hd],
            );

            // KV cache write: row r goes to [seq, pos].
            for (r, &(seq, pos)) in rows.iter().enumerate() {
                let at = (seq * max_seq + pos) * kv_dim;
                cache.k[l][at..at + kv_dim].copy_from_slice(&k_rot[r * kv_dim..(r + 1) * kv_dim]);
                cache.v[l][at..at + kv_dim].copy_from_slice(&v[r * kv_dim..(r + 1) * kv_dim]);
            }

            // Rows that go on past the cache write: all of them, except in the last layer
            // of a pass that wants only its last row (a prompt's prefill), where the other
            // rows' attention, MLP and final norm would reach no output: no logits, no
            // cache. No slot output goes unused, so none can be skipped unseen.
            let (first, m) = if l + 1 == layers {
                (keep, n - keep)
            } else {
                (0, n)
            };

            // Attention.
            let (kc, vc) = (&mut cache.k[l], &mut cache.v[l]);
            match attend {
                Attend::Prefill { seq } => {
                    // The rows that go on, over the sequence's cache up to their last
                    // position.
                    let pos: Vec<i32> = rows[first..].iter().map(|&(_, p)| p as i32).collect();
                    let kv_len = pos.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
                    let span = seq * max_seq * kv_dim..(seq * max_seq + kv_len) * kv_dim;
                    let (kc, vc) = (&mut kc[span.clone()], &mut vc[span]);
                    if m > 0 {
                        slots.call(
                            SlotId::AttentionPrefill,
                            &mut [&mut attn[..m * q_dim]],
                            &[
                                F32(&q_rot[first * q_dim..n * q_dim]),
                                in_place(kc),
                                in_place(vc),
                                I32(&pos),
                            ],
                            &[scale],
                            &[m, q_heads, kv_heads, hd, kv_len],
                        );
                    }
                }
                Attend::Decode => {
                    // Rows are sequences 0..n: their caches, the first n of the batch.
                    let lens: Vec<i32> = rows.iter().map(|&(_, p)| p as i32 + 1).collect();
                    let span = ..n * max_seq * kv_dim;
                    let (kc, vc) = (&mut kc[span], &mut vc[span]);
                    slots.call(
                        SlotId::AttentionDecode,
                        &mut [&mut attn],
                        &[F32(&q_rot), in_place(kc), in_place(vc), I32(&lens)],
                        &[scale],
                        &[n, q_heads, kv_heads, hd, max_seq],
                    );
                }
            }
            let (mh, mq) = (m * h, m * q_dim);
            linear(
                slots,
                &mut block_out[..mh],
                &attn[..mq],
                &mut lw.o_proj,
                m,
                h,
                q_dim,
            );

            // MLP norm with the attention residual add (and a rank's all-reduce), then SwiGLU.
            add_norm(
                group,
                slots,
                [&mut normed[..mh], &mut residual_next[..mh]],
                &mut block_out[..mh],
                &mut residual[first * h..][..mh],
                &mut lw.post_attention_layernorm,
                eps,
            )?;
            std::mem::swap(&mut residual, &mut residual_next);
            if let (Some(moe), true) = (&c.moe, c.is_moe_layer(l)) {
                // A mixture of experts: the router's scores (a product), the routing (the
                // engine's own), then the held experts in one call; on a rank the output is
                // a partial sum over the experts it holds, reduced like a dense MLP's.
                let e = moe.num_local_experts;
                let mut scores = vec![0f32; m * e];
                linear(slots, &mut scores, &normed[..mh], &mut lw.router, m, e, h);
                let k = moe.num_experts_per_tok;
                let (ids, mut weights) = crate::model::moe::route(&scores, e, k);
                let (first, held) = moe.held();
                let f = moe.moe_intermediate_size;
                slots.call(
                    SlotId::MoeFusedExperts,
                    &mut [&mut block_out[..mh]],
                    &[
                        F32(&normed[..mh]),
                        I32(&ids),
                        in_place(&mut weights),
                        in_place(&mut gate_up_w[l]),
                        in_place(&mut lw.down_proj),
                    ],
                    &[],
                    &[m, h, f, held, k, first],
                );
                continue;
            }
            // The MLP seam: one `mlp.gate_up_silu` call where a kernel's domain takes it,
            // else its members (the gate|up product, then SwiGLU).
            let (normed, act_m) = (&normed[..mh], &mut act[..m * inter]);
            if slots.serves(SlotId::GateUpSilu, &[m, inter, h]) {
                slots.call(
                    SlotId::GateUpSilu,
                    &mut [act_m],
                    &[F32(normed), in_place(&mut gate_up_w[l])],
                    &[],
                    &[m, inter, h],
                );
            } else {
                let gate_up = &mut gate_up[..m * 2 * inter];
                linear(slots, gate_up, normed, &mut gate_up_w[l], m, 2 * inter, h);
                slots.call(
                    SlotId::SiluAndMul,
                    &mut [act_m],
                    &[F32(gate_up)],
                    &[],
                    &[m, inter],
                );
            }
            let act = &act[..m * inter];
            linear(
                slots,
                &mut block_out[..mh],
                act,
                &mut lw.down_proj,
                m,
                h,
                inter,
            );
        }
        // A rank's last MLP output is a partial sum until here (every earlier one was
        // reduced with the next layer's norm).
        all_reduce(group, slots, &mut block_out[..(n - keep) * h], n - keep, h)?;

        // Final norm. Its residual add is the engine's own: the sum goes nowhere else, so
        // `norm.fused_add_rmsnorm` here would write an output nobody reads.
        let mh = (n - keep) * h;
        for (r, b) in residual[..mh].iter_mut().zip(&block_out[..mh]) {
            *r += *b;
        }
        normed.truncate(mh);
        slots.call(
            SlotId::RmsNorm,
            &mut [&mut normed],
            &[F32(&residual[..mh]), in_place(&mut w.norm)],
            &[eps],
            &[n - keep, h],
        );
        Ok(normed)
    }
}

/// A tensor-parallel rank's partial sums `x` (`[rows, hidden]`) become the sum over every
/// rank's: the rows of all ranks meet in the group's shared memory and a
/// `collective.all_reduce` call adds them up (the stock kernel in rank order, so every rank
/// holds the same bits). Nothing to do for a whole engine.
fn all_reduce(
    group: &Option<ShmGroup>,
    slots: &SlotTable,
    x: &mut [f32],
    rows: usize,
    hidden: usize,
) -> Result<(), EngineError> {
    let Some(g) = group else { return Ok(()) };
    let mine = x.to_vec();
    let shape = [rows, hidden, g.world(), g.rank()];
    g.exchange(&mine, x, |partials, out| {
        slots.call(SlotId::AllReduce, &mut [out], &[F32(partials)], &[], &shape);
    })
    .map_err(group_failed)
}

/// A failed exchange (the group is poisoned by then: no rank waits on this one).
fn group_failed(e: GroupError) -> EngineError {
    EngineError::Collective(e.to_string())
}

/// The residual add and RMSNorm after a sub-block whose output `x` (`[rows, hidden]`) is,
/// on a tensor-parallel rank, a partial sum: `[out_norm, out_residual]` from `x` and the
/// `residual` by `norm.fused_add_rmsnorm`, after the all-reduce of `x` on a rank. There the
/// seam `collective.ar_residual_rmsnorm` makes the three steps one call where an
/// installed kernel's domain takes it; else its members run (`x` then holds the sums).
fn add_norm(
    group: &Option<ShmGroup>,
    slots: &SlotTable,
    outs: [&mut [f32]; 2],
    x: &mut [f32],
    residual: &mut [f32],
    w: &mut [f32],
    eps: f32,
) -> Result<(), EngineError> {
    let hidden = w.len();
    let rows = x.len() / hidden;
    let [out_norm, out_residual] = outs;
    if let Some(g) = group {
        let shape = [rows, hidden, g.world(), g.rank()];
        if slots.serves(SlotId::ArResidualRmsNorm, &shape) {
            let mine = x.to_vec();
            return g
                .exchange(&mine, x, |partials, _| {
                    slots.call(
                        SlotId::ArResidualRmsNorm,
                        &mut [out_norm, out_residual],
                        &[F32(partials), in_place(residual), in_place(w)],
                        &[eps],
                        &shape,
                    );
                })
                .map_err(group_failed);
        }
        all_reduce(group, slots, x, rows, hidden)?;
    }
    slots.call(
        SlotId::FusedAddRmsNorm,
        &mut [out_norm, out_residual],
        &[F32(x), in_place(residual), in_place(w)],
        &[eps],
        &[rows, hidden],
    );
    Ok(())
}

/// `y[rows, out] = x[rows, in] · wᵀ` (`w` is `[out, in]`) as a `linear.matmul` call.
fn linear(
    slots: &SlotTable,
    y: &mut [f32],
    x: &[f32],
    w: &mut [f32],
    rows: usize,
    out: usize,
    inner: usize,
) {
    slots.call(
        SlotId::LinearMatmul,
        &mut [y],
        &[F32(x), in_place(w)],
        &[],
        &[rows, out, inner],
    );
}
