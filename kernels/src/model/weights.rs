//! The model's weights in f32, named and shaped as in Hugging Face Llama checkpoints
//! (`model.layers.0.self_attn.q_proj.weight` is `[out_features, in_features]`), and their
//! deterministic synthesis from a seed.

use super::config::ModelConfig;
use crate::rng::Rng;

/// One decoder layer's weights.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerWeights {
    /// `[hidden]`
    pub input_layernorm: Vec<f32>,
    /// `[q_dim, hidden]`
    pub q_proj: Vec<f32>,
    /// `[kv_dim, hidden]`
    pub k_proj: Vec<f32>,
    /// `[kv_dim, hidden]`
    pub v_proj: Vec<f32>,
    /// `[hidden, q_dim]`
    pub o_proj: Vec<f32>,
    /// `[hidden]`
    pub post_attention_layernorm: Vec<f32>,
    /// A mixture-of-experts layer's router `[experts, hidden]` (empty in a dense layer).
    pub router: Vec<f32>,
    /// `[intermediate, hidden]`; in a mixture-of-experts layer every held expert's, stacked
    /// (`[held * moe_intermediate, hidden]`, expert by expert).
    pub gate_proj: Vec<f32>,
    /// `[intermediate, hidden]` (stacked like `gate_proj`).
    pub up_proj: Vec<f32>,
    /// `[hidden, intermediate]`; stacked `[held * hidden, moe_intermediate]`.
    pub down_proj: Vec<f32>,
}

/// The whole model's weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// `[vocab, hidden]`
    pub embed_tokens: Vec<f32>,
    pub layers: Vec<LayerWeights>,
    /// `[hidden]`
    pub norm: Vec<f32>,
    /// `[vocab, hidden]` (a copy of `embed_tokens` when the config ties them).
    pub lm_head: Vec<f32>,
}

/// What a tensor is, which decides how it is synthesized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorRole {
    Embedding,
    Norm,
    /// A projection `[out, in]`.
    Linear,
}

/// One named tensor of the checkpoint layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    pub name: String,
    pub shape: Vec<usize>,
    pub role: TensorRole,
}

/// Every tensor of a checkpoint for `cfg`, in a fixed order (HF names).
/// `lm_head.weight` is listed even when tied; loading then accepts its absence.
pub fn tensor_specs(cfg: &ModelConfig) -> Vec<TensorSpec> {
    let (h, i, v) = (cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size);
    let (q, kv) = (cfg.q_dim(), cfg.kv_dim());
    let t = |name: String, shape: Vec<usize>, role| TensorSpec { name, shape, role };
    let mut specs = vec![t(
        "model.embed_tokens.weight".into(),
        vec![v, h],
        TensorRole::Embedding,
    )];
    for l in 0..cfg.num_hidden_layers {
        let p = format!("model.layers.{l}");
        specs.extend([
            t(
                format!("{p}.input_layernorm.weight"),
                vec![h],
                TensorRole::Norm,
            ),
            t(
                format!("{p}.self_attn.q_proj.weight"),
                vec![q, h],
                TensorRole::Linear,
            ),
            t(
                format!("{p}.self_attn.k_proj.weight"),
                vec![kv, h],
                TensorRole::Linear,
            ),
            t(
                format!("{p}.self_attn.v_proj.weight"),
                vec![kv, h],
                TensorRole::Linear,
            ),
            t(
                format!("{p}.self_attn.o_proj.weight"),
                vec![h, q],
                TensorRole::Linear,
            ),
            t(
                format!("{p}.post_attention_layernorm.weight"),
                vec![h],
                TensorRole::Norm,
            ),
        ]);
        match &cfg.moe {
            // Experts stacked expert by expert (a checkpoint of its own layout: Mixtral's
            // per-expert tensors are not read).
            Some(m) if cfg.is_moe_layer(l) => {
                let (e, held, f) = (m.num_local_experts, m.held().1, m.moe_intermediate_size);
                let p = format!("{p}.block_sparse_moe");
                specs.extend([
                    t(format!("{p}.gate.weight"), vec![e, h], TensorRole::Linear),
                    t(
                        format!("{p}.experts.w1.weight"),
                        vec![held * f, h],
                        TensorRole::Linear,
                    ),
                    t(
                        format!("{p}.experts.w3.weight"),
                        vec![held * f, h],
                        TensorRole::Linear,
                    ),
                    t(
                        format!("{p}.experts.w2.weight"),
                        vec![held * h, f],
                        TensorRole::Linear,
                    ),
                ]);
            }
            _ => specs.extend([
                t(
                    format!("{p}.mlp.gate_proj.weight"),
                    vec![i, h],
                    TensorRole::Linear,
                ),
                t(
                    format!("{p}.mlp.up_proj.weight"),
                    vec![i, h],
                    TensorRole::Linear,
                ),
                t(
                    format!("{p}.mlp.down_proj.weight"),
                    vec![h, i],
                    TensorRole::Linear,
                ),
            ]),
        }
    }
    specs.push(t("model.norm.weight".into(), vec![h], TensorRole::Norm));
    specs.push(t("lm_head.weight".into(), vec![v, h], TensorRole::Linear));
    specs
}

