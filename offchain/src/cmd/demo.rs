//! `cacheon demo`: the main job on embedded defaults. A dev chain (`cacheon-node --dev
//! --tmp`), two validators (Alice and Bob) on an arena (`cpu-smollm2`, the real model, by
//! default; `h200-llama8b` on a GPU machine), and a miner (Charlie) whose faster kernel goes from pack, commit and reveal
//! through the lease, both attestations and the crown to the next epoch's weights and
//! payout; then everything is
//! stopped. Every step is printed as it happens (`--json`: one object per line, each with
//! an `event` field).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cacheon::arena::LaneBackend;
use cacheon::chain::{self, api};
use cacheon::exit;
use serde_json::json;

use super::{proposal, Out, StateArgs};
use crate::{ChainArgs, KeyArgs};

/// Child processes killed (and waited for) when dropped, so nothing outlives the demo.
struct Procs(Vec<(String, Child)>);

impl Drop for Procs {
    fn drop(&mut self) {
        for (name, c) in self.0.iter_mut().rev() {
            // SIGTERM first so validators can log their stop; then make sure.
            // SAFETY: kill(2) on a child this process started.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
            tracing::debug!("stopped {name}");
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(9944)
}

/// `--node`, else `cacheon-node` beside this binary, else on `PATH`.
fn node_binary(given: Option<&Path>) -> PathBuf {
    if let Some(p) = given {
        return p.to_path_buf();
    }
    if let Ok(me) = std::env::current_exe() {
        let beside = me.with_file_name("cacheon-node");
        if beside.exists() {
            return beside;
        }
    }
    PathBuf::from("cacheon-node")
}

/// The question the demo asks the real model before and after the crown.
const QUESTION: &str = "What is the capital of France? Answer in one sentence.";
/// Tokens of the answer generated (greedy; the text is cut at the end of the turn).
const ANSWER_TOKENS: usize = 24;

/// The arena's engine answering [`QUESTION`] in a lane, as a validator's lane runs it: the
/// stock kernels, then `stack` (crowned bundles) over them. Returns the answer and the
/// tokens per second of the whole read (prefill and decode), or `None` for a model
/// without a tokenizer (synthetic weights say nothing).
fn answer(
    arena: cacheon::arena::Arena,
    me: &Path,
    stack: &[Vec<u8>],
) -> Option<Result<(String, f64), String>> {
    let path = arena.model_path()?;
    let run = || -> Result<(String, f64), String> {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let g = cacheon_kernels::model::gguf::Gguf::parse(&bytes).map_err(|e| e.to_string())?;
        let tok = cacheon_kernels::model::tokenizer::Tokenizer::from_gguf(&g)
            .map_err(|e| e.to_string())?;
        let prompt = tok.encode(&tok.chat_prompt(QUESTION));
        let mut lane = cacheon::lane::Lane::spawn(me, arena.backend, Default::default())
            .map_err(|e| e.to_string())?;
        let weights = arena.engine_weights(0);
        lane.load_engine(
            arena.workload.model,
            weights,
            prompt.len() + ANSWER_TOKENS + 1,
            1,
            stack,
        )
        .map_err(|e| e.to_string())?;
        let t = Instant::now();
        let spec = cacheon::lane::protocol::ReadSpec {
            prompt: prompt.clone(),
            decode_steps: ANSWER_TOKENS,
            ..Default::default()
        };
        let read = lane.run(&spec, false, false).map_err(|e| e.to_string())?;
        let secs = t.elapsed().as_secs_f64();
        lane.shutdown();
        let end = read
            .tokens
            .iter()
            .position(|&t| t == tok.eos)
            .unwrap_or(read.tokens.len());
        Ok((
            tok.decode(&read.tokens[..end]),
            (prompt.len() + read.tokens.len()) as f64 / secs,
        ))
    };
    Some(run())
}

fn step(out: &Out, event: &str, fields: serde_json::Value, human: String) {
    let mut v = fields;
    v["event"] = json!(event);
    out.emit(v, || human);
}

pub async fn demo(
    out: &Out,
    node: Option<&Path>,
    arena: &str,
    bundle: Option<&Path>,
    block_ms: u64,
    keep: Option<&Path>,
) -> i32 {
    let Some(arena_spec) = cacheon::arena::arena(arena) else {
        return out.error(
            &format!("unknown arena `{arena}` ({})", cacheon::arena::names()),
            exit::USAGE,
        );
    };
    if arena_spec.backend == LaneBackend::Cuda {
        // Both validators measure on GPU 0 (one attempt at a time: the reproduction is
        // leased only after the first PASS). Refuse before any process starts.
        if let Err(e) = cacheon_kernels::CudaDevice::open(0) {
            return out.error(
                &format!("{arena} measures on a CUDA GPU and none opened here: {e}"),
                exit::USAGE,
            );
        }
    }
    if let Some(path) = arena_spec.model_path().filter(|p| !p.exists()) {
        return out.error(
            &format!(
                "{arena} needs its model at {} (scripts/setup.sh fetches it)",
                path.display()
            ),
            exit::USAGE,
        );
    }
    let started = Instant::now();
    let dir = match tempfile::Builder::new().prefix("cacheon-demo-").tempdir() {
        Ok(d) => d,
        Err(e) => return out.error(&format!("temp dir: {e}"), exit::USAGE),
    };
    let work = keep
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.path().to_path_buf());
    let _ = std::fs::create_dir_all(&work);
    let me = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return out.error(&format!("cannot find the cacheon binary: {e}"), exit::USAGE),
    };
    let Some(bundle) = bundle
        .map(Path::to_path_buf)
        .or_else(|| default_bundle(arena))
    else {
        return out.error(
            &format!(
                "{arena} has no example bundle that beats its stock kernels by the margin yet: give --bundle DIR"
            ),
            exit::USAGE,
        );
    };
    if !bundle.is_dir() {
        return out.error(
            &format!(
                "example bundle {} not found (give --bundle DIR)",
                bundle.display()
            ),
            exit::USAGE,
        );
    }
    let mut procs = Procs(Vec::new());

