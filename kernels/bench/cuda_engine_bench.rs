//! `cacheon-cuda-engine-bench`: the CUDA engine end to end (DESIGN 8) on a named shape
//! (default `llama8b-8l`) with device-synthesized weights and the stock slot kernels:
//!
//! - prefill of one prompt (default 2048 tokens): device time between CUDA events around
//!   the whole (eager) prefill, after one warm-up prefill; the best of 3; then the same
//!   with prefill attention by cuBLAS products around a softmax kernel instead of the flash
//!   kernel, and the largest difference between the two runs' last-token logits;
//! - decode at each batch (default 1 and 8) with every sequence at a realistic context
//!   (default 2048 positions): one step captured as a CUDA graph, replayed 5 times as
//!   warm-up and 50 times between events (each replay rewrites the same cache row); the
//!   same step launched eagerly, and the graph with cuBLAS instead of the engine's GEMV
//!   kernel for products of at most 8 rows, are reported beside it;
//! - the batch-1 floor: weight bytes one step reads ÷ the measured copy bandwidth (the
//!   better of `cuMemcpyDtoD` and a vectorized copy kernel, read + write, 2 GiB), and the
//!   ratio floor / measured (DESIGN 8's goal: ≥ 0.85).
//!
//! - with `--breakdown`: every distinct operation of one decode step at each batch (each GEMV/GEMM
//!   shape, each slot kernel, the engine's own kernels) timed in isolation on the engine's
//!   buffers at the same context: `--breakdown-reps` launches after a warm-up, eagerly
//!   between events and as a captured graph of back-to-back launches; a table of launches
//!   per step, µs per launch and per step, bytes per launch and GB/s, and the sum of the
//!   per-step µs against the measured step (the rest is launch gaps / graph overhead);
//!   then every operation of the prefill the same way (eagerly, 5 launches), with its share
//!   of the measured prefill.
//!
//! - with `--bundle DIR` (repeatable): a CUDA bundle read from a folder (manifest.toml and
//!   sources, as a miner submits it) is built by the one CUDA build path and installed in
//!   its slots before anything is timed, e.g. to compare a kernel variant with the stock one.
//!
//! Prints a table and JSON lines (`--json` for JSON only; `--json-out F` to also write
//! them to a file): the device, the copy bandwidth, then every figure. The field names
//! match `kernels/bench/torch_eager.py`. `--compare A B` puts two such files side by side
//! with the ratio of every figure (`compare.rs`; no GPU needed).
//! Exit status: 0 done, 1 a failure, 2 no usable GPU, 64 a command line it does not accept.

mod cli;
mod compare;

use std::process::ExitCode;

use cacheon_kernels::cuda::timing::copy_bandwidth;
use cacheon_kernels::cuda::{
    build_cuda_bundle, CudaBuildOptions, CudaDevice, CudaEngine, CudaEngineOptions, CudaSlotTable,
    WeightSource,
};
use cacheon_kernels::model::sampler::argmax;
use cacheon_kernels::model::ModelConfig;
use cacheon_kernels::slots::SlotId;
use serde_json::json;

const USAGE: &str = "usage: cacheon-cuda-engine-bench --compare A.jsonl B.jsonl
       cacheon-cuda-engine-bench [--shape NAME] [--prompt N] [--context N] [--batch B]... [--replays N] [--json] [--json-out FILE] [--copy-mib N] [--breakdown] [--breakdown-reps N] [--bundle DIR]... [--no-pdl] [--pdl-bundles] [--unfused] [--fuse-swiglu] [--qkv-pair]

  --shape NAME   named model shape (default llama8b-8l; also tiny)
  --prompt N     prefill length (default 2048)
  --context N    positions already in each sequence when timing decode (default 2048)
  --batch B      decode batch (repeatable; default 1 and 8)
  --replays N    timed graph replays per decode batch (default 50)
  --json         JSON lines only
  --json-out F   also write the JSON lines to F
  --copy-mib N   copy-bandwidth buffer size (default 2048)
  --breakdown    time each operation of a decode step at each batch, then of the prefill, in isolation
  --breakdown-reps N  launches per operation and timing (default 50)
  --bundle DIR   install the CUDA bundle in DIR in its slots (repeatable)
  --no-pdl       launch every kernel plainly (no programmatic dependent launch: the A/B switch)
  --pdl-bundles  launch the --bundle kernels with programmatic dependent launch too (only for
                 kernels that wait for the grid before them first, as the stock ones do)
  --unfused      batch 1 without the engine's RoPE + cache-row kernel after the q|k|v
                 product: the rope and k-write launches come back (the A/B switch)
  --fuse-swiglu  batch 1 with gate|up and SwiGLU as one engine GEMV (an experiment, off)
  --qkv-pair     batch 1's q|k|v step as the engine's one-launch pair GEMV (product, RoPE
                 and both cache rows) instead of the GEMV plus one rope + cache-row kernel
  --compare A B  print two --json-out files of the benches side by side, every figure
                 with its ratio B/A, and exit (no GPU needed)";