impl Weights {
    /// Builds the weights from tensors given in [`tensor_specs`] order.
    pub fn from_ordered(cfg: &ModelConfig, tensors: Vec<Vec<f32>>) -> Weights {
        let mut it = tensors.into_iter();
        let mut next = || it.next().expect("one tensor per spec");
        let embed_tokens = next();
        let layers = (0..cfg.num_hidden_layers)
            .map(|l| LayerWeights {
                input_layernorm: next(),
                q_proj: next(),
                k_proj: next(),
                v_proj: next(),
                o_proj: next(),
                post_attention_layernorm: next(),
                router: if cfg.is_moe_layer(l) {
                    next()
                } else {
                    Vec::new()
                },
                gate_proj: next(),
                up_proj: next(),
                down_proj: next(),
            })
            .collect();
        let norm = next();
        let lm_head = next();
        Weights {
            embed_tokens,
            layers,
            norm,
            lm_head,
        }
    }

    /// The tensors in [`tensor_specs`] order.
    pub fn ordered(&self) -> Vec<&[f32]> {
        let mut out: Vec<&[f32]> = vec![&self.embed_tokens];
        for l in &self.layers {
            out.extend([
                &l.input_layernorm[..],
                &l.q_proj,
                &l.k_proj,
                &l.v_proj,
                &l.o_proj,
                &l.post_attention_layernorm,
            ]);
            if !l.router.is_empty() {
                out.push(&l.router);
            }
            out.extend([&l.gate_proj[..], &l.up_proj, &l.down_proj]);
        }
        out.push(&self.norm);
        out.push(&self.lm_head);
        out
    }

    /// Checks every tensor's length against the config.
    pub fn check_shapes(&self, cfg: &ModelConfig) -> Result<(), String> {
        let specs = tensor_specs(cfg);
        if self.layers.len() != cfg.num_hidden_layers {
            return Err(format!(
                "{} layers, config says {}",
                self.layers.len(),
                cfg.num_hidden_layers
            ));
        }
        for (l, layer) in self.layers.iter().enumerate() {
            if layer.router.is_empty() == cfg.is_moe_layer(l) {
                return Err(format!(
                    "layer {l}: a router where the config has a dense MLP, or none where it has experts"
                ));
            }
        }
        for (spec, t) in specs.iter().zip(self.ordered()) {
            let want: usize = spec.shape.iter().product();
            if t.len() != want {
                return Err(format!(
                    "{} has {} values, expected {want}",
                    spec.name,
                    t.len()
                ));
            }
        }
        Ok(())
    }

    /// Deterministic weights for `cfg` from `seed`, scaled so activations stay O(1):
    /// embeddings uniform in `[-1, 1)`, norms `1 ± 0.1`, a projection `[out, in]`
    /// uniform with standard deviation `1/sqrt(in)` (preserves the RMS of its input).
    /// Each tensor is drawn in 1 Mi-value chunks from its own named stream, in parallel,
    /// so the result does not depend on the thread count.
    pub fn synthesize(cfg: &ModelConfig, seed: u64) -> Weights {
        let tensors = tensor_specs(cfg)
            .iter()
            .map(|spec| {
                let len: usize = spec.shape.iter().product();
                let (center, half_width) = match spec.role {
                    TensorRole::Embedding => (0.0, 1.0),
                    TensorRole::Norm => (1.0, 0.1),
                    TensorRole::Linear => (0.0, (3.0 / spec.shape[1] as f32).sqrt()),
                };
                synth_tensor(seed, &spec.name, len, center, half_width)
            })
            .collect();
        let mut w = Weights::from_ordered(cfg, tensors);
        if cfg.tie_word_embeddings {
            w.lm_head = w.embed_tokens.clone();
        }
        w
    }
}

const SYNTH_CHUNK: usize = 1 << 20;

fn synth_tensor(seed: u64, name: &str, len: usize, center: f32, half_width: f32) -> Vec<f32> {
    let mut out = vec![0f32; len];
    let chunks: Vec<(usize, &mut [f32])> = out.chunks_mut(SYNTH_CHUNK).enumerate().collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(chunks.len().max(1));
    let per_thread = chunks.len().div_ceil(threads.max(1)).max(1);
    let mut groups: Vec<Vec<(usize, &mut [f32])>> = Vec::new();
    let mut chunks = chunks.into_iter().peekable();
    while chunks.peek().is_some() {
        groups.push(chunks.by_ref().take(per_thread).collect());
    }
    let fill = |group: Vec<(usize, &mut [f32])>| {
        for (index, chunk) in group {
            let mut rng = Rng::derive(seed, &format!("{name}#{index}"));
            for v in chunk.iter_mut() {
                *v = center + rng.uniform(-half_width, half_width);
            }
        }
    };
    if groups.len() <= 1 {
        groups.into_iter().for_each(fill);
    } else {
        std::thread::scope(|s| {
            for g in groups {
                s.spawn(move || fill(g));
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesis_is_deterministic_seeded_and_shaped() {
        let cfg = ModelConfig::named("tiny").unwrap();
        let a = Weights::synthesize(&cfg, 1);
        a.check_shapes(&cfg).unwrap();
        assert_eq!(a, Weights::synthesize(&cfg, 1));
        assert_ne!(a.embed_tokens, Weights::synthesize(&cfg, 2).embed_tokens);
        let q = &a.layers[0].q_proj;
        let var = q.iter().map(|&v| (v * v) as f64).sum::<f64>() / q.len() as f64;
        assert!((var * 256.0 - 1.0).abs() < 0.05, "q_proj variance {var}");
        assert!(a.norm.iter().all(|&v| (0.9..1.1).contains(&v)));
    }

    #[test]
    fn chunked_synthesis_does_not_depend_on_chunk_grouping() {
        let big = synth_tensor(3, "t", 3 * SYNTH_CHUNK + 5, 0.0, 1.0);
        let mut rng = Rng::derive(3, "t#2");
        assert_eq!(big[2 * SYNTH_CHUNK], rng.uniform(-1.0, 1.0));
    }
}
