//! The CPU build path's failure modes: compiler errors with their log, a missing entry,
//! an unloadable library, a compiler that hangs, bad bundles, and non-CPU manifests.

mod common;

use std::time::{Duration, Instant};

use cacheon_kernels::slots::call::{SlotCall, Tensor};
use cacheon_kernels::slots::SlotId;
use cacheon_kernels::{build_cpu_bundle, BundleFile, CpuBuildError, CpuBuildOptions};
use common::manifest::Manifest;

fn manifest() -> Manifest {
    Manifest::cpu(SlotId::SiluAndMul, "kernels/k.c", "fast_silu")
}

fn bundle(source: &str) -> Vec<BundleFile> {
    manifest().bundle(&[("kernels/k.c", source)])
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
    let call = SlotCall {
        slot: SlotId::SiluAndMul,
        inputs: &[Tensor::F32(&[0.0, 1.0, 5.0, 2.0])],
        scalars: &[],
        shape: &[1, 2],
    };
    k.call_into(&call, &mut [&mut out]);
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
fn unresolved_symbols_fail_before_load_and_at_load_not_at_call() {
    let src = "#include <stdint.h>\nvoid nowhere(void);\nvoid fast_silu(float* o, const float* x, int64_t t, int64_t d) { nowhere(); }\n";
    // The artifact screen refuses the import before anything is loaded.
    let err = build_cpu_bundle(&bundle(src), "t", &CpuBuildOptions::default()).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::Artifact(v) if v.what.contains("`nowhere`")),
        "{err}"
    );
    // Without it, the loader (RTLD_NOW) refuses it at load, never at the call.
    let unscreened = CpuBuildOptions {
        screen_artifact: false,
        ..CpuBuildOptions::default()
    };
    let err = build_cpu_bundle(&bundle(src), "t", &unscreened).unwrap_err();
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
    let files = manifest().bundle(&[]);
    let err = build_cpu_bundle(&files, "t", &opts).unwrap_err();
    assert!(
        matches!(&err, CpuBuildError::Manifest(m) if m.key() == "ops[0].source"),
        "{err}"
    );
    let files = Manifest::cuda(SlotId::SiluAndMul, "kernels/k.cu", "fast_silu")
        .line("block = [256, 1, 1]")
        .line("grid = [\"tokens\", 1, 1]")
        .bundle(&[("kernels/k.cu", "")]);
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

/// Builds `extra` beside a correct kernel; the artifact screen must refuse the library
/// with a message containing `expect`, whatever the source spelled.
fn refused_artifact(extra: &str, expect: &str) {
    let src = format!("{GOOD_PLAIN}\n{extra}\n");
    match build_cpu_bundle(&bundle(&src), "t", &CpuBuildOptions::default()) {
        Err(CpuBuildError::Artifact(v)) => {
            assert!(v.what.contains(expect), "{v} (expected `{expect}`)")
        }
        Err(other) => panic!("expected an artifact refusal, got {other}"),
        Ok(_) => panic!("the library was loaded: `{extra}`"),
    }
}

const GOOD_PLAIN: &str = r#"
#include <stdint.h>
#include <math.h>
void fast_silu(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t i = 0; i < d; i++) {
            float g = x[t * 2 * d + i];
            out[t * d + i] = g / (1.0f + expf(-g)) * x[t * 2 * d + d + i];
        }
}
"#;

#[test]
fn load_time_code_is_refused_in_the_artifact_whatever_its_spelling() {
    refused_artifact(
        "volatile int hit;\n__attribute__((constructor)) static void c(void) { hit = 1; }",
        ".init_array",
    );
    refused_artifact(
        "volatile int hit;\nstatic void f(void) { hit = 3; }\n__attribute__((used, section(\".init_array\"))) static void (*const p)(void) = f;",
        ".init_array",
    );
    refused_artifact(
        "volatile int hit;\n__attribute__((destructor)) static void d(void) { hit = 2; }",
        ".fini_array",
    );
    // The linker makes a function named `_init` the library's DT_INIT.
    refused_artifact(
        "volatile int hit;\nvoid _init(void) { hit = 4; }",
        "DT_INIT",
    );
    // An indirect function's resolver runs while the library is loaded.
    refused_artifact(
        "static void impl(void) {}\nstatic void (*resolve(void))(void) { return impl; }\nvoid pick(void) __attribute__((ifunc(\"resolve\")));",
        "indirect function",
    );
}

