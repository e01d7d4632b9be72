//! Every example bundle comes to the verdict, stage and reason recorded for it in
//! `examples/expected.toml`, through the real `cacheon` binary: CPU examples through scan,
//! pack and verify; CUDA examples through scan, and verify when a GPU is present.

mod common;

use common::{gpu_present, repo_root, run_json};

#[derive(serde::Deserialize)]
struct Expected {
    example: Vec<Example>,
}

#[derive(serde::Deserialize)]
struct Example {
    path: String,
    verdict: String,
    stage: Option<String>,
    reason: Option<String>,
    /// Fewer verification cases than usual (an op whose `when` domain leaves shapes out).
    min_cases: Option<usize>,
    /// Also verified for the arena split over this many ranks (`verify --world-size`),
    /// to the same verdict.
    world_size: Option<usize>,
}

fn examples() -> Vec<Example> {
    let text = std::fs::read_to_string(repo_root().join("examples/expected.toml")).unwrap();
    let e: Expected = toml::from_str(&text).unwrap();
    assert!(e.example.len() >= 20, "expected.toml lists every example");
    for ex in &e.example {
        assert!(
            repo_root().join("examples").join(&ex.path).is_dir(),
            "{} exists",
            ex.path
        );
    }
    e.example
}

fn static_stage(stage: Option<&str>) -> bool {
    matches!(stage, Some("pack") | Some("policy"))
}

fn check(ex: &Example, what: &str, code: i32, v: &serde_json::Value, static_only: bool) {
    let fails_here = ex.verdict == "fail" && (!static_only || static_stage(ex.stage.as_deref()));
    if fails_here {
        assert_eq!(code, 1, "{what} {}: exit code\n{v:#}", ex.path);
        assert_eq!(v["verdict"], "fail", "{what} {}\n{v:#}", ex.path);
        assert_eq!(
            v["stage"].as_str(),
            ex.stage.as_deref(),
            "{what} {}: stage\n{v:#}",
            ex.path
        );
        assert_eq!(
            v["reason"].as_str(),
            ex.reason.as_deref(),
            "{what} {}: reason\n{v:#}",
            ex.path
        );
    } else {
        assert_eq!(code, 0, "{what} {}: exit code\n{v:#}", ex.path);
        assert_eq!(v["verdict"], "pass", "{what} {}\n{v:#}", ex.path);
    }
}

#[test]
fn cpu_examples_scan_pack_and_verify_as_recorded() {
    for ex in examples().iter().filter(|e| e.path.starts_with("cpu/")) {
        let dir = repo_root().join("examples").join(&ex.path);
        let dir = dir.to_str().unwrap();
        eprintln!(
            "{}: expecting {} {:?} {:?}",
            ex.path, ex.verdict, ex.stage, ex.reason
        );

        let (code, v) = run_json(&["scan", dir]);
        check(ex, "scan", code, &v, true);

        let (code, v) = run_json(&["pack", dir]);
        if ex.stage.as_deref() == Some("pack") {
            assert_eq!(code, 1, "pack {}: {v}", ex.path);
            assert!(v["error"].as_str().unwrap().contains("limit"), "{v}");
        } else {
            assert_eq!(code, 0, "pack {}: {v}", ex.path);
            assert_eq!(v["content_hash"].as_str().unwrap().len(), 64);
        }

        let (code, v) = run_json(&["verify", "--device", "cpu", dir]);
        check(ex, "verify", code, &v, false);
        if let Some(n) = ex.world_size {
            let n = n.to_string();
            let (code, split) = run_json(&["verify", "--device", "cpu", "--world-size", &n, dir]);
            check(ex, "verify --world-size", code, &split, false);
            assert_eq!(split["arena"], "cpu-tp2", "{split:#}");
        }
        if ex.verdict == "pass" {
            let cases = v["cases"].as_array().unwrap();
            assert!(
                cases.len() >= ex.min_cases.unwrap_or(10),
                "every shape and the special values: {}",
                cases.len()
            );
            // Every case twice on the same buffers (the in-place probe may add a call).
            assert!(cases
                .iter()
                .all(|c| c["passed"] == true && c["calls"].as_u64() >= Some(2)));
            assert_eq!(
                v["passed_stages"],
                serde_json::json!(["pack", "policy", "build", "abi", "verify"])
            );
        }
    }
}

#[test]
fn cuda_examples_scan_as_recorded_and_verify_on_a_gpu() {
    let gpu = gpu_present();
    for ex in examples().iter().filter(|e| e.path.starts_with("cuda/")) {
        let dir = repo_root().join("examples").join(&ex.path);
        let dir = dir.to_str().unwrap();
        let (code, v) = run_json(&["scan", dir]);
        check(ex, "scan", code, &v, true);
        assert_eq!(v["arena"], "h200-llama8b");
        if gpu {
            let (code, v) = run_json(&["verify", "--device", "cuda", dir]);
            eprintln!("{}: {v}", ex.path);
            check(ex, "verify --device cuda", code, &v, false);
        }
    }
}

#[test]
fn verification_is_seeded_and_reproducible() {
    let dir = repo_root().join("examples/cpu/rmsnorm-avx2");
    let dir = dir.to_str().unwrap();
    let (_, a) = run_json(&["verify", "--seed", "42", dir]);
    let (_, b) = run_json(&["verify", "--seed", "42", dir]);
    assert_eq!(a["seed"], 42);
    let errs = |v: &serde_json::Value| -> Vec<f64> {
        v["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["max_abs_err"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(errs(&a), errs(&b), "same seed, same inputs, same errors");
    let (_, c) = run_json(&["verify", "--seed", "43", dir]);
    assert_ne!(errs(&a), errs(&c), "another seed draws other inputs");
}

#[test]
fn stock_kernels_pass_their_own_screens() {
    for stock in cacheon_kernels::bundle::stock::cpu_bundles() {
        let dir = repo_root().join("kernels/stock/cpu").join(stock.name);
        let (code, v) = run_json(&["verify", dir.to_str().unwrap()]);
        assert_eq!(
            (code, v["verdict"].as_str()),
            (0, Some("pass")),
            "{}: {v:#}",
            stock.name
        );
    }
}

/// The honest-idiom corpus (`examples/*/good-*`): every such folder is listed in
/// `expected.toml` with verdict "pass", so the example tests above run it (CPU: scan, pack
/// and verify; CUDA: scan) and a screen change that refuses an honest idiom fails here.
#[test]
fn the_honest_idiom_corpus_is_listed_to_pass() {
    let listed = examples();
    let mut corpus = Vec::new();
    for backend in ["cpu", "cuda"] {
        let dir = repo_root().join("examples").join(backend);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.starts_with("good-") {
                corpus.push(format!("{backend}/{name}"));
            }
        }
    }
    for path in &corpus {
        let ex = listed.iter().find(|e| &e.path == path);
        assert!(
            ex.is_some_and(|e| e.verdict == "pass"),
            "{path} is in the honest-idiom corpus: expected.toml must list it with verdict \"pass\""
        );
    }
    let cpu = corpus.iter().filter(|p| p.starts_with("cpu/")).count();
    assert!(cpu >= 20, "the corpus holds at least 20 CPU idioms: {cpu}");
}
