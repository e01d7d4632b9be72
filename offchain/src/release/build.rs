//! Building an engine release (docs/release.md): the libraries, the manifest, and the
//! slot table a release runs with.

use std::path::{Path, PathBuf};

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::CpuBuildOptions;
use subxt_signer::sr25519;

use super::*;
use crate::arena::Arena;

/// The compiler's `--version` first line.
fn compiler_version(opts: &CpuBuildOptions) -> String {
    std::process::Command::new(&opts.compiler)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Builds a contribution's bundle as the engine does and returns the library's bytes.
pub fn build_library(
    files: &[BundleFile],
    opts: &CpuBuildOptions,
) -> Result<Vec<u8>, ReleaseError> {
    let compiled = cacheon_kernels::cpu::build::CpuSources::write(files, opts)
        .and_then(|s| s.compile(opts))
        .map_err(|e| ReleaseError::Refused(format!("the bundle does not build: {e}")))?;
    std::fs::read(compiled.library()).map_err(|e| io(compiled.library(), e))
}

/// What a release build needs besides its inputs.
pub struct BuildInputs<'a> {
    pub arena: Arena,
    pub contributions: &'a [PathBuf],
    pub keys: &'a Keys,
    /// Reruns a contribution's pinned verification seeds; `Err` names why it failed.
    pub rerun: &'a dyn Fn(&[BundleFile], u64) -> Result<(), String>,
}

/// Builds a release into `out` (which must not exist) and signs it with `key`: every
/// contribution checked, its pinned verification run again and its library built; no two
/// for one target. Returns the manifest.
pub fn build_release(
    inputs: &BuildInputs<'_>,
    out: &Path,
    key: &sr25519::Keypair,
) -> Result<Release, ReleaseError> {
    if out.exists() {
        return Err(ReleaseError::Refused(format!(
            "{} exists: a release build writes a new directory",
            out.display()
        )));
    }
    if inputs.arena.backend != crate::arena::LaneBackend::Cpu {
        return Err(ReleaseError::Refused(format!(
            "arena {} is not a CPU arena: releases of CUDA arenas are not built yet",
            inputs.arena.name()
        )));
    }
    let opts = CpuBuildOptions::default();
    let mut checked = Vec::new();
    for dir in inputs.contributions {
        let c = read_contribution(dir, inputs.keys)?;
        if c.record.arena != inputs.arena.name() {
            return Err(ReleaseError::Refused(format!(
                "{}: integrated for arena {}, not {}",
                dir.display(),
                c.record.arena,
                inputs.arena.name()
            )));
        }
        if checked
            .iter()
            .any(|o: &CheckedContribution| o.record.target == c.record.target)
        {
            return Err(ReleaseError::Refused(format!(
                "two contributions for target {}: a release has one kernel per target",
                c.record.target
            )));
        }
        for seed in &c.record.review.verify_seeds {
            (inputs.rerun)(&c.files, *seed).map_err(|e| {
                ReleaseError::Refused(format!(
                    "{}: its pinned verification (seed {seed}) no longer passes: {e}",
                    dir.display()
                ))
            })?;
        }
        checked.push(c);
    }
    checked.sort_by_key(|c| c.record.proposal);
    let mut kernels = Vec::new();
    for c in &checked {
        let p = c.record.proposal;
        let lib = build_library(&c.files, &opts)?;
        let lib_rel = format!("lib/{p}.so");
        write_file(&out.join(&lib_rel), &lib)?;
        let cdir = out.join(format!("contributions/{p}"));
        write_file(&cdir.join(CONTRIBUTION_FILE), &c.json)?;
        for f in &c.files {
            write_file(&cdir.join("bundle").join(&f.path), &f.data)?;
        }
        kernels.push(ReleaseKernel {
            proposal: p,
            target: c.record.target.clone(),
            miner: c.record.miner.clone(),
            crowned_at: c.record.crowned_at,
            speedup_ppm: c.record.speedup_ppm,
            content_hash: c.record.content_hash.clone(),
            contribution_sha256: sha256_hex(&c.json),
            library: FileDigest {
                path: lib_rel,
                sha256: sha256_hex(&lib),
            },
        });
    }
    let digests = inputs.arena.spec.engine_digests();
    let release = Release {
        format: RELEASE_FORMAT.into(),
        arena: inputs.arena.name().into(),
        model: inputs.arena.spec.model.into(),
        model_digest: hex::encode(digests.model),
        workload_digest: hex::encode(digests.workload),
        stock_digest: hex::encode(digests.stock),
        kernels,
        build: BuildRecord {
            compiler: compiler_version(&opts),
            flags: opts.flags.clone(),
        },
    };
    let signed = Signed::sign(release.clone(), key);
    write_file(
        &out.join(RELEASE_FILE),
        &serde_json::to_vec_pretty(&signed).expect("JSON"),
    )?;
    Ok(release)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ReleaseError> {
    std::fs::create_dir_all(path.parent().expect("a file's folder")).map_err(|e| io(path, e))?;
    std::fs::write(path, bytes).map_err(|e| io(path, e))
}

/// The engine's slot table for a verified release: the stock kernels, then each kernel of
/// the release built here from its integrated sources, refused unless the library is the
/// release's byte for byte (what runs is what was signed).
pub fn slot_table(
    v: &VerifiedRelease,
) -> Result<cacheon_kernels::cpu::engine::SlotTable, ReleaseError> {
    let opts = CpuBuildOptions::default();
    let mut slots = cacheon_kernels::cpu::engine::SlotTable::genesis_cpu(&opts)
        .map_err(|e| ReleaseError::Refused(format!("building the stock kernels: {e}")))?;
    for (k, files) in v.release.kernels.iter().zip(&v.bundles) {
        let compiled = cacheon_kernels::cpu::build::CpuSources::write(files, &opts)
            .and_then(|s| s.compile(&opts))
            .map_err(|e| ReleaseError::Refused(format!("proposal {}: {e}", k.proposal)))?;
        let lib = std::fs::read(compiled.library()).map_err(|e| io(compiled.library(), e))?;
        let got = sha256_hex(&lib);
        if got != k.library.sha256 {
            return Err(ReleaseError::Refused(format!(
                "{}: built here it is {got}, the release's is {} (another compiler or flags than \
                 the release's: {} {})",
                k.library.path,
                k.library.sha256,
                v.release.build.compiler,
                v.release.build.flags.join(" ")
            )));
        }
        let built = compiled
            .load(&format!("release kernel {}", k.proposal))
            .map_err(|e| ReleaseError::Refused(format!("proposal {}: {e}", k.proposal)))?;
        slots.install_bundle(&built);
    }
    Ok(slots)
}
