//! The miner's bundle commands, no chain needed: `slots`, `scan`, `verify`, `pack`, `unpack`.

use std::path::Path;

use cacheon::arena::{self, Arena, LaneBackend};
use cacheon::exit;
use cacheon::qualify::findings::{self, Outcome, Progress, ScreenOptions};
use cacheon::qualify::screens;
use cacheon_kernels::bundle::manifest::Backend;
use cacheon_kernels::bundle::{self, BundleFile};
use cacheon_kernels::slots::{self, Check, SlotId};
use serde_json::json;

use super::Out;

/// Reads a bundle folder: an unreadable folder is a usage error (2), a folder that breaks
/// the bundle rules is the bundle's failure (1).
pub(super) fn read_bundle(out: &Out, dir: &Path) -> Result<Vec<BundleFile>, i32> {
    bundle::read_dir(dir).map_err(|e| {
        let code = if dir.is_dir() {
            exit::FAIL
        } else {
            exit::USAGE
        };
        out.error(&format!("{}: {e}", dir.display()), code)
    })
}

/// Reads a bundle folder for screening: a folder that breaks the bundle rules (too large,
/// too many files, a link, a bad name) is the bundle's FAIL at the pack step, printed like
/// any other finding; only an unreadable folder is a usage error.
pub(super) fn read_for_screening(
    out: &Out,
    dir: &Path,
    arena: &str,
) -> Result<Vec<BundleFile>, i32> {
    match bundle::read_dir(dir) {
        Ok(files) => Ok(files),
        Err(e @ bundle::BundleError::Read { .. }) if !dir.is_dir() => {
            Err(out.error(&format!("{}: {e}", dir.display()), exit::USAGE))
        }
        Err(e) => {
            let f = findings::Finding {
                stage: findings::Stage::Pack,
                reason: cacheon_primitives::FailReason::Policy,
                detail: e.to_string(),
            };
            print_finding(out, dir, arena, &f);
            Err(exit::FAIL)
        }
    }
}

fn print_finding(out: &Out, dir: &Path, arena: &str, f: &findings::Finding) {
    out.emit(
        json!({"verdict": "fail", "arena": arena, "stage": f.stage, "reason": findings::reason_name(f.reason), "detail": f.detail}),
        || format!("FAIL {} at {}: {}\n  {}", findings::reason_name(f.reason), f.stage.as_str(), dir.display(), f.detail.trim_end().replace('\n', "\n  ")),
    );
}

