//! The CUDA build path up to the ABI check (manifest, include screen, NVRTC, PTX
//! parameter lists) on every stock CUDA bundle and on broken bundles. Needs NVRTC but no
//! GPU; without NVRTC (a machine with no CUDA toolkit) every test prints SKIP and passes.

mod common;

use cacheon_kernels::bundle::stock;
use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::{self, compile_cuda_bundle, AbiError, BuildStage, CudaBuildError};
use cacheon_kernels::slots::SlotId;
use common::manifest::Manifest;

fn nvrtc_or_skip() -> bool {
    match cuda::nvrtc::version() {
        Ok(_) => true,
        Err(e) => {
            println!("SKIP: no NVRTC ({e})");
            false
        }
    }
}

fn bundle(slot: SlotId, entry: &str, source: &str, extra: &[(&str, &str)]) -> Vec<BundleFile> {
    let files: Vec<(&str, &str)> = std::iter::once(("kernels/k.cu", source))
        .chain(extra.iter().copied())
        .collect();
    Manifest::cuda(slot, "kernels/k.cu", entry)
        .line("block = [128, 1, 1]")
        .line("grid = [1, 1, 1]")
        .bundle(&files)
}

#[test]
fn every_stock_cuda_bundle_compiles_and_has_its_slot_abi() {
    if !nvrtc_or_skip() {
        return;
    }
    let opts = cuda::CudaBuildOptions::default();
    for b in stock::cuda_bundles() {
        let compiled =
            compile_cuda_bundle(&b.files(), &opts).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        assert_eq!(compiled.sources.len(), 1);
        let ptx = &compiled.sources[0].ptx;
        assert!(ptx.contains(".target sm_90a"), "{}: {ptx:.300}", b.name);
        // CACHEON_DUMP_PTX=DIR keeps the PTX for inspection.
        if let Some(dir) = std::env::var_os("CACHEON_DUMP_PTX") {
            let path = std::path::Path::new(&dir).join(format!("{}.ptx", b.name));
            std::fs::write(path, ptx).unwrap();
        }
        println!(
            "{}: {:?}, {} bytes of PTX{}",
            b.name,
            compiled.compile_time,
            ptx.len(),
            if compiled.log().is_empty() {
                String::new()
            } else {
                format!("\n{}", compiled.log())
            }
        );
    }
}

/// The CUDA examples a miner would propose (the passing ones) compile to sm_90a PTX with
/// their slot's ABI, inline PTX (`mma.sync`) included.
#[test]
fn example_cuda_bundles_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    let opts = cuda::CudaBuildOptions::default();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cuda");
    // CACHEON_NVRTC_EXTRA=DIR:DIR... compiles more bundle folders (kernel variants).
    let names = [
        "silu-and-mul",
        "slow-rmsnorm",
        "matmul-rows8-mma",
        "gate-up-silu-mma",
    ];
    let mut dirs: Vec<std::path::PathBuf> = names.iter().map(|n| examples.join(n)).collect();
    if let Some(extra) = std::env::var_os("CACHEON_NVRTC_EXTRA") {
        dirs.extend(std::env::split_paths(&extra));
    }
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy();
        let files = cacheon_kernels::bundle::read_dir(dir).unwrap();
        let compiled = compile_cuda_bundle(&files, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ptx = &compiled.sources[0].ptx;
        assert!(ptx.contains(".target sm_90a"), "{name}: {ptx:.300}");
        if let Some(dir) = std::env::var_os("CACHEON_DUMP_PTX") {
            std::fs::write(std::path::Path::new(&dir).join(format!("{name}.ptx")), ptx).unwrap();
        }
        println!(
            "{name}: {:?}, {} bytes of PTX",
            compiled.compile_time,
            ptx.len()
        );
    }
}

const WRONG_PARAMS: &str = r#"
#include <cuda_bf16.h>
#include <stdint.h>
extern "C" __global__ void rmsnorm(__nv_bfloat16* out, const __nv_bfloat16* x,
                                   const __nv_bfloat16* w, float eps, int32_t tokens,
                                   int64_t hidden) {}
"#;

