//! `commit`: a bundle's commitment, its salt saved before it is sent.

use std::path::Path;
use std::time::Duration;

use cacheon::arena;
use cacheon::chain::{self, api};
use cacheon::exit;
use cacheon::qualify::{findings, screens};
use cacheon_kernels::bundle;
use serde_json::json;

use crate::cmd::{Out, StateArgs};
use crate::{ChainArgs, KeyArgs};

use super::connect::{connect, fail};
use super::record::{record_path, save_record, CommitRecord};

fn random_salt() -> [u8; 32] {
    let mut salt = [0u8; 32];
    let ok = std::fs::File::open("/dev/urandom").and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut salt)
    });
    ok.expect("/dev/urandom is readable");
    salt
}

pub async fn commit(
    out: &Out,
    dir: &Path,
    arena_name: &str,
    target: Option<String>,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> i32 {
    match prepare_commit(out, dir, arena_name, target, key, state) {
        Ok(mut record) => send_commit(out, &mut record, key, c, state).await,
        Err(code) => code,
    }
}

/// A new commitment to the bundle in `dir`: static screen, fresh salt, and the record
/// saved on disk (before anything is sent, so the salt survives a crash).
pub(in crate::cmd) fn prepare_commit(
    out: &Out,
    dir: &Path,
    arena_name: &str,
    target: Option<String>,
    key: &KeyArgs,
    state: &StateArgs,
) -> Result<CommitRecord, i32> {
    let Some(arena) = arena::arena(arena_name) else {
        return Err(out.error(&format!("unknown arena `{arena_name}`"), exit::USAGE));
    };
    let files = match bundle::read_dir(dir) {
        Ok(f) => f,
        Err(e) => return Err(out.error(&format!("{}: {e}", dir.display()), exit::USAGE)),
    };
    // Refuse to spend a deposit on a bundle that cannot pass the static screen.
    let packed = match screens::static_screen(&files, arena) {
        Ok(p) => p,
        Err(f) => {
            return Err(out.error(
                &format!(
                    "{} fails the static screen ({} at {}): {}",
                    dir.display(),
                    findings::reason_name(f.reason),
                    f.stage.as_str(),
                    f.detail
                ),
                exit::FAIL,
            ))
        }
    };
    let target = target.unwrap_or_else(|| packed.manifest.target.id.to_string());
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return Err(fail(out, e)),
    };
    let account = chain::account(&signer);
    let salt = random_salt();
    let commitment = cacheon_primitives::commitment(
        &account.0,
        arena.name().as_bytes(),
        target.as_bytes(),
        &packed.content_hash,
        &salt,
    );
    let record = CommitRecord {
        commitment: hex::encode(commitment),
        salt: hex::encode(salt),
        arena: arena.name().to_string(),
        target,
        content_hash: hex::encode(packed.content_hash),
        account: account.to_string(),
        dir: dir.to_path_buf(),
        commit_block: None,
        proposal: None,
    };
    if let Err(e) = save_record(state, &record) {
        return Err(out.error(
            &format!("saving the commit record in {}: {e}", state.dir().display()),
            exit::USAGE,
        ));
    }
    Ok(record)
}

/// Sends a saved record's commitment and waits for it in a finalized block.
pub(in crate::cmd) async fn send_commit(
    out: &Out,
    record: &mut CommitRecord,
    key: &KeyArgs,
    c: &ChainArgs,
    state: &StateArgs,
) -> i32 {
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let commitment: [u8; 32] = hex::decode(&record.commitment)
        .ok()
        .and_then(|v| v.try_into().ok())
        .expect("records hold 32-byte commitments");
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let call = api::transactions().cacheon().commit(commitment);
    let (_, block) =
        match chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await {
            Ok(r) => r,
            Err(e) => return fail(out, e),
        };
    record.commit_block = Some(block);
    let _ = save_record(state, record);
    out.emit(
        json!({"event": "committed", "commitment": record.commitment, "content_hash": record.content_hash,
               "arena": record.arena, "target": record.target, "block": block,
               "record": record_path(state, &record.commitment).display().to_string()}),
        || {
            format!(
                "committed 0x{} in finalized block #{block}\n  bundle 0x{} for {} on {}\n  salt kept in {}",
                record.commitment,
                record.content_hash,
                record.target,
                record.arena,
                record_path(state, &record.commitment).display()
            )
        },
    );
    exit::OK
}
