//! Integrated contributions and engine releases (docs/release.md): what turns crowns into
//! software people run.
//!
//! - An **integrated contribution** is a directory: `contribution.json` (the record, signed
//!   by a maintainer key) and `bundle/` (the crowned bundle's files, byte for byte). The
//!   record binds the files to the crown (proposal, ContentHash, crown block, miner,
//!   speedup) and holds the maintainer's review: the files read, and the verification seeds
//!   the bundle passed, pinned — the contribution's own tests, run again by every build.
//! - An **engine release** is a directory: `release.json` (the manifest, signed by a
//!   release key), `contributions/<proposal>/` (each integrated contribution, as
//!   integrated) and `lib/<proposal>.so` (each one built). The stock kernels are the
//!   engine's own (their set's digest is in the manifest); a kernel not integrated cannot be
//!   in a release: [`verify`] refuses every file the manifest does not name.
//!
//! Keys: `offchain/release-keys.toml` names who may sign (SS58, sr25519), embedded in the
//! binary; `--keys FILE` replaces it. Signatures are over the record's JSON as serde writes
//! it (fields in declaration order, no whitespace).

use std::path::{Path, PathBuf};

use cacheon_kernels::bundle::{self, BundleFile};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use subxt_signer::sr25519;

pub const CONTRIBUTION_FORMAT: &str = "cacheon-contribution-v1";
pub const RELEASE_FORMAT: &str = "cacheon-release-v1";
pub const CONTRIBUTION_FILE: &str = "contribution.json";
pub const RELEASE_FILE: &str = "release.json";

/// Why a contribution or a release is refused.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error("{0}")]
    Io(String),
    #[error("{path}: not a {what}: {detail}")]
    Malformed {
        path: String,
        what: &'static str,
        detail: String,
    },
    #[error("{what} is signed by {signer}, who is not a {role} key (keys: {keys})")]
    UnknownSigner {
        what: String,
        signer: String,
        role: &'static str,
        keys: String,
    },
    #[error("{0}: the signature does not match the record (changed after signing?)")]
    BadSignature(String),
    #[error("{path}: its digest is {got}, the record says {want}")]
    DigestMismatch {
        path: String,
        got: String,
        want: String,
    },
    #[error("{0}: not named by the release's manifest (a release carries only integrated code)")]
    Unlisted(String),
    #[error("{0}")]
    Refused(String),
}

fn io(path: &Path, e: impl std::fmt::Display) -> ReleaseError {
    ReleaseError::Io(format!("{}: {e}", path.display()))
}

/// SHA-256 as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(cacheon_primitives::bundle::content_hash(bytes))
}

/// Who may sign: maintainers (integrated contributions) and release keys (releases), SS58.
#[derive(Clone, Debug, Deserialize)]
pub struct Keys {
    pub maintainers: Vec<String>,
    pub release: Vec<String>,
}

impl Keys {
    /// The keys this build was made with (`offchain/release-keys.toml`).
    pub fn embedded() -> Keys {
        toml::from_str(include_str!("../release-keys.toml")).expect("release-keys.toml parses")
    }

    /// The keys in `path` (the same format), else the embedded ones.
    pub fn load(path: Option<&Path>) -> Result<Keys, ReleaseError> {
        let Some(path) = path else {
            return Ok(Keys::embedded());
        };
        let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
        toml::from_str(&text).map_err(|e| ReleaseError::Malformed {
            path: path.display().to_string(),
            what: "key list",
            detail: e.to_string(),
        })
    }
}

/// A record and its signature.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Signed<T> {
    pub body: T,
    /// The signer's account (SS58).
    pub signer: String,
    /// sr25519 over the body's JSON, hex.
    pub signature: String,
}

impl<T: Serialize + DeserializeOwned> Signed<T> {
    pub fn sign(body: T, key: &sr25519::Keypair) -> Signed<T> {
        let msg = serde_json::to_vec(&body).expect("records serialize");
        Signed {
            signer: crate::chain::account(key).to_string(),
            signature: hex::encode(key.sign(&msg).0),
            body,
        }
    }

