//! A Llama model read from a GGUF file into the engines' form: the shape from the
//! `llama.*` metadata, the weights dequantized to f32 under their Hugging Face names, and
//! the tokenizer.
//!
//! One layout difference is undone here. llama.cpp's converter reorders the rows of every
//! head of `q_proj` and `k_proj` so that its RoPE, which rotates adjacent pairs
//! `(2i, 2i + 1)`, gives what Hugging Face's rotate-half RoPE gives on pairs
//! `(i, i + head_dim / 2)`: GGUF row `2i + s` of a head is HF row `s · head_dim / 2 + i`.
//! The engines rotate halves, so the rows go back to HF order.

use std::path::Path;

use super::gguf::{Gguf, Value};
use super::tokenizer::Tokenizer;
use super::weights::tensor_specs;
use super::{EngineError, ModelConfig, Weights};

/// A model loaded from GGUF.
#[derive(Clone, Debug)]
pub struct GgufModel {
    pub config: ModelConfig,
    pub weights: Weights,
    pub tokenizer: Tokenizer,
}

fn weights_err(e: impl std::fmt::Display) -> EngineError {
    EngineError::Weights(e.to_string())
}

/// The shape of a `llama` GGUF file.
pub fn config_of(g: &Gguf) -> Result<ModelConfig, EngineError> {
    let arch = g
        .metadata
        .get("general.architecture")
        .and_then(Value::as_str);
    if arch != Some("llama") {
        return Err(EngineError::Config(format!(
            "general.architecture is {arch:?}, not \"llama\""
        )));
    }
    let int = |key: &str| {
        g.metadata
            .get(key)
            .and_then(Value::as_u64)
            .map(|v| v as usize)
            .ok_or_else(|| EngineError::Config(format!("no integer `{key}`")))
    };
    let float = |key: &str| {
        g.metadata
            .get(key)
            .and_then(Value::as_f32)
            .ok_or_else(|| EngineError::Config(format!("no float `{key}`")))
    };
    let heads = int("llama.attention.head_count")?;
    let hidden = int("llama.embedding_length")?;
    let vocab = match int("llama.vocab_size") {
        Ok(v) => v,
        Err(_) => g
            .metadata
            .get("tokenizer.ggml.tokens")
            .and_then(Value::as_array)
            .map(<[Value]>::len)
            .ok_or_else(|| EngineError::Config("no vocabulary size".into()))?,
    };
    let cfg = ModelConfig {
        hidden_size: hidden,
        intermediate_size: int("llama.feed_forward_length")?,
        num_attention_heads: heads,
        num_key_value_heads: Some(int("llama.attention.head_count_kv")?),
        num_hidden_layers: int("llama.block_count")?,
        vocab_size: vocab,
        rms_norm_eps: float("llama.attention.layer_norm_rms_epsilon")?,
        rope_theta: float("llama.rope.freq_base")?,
        max_position_embeddings: int("llama.context_length")?,
        head_dim: Some(int("llama.rope.dimension_count").unwrap_or(hidden / heads.max(1))),
        tie_word_embeddings: g.tensor("output.weight").is_err(),
        hidden_act: Some("silu".into()),
        rope_scaling: None,
        moe: None,
    };
    cfg.validate()?;
    Ok(cfg)
}

/// GGUF rows of `heads` heads of `head_dim` rows each (`row` elements a row) put back in
/// Hugging Face order (see the module's text).
fn unpermute_rows(w: Vec<f32>, heads: usize, head_dim: usize, row: usize) -> Vec<f32> {
    let half = head_dim / 2;
    let mut out = vec![0f32; w.len()];
    for h in 0..heads {
        for i in 0..half {
            for s in 0..2 {
                let from = (h * head_dim + 2 * i + s) * row;
                let to = (h * head_dim + s * half + i) * row;
                out[to..to + row].copy_from_slice(&w[from..from + row]);
            }
        }
    }
    out
}

/// Reads a whole GGUF file of a Llama model.
pub fn load(path: &Path) -> Result<GgufModel, EngineError> {
    let bytes =
        std::fs::read(path).map_err(|e| EngineError::Io(format!("{}: {e}", path.display())))?;
    from_bytes(&bytes)
}

