//! The stock CUDA kernels on a GPU (DESIGN 7 steps 3-6 for the genesis bundles): every
//! stock kernel, built by the one CUDA build path, against its trusted reference on every
//! verification shape (inputs rounded to bf16 first, outputs poisoned with NaN before each
//! of two runs, inputs unchanged afterwards); CUDA-graph replays with refreshed inputs; a
//! miner-style bundle with its own header; and the ABI check refusing a wrong parameter
//! list. Without a GPU every test prints "SKIP: no CUDA device (...)" and passes.

mod common;

use cacheon_kernels::bundle::stock;
use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::timing::capture_graph;
use cacheon_kernels::cuda::{
    build_cuda_bundle, AbiError, BuildStage, CudaBuildError, CudaBuildOptions, CudaDevice,
    CudaKernel, DeviceArgs,
};
use cacheon_kernels::slots::args::SlotArgs;
use cacheon_kernels::slots::cases;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::{Dtype, SlotId};
use common::manifest::Manifest;

fn device_or_skip() -> Option<CudaDevice> {
    match CudaDevice::open(0) {
        Ok(d) => {
            let i = d.info();
            println!(
                "device: {} (sm_{}{}, {} SMs)",
                i.name, i.compute_capability.0, i.compute_capability.1, i.multiprocessors
            );
            Some(d)
        }
        Err(e) => {
            println!("SKIP: no CUDA device ({e})");
            None
        }
    }
}

fn stock_kernel(dev: &CudaDevice, slot: SlotId) -> CudaKernel {
    let b = stock::cuda_bundle(slot).expect("a plain slot has a stock bundle");
    let built = build_cuda_bundle(&b.files(), b.name, dev, &CudaBuildOptions::default())
        .unwrap_or_else(|e| panic!("{slot}: stock bundle does not build: {e}"));
    if !built.log.trim().is_empty() {
        println!("{slot} build log:\n{}", built.log);
    }
    built.into_kernels().into_iter().next().expect("one op")
}

/// Runs `kernel` on `args` (inputs already rounded to bf16) twice with poisoned outputs
/// and checks each run against the reference and the inputs for changes.
fn check_call(dev: &CudaDevice, kernel: &CudaKernel, args: &SlotArgs, what: &str) {
    let tol = Dtype::Bf16.tolerance();
    let expected = reference::compute(args);
    let mut d = DeviceArgs::upload(dev, args).unwrap();
    for run in 0..2 {
        d.poison_outputs().unwrap();
        kernel
            .launch(dev.stream(), &mut d)
            .unwrap_or_else(|e| panic!("{what}: launch: {e}"));
        dev.synchronize()
            .unwrap_or_else(|e| panic!("{what} run {run}: kernel failed: {e}"));
        let got = d.download_outputs().unwrap();
        let reports = reference::judge(args, &got, &expected, tol);
        for (j, ((g, w), r)) in got.iter().zip(&expected).zip(reports).enumerate() {
            assert!(
                r.passed,
                "{what} output {j} run {run}: {r:?} (got {:?}, want {:?} at the first bad index)",
                r.first_bad.map(|i| g[i]),
                r.first_bad.map(|i| w[i]),
            );
        }
        assert!(
            d.inputs_unchanged().unwrap(),
            "{what} run {run}: inputs changed"
        );
    }
}

#[test]
fn stock_cuda_kernels_match_reference_on_every_verification_shape() {
    let Some(dev) = device_or_skip() else { return };
    for slot in SlotId::with_stock() {
        let kernel = stock_kernel(&dev, slot);
        if let Ok((regs, local, shared)) = kernel.resources() {
            println!("{slot}: {regs} registers, {local} B local, {shared} B static shared");
        }
        for (i, shape) in slot.spec().verification_shapes.iter().enumerate() {
            let mut args = cases::generate(slot, shape, 0xC0DA + i as u64);
            args.round_inputs(Dtype::Bf16);
            check_call(&dev, &kernel, &args, &format!("{slot} {shape:?}"));
        }
    }
}

#[test]
fn stock_cuda_kernels_handle_edge_cases() {
    let Some(dev) = device_or_skip() else { return };
    // Empty sequences (zeros out), a sequence of length one, and GQA groups larger than
    // the four query heads one cluster handles; long rows that overflow the registers.
    let att = stock_kernel(&dev, SlotId::AttentionDecode);
    for shape in [[3i64, 12, 1, 64, 9], [2, 8, 2, 128, 1], [2, 16, 2, 16, 70]] {
        let mut args = cases::generate(SlotId::AttentionDecode, &shape, 9);
        if let cacheon_kernels::slots::args::Buffer::I32(lens) = &mut args.inputs[3] {
            lens[0] = 0;
        }
        args.round_inputs(Dtype::Bf16);
        let args = SlotArgs::new(args.slot, args.shape, args.inputs, args.scalars).unwrap();
        check_call(&dev, &att, &args, &format!("attention.decode {shape:?}"));
    }
    let norm = stock_kernel(&dev, SlotId::RmsNorm);
    let fused = stock_kernel(&dev, SlotId::FusedAddRmsNorm);
    for shape in [[2i64, 20480], [3, 16392], [1, 8]] {
        for (k, slot) in [(&norm, SlotId::RmsNorm), (&fused, SlotId::FusedAddRmsNorm)] {
            let mut args = cases::generate(slot, &shape, 3);
            args.round_inputs(Dtype::Bf16);
            check_call(&dev, k, &args, &format!("{slot} {shape:?}"));
        }
    }
    let rope = stock_kernel(&dev, SlotId::Rope);
    for shape in [[3i64, 40, 8, 256], [2, 1, 1, 2], [4, 7, 7, 48]] {
        let mut args = cases::generate(SlotId::Rope, &shape, 4);
        args.round_inputs(Dtype::Bf16);
        check_call(&dev, &rope, &args, &format!("position.rope {shape:?}"));
    }
    let silu = stock_kernel(&dev, SlotId::SiluAndMul);
    for shape in [[2i64, 1], [3, 9], [2, 70000]] {
        let mut args = cases::generate(SlotId::SiluAndMul, &shape, 5);
        args.round_inputs(Dtype::Bf16);
        check_call(
            &dev,
            &silu,
            &args,
            &format!("activation.silu_and_mul {shape:?}"),
        );
    }
}