#[test]
fn imports_outside_the_math_library_are_refused_however_reached() {
    // A weakref names `write` only inside a string literal.
    refused_artifact(
        "static long w(int, const void*, unsigned long) __attribute__((weakref(\"write\")));\nvoid leak(void) { w(1, \"x\", 1); }",
        "imports `write`",
    );
    refused_artifact(
        "extern int clock_gettime(int, void*);\nint now(void* ts) { return clock_gettime(1, ts); }",
        "imports `clock_gettime`",
    );
}

#[test]
fn code_hidden_as_data_tls_and_executable_stacks_are_refused() {
    refused_artifact(
        "__attribute__((section(\".text\"))) const unsigned char code[] = {0x0f, 0x31, 0xc3};",
        "data object `code`",
    );
    refused_artifact(
        "__thread int counter;\nint bump(void) { return ++counter; }",
        "thread-local",
    );
    refused_artifact(
        "__attribute__((section(\".hidden_code\"))) int f(int x) { return x + 1; }",
        "executable section",
    );
}

#[test]
fn every_stock_kernel_and_passing_example_passes_the_artifact_screen() {
    // build_cpu_bundle screens the artifact; the stock bundles are built through it.
    for b in cacheon_kernels::bundle::stock::cpu_bundles() {
        build_cpu_bundle(&b.files(), b.name, &CpuBuildOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", b.name));
    }
}

/// The compiler runs in a sandbox of its own: a compiler that a crafted source took over
/// (here, a fake compiler doing what such code would) can write its build directory, but
/// cannot read a file elsewhere (the validator's key, say), write outside, or open a TCP
/// connection.
#[test]
fn the_compiler_sees_only_its_build_directory() {
    if cacheon_kernels::sandbox::landlock::Ruleset::new(true)
        .ok()
        .flatten()
        .is_none()
    {
        eprintln!("SKIP: this kernel has no Landlock; the compiler runs under rlimits only");
        return;
    }
    let secrets = tempfile::tempdir().unwrap();
    let secret = secrets.path().join("validator.key");
    std::fs::write(&secret, "0xsecret").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let tools = tempfile::tempdir().unwrap();
    let fake = tools.path().join("hostile-cc");
    let tcp = if std::path::Path::new("/bin/bash").exists() {
        format!(
            "/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo TCP-ESCAPED || echo tcp-refused\n"
        )
    } else {
        String::new()
    };
    let script = format!(
        "#!/bin/sh\n\
         cat {secret} && echo READ-ESCAPED\n\
         echo x > {outside}/escape && echo WRITE-ESCAPED\n\
         echo y > \"$TMPDIR/scratch\" && echo wrote-inside\n\
         {tcp}exit 1\n",
        secret = secret.display(),
        outside = secrets.path().display(),
    );
    std::fs::write(&fake, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let opts = CpuBuildOptions {
        compiler: fake,
        ..CpuBuildOptions::default()
    };
    let log = match build_cpu_bundle(&bundle(GOOD), "t", &opts) {
        Err(CpuBuildError::Preprocess { log }) | Err(CpuBuildError::Build { log }) => log,
        other => panic!("expected the fake compiler's failure, got {other:?}"),
    };
    assert!(log.contains("wrote-inside"), "{log}");
    assert!(!log.contains("ESCAPED"), "{log}");
    assert!(!log.contains("0xsecret"), "{log}");
    assert!(!secrets.path().join("escape").exists());
    if !tcp.is_empty() {
        assert!(log.contains("tcp-refused"), "{log}");
    }
}
