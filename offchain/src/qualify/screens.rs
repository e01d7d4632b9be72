//! The screens a proposal passes before anyone times it (DESIGN 7 steps 1-6), in order:
//! pack (the bundle rules shared with the chain), policy (manifest, arena, source policy,
//! launch geometry), copy (validators: the normalized fingerprint against earlier
//! proposals), then in a lane process build, ABI, verify and (CUDA) graph.
//!
//! Each step ends the attempt with a typed [`Finding`] that carries the on-chain
//! [`FailReason`], or with NoDecision when the fault is ours (the lane could not start, the
//! GPU is missing). The referee never trusts the lane's numbers it can check itself: it
//! regenerates every case's inputs from the seeds and compares the lane's outputs with
//! its own trusted reference.

use std::time::Instant;

use cacheon_kernels::bundle::manifest::Manifest;
use cacheon_kernels::bundle::{self, BundleFile};
use cacheon_kernels::cuda::kernel::evaluate_geometry;
use cacheon_primitives::FailReason;

use super::findings::{
    fail, lane_outcome, Finding, Outcome, Packed, Progress, ScreenOptions, ScreenReport, Stage,
};
use super::stage_times::StageTimes;
use super::verify::{self, shapes_for};
use crate::arena::{Arena, LaneBackend};
use crate::fingerprint::containment::{self, EarlierCode, Signature};
use crate::fingerprint::{copy_of, fingerprint};
use crate::lane::protocol::BuildStage;
use crate::lane::{BuildOutcome, Lane};
use crate::policy::{self, Language};

/// Steps 1-2 without building anything: the bundle rules, the manifest against the
/// arena, the source policy and the launch geometry at every verification shape.
pub fn static_screen(files: &[BundleFile], arena: Arena) -> Result<Packed, Finding> {
    let canonical = bundle::canonical_bytes(files, bundle::MAX_BUNDLE_BYTES)
        .map_err(|e| fail(Stage::Pack, FailReason::Policy, e.to_string()))?;
    let content_hash = cacheon_primitives::bundle::content_hash(&canonical);
    let manifest = Manifest::from_bundle(files)
        .map_err(|e| fail(Stage::Policy, FailReason::Policy, e.to_string()))?;
    if manifest.backend != arena.backend.manifest_backend() {
        return Err(fail(
            Stage::Policy,
            FailReason::Policy,
            format!(
                "the bundle is for the {:?} backend; arena {} runs {}",
                manifest.backend,
                arena.name(),
                arena.backend.as_str()
            ),
        ));
    }
    let lang = match arena.backend {
        LaneBackend::Cpu => Language::C,
        LaneBackend::Cuda => Language::Cuda,
    };
    policy::screen_bundle(files, lang)
        .map_err(|v| fail(Stage::Policy, v.rule.fail_reason(), v.to_string()))?;
    // A target that displaces others (the atomic target) retires their crowns when it is
    // crowned: its kernels must then take every call the engine makes of their slots, or the
    // calls outside their domains would fall to the stock kernels, an engine no one measured.
    if !manifest.target.displaces.is_empty() {
        for op in &manifest.ops {
            let shapes = arena.engine_shapes(op.slot);
            if let Some(shape) = shapes.iter().find(|s| !op.accepts(s)) {
                return Err(fail(
                    Stage::Policy,
                    FailReason::Policy,
                    format!(
                        "{} displaces {:?} when crowned, so its {} kernel must take every call the engine makes; its `when` domain leaves {shape:?}",
                        manifest.target.id, manifest.target.displaces, op.slot
                    ),
                ));
            }
        }
    }
    for op in &manifest.ops {
        let shapes = shapes_for(op);
        if shapes.is_empty() {
            return Err(fail(
                Stage::Policy,
                FailReason::Policy,
                format!(
                    "the `when` domain of the {} op excludes every verification shape",
                    op.slot
                ),
            ));
        }
        if let Some(launch) = &op.launch {
            for shape in shapes {
                evaluate_geometry(op.slot, launch, shape, 227 * 1024).map_err(|e| {
                    fail(
                        Stage::Policy,
                        FailReason::Policy,
                        format!("launch geometry at {shape:?}: {e}"),
                    )
                })?;
            }
        }
    }
    Ok(Packed {
        manifest,
        canonical,
        content_hash,
    })
}

