//! The tensor-parallel CPU engine as it runs in production: one process per rank (this
//! test binary started again as `rank_process`), the ranks meeting in a shared-memory
//! file, their partial sums added by `collective.all_reduce` slot calls. Two ranks must
//! give the whole engine's logits within rounding (the o and down
//! projections' sums are split in two and added in another order) and the same greedy
//! tokens, with every rank holding the same bits; a rank whose partner never comes fails
//! with the group's error instead of hanging. The same for `tiny-moe`, whose second layer
//! is a mixture of experts split by whole experts over the ranks.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use cacheon_kernels::collective::ShmGroup;
use cacheon_kernels::cpu::engine::Engine;
use cacheon_kernels::model::{Logits, ModelConfig, Weights};
use cacheon_kernels::SlotId;
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions};
use common::{genesis_table, PROMPT};

const DECODE_STEPS: usize = 4;

/// A named model shape with the tests' weights.
fn model(name: &str) -> (ModelConfig, Weights) {
    let cfg = ModelConfig::named(name).unwrap();
    let w = Weights::synthesize(&cfg, 42);
    (cfg, w)
}
const MAX_SEQ: usize = 32;

/// What one engine (whole or a rank) gives for the test's request: the prompt's logits
/// (every row), then greedy decode steps (batch 2: sequence 1 is the prompt reversed).
fn run(engine: &mut Engine) -> (Vec<f32>, Vec<u32>) {
    let mut logits = engine.prefill(0, &PROMPT, Logits::All).unwrap();
    let rev: Vec<u32> = PROMPT.iter().rev().copied().collect();
    logits.extend(engine.prefill(1, &rev, Logits::Last).unwrap());
    let vocab = engine.config().vocab_size;
    let argmax = |l: &[f32]| {
        l.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0 as u32
    };
    let n = logits.len() / vocab;
    let mut next = vec![
        argmax(&logits[(PROMPT.len() - 1) * vocab..][..vocab]),
        argmax(&logits[(n - 1) * vocab..]),
    ];
    let mut tokens = next.clone();
    for _ in 0..DECODE_STEPS {
        let step = engine.decode(&next).unwrap();
        logits.extend_from_slice(&step);
        next = step.chunks(vocab).map(argmax).collect();
        tokens.extend(&next);
    }
    (logits, tokens)
}

fn to_bytes(logits: &[f32], tokens: &[u32]) -> Vec<u8> {
    let mut out = (tokens.len() as u32).to_le_bytes().to_vec();
    out.extend(tokens.iter().flat_map(|t| t.to_le_bytes()));
    out.extend(logits.iter().flat_map(|v| v.to_le_bytes()));
    out
}

fn from_bytes(b: &[u8]) -> (Vec<f32>, Vec<u32>) {
    let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let nt = word(0) as usize;
    let tokens = (1..=nt).map(word).collect();
    let logits = (1 + nt..b.len() / 4)
        .map(|i| f32::from_bits(word(i)))
        .collect();
    (logits, tokens)
}

/// Starts this binary as rank `rank` of the group at `path` running `model`, writing to
/// `out`; with `seam`, the rank installs `examples/cpu/ar-residual-rmsnorm-c` first.
fn spawn_rank(
    path: &Path,
    rank: usize,
    out: &Path,
    deadline_ms: u64,
    (model, seam): (&str, bool),
) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "rank_process", "--ignored", "--nocapture"])
        .env("CACHEON_TP_MODEL", model)
        .env("CACHEON_TP_SEAM", if seam { "1" } else { "0" })
        .env("CACHEON_TP_GROUP", path)
        .env("CACHEON_TP_RANK", rank.to_string())
        .env("CACHEON_TP_OUT", out)
        .env("CACHEON_TP_DEADLINE_MS", deadline_ms.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout)
}