    // 1. The chain.
    let rpc = free_port();
    let node_bin = node_binary(node);
    let log = |name: &str| std::fs::File::create(work.join(format!("{name}.log")));
    let Ok(node_log) = log("node") else {
        return out.error("cannot write logs", exit::USAGE);
    };
    let child = Command::new(&node_bin)
        .args([
            "--dev",
            "--tmp",
            "--no-telemetry",
            "--no-mdns",
            "--no-prometheus",
        ])
        .args([
            "--dev-block-time",
            &block_ms.to_string(),
            "--rpc-port",
            &rpc.to_string(),
        ])
        .args(["--port", &free_port().to_string()])
        .stdout(Stdio::null())
        .stderr(node_log)
        .spawn();
    match child {
        Ok(c) => procs.0.push(("node".into(), c)),
        Err(e) => {
            return out.error(
                &format!(
                    "starting {}: {e} (build it: cargo build -p cacheon-node, or give --node)",
                    node_bin.display()
                ),
                exit::CHAIN_UNAVAILABLE,
            )
        }
    }
    let url = format!("ws://127.0.0.1:{rpc}");
    let client = match chain::connect(&url, Duration::from_secs(180)).await {
        Ok(c) => c,
        Err(e) => {
            return out.error(
                &format!("{e} (node log: {})", work.join("node.log").display()),
                exit::CHAIN_UNAVAILABLE,
            )
        }
    };
    // Let the chain settle (a few finalized blocks) before the first transactions.
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_secs(60) {
        match client.at_current_block().await {
            Ok(at) if at.block_number() >= 3 => break,
            _ => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    step(
        out,
        "chain_started",
        json!({"url": url, "logs": work.display().to_string()}),
        format!(
            "chain   dev node at {url}, a finalized block every {block_ms} ms (logs in {})",
            work.display()
        ),
    );

    // The real model's answer with the stock kernels (before any validator runs: nothing
    // else is timed on this machine meanwhile).
    let before = answer(arena_spec, &me, &[]);
    if let Some(r) = &before {
        match r {
            Ok((text, tps)) => step(
                out,
                "answer_before",
                json!({"question": QUESTION, "answer": text, "tokens_per_s": tps}),
                format!("model   {QUESTION}\n        stock kernels, {tps:.1} tokens/s: {text}"),
            ),
            Err(e) => return out.error(&format!("the model's answer: {e}"), exit::NO_DECISION),
        }
    }

    // 2. Two validators on the arena.
    for (name, suri) in [("alice", "//Alice"), ("bob", "//Bob")] {
        let Ok(l) = log(name) else {
            return out.error("cannot write logs", exit::USAGE);
        };
        let child = Command::new(&me)
            .args(["validator", "--arena", arena, "--suri", suri, "--url", &url])
            .arg("--data-dir")
            .arg(work.join(name))
            .env("CACHEON_LOG", "info")
            .stdout(Stdio::null())
            .stderr(l)
            .spawn();
        match child {
            Ok(c) => procs.0.push((name.into(), c)),
            Err(e) => return out.error(&format!("starting validator {name}: {e}"), exit::USAGE),
        }
        step(
            out,
            "validator_started",
            json!({"validator": name, "arena": arena}),
            format!("validator {name} serving {arena}"),
        );
    }

    // 3. The miner: pack, commit, reveal.
    let charlie: chain::AccountId = subxt_signer::sr25519::dev::charlie().public_key().into();
    let balance_before = free_balance(&client, &charlie).await;
    let c = ChainArgs {
        url: url.clone(),
        timeout: 120,
    };
    let key = KeyArgs {
        suri: Some("//Charlie".into()),
        key_file: None,
    };
    let state = StateArgs {
        state_dir: Some(work.join("miner")),
    };
    let packed = cacheon_kernels::bundle::read_dir(&bundle)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            cacheon_kernels::bundle::canonical_bytes(&f, cacheon_kernels::bundle::MAX_BUNDLE_BYTES)
                .map_err(|e| e.to_string())
        });
    let canonical = match packed {
        Ok(c) => c,
        Err(e) => return out.error(&format!("{}: {e}", bundle.display()), exit::FAIL),
    };
    let hash = hex::encode(cacheon_primitives::bundle::content_hash(&canonical));
    step(
        out,
        "packed",
        json!({"bundle": bundle.display().to_string(), "content_hash": hash, "bytes": canonical.len()}),
        format!(
            "miner   Charlie packed {} ({} bytes, ContentHash 0x{hash})",
            bundle.display(),
            canonical.len()
        ),
    );
    if proposal::commit(out, &bundle, arena, None, &key, &c, &state).await != exit::OK {
        return exit::FAIL;
    }
    let (code, proposal) = proposal::reveal_id(out, &bundle, &key, &c, &state).await;
    let Some(proposal) = proposal else {
        return code;
    };