/// The verification shapes inside an op's `when` domain.
/// Runs every screen on a bundle for `arena`.
pub fn run_screens(
    files: &[BundleFile],
    arena: Arena,
    opts: &ScreenOptions,
    progress: &mut dyn FnMut(Progress),
) -> ScreenReport {
    let mut report = ScreenReport {
        arena: arena.name(),
        content_hash: None,
        fingerprint: None,
        outcome: Outcome::Pass,
        passed_stages: vec![],
        cases: vec![],
        build_log: String::new(),
        machine: String::new(),
        lane_network_namespace: false,
        lane_seccomp: false,
        lane_landlock: false,
        seed: opts.seed,
        stage_ms: StageTimes::default(),
        packed: None,
    };
    progress(Progress::Stage(Stage::Pack));
    let started = Instant::now();
    let screened = static_screen(files, arena);
    report.stage_ms.add("static_screens", started.elapsed());
    let packed = match screened {
        Ok(p) => p,
        Err(f) => {
            if f.stage != Stage::Pack {
                report.passed_stages.push(Stage::Pack);
            }
            report.outcome = Outcome::Fail(f);
            return report;
        }
    };
    report.content_hash = Some(hex::encode(packed.content_hash));
    report.packed = Some(packed.clone());
    report.passed_stages.extend([Stage::Pack, Stage::Policy]);
    let fp = fingerprint(files, &packed.manifest);
    report.fingerprint = Some(hex::encode(fp));
    if opts.earlier.is_some() {
        progress(Progress::Stage(Stage::Copy));
        let started = Instant::now();
        let copied = copy_screen(files, &packed.manifest, fp, arena, opts.earlier.as_deref());
        report.stage_ms.add("static_screens", started.elapsed());
        if let Some(finding) = copied {
            report.outcome = Outcome::Fail(finding);
            return report;
        }
        report.passed_stages.push(Stage::Copy);
    }

    progress(Progress::Stage(Stage::Build));
    let started = Instant::now();
    let built = screening_lane(&packed, arena, opts, &mut report);
    report.stage_ms.add("build", started.elapsed());
    let Some(mut lane) = built else {
        return report;
    };
    if let Err(outcome) = verify::run_cases(
        &mut lane,
        &packed.manifest,
        arena,
        opts,
        &mut report,
        progress,
    ) {
        report.outcome = outcome;
        return report;
    }
    report.stage_ms.time("screen_lane_exit", || lane.shutdown());
    report
}

/// The copy screen of a proposal (a validator's attempt, with `earlier`: the proposals that
/// have priority over it), before anyone measures: a bundle whose every op is the arena's
/// stock kernel (renamed, reformatted) cannot be faster than the code it copies (`Policy`);
/// a bundle that normalizes to another miner's earlier kernel, or carries one inside code
/// of its own (containment), is that proposal's copy (`CopyOf`). Without `earlier` (a
/// miner's own `cacheon qualify`, the referee's null runs of a stock kernel against itself)
/// nothing is screened.
fn copy_screen(
    files: &[BundleFile],
    manifest: &Manifest,
    fp: crate::fingerprint::Fingerprint,
    arena: Arena,
    earlier: Option<&[crate::fingerprint::Earlier]>,
) -> Option<Finding> {
    let stock = |slot| match arena.backend {
        LaneBackend::Cpu => bundle::stock::cpu_bundle(slot),
        LaneBackend::Cuda => bundle::stock::cuda_bundle(slot),
    };
    let earlier = earlier?;
    if containment::is_stock_copy(files, manifest, |slot| stock(slot).map(|b| b.files())) {
        return Some(fail(
            Stage::Copy,
            FailReason::Policy,
            "every op of the bundle is the arena's stock kernel for its slot (renamed or \
             reformatted, same launch): it cannot be faster than the code it copies",
        ));
    }
    if let Some(original) = copy_of(&fp, earlier) {
        return Some(fail(
            Stage::Copy,
            FailReason::CopyOf(original),
            format!(
                "the bundle normalizes to the same kernel as proposal {original}, revealed \
                 earlier by another miner (fingerprint {})",
                hex::encode(fp)
            ),
        ));
    }
    let signature = Signature::of(files, manifest);
    let stock_code = Signature::union(
        &cacheon_kernels::slots::SlotId::ALL
            .iter()
            .filter_map(|s| stock(*s))
            .map(|b| Signature::of_files(&b.files()).unwrap_or_default())
            .collect::<Vec<_>>(),
    );
    let codes: Vec<EarlierCode<'_>> = earlier
        .iter()
        .map(|e| EarlierCode {
            proposal: e.proposal,
            commit_block: e.commit_block,
            other_miner: e.other_miner,
            crowned: e.crowned,
            signature: &e.signature,
        })
        .collect();
    let (original, share) = containment::original_contained(&signature, &codes, &stock_code)?;
    Some(fail(
        Stage::Copy,
        FailReason::CopyOf(original),
        format!(
            "the bundle carries the kernel of proposal {original} ({}.{}% of its normalized \
             code), revealed earlier by another miner and never crowned, inside code of its own",
            share / 10,
            share % 10
        ),
    ))
}

