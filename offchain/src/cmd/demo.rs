//! `cacheon demo`: the main job on embedded defaults. A dev chain (`cacheon-node --dev
//! --tmp`), the dev chain's three validators (Alice, Bob and Dave) on an arena (`cpu-smollm2`, the real model, by
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
    match run(out, node, arena, bundle, block_ms, keep).await {
        Ok(()) => exit::OK,
        Err(code) => code,
    }
}

/// The demo's steps in order; `Err` is the exit code of the step that failed (its error
/// already printed). Everything started is stopped when this returns.
async fn run(
    out: &Out,
    node: Option<&Path>,
    arena: &str,
    bundle: Option<&Path>,
    block_ms: u64,
    keep: Option<&Path>,
) -> Result<(), i32> {
    let arena_spec = check_arena(out, arena)?;
    let started = Instant::now();
    let ws = Workspace::new(out, arena, bundle, keep)?;
    let mut procs = Procs(Vec::new());

    // 1. The chain.
    let (url, client) = start_chain(out, &mut procs, node, &ws.work, block_ms).await?;

    // The real model's answer with the stock kernels (before any validator runs: nothing
    // else is timed on this machine meanwhile).
    let before = answer_before(out, arena_spec, &ws.me)?;

    // 2. The validators on the arena.
    start_validators(out, &mut procs, &ws, arena, &url)?;

    // 3. The miner: pack, commit, reveal.
    let charlie: chain::AccountId = subxt_signer::sr25519::dev::charlie().public_key().into();
    let balance_before = free_balance(&client, &charlie).await;
    let miner = Miner::charlie(&url, &ws.work);
    let canonical = pack(out, &ws.bundle)?;
    let proposal = commit_and_reveal(out, &ws.bundle, arena, &miner).await?;

    // 4. Lease, attestations, crown.
    if proposal::watch(out, proposal, &miner.chain, 900).await != exit::OK {
        return Err(out.error(
            &format!(
                "proposal {proposal} was not crowned (validator logs in {})",
                ws.work.display()
            ),
            exit::FAIL,
        ));
    }

    // The same question with the crowned kernel in place: the same answer, faster.
    if let Some(before) = &before {
        answer_after(out, arena_spec, &ws.me, &canonical, before)?;
    }

    // 5. The next epoch's weights and payout.
    weights_and_payout(out, &client, &charlie, balance_before).await?;
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
    Ok(())
}

/// The arena, if it runs here: a CUDA arena needs a GPU, a real model its file. Checked
/// before any process starts.
fn check_arena(out: &Out, arena: &str) -> Result<cacheon::arena::Arena, i32> {
    let Some(arena_spec) = cacheon::arena::arena(arena) else {
        return Err(out.error(
            &format!("unknown arena `{arena}` ({})", cacheon::arena::names()),
            exit::USAGE,
        ));
    };
    if arena_spec.backend == LaneBackend::Cuda {
        // Both validators measure on GPU 0 (one attempt at a time: the reproduction is
        // leased only after the first PASS). Refuse before any process starts.
        if let Err(e) = cacheon_kernels::CudaDevice::open(0) {
            return Err(out.error(
                &format!("{arena} measures on a CUDA GPU and none opened here: {e}"),
                exit::USAGE,
            ));
        }
    }
    if let Some(path) = arena_spec.model_path().filter(|p| !p.exists()) {
        return Err(out.error(
            &format!(
                "{arena} needs its model at {} (scripts/setup.sh fetches it)",
                path.display()
            ),
            exit::USAGE,
        ));
    }
    Ok(arena_spec)
}

/// Where the demo works: its folder (logs, the validators' data, the miner's state; a
/// temporary one, removed at the end, unless `--keep` names one), this binary (the
/// validators and the lanes run it) and the miner's bundle.
struct Workspace {
    _temp: tempfile::TempDir,
    work: PathBuf,
    me: PathBuf,
    bundle: PathBuf,
}

