//! Builds the runtime to WebAssembly without `substrate-wasm-builder`.
//!
//! `substrate-wasm-builder` depends on `wasm-opt` (binaryen, a long C++ build) only to compact
//! the blob; the node runs an uncompacted blob just as well. This script does the rest of its
//! job: it builds this crate for `wasm32v1-none` (MVP features only, which the executor
//! requires) as a `cdylib` with `--cfg substrate_runtime`, in its own target directory so the
//! outer cargo's lock is not contended, and exposes the bytes as `WASM_BINARY`.
//!
//! `SKIP_WASM_BUILD=1` skips it (native tests need no wasm); `WASM_BINARY` is then `None`.

use std::{env, fs, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-env-changed=SKIP_WASM_BUILD");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest_dir =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("runtime/ sits in the workspace")
        .to_path_buf();
    let dest = out_dir.join("wasm_binary.rs");

    let target = env::var("TARGET").unwrap_or_default();
    let skip = env::var_os("SKIP_WASM_BUILD").is_some_and(|v| !v.is_empty() && v != "0");
    if skip || target.starts_with("wasm32") || env::var_os("CARGO_FEATURE_STD").is_none() {
        fs::write(&dest, "pub const WASM_BINARY: Option<&[u8]> = None;\n")
            .expect("write wasm_binary.rs");
        return;
    }

    for path in [
        "runtime/src",
        "runtime/Cargo.toml",
        "pallets/settlement/src",
        "pallets/settlement/Cargo.toml",
        "primitives/src",
        "primitives/Cargo.toml",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", workspace.join(path).display());
    }

    // OUT_DIR is <target>/<profile>/build/<pkg>/out; the wasm build gets <target>/wasm-runtime.
    let target_root = out_dir
        .ancestors()
        .nth(4)
        .expect("OUT_DIR has the usual depth")
        .to_path_buf();
    let mut features = Vec::new();
    for (env_name, feature) in [
        ("CARGO_FEATURE_RUNTIME_BENCHMARKS", "runtime-benchmarks"),
        ("CARGO_FEATURE_TRY_RUNTIME", "try-runtime"),
    ] {
        if env::var_os(env_name).is_some() {
            features.push(feature);
        }
    }
    // One directory per feature set: the blob's path is what `include_bytes!` tracks, so a
    // build with `runtime-benchmarks` must not overwrite the blob a default build embeds.
    let wasm_target_dir = if features.is_empty() {
        target_root.join("wasm-runtime")
    } else {
        target_root.join(format!("wasm-runtime-{}", features.join("-")))
    };

    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&workspace)
        .args([
            "rustc",
            "-p",
            "cacheon-runtime",
            "--lib",
            "--crate-type",
            "cdylib",
            "--target",
            "wasm32v1-none",
        ])
        .args([
            "--profile",
            "wasm-runtime",
            "--no-default-features",
            "--locked",
        ])
        .arg("--target-dir")
        .arg(&wasm_target_dir)
        .env(
            "RUSTFLAGS",
            "-C link-arg=--export-table --cfg substrate_runtime",
        )
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CARGO_TARGET_DIR");
    if !features.is_empty() {
        cmd.arg("--features").arg(features.join(","));
    }
    let status = cmd.status().expect("run cargo for the wasm runtime");
    if !status.success() {
        panic!(
            "building the wasm runtime failed ({status}); is the target installed? `rustup target add wasm32v1-none`"
        );
    }
    let wasm = wasm_target_dir.join("wasm32v1-none/wasm-runtime/cacheon_runtime.wasm");
    fs::write(
        &dest,
        format!(
            "pub const WASM_BINARY: Option<&[u8]> = Some(include_bytes!({:?}));\n",
            wasm.display().to_string()
        ),
    )
    .expect("write wasm_binary.rs");
}