struct Opts {
    shape: String,
    prompt: usize,
    context: usize,
    batches: Vec<usize>,
    replays: usize,
    json: bool,
    json_out: Option<String>,
    copy_mib: usize,
    breakdown: bool,
    breakdown_reps: usize,
    bundles: Vec<String>,
    programmatic: bool,
    programmatic_bundles: bool,
    fuse_qkv_rope: bool,
    fuse_gate_up_silu: bool,
    qkv_pair_gemv: bool,
    /// `--compare A B`: the two result files.
    compare: Option<(String, String)>,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        shape: "llama8b-8l".into(),
        prompt: 2048,
        context: 2048,
        batches: Vec::new(),
        replays: 50,
        json: false,
        json_out: None,
        copy_mib: 2048,
        breakdown: false,
        breakdown_reps: 50,
        bundles: Vec::new(),
        programmatic: true,
        programmatic_bundles: false,
        fuse_qkv_rope: true,
        fuse_gate_up_silu: false,
        qkv_pair_gemv: false,
        compare: None,
    };
    let mut it = std::env::args().skip(1);
    let num = cli::number::<usize>;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--shape" => o.shape = it.next().ok_or("--shape needs a name")?,
            "--prompt" => o.prompt = num(it.next(), "--prompt")?,
            "--context" => o.context = num(it.next(), "--context")?,
            "--batch" => o.batches.push(num(it.next(), "--batch")?),
            "--replays" => o.replays = num(it.next(), "--replays")?.max(1),
            "--json" => o.json = true,
            "--json-out" => o.json_out = Some(it.next().ok_or("--json-out needs a file")?),
            "--copy-mib" => o.copy_mib = num(it.next(), "--copy-mib")?,
            "--breakdown" => o.breakdown = true,
            "--breakdown-reps" => o.breakdown_reps = num(it.next(), "--breakdown-reps")?.max(1),
            "--bundle" => o.bundles.push(it.next().ok_or("--bundle needs a folder")?),
            "--no-pdl" => o.programmatic = false,
            "--pdl-bundles" => o.programmatic_bundles = true,
            "--unfused" => (o.fuse_qkv_rope, o.fuse_gate_up_silu) = (false, false),
            "--fuse-swiglu" => o.fuse_gate_up_silu = true,
            "--qkv-pair" => o.qkv_pair_gemv = true,
            "--compare" => {
                let a = it.next().ok_or("--compare needs two files")?;
                let b = it.next().ok_or("--compare needs two files")?;
                o.compare = Some((a, b));
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.batches.is_empty() {
        o.batches = vec![1, 8];
    }
    if o.prompt == 0 || o.batches.contains(&0) {
        return Err("--prompt and --batch must be positive".into());
    }
    Ok(o)
}

struct Out {
    json: bool,
    lines: Vec<String>,
}

impl Out {
    fn json(&mut self, v: serde_json::Value) {
        let line = v.to_string();
        if self.json {
            println!("{line}");
        }
        self.lines.push(line);
    }

