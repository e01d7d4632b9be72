//! safetensors: synthesize, save, load, identical weights and bitwise identical logits;
//! HF-style folders, BF16 checkpoints, tied embeddings and malformed files.

mod common;

use std::collections::HashMap;

use cacheon_kernels::cpu::engine::Engine;
use cacheon_kernels::model::{checkpoint, EngineError, Logits, ModelConfig, Weights};
use common::{genesis_table, tiny, PROMPT};
use safetensors::tensor::{Dtype, TensorView};

fn logits(cfg: &ModelConfig, w: Weights) -> Vec<f32> {
    let mut e = Engine::new(cfg.clone(), w, genesis_table(), 1, 16).unwrap();
    e.prefill(0, &PROMPT, Logits::All).unwrap()
}

#[test]
fn safetensors_round_trip_gives_identical_logits() {
    let (cfg, w) = tiny();
    let dir = tempfile::tempdir().unwrap();
    checkpoint::save_dir(&cfg, &w, dir.path()).unwrap();
    let (cfg2, w2) = checkpoint::load_dir(dir.path()).unwrap();
    assert_eq!(cfg2, cfg);
    assert!(w2 == w, "weights changed in the round trip");
    let (a, b) = (logits(&cfg, w), logits(&cfg2, w2));
    assert_eq!(
        a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn hf_names_bf16_and_tied_embeddings_load() {
    let (mut cfg, w) = tiny();
    cfg.tie_word_embeddings = true;
    let w = Weights {
        lm_head: w.embed_tokens.clone(),
        ..w
    };
    // Write every tensor as BF16 with the HF names, lm_head omitted (tied).
    let specs = cacheon_kernels::model::weights::tensor_specs(&cfg);
    let data: Vec<(String, Vec<usize>, Vec<u8>)> = specs
        .iter()
        .zip(w.ordered())
        .filter(|(s, _)| s.name != "lm_head.weight")
        .map(|(s, t)| {
            let bytes = t
                .iter()
                .flat_map(|v| half::bf16::from_f32(*v).to_le_bytes())
                .collect();
            (s.name.clone(), s.shape.clone(), bytes)
        })
        .collect();
    assert!(data
        .iter()
        .any(|(n, _, _)| n == "model.layers.1.self_attn.q_proj.weight"));
    let views: HashMap<String, TensorView> = data
        .iter()
        .map(|(n, s, b)| {
            (
                n.clone(),
                TensorView::new(Dtype::BF16, s.clone(), b).unwrap(),
            )
        })
        .collect();
    let bytes = safetensors::serialize(views, None).unwrap();
    let loaded = checkpoint::from_buffers(&cfg, &[&bytes]).unwrap();
    assert_eq!(loaded.lm_head, loaded.embed_tokens);
    // bf16 has 8 significant bits: relative rounding error at most 2^-8.
    let (a, b) = (&loaded.layers[0].q_proj, &w.layers[0].q_proj);
    assert!(a
        .iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= y.abs() / 256.0));
    assert_ne!(a, b, "values should have been rounded to bf16");
}

#[test]
fn malformed_checkpoints_are_refused_with_the_tensor_name() {
    let (cfg, w) = tiny();
    let bytes = checkpoint::to_bytes(&cfg, &w).unwrap();
    // A config with a different intermediate size: every MLP tensor has the wrong shape.
    let other = ModelConfig {
        intermediate_size: 512,
        ..cfg.clone()
    };
    let err = checkpoint::from_buffers(&other, &[&bytes]).unwrap_err();
    assert!(
        matches!(&err, EngineError::Weights(m) if m.contains("mlp")),
        "{err}"
    );
    // One layer fewer: layer 1's tensors are unexpected.
    let fewer = ModelConfig {
        num_hidden_layers: 1,
        ..cfg.clone()
    };
    let err = checkpoint::from_buffers(&fewer, &[&bytes]).unwrap_err();
    assert!(
        matches!(&err, EngineError::Weights(m) if m.contains("model.layers.1")),
        "{err}"
    );
    // One layer more: layer 2's are missing.
    let more = ModelConfig {
        num_hidden_layers: 3,
        ..cfg.clone()
    };
    let err = checkpoint::from_buffers(&more, &[&bytes]).unwrap_err();
    assert!(
        matches!(&err, EngineError::Weights(m) if m.contains("missing tensor `model.layers.2")),
        "{err}"
    );
    assert!(checkpoint::from_buffers(&cfg, &[&bytes[..100]]).is_err());
}
