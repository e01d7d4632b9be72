//! Every stock CPU kernel against its trusted reference on every verification shape,
//! with the slot's check and the f32 tolerance; run twice with poisoned outputs, and the
//! inputs must be unchanged.

use cacheon_kernels::bundle::stock;
use cacheon_kernels::slots::cases;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::{Dtype, SlotId};
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions};

#[test]
fn stock_cpu_kernels_match_reference_on_every_verification_shape() {
    let opts = CpuBuildOptions::default();
    let tol = Dtype::F32.tolerance();
    for slot in SlotId::with_stock() {
        let bundle = stock::cpu_bundle(slot).unwrap();
        let built = build_cpu_bundle(&bundle.files(), bundle.name, &opts)
            .unwrap_or_else(|e| panic!("{slot}: {e}"));
        let kernel = built.kernel(slot).expect("stock bundle provides its slot");
        for (i, shape) in slot.spec().verification_shapes.iter().enumerate() {
            let mut args = cases::generate(slot, shape, 0xC0FFEE + i as u64);
            let inputs_before = args.inputs.clone();
            let expected = reference::compute(&args);
            for run in 0..2 {
                args.poison_outputs();
                kernel.call(&mut args);
                assert_eq!(
                    args.inputs, inputs_before,
                    "{slot} {shape:?}: inputs changed"
                );
                let reports = reference::judge(&args, &args.outputs, &expected, tol);
                for (j, r) in reports.into_iter().enumerate() {
                    assert!(r.passed, "{slot} {shape:?} output {j} run {run}: {r:?}");
                }
            }
        }
    }
}

#[test]
fn a_wrong_kernel_is_caught_by_the_comparison() {
    // The rmsnorm stock kernel's output is not silu_and_mul's: the check must say so.
    let opts = CpuBuildOptions::default();
    let b = stock::cpu_bundle(SlotId::RmsNorm).unwrap();
    let built = build_cpu_bundle(&b.files(), b.name, &opts).unwrap();
    let kernel = built.kernel(SlotId::RmsNorm).unwrap();
    let mut args = cases::generate(SlotId::RmsNorm, &[3, 7], 5);
    let mut expected = reference::compute(&args);
    kernel.call(&mut args);
    expected[0][4] += 1e-3;
    let r = reference::allclose(&args.outputs[0], &expected[0], Dtype::F32.tolerance());
    assert!(!r.passed);
    assert_eq!((r.mismatches, r.first_bad), (1, Some(4)));
}
