//! Helpers for the `cacheon` integration tests: run the real binary, parse its JSON; bundle
//! manifests are written by [`manifest::Manifest`], the kernels' tests' builder.

#![allow(dead_code)]

#[path = "../../../kernels/tests/common/manifest.rs"]
pub mod manifest;

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn cacheon() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cacheon"))
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `cacheon --json args…`; returns the exit code and the last JSON line of stdout.
pub fn run_json(args: &[&str]) -> (i32, serde_json::Value) {
    let out = cacheon()
        .arg("--json")
        .args(args)
        .output()
        .expect("run cacheon");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| {
            panic!(
                "cacheon {args:?} printed no JSON (exit {:?})\nstdout: {stdout}\nstderr: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let v = serde_json::from_str(line).unwrap_or_else(|e| panic!("bad JSON {line}: {e}"));
    (out.status.code().unwrap_or(-1), v)
}

/// Whether a CUDA device is usable here (prints why not).
pub fn gpu_present() -> bool {
    match cacheon_kernels::CudaDevice::open(0) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("SKIP GPU part: no CUDA device ({e})");
            false
        }
    }
}
