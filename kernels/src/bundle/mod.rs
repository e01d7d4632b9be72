//! A bundle in memory: a set of `(relative path, bytes)` files (DESIGN 3 and 6). The same
//! type carries a stock bundle embedded in this crate, a miner's folder read from disk,
//! and bundle bytes decoded from chain storage.

pub mod launch_expr;
pub mod manifest;
pub mod stock;

use std::path::Path;

use cacheon_primitives::bundle as canonical;
use cacheon_primitives::BundleLimits;

/// Most files a bundle may hold.
pub const MAX_FILES: usize = BundleLimits::DEFAULT.max_files as usize;
/// Longest path, in bytes.
pub const MAX_PATH_BYTES: usize = BundleLimits::DEFAULT.max_path_len as usize;
/// Default bound on a bundle's canonical size (`MaxBundleBytes`).
pub const MAX_BUNDLE_BYTES: usize = BundleLimits::DEFAULT.max_bytes as usize;
/// Name of the manifest at the bundle root.
pub const MANIFEST_FILE: &str = "manifest.toml";

pub use cacheon_primitives::BundleFile;

/// Why a set of files is not an acceptable bundle. The rules themselves (DESIGN 3) live in
/// `cacheon-primitives`, shared with the chain, so a bundle accepted here is accepted there.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BundleError {
    /// A rule of the canonical encoding; `path` names the offending file when there is one.
    #[error("{}{reason}", path.as_ref().map(|p| format!("`{p}`: ")).unwrap_or_default())]
    Invalid {
        path: Option<String>,
        reason: canonical::BundleError,
    },
    #[error("bundle has no {MANIFEST_FILE}")]
    NoManifest,
    #[error("reading `{path}`: {message}")]
    Read { path: String, message: String },
}

/// Checks one path: relative, `/`-separated, components `[A-Za-z0-9._-]+`, no `.`/`..`,
/// at most 255 bytes.
pub fn check_path(path: &str) -> Result<(), BundleError> {
    canonical::check_path(path.as_bytes(), 0, &BundleLimits::DEFAULT).map_err(|reason| {
        BundleError::Invalid {
            path: Some(path.to_string()),
            reason,
        }
    })
}

fn limits(max_bytes: usize) -> BundleLimits {
    BundleLimits {
        max_bytes: max_bytes.min(u32::MAX as usize) as u32,
        ..BundleLimits::DEFAULT
    }
}

/// The files in canonical order as the chain's encoding expects them.
fn sorted_canonical(files: &[BundleFile]) -> Vec<BundleFile> {
    let mut out = files.to_vec();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The canonical bytes of a bundle (what `cacheon pack` hashes and the chain stores), after
/// every rule of DESIGN 3 is checked.
pub fn canonical_bytes(files: &[BundleFile], max_bytes: usize) -> Result<Vec<u8>, BundleError> {
    let sorted = sorted_canonical(files);
    canonical::canonical_bytes(sorted.clone(), &limits(max_bytes)).map_err(|reason| {
        let file = match reason {
            canonical::BundleError::BadPath { file }
            | canonical::BundleError::PathTooLong { file }
            | canonical::BundleError::NotSorted { file }
            | canonical::BundleError::DuplicatePath { file }
            | canonical::BundleError::PathConflict { file }
            | canonical::BundleError::BinaryExtension { file }
            | canonical::BundleError::BinaryContent { file } => Some(file as usize),
            _ => None,
        };
        let path = file.and_then(|i| sorted.get(i)).map(|f| f.path.clone());
        BundleError::Invalid { path, reason }
    })
}

/// Decodes canonical bundle bytes (for example from chain storage), enforcing every rule
/// again on the way in.
pub fn from_canonical_bytes(
    bytes: &[u8],
    max_bytes: usize,
) -> Result<Vec<BundleFile>, BundleError> {
    canonical::decode_bundle(bytes, &limits(max_bytes))
        .map_err(|reason| BundleError::Invalid { path: None, reason })
}

/// Checks a whole bundle against DESIGN 3's rules (as the chain applies them) and the
/// presence of a manifest; returns its files sorted by path.
pub fn check_bundle(
    files: &[BundleFile],
    max_bytes: usize,
) -> Result<Vec<&BundleFile>, BundleError> {
    canonical_bytes(files, max_bytes)?;
    if !files.iter().any(|f| f.path == MANIFEST_FILE) {
        return Err(BundleError::NoManifest);
    }
    let mut sorted: Vec<&BundleFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(sorted)
}

/// Finds a file by path.
pub fn find<'a>(files: &'a [BundleFile], path: &str) -> Option<&'a BundleFile> {
    files.iter().find(|f| f.path == path)
}

