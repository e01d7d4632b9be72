//! The commit records `commit` keeps on disk (the salt of every commitment) and
//! `reveal` finds again.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::cmd::StateArgs;

/// What `commit` keeps on disk so that `reveal` can find the salt, even after a crash.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CommitRecord {
    pub commitment: String,
    pub salt: String,
    pub arena: String,
    pub target: String,
    pub content_hash: String,
    pub account: String,
    pub dir: PathBuf,
    pub commit_block: Option<u64>,
    pub proposal: Option<u64>,
}

pub(in crate::cmd) fn record_path(state: &StateArgs, commitment: &str) -> PathBuf {
    state
        .dir()
        .join("commits")
        .join(format!("{commitment}.json"))
}

/// Writes the record atomically (temp file, fsync, rename).
pub(in crate::cmd) fn save_record(state: &StateArgs, r: &CommitRecord) -> std::io::Result<()> {
    use std::io::Write;
    let path = record_path(state, &r.commitment);
    let dir = path.parent().expect("a commits folder");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{}.tmp", r.commitment));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&serde_json::to_vec_pretty(r).expect("records serialize"))?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    std::fs::File::open(dir)?.sync_all()
}

pub(in crate::cmd) fn load_records(state: &StateArgs) -> Vec<CommitRecord> {
    let Ok(entries) = std::fs::read_dir(state.dir().join("commits")) else {
        return vec![];
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect()
}