    /// The signer is one of `allowed` and the signature is the body's.
    pub fn check(
        &self,
        what: &str,
        role: &'static str,
        allowed: &[String],
    ) -> Result<(), ReleaseError> {
        if !allowed.contains(&self.signer) {
            return Err(ReleaseError::UnknownSigner {
                what: what.to_string(),
                signer: self.signer.clone(),
                role,
                keys: allowed.join(", "),
            });
        }
        let public = <subxt::utils::AccountId32 as std::str::FromStr>::from_str(&self.signer)
            .map_err(|_| ReleaseError::BadSignature(what.to_string()))?;
        let sig: [u8; 64] = hex::decode(&self.signature)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| ReleaseError::BadSignature(what.to_string()))?;
        let msg = serde_json::to_vec(&self.body).expect("records serialize");
        if !sr25519::verify(&sr25519::Signature(sig), msg, &sr25519::PublicKey(public.0)) {
            return Err(ReleaseError::BadSignature(what.to_string()));
        }
        Ok(())
    }
}

/// One file and its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub path: String,
    pub sha256: String,
}

/// A maintainer's review of a crowned bundle.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Review {
    /// The maintainer (SS58); the record's signer.
    pub maintainer: String,
    /// Bundle files the maintainer read (every file: nothing is integrated unread).
    pub read: Vec<String>,
    /// Seeds whose verification cases the bundle passed at integration, pinned: every
    /// release build runs them again.
    pub verify_seeds: Vec<u64>,
    /// Verification cases per seed.
    pub cases: usize,
    /// Who wrote it, as the release credits it.
    pub attribution: String,
}

/// An integrated contribution's record (`contribution.json`'s body).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Contribution {
    pub format: String,
    pub proposal: u64,
    pub arena: String,
    pub target: String,
    /// The crowned bundle's ContentHash (hex): the files must hash to it, packed.
    pub content_hash: String,
    /// The block of the crown.
    pub crowned_at: u64,
    pub speedup_ppm: u32,
    pub miner: String,
    pub files: Vec<FileDigest>,
    pub review: Review,
}

/// One kernel of a release.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReleaseKernel {
    pub proposal: u64,
    pub target: String,
    pub miner: String,
    pub crowned_at: u64,
    pub speedup_ppm: u32,
    pub content_hash: String,
    /// SHA-256 of `contributions/<proposal>/contribution.json` as integrated.
    pub contribution_sha256: String,
    /// `lib/<proposal>.so` and its SHA-256.
    pub library: FileDigest,
}

/// What the libraries were built with.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BuildRecord {
    /// The compiler's first line of `--version`.
    pub compiler: String,
    pub flags: Vec<String>,
}

/// An engine release's manifest (`release.json`'s body).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Release {
    pub format: String,
    pub arena: String,
    pub model: String,
    /// The engine's digests (hex): model, workload, stock kernel set.
    pub model_digest: String,
    pub workload_digest: String,
    pub stock_digest: String,
    /// By proposal id.
    pub kernels: Vec<ReleaseKernel>,
    pub build: BuildRecord,
}

impl Release {
    /// The release's digest: SHA-256 of the manifest's body as signed. Two builds of the
    /// same inputs have the same digest (the signatures differ: sr25519 signing is
    /// randomized).
    pub fn digest(&self) -> String {
        sha256_hex(&serde_json::to_vec(self).expect("records serialize"))
    }

    /// The remark `cacheon release mark` puts on chain (`System::remark_with_event`): the
    /// release's digest, format, arena and proposals, as JSON.
    pub fn mark(&self) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "cacheon_release": self.digest(),
            "format": self.format,
            "arena": self.arena,
            "proposals": self.kernels.iter().map(|k| k.proposal).collect::<Vec<_>>(),
        }))
        .expect("JSON")
    }
}

/// A release mark read back from a remark (`digest`, `arena`, `proposals`); `None` for any
/// other remark.
pub fn parse_mark(remark: &[u8]) -> Option<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(remark).ok()?;
    let digest = v["cacheon_release"].as_str()?;
    let hex_ok = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
    let proposals: Vec<u64> = v["proposals"]
        .as_array()?
        .iter()
        .map(serde_json::Value::as_u64)
        .collect::<Option<_>>()?;
    (hex_ok && v["format"] == RELEASE_FORMAT).then(|| {
        serde_json::json!({
            "digest": digest,
            "arena": v["arena"].as_str().unwrap_or_default(),
            "proposals": proposals,
        })
    })
}

/// A contribution directory read and checked: the record signed by a maintainer, every
/// file the record names and no other, the files packing to the crowned ContentHash.
pub struct CheckedContribution {
    pub record: Contribution,
    /// `contribution.json`'s bytes.
    pub json: Vec<u8>,
    pub files: Vec<BundleFile>,
}

