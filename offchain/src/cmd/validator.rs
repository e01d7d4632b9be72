//! The validator's commands: `validator` (the daemon), `qualify` (one attempt, no chain)
//! and `evidence` (a stored report).

use std::path::{Path, PathBuf};
use std::time::Duration;

use cacheon::arena;
use cacheon::chain;
use cacheon::exit;
use cacheon::qualify::findings::{self, Outcome, Progress};
use cacheon_kernels::bundle;
use serde_json::json;

use super::bundle::{read_bundle, read_for_screening};
use super::proposal::fail;
use super::Out;
use crate::{ChainArgs, KeyArgs};

pub fn qualify(
    out: &Out,
    arena_name: &str,
    dir: &Path,
    stack_dirs: &[std::path::PathBuf],
    seed: Option<u64>,
    evidence: &super::EvidenceArgs,
) -> i32 {
    let Some(arena) = arena::arena(arena_name) else {
        return out.error(
            &format!("unknown arena `{arena_name}` ({})", arena::names()),
            exit::USAGE,
        );
    };
    let files = match read_for_screening(out, dir, arena.name()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let opts = match attempt_options(out, stack_dirs, seed) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let bar = super::progress_bar(out, "{spinner} {msg:<10} [{bar:30}] {pos}/{len} {elapsed}");
    let report = cacheon::qualify::attempt(&files, arena, &opts, &mut |p| match p {
        Progress::Stage(s) => bar.set_message(s.as_str()),
        Progress::Cases { done, total } => {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    bar.finish_and_clear();
    let bytes = serde_json::to_vec_pretty(&report).expect("reports serialize");
    let (digest, path) = match cacheon::evidence::store(&evidence.dir(), &bytes) {
        Ok(d) => d,
        Err(e) => {
            return out.error(
                &format!("storing the report in {}: {e}", evidence.dir().display()),
                exit::NO_DECISION,
            )
        }
    };
    let code = match report.outcome {
        Outcome::Pass => exit::OK,
        Outcome::Fail(_) => exit::FAIL,
        Outcome::NoDecision { .. } => exit::NO_DECISION,
    };
    print_verdict(out, &report, &digest, &path, dir, arena);
    code
}

/// What `qualify` runs the attempt with: the `--stack` bundles' bytes, the lane binary and
/// the seed (`--seed` or a fresh one).
fn attempt_options(
    out: &Out,
    stack_dirs: &[std::path::PathBuf],
    seed: Option<u64>,
) -> Result<cacheon::qualify::AttemptOptions, i32> {
    let mut stack = Vec::new();
    for d in stack_dirs {
        let files = read_bundle(out, d)?;
        match bundle::canonical_bytes(&files, bundle::MAX_BUNDLE_BYTES) {
            Ok(b) => stack.push(b),
            Err(e) => {
                return Err(out.error(&format!("stack bundle {}: {e}", d.display()), exit::USAGE))
            }
        }
    }
    let exe = super::lane_exe(out)?;
    let seed = super::seed_or_fresh(out, seed)?;
    Ok(cacheon::qualify::AttemptOptions {
        lane_exe: exe,
        seed,
        stack,
        deadlines: Default::default(),
        earlier: None,
        copy_bandwidth: None,
    })
}

/// The verdict of one attempt: its JSON object, or the lines a person reads.
fn print_verdict(
    out: &Out,
    report: &cacheon::qualify::AttemptReport,
    digest: &str,
    path: &Path,
    dir: &Path,
    arena: arena::Arena,
) {
    let reason = match &report.outcome {
        Outcome::Pass => serde_json::Value::Null,
        Outcome::Fail(f) => json!(findings::reason_name(f.reason)),
        Outcome::NoDecision { reason, .. } => json!(format!("{reason:?}")),
    };
    let detail = match &report.outcome {
        Outcome::Pass => String::new(),
        Outcome::Fail(f) => format!(
            "{} at {}: {}",
            findings::reason_name(f.reason),
            f.stage.as_str(),
            f.detail
        ),
        Outcome::NoDecision { reason, detail } => format!("{reason:?}: {detail}"),
    };
    let speed = report.speed.as_ref();
    out.emit(
        json!({
            "verdict": report.verdict(),
            "reason": reason,
            "speedup_ppm": report.speedup_ppm,
            "evidence_digest": digest,
            "evidence": path.display().to_string(),
            "arena": arena.name(),
            "content_hash": report.content_hash,
            "seed": report.seed,
            "pairs": speed.map(|s| s.baseline_ms.len()),
            "interval": speed.and_then(|s| s.interval),
            "wall_ms": report.wall_ms,
            "detail": detail,
        }),
        || {
            let mut s = format!(
                "{} {} on {}",
                report.verdict().to_uppercase().replace('_', " "),
                dir.display(),
                arena.name()
            );
            if let Some(iv) = speed.and_then(|s| s.interval) {
                s.push_str(&format!(
                    "\n  speedup {:.4} (95 % interval {:.4}..{:.4}, {} read pairs; attested: the lower end)",
                    iv.speedup, iv.low, iv.high, iv.pairs
                ));
            }
            if !detail.is_empty() {
                s.push_str(&format!("\n  {detail}"));
            }
            if let Some(a) = &report.audit {
                s.push_str(&format!(
                    "\n  audit: {} candidate calls, {} failed",
                    a.calls, a.failed_calls
                ));
            }
            if let Some(p) = &report.pristine {
                s.push_str(&format!(
                    "\n  pristine: KL candidate {:.2e}, baseline {:.2e} nats",
                    p.kl_candidate, p.kl_baseline
                ));
            }
            s.push_str(&format!(
                "\n  evidence 0x{digest} ({:.1} s)",
                report.wall_ms as f64 / 1e3
            ));
            s
        },
    );
}

pub async fn validator(
    out: &Out,
    arenas: &[String],
    key: &KeyArgs,
    c: &ChainArgs,
    data_dir: PathBuf,
    prometheus_port: Option<u16>,
    public_url: Option<String>,
) -> i32 {
    if let Some(url) = public_url.as_deref().filter(|u| !u.is_empty()) {
        if !cacheon_primitives::is_valid_endpoint(url.as_bytes()) {
            return out.error(
                &format!("--public-url {url}: an http:// URL of at most 200 printable ASCII characters, without spaces or ?#%@"),
                exit::USAGE,
            );
        }
    }
    let mut served = Vec::new();
    for name in arenas {
        match arena::arena(name) {
            Some(a) => served.push(a),
            None => return out.error(&format!("unknown arena `{name}`"), exit::USAGE),
        }
    }
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let lane_exe = match super::lane_exe(out) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let cfg = cacheon::validator::Config {
        url: c.url.clone(),
        key: signer,
        arenas: served,
        data_dir,
        lane_exe,
        prometheus_port,
        public_url,
        timeout: Duration::from_secs(c.timeout),
    };
    tokio::select! {
        r = cacheon::validator::run(cfg) => match r {
            Ok(()) => exit::OK,
            Err(e) => out.error(&e.to_string(), e.exit_code()),
        },
        _ = tokio::signal::ctrl_c() => {
            tracing::info!("interrupted: stopping (an unfinished attempt is left to its lease expiry)");
            exit::OK
        }
    }
}
