//! `cacheon-cuda-bench`: times the stock CUDA kernels on the GPU against the device's measured
//! copy bandwidth (DESIGN 8), and checks each timed call against the trusted reference.
//!
//! For every slot and shape: the stock bundle is built by the one CUDA build path; the
//! call's inputs are generated, rounded to bf16 and uploaded; one launch is checked
//! against the reference (all rows, or 64 evenly spread rows of the large shapes); then
//! N back-to-back launches are captured into a CUDA graph, replayed twice as warm-up and
//! timed over 10 replays with CUDA events. Small calls cycle over several copies of their
//! working set so that it does not all sit in L2 (the `sets` column; `hot` marks rows
//! whose cycled sets still fit in L2 twice over).
//!
//! Bytes moved = every input read once + every output written once (bf16; attention's
//! caches only up to each sequence's length). The copy bandwidth is a device-to-device
//! copy of 2 GiB timed the same way, counting bytes read plus bytes written.
//!
//! Exit status: 0 all checks passed, 1 a check or a build failed, 2 no usable GPU, 64 a
//! command line it does not accept. Its `--json-out` file is what `cacheon-cuda-engine-bench
//! --compare` reads.

mod cli;

use std::process::ExitCode;

use cacheon_kernels::bundle::stock;
use cacheon_kernels::cuda::timing::{bytes_moved, copy_bandwidth, time_kernel};
use cacheon_kernels::cuda::{
    build_cuda_bundle, nvrtc, CudaBuildOptions, CudaDevice, CudaKernel, DeviceArgs,
};
use cacheon_kernels::slots::args::{Buffer, SlotArgs};
use cacheon_kernels::slots::cases;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::{Dtype, SlotId};
use serde_json::json;

const USAGE: &str =
    "usage: cacheon-cuda-bench [--json] [--json-out FILE] [--quick] [--slot SLOT_ID]... [--copy-mib N]

  --json        print JSON lines instead of a table
  --json-out F  also write the JSON lines to file F (with the table on stdout)
  --quick       skip the large shapes
  --slot ID     only this slot (repeatable), e.g. --slot norm.rmsnorm
  --copy-mib N  size of the copy-bandwidth buffers (default 2048)";

/// (slot, shape, large): the benchmark shapes.
const SHAPES: &[(SlotId, &[i64], bool)] = &[
    (SlotId::SiluAndMul, &[1, 14336], false),
    (SlotId::SiluAndMul, &[8, 14336], false),
    (SlotId::SiluAndMul, &[64, 14336], false),
    (SlotId::SiluAndMul, &[4096, 14336], true),
    (SlotId::RmsNorm, &[1, 4096], false),
    (SlotId::RmsNorm, &[8, 4096], false),
    (SlotId::RmsNorm, &[64, 4096], false),
    (SlotId::RmsNorm, &[16384, 4096], true),
    (SlotId::FusedAddRmsNorm, &[1, 4096], false),
    (SlotId::FusedAddRmsNorm, &[8, 4096], false),
    (SlotId::FusedAddRmsNorm, &[64, 4096], false),
    (SlotId::FusedAddRmsNorm, &[16384, 4096], true),
    (SlotId::Rope, &[1, 32, 8, 128], false),
    (SlotId::Rope, &[8, 32, 8, 128], false),
    (SlotId::Rope, &[64, 32, 8, 128], false),
    (SlotId::Rope, &[4096, 32, 8, 128], true),
    (SlotId::AttentionDecode, &[1, 32, 8, 128, 4096], false),
    (SlotId::AttentionDecode, &[8, 32, 8, 128, 4096], true),
    (SlotId::AttentionPrefill, &[2048, 32, 8, 128, 2048], true),
];

/// Rows checked against the reference per call.
const CHECK_ROWS: usize = 64;
/// Device time one timed graph replay aims at.
const TARGET_MS: f64 = 2.0;
const REPLAYS: usize = 10;
/// Most copies of a small working set cycled through (to keep data out of L2).
const MAX_SETS: usize = 64;