    fn text(&self, line: &str) {
        if !self.json {
            println!("{line}");
        }
    }
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => return cli::usage_exit("cacheon-cuda-engine-bench", USAGE, &e),
    };
    if let Some((a, b)) = &opts.compare {
        return match compare::compare_files(a, b) {
            Ok(table) => {
                print!("{table}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cacheon-cuda-engine-bench: {e}");
                ExitCode::from(1)
            }
        };
    }
    let Some(cfg) = ModelConfig::named(&opts.shape) else {
        eprintln!("cacheon-cuda-engine-bench: unknown shape `{}`", opts.shape);
        return ExitCode::from(1);
    };
    let dev = match CudaDevice::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cacheon-cuda-engine-bench: no usable CUDA device: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&opts, cfg, &dev) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cacheon-cuda-engine-bench: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(opts: &Opts, cfg: ModelConfig, dev: &CudaDevice) -> Result<(), String> {
    let mut out = Out {
        json: opts.json,
        lines: Vec::new(),
    };
    let info = dev.info();
    out.text(&format!(
        "device: {} (sm_{}{}, {} SMs, {:.1} GiB)",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.total_mem_bytes as f64 / (1u64 << 30) as f64
    ));

    // Copy bandwidth (before the engine takes its memory).
    let copy = copy_bandwidth(dev, opts.copy_mib << 20, 4, 10)
        .map_err(|e| format!("copy bandwidth: {e}"))?;
    let (memcpy_bw, kernel_bw, bytes, bw) = (copy.memcpy, copy.kernel, copy.bytes, copy.best());
    out.text(&format!(
        "copy bandwidth: cuMemcpyDtoD {:.0} GB/s, copy kernel {:.0} GB/s (read + write, {} MiB)",
        memcpy_bw / 1e9,
        kernel_bw / 1e9,
        bytes >> 20
    ));
    out.json(json!({
        "engine": "cacheon", "kind": "device", "name": info.name,
        "compute_capability": format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
        "multiprocessors": info.multiprocessors, "total_mem_bytes": info.total_mem_bytes,
        "driver_version": info.driver_version,
    }));
    out.json(json!({
        "engine": "cacheon", "kind": "copy", "bytes": bytes,
        "memcpy_bw_gbs": memcpy_bw / 1e9, "kernel_copy_bw_gbs": kernel_bw / 1e9, "copy_bw_gbs": bw / 1e9,
    }));

    // The engine.
    let max_batch = *opts.batches.iter().max().unwrap();
    let max_seq = (opts.context + 1)
        .max(opts.prompt)
        .min(cfg.max_position_embeddings);
    if opts.context >= max_seq {
        return Err(format!(
            "--context {} leaves no room in max_position_embeddings {}",
            opts.context, cfg.max_position_embeddings
        ));
    }
    let t0 = std::time::Instant::now();
    let mut slots = CudaSlotTable::stock_with(dev, opts.programmatic).map_err(|e| e.to_string())?;
    for dir in &opts.bundles {
        let files = cacheon_kernels::bundle::read_dir(std::path::Path::new(dir))
            .map_err(|e| format!("--bundle {dir}: {e}"))?;
        let built = build_cuda_bundle(&files, dir, dev, &CudaBuildOptions::default())
            .map_err(|e| format!("--bundle {dir}: {e}"))?;
        for mut k in built.into_kernels() {
            k.set_programmatic_launch(opts.programmatic && opts.programmatic_bundles);
            out.text(&format!("installed {} from {dir}", k.slot()));
            slots.install(k);
        }
    }
    // The attention kernel's residency at each decode batch: with 8-block clusters, a
    // grid can need a second wave long before its blocks outnumber the SMs.
    let attn = slots
        .kernel(SlotId::AttentionDecode)
        .expect("a plain slot has its stock kernel");
    let (q_heads, kv_heads) = (cfg.num_attention_heads as i64, cfg.kv_heads() as i64);
    for &b in &opts.batches {
        let shape = [
            b as i64,
            q_heads,
            kv_heads,
            cfg.head_dim() as i64,
            max_seq as i64,
        ];
        let text = match attn.residency(&shape) {
            Ok(r) => r.describe(dev.info().multiprocessors as i64),
            Err(e) => format!("unknown ({e})"),
        };
        out.text(&format!(
            "attention.decode ({}) at batch {b}: {text}",
            attn.origin()
        ));
    }
    let mut eopts = CudaEngineOptions::new(max_batch, max_seq, opts.prompt);
    eopts.programmatic_launch = opts.programmatic;
    eopts.fuse_qkv_rope = opts.fuse_qkv_rope;
    eopts.fuse_gate_up_silu = opts.fuse_gate_up_silu;
    eopts.qkv_pair_gemv = opts.qkv_pair_gemv;
    let on = |b: bool| if b { "on" } else { "off" };
    out.text(&format!(
        "batch-1 fused kernels: q|k|v + rope + cache writes {}{}, gate|up + swiglu {}",
        on(opts.fuse_qkv_rope),
        if opts.qkv_pair_gemv {
            " (one pair GEMV, --qkv-pair)"
        } else {
            " (the GEMV, then one rope + cache-row kernel)"
        },
        on(opts.fuse_gate_up_silu)
    ));
    out.text(&format!(
        "programmatic dependent launch: {}",
        if opts.programmatic {
            "on"
        } else {
            "off (--no-pdl)"
        }
    ));
    let mut e = CudaEngine::new(
        dev,
        cfg.clone(),
        WeightSource::Synthesize { seed: 1 },
        slots,
        eopts,
    )
    .map_err(|e| e.to_string())?;
    let weight_bytes = e.weight_bytes_per_step();
    out.text(&format!(
        "engine: {} ({} layers, {:.2} B params, {:.2} GB read per decode step), max_batch {max_batch}, max_seq {max_seq}; ready in {:.1} s",
        opts.shape,
        cfg.num_hidden_layers,
        cfg.parameter_count() as f64 / 1e9,
        weight_bytes as f64 / 1e9,
        t0.elapsed().as_secs_f64()
    ));

    // Prefill.
    let vocab = cfg.vocab_size as u32;
    let prompt: Vec<u32> = (0..opts.prompt as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % vocab)
        .collect();
    // One warm-up prefill, then the best of 3.
    let best_prefill = |e: &mut CudaEngine| -> Result<f64, String> {
        e.time_prefill(0, &prompt).map_err(|e| e.to_string())?;
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            best = best.min(e.time_prefill(0, &prompt).map_err(|e| e.to_string())?);
        }
        Ok(best)
    };
    let best = best_prefill(&mut e)?;
    let logits = e.logits(1).map_err(|e| e.to_string())?;
    let finite = logits.iter().all(|v| v.is_finite());
    out.text(&format!(
        "\n{:<8} {:>6} {:>8} {:>10} {:>12}  {}",
        "kind", "batch", "tokens", "ms", "tokens/s", "notes"
    ));
    out.text(&format!(
        "{:<8} {:>6} {:>8} {:>10.3} {:>12.0}  last-token logits finite: {finite}",
        "prefill",
        1,
        opts.prompt,
        best,
        opts.prompt as f64 / (best / 1e3)
    ));
    out.json(json!({
        "engine": "cacheon", "kind": "prefill", "shape": opts.shape, "batch": 1,
        "tokens": opts.prompt, "ms": best, "tokens_per_s": opts.prompt as f64 / (best / 1e3),
        "logits_finite": finite,
    }));
    if !finite {
        return Err("prefill produced non-finite logits".into());
    }
    // The same prefill with attention by cuBLAS products and the softmax kernel (the scores
    // in memory), and how far its last-token logits are from the flash kernel's.
    e.set_flash_prefill(false);
    let best_gemm = best_prefill(&mut e)?;
    let gemm_logits = e.logits(1).map_err(|e| e.to_string())?;
    e.set_flash_prefill(true);
    let scale = gemm_logits.iter().fold(0f32, |m, v| m.max(v.abs()));
    let diff = logits
        .iter()
        .zip(&gemm_logits)
        .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
    let same_token = argmax(&logits) == argmax(&gemm_logits);
    out.text(&format!(
        "{:<8} {:>6} {:>8} {:>10.3} {:>12.0}  attention by cuBLAS + softmax; logits max |diff| {diff:.4} (of max |logit| {scale:.3}), same next token: {same_token}",
        "prefill",
        1,
        opts.prompt,
        best_gemm,
        opts.prompt as f64 / (best_gemm / 1e3)
    ));
    out.json(json!({
        "engine": "cacheon", "kind": "prefill_gemm_attention", "shape": opts.shape, "batch": 1,
        "tokens": opts.prompt, "ms": best_gemm, "tokens_per_s": opts.prompt as f64 / (best_gemm / 1e3),
        "logits_max_abs_diff": diff, "logits_max_abs": scale, "same_next_token": same_token,
    }));

    // Decode.
    let mut batch1_ms = None;
    for &b in &opts.batches {
        for s in 0..b {
            e.set_seq_len(s, opts.context).map_err(|e| e.to_string())?;
        }
        e.set_use_graphs(false);
        let eager = e.time_decode(b, 3, 10).map_err(|e| e.to_string())?;
        e.set_use_graphs(true);
        let ms = e
            .time_decode(b, 5, opts.replays)
            .map_err(|e| e.to_string())?;
        let graph = e.graph_buckets().contains(&e.bucket_for(b));
        // The same graph step with cuBLAS for the small products (the engine's GEMV
        // kernel is the default for at most 8 rows).
        let cublas = if e.bucket_for(b) <= 8 {
            e.set_small_gemv(false);
            let ms = e
                .time_decode(b, 5, opts.replays)
                .map_err(|e| e.to_string())?;
            e.set_small_gemv(true);
            Some(ms)
        } else {
            None
        };
        if b == 1 {
            batch1_ms = Some(ms);
        }
        let kv_bytes =
            (cfg.num_hidden_layers * b * (opts.context + 1) * cfg.kv_dim() * 2 * 2) as u64;
        out.text(&format!(
            "{:<8} {:>6} {:>8} {:>10.3} {:>12.0}  context {}, bucket {}, {}; eager {:.3} ms; cuBLAS-only graph {}",
            "decode",
            b,
            b,
            ms,
            b as f64 / (ms / 1e3),
            opts.context,
            e.bucket_for(b),
            if graph {
                "graph".to_string()
            } else {
                format!("eager ({})", e.graph_note().unwrap_or_default())
            },
            eager,
            cublas.map_or("-".to_string(), |m| format!("{m:.3} ms"))
        ));
        out.json(json!({
            "engine": "cacheon", "kind": "decode", "shape": opts.shape, "batch": b,
            "context": opts.context, "ms_per_step": ms, "tokens_per_s": b as f64 / (ms / 1e3),
            "graph": graph, "bucket": e.bucket_for(b), "eager_ms_per_step": eager, "cublas_ms_per_step": cublas,
            "weight_bytes": weight_bytes, "kv_bytes": kv_bytes,
        }));
    }

    // The batch-1 floor.
    if let Some(ms) = batch1_ms {
        let floor_ms = weight_bytes as f64 / bw * 1e3;
        out.text(&format!(
            "\nbatch-1 floor: {:.3} GB of weights / {:.0} GB/s = {:.3} ms; measured {:.3} ms; floor/measured = {:.1}% (goal >= 85%)",
            weight_bytes as f64 / 1e9,
            bw / 1e9,
            floor_ms,
            ms,
            100.0 * floor_ms / ms
        ));
        out.json(json!({
            "engine": "cacheon", "kind": "floor", "shape": opts.shape, "batch": 1,
            "weight_bytes": weight_bytes, "copy_bw_gbs": bw / 1e9,
            "memcpy_bw_gbs": memcpy_bw / 1e9, "kernel_copy_bw_gbs": kernel_bw / 1e9,
            "floor_ms": floor_ms, "measured_ms": ms, "ratio": floor_ms / ms,
        }));
    }
    if opts.breakdown {
        for &b in &opts.batches {
            breakdown(opts, b, &mut e, bw, &mut out)?;
        }
        prefill_breakdown(opts, &mut e, best, &mut out)?;
    }
    let counts = e.slots().dispatch_counts();
    out.text(&format!(
        "slot dispatch counts (silu, rmsnorm, fused_add_rmsnorm, rope, attention): {counts:?}"
    ));
    if let Some(path) = &opts.json_out {
        let mut text = out.lines.join("\n");
        text.push('\n');
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

/// `--breakdown`, second part: each operation of the prefill timed alone (5 launches after
/// 2 warm-up, eagerly), against the measured prefill (`prefill_ms`).
fn prefill_breakdown(
    opts: &Opts,
    e: &mut CudaEngine,
    prefill_ms: f64,
    out: &mut Out,
) -> Result<(), String> {
    let ops = e
        .prefill_breakdown(opts.prompt, 2, 5)
        .map_err(|e| e.to_string())?;
    out.text(&format!(
        "\nprefill breakdown: {} tokens, each op 5 launches after 2 warm-up, eagerly, on layer weights cycled",
        opts.prompt
    ));
    out.text(&format!(
        "{:<18} {:<56} {:>6} {:>10} {:>10} {:>8}",
        "op", "shape", "n/pass", "us/launch", "us/pass", "share"
    ));
    let total_us = prefill_ms * 1e3;
    let mut sum_us = 0.0;
    for o in &ops {
        let per_pass = o.eager_us * o.launches_per_step as f64;
        sum_us += per_pass;
        out.text(&format!(
            "{:<18} {:<56} {:>6} {:>10.1} {:>10.1} {:>7.1}%",
            o.name,
            o.detail,
            o.launches_per_step,
            o.eager_us,
            per_pass,
            100.0 * per_pass / total_us
        ));
        out.json(json!({
            "engine": "cacheon", "kind": "prefill_breakdown", "shape": opts.shape,
            "tokens": opts.prompt, "op": o.name, "detail": o.detail,
            "launches_per_pass": o.launches_per_step, "us_per_launch": o.eager_us,
            "us_per_pass": per_pass, "share_of_prefill": per_pass / total_us,
        }));
    }
    out.text(&format!(
        "sum of ops {sum_us:.0} us vs the measured prefill {total_us:.0} us ({:+.1}%)",
        100.0 * (sum_us - total_us) / total_us
    ));
    Ok(())
}

/// `--breakdown`: each operation of a decode step of `batch` sequences timed alone,
/// against the step.
fn breakdown(
    opts: &Opts,
    batch: usize,
    e: &mut CudaEngine,
    bw: f64,
    out: &mut Out,
) -> Result<(), String> {
    let err = |e: cacheon_kernels::cuda::CudaEngineError| e.to_string();
    for seq in 0..batch {
        e.set_seq_len(seq, opts.context).map_err(err)?;
    }
    // The whole step, eager then graph (`set_small_gemv` drops any captured graph, so the
    // eager timing really launches eagerly).
    e.set_small_gemv(true);
    e.set_use_graphs(false);
    let eager_ms = e.time_decode(batch, 3, 10).map_err(err)?;
    e.set_use_graphs(true);
    let graph_ms = e.time_decode(batch, 5, opts.replays).map_err(err)?;
    let graph = e.graph_buckets().contains(&e.bucket_for(batch));
    let ops = e
        .decode_breakdown(batch, 5, opts.breakdown_reps)
        .map_err(err)?;
    out.text(&format!(
        "\ndecode step breakdown: batch {batch}, context {}, each op {} launches after 5 warm-up, on layer weights/caches cycled; us/launch from a graph of back-to-back launches (eager in its own column)",
        opts.context, opts.breakdown_reps
    ));
    out.text(&format!(
        "{:<18} {:<34} {:>6} {:>10} {:>10} {:>10} {:>12} {:>8}",
        "op", "shape", "n/step", "us/launch", "us/step", "eager us", "bytes", "GB/s"
    ));
    let (mut sum_us, mut sum_eager_us, mut sum_bytes) = (0.0, 0.0, 0u64);
    for o in &ops {
        let us = o.graph_us.unwrap_or(o.eager_us);
        let per_step = us * o.launches_per_step as f64;
        let gbs = o.bytes_per_launch as f64 / (us * 1e-6) / 1e9;
        sum_us += per_step;
        sum_eager_us += o.eager_us * o.launches_per_step as f64;
        sum_bytes += o.bytes_per_launch * o.launches_per_step as u64;
        out.text(&format!(
            "{:<18} {:<34} {:>6} {:>10.2} {:>10.1} {:>10.2} {:>12} {:>8.0}{}",
            o.name,
            o.detail,
            o.launches_per_step,
            us,
            per_step,
            o.eager_us,
            o.bytes_per_launch,
            gbs,
            if o.graph_us.is_none() {
                "  (graph capture failed: eager)"
            } else {
                ""
            }
        ));
        out.json(json!({
            "engine": "cacheon", "kind": "breakdown", "shape": opts.shape, "batch": batch,
            "context": opts.context, "op": o.name, "detail": o.detail,
            "launches_per_step": o.launches_per_step, "us_per_launch": us,
            "graph_us_per_launch": o.graph_us, "eager_us_per_launch": o.eager_us,
            "us_per_step": per_step, "bytes_per_launch": o.bytes_per_launch, "gbs": gbs,
        }));
    }
    let step_us = graph_ms * 1e3;
    let floor_us = sum_bytes as f64 / bw * 1e6;
    out.text(&format!(
        "sum of ops {:.1} us/step vs measured {} step {:.1} us: {:+.1} us ({:.1}%) unaccounted (launch gaps / graph overhead); eager: ops {:.1} us vs step {:.1} us; all bytes {:.3} GB / {:.0} GB/s = {:.1} us",
        sum_us,
        if graph { "graph" } else { "eager" },
        step_us,
        step_us - sum_us,
        100.0 * (step_us - sum_us) / step_us,
        sum_eager_us,
        eager_ms * 1e3,
        sum_bytes as f64 / 1e9,
        bw / 1e9,
        floor_us
    ));
    out.json(json!({
        "engine": "cacheon", "kind": "breakdown_total", "shape": opts.shape, "batch": batch,
        "context": opts.context, "sum_us_per_step": sum_us, "step_us": step_us,
        "graph": graph, "gap_us": step_us - sum_us, "sum_eager_us_per_step": sum_eager_us,
        "eager_step_us": eager_ms * 1e3, "bytes_per_step": sum_bytes,
        "bytes_floor_us": floor_us, "reps": opts.breakdown_reps,
    }));
    Ok(())
}
