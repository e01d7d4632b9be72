//! Checking an engine release (docs/release.md): signatures, every digest, nothing
//! beyond the manifest, the engine's digests, a rebuild.

use std::path::Path;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::CpuBuildOptions;

use super::*;

/// A release read and checked, with each kernel's bundle files.
pub struct VerifiedRelease {
    pub release: Release,
    pub signer: String,
    /// Per kernel (manifest order): the bundle's files.
    pub bundles: Vec<Vec<BundleFile>>,
}

/// Checks the release in `dir`: the manifest signed by a release key; for every kernel its
/// contribution (as integrated: the digest the manifest names, a maintainer's signature,
/// its files) and its library's digest; no file the manifest does not name; the engine's
/// digests this build's. With `rebuild`, each library is built again from its sources and
/// must have the same bytes (the release is reproducible here).
pub fn verify(dir: &Path, keys: &Keys, rebuild: bool) -> Result<VerifiedRelease, ReleaseError> {
    let path = dir.join(RELEASE_FILE);
    let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
    let signed: Signed<Release> =
        serde_json::from_slice(&bytes).map_err(|e| ReleaseError::Malformed {
            path: path.display().to_string(),
            what: "release manifest",
            detail: e.to_string(),
        })?;
    signed.check(&path.display().to_string(), "release", &keys.release)?;
    let release = signed.body;
    if release.format != RELEASE_FORMAT {
        return Err(ReleaseError::Refused(format!(
            "{}: format {}, expected {RELEASE_FORMAT}",
            path.display(),
            release.format
        )));
    }
    let arena = crate::arena::arena(&release.arena).ok_or_else(|| {
        ReleaseError::Refused(format!("arena {} is unknown to this build", release.arena))
    })?;
    let digests = arena.spec.engine_digests();
    let ours = [
        ("model", hex::encode(digests.model), &release.model_digest),
        (
            "workload",
            hex::encode(digests.workload),
            &release.workload_digest,
        ),
        ("stock", hex::encode(digests.stock), &release.stock_digest),
    ];
    for (what, mine, theirs) in ours {
        if &mine != theirs {
            return Err(ReleaseError::Refused(format!(
                "the release's {what} digest is {theirs}, this build's engine has {mine}"
            )));
        }
    }
    let mut listed = vec![RELEASE_FILE.to_string()];
    let mut bundles = Vec::new();
    let mut targets = Vec::new();
    for k in &release.kernels {
        if targets.contains(&&k.target) {
            return Err(ReleaseError::Refused(format!(
                "two kernels for target {}",
                k.target
            )));
        }
        targets.push(&k.target);
        let cdir = dir.join(format!("contributions/{}", k.proposal));
        let c = read_contribution(&cdir, keys)?;
        let got = sha256_hex(&c.json);
        if got != k.contribution_sha256 {
            return Err(ReleaseError::DigestMismatch {
                path: cdir.join(CONTRIBUTION_FILE).display().to_string(),
                got,
                want: k.contribution_sha256.clone(),
            });
        }
        let r = &c.record;
        if (r.proposal, &r.content_hash, &r.target, &r.arena)
            != (k.proposal, &k.content_hash, &k.target, &release.arena)
        {
            return Err(ReleaseError::Refused(format!(
                "{}: the contribution is not the one the manifest names",
                cdir.display()
            )));
        }
        listed.push(format!("contributions/{}/{CONTRIBUTION_FILE}", k.proposal));
        listed.extend(
            r.files
                .iter()
                .map(|f| format!("contributions/{}/bundle/{}", k.proposal, f.path)),
        );
        if k.library.path != format!("lib/{}.so", k.proposal) {
            return Err(ReleaseError::Refused(format!(
                "kernel {}: its library must be lib/{}.so, the manifest says {}",
                k.proposal, k.proposal, k.library.path
            )));
        }
        let lib_path = dir.join(&k.library.path);
        let lib = std::fs::read(&lib_path).map_err(|e| io(&lib_path, e))?;
        let got = sha256_hex(&lib);
        if got != k.library.sha256 {
            return Err(ReleaseError::DigestMismatch {
                path: lib_path.display().to_string(),
                got,
                want: k.library.sha256.clone(),
            });
        }
        if rebuild {
            let again = sha256_hex(&build_library(&c.files, &CpuBuildOptions::default())?);
            if again != k.library.sha256 {
                return Err(ReleaseError::Refused(format!(
                    "{}: built again here it is {again}, the release's is {} (another compiler or \
                     flags than the release's: {} {})",
                    k.library.path,
                    k.library.sha256,
                    release.build.compiler,
                    release.build.flags.join(" ")
                )));
            }
        }
        listed.push(k.library.path.clone());
        bundles.push(c.files);
    }
    if let Some(extra) = list_files(dir)?.into_iter().find(|p| !listed.contains(p)) {
        return Err(ReleaseError::Unlisted(
            dir.join(extra).display().to_string(),
        ));
    }
    Ok(VerifiedRelease {
        release,
        signer: signed.signer,
        bundles,
    })
}
