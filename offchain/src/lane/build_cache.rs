//! Where CUDA lanes keep what they build from content alone, across lanes and attempts:
//! NVRTC's PTX filed by the SHA-256 of its inputs (`cacheon_kernels::cuda::ptx_cache`) and
//! the driver's own cache of the machine code it makes from PTX (`CUDA_CACHE_PATH`). A lane
//! writes there before it is sealed only (stock, engine and bundle builds happen before the
//! seal; Landlock then leaves it out of reach), and nothing kept depends on an attempt's
//! secret: the weights, the prompts and the reads are never cached.

use std::path::PathBuf;

use cacheon_kernels::cuda::ptx_cache;

/// The folder: `$CACHEON_BUILD_CACHE` (empty: no cache), else `cacheon/builds` under
/// `$XDG_CACHE_HOME` or `~/.cache`; `None` where there is none or it cannot be made.
pub fn dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(ptx_cache::ENV) {
        Some(v) if v.is_empty() => return None,
        Some(v) => PathBuf::from(v),
        None => std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?
            .join("cacheon/builds"),
    };
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir)
}

/// The variables a CUDA lane gets for the cache in `dir`: the PTX cache's folder and the
/// driver's (up to its largest size, 4 GiB).
pub fn lane_env(dir: &std::path::Path) -> [(&'static str, std::ffi::OsString); 3] {
    [
        (ptx_cache::ENV, dir.as_os_str().to_owned()),
        ("CUDA_CACHE_PATH", dir.join("cuda-jit").into_os_string()),
        ("CUDA_CACHE_MAXSIZE", "4294967296".into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_gets_both_caches_under_one_folder() {
        let env = lane_env(std::path::Path::new("/var/cache/x"));
        assert_eq!(env[0].0, "CACHEON_BUILD_CACHE");
        assert_eq!(env[0].1, "/var/cache/x");
        assert_eq!(env[1].1, "/var/cache/x/cuda-jit");
    }
}
