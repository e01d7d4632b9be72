//! The CPU build path's failure modes: compiler errors with their log, a missing entry,
//! an unloadable library, a compiler that hangs, bad bundles, and non-CPU manifests.

use std::time::{Duration, Instant};

use cacheon_kernels::slots::SlotId;
use cacheon_kernels::{build_cpu_bundle, BundleFile, CpuBuildError, CpuBuildOptions};

const MANIFEST: &str = r#"
abi = "cacheon-slot-abi-v1"
[competition]
target = "activation.silu_and_mul"
mode = "slot"
[[ops]]
slot = "activation.silu_and_mul"
backend = "cpu"
source = "kernels/k.c"
entry = "fast_silu"
dtype = "f32"
"#;

fn bundle(source: &str) -> Vec<BundleFile> {
    vec![
        BundleFile::new("manifest.toml", MANIFEST),
        BundleFile::new("kernels/k.c", source),
    ]
}

const GOOD: &str = r#"
#include <stdint.h>
#include "helpers.h"
void fast_silu(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t i = 0; i < d; i++)
            out[t * d + i] = silu(x[t * 2 * d + i]) * x[t * 2 * d + d + i];
}
"#;

const HELPERS: &str =
    "#include <math.h>\nstatic inline float silu(float g) { return g / (1.0f + expf(-g)); }\n";

#[test]
fn builds_a_miner_bundle_with_a_header_and_runs_it() {
    let mut files = bundle(GOOD);
    files.push(BundleFile::new("kernels/helpers.h", HELPERS));
    let built = build_cpu_bundle(&files, "test", &CpuBuildOptions::default()).unwrap();
    let k = built.kernel(SlotId::SiluAndMul).unwrap();
    assert_eq!((k.entry(), k.origin()), ("fast_silu", "test"));
    let mut out = [f32::NAN; 2];
    k.silu_and_mul(&mut out, &[0.0, 1.0, 5.0, 2.0], 1, 2);
    assert_eq!(out[0], 0.0);
    assert!((out[1] - 2.0 / (1.0 + (-1f32).exp())).abs() < 1e-6);
}

#[test]
fn compiler_errors_come_back_with_the_log() {
    let err = build_cpu_bundle(
        &bundle("void fast_silu( {"),
        "t",
        &CpuBuildOptions::default(),
    )
    .unwrap_err();
    match err {
        CpuBuildError::Build { log } => assert!(log.contains("k.c"), "{log}"),
        other => panic!("expected Build, got {other:?}"),
    }
}

#[test]
fn missing_entry_is_named() {
    let src =
        "#include <stdint.h>\nvoid other(float* o, const float* x, int64_t t, int64_t d) {}\n";
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::MissingEntry { name } if name == "fast_silu"),
        "{err}"
    );
    // A static (not exported) function is missing too.
    let src = "#include <stdint.h>\nstatic void fast_silu(float* o, const float* x, int64_t t, int64_t d) {}\nvoid (*keep)(float*, const float*, int64_t, int64_t) = fast_silu;\n";
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(matches!(err, CpuBuildError::MissingEntry { .. }), "{err}");
}

#[test]
fn a_wrong_parameter_list_is_an_abi_failure() {
    // Compiles and exports the right name, but takes `int` shapes and a non-const input.
    let src = "void fast_silu(float* o, float* x, int t, int d) { (void)o; (void)x; (void)t; (void)d; }\n";
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::Abi { entry, log, .. } if entry == "fast_silu" && log.contains("conflicting types")),
        "{err}"
    );
    let src = "#include <stdint.h>\nint fast_silu(float* o, const float* x, int64_t t, int64_t d) { return 0; }\n";
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(matches!(err, CpuBuildError::Abi { .. }), "{err}");
}

#[test]
fn unresolved_symbols_fail_at_load_not_at_call() {
    let src = "#include <stdint.h>\nvoid nowhere(void);\nvoid fast_silu(float* o, const float* x, int64_t t, int64_t d) { nowhere(); }\n";
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::Load { message } if message.contains("nowhere")),
        "{err}"
    );
}

#[test]
fn a_hanging_compiler_is_killed_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("slow-cc");
    std::fs::write(&fake, "#!/bin/sh\necho compiling\nsleep 30\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let opts = CpuBuildOptions {
        compiler: fake,
        timeout: Duration::from_millis(500),
        ..CpuBuildOptions::default()
    };
    let start = Instant::now();
    let err = build_cpu_bundle(&bundle(GOOD), "t", &opts).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(10));
    match err {
        CpuBuildError::Timeout { log, .. } => assert!(log.contains("compiling"), "{log}"),
        other => panic!("expected Timeout, got {other:?}"),
    }
}

#[test]
fn bad_bundles_and_manifests_are_refused_before_building() {
    let opts = CpuBuildOptions::default();
    let mut files = bundle(GOOD);
    files.push(BundleFile::new("../escape.c", "x"));
    assert!(matches!(
        build_cpu_bundle(&files, "t", &opts),
        Err(CpuBuildError::Bundle(_))
    ));
    let files = vec![BundleFile::new("manifest.toml", MANIFEST)];
    let err = build_cpu_bundle(&files, "t", &opts).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::Manifest(m) if m.key() == "ops[0].source"),
        "{err}"
    );
    let cuda = MANIFEST
        .replace("\"cpu\"", "\"cuda\"")
        .replace("k.c", "k.cu")
        .replace(
            "\"f32\"",
            "\"bf16\"\nblock = [256, 1, 1]\ngrid = [\"tokens\", 1, 1]",
        );
    let files = vec![
        BundleFile::new("manifest.toml", cuda),
        BundleFile::new("kernels/k.cu", ""),
    ];
    let err = build_cpu_bundle(&files, "t", &opts).unwrap_err();
    assert!(matches!(err, CpuBuildError::WrongBackend(_)), "{err}");
    let missing = CpuBuildOptions {
        compiler: "/nonexistent/cc".into(),
        ..opts
    };
    let err = build_cpu_bundle(&bundle(GOOD), "t", &missing).unwrap_err();
    assert!(
        matches!(err, CpuBuildError::CompilerUnavailable { .. }),
        "{err}"
    );
}