/// Writes an integrated contribution into `dir` (which must not exist): the files under
/// `bundle/`, the record signed by `key`.
pub fn write_contribution(
    dir: &Path,
    record: Contribution,
    files: &[BundleFile],
    key: &sr25519::Keypair,
) -> Result<PathBuf, ReleaseError> {
    if dir.exists() {
        return Err(ReleaseError::Refused(format!(
            "{} exists: an integration writes a new directory",
            dir.display()
        )));
    }
    for f in files {
        let path = dir.join("bundle").join(&f.path);
        std::fs::create_dir_all(path.parent().expect("a file's folder"))
            .map_err(|e| io(&path, e))?;
        std::fs::write(&path, &f.data).map_err(|e| io(&path, e))?;
    }
    let signed = Signed::sign(record, key);
    let path = dir.join(CONTRIBUTION_FILE);
    std::fs::write(&path, serde_json::to_vec_pretty(&signed).expect("JSON"))
        .map_err(|e| io(&path, e))?;
    Ok(path)
}

/// Reads and checks the contribution in `dir` (see [`CheckedContribution`]).
pub fn read_contribution(dir: &Path, keys: &Keys) -> Result<CheckedContribution, ReleaseError> {
    let path = dir.join(CONTRIBUTION_FILE);
    let json = std::fs::read(&path).map_err(|e| io(&path, e))?;
    let signed: Signed<Contribution> =
        serde_json::from_slice(&json).map_err(|e| ReleaseError::Malformed {
            path: path.display().to_string(),
            what: "contribution record",
            detail: e.to_string(),
        })?;
    signed.check(&path.display().to_string(), "maintainer", &keys.maintainers)?;
    let record = signed.body;
    if record.format != CONTRIBUTION_FORMAT || record.review.maintainer != signed.signer {
        return Err(ReleaseError::Refused(format!(
            "{}: format {} by {}, expected {CONTRIBUTION_FORMAT} by its signer",
            path.display(),
            record.format,
            record.review.maintainer
        )));
    }
    let root = dir.join("bundle");
    let mut on_disk = list_files(&root)?;
    on_disk.sort();
    let mut named: Vec<String> = record.files.iter().map(|f| f.path.clone()).collect();
    named.sort();
    if let Some(extra) = on_disk.iter().find(|p| !named.contains(p)) {
        return Err(ReleaseError::Unlisted(
            root.join(extra).display().to_string(),
        ));
    }
    // Only files found under `bundle/` are read: a record naming `../x` reads nothing.
    if let Some(missing) = named.iter().find(|p| !on_disk.contains(p)) {
        return Err(ReleaseError::Refused(format!(
            "{}: the record names {missing}, which is not a file of its bundle/",
            path.display()
        )));
    }
    let mut files = Vec::new();
    for f in &record.files {
        let path = root.join(&f.path);
        let data = std::fs::read(&path).map_err(|e| io(&path, e))?;
        let got = sha256_hex(&data);
        if got != f.sha256 {
            return Err(ReleaseError::DigestMismatch {
                path: path.display().to_string(),
                got,
                want: f.sha256.clone(),
            });
        }
        files.push(BundleFile::new(f.path.clone(), data));
    }
    let packed = bundle::canonical_bytes(&files, bundle::MAX_BUNDLE_BYTES).map_err(|e| {
        ReleaseError::Malformed {
            path: root.display().to_string(),
            what: "bundle",
            detail: e.to_string(),
        }
    })?;
    let got = sha256_hex(&packed);
    if got != record.content_hash {
        return Err(ReleaseError::DigestMismatch {
            path: format!("{} (packed)", root.display()),
            got,
            want: record.content_hash.clone(),
        });
    }
    Ok(CheckedContribution {
        record,
        json,
        files,
    })
}

/// Every file under `root`, as paths relative to it with `/` separators (links refused).
fn list_files(root: &Path) -> Result<Vec<String>, ReleaseError> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let entry = entry.map_err(|e| io(&dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| io(&path, e))?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let rel = path.strip_prefix(root).expect("under root");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            } else {
                return Err(ReleaseError::Refused(format!(
                    "{}: not a plain file (a link?)",
                    path.display()
                )));
            }
        }
    }
    Ok(out)
}

mod build;
mod verify;

pub use build::{build_library, build_release, slot_table, BuildInputs};
pub use verify::{verify, VerifiedRelease};

#[cfg(test)]
mod tests;