impl Workspace {
    fn new(
        out: &Out,
        arena: &str,
        bundle: Option<&Path>,
        keep: Option<&Path>,
    ) -> Result<Workspace, i32> {
        let temp = match tempfile::Builder::new().prefix("cacheon-demo-").tempdir() {
            Ok(d) => d,
            Err(e) => return Err(out.error(&format!("temp dir: {e}"), exit::USAGE)),
        };
        let work = keep
            .map(Path::to_path_buf)
            .unwrap_or_else(|| temp.path().to_path_buf());
        let _ = std::fs::create_dir_all(&work);
        let me = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                return Err(out.error(&format!("cannot find the cacheon binary: {e}"), exit::USAGE))
            }
        };
        let Some(bundle) = bundle
            .map(Path::to_path_buf)
            .or_else(|| default_bundle(arena))
        else {
            return Err(out.error(
                &format!(
                    "{arena} has no example bundle that beats its stock kernels by the margin yet: give --bundle DIR"
                ),
                exit::USAGE,
            ));
        };
        if !bundle.is_dir() {
            return Err(out.error(
                &format!(
                    "example bundle {} not found (give --bundle DIR)",
                    bundle.display()
                ),
                exit::USAGE,
            ));
        }
        Ok(Workspace {
            _temp: temp,
            work,
            me,
            bundle,
        })
    }

    /// A process's log file in the work folder.
    fn log(&self, name: &str) -> std::io::Result<std::fs::File> {
        log_file(&self.work, name)
    }
}

fn log_file(work: &Path, name: &str) -> std::io::Result<std::fs::File> {
    std::fs::File::create(work.join(format!("{name}.log")))
}

/// Starts a dev node (`procs` keeps it), connects to it and waits for a few finalized
/// blocks; returns its RPC URL and the client.
async fn start_chain(
    out: &Out,
    procs: &mut Procs,
    node: Option<&Path>,
    work: &Path,
    block_ms: u64,
) -> Result<(String, chain::Client), i32> {
    let rpc = free_port();
    let node_bin = node_binary(node);
    let Ok(node_log) = log_file(work, "node") else {
        return Err(out.error("cannot write logs", exit::USAGE));
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
            return Err(out.error(
                &format!(
                    "starting {}: {e} (build it: cargo build -p cacheon-node, or give --node)",
                    node_bin.display()
                ),
                exit::CHAIN_UNAVAILABLE,
            ))
        }
    }
    let url = format!("ws://127.0.0.1:{rpc}");
    let client = match chain::connect(&url, Duration::from_secs(180)).await {
        Ok(c) => c,
        Err(e) => {
            return Err(out.error(
                &format!("{e} (node log: {})", work.join("node.log").display()),
                exit::CHAIN_UNAVAILABLE,
            ))
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
    Ok((url, client))
}

/// The real model's answer to [`QUESTION`] with the stock kernels, printed; `None` for a
/// model without a tokenizer.
fn answer_before(
    out: &Out,
    arena: cacheon::arena::Arena,
    me: &Path,
) -> Result<Option<(String, f64)>, i32> {
    match answer(arena, me, &[]) {
        Some(Ok((text, tps))) => {
            step(
                out,
                "answer_before",
                json!({"question": QUESTION, "answer": text, "tokens_per_s": tps}),
                format!("model   {QUESTION}\n        stock kernels, {tps:.1} tokens/s: {text}"),
            );
            Ok(Some((text, tps)))
        }
        Some(Err(e)) => Err(out.error(&format!("the model's answer: {e}"), exit::NO_DECISION)),
        None => Ok(None),
    }
}

/// The same question with the crowned bundle (`canonical`) over the stock kernels, printed
/// beside the answer `before` it.
fn answer_after(
    out: &Out,
    arena: cacheon::arena::Arena,
    me: &Path,
    canonical: &[u8],
    (before_text, before_tps): &(String, f64),
) -> Result<(), i32> {
    match answer(arena, me, &[canonical.to_vec()]) {
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
            return Err(out.error(&format!("the model's answer: {e}"), exit::NO_DECISION))
        }
        None => {}
    }
    Ok(())
}

/// The dev chain's validators, Alice, Bob and Dave (the development genesis registers all
/// three in every arena), serving `arena` on the chain at `url` (`procs` keeps them). Every
/// registered one runs: an honest NoDecision (a noisy read on a busy machine) bars its
/// operator from the proposal while another registered operator may take it, so with a
/// registered validator not running the proposal would wait for it until its wait ran out.
/// Only one measures at a time: a proposal has one lease at a time.
fn start_validators(
    out: &Out,
    procs: &mut Procs,
    ws: &Workspace,
    arena: &str,
    url: &str,
) -> Result<(), i32> {
    for (name, suri) in [("alice", "//Alice"), ("bob", "//Bob"), ("dave", "//Dave")] {
        let Ok(l) = ws.log(name) else {
            return Err(out.error("cannot write logs", exit::USAGE));
        };
        let child = Command::new(&ws.me)
            .args(["validator", "--arena", arena, "--suri", suri, "--url", url])
            .arg("--data-dir")
            .arg(ws.work.join(name))
            .env("CACHEON_LOG", "info")
            .stdout(Stdio::null())
            .stderr(l)
            .spawn();
        match child {
            Ok(c) => procs.0.push((name.into(), c)),
            Err(e) => {
                return Err(out.error(&format!("starting validator {name}: {e}"), exit::USAGE))
            }
        }
        step(
            out,
            "validator_started",
            json!({"validator": name, "arena": arena}),
            format!("validator {name} serving {arena}"),
        );
    }
    Ok(())
}