/// Reads a bundle folder from disk (regular files only; links are refused).
/// Sizes are checked before a byte is read: a file or a folder larger than a bundle may be
/// is refused without reading it.
pub fn read_dir(root: &Path) -> Result<Vec<BundleFile>, BundleError> {
    let mut out = Vec::new();
    let mut total = 0u64;
    read_dir_into(root, "", &mut out, &mut total)?;
    out.sort();
    Ok(out)
}

fn read_dir_into(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<BundleFile>,
    total: &mut u64,
) -> Result<(), BundleError> {
    let err = |path: &Path, e: std::io::Error| BundleError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    for entry in std::fs::read_dir(dir).map_err(|e| err(dir, e))? {
        let entry = entry.map_err(|e| err(dir, e))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|raw| BundleError::Read {
                path: format!("{prefix}/{}", raw.to_string_lossy()),
                message: "file name is not UTF-8".into(),
            })?;
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type().map_err(|e| err(&entry.path(), e))?;
        if kind.is_dir() {
            read_dir_into(&entry.path(), &rel, out, total)?;
        } else if kind.is_file() {
            let len = entry.metadata().map_err(|e| err(&entry.path(), e))?.len();
            *total = total.saturating_add(len);
            if *total > MAX_BUNDLE_BYTES as u64 {
                return Err(BundleError::Invalid {
                    path: Some(rel),
                    reason: canonical::BundleError::TooLarge {
                        bytes: *total,
                        max: MAX_BUNDLE_BYTES as u32,
                    },
                });
            }
            let mut data = Vec::with_capacity(len as usize);
            std::fs::File::open(entry.path())
                .and_then(|f| {
                    use std::io::Read;
                    f.take(MAX_BUNDLE_BYTES as u64 + 1).read_to_end(&mut data)
                })
                .map_err(|e| err(&entry.path(), e))?;
            out.push(BundleFile { path: rel, data });
        } else {
            return Err(BundleError::Read {
                path: rel,
                message: "not a regular file (links and special files are refused)".into(),
            });
        }
        if out.len() > MAX_FILES {
            return Err(BundleError::Invalid {
                path: None,
                reason: canonical::BundleError::TooManyFiles {
                    files: out.len() as u64,
                    max: MAX_FILES as u32,
                },
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert!(check_path("kernels/silu.c").is_ok());
        assert!(check_path("manifest.toml").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "a//b",
            "a/",
            "../x",
            "a/./b",
            "a b",
            "a\\b",
            "é",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
        assert!(check_path(&"a".repeat(256)).is_err());
    }

    #[test]
    fn bundles() {
        let m = BundleFile::new(MANIFEST_FILE, "x");
        let c = BundleFile::new("kernels/a.c", "int x;");
        assert_eq!(
            check_bundle(&[c.clone(), m.clone()], 1000).unwrap()[0].path,
            "kernels/a.c"
        );
        assert_eq!(
            check_bundle(std::slice::from_ref(&c), 1000),
            Err(BundleError::NoManifest)
        );
        assert!(matches!(
            check_bundle(&[m.clone(), m.clone()], 1000),
            Err(BundleError::Invalid {
                reason: canonical::BundleError::DuplicatePath { .. },
                ..
            })
        ));
        let so = BundleFile::new("k.so", "x");
        assert_eq!(
            check_bundle(&[m.clone(), so], 1000),
            Err(BundleError::Invalid {
                path: Some("k.so".into()),
                reason: canonical::BundleError::BinaryExtension { file: 0 }
            })
        );
        let elf = BundleFile::new("k.c", b"\x7fELF....".to_vec());
        assert!(matches!(
            check_bundle(&[m.clone(), elf], 1000),
            Err(BundleError::Invalid {
                reason: canonical::BundleError::BinaryContent { .. },
                ..
            })
        ));
        assert!(matches!(
            check_bundle(&[m.clone(), c.clone()], 5),
            Err(BundleError::Invalid {
                reason: canonical::BundleError::TooLarge { .. },
                ..
            })
        ));
        // Round trip through the chain's canonical encoding.
        let bytes = canonical_bytes(&[m.clone(), c.clone()], 1000).unwrap();
        assert_eq!(from_canonical_bytes(&bytes, 1000).unwrap(), vec![c, m]);
    }
}
