//! The GGUF reader against an independent implementation: `fixtures/tiny.gguf` and the
//! values gguf-py (llama.cpp's own Python package) read back from it, written by
//! `fixtures/make_gguf.py`; hostile and cut-off files; and, where it is on this machine,
//! the SmolLM2 file of the CPU arena (values again from gguf-py).

use std::path::PathBuf;

use cacheon_kernels::model::gguf::{Gguf, GgufError, TensorType, Value};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::U8(x) => (*x).into(),
        Value::I8(x) => (*x).into(),
        Value::U16(x) => (*x).into(),
        Value::I16(x) => (*x).into(),
        Value::U32(x) => (*x).into(),
        Value::I32(x) => (*x).into(),
        Value::U64(x) => (*x).into(),
        Value::I64(x) => (*x).into(),
        Value::F32(x) => (*x as f64).into(),
        Value::F64(x) => (*x).into(),
        Value::Bool(x) => (*x).into(),
        Value::Str(x) => x.as_str().into(),
        Value::Array(items) => items.iter().map(to_json).collect(),
    }
}

#[test]
fn reads_what_gguf_py_wrote_bit_for_bit() {
    let bytes = std::fs::read(fixture("tiny.gguf")).unwrap();
    let want: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("tiny.gguf.json")).unwrap()).unwrap();
    let g = Gguf::parse(&bytes).unwrap();
    let meta = want["metadata"].as_object().unwrap();
    assert_eq!(g.metadata.len(), meta.len());
    for (key, value) in meta {
        assert_eq!(&to_json(&g.metadata[key]), value, "{key}");
    }
    let tensors = want["tensors"].as_object().unwrap();
    assert_eq!(g.tensors.len(), tensors.len());
    for (name, t) in tensors {
        let info = g.tensor(name).unwrap();
        let dims: Vec<u64> = t["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(info.dims, dims, "{name}");
        let kind = match t["type"].as_str().unwrap() {
            "F32" => TensorType::F32,
            "F16" => TensorType::F16,
            "Q8_0" => TensorType::Q8_0,
            "Q4_1" => TensorType::Q4_1,
            other => panic!("fixture type {other}"),
        };
        assert_eq!(info.kind, kind, "{name}");
        let got: Vec<u32> = g
            .tensor_f32(&bytes, name)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let want: Vec<u32> = t["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_cut_off_or_hostile_file_is_an_error_never_a_panic() {
    let bytes = std::fs::read(fixture("tiny.gguf")).unwrap();
    let g = Gguf::parse(&bytes).unwrap();
    // Every prefix: the header, metadata and tensor descriptions fail cleanly, and a file
    // cut inside the data section fails on the tensors it no longer holds.
    for len in 0..bytes.len() {
        if let Ok(cut) = Gguf::parse(&bytes[..len]) {
            assert!(len as u64 >= cut.data_start, "parsed a cut header at {len}");
        }
    }
    assert_eq!(
        Gguf::parse(b"GGML\x03\0\0\0").unwrap_err(),
        GgufError::Magic
    );
    let mut v2 = bytes.clone();
    v2[4] = 2;
    assert_eq!(Gguf::parse(&v2).unwrap_err(), GgufError::Version(2));
    // A tensor count the file cannot hold is refused before anything is allocated.
    let mut huge = bytes.clone();
    huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Gguf::parse(&huge),
        Err(GgufError::TooLarge { .. })
    ));
    // A value type that does not exist (the first key's type follows its name).
    let key_len = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    let mut kind = bytes.clone();
    kind[32 + key_len..36 + key_len].copy_from_slice(&99u32.to_le_bytes());
    assert_eq!(Gguf::parse(&kind).unwrap_err(), GgufError::ValueType(99));
    // A tensor whose bytes would lie past the end of the file.
    let last = g.tensors.last().unwrap();
    let short = &bytes[..(g.data_start + last.offset + 1) as usize];
    let err = Gguf::parse(short).unwrap_err();
    assert!(
        matches!(&err, GgufError::Tensor { name, .. } if name == &last.name),
        "{err}"
    );
    assert!(matches!(g.tensor("missing"), Err(GgufError::NoTensor(_))));
}

/// The CPU arena's model file, where this machine has it (`scripts/setup.sh` fetches it).
fn smollm2() -> Option<Vec<u8>> {
    std::fs::read(cacheon_kernels::model::llama_gguf::smollm2_path()).ok()
}

#[test]
fn reads_the_smollm2_file_as_gguf_py_does() {
    let Some(bytes) = smollm2() else {
        eprintln!("SKIPPED: no SmolLM2-135M-Instruct.Q4_1.gguf here (set CACHEON_SMOLLM2_GGUF)");
        return;
    };
    let g = Gguf::parse(&bytes).unwrap();
    let u = |k: &str| g.metadata[k].as_u64().unwrap();
    assert_eq!(g.metadata["general.architecture"].as_str(), Some("llama"));
    assert_eq!(
        [
            u("llama.block_count"),
            u("llama.embedding_length"),
            u("llama.attention.head_count"),
            u("llama.attention.head_count_kv"),
            u("llama.feed_forward_length"),
            u("llama.vocab_size"),
        ],
        [30, 576, 9, 3, 1536, 49_152]
    );
    assert_eq!(g.metadata["llama.rope.freq_base"].as_f32(), Some(100_000.0));
    assert_eq!(g.metadata["tokenizer.ggml.model"].as_str(), Some("gpt2"));
    assert_eq!(
        g.metadata["tokenizer.ggml.tokens"]
            .as_array()
            .unwrap()
            .len(),
        49_152
    );
    let count = |k: TensorType| g.tensors.iter().filter(|t| t.kind == k).count();
    assert_eq!(
        (
            count(TensorType::Q4_1),
            count(TensorType::F32),
            count(TensorType::Q8_0)
        ),
        (210, 61, 1)
    );
    assert!(
        g.tensor("output.weight").is_err(),
        "tied embeddings: no output matrix"
    );
    // Elements 0, 1, 31, 32, 1000 and the last, as gguf-py dequantizes them (f32 bits).
    for (name, want) in [
        (
            "token_embd.weight",
            [
                3185193984u32,
                1023874048,
                3192731392,
                3183441408,
                1005772800,
                3173699584,
            ],
        ),
        (
            "blk.0.ffn_down.weight",
            [
                3198771200, 1051799552, 3178627072, 1026195456, 1048272896, 3191453696,
            ],
        ),
        (
            "blk.29.attn_v.weight",
            [
                1041309696, 3196985344, 3192283136, 1019215872, 3199680512, 1029308416,
            ],
        ),
    ] {
        let v = g.tensor_f32(&bytes, name).unwrap();
        let at = [0, 1, 31, 32, 1000, v.len() - 1];
        let got: Vec<u32> = at.iter().map(|&i| v[i].to_bits()).collect();
        assert_eq!(got, want, "{name}");
    }
}