/// One rank process (started by the tests below, not on its own).
#[test]
#[ignore = "a rank process: started by the other tests of this file"]
fn rank_process() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
    let rank: usize = var("CACHEON_TP_RANK").parse().unwrap();
    let mut group = ShmGroup::join(Path::new(&var("CACHEON_TP_GROUP")), rank).unwrap();
    group.set_deadline(Duration::from_millis(
        var("CACHEON_TP_DEADLINE_MS").parse().unwrap(),
    ));
    let seam = var("CACHEON_TP_SEAM") == "1";
    let (cfg, w) = model(&var("CACHEON_TP_MODEL"));
    let moe_layers = (0..cfg.num_hidden_layers)
        .filter(|&l| cfg.is_moe_layer(l))
        .count() as u64;
    let mut slots = genesis_table();
    if seam {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cpu/ar-residual-rmsnorm-c");
        let files = cacheon_kernels::bundle::read_dir(&dir).unwrap();
        let built = build_cpu_bundle(&files, "seam", &CpuBuildOptions::default()).unwrap();
        slots.install_bundle(&built);
    }
    let mut engine = Engine::new_rank(cfg, w, slots, 2, MAX_SEQ, group).unwrap();
    assert_eq!(engine.rank(), (rank, 2));
    let (logits, tokens) = run(&mut engine);
    // Two all-reduces a layer in each of the 2 prefills and the decode steps: without the
    // seam both are collective.all_reduce calls; with it, each is the seam with the norm
    // after it, but for the last layer's MLP output (the engine's own final add follows).
    let (layers, passes) = (
        engine.config().num_hidden_layers as u64,
        2 + DECODE_STEPS as u64,
    );
    let count = |s| engine.slots().dispatch_count(s);
    // A mixture-of-experts layer makes one experts call a pass, whose output is reduced
    // like a dense MLP's.
    assert_eq!(count(SlotId::MoeFusedExperts), moe_layers * passes);
    if seam {
        assert_eq!(count(SlotId::AllReduce), passes);
        assert_eq!(count(SlotId::ArResidualRmsNorm), (2 * layers - 1) * passes);
        assert_eq!(count(SlotId::FusedAddRmsNorm), 0);
    } else {
        assert_eq!(count(SlotId::AllReduce), 2 * layers * passes);
        assert_eq!(count(SlotId::ArResidualRmsNorm), 0);
    }
    std::fs::write(var("CACHEON_TP_OUT"), to_bytes(&logits, &tokens)).unwrap();
}

/// Runs two rank processes of `model` (with or without the seam installed) and returns what
/// rank 0 got, after checking that rank 1 got the same bits.
fn two_ranks(name: &str, seam: bool) -> (Vec<f32>, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("group");
    ShmGroup::create(&path, 2, MAX_SEQ * model(name).0.hidden_size).unwrap();
    let outs: Vec<_> = (0..2)
        .map(|r| dir.path().join(format!("rank{r}")))
        .collect();
    let children: Vec<_> = (0..2)
        .map(|r| spawn_rank(&path, r, &outs[r], 120_000, (name, seam)))
        .collect();
    for (r, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "rank {r} failed: {}", stderr_of(&o));
    }
    let mut ranks: Vec<_> = outs
        .iter()
        .map(|p| from_bytes(&std::fs::read(p).unwrap()))
        .collect();
    assert_eq!(ranks[0], ranks[1], "the ranks disagree");
    ranks.swap_remove(0)
}

/// Two rank processes of `name` against its whole engine.
fn ranks_match_the_whole_engine(name: &str) {
    let (cfg, w) = model(name);
    let mut whole = Engine::new(cfg, w, genesis_table(), 2, MAX_SEQ).unwrap();
    let (want, want_tokens) = run(&mut whole);
    let (got, got_tokens) = &two_ranks(name, false);
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0f32, |m, v| m.max(v.abs()));
    let err = got
        .iter()
        .zip(&want)
        .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "{name}: 2 ranks against 1: {} logits, max |diff| {err:e} at scale {scale}",
        got.len()
    );
    assert!(err <= 1e-4 * scale, "max |diff| {err} at scale {scale}");
    assert_eq!(got_tokens, &want_tokens);
}

#[test]
fn two_rank_processes_give_the_whole_engines_logits_and_tokens() {
    ranks_match_the_whole_engine("tiny");
}

#[test]
fn experts_split_over_two_ranks_give_the_whole_engines_logits_and_tokens() {
    ranks_match_the_whole_engine("tiny-moe");
}

/// The seam kernel (`examples/cpu/ar-residual-rmsnorm-c`, the stock kernels' arithmetic in
/// one pass) takes every all-reduce that a norm follows: the ranks' calls change (counted in
/// each rank process), their results do not, to the bit.
#[test]
fn the_all_reduce_norm_seam_takes_its_members_calls_with_the_same_bits() {
    assert_eq!(two_ranks("tiny", true), two_ranks("tiny", false));
}

#[test]
fn a_rank_whose_partner_never_comes_fails_with_the_groups_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("group");
    ShmGroup::create(&path, 2, MAX_SEQ * model("tiny").0.hidden_size).unwrap();
    let out = dir.path().join("rank0");
    let t = std::time::Instant::now();
    let o = spawn_rank(&path, 0, &out, 300, ("tiny", false))
        .wait_with_output()
        .unwrap();
    let text = stderr_of(&o);
    assert!(!o.status.success());
    assert!(
        text.contains("Collective(\"rank 0 waited") && text.contains("1 of 2 ranks came"),
        "{text}"
    );
    assert!(!out.exists());
    assert!(t.elapsed() < Duration::from_secs(60));
}
