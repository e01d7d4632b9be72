//! A content-addressed cache of NVRTC builds: the PTX and log of a compile, filed under the
//! SHA-256 of everything that decides them (NVRTC's version, the program's name, source
//! and in-memory headers, every option set it is tried with, the toolkit include folders).
//! The same source compiled again (the stock kernels in every lane, an incumbent in every
//! baseline lane, a candidate in the screening lane and then its speed lane) is read back
//! instead of compiled. Nothing in a key depends on an attempt's secret.
//!
//! The folder is named by [`ENV`] (unset or empty: no cache). Lanes get it from the
//! referee and write it before they are sealed only: after the seal no lane can reach it.
//! Only successful compiles are kept; every build still screens and ABI-checks the PTX it
//! is given, cached or not. An entry names its own key, and one that does not (a torn or
//! foreign file) is ignored.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// The environment variable naming the cache folder.
pub const ENV: &str = "CACHEON_BUILD_CACHE";

static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

/// A cached compile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedCompile {
    /// The key it is filed under.
    pub key: String,
    pub ptx: String,
    /// What the compiler said (kept for the miner's build log).
    pub log: String,
}

/// What decides a compile's output, hashed into its key.
#[derive(Serialize)]
pub struct CompileInputs<'a> {
    pub nvrtc_version: (i32, i32),
    pub name: &'a str,
    pub source: &'a str,
    pub headers: &'a [(String, String)],
    /// Every option set the compile may be tried with, in order.
    pub option_sets: &'a [&'a [String]],
    pub include_dirs: &'a [PathBuf],
}

impl CompileInputs<'_> {
    /// The key: SHA-256 of the inputs' JSON, hex.
    pub fn key(&self) -> String {
        let json = serde_json::to_vec(self).expect("plain data serializes");
        sp_crypto_hashing::sha2_256(&json)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// The cache folder.
#[derive(Clone, Debug)]
pub struct PtxCache {
    dir: PathBuf,
}

impl PtxCache {
    /// The cache [`ENV`] names, if any (its folder made if missing; `None` if it cannot be).
    pub fn from_env() -> Option<PtxCache> {
        let dir = std::env::var_os(ENV).filter(|v| !v.is_empty())?;
        PtxCache::at(Path::new(&dir))
    }

    /// The cache in `dir` (made if missing).
    pub fn at(dir: &Path) -> Option<PtxCache> {
        let dir = dir.join("ptx");
        std::fs::create_dir_all(&dir).ok()?;
        Some(PtxCache { dir })
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The entry filed under `key`, if there is a whole one.
    pub fn get(&self, key: &str) -> Option<CachedCompile> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let entry: CachedCompile = serde_json::from_slice(&bytes).ok()?;
        (entry.key == key).then_some(entry)
    }

    /// Files `entry` under its key (written aside, then renamed: a reader sees the whole
    /// entry or none). A cache that cannot be written is no error: the next build compiles.
    pub fn put(&self, entry: &CachedCompile) {
        let Ok(tmp) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return;
        };
        let written = serde_json::to_writer(tmp.as_file(), entry).is_ok();
        if written {
            let _ = tmp.persist(self.path(&entry.key));
        }
    }
}

/// Compiles through the cache of [`ENV`]: the entry for `inputs` if there is one, else
/// `compile()`'s `(ptx, log)`, filed when it succeeded.
pub fn cached<E>(
    inputs: &CompileInputs<'_>,
    compile: impl FnOnce() -> Result<(String, String), E>,
) -> Result<(String, String), E> {
    cached_in(PtxCache::from_env().as_ref(), inputs, compile)
}

/// [`cached`] through `cache` (`None`: always compiles).
pub fn cached_in<E>(
    cache: Option<&PtxCache>,
    inputs: &CompileInputs<'_>,
    compile: impl FnOnce() -> Result<(String, String), E>,
) -> Result<(String, String), E> {
    let Some(cache) = cache else {
        return compile();
    };
    let key = inputs.key();
    if let Some(hit) = cache.get(&key) {
        HITS.fetch_add(1, Ordering::Relaxed);
        return Ok((hit.ptx, hit.log));
    }
    MISSES.fetch_add(1, Ordering::Relaxed);
    let (ptx, log) = compile()?;
    cache.put(&CachedCompile {
        key,
        ptx: ptx.clone(),
        log: log.clone(),
    });
    Ok((ptx, log))
}

/// Compiles this process read from the cache and compiled into it so far.
pub fn stats() -> (u64, u64) {
    (HITS.load(Ordering::Relaxed), MISSES.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(source: &'a str, opts: &'a [&'a [String]]) -> CompileInputs<'a> {
        CompileInputs {
            nvrtc_version: (13, 0),
            name: "k.cu",
            source,
            headers: &[],
            option_sets: opts,
            include_dirs: &[],
        }
    }

    #[test]
    fn keys_follow_every_input_and_entries_round_trip() {
        let a = vec!["--std=c++17".to_string()];
        let b = vec!["--std=c++20".to_string()];
        let k = inputs("x", &[&a]).key();
        assert_eq!(k.len(), 64);
        assert_eq!(k, inputs("x", &[&a]).key());
        assert_ne!(k, inputs("y", &[&a]).key());
        assert_ne!(k, inputs("x", &[&b]).key());
        assert_ne!(k, inputs("x", &[&a, &b]).key());
        let dir = tempfile::tempdir().unwrap();
        let cache = PtxCache::at(dir.path()).unwrap();
        assert_eq!(cache.get(&k), None);
        let entry = CachedCompile {
            key: k.clone(),
            ptx: ".version 9.0".into(),
            log: String::new(),
        };
        cache.put(&entry);
        assert_eq!(cache.get(&k), Some(entry.clone()));
        // An entry under another key's name is not that key's.
        let other = inputs("y", &[&a]).key();
        std::fs::copy(cache.path(&k), cache.path(&other)).unwrap();
        assert_eq!(cache.get(&other), None);
        // A torn entry reads as none.
        std::fs::write(cache.path(&k), b"{\"key\":").unwrap();
        assert_eq!(cache.get(&k), None);
    }

    #[test]
    fn a_compile_is_read_back_and_a_failed_one_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PtxCache::at(dir.path()).unwrap();
        let a = vec!["--std=c++17".to_string()];
        let sets: [&[String]; 1] = [&a];
        let compiles = std::cell::Cell::new(0);
        let compile = |ok: bool| {
            let compiles = &compiles;
            move || -> Result<(String, String), String> {
                compiles.set(compiles.get() + 1);
                if ok {
                    Ok(("ptx".into(), "warning".into()))
                } else {
                    Err("error".into())
                }
            }
        };
        let bad = inputs("bad", &sets);
        assert!(cached_in(Some(&cache), &bad, compile(false)).is_err());
        assert!(cached_in(Some(&cache), &bad, compile(false)).is_err());
        let good = inputs("good", &sets);
        let first = cached_in(Some(&cache), &good, compile(true)).unwrap();
        let again = cached_in(Some(&cache), &good, || -> Result<_, String> {
            panic!("read back, not compiled")
        });
        assert_eq!(again.unwrap(), first);
        assert_eq!(first, ("ptx".to_string(), "warning".to_string()));
        // The failed compile ran twice, the good one once.
        assert_eq!(compiles.get(), 3);
        // No cache: every call compiles.
        assert!(cached_in(None, &good, compile(false)).is_err());
        assert_eq!(compiles.get(), 4);
    }
}
