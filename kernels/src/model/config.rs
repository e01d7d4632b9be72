//! The model's shape, read from a Hugging Face style `config.json`, or one of the named
//! shapes the arenas use.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::EngineError;

/// A Llama-family model's hyper-parameters (HF `LlamaConfig` field names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_attention_heads: usize,
    /// Defaults to `num_attention_heads` (no grouping), as in HF.
    #[serde(default)]
    pub num_key_value_heads: Option<usize>,
    pub num_hidden_layers: usize,
    pub vocab_size: usize,
    pub rms_norm_eps: f32,
    pub rope_theta: f32,
    pub max_position_embeddings: usize,
    /// Defaults to `hidden_size / num_attention_heads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_dim: Option<usize>,
    #[serde(default)]
    pub tie_word_embeddings: bool,
    /// Must be `silu` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_act: Option<String>,
    /// RoPE scaling is not implemented: a config asking for it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rope_scaling: Option<serde_json::Value>,
    /// A mixture-of-experts MLP in some layers (`None`: every MLP dense).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<MoeConfig>,
}

/// The mixture-of-experts layers of a model (Mixtral's routing): a router `[experts,
/// hidden]` scores each row, the `num_experts_per_tok` best experts are taken with weights
/// softmax(their scores), and the row's MLP output is the weighted sum of those experts'
/// SwiGLU MLPs (each `gate`, `up` `[moe_intermediate_size, hidden]`, `down` `[hidden,
/// moe_intermediate_size]`). Layer `l` is a mixture-of-experts layer when `(l + 1)` is a
/// multiple of `interleave_moe_layer_step` (1: every layer), the others dense.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoeConfig {
    /// Experts in the model (the router's width).
    pub num_local_experts: usize,
    pub num_experts_per_tok: usize,
    pub moe_intermediate_size: usize,
    #[serde(default = "one")]
    pub interleave_moe_layer_step: usize,
    /// A tensor-parallel rank's shard holds experts `first..first + count` only
    /// ([`crate::model::shard`]); `None`: all of them.
    #[serde(skip)]
    pub held: Option<(usize, usize)>,
}

fn one() -> usize {
    1
}

impl MoeConfig {
    /// `(first, count)` of the experts whose weights this model holds.
    pub fn held(&self) -> (usize, usize) {
        self.held.unwrap_or((0, self.num_local_experts))
    }
}

/// Names accepted by [`ModelConfig::named`].
pub const NAMED_SHAPES: [&str; 4] = ["tiny", "tiny-moe", "llama8b-8l", "smollm2-135m"];

impl ModelConfig {
    /// A named shape: `tiny` (the `cpu-tiny` arena's), `tiny-moe` (`tiny` with its second
    /// layer's MLP a mixture of 8 experts, 2 a row: the `cpu-tp2` arena's), `llama8b-8l`
    /// (Llama-3-8B with 8 layers, the GPU arena's) or `smollm2-135m` (SmolLM2-135M-Instruct,
    /// the shape of the real model of `cpu-smollm2`, whose weights come from its GGUF file).
    pub fn named(name: &str) -> Option<ModelConfig> {
        let base = |hidden, inter, heads, kv, layers, vocab, theta, max_pos| ModelConfig {
            hidden_size: hidden,
            intermediate_size: inter,
            num_attention_heads: heads,
            num_key_value_heads: Some(kv),
            num_hidden_layers: layers,
            vocab_size: vocab,
            rms_norm_eps: 1e-5,
            rope_theta: theta,
            max_position_embeddings: max_pos,
            head_dim: None,
            tie_word_embeddings: false,
            hidden_act: Some("silu".to_string()),
            rope_scaling: None,
            moe: None,
        };
        match name {
            "tiny" => Some(base(256, 688, 4, 2, 2, 512, 10_000.0, 2048)),
            "tiny-moe" => Some(ModelConfig {
                moe: Some(MoeConfig {
                    num_local_experts: 8,
                    num_experts_per_tok: 2,
                    moe_intermediate_size: 192,
                    interleave_moe_layer_step: 2,
                    held: None,
                }),
                ..base(256, 688, 4, 2, 2, 512, 10_000.0, 2048)
            }),
            "llama8b-8l" => Some(base(4096, 14336, 32, 8, 8, 128_256, 500_000.0, 8192)),
            "smollm2-135m" => Some(ModelConfig {
                head_dim: Some(64),
                tie_word_embeddings: true,
                ..base(576, 1536, 9, 3, 30, 49_152, 100_000.0, 8192)
            }),
            _ => None,
        }
    }

    /// Parses and checks `config.json` text.
    pub fn from_json(text: &str) -> Result<ModelConfig, EngineError> {
        let cfg: ModelConfig =
            serde_json::from_str(text).map_err(|e| EngineError::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and checks a `config.json` file.
    pub fn from_file(path: &Path) -> Result<ModelConfig, EngineError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| EngineError::Io(format!("{}: {e}", path.display())))?;
        ModelConfig::from_json(&text)
    }