#[test]
fn graph_replays_with_refreshed_inputs_are_correct() {
    let Some(dev) = device_or_skip() else { return };
    let tol = Dtype::Bf16.tolerance();
    for slot in SlotId::with_stock() {
        let kernel = stock_kernel(&dev, slot);
        let shape = slot.spec().verification_shapes[1];
        let mut first = cases::generate(slot, shape, 100);
        first.round_inputs(Dtype::Bf16);
        let mut d = DeviceArgs::upload(&dev, &first).unwrap();
        // One plain launch first (module warm-up, shared-memory opt-in), then capture.
        kernel.launch(dev.stream(), &mut d).unwrap();
        dev.synchronize().unwrap();
        let graph = capture_graph(&dev, 1, |_| kernel.launch(dev.stream(), &mut d)).unwrap();
        for replay in 0..3u64 {
            let mut args = cases::generate(slot, shape, 200 + replay);
            args.scalars = first.scalars.clone(); // scalars are baked into the graph
            args.round_inputs(Dtype::Bf16);
            d.refresh_inputs(&args).unwrap();
            d.poison_outputs().unwrap();
            graph.launch().unwrap();
            dev.synchronize().unwrap();
            let expected = reference::compute(&args);
            let got = d.download_outputs().unwrap();
            let reports = reference::judge(&args, &got, &expected, tol);
            for (j, r) in reports.into_iter().enumerate() {
                assert!(r.passed, "{slot} graph replay {replay} output {j}: {r:?}");
            }
        }
    }
}

fn one_op_bundle(
    slot: SlotId,
    entry: &str,
    source: &str,
    extra: &[(&str, &str)],
) -> Vec<BundleFile> {
    let files: Vec<(&str, &str)> = std::iter::once(("kernels/k.cu", source))
        .chain(extra.iter().copied())
        .collect();
    Manifest::cuda(slot, "kernels/k.cu", entry)
        .line("block = [256, 1, 1]")
        .line("grid = [\"ceil_div(tokens * d, 256)\", 1, 1]")
        .bundle(&files)
}

const HEADER: &str = r#"#pragma once
#include <cuda_bf16.h>
#include <stdint.h>
static __device__ __forceinline__ float silu_f(float g) { return g / (1.0f + expf(-g)); }
"#;

const PLAIN_SILU: &str = r#"
#include "util.cuh"
extern "C" __global__ void plain_silu(__nv_bfloat16* out, const __nv_bfloat16* x,
                                      int64_t tokens, int64_t d) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= tokens * d) return;
    int64_t t = i / d, c = i % d;
    float g = __bfloat162float(x[t * 2 * d + c]);
    float u = __bfloat162float(x[t * 2 * d + d + c]);
    out[i] = __float2bfloat16_rn(silu_f(g) * u);
}
"#;

#[test]
fn a_miner_style_bundle_with_a_header_builds_and_runs() {
    let Some(dev) = device_or_skip() else { return };
    let files = one_op_bundle(
        SlotId::SiluAndMul,
        "plain_silu",
        PLAIN_SILU,
        &[("kernels/util.cuh", HEADER)],
    );
    let built = build_cuda_bundle(&files, "test", &dev, &CudaBuildOptions::default()).unwrap();
    let kernel = built.kernel(SlotId::SiluAndMul).unwrap();
    for (i, shape) in SlotId::SiluAndMul
        .spec()
        .verification_shapes
        .iter()
        .enumerate()
    {
        let mut args = cases::generate(SlotId::SiluAndMul, shape, i as u64);
        args.round_inputs(Dtype::Bf16);
        check_call(&dev, kernel, &args, &format!("plain_silu {shape:?}"));
    }
}

#[test]
fn the_abi_check_rejects_a_wrong_parameter_list() {
    let Some(dev) = device_or_skip() else { return };
    // int32 shape symbols instead of int64_t: same count, wrong types.
    let wrong = PLAIN_SILU.replace("int64_t tokens, int64_t d", "int tokens, int d");
    let files = one_op_bundle(
        SlotId::SiluAndMul,
        "plain_silu",
        &wrong,
        &[("kernels/util.cuh", HEADER)],
    );
    let e = build_cuda_bundle(&files, "test", &dev, &CudaBuildOptions::default()).unwrap_err();
    assert_eq!(e.stage(), BuildStage::Abi, "{e}");
    assert!(
        matches!(
            &e,
            CudaBuildError::Abi(AbiError::ParamType {
                index: 2,
                param: "tokens",
                ..
            })
        ),
        "{e}"
    );
    // An extra parameter.
    let extra = PLAIN_SILU.replace("int64_t d)", "int64_t d, float extra)");
    let files = one_op_bundle(
        SlotId::SiluAndMul,
        "plain_silu",
        &extra,
        &[("kernels/util.cuh", HEADER)],
    );
    let e = build_cuda_bundle(&files, "test", &dev, &CudaBuildOptions::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            CudaBuildError::Abi(AbiError::ParamCount {
                expected: 4,
                got: 5,
                ..
            })
        ),
        "{e}"
    );
}