/// Reads a GGUF file whose SHA-256 must be `sha256` (hex): an arena names its model file
/// by content, so a validator never measures in another model than the one it attests for.
pub fn load_verified(path: &Path, sha256: &str) -> Result<GgufModel, EngineError> {
    let bytes =
        std::fs::read(path).map_err(|e| EngineError::Io(format!("{}: {e}", path.display())))?;
    let got = hex_digest(&bytes);
    if got != sha256 {
        return Err(EngineError::Weights(format!(
            "{}: SHA-256 {got}, the arena's model is {sha256}",
            path.display()
        )));
    }
    from_bytes(&bytes)
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn hex_digest(bytes: &[u8]) -> String {
    sp_crypto_hashing::sha2_256(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A Llama model from a GGUF file's bytes.
pub fn from_bytes(bytes: &[u8]) -> Result<GgufModel, EngineError> {
    let g = Gguf::parse(bytes).map_err(weights_err)?;
    let cfg = config_of(&g)?;
    let tokenizer = Tokenizer::from_gguf(&g).map_err(|e| EngineError::Config(e.to_string()))?;
    if tokenizer.vocab_size() != cfg.vocab_size {
        return Err(EngineError::Config(format!(
            "the tokenizer has {} tokens, the model {}",
            tokenizer.vocab_size(),
            cfg.vocab_size
        )));
    }
    let (h, hd) = (cfg.hidden_size, cfg.head_dim());
    let mut tensors = Vec::new();
    for spec in tensor_specs(&cfg) {
        let (name, fix): (String, Option<usize>) = match spec.name.as_str() {
            "model.embed_tokens.weight" => ("token_embd.weight".into(), None),
            "model.norm.weight" => ("output_norm.weight".into(), None),
            "lm_head.weight" if cfg.tie_word_embeddings => ("token_embd.weight".into(), None),
            "lm_head.weight" => ("output.weight".into(), None),
            other => {
                let rest = other
                    .strip_prefix("model.layers.")
                    .ok_or_else(|| weights_err(format!("unexpected tensor {other}")))?;
                let (layer, part) = rest.split_once('.').expect("model.layers.N.part");
                let (gguf, heads) = match part {
                    "input_layernorm.weight" => ("attn_norm", None),
                    "self_attn.q_proj.weight" => ("attn_q", Some(cfg.num_attention_heads)),
                    "self_attn.k_proj.weight" => ("attn_k", Some(cfg.kv_heads())),
                    "self_attn.v_proj.weight" => ("attn_v", None),
                    "self_attn.o_proj.weight" => ("attn_output", None),
                    "post_attention_layernorm.weight" => ("ffn_norm", None),
                    "mlp.gate_proj.weight" => ("ffn_gate", None),
                    "mlp.up_proj.weight" => ("ffn_up", None),
                    "mlp.down_proj.weight" => ("ffn_down", None),
                    _ => return Err(weights_err(format!("unexpected tensor {other}"))),
                };
                (format!("blk.{layer}.{gguf}.weight"), heads)
            }
        };
        let info = g.tensor(&name).map_err(weights_err)?;
        let want: u64 = spec.shape.iter().map(|&d| d as u64).product();
        if info.elements() != want {
            return Err(weights_err(format!(
                "{name} has {} elements, {} needs {want}",
                info.elements(),
                spec.name
            )));
        }
        let data = g.tensor_f32(bytes, &name).map_err(weights_err)?;
        tensors.push(match fix {
            Some(heads) => unpermute_rows(data, heads, hd, h),
            None => data,
        });
    }
    let weights = Weights::from_ordered(&cfg, tensors);
    weights.check_shapes(&cfg).map_err(EngineError::Weights)?;
    Ok(GgufModel {
        config: cfg,
        weights,
        tokenizer,
    })
}

/// The file name of SmolLM2-135M-Instruct as setup fetches it.
pub const SMOLLM2_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Its SHA-256 (`scripts/fetch-model.sh` checks the same).
pub const SMOLLM2_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

/// Where setup keeps model files (`scripts/fetch-model.sh`): `$CACHEON_MODEL_DIR`, else
/// `~/.cache/cacheon/models`.
pub fn model_dir() -> std::path::PathBuf {
    std::env::var_os("CACHEON_MODEL_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_default();
            Path::new(&home).join(".cache/cacheon/models")
        })
}

/// Where SmolLM2 is: `$CACHEON_SMOLLM2_GGUF`, else [`SMOLLM2_FILE`] in [`model_dir`].
pub fn smollm2_path() -> std::path::PathBuf {
    match std::env::var_os("CACHEON_SMOLLM2_GGUF") {
        Some(p) => p.into(),
        None => model_dir().join(SMOLLM2_FILE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gguf_rows_go_back_to_rotate_half_order() {
        // One head of 4 rows (pairs (0, 2) and (1, 3) in HF order), one element a row:
        // the converter wrote HF rows [a, b, c, d] as [a, c, b, d].
        let gguf = vec![0.0, 2.0, 1.0, 3.0];
        assert_eq!(unpermute_rows(gguf, 1, 4, 1), [0.0, 1.0, 2.0, 3.0]);
        // Two heads of 2 rows, two elements a row: a 2-row head is its own order.
        let w: Vec<f32> = (0..8).map(|v| v as f32).collect();
        assert_eq!(unpermute_rows(w.clone(), 2, 2, 2), w);
    }
}