struct Opts {
    json: bool,
    json_out: Option<String>,
    quick: bool,
    slots: Vec<SlotId>,
    copy_mib: usize,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        json: false,
        json_out: None,
        quick: false,
        slots: Vec::new(),
        copy_mib: 2048,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => o.json = true,
            "--json-out" => o.json_out = Some(it.next().ok_or("--json-out needs a file")?),
            "--quick" => o.quick = true,
            "--slot" => {
                let id = it.next().ok_or("--slot needs a slot id")?;
                o.slots
                    .push(SlotId::parse(&id).ok_or(format!("unknown slot `{id}`"))?);
            }
            "--copy-mib" => o.copy_mib = cli::number(it.next(), "--copy-mib")?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

/// The rows checked: all of them, or `CHECK_ROWS` evenly spread ones (first and last
/// included).
fn check_rows(lead: usize) -> Vec<usize> {
    if lead <= CHECK_ROWS {
        return (0..lead).collect();
    }
    let mut rows: Vec<usize> = (0..CHECK_ROWS)
        .map(|i| i * (lead - 1) / (CHECK_ROWS - 1))
        .collect();
    rows.dedup();
    rows
}

/// Benchmark inputs: the verification generator's, but every sequence of an attention
/// call uses the whole cache (decode at full context), with in-range cache values.
fn bench_args(slot: SlotId, shape: &[i64], seed: u64) -> SlotArgs {
    let mut args = cases::generate(slot, shape, seed);
    if slot == SlotId::AttentionDecode {
        let max_seq = shape[4] as i32;
        for (i, b) in args.inputs.iter_mut().enumerate() {
            match b {
                Buffer::I32(lens) if i == 3 => lens.iter_mut().for_each(|l| *l = max_seq),
                Buffer::F32(v) if i == 1 || i == 2 => {
                    for (j, x) in v.iter_mut().enumerate() {
                        if *x == cases::CACHE_TAIL_VALUE {
                            *x = ((j.wrapping_mul(2654435761) % 4001) as f32 / 1000.0) - 2.0;
                        }
                    }
                }
                _ => {}
            }
        }
        args = SlotArgs::new(args.slot, args.shape, args.inputs, args.scalars)
            .expect("still valid arguments");
    }
    if slot == SlotId::AttentionPrefill {
        // A whole prompt: row t at position kv_len - tokens + t, every cache row in range.
        let (tokens, kv_len) = (shape[0], shape[4]);
        for (i, b) in args.inputs.iter_mut().enumerate() {
            match b {
                Buffer::I32(pos) if i == 3 => {
                    for (t, p) in pos.iter_mut().enumerate() {
                        *p = (kv_len - tokens + t as i64) as i32;
                    }
                }
                Buffer::F32(v) if i == 1 || i == 2 => {
                    for (j, x) in v.iter_mut().enumerate() {
                        if *x == cases::CACHE_TAIL_VALUE {
                            *x = ((j.wrapping_mul(2654435761) % 4001) as f32 / 1000.0) - 2.0;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    args
}

struct Row {
    slot: SlotId,
    shape: Vec<i64>,
    us_per_call: f64,
    bytes: u64,
    gbps: f64,
    ratio: f64,
    sets: usize,
    hot: bool,
    calls_per_graph: usize,
    checked_rows: usize,
    max_abs_err: f64,
    mismatches: usize,
    passed: bool,
}

fn shape_text(slot: SlotId, shape: &[i64]) -> String {
    slot.spec()
        .shape_symbols()
        .iter()
        .zip(shape)
        .map(|(s, v)| format!("{s}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_one(
    dev: &CudaDevice,
    kernel: &CudaKernel,
    slot: SlotId,
    shape: &[i64],
    copy_bw: f64,
) -> Result<Row, String> {
    let args = bench_args(slot, shape, 0xBE7C4);
    let mut first = DeviceArgs::upload(dev, &args).map_err(|e| e.to_string())?;
    kernel
        .launch(dev.stream(), &mut first)
        .map_err(|e| e.to_string())?;
    dev.synchronize()
        .map_err(|e| format!("kernel failed: {e}"))?;
    let outputs = first.download_outputs().map_err(|e| e.to_string())?;

    // Check a sample of rows against the reference, on the bf16-rounded inputs.
    let rows = check_rows(shape[0].max(0) as usize);
    let mut sub = args.select_rows(&rows);
    sub.round_inputs(Dtype::Bf16);
    let expected = reference::compute(&sub);
    let tol = Dtype::Bf16.tolerance();
    let (mut passed, mut max_abs_err, mut mismatches) = (true, 0f64, 0usize);
    let got: Vec<Vec<f32>> = (0..expected.len())
        .map(|i| args.output_rows(i, &outputs[i], &rows))
        .collect();
    for r in reference::judge(&sub, &got, &expected, tol) {
        passed &= r.passed;
        max_abs_err = max_abs_err.max(r.max_abs_err);
        mismatches += r.mismatches;
    }

    // Enough copies of the working set to exceed L2 three times, within limits.
    let l2 = dev.info().l2_cache_bytes.max(1) as u64;
    let footprint = first.footprint_bytes().max(1);
    let want = (3 * l2).div_ceil(footprint) as usize;
    let budget = ((4u64 << 30) / footprint).max(1) as usize;
    let nsets = want.clamp(1, MAX_SETS).min(budget);
    let hot = (nsets as u64) * footprint < 2 * l2;
    let mut sets = vec![first];
    for _ in 1..nsets {
        sets.push(sets[0].duplicate().map_err(|e| e.to_string())?);
    }
    let t = time_kernel(dev, kernel, &mut sets, TARGET_MS, REPLAYS).map_err(|e| e.to_string())?;
    let bytes = bytes_moved(&args);
    let secs = t.ms_per_call / 1e3;
    let gbps = bytes as f64 / secs / 1e9;
    Ok(Row {
        slot,
        shape: shape.to_vec(),
        us_per_call: t.ms_per_call * 1e3,
        bytes,
        gbps,
        ratio: gbps * 1e9 / copy_bw,
        sets: nsets,
        hot,
        calls_per_graph: t.calls_per_graph,
        checked_rows: rows.len(),
        max_abs_err,
        mismatches,
        passed,
    })
}

/// Where results go: a table on stdout, JSON lines on stdout (`--json`), and/or JSON
/// lines in a file (`--json-out`).
struct Report {
    json_stdout: bool,
    file: Option<std::fs::File>,
}

impl Report {
    fn json(&mut self, v: serde_json::Value) {
        if self.json_stdout {
            println!("{v}");
        }
        if let Some(f) = &mut self.file {
            use std::io::Write;
            let _ = writeln!(f, "{v}");
        }
    }

    fn text(&self, line: &str) {
        if !self.json_stdout {
            println!("{line}");
        }
    }
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => return cli::usage_exit("cacheon-cuda-bench", USAGE, &e),
    };
    let dev = match CudaDevice::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "cacheon-cuda-bench: no usable CUDA device: {e}\n\
                 This benchmark needs an NVIDIA GPU (Hopper, sm_90) with a CUDA 13 driver \
                 and NVRTC 13 (libnvrtc.so.13 on the loader path, under $CUDA_HOME or \
                 /usr/local/cuda)."
            );
            return ExitCode::from(2);
        }
    };
    let file = match &opts.json_out {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("cacheon-cuda-bench: cannot write {path}: {e}");
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let mut report = Report {
        json_stdout: opts.json,
        file,
    };

    let info = dev.info().clone();
    let nvrtc_version = nvrtc::version()
        .map(|(a, b)| format!("{a}.{b}"))
        .unwrap_or_else(|e| format!("unavailable ({e})"));
    report.json(json!({
        "kind": "device",
        "name": info.name,
        "compute_capability": format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
        "multiprocessors": info.multiprocessors,
        "l2_cache_bytes": info.l2_cache_bytes,
        "total_mem_bytes": info.total_mem_bytes,
        "driver_version": info.driver_version,
        "nvrtc_version": nvrtc_version,
    }));
    report.text(&format!(
        "device: {} (sm_{}{}, {} SMs, L2 {} MiB, {} GiB), driver {}, NVRTC {}",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.l2_cache_bytes >> 20,
        info.total_mem_bytes >> 30,
        info.driver_version,
        nvrtc_version
    ));

    // The reference bandwidth is the better of the driver's copy and a plain vectorized copy
    // kernel: cuMemcpyDtoD alone understates what a streaming kernel reaches on Hopper.
    let copy = match copy_bandwidth(&dev, opts.copy_mib << 20, 4, REPLAYS) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cacheon-cuda-bench: copy bandwidth: {e}");
            return ExitCode::from(1);
        }
    };
    let (memcpy_bw, kernel_bw, copy_bytes) = (copy.memcpy, copy.kernel, copy.bytes);
    let copy_bw = copy.best();
    report.json(json!({
        "kind": "copy",
        "bytes_per_copy": copy_bytes,
        "memcpy_gbps_read_plus_write": memcpy_bw / 1e9,
        "kernel_gbps_read_plus_write": kernel_bw / 1e9,
        "gbps_read_plus_write": copy_bw / 1e9,
    }));
    report.text(&format!(
        "device copy (read + write), {} MiB buffers: cuMemcpyDtoD {:.0} GB/s, copy kernel {:.0} GB/s; %copy uses {:.0} GB/s",
        copy_bytes >> 20,
        memcpy_bw / 1e9,
        kernel_bw / 1e9,
        copy_bw / 1e9
    ));
    report.text(&format!(
        "\n{:<24} {:<44} {:>10} {:>10} {:>8} {:>6} {:>5} {:>5}  check",
        "slot", "shape", "us/call", "MB moved", "GB/s", "%copy", "sets", "L2"
    ));

    let build_opts = CudaBuildOptions::default();
    let mut all_ok = true;
    for slot in SlotId::with_stock() {
        if !opts.slots.is_empty() && !opts.slots.contains(&slot) {
            continue;
        }
        let b = stock::cuda_bundle(slot).expect("a plain slot has a stock bundle");
        let built = match build_cuda_bundle(&b.files(), b.name, &dev, &build_opts) {
            Ok(k) => k,
            Err(e) => {
                all_ok = false;
                report.json(
                    json!({"kind": "build_error", "slot": slot.as_str(), "error": e.to_string()}),
                );
                report.text(&format!("{slot}: BUILD FAILED: {e}"));
                continue;
            }
        };
        let kernel = built.kernel(slot).expect("stock bundle provides its slot");
        if let Ok((regs, local, shared)) = kernel.resources() {
            report.json(json!({
                "kind": "build",
                "slot": slot.as_str(),
                "compile_ms": built.compile_time.as_secs_f64() * 1e3,
                "registers": regs,
                "local_bytes": local,
                "static_shared_bytes": shared,
            }));
            report.text(&format!(
                "  [{slot}: built in {:.0} ms; {regs} registers, {local} B local, {shared} B static shared]",
                built.compile_time.as_secs_f64() * 1e3
            ));
        }
        for (s, shape, large) in SHAPES {
            if *s != slot || (opts.quick && *large) {
                continue;
            }
            // How many waves the launch takes (a clustered grid can need more than its
            // block count suggests: a cluster's blocks share one GPC).
            let residency = kernel.residency(shape);
            let residency_text = match &residency {
                Ok(r) => format!("; {}", r.describe(dev.info().multiprocessors as i64)),
                Err(e) => format!("; residency unknown: {e}"),
            };
            match run_one(&dev, kernel, slot, shape, copy_bw) {
                Ok(r) => {
                    all_ok &= r.passed;
                    let check = if r.passed { "PASS" } else { "FAIL" };
                    report.json(json!({
                        "kind": "kernel",
                        "slot": r.slot.as_str(),
                        "shape": r.shape,
                        "shape_text": shape_text(r.slot, &r.shape),
                        "us_per_call": r.us_per_call,
                        "bytes_moved": r.bytes,
                        "gbps": r.gbps,
                        "ratio_to_copy": r.ratio,
                        "sets": r.sets,
                        "l2_hot": r.hot,
                        "calls_per_graph": r.calls_per_graph,
                        "replays": REPLAYS,
                        "checked_rows": r.checked_rows,
                        "max_abs_err": r.max_abs_err,
                        "mismatches": r.mismatches,
                        "check": check,
                        "grid_blocks": residency.as_ref().ok().map(|x| x.grid_blocks),
                        "blocks_per_sm": residency.as_ref().ok().map(|x| x.blocks_per_sm),
                        "cluster_blocks": residency.as_ref().ok().map(|x| x.cluster_blocks),
                        "max_active_clusters": residency.as_ref().ok().and_then(|x| x.max_active_clusters),
                    }));
                    report.text(&format!(
                        "{:<24} {:<44} {:>10.2} {:>10.3} {:>8.0} {:>5.1}% {:>5} {:>5}  {check} (err {:.1e}, {} rows){residency_text}",
                        r.slot.as_str(),
                        shape_text(r.slot, &r.shape),
                        r.us_per_call,
                        r.bytes as f64 / 1e6,
                        r.gbps,
                        r.ratio * 100.0,
                        r.sets,
                        if r.hot { "hot" } else { "cold" },
                        r.max_abs_err,
                        r.checked_rows
                    ));
                }
                Err(e) => {
                    all_ok = false;
                    report.json(
                        json!({"kind": "error", "slot": slot.as_str(), "shape": shape, "error": e}),
                    );
                    report.text(&format!(
                        "{:<24} {:<44} ERROR: {e}",
                        slot.as_str(),
                        shape_text(slot, shape)
                    ));
                }
            }
        }
    }
    report.json(json!({"kind": "summary", "all_passed": all_ok}));
    report.text(if all_ok {
        "\nall checks passed"
    } else {
        "\nSOME CHECKS FAILED"
    });
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_rows_spread_over_the_call() {
        assert_eq!(check_rows(3), vec![0, 1, 2]);
        let r = check_rows(4096);
        assert_eq!(r.len(), CHECK_ROWS);
        assert_eq!((r[0], *r.last().unwrap()), (0, 4095));
        assert!(r.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn attention_bench_inputs_use_the_whole_cache() {
        let a = bench_args(SlotId::AttentionDecode, &[3, 4, 2, 8, 16], 1);
        assert_eq!(a.input_i32(3), &[16, 16, 16]);
        for i in [1, 2] {
            assert!(a.input_f32(i).iter().all(|&x| x.abs() <= 2.0));
        }
        let sub = a.select_rows(&check_rows(3));
        assert_eq!(sub.shape, a.shape);
    }

    #[test]
    fn every_bench_shape_has_a_valid_geometry() {
        for (slot, shape, _) in SHAPES {
            let files = stock::cuda_bundle(*slot).unwrap().files();
            let m = cacheon_kernels::bundle::manifest::Manifest::from_bundle(&files).unwrap();
            let launch = m.ops[0].launch.as_ref().unwrap();
            cacheon_kernels::cuda::evaluate_geometry(*slot, launch, shape, 227 * 1024)
                .unwrap_or_else(|e| panic!("{slot} {shape:?}: {e}"));
        }
    }
}
