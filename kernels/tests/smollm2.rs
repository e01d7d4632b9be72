//! SmolLM2-135M-Instruct, the real model of the CPU arena, against values computed apart
//! from this crate (`fixtures/smollm2_expected.json`, written by
//! `fixtures/smollm2_reference.py`: Hugging Face `tokenizers` for the ids, a float64 NumPy
//! forward pass with llama.cpp's RoPE over gguf-py's dequantized tensors for the greedy
//! continuation). Skipped with a message where setup has not fetched the model.

use cacheon_kernels::cpu::engine::{Engine, SlotTable};
use cacheon_kernels::model::llama_gguf::{self, GgufModel};
use cacheon_kernels::model::Sampler;
use cacheon_kernels::CpuBuildOptions;

fn expected() -> serde_json::Value {
    let text = include_str!("fixtures/smollm2_expected.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("an id list")
        .iter()
        .map(|i| i.as_u64().expect("an id") as u32)
        .collect()
}

fn model() -> Option<GgufModel> {
    let path = llama_gguf::smollm2_path();
    if !path.exists() {
        eprintln!(
            "SKIPPED: no {} (scripts/setup.sh fetches it; or set CACHEON_SMOLLM2_GGUF)",
            path.display()
        );
        return None;
    }
    Some(llama_gguf::load(&path).expect("the SmolLM2 file loads"))
}

#[test]
fn tokenizer_matches_hugging_face_tokenizers_and_round_trips() {
    let Some(m) = model() else { return };
    let want = expected();
    for case in want["encoded"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let got = m.tokenizer.encode(text);
        assert_eq!(got, ids(&case["ids"]), "{text:?}");
        assert_eq!(m.tokenizer.decode(&got), text, "round trip of {text:?}");
    }
    let prompt = m.tokenizer.chat_prompt(want["question"].as_str().unwrap());
    assert_eq!(m.tokenizer.encode(&prompt), ids(&want["prompt_ids"]));
    assert_eq!((m.tokenizer.bos, m.tokenizer.eos), (1, 2));
}

#[test]
fn greedy_generation_matches_an_independent_forward_pass() {
    let Some(m) = model() else { return };
    let want = expected();
    let cfg = m.config.clone();
    assert_eq!(
        (
            cfg.num_hidden_layers,
            cfg.hidden_size,
            cfg.head_dim(),
            cfg.kv_heads()
        ),
        (30, 576, 64, 3)
    );
    assert!(cfg.tie_word_embeddings);
    let prompt = ids(&want["prompt_ids"]);
    let generated = ids(&want["generated_ids"]);
    assert!(generated.len() >= 32);
    let slots = SlotTable::genesis_cpu(&CpuBuildOptions::default()).expect("stock kernels build");
    let mut engine = Engine::new(cfg, m.weights, slots, 1, 256).unwrap();
    let got = engine
        .generate(0, &prompt, generated.len(), &mut Sampler::greedy())
        .unwrap();
    assert_eq!(
        m.tokenizer.decode(&got),
        want["generated_text"].as_str().unwrap()
    );
    assert_eq!(got, generated);
}