#[test]
fn a_wrong_parameter_list_is_an_abi_failure() {
    if !nvrtc_or_skip() {
        return;
    }
    let opts = cuda::CudaBuildOptions::default();
    let e = compile_cuda_bundle(
        &bundle(SlotId::RmsNorm, "rmsnorm", WRONG_PARAMS, &[]),
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.stage(), BuildStage::Abi, "{e}");
    assert!(
        matches!(
            &e,
            CudaBuildError::Abi(AbiError::ParamType {
                index: 4,
                param: "tokens",
                ..
            })
        ),
        "{e}"
    );
    // Missing parameter, and a C++ (mangled) entry.
    let fewer = WRONG_PARAMS.replace("int32_t tokens,", "");
    let e =
        compile_cuda_bundle(&bundle(SlotId::RmsNorm, "rmsnorm", &fewer, &[]), &opts).unwrap_err();
    assert!(
        matches!(
            &e,
            CudaBuildError::Abi(AbiError::ParamCount {
                expected: 6,
                got: 5,
                ..
            })
        ),
        "{e}"
    );
    let mangled = WRONG_PARAMS.replace("extern \"C\" ", "");
    let e =
        compile_cuda_bundle(&bundle(SlotId::RmsNorm, "rmsnorm", &mangled, &[]), &opts).unwrap_err();
    assert!(
        matches!(&e, CudaBuildError::Abi(AbiError::MissingEntry { .. })),
        "{e}"
    );
}

#[test]
fn compile_errors_come_back_with_the_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let opts = cuda::CudaBuildOptions::default();
    let src = "extern \"C\" __global__ void rmsnorm(int x) { undefined_thing(x); }\n";
    let e = compile_cuda_bundle(&bundle(SlotId::RmsNorm, "rmsnorm", src, &[]), &opts).unwrap_err();
    assert_eq!(e.stage(), BuildStage::Build);
    match e {
        CudaBuildError::Build { source_path, log } => {
            assert_eq!(source_path, "kernels/k.cu");
            assert!(log.contains("undefined_thing"), "{log}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn bundle_headers_are_passed_to_nvrtc_and_includes_are_screened() {
    if !nvrtc_or_skip() {
        return;
    }
    let opts = cuda::CudaBuildOptions::default();
    let header = "#pragma once\n#include <stdint.h>\ntypedef int64_t shape_t;\n";
    let src = "#include <cuda_bf16.h>\n#include \"util.cuh\"\n\
               extern \"C\" __global__ void silu_and_mul(__nv_bfloat16* out, \
               const __nv_bfloat16* x, shape_t tokens, shape_t d) {}\n";
    let files = bundle(
        SlotId::SiluAndMul,
        "silu_and_mul",
        src,
        &[("kernels/util.cuh", header)],
    );
    compile_cuda_bundle(&files, &opts).unwrap();
    let bad = src.replace("\"util.cuh\"", "<cuda_runtime.h>");
    let e = compile_cuda_bundle(
        &bundle(SlotId::SiluAndMul, "silu_and_mul", &bad, &[]),
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.stage(), BuildStage::Screen, "{e}");
}

/// The CUDA engine's own kernels compile with NVRTC alone (no headers) for the arena's
/// architecture, every entry is there, and `CACHEON_DUMP_PTX=DIR` keeps the PTX.
#[test]
fn engine_kernels_compile_without_headers() {
    if !nvrtc_or_skip() {
        return;
    }
    let src = include_str!("../src/cuda/engine/engine_kernels.cu");
    for arch in ["compute_90", "compute_90a"] {
        let out = cuda::nvrtc::compile(
            "cacheon_engine.cu",
            src,
            &[],
            &[format!("--gpu-architecture={arch}"), "--std=c++17".into()],
            std::time::Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("{arch}: {e}"));
        for name in [
            "eng_synth",
            "eng_embed",
            "eng_qkv_split",
            "eng_k_write",
            "eng_causal_softmax",
            "eng_argmax",
            "eng_gemv_qkv",
            "eng_gemv_qkv_rope",
            "eng_rope_cache_row",
            "eng_gemv_gate_up_silu",
        ] {
            assert!(
                out.ptx.contains(&format!(".entry {name}(")),
                "{arch}: no entry {name}"
            );
        }
        if let Some(dir) = std::env::var_os("CACHEON_DUMP_PTX") {
            let path = std::path::Path::new(&dir).join(format!("engine_kernels_{arch}.ptx"));
            std::fs::write(path, &out.ptx).unwrap();
        }
    }
}
