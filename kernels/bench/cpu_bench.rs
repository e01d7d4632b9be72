//! `cacheon-cpu-bench`: how much faster the passing CPU example bundles (`examples/cpu/`)
//! are than the scalar stock kernels of the `cpu-tiny` arena. Two tables:
//! 1. per slot, the largest verification shape: µs per call (median of timed batches);
//! 2. the `tiny` engine end to end (prefill 128 tokens, then 64 decode steps, batch 1) with
//!    the stock table and with each example installed in its slot.
//!
//! The examples are trusted repository code, built and run in this process.
//! Exit status: 0 done, 64 a command line it does not accept (a failing build panics).

// This bench takes no numbers on its command line: `cli::number` goes unused here.
#[allow(dead_code)]
mod cli;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cacheon_kernels::bundle;
use cacheon_kernels::cpu::engine::{Engine, SlotTable};
use cacheon_kernels::model::sampler::argmax;
use cacheon_kernels::model::{Logits, ModelConfig, Weights};
use cacheon_kernels::slots::cases;
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions, CpuKernel, SlotId};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Median µs per call of `kernel` at `shape`, over batches of about 20 ms each.
fn time_kernel(kernel: &CpuKernel, shape: &[i64]) -> f64 {
    let mut args = cases::generate(kernel.slot(), shape, 1);
    kernel.call(&mut args);
    let start = Instant::now();
    let mut calls = 0u32;
    while start.elapsed() < Duration::from_millis(20) {
        kernel.call(&mut args);
        calls += 1;
    }
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..calls {
            kernel.call(&mut args);
        }
        samples.push(t.elapsed().as_secs_f64() * 1e6 / calls as f64);
    }
    median(samples)
}

/// Median ms of the engine workload: prefill 128 tokens, then 64 decode steps.
fn time_engine(slots: SlotTable, cfg: &ModelConfig, weights: &Weights) -> f64 {
    let mut engine = Engine::new(cfg.clone(), weights.clone(), slots, 1, 256).expect("engine");
    let prompt: Vec<u32> = (0..128u32)
        .map(|i| (i * 37 + 11) % cfg.vocab_size as u32)
        .collect();
    let mut run = || {
        engine.reset();
        let logits = engine.prefill(0, &prompt, Logits::Last).expect("prefill");
        let mut tok = argmax(&logits);
        for _ in 0..64 {
            tok = argmax(&engine.decode(&[tok]).expect("decode"));
        }
    };
    run();
    let samples: Vec<f64> = (0..9)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(samples)
}

const USAGE: &str = "usage: cacheon-cpu-bench [--examples DIR] [--json]

  --examples DIR  the folder of example bundles (default: the repository's examples/cpu)
  --json          JSON lines instead of the tables";

/// `--json` and the examples folder.
fn parse_args() -> Result<(bool, PathBuf), String> {
    let mut json = false;
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/cpu");
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--examples" => dir = it.next().ok_or("--examples needs a folder")?.into(),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok((json, dir))
}

fn main() -> ExitCode {
    let (json, dir) = match parse_args() {
        Ok(a) => a,
        Err(e) => return cli::usage_exit("cacheon-cpu-bench", USAGE, &e),
    };
    let opts = CpuBuildOptions::default();
    let stock = SlotTable::genesis_cpu(&opts).expect("stock kernels build");
    let mut examples: Vec<(String, CpuKernel)> = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("fail-")
        })
        .collect();
    names.sort();
    for path in names {
        let files = bundle::read_dir(&path).expect("example reads");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let built = build_cpu_bundle(&files, &name, &opts).expect("example builds");
        for k in built.kernels() {
            examples.push((name.clone(), k.clone()));
        }
    }

    if !json {
        println!("Per slot, largest verification shape (median µs per call):");
        println!(
            "{:<24} {:<22} {:>11} {:>11} {:>8}  example",
            "slot", "shape", "stock µs", "example µs", "speedup"
        );
    }
    for (name, k) in &examples {
        let slot = k.slot();
        let shape = *slot.spec().verification_shapes.last().expect("shapes");
        // A seam's stock is its members: the gate|up product, then SwiGLU.
        let s = match stock.kernel(slot) {
            Some(kernel) => time_kernel(kernel, shape),
            None => {
                let (t, f, h) = (shape[0], shape[1], shape[2]);
                let member = |s: SlotId| stock.kernel(s).expect("a plain slot's stock kernel");
                time_kernel(member(SlotId::LinearMatmul), &[t, 2 * f, h])
                    + time_kernel(member(SlotId::SiluAndMul), &[t, f])
            }
        };
        let e = time_kernel(k, shape);
        if json {
            println!(
                "{}",
                serde_json::json!({"table": "kernel", "slot": slot.as_str(), "shape": shape, "stock_us": s, "example_us": e, "speedup": s / e, "example": name})
            );
        } else {
            println!(
                "{:<24} {:<22} {:>11.1} {:>11.1} {:>7.2}x  {name}",
                slot.as_str(),
                format!("{shape:?}"),
                s,
                e,
                s / e
            );
        }
    }

    let cfg = ModelConfig::named("tiny").expect("tiny");
    let weights = Weights::synthesize(&cfg, 7);
    let base = time_engine(SlotTable::genesis_cpu(&opts).unwrap(), &cfg, &weights);
    if !json {
        println!("\nEngine `tiny`, prefill 128 + 64 decode steps, batch 1 (median ms):");
        println!("{:<28} {:>9} {:>9}", "slot table", "ms", "speedup");
        println!("{:<28} {:>9.2} {:>9}", "stock", base, "1.000x");
    } else {
        println!(
            "{}",
            serde_json::json!({"table": "engine", "table_variant": "stock", "ms": base})
        );
    }
    let mut all = SlotTable::genesis_cpu(&opts).unwrap();
    for (name, k) in &examples {
        let mut table = SlotTable::genesis_cpu(&opts).unwrap();
        table.install(k.clone());
        all.install(k.clone());
        let ms = time_engine(table, &cfg, &weights);
        if json {
            println!(
                "{}",
                serde_json::json!({"table": "engine", "table_variant": name, "ms": ms, "speedup": base / ms})
            );
        } else {
            println!(
                "{:<28} {:>9.2} {:>8.3}x",
                format!("+ {name}"),
                ms,
                base / ms
            );
        }
    }
    let ms = time_engine(all, &cfg, &weights);
    if json {
        println!(
            "{}",
            serde_json::json!({"table": "engine", "table_variant": "all examples", "ms": ms, "speedup": base / ms})
        );
    } else {
        println!("{:<28} {:>9.2} {:>8.3}x", "all examples", ms, base / ms);
    }
    ExitCode::SUCCESS
}