/// Charlie, the miner: the chain he submits to, his key and his local state (the salts).
struct Miner {
    chain: ChainArgs,
    key: KeyArgs,
    state: StateArgs,
}

impl Miner {
    fn charlie(url: &str, work: &Path) -> Miner {
        Miner {
            chain: ChainArgs {
                url: url.to_string(),
                timeout: 120,
            },
            key: KeyArgs {
                suri: Some("//Charlie".into()),
                key_file: None,
            },
            state: StateArgs {
                state_dir: Some(work.join("miner")),
            },
        }
    }
}

/// The bundle's canonical bytes (what the chain stores and the crowned stack runs),
/// printed with its ContentHash.
fn pack(out: &Out, bundle: &Path) -> Result<Vec<u8>, i32> {
    let packed = cacheon_kernels::bundle::read_dir(bundle)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            cacheon_kernels::bundle::canonical_bytes(&f, cacheon_kernels::bundle::MAX_BUNDLE_BYTES)
                .map_err(|e| e.to_string())
        });
    let canonical = match packed {
        Ok(c) => c,
        Err(e) => return Err(out.error(&format!("{}: {e}", bundle.display()), exit::FAIL)),
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
    Ok(canonical)
}

/// The miner's `commit` and `reveal` of the bundle; returns the proposal id.
async fn commit_and_reveal(
    out: &Out,
    bundle: &Path,
    arena: &str,
    miner: &Miner,
) -> Result<u64, i32> {
    let (c, key, state) = (&miner.chain, &miner.key, &miner.state);
    if proposal::commit(out, bundle, arena, None, key, c, state).await != exit::OK {
        return Err(exit::FAIL);
    }
    let (code, proposal) = proposal::reveal_id(out, bundle, key, c, state).await;
    proposal.ok_or(code)
}

/// Follows the chain to the next epoch's weights that name the miner and the payout after
/// them, printing both (within 300 s).
async fn weights_and_payout(
    out: &Out,
    client: &chain::Client,
    charlie: &chain::AccountId,
    balance_before: u128,
) -> Result<(), i32> {
    let wait = async {
        let mut blocks = client.stream_blocks().await.map_err(|e| e.to_string())?;
        let mut weights_seen = false;
        while let Some(b) = blocks.next().await {
            let b = b.map_err(|e| e.to_string())?;
            let at = b.at().await.map_err(|e| e.to_string())?;
            let events = at.events().fetch().await.map_err(|e| e.to_string())?;
            for w in events.find::<api::cacheon::events::WeightsSet>().flatten() {
                weights_seen |= miner_weights(out, &w, b.number(), charlie);
            }
            for p in events
                .find::<api::cacheon::events::EmissionsPaid>()
                .flatten()
            {
                if weights_seen {
                    let after = free_balance(client, charlie).await;
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
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(out.error(&e, exit::CHAIN_UNAVAILABLE)),
        Err(_) => Err(out.error(
            "no weights and payout for the miner within 300 s",
            exit::CHAIN_UNAVAILABLE,
        )),
    }
}

/// Prints an epoch's weights if they name the miner; whether they do.
fn miner_weights(
    out: &Out,
    w: &api::cacheon::events::WeightsSet,
    block: u64,
    charlie: &chain::AccountId,
) -> bool {
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
    let Some(ppm) = mine else {
        return false;
    };
    step(
        out,
        "weights",
        json!({"epoch": w.epoch, "block": block, "weights": ws, "miner_ppm": ppm}),
        format!(
            "#{:<6} weights   epoch {}: Charlie holds {ppm} ppm of {} account(s)",
            block,
            w.epoch,
            ws.len()
        ),
    );
    true
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
