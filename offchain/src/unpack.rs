//! Unpacking canonical bundle bytes into a fresh directory. The bytes are decoded with
//! every DESIGN 3 rule enforced again (so no path can be absolute, contain `..`, or name a
//! directory another file also uses); the target directory must not exist yet; each file
//! is created new (never through an existing file or link) inside it.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use cacheon_kernels::bundle::{self, BundleError, BundleFile};

#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("not a valid bundle: {0}")]
    Bundle(#[from] BundleError),
    #[error("`{0}` already exists: unpacking only writes into a new directory")]
    Exists(String),
    #[error("writing `{path}`: {message}")]
    Io { path: String, message: String },
}

/// Decodes `bytes` and writes the files under `dir`, which must not exist.
pub fn unpack(bytes: &[u8], dir: &Path) -> Result<Vec<BundleFile>, UnpackError> {
    let files = bundle::from_canonical_bytes(bytes, bundle::MAX_BUNDLE_BYTES)?;
    let io = |path: &Path, e: std::io::Error| UnpackError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if dir.symlink_metadata().is_ok() {
        return Err(UnpackError::Exists(dir.display().to_string()));
    }
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for f in &files {
        // Paths passed the canonical rules: relative, `/`-separated, no `.` or `..`.
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        out.write_all(&f.data).map_err(|e| io(&path, e))?;
    }
    Ok(files)
}
