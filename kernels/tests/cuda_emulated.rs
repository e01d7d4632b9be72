//! The stock CUDA kernels' own source, executed on the CPU through a small emulation of
//! the CUDA features they use (tests/emu/emu.h: every CUDA thread an OS thread; real
//! barriers for `__syncthreads`, warp shuffles and cluster barriers; distributed shared
//! memory; shared memory pre-filled with NaN bytes), against the trusted reference on
//! the verification shapes and edge cases, with the manifest's launch geometry evaluated
//! by the validator's evaluator. Guard bands around every buffer catch stray writes, and
//! the inputs must come back unchanged.
//!
//! This checks the kernels' logic (indexing, reductions, online softmax, split-KV merge,
//! ragged and scalar paths) on machines with no GPU; it says nothing about speed, and a
//! GPU can still differ (memory ordering, alignment faults). Needs `g++`; prints SKIP
//! without it. The largest verification shapes run only with CACHEON_EMU_FULL=1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use cacheon_kernels::bundle::manifest::Manifest;
use cacheon_kernels::bundle::stock;
use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::evaluate_geometry;
use cacheon_kernels::slots::args::{Buffer, SlotArgs};
use cacheon_kernels::slots::cases;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::{Dtype, SlotId};

fn emu_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emu")
}

fn have_gxx() -> bool {
    Command::new("g++")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// `extern __shared__ T a[];` and `__shared__ T a[N];` become emulator buffers.
fn rewrite_shared(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut key = 0;
    for line in src.lines() {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        let (is_extern, rest) = match (
            t.strip_prefix("extern __shared__ "),
            t.strip_prefix("__shared__ "),
        ) {
            (Some(r), _) => (true, r),
            (None, Some(r)) => (false, r),
            _ => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
        };
        let decl_end = rest.find(';').expect("a declaration ends with ;");
        let (decl, tail) = rest.split_at(decl_end + 1);
        let decl = decl.trim_end_matches(';').trim();
        let (ty, after) = decl.split_once(' ').expect("TYPE NAME[...]");
        let (name, dims) = after.split_once('[').expect("an array");
        let dims = dims.trim_end_matches(']').trim();
        let (ty, name) = (ty.trim(), name.trim());
        if is_extern {
            out.push_str(&format!(
                "{indent}{ty}* {name} = ({ty}*)emu_dynamic_smem();{tail}\n"
            ));
        } else {
            key += 1;
            out.push_str(&format!(
                "{indent}{ty}* {name} = ({ty}*)emu_static_smem({key}, sizeof({ty}) * ({dims}));{tail}\n"
            ));
        }
    }
    out
}

/// The stock kernels' compile-time cluster shapes (`__cluster_dims__`, which the
/// emulation's build ignores), by slot.
fn compile_time_cluster(slot: SlotId) -> [u32; 3] {
    match slot {
        SlotId::AttentionDecode => [1, 8, 1],
        _ => [1, 1, 1],
    }
}

fn build(slot: SlotId, dir: &Path) -> PathBuf {
    let b = stock::cuda_bundle(slot).expect("a plain slot has a stock bundle");
    build_bundle(slot, b.name, &b.files(), dir)
}

/// Builds the first op's source of a bundle (`files`) into an emulation binary.
fn build_bundle(slot: SlotId, name: &str, files: &[BundleFile], dir: &Path) -> PathBuf {
    let m = Manifest::from_bundle(files).unwrap();
    let src_path = &m.ops[0].source;
    let src = files.iter().find(|f| &f.path == src_path).unwrap();
    let text = rewrite_shared(std::str::from_utf8(&src.data).unwrap());
    let tu = dir.join(format!("{name}.cpp"));
    std::fs::write(&tu, format!("{text}\n#include \"harness.cpp\"\n")).unwrap();
    let bin = dir.join(name);
    let out = Command::new("g++")
        .args([
            "-std=c++17",
            "-O1",
            "-pthread",
            "-w",
            "-include",
            "emu.h",
            "-I",
        ])
        .arg(emu_dir())
        .arg(format!("-DEMU_SLOT={}", slot.index()))
        .arg(format!("-DEMU_ENTRY={}", m.ops[0].entry))
        .arg(&tu)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("g++ runs");
    assert!(
        out.status.success(),
        "{slot}: emulation build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}

/// Runs an emulation binary on `args` with the launch geometry of `m`'s first op.
fn run_op(slot: SlotId, m: &Manifest, bin: &Path, dir: &Path, args: &SlotArgs) -> Vec<Vec<f32>> {
    let geo = evaluate_geometry(
        slot,
        m.ops[0].launch.as_ref().unwrap(),
        &args.shape,
        227 * 1024,
    )
    .unwrap_or_else(|e| panic!("{slot} {:?}: {e}", args.shape));
    let mut data: Vec<u8> = Vec::new();
    let mut put = |bytes: &[u8]| data.extend_from_slice(bytes);
    put(&(slot.index() as u32).to_le_bytes());
    put(&(args.shape.len() as u32).to_le_bytes());
    for v in &args.shape {
        put(&v.to_le_bytes());
    }
    put(&(args.scalars.len() as u32).to_le_bytes());
    for v in &args.scalars {
        put(&v.to_le_bytes());
    }
    for v in [
        geo.grid.0,
        geo.grid.1,
        geo.grid.2,
        geo.block.0,
        geo.block.1,
        geo.block.2,
    ] {
        put(&v.to_le_bytes());
    }
    put(&geo.shared_mem_bytes.to_le_bytes());
    // The manifest's launch-time cluster, else the kernel's compile-time one.
    let cluster = match geo.cluster {
        (1, 1, 1) => compile_time_cluster(slot),
        (x, y, z) => [x, y, z],
    };
    for v in cluster {
        put(&v.to_le_bytes());
    }
    put(&(args.inputs.len() as u32).to_le_bytes());
    for b in &args.inputs {
        match b {
            Buffer::F32(v) => {
                put(&0u32.to_le_bytes());
                put(&(v.len() as u64).to_le_bytes());
                for x in v {
                    put(&half::bf16::from_f32(*x).to_bits().to_le_bytes());
                }
            }
            Buffer::I32(v) => {
                put(&1u32.to_le_bytes());
                put(&(v.len() as u64).to_le_bytes());
                for x in v {
                    put(&x.to_le_bytes());
                }
            }
        }
    }
    let lens = args.output_lens();
    put(&(lens.len() as u32).to_le_bytes());
    for n in &lens {
        put(&(*n as u64).to_le_bytes());
    }
    let inp = dir.join("in.bin");
    let outp = dir.join("out.bin");
    std::fs::File::create(&inp)
        .unwrap()
        .write_all(&data)
        .unwrap();
    let out = Command::new(bin).arg(&inp).arg(&outp).output().unwrap();
    assert!(
        out.status.success(),
        "{slot} {:?}: emulated kernel failed ({}): {}",
        args.shape,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&outp).unwrap();
    let mut at = 0;
    let mut outs = Vec::new();
    for _ in 0..lens.len() {
        let n = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        at += 8;
        let v: Vec<f32> = (0..n)
            .map(|i| {
                let b = u16::from_le_bytes([bytes[at + 2 * i], bytes[at + 2 * i + 1]]);
                half::bf16::from_bits(b).to_f32()
            })
            .collect();
        at += 2 * n;
        outs.push(v);
    }
    outs
}

fn check(slot: SlotId, bin: &Path, dir: &Path, args: SlotArgs) {
    let m = Manifest::from_bundle(&stock::cuda_bundle(slot).unwrap().files()).unwrap();
    check_op(slot, &m, bin, dir, args)
}

fn check_op(slot: SlotId, m: &Manifest, bin: &Path, dir: &Path, mut args: SlotArgs) {
    args.round_inputs(Dtype::Bf16);
    let expected = reference::compute(&args);
    let got = run_op(slot, m, bin, dir, &args);
    let reports = reference::judge(&args, &got, &expected, Dtype::Bf16.tolerance());
    for (j, ((g, w), r)) in got.iter().zip(&expected).zip(reports).enumerate() {
        assert!(
            r.passed,
            "{slot} {:?} output {j}: {r:?} (got {:?}, want {:?} at the first bad index)",
            args.shape,
            r.first_bad.map(|i| g[i]),
            r.first_bad.map(|i| w[i]),
        );
    }
}

/// Verification shapes (the largest only with CACHEON_EMU_FULL=1) and edge cases.
fn shapes(slot: SlotId) -> Vec<Vec<i64>> {
    let full = std::env::var_os("CACHEON_EMU_FULL").is_some();
    let mut out: Vec<Vec<i64>> = slot
        .spec()
        .verification_shapes
        .iter()
        .filter(|s| {
            let elems: i64 = s.iter().product();
            full || elems <= 1 << 21
        })
        .map(|s| s.to_vec())
        .collect();
    let extra: &[&[i64]] = match slot {
        SlotId::SiluAndMul => &[&[2, 1], &[3, 9], &[1, 3000]],
        SlotId::RmsNorm | SlotId::FusedAddRmsNorm => &[&[2, 20480], &[1, 16392], &[2, 8]],
        SlotId::Rope => &[&[2, 40, 8, 256], &[2, 1, 1, 2], &[3, 7, 7, 48]],
        SlotId::AttentionDecode => &[
            &[1, 12, 1, 64, 9],
            &[2, 8, 2, 128, 1],
            &[2, 16, 2, 16, 40],
            &[2, 8, 2, 128, 300],
            // Several 8-position steps a warp on the tensor-core path (head dims 64, 128;
            // at an odd index the last sequence is emptied, below).
            &[2, 4, 1, 64, 700],
            &[2, 8, 2, 128, 1100],
            // More steps a warp than the ring has stages (4 and 5 at 2,100 and 2,300
            // positions), so stages are refilled.
            &[1, 8, 2, 128, 2300],
            &[1, 4, 1, 64, 2100],
        ],
        // Two rows, nine rows (a second block of 8), the wide path with a short k, a
        // product the ragged k sends down the scalar path, batched rows whose steps run
        // past the unrolled loop (65 and 33 steps of 32 inputs), and the pipelined rows.
        SlotId::LinearMatmul => &[
            &[2, 100, 64],
            &[5, 100, 2080],
            &[3, 16, 1056],
            &[9, 40, 24],
            &[1, 16400, 16],
            &[1, 300, 1024],
            &[3, 50, 13],
            // One row streamed across rows: more features than the grid has warps (8448),
            // two steps of 1024 inputs a row.
            &[1, 8500, 2048],
        ],
        // Two rows, a ragged product, batched rows past the unrolled loop (33 steps), one
        // row (the GEMV) with a tail past its unrolled loop.
        SlotId::GateUpSilu => &[
            &[2, 50, 64],
            &[3, 25, 13],
            &[5, 40, 1056],
            &[1, 40, 1056],
            &[1, 9, 32],
        ],
        // Three row tiles over a longer cache (GQA 4), one row, the plain path at head dims
        // 256 and 16.
        // 8 ranks, a width that leaves most of a block idle.
        SlotId::AllReduce => &[&[2, 24, 8, 7], &[1, 3, 2, 0]],
        // No stock kernel (a seam); no example for CUDA yet.
        SlotId::ArResidualRmsNorm => &[],
        // More output features than threads, no held expert in some rows.
        SlotId::MoeFusedExperts => &[&[2, 200, 24, 3, 2, 1], &[1, 8, 4, 1, 1, 0]],
        SlotId::AttentionPrefill => &[
            &[130, 4, 1, 64, 200],
            &[1, 8, 8, 64, 5],
            &[3, 2, 2, 256, 4],
            &[2, 2, 1, 16, 3],
        ],
    };
    out.extend(extra.iter().map(|s| s.to_vec()));
    out
}

#[test]
fn stock_cuda_kernels_emulated_on_the_cpu_match_the_reference() {
    if !have_gxx() {
        println!("SKIP: no g++ to build the CUDA emulation");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for slot in SlotId::with_stock() {
        let bin = build(slot, dir.path());
        for (i, shape) in shapes(slot).iter().enumerate() {
            let mut args = cases::generate(slot, shape, 0xE3 + i as u64);
            if slot == SlotId::AttentionDecode && i % 2 == 1 {
                // An empty sequence gives zeros.
                if let Buffer::I32(lens) = &mut args.inputs[3] {
                    *lens.last_mut().unwrap() = 0;
                }
            }
            let t = std::time::Instant::now();
            check(slot, &bin, dir.path(), args);
            println!("{slot} {shape:?}: ok ({:.1} s)", t.elapsed().as_secs_f64());
        }
    }
}

/// The CUDA examples a miner would propose (not the failing ones), at the verification
/// shapes and edge cases inside their `when` domains.
#[test]
fn example_cuda_bundles_emulated_on_the_cpu_match_the_reference() {
    if !have_gxx() {
        println!("SKIP: no g++ to build the CUDA emulation");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cuda");
    for name in ["matmul-rows8-mma", "gate-up-silu-mma"] {
        let files = cacheon_kernels::bundle::read_dir(&examples.join(name)).unwrap();
        let m = Manifest::from_bundle(&files).unwrap();
        let slot = m.ops[0].slot;
        let bin = build_bundle(slot, name, &files, dir.path());
        let in_domain: Vec<Vec<i64>> = shapes(slot)
            .into_iter()
            .filter(|s| m.ops[0].accepts(s))
            .collect();
        assert!(in_domain.len() >= 2, "{name}: {in_domain:?}");
        for (i, shape) in in_domain.iter().enumerate() {
            let args = cases::generate(slot, shape, 0x5A + i as u64);
            let t = std::time::Instant::now();
            check_op(slot, &m, &bin, dir.path(), args);
            println!("{name} {shape:?}: ok ({:.1} s)", t.elapsed().as_secs_f64());
        }
    }
}

/// A launch-time cluster (the manifest's `cluster`) reaches the kernel: the stock decode
/// attention with its compile-time `__cluster_dims__` taken out and `cluster = [1, 8, 1]`
/// in the manifest instead matches the reference at every verification shape (its blocks
/// find their rank and their cluster's shared memory only through that launch).
#[test]
fn a_launch_time_cluster_reaches_the_kernel() {
    if !have_gxx() {
        println!("SKIP: no g++ to build the CUDA emulation");
        return;
    }
    let slot = SlotId::AttentionDecode;
    let mut files = stock::cuda_bundle(slot).unwrap().files();
    for f in files.iter_mut() {
        let text = String::from_utf8(f.data.clone()).unwrap();
        let edited = if f.path.ends_with(".cu") {
            let t = text.replace("__cluster_dims__(1, NSPLIT, 1) ", "");
            assert_ne!(
                t, text,
                "the stock kernel declares its cluster at compile time"
            );
            t
        } else {
            let t = text.replace(
                "\nshared_mem_bytes",
                "\ncluster = [1, 8, 1]\nshared_mem_bytes",
            );
            assert_ne!(t, text, "the manifest takes the cluster");
            t
        };
        f.data = edited.into_bytes();
    }
    let m = Manifest::from_bundle(&files).unwrap();
    assert!(m.ops[0].launch.as_ref().unwrap().cluster.is_some());
    let dir = tempfile::tempdir().unwrap();
    let bin = build_bundle(slot, "launch-cluster", &files, dir.path());
    for (i, shape) in shapes(slot).iter().enumerate() {
        check_op(
            slot,
            &m,
            &bin,
            dir.path(),
            cases::generate(slot, shape, 0xC1 + i as u64),
        );
    }
}

/// The CUDA engine's own kernels (`src/cuda/engine/engine_kernels.cu`: GEMV, argmax, causal
/// softmax, QKV split and cache writes, embedding, weight synthesis) under the same
/// emulation, checked by `tests/emu/engine_harness.cpp` against double precision.
#[test]
fn engine_kernels_emulated_on_the_cpu() {
    if !have_gxx() {
        println!("SKIP: no g++ to build the CUDA emulation");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = include_str!("../src/cuda/engine/engine_kernels.cu");
    let tu = dir.path().join("engine_kernels.cpp");
    std::fs::write(
        &tu,
        format!("{}\n#include \"engine_harness.cpp\"\n", rewrite_shared(src)),
    )
    .unwrap();
    let bin = dir.path().join("engine_kernels");
    let out = Command::new("g++")
        .args([
            "-std=c++17",
            "-O1",
            "-pthread",
            "-w",
            "-include",
            "emu.h",
            "-I",
        ])
        .arg(emu_dir())
        .arg(&tu)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("g++ runs");
    assert!(
        out.status.success(),
        "engine kernels: emulation build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&bin).output().expect("the emulation runs");
    print!("{}", String::from_utf8_lossy(&run.stdout));
    assert!(
        run.status.success(),
        "engine kernels failed under emulation:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
