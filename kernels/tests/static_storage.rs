//! A kernel's static storage (C `.data` and `.bss`) is as loaded at every call: what one
//! call leaves there never reaches the next (`cpu::static_image`), and the cost of writing
//! it back is what the bytes cost to copy.

mod common;

use std::time::Instant;

use cacheon_kernels::slots::{cases, SlotId};
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions};
use common::manifest::Manifest;

/// Writes what it finds in its static storage, then changes all of it: a call count in
/// `.bss`, a value in `.data`, one element of a 1 MiB `.bss` array.
const COUNTING: &str = r#"
#include <stdint.h>
static int64_t calls;
static float bias = 0.5f;
static float scratch[1 << 18];
void counting_silu(float* out, const float* x, int64_t tokens, int64_t d) {
    int64_t at = (calls * 4099) % (1 << 18);
    float seen = (float)calls + bias + scratch[at];
    calls++;
    bias += 1.0f;
    scratch[at] += 1.0f;
    for (int64_t i = 0; i < tokens * d; i++) out[i] = seen + 0.0f * x[i];
}
"#;

#[test]
fn every_call_sees_the_static_storage_as_loaded() {
    let files = Manifest::cpu(SlotId::SiluAndMul, "kernels/k.c", "counting_silu")
        .bundle(&[("kernels/k.c", COUNTING)]);
    let built = build_cpu_bundle(&files, "counting", &CpuBuildOptions::default()).unwrap();
    let kernel = built.kernel(SlotId::SiluAndMul).unwrap().clone();
    assert!(
        kernel.static_bytes() >= 1 << 20,
        "the 1 MiB array is written back: {} bytes",
        kernel.static_bytes()
    );
    let mut args = cases::generate(SlotId::SiluAndMul, &[3, 8], 1);
    for _ in 0..5 {
        kernel.call(&mut args);
        // calls 0, bias 0.5, scratch 0: what the library held when it was loaded.
        assert!(
            args.outputs[0].iter().all(|&v| v == 0.5),
            "{:?}",
            args.outputs[0]
        );
    }
    // What writing 1 MiB back costs a call (printed for docs/validator.md; not judged).
    let n = 2000;
    let started = Instant::now();
    for _ in 0..n {
        kernel.call(&mut args);
    }
    let per_call = started.elapsed().as_secs_f64() / n as f64;
    eprintln!(
        "{} bytes of static storage: {:.1} us a call (kernel included)",
        kernel.static_bytes(),
        per_call * 1e6
    );
}

#[test]
fn a_kernel_without_static_storage_writes_back_only_its_pages_of_bookkeeping() {
    let stock = cacheon_kernels::bundle::stock::cpu_bundle(SlotId::SiluAndMul).unwrap();
    let built = build_cpu_bundle(&stock.files(), "stock", &CpuBuildOptions::default()).unwrap();
    let kernel = built.kernel(SlotId::SiluAndMul).unwrap();
    assert!(
        kernel.static_bytes() <= 2 * 4096,
        "{} bytes",
        kernel.static_bytes()
    );
}
