//! Content-addressed evidence: a report is stored as `<dir>/<digest>.json`, where the
//! digest is the SHA-256 of exactly the stored bytes. Writing is atomic (temp file, fsync,
//! rename), so a crash never leaves a half-written report under its digest.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Stores `bytes`; returns the digest (hex) and the path.
pub fn store(dir: &Path, bytes: &[u8]) -> std::io::Result<(String, PathBuf)> {
    // SHA-256, the same function as a bundle's ContentHash.
    let digest = hex::encode(cacheon_primitives::bundle::content_hash(bytes));
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{digest}.json"));
    if path.exists() {
        return Ok((digest, path));
    }
    let tmp = dir.join(format!(".{digest}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    std::fs::File::open(dir)?.sync_all()?;
    Ok((digest, path))
}

/// A digest as 64 lowercase hex digits (`0x` and upper case accepted), or `None`: the only
/// form that names a stored or served report.
pub fn parse_digest(text: &str) -> Option<String> {
    let digest = text.trim_start_matches("0x").to_ascii_lowercase();
    (digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit())).then_some(digest)
}

/// Loads a stored report and checks that it still hashes to its name.
pub fn load(dir: &Path, digest: &str) -> std::io::Result<Vec<u8>> {
    let Some(digest) = parse_digest(digest) else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a digest is 64 hex digits",
        ));
    };
    let bytes = std::fs::read(dir.join(format!("{digest}.json")))?;
    if hex::encode(cacheon_primitives::bundle::content_hash(&bytes)) != digest {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the stored report does not match its digest",
        ));
    }
    Ok(bytes)
}
