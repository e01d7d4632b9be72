//! Loading and saving weights as safetensors with HF Llama tensor names, and a model
//! folder (`config.json` + `model.safetensors` or a sharded
//! `model.safetensors.index.json`). F32, BF16 and F16 tensors are read (into f32);
//! weights are written as F32.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensors, View};

use super::config::ModelConfig;
use super::weights::{tensor_specs, Weights};
use super::EngineError;

/// Tensor-name suffixes that HF checkpoints may carry and the engine recomputes.
const IGNORED_SUFFIXES: [&str; 1] = [".rotary_emb.inv_freq"];

struct F32View<'a> {
    shape: Vec<usize>,
    data: &'a [f32],
}

impl View for F32View<'_> {
    fn dtype(&self) -> Dtype {
        Dtype::F32
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Owned(self.data.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
    fn data_len(&self) -> usize {
        self.data.len() * 4
    }
}

fn st_err(context: &str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Weights(format!("{context}: {e}"))
}

/// Serializes weights to safetensors bytes (F32, HF names). A tied `lm_head` is omitted.
pub fn to_bytes(cfg: &ModelConfig, w: &Weights) -> Result<Vec<u8>, EngineError> {
    let views = views(cfg, w);
    safetensors::serialize(views, None).map_err(|e| st_err("serializing", e))
}

/// Writes weights to a safetensors file (F32, HF names).
pub fn save(cfg: &ModelConfig, w: &Weights, path: &Path) -> Result<(), EngineError> {
    let views = views(cfg, w);
    safetensors::serialize_to_file(views, None, path)
        .map_err(|e| st_err(&path.display().to_string(), e))
}

fn views<'a>(cfg: &ModelConfig, w: &'a Weights) -> Vec<(String, F32View<'a>)> {
    tensor_specs(cfg)
        .into_iter()
        .zip(w.ordered())
        .filter(|(spec, _)| !(cfg.tie_word_embeddings && spec.name == "lm_head.weight"))
        .map(|(spec, data)| {
            (
                spec.name,
                F32View {
                    shape: spec.shape,
                    data,
                },
            )
        })
        .collect()
}

fn to_f32(name: &str, dtype: Dtype, bytes: &[u8]) -> Result<Vec<f32>, EngineError> {
    let words = |n: usize| bytes.chunks_exact(n);
    Ok(match dtype {
        Dtype::F32 => words(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::BF16 => words(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::F16 => words(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        other => {
            return Err(EngineError::Weights(format!(
                "{name}: unsupported dtype {other:?}"
            )))
        }
    })
}

/// Collects the tensors of one or more safetensors buffers into weights for `cfg`.
/// Every expected tensor must be present once with its exact shape; unknown tensors are
/// refused (they mean a different architecture), except recomputed buffers.
pub fn from_buffers(cfg: &ModelConfig, buffers: &[&[u8]]) -> Result<Weights, EngineError> {
    let mut found: HashMap<String, Vec<f32>> = HashMap::new();
    let specs = tensor_specs(cfg);
    for buf in buffers {
        let st = SafeTensors::deserialize(buf).map_err(|e| st_err("reading safetensors", e))?;
        for (name, view) in st.tensors() {
            if IGNORED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
                continue;
            }
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                return Err(EngineError::Weights(format!("unexpected tensor `{name}`")));
            };
            if view.shape() != spec.shape.as_slice() {
                let msg = format!(
                    "`{name}` has shape {:?}, expected {:?}",
                    view.shape(),
                    spec.shape
                );
                return Err(EngineError::Weights(msg));
            }
            let values = to_f32(&name, view.dtype(), view.data())?;
            if found.insert(name.clone(), values).is_some() {
                return Err(EngineError::Weights(format!(
                    "tensor `{name}` appears twice"
                )));
            }
        }
    }
    let mut tensors = Vec::with_capacity(specs.len());
    for spec in &specs {
        match found.remove(&spec.name) {
            Some(t) => tensors.push(t),
            None if spec.name == "lm_head.weight" && cfg.tie_word_embeddings => {
                tensors.push(vec![])
            }
            None => {
                return Err(EngineError::Weights(format!(
                    "missing tensor `{}`",
                    spec.name
                )))
            }
        }
    }
    let mut w = Weights::from_ordered(cfg, tensors);
    if w.lm_head.is_empty() {
        w.lm_head = w.embed_tokens.clone();
    }
    Ok(w)
}

/// Loads weights from one safetensors file.
pub fn load(cfg: &ModelConfig, path: &Path) -> Result<Weights, EngineError> {
    let bytes = read(path)?;
    from_buffers(cfg, &[&bytes])
}

fn read(path: &Path) -> Result<Vec<u8>, EngineError> {
    std::fs::read(path).map_err(|e| EngineError::Io(format!("{}: {e}", path.display())))
}

/// Loads a model folder: `config.json` plus `model.safetensors`, or the shards named by
/// `model.safetensors.index.json`.
pub fn load_dir(dir: &Path) -> Result<(ModelConfig, Weights), EngineError> {
    let cfg = ModelConfig::from_file(&dir.join("config.json"))?;
    let index = dir.join("model.safetensors.index.json");
    let files: Vec<std::path::PathBuf> = if index.exists() {
        #[derive(serde::Deserialize)]
        struct Index {
            weight_map: BTreeMap<String, String>,
        }
        let text = String::from_utf8(read(&index)?).map_err(|e| st_err("index", e))?;
        let idx: Index = serde_json::from_str(&text).map_err(|e| st_err("index", e))?;
        let mut shards: Vec<String> = idx.weight_map.into_values().collect();
        shards.sort();
        shards.dedup();
        for s in &shards {
            if s.contains('/') || s.starts_with('.') {
                return Err(EngineError::Weights(format!(
                    "shard name `{s}` is not a plain file name"
                )));
            }
        }
        shards.iter().map(|s| dir.join(s)).collect()
    } else {
        vec![dir.join("model.safetensors")]
    };
    let buffers: Vec<Vec<u8>> = files.iter().map(|f| read(f)).collect::<Result<_, _>>()?;
    let refs: Vec<&[u8]> = buffers.iter().map(|b| b.as_slice()).collect();
    let w = from_buffers(&cfg, &refs)?;
    Ok((cfg, w))
}

/// Writes a model folder: `config.json` and `model.safetensors`.
pub fn save_dir(cfg: &ModelConfig, w: &Weights, dir: &Path) -> Result<(), EngineError> {
    std::fs::create_dir_all(dir).map_err(|e| EngineError::Io(format!("{}: {e}", dir.display())))?;
    let config = dir.join("config.json");
    std::fs::write(&config, cfg.to_json())
        .map_err(|e| EngineError::Io(format!("{}: {e}", config.display())))?;
    save(cfg, w, &dir.join("model.safetensors"))
}