    /// Pretty JSON, loadable by [`ModelConfig::from_json`] and by HF tooling.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("config serializes")
    }

    pub fn kv_heads(&self) -> usize {
        self.num_key_value_heads.unwrap_or(self.num_attention_heads)
    }

    pub fn head_dim(&self) -> usize {
        self.head_dim
            .unwrap_or(self.hidden_size / self.num_attention_heads.max(1))
    }

    /// Width of the query projection (`num_attention_heads * head_dim`).
    pub fn q_dim(&self) -> usize {
        self.num_attention_heads * self.head_dim()
    }

    /// Width of each of the key and value projections.
    pub fn kv_dim(&self) -> usize {
        self.kv_heads() * self.head_dim()
    }

    /// Whether layer `l`'s MLP is a mixture of experts.
    pub fn is_moe_layer(&self, l: usize) -> bool {
        self.moe
            .as_ref()
            .is_some_and(|m| (l + 1).is_multiple_of(m.interleave_moe_layer_step))
    }

    /// Refuses shapes the engine cannot run.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: &str| Err(EngineError::Config(m.to_string()));
        let dims = [
            self.hidden_size,
            self.intermediate_size,
            self.num_attention_heads,
            self.kv_heads(),
            self.num_hidden_layers,
            self.vocab_size,
            self.max_position_embeddings,
            self.head_dim(),
        ];
        if dims.contains(&0) {
            return bad("every dimension must be positive");
        }
        if !self.num_attention_heads.is_multiple_of(self.kv_heads()) {
            return bad("num_attention_heads must be a multiple of num_key_value_heads");
        }
        if !self.head_dim().is_multiple_of(2) {
            return bad("head_dim must be even (rotate-half RoPE)");
        }
        if self.vocab_size > u32::MAX as usize || self.max_position_embeddings > i32::MAX as usize {
            return bad("vocab_size and max_position_embeddings must fit token and position ids");
        }
        if !(self.rms_norm_eps > 0.0 && self.rope_theta > 1.0) {
            return bad("rms_norm_eps must be positive and rope_theta above 1");
        }
        if self.hidden_act.as_deref().is_some_and(|a| a != "silu") {
            return bad("hidden_act must be silu");
        }
        if self.rope_scaling.as_ref().is_some_and(|v| !v.is_null()) {
            return bad("rope_scaling is not supported");
        }
        if let Some(m) = &self.moe {
            let (first, count) = m.held();
            if m.num_local_experts == 0
                || m.moe_intermediate_size == 0
                || m.interleave_moe_layer_step == 0
                || !(1..=m.num_local_experts).contains(&m.num_experts_per_tok)
            {
                return bad("moe: experts, moe_intermediate_size and interleave_moe_layer_step must be positive, num_experts_per_tok in 1..=num_local_experts");
            }
            if m.num_local_experts > i32::MAX as usize || first + count > m.num_local_experts {
                return bad("moe: the experts held must lie within the model's");
            }
        }
        Ok(())
    }

    /// Number of weights (parameters) of the model.
    pub fn parameter_count(&self) -> usize {
        let (h, i, v) = (self.hidden_size, self.intermediate_size, self.vocab_size);
        let attention = 2 * h + h * self.q_dim() * 2 + h * self.kv_dim() * 2;
        let layers: usize = (0..self.num_hidden_layers)
            .map(|l| match &self.moe {
                Some(m) if self.is_moe_layer(l) => {
                    attention
                        + m.num_local_experts * h
                        + m.held().1 * 3 * h * m.moe_intermediate_size
                }
                _ => attention + 3 * h * i,
            })
            .sum();
        let head = if self.tie_word_embeddings { 0 } else { v * h };
        v * h + layers + h + head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_shapes() {
        let tiny = ModelConfig::named("tiny").unwrap();
        tiny.validate().unwrap();
        assert_eq!((tiny.head_dim(), tiny.kv_dim()), (64, 128));
        let big = ModelConfig::named("llama8b-8l").unwrap();
        big.validate().unwrap();
        assert_eq!(
            (big.head_dim(), big.kv_heads(), big.rope_theta),
            (128, 8, 500_000.0)
        );
        assert_eq!(big.parameter_count(), 2_795_573_248);
        assert!(ModelConfig::named("huge").is_none());
    }

    #[test]
    fn hf_json_round_trip_and_defaults() {
        let tiny = ModelConfig::named("tiny").unwrap();
        assert_eq!(ModelConfig::from_json(&tiny.to_json()).unwrap(), tiny);
        let hf = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
            "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 1,
            "vocab_size": 100, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
            "max_position_embeddings": 256, "torch_dtype": "bfloat16", "rope_scaling": null}"#;
        let cfg = ModelConfig::from_json(hf).unwrap();
        assert_eq!((cfg.kv_heads(), cfg.head_dim()), (4, 16));
        let scaled = hf.replace(
            "\"rope_scaling\": null",
            "\"rope_scaling\": {\"factor\": 8.0}",
        );
        assert!(ModelConfig::from_json(&scaled).is_err());
        let grouped = hf.replace(
            "\"num_hidden_layers\"",
            "\"num_key_value_heads\": 3, \"num_hidden_layers\"",
        );
        assert!(ModelConfig::from_json(&grouped).is_err());
    }
}
