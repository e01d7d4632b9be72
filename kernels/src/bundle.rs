//! A bundle in memory: a set of `(relative path, bytes)` files (DESIGN 3 and 6). The same
//! type carries a stock bundle embedded in this crate, a miner's folder read from disk,
//! and bundle bytes decoded from chain storage.

use std::collections::BTreeSet;
use std::path::Path;

/// Most files a bundle may hold.
pub const MAX_FILES: usize = 64;
/// Longest path, in bytes.
pub const MAX_PATH_BYTES: usize = 255;
/// Default bound on a bundle's total size (`MaxBundleBytes`).
pub const MAX_BUNDLE_BYTES: usize = 512 * 1024;
/// Name of the manifest at the bundle root.
pub const MANIFEST_FILE: &str = "manifest.toml";

const BINARY_EXTENSIONS: [&str; 7] = [".so", ".o", ".a", ".cubin", ".fatbin", ".ptx", ".pyc"];

/// One file of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BundleFile {
    /// Relative, `/`-separated path.
    pub path: String,
    pub data: Vec<u8>,
}

impl BundleFile {
    pub fn new(path: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        BundleFile {
            path: path.into(),
            data: data.into(),
        }
    }
}

/// Why a set of files is not an acceptable bundle.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BundleError {
    #[error("bundle has no files")]
    Empty,
    #[error("bundle has {count} files, more than {MAX_FILES}")]
    TooManyFiles { count: usize },
    #[error("bundle is {bytes} bytes, more than {limit}")]
    TooLarge { bytes: usize, limit: usize },
    #[error("bad path `{path}`: {reason}")]
    BadPath { path: String, reason: &'static str },
    #[error("duplicate path `{path}`")]
    Duplicate { path: String },
    #[error("`{path}` is a binary; bundles carry source only")]
    Binary { path: String },
    #[error("bundle has no {MANIFEST_FILE}")]
    NoManifest,
    #[error("reading `{path}`: {message}")]
    Read { path: String, message: String },
}

/// Checks one path: relative, `/`-separated, components `[A-Za-z0-9._-]+`, no `.`/`..`.
pub fn check_path(path: &str) -> Result<(), BundleError> {
    let bad = |reason| {
        Err(BundleError::BadPath {
            path: path.to_string(),
            reason,
        })
    };
    if path.is_empty() {
        return bad("empty");
    }
    if path.len() > MAX_PATH_BYTES {
        return bad("longer than 255 bytes");
    }
    for comp in path.split('/') {
        if comp.is_empty() {
            return bad("empty component (leading, trailing or doubled `/`)");
        }
        if comp == "." || comp == ".." {
            return bad("`.` and `..` are not allowed");
        }
        let ok = comp
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !ok {
            return bad("components may only use A-Z a-z 0-9 . _ -");
        }
    }
    Ok(())
}

/// Checks a whole bundle against DESIGN 3's limits and returns its files sorted by path.
pub fn check_bundle(
    files: &[BundleFile],
    max_bytes: usize,
) -> Result<Vec<&BundleFile>, BundleError> {
    if files.is_empty() {
        return Err(BundleError::Empty);
    }
    if files.len() > MAX_FILES {
        return Err(BundleError::TooManyFiles { count: files.len() });
    }
    let bytes: usize = files.iter().map(|f| f.path.len() + f.data.len()).sum();
    if bytes > max_bytes {
        return Err(BundleError::TooLarge {
            bytes,
            limit: max_bytes,
        });
    }
    let mut seen = BTreeSet::new();
    for f in files {
        check_path(&f.path)?;
        if !seen.insert(f.path.as_str()) {
            return Err(BundleError::Duplicate {
                path: f.path.clone(),
            });
        }
        let lower = f.path.to_ascii_lowercase();
        if BINARY_EXTENSIONS.iter().any(|e| lower.ends_with(e)) || f.data.starts_with(b"\x7fELF") {
            return Err(BundleError::Binary {
                path: f.path.clone(),
            });
        }
    }
    if !seen.contains(MANIFEST_FILE) {
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
pub fn read_dir(root: &Path) -> Result<Vec<BundleFile>, BundleError> {
    let mut out = Vec::new();
    read_dir_into(root, "", &mut out)?;
    out.sort();
    Ok(out)
}

fn read_dir_into(dir: &Path, prefix: &str, out: &mut Vec<BundleFile>) -> Result<(), BundleError> {
    let err = |path: &Path, e: std::io::Error| BundleError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    for entry in std::fs::read_dir(dir).map_err(|e| err(dir, e))? {
        let entry = entry.map_err(|e| err(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type().map_err(|e| err(&entry.path(), e))?;
        if kind.is_dir() {
            read_dir_into(&entry.path(), &rel, out)?;
        } else if kind.is_file() {
            let data = std::fs::read(entry.path()).map_err(|e| err(&entry.path(), e))?;
            out.push(BundleFile { path: rel, data });
        } else {
            return Err(BundleError::BadPath {
                path: rel,
                reason: "not a regular file",
            });
        }
        if out.len() > MAX_FILES {
            return Err(BundleError::TooManyFiles { count: out.len() });
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
            Err(BundleError::Duplicate { .. })
        ));
        let so = BundleFile::new("k.so", "x");
        assert!(matches!(
            check_bundle(&[m.clone(), so], 1000),
            Err(BundleError::Binary { .. })
        ));
        let elf = BundleFile::new("k.c", b"\x7fELF....".to_vec());
        assert!(matches!(
            check_bundle(&[m.clone(), elf], 1000),
            Err(BundleError::Binary { .. })
        ));
        assert!(matches!(
            check_bundle(&[m, c], 5),
            Err(BundleError::TooLarge { .. })
        ));
    }
}