    // 4. Lease, attestations, crown.
    if proposal::watch(out, proposal, &c, 900).await != exit::OK {
        return out.error(
            &format!(
                "proposal {proposal} was not crowned (validator logs in {})",
                work.display()
            ),
            exit::FAIL,
        );
    }

    // The same question with the crowned kernel in place: the same answer, faster.
    if let Some(Ok((before_text, before_tps))) = &before {
        match answer(arena_spec, &me, std::slice::from_ref(&canonical)) {
            Some(Ok((text, tps))) => step(
                out,
                "answer_after",
                json!({"question": QUESTION, "answer": text, "tokens_per_s": tps, "same_answer": &text == before_text, "speedup": tps / before_tps}),
                format!(
                    "model   crowned kernel, {tps:.1} tokens/s ({:.2}x), {}: {text}",
                    tps / before_tps,
                    if &text == before_text {
                        "the same answer"
                    } else {
                        "A DIFFERENT ANSWER"
                    }
                ),
            ),
            Some(Err(e)) => {
                return out.error(&format!("the model's answer: {e}"), exit::NO_DECISION)
            }
            None => {}
        }
    }

    // 5. The next epoch's weights and payout.
    let wait = async {
        let mut blocks = client.stream_blocks().await.map_err(|e| e.to_string())?;
        let mut weights_seen = false;
        while let Some(b) = blocks.next().await {
            let b = b.map_err(|e| e.to_string())?;
            let at = b.at().await.map_err(|e| e.to_string())?;
            let events = at.events().fetch().await.map_err(|e| e.to_string())?;
            for w in events.find::<api::cacheon::events::WeightsSet>().flatten() {
                let ws: Vec<(String, u32)> = w
                    .weights
                    .0
                    .iter()
                    .map(|(a, p)| (a.to_string(), *p))
                    .collect();
                let mine = ws
                    .iter()
                    .find(|(a, _)| *a == charlie.to_string())
                    .map(|(_, p)| *p);
                if let Some(ppm) = mine {
                    weights_seen = true;
                    step(
                        out,
                        "weights",
                        json!({"epoch": w.epoch, "block": b.number(), "weights": ws, "miner_ppm": ppm}),
                        format!(
                            "#{:<6} weights   epoch {}: Charlie holds {ppm} ppm of {} account(s)",
                            b.number(),
                            w.epoch,
                            ws.len()
                        ),
                    );
                }
            }
            for p in events
                .find::<api::cacheon::events::EmissionsPaid>()
                .flatten()
            {
                if weights_seen {
                    let after = free_balance(&client, &charlie).await;
                    step(
                        out,
                        "payout",
                        json!({"epoch": p.epoch, "block": b.number(), "total": p.total.to_string(), "miner_received": after.saturating_sub(balance_before).to_string()}),
                        {
                            let delta = after as i128 - balance_before as i128;
                            let sign = if delta >= 0 { "+" } else { "" };
                            format!("#{:<6} payout    epoch {}: {} paid; Charlie's balance {sign}{} (fees and deposits included)", b.number(), p.epoch, super::display::units(p.total as i128), super::display::units(delta))
                        },
                    );
                    return Ok(());
                }
            }
        }
        Err("the block subscription ended".to_string())
    };
    match tokio::time::timeout(Duration::from_secs(300), wait).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return out.error(&e, exit::CHAIN_UNAVAILABLE),
        Err(_) => {
            return out.error(
                "no weights and payout for the miner within 300 s",
                exit::CHAIN_UNAVAILABLE,
            )
        }
    }
    drop(procs);
    step(
        out,
        "done",
        json!({"seconds": started.elapsed().as_secs_f64()}),
        format!(
            "done    in {:.0} s; node and validators stopped",
            started.elapsed().as_secs_f64()
        ),
    );
    exit::OK
}

async fn free_balance(client: &chain::Client, who: &chain::AccountId) -> u128 {
    let Ok(at) = client.at_current_block().await else {
        return 0;
    };
    chain::reads::fetch(&at, api::storage().system().account(), (*who,))
        .await
        .ok()
        .flatten()
        .map(|a| a.data.free)
        .unwrap_or(0)
}

/// The repository's clear win for `arena`, when run from a checkout: the matrix product on
/// the real model (93 % of its reads), one-pass attention on the tiny one. The GPU arena
/// has none yet (the best measured, a decode-row matrix product with more loads in flight,
/// reads 0.7 % faster on an H100, under its 1 % margin).
fn default_bundle(arena: &str) -> Option<PathBuf> {
    let example = match arena {
        "cpu-tiny" => "attention-onepass",
        "cpu-smollm2" => "matmul-avx2",
        _ => return None,
    };
    let from_source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/cpu")
        .join(example);
    if from_source.is_dir() {
        return Some(from_source);
    }
    Some(PathBuf::from("examples/cpu").join(example))
}
