//! `cacheon generate`: the CPU engine answering one prompt on a real model
//! (SmolLM2-135M-Instruct from GGUF), for a person to try the engine the arenas measure:
//! with the stock kernels, or with an engine release's (`--release DIR`: verified, each
//! kernel built here and checked byte for byte against the release; docs/release.md).
//! Greedy, ChatML; the answer is printed as it is generated, then the prefill and decode
//! speeds.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use cacheon::exit;
use cacheon::release::Keys;
use cacheon_kernels::cpu::engine::{Engine, SlotTable};
use cacheon_kernels::model::tokenizer::Tokenizer;
use cacheon_kernels::model::{llama_gguf, Logits};
use cacheon_kernels::CpuBuildOptions;
use serde_json::json;

use super::Out;

pub fn generate(
    out: &Out,
    model: Option<&Path>,
    release: Option<&Path>,
    prompt: &str,
    max_tokens: usize,
    raw: bool,
) -> i32 {
    let verified = match release.map(|dir| cacheon::release::verify(dir, &Keys::embedded(), false))
    {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => return out.error(&format!("the release is refused: {e}"), exit::FAIL),
        None => None,
    };
    let release_model = match &verified {
        Some(v) => match cacheon::arena::arena(&v.release.arena).and_then(|a| a.model_path()) {
            Some(p) => Some(p),
            None => {
                return out.error(
                    &format!(
                        "the release is for arena {}, which has no model file to run",
                        v.release.arena
                    ),
                    exit::USAGE,
                )
            }
        },
        None => None,
    };
    let path = release_model
        .or_else(|| model.map(Path::to_path_buf))
        .unwrap_or_else(llama_gguf::smollm2_path);
    if !path.exists() {
        return out.error(
            &format!(
                "no model at {} (scripts/setup.sh fetches SmolLM2; or pass --model FILE.gguf)",
                path.display()
            ),
            exit::USAGE,
        );
    }
    let loaded = Instant::now();
    let m = match llama_gguf::load(&path) {
        Ok(m) => m,
        Err(e) => return out.error(&format!("{}: {e}", path.display()), exit::USAGE),
    };
    let slots = match &verified {
        Some(v) => match cacheon::release::slot_table(v) {
            Ok(s) => s,
            Err(e) => return out.error(&format!("the release is refused: {e}"), exit::FAIL),
        },
        None => match SlotTable::genesis_cpu(&CpuBuildOptions::default()) {
            Ok(s) => s,
            Err(e) => {
                return out.error(
                    &format!("building the stock kernels: {e}"),
                    exit::NO_DECISION,
                )
            }
        },
    };
    let kernels = match &verified {
        Some(v) => format!(
            "release kernels: {} integrated over the stock set",
            v.release.kernels.len()
        ),
        None => "stock kernels".to_string(),
    };
    let text = if raw {
        prompt.to_string()
    } else {
        m.tokenizer.chat_prompt(prompt)
    };
    let ids = m.tokenizer.encode(&text);
    let max_seq = (ids.len() + max_tokens).min(m.config.max_position_embeddings);
    if ids.is_empty() || ids.len() >= max_seq {
        return out.error(
            "the prompt is empty or longer than the model's context",
            exit::USAGE,
        );
    }
    let tokenizer = m.tokenizer.clone();
    let mut engine = match Engine::new(m.config, m.weights, slots, 1, max_seq) {
        Ok(e) => e,
        Err(e) => return out.error(&e.to_string(), exit::USAGE),
    };
    let load_s = loaded.elapsed().as_secs_f64();

    let started = Instant::now();
    let logits = match engine.prefill(0, &ids, Logits::Last) {
        Ok(l) => l,
        Err(e) => return out.error(&e.to_string(), exit::NO_DECISION),
    };
    let prefill_s = started.elapsed().as_secs_f64();
    let decoding = Instant::now();
    let limit = max_seq - ids.len();
    let (answer, shown) = match decode_greedy(out, &mut engine, &tokenizer, logits, limit) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let decode_s = decoding.elapsed().as_secs_f64();
    let text = tokenizer.decode(&answer);
    let (prefill_tps, decode_tps) = (
        ids.len() as f64 / prefill_s.max(1e-9),
        answer.len() as f64 / decode_s.max(1e-9),
    );
    if out.json {
        out.emit(
            json!({
                "model": path.display().to_string(),
                "release": verified.as_ref().map(|v| json!({
                    "arena": v.release.arena,
                    "signer": v.signer,
                    "proposals": v.release.kernels.iter().map(|k| k.proposal).collect::<Vec<_>>(),
                })),
                "prompt_tokens": ids.len(),
                "generated_tokens": answer.len(),
                "text": text,
                "token_ids": answer,
                "load_s": load_s,
                "prefill_tokens_per_s": prefill_tps,
                "decode_tokens_per_s": decode_tps,
            }),
            String::new,
        );
    } else {
        let rest = text.strip_prefix(shown.as_str()).unwrap_or("");
        println!("{rest}");
        eprintln!(
            "{} prompt tokens at {prefill_tps:.1} tokens/s, {} generated at {decode_tps:.1} tokens/s ({kernels}, one core; model loaded in {load_s:.1} s)",
            ids.len(),
            answer.len()
        );
    }
    exit::OK
}

/// Greedy decoding from the prompt's `logits` until the end of the turn or `limit` tokens,
/// each printed as it is generated (not with `--json`); returns the tokens and the text
/// printed so far.
fn decode_greedy(
    out: &Out,
    engine: &mut Engine,
    tokenizer: &Tokenizer,
    mut logits: Vec<f32>,
    limit: usize,
) -> Result<(Vec<u32>, String), i32> {
    let mut answer: Vec<u32> = Vec::new();
    let mut shown = String::new();
    let mut stdout = std::io::stdout();
    while answer.len() < limit {
        let next = cacheon_kernels::model::sampler::argmax(&logits);
        if next == tokenizer.eos {
            break;
        }
        answer.push(next);
        if !out.json {
            // Print what the tokens so far decode to beyond what is shown (a character
            // split over tokens waits for its last byte).
            let now = tokenizer.decode(&answer);
            if let Some(new) = now.strip_prefix(shown.as_str()) {
                if !new.ends_with('\u{fffd}') {
                    let _ = write!(stdout, "{new}");
                    let _ = stdout.flush();
                    shown = now;
                }
            }
        }
        logits = match engine.decode(&[next]) {
            Ok(l) => l,
            Err(e) => return Err(out.error(&e.to_string(), exit::NO_DECISION)),
        };
    }
    Ok((answer, shown))
}