/// Steps 3-4 in a lane of their own: starts it, builds the candidate there and seals it.
/// `None` when that ended the attempt (the outcome is in `report`).
fn screening_lane(
    packed: &Packed,
    arena: Arena,
    opts: &ScreenOptions,
    report: &mut ScreenReport,
) -> Option<Lane> {
    let mut lane = match Lane::spawn(&opts.lane_exe, arena.backend, opts.deadlines) {
        Ok(l) => l,
        Err(e) => {
            report.outcome = lane_outcome(Stage::Build, e);
            return None;
        }
    };
    report.lane_network_namespace = lane.network_namespace;
    let origin = format!("candidate {}", hex::encode(&packed.content_hash[..8]));
    match lane.build(&packed.canonical, &origin) {
        Ok(BuildOutcome::Built { log, machine }) => {
            report.build_log = log;
            report.machine = machine;
            // Sealing loads the candidate's library: the lane is the candidate's from here.
            lane.mark_candidate();
            match lane.seal() {
                Ok(sealed) => {
                    report.lane_seccomp = sealed.seccomp;
                    report.lane_landlock = sealed.landlock;
                }
                Err(e) => {
                    report.outcome = lane_outcome(Stage::Build, e);
                    return None;
                }
            }
        }
        Ok(BuildOutcome::Failed { stage, log }) => {
            let finding = match stage {
                BuildStage::Bundle => fail(Stage::Policy, FailReason::Policy, log.clone()),
                // Found by the in-lane screens (preprocessed source, built artifact): the
                // build stage, with the policy's reason.
                BuildStage::Policy => fail(Stage::Build, FailReason::Policy, log.clone()),
                BuildStage::Cheating => fail(Stage::Build, FailReason::Cheating, log.clone()),
                BuildStage::Build => fail(Stage::Build, FailReason::Build, log.clone()),
                BuildStage::Abi => {
                    report.passed_stages.push(Stage::Build);
                    fail(Stage::Abi, FailReason::Abi, log.clone())
                }
            };
            report.build_log = log;
            report.outcome = Outcome::Fail(finding);
            return None;
        }
        Err(e) => {
            report.outcome = lane_outcome(Stage::Build, e);
            return None;
        }
    }
    report.passed_stages.extend([Stage::Build, Stage::Abi]);
    Some(lane)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::arena;
    use cacheon_kernels::bundle::stock;
    use cacheon_kernels::slots::SlotId;

    /// The stock CUDA silu_and_mul bundle with its manifest edited by `edit`.
    fn cuda_silu(edit: impl Fn(&str) -> String) -> Vec<BundleFile> {
        let mut files = stock::cuda_bundle(SlotId::SiluAndMul).unwrap().files();
        let m = files
            .iter_mut()
            .find(|f| f.path == "manifest.toml")
            .unwrap();
        m.data = edit(std::str::from_utf8(&m.data).unwrap()).into_bytes();
        files
    }

    fn policy_detail(files: &[BundleFile], arena_name: &str) -> String {
        match static_screen(files, arena(arena_name).unwrap()) {
            Err(f) => {
                assert_eq!(
                    (f.stage, f.reason),
                    (Stage::Policy, FailReason::Policy),
                    "{f:?}"
                );
                f.detail
            }
            Ok(_) => panic!("passed the static screen"),
        }
    }

    #[test]
    fn an_atomic_bundle_must_take_every_call_of_the_slots_it_displaces() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cpu/rope-decode-c");
        let mut files = cacheon_kernels::bundle::read_dir(&dir).unwrap();
        assert!(static_screen(&files, arena("cpu-tiny").unwrap()).is_ok());
        // Decode attention for one sequence only: the batched part's calls would fall to
        // the stock kernel once the crown retired attention.decode's incumbent.
        let m = files
            .iter_mut()
            .find(|f| f.path == "manifest.toml")
            .unwrap();
        let text = std::str::from_utf8(&m.data).unwrap().to_string();
        m.data = text
            .replace(
                "entry = \"attention_decode_onepass_c\"",
                "entry = \"attention_decode_onepass_c\"\nwhen = { batch = { max = 1 } }",
            )
            .into_bytes();
        let d = policy_detail(&files, "cpu-tiny");
        assert!(d.contains("must take every call the engine makes"), "{d}");
        // A seam displaces nothing: a narrow domain is its own business.
        let seam = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/cpu/gate-up-silu-avx2");
        let mut files = cacheon_kernels::bundle::read_dir(&seam).unwrap();
        let m = files
            .iter_mut()
            .find(|f| f.path == "manifest.toml")
            .unwrap();
        let text = std::str::from_utf8(&m.data).unwrap().to_string();
        m.data = (text + "when = { tokens = { max = 1 } }\n").into_bytes();
        assert!(static_screen(&files, arena("cpu-tiny").unwrap()).is_ok());
    }

    #[test]
    fn stock_bundles_pass_the_static_screen_of_their_own_arena_only() {
        for slot in SlotId::ALL {
            let (Some(cpu), Some(cuda)) = (stock::cpu_bundle(slot), stock::cuda_bundle(slot))
            else {
                continue;
            };
            let (cpu, cuda) = (cpu.files(), cuda.files());
            assert!(
                static_screen(&cpu, arena("cpu-tiny").unwrap()).is_ok(),
                "{slot}"
            );
            assert!(
                static_screen(&cuda, arena("h200-llama8b").unwrap()).is_ok(),
                "{slot}"
            );
            let d = policy_detail(&cpu, "h200-llama8b");
            assert!(
                d.contains("for the Cpu backend; arena h200-llama8b runs cuda"),
                "{d}"
            );
            let d = policy_detail(&cuda, "cpu-tiny");
            assert!(
                d.contains("for the Cuda backend; arena cpu-tiny runs cpu"),
                "{d}"
            );
        }
    }

    #[test]
    fn a_when_domain_without_a_verification_shape_is_refused() {
        // Every verification shape of silu_and_mul has d ≤ 14336.
        let files = cuda_silu(|m| format!("{m}when = {{ d = {{ min = 20000 }} }}\n"));
        let d = policy_detail(&files, "h200-llama8b");
        assert!(d.contains("excludes every verification shape"), "{d}");
    }

    #[test]
    fn launch_geometry_beyond_cuda_limits_at_a_verification_shape_is_refused() {
        // 2048 threads a block: over CUDA's 1024.
        let files = cuda_silu(|m| m.replace("block = [128, 1, 1]", "block = [2048, 1, 1]"));
        let d = policy_detail(&files, "h200-llama8b");
        assert!(d.contains("launch geometry at [1, 8]"), "{d}");
        // A grid fine at every verification shape but the largest: grid y = 8·d passes
        // CUDA's 65,535 only at d = 14336.
        let files = cuda_silu(|m| m.replace("ceil_div(d, 1024)", "d * 8"));
        let d = policy_detail(&files, "h200-llama8b");
        assert!(d.contains("launch geometry at [128, 14336]"), "{d}");
    }
}