pub fn slots(out: &Out, arena_name: Option<&str>) -> i32 {
    if let Some(name) = arena_name {
        return target_shares(out, name);
    }
    let mut rows = Vec::new();
    let mut text = String::new();
    for slot in SlotId::ALL {
        let spec = slot.spec();
        let (check, check_text) = match spec.check {
            Check::AllClose => (json!({"kind": "allclose"}), "allclose".to_string()),
            Check::MatchedRatio { min_ppm } => (
                json!({"kind": "matched_ratio", "min_ppm": min_ppm}),
                format!("matched ratio >= {:.2}", min_ppm as f64 / 1e6),
            ),
        };
        rows.push(json!({
            "slot": spec.id,
            "shape_symbols": spec.shape_symbols(),
            "c_prototype": slots::c_prototype(slot, None),
            "cuda_prototype": slots::cuda_prototype(slot, None),
            "check": check,
            "verification_shapes": spec.verification_shapes,
        }));
        text.push_str(&format!(
            "{}\n  shape symbols: {}\n  check: {check_text}\n  cpu:  {};\n  cuda: {};\n  verification shapes: {:?}\n\n",
            spec.id,
            spec.shape_symbols().join(", "),
            slots::c_prototype(slot, None),
            slots::cuda_prototype(slot, None),
            spec.verification_shapes,
        ));
    }
    let targets: Vec<_> = slots::targets()
        .iter()
        .map(|t| {
            json!({
                "target": t.id,
                "kind": format!("{:?}", t.kind).to_lowercase(),
                "members": t.members.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect();
    text.push_str("targets:\n");
    for t in slots::targets() {
        let members: Vec<&str> = t.members.iter().map(|m| m.as_str()).collect();
        text.push_str(&format!(
            "  {} ({:?}): {}\n",
            t.id,
            t.kind,
            members.join(" + ")
        ));
    }
    text.push_str(&format!(
        "\ntolerances: f32 atol=rtol={:e}, bf16 atol=rtol={:e}",
        slots::Dtype::F32.tolerance().atol,
        slots::Dtype::Bf16.tolerance().atol
    ));
    out.emit(
        json!({"abi": slots::ABI_VERSION, "slots": rows, "targets": targets}),
        || text,
    );
    exit::OK
}

/// `slots --arena`: each target's share of the arena's workload and its Amdahl bound.
fn target_shares(out: &Out, name: &str) -> i32 {
    let Some(a) = arena::arena(name) else {
        return out.error(
            &format!("unknown arena `{name}` ({})", arena::names()),
            exit::USAGE,
        );
    };
    let p = match arena::profile::profile(a, 1) {
        Ok(p) => p,
        Err(e) => return out.error(&format!("profiling {name}: {e}"), exit::NO_DECISION),
    };
    let margin = a.spec.min_margin_ppm as f64 / 1e4;
    let wide = p.targets.iter().map(|t| t.target.len()).max().unwrap_or(0);
    let mut text = format!(
        "{name}: {}
  read {:.3} ms; margin {margin:.1} %

  {:<wide$} {:>7}  {:>12}
",
        p.source,
        p.total_seconds * 1e3,
        "target",
        "share",
        "max speedup"
    );
    for t in &p.targets {
        text.push_str(&format!(
            "  {:<wide$} {:>6.2} %  {:>11.4}x{}
",
            t.target,
            t.share * 100.0,
            t.max_speedup,
            if t.can_pass {
                ""
            } else {
                "  (cannot clear the margin)"
            }
        ));
    }
    out.emit(
        json!({"arena": name, "margin_ppm": a.spec.min_margin_ppm, "profile": p}),
        || text.trim_end().to_string(),
    );
    exit::OK
}

/// The arena a bundle is screened for: `--arena`, else the one of its manifest's backend.
fn pick_arena(out: &Out, name: Option<&str>, files: &[BundleFile]) -> Result<Arena, i32> {
    if let Some(name) = name {
        return arena::arena(name).ok_or_else(|| {
            out.error(
                &format!("unknown arena `{name}` ({})", arena::names()),
                exit::USAGE,
            )
        });
    }
    let backend = cacheon_kernels::Manifest::from_bundle(files)
        .map(|m| m.backend)
        .unwrap_or(Backend::Cpu);
    Ok(arena::default_arena(match backend {
        Backend::Cpu => LaneBackend::Cpu,
        Backend::Cuda => LaneBackend::Cuda,
    }))
}

pub fn scan(out: &Out, dir: &Path, arena: Option<&str>) -> i32 {
    let files = match read_for_screening(out, dir, arena.unwrap_or("-")) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let arena = match pick_arena(out, arena, &files) {
        Ok(a) => a,
        Err(code) => return code,
    };
    match screens::static_screen(&files, arena) {
        Ok(p) => {
            let hash = hex::encode(p.content_hash);
            let ops: Vec<_> = p
                .manifest
                .ops
                .iter()
                .map(|o| json!({"slot": o.slot.as_str(), "entry": o.entry, "source": o.source}))
                .collect();
            out.emit(
                json!({
                    "verdict": "pass",
                    "arena": arena.name(),
                    "target": p.manifest.target.id,
                    "content_hash": hash,
                    "bytes": p.canonical.len(),
                    "ops": ops,
                }),
                || {
                    format!(
                        "ok: {} for {} on {}: {} op(s), {} bytes, ContentHash 0x{hash}",
                        dir.display(),
                        p.manifest.target.id,
                        arena.name(),
                        p.manifest.ops.len(),
                        p.canonical.len()
                    )
                },
            );
            exit::OK
        }
        Err(f) => {
            print_finding(out, dir, arena.name(), &f);
            exit::FAIL
        }
    }
}

pub fn verify(out: &Out, dir: &Path, device: LaneBackend, world: usize, seed: Option<u64>) -> i32 {
    let Some(arena) = arena::arena_of(device, world) else {
        let have: Vec<String> = arena::ARENAS
            .iter()
            .filter(|a| a.backend == device)
            .map(|a| format!("{} {}", a.name(), a.workload.world))
            .collect();
        return out.error(
            &format!(
                "no {} arena splits its engine over {world} ranks (arena and world size: {})",
                device.as_str(),
                have.join(", ")
            ),
            exit::USAGE,
        );
    };
    let files = match read_for_screening(out, dir, arena.name()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let exe = match super::lane_exe(out) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let seed = match super::seed_or_fresh(out, seed) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let opts = ScreenOptions::new(exe, seed);
    let bar = super::progress_bar(
        out,
        "{spinner} {msg:<10} [{bar:30}] {pos}/{len} cases {elapsed}",
    );
    let report = screens::run_screens(&files, arena, &opts, &mut |p| match p {
        Progress::Stage(s) => bar.set_message(s.as_str()),
        Progress::Cases { done, total } => {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    bar.finish_and_clear();
    let code = match &report.outcome {
        Outcome::Pass => exit::OK,
        Outcome::Fail(_) => exit::FAIL,
        Outcome::NoDecision { .. } => exit::NO_DECISION,
    };
    let value = serde_json::to_value(&report).expect("reports serialize");
    out.emit(value, || describe_screens(&report, dir, arena));
    code
}

/// The screens' report as a person reads it: the verdict, the bundle's ContentHash and seed,
/// and how the lane was isolated (where it ran).
fn describe_screens(report: &findings::ScreenReport, dir: &Path, arena: Arena) -> String {
    let mut s = String::new();
    match &report.outcome {
        Outcome::Pass => s.push_str(&format!(
            "PASS {} on {} ({} cases, {})",
            dir.display(),
            arena.name(),
            report.cases.len(),
            report.machine
        )),
        Outcome::Fail(f) => s.push_str(&format!(
            "FAIL {} at {}: {}\n  {}",
            findings::reason_name(f.reason),
            f.stage.as_str(),
            dir.display(),
            f.detail.trim_end().replace('\n', "\n  ")
        )),
        Outcome::NoDecision { reason, detail } => {
            s.push_str(&format!("NO DECISION ({reason:?}): {detail}"))
        }
    }
    if let Some(h) = &report.content_hash {
        s.push_str(&format!("\n  ContentHash 0x{h}, seed {}", report.seed));
    }
    if report.machine.is_empty() {
        return s;
    }
    s.push_str(&format!(
        "\n  lane isolation: seccomp {}, landlock {}, private network namespace {}",
        if report.lane_seccomp { "on" } else { "off" },
        if report.lane_landlock {
            "on"
        } else {
            "off (not in this kernel)"
        },
        if report.lane_network_namespace {
            "yes"
        } else {
            "no (seccomp refuses sockets)"
        }
    ));
    s
}

pub fn pack(out: &Out, dir: &Path, file: Option<&Path>) -> i32 {
    let files = match read_bundle(out, dir) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let canonical = match bundle::canonical_bytes(&files, bundle::MAX_BUNDLE_BYTES) {
        Ok(c) => c,
        Err(e) => return out.error(&format!("{}: {e}", dir.display()), exit::FAIL),
    };
    if bundle::find(&files, bundle::MANIFEST_FILE).is_none() {
        return out.error(
            &format!("{}: bundle has no manifest.toml", dir.display()),
            exit::FAIL,
        );
    }
    let hash = hex::encode(cacheon_primitives::bundle::content_hash(&canonical));
    if let Some(path) = file {
        if let Err(e) = std::fs::write(path, &canonical) {
            return out.error(&format!("writing {}: {e}", path.display()), exit::USAGE);
        }
    }
    out.emit(
        json!({"content_hash": hash, "bytes": canonical.len(), "files": files.len(), "out": file.map(|p| p.display().to_string())}),
        || format!("0x{hash}  ({} files, {} canonical bytes)", files.len(), canonical.len()),
    );
    exit::OK
}

pub fn unpack(out: &Out, file: &Path, dir: &Path) -> i32 {
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) => return out.error(&format!("{}: {e}", file.display()), exit::USAGE),
    };
    if meta.len() > bundle::MAX_BUNDLE_BYTES as u64 {
        return out.error(
            &format!(
                "{}: {} bytes, a bundle is at most {}",
                file.display(),
                meta.len(),
                bundle::MAX_BUNDLE_BYTES
            ),
            exit::FAIL,
        );
    }
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return out.error(&format!("{}: {e}", file.display()), exit::USAGE),
    };
    match cacheon::unpack::unpack(&bytes, dir) {
        Ok(files) => {
            let hash = hex::encode(cacheon_primitives::bundle::content_hash(&bytes));
            out.emit(
                json!({"content_hash": hash, "files": files.len(), "dir": dir.display().to_string()}),
                || format!("unpacked {} files into {} (ContentHash 0x{hash})", files.len(), dir.display()),
            );
            exit::OK
        }
        Err(e) => out.error(&e.to_string(), exit::FAIL),
    }
}
