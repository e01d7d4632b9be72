//! From a crown to a release people run (docs/release.md), with the real node and the
//! `cacheon` binary: the demo's matmul (`examples/cpu/matmul-avx2`) crowned on
//! `cpu-smollm2` (by the test as Alice and Bob, measuring nothing: the measured crowns are
//! the demo's and `validator.rs`'s), integrated by a maintainer (its verification cases run
//! for pinned seeds), built into a release twice with identical bytes, verified against the
//! chain, refused with one byte of its manifest changed, marked on chain (the explorer's
//! `/releases` lists it with its crown's speedup), and run by `cacheon generate --release`,
//! which answers the demo's question as the stock engine does. Needs `cacheon`
//! and `cacheon-node` built, and the SmolLM2 model (scripts/test.sh fetches it).

use cacheon_e2e::{
    crown_unmeasured, get_json, propose_in, repo_root, run_lines, Explorer, Node, TestDir,
};

const QUESTION: &str = "What is the capital of France? Answer in one sentence.";

#[test]
fn a_crown_is_integrated_released_verified_and_run() {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 250);
    let bundle = repo_root().join("examples/cpu/matmul-avx2");
    let id = propose_in(
        "cpu-smollm2",
        &node.url,
        &dir.path().join("charlie"),
        &bundle,
        "//Charlie",
    );
    eprintln!("waiting for: proposal {id} crowned by the test as Alice and Bob");
    crown_unmeasured(&node.url, id, 1_100_000);
    let path = |p: &str| dir.path().join(p).display().to_string();
    let id_s = id.to_string();

    // Bob is no maintainer: nothing is written.
    let (code, lines, err) = run_lines(&[
        "integrate",
        &id_s,
        "--into",
        &path("bobs"),
        "--suri",
        "//Bob",
        "--url",
        &node.url,
    ]);
    assert_eq!(code, 2, "{lines:?}\n{err}");
    assert!(!dir.path().join("bobs").exists());
    // Alice integrates it: its cases run for two pinned seeds.
    let (code, lines, err) = run_lines(&[
        "integrate",
        &id_s,
        "--into",
        &path("contribution"),
        "--suri",
        "//Alice",
        "--url",
        &node.url,
    ]);
    assert_eq!(code, 0, "{lines:?}\n{err}");
    let integrated = &lines[0];
    assert_eq!(integrated["event"], "integrated");
    assert_eq!(integrated["verify_seeds"].as_array().map(Vec::len), Some(2));
    assert!(integrated["cases"].as_u64() > Some(0), "{integrated}");
    // A proposal that is not crowned is not integrated.
    let (code, lines, err) = run_lines(&[
        "integrate",
        "999",
        "--into",
        &path("none"),
        "--suri",
        "//Alice",
        "--url",
        &node.url,
    ]);
    assert_ne!(code, 0, "{lines:?}\n{err}");

    // Two builds of the same contribution: the same release digest (the manifest as
    // signed) and the same library bytes.
    let mut digests = Vec::new();
    for into in ["r1", "r2"] {
        let (code, lines, err) = run_lines(&[
            "release",
            "build",
            "--arena",
            "cpu-smollm2",
            "--contribution",
            &path("contribution"),
            "--into",
            &path(into),
            "--suri",
            "//Alice",
        ]);
        assert_eq!(code, 0, "{lines:?}\n{err}");
        assert_eq!(lines[0]["event"], "release_built");
        digests.push(lines[0]["release_digest"].clone());
    }
    assert_eq!(digests[0], digests[1]);
    let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
    assert_eq!(
        read(&format!("r1/lib/{id}.so")),
        read(&format!("r2/lib/{id}.so"))
    );

    // Verified: signature, digests, a rebuild, the crown on chain.
    let (code, lines, err) = run_lines(&[
        "release",
        "verify",
        &path("r1"),
        "--check-chain",
        "--url",
        &node.url,
    ]);
    assert_eq!(code, 0, "{lines:?}\n{err}");
    assert_eq!(lines[0]["crowns"][0], serde_json::json!([id, "crowned"]));
    assert_eq!(lines[0]["release_digest"], digests[0]);
    // One byte of the manifest changed (a digit of the speedup): refused.
    let manifest = String::from_utf8(read("r1/release.json")).unwrap();
    let forged = manifest.replacen("1100000", "1900000", 1);
    assert_ne!(forged, manifest);
    std::fs::write(dir.path().join("r1/release.json"), forged).unwrap();
    let (code, lines, err) = run_lines(&["release", "verify", &path("r1")]);
    assert_eq!(code, 1, "{lines:?}\n{err}");
    assert!(
        lines[0]["error"].as_str().unwrap().contains("signature"),
        "{lines:?}"
    );

    // Marked on chain by the release key: the explorer lists it with its crown's speedup.
    let (code, lines, err) = run_lines(&[
        "release",
        "mark",
        &path("r2"),
        "--suri",
        "//Alice",
        "--url",
        &node.url,
    ]);
    assert_eq!(code, 0, "{lines:?}\n{err}");
    assert_eq!(lines[0]["release_digest"], digests[0]);
    let explorer = Explorer::start(&node.url, dir.path());
    let start = std::time::Instant::now();
    let listed = loop {
        let page = get_json(&format!("{}/releases.json", explorer.base));
        if let Some(r) = page["releases"].as_array().and_then(|r| r.first()).cloned() {
            break r;
        }
        assert!(start.elapsed().as_secs() < 60, "never listed: {page}");
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    assert_eq!(listed["digest"], digests[0], "{listed}");
    assert_eq!(listed["proposals"], serde_json::json!([id]), "{listed}");
    assert_eq!(listed["speedup"].as_f64(), Some(1.1), "{listed}");
    // Bob is no release key: his mark is refused here, and he could not sign one anyway.
    let (code, _, _) = run_lines(&[
        "release",
        "mark",
        &path("r2"),
        "--suri",
        "//Bob",
        "--url",
        &node.url,
    ]);
    assert_eq!(code, 2);
    drop(explorer);

    // The release answers the demo's question as the stock engine does.
    let answer = |extra: &[&str]| {
        let mut args = vec!["generate", QUESTION, "--max-tokens", "24"];
        args.extend_from_slice(extra);
        let (code, lines, err) = run_lines(&args);
        assert_eq!(code, 0, "{lines:?}\n{err}");
        lines[0].clone()
    };
    let stock = answer(&["--arena", "cpu-smollm2"]);
    let release = answer(&["--release", &path("r2")]);
    assert_eq!(release["release"]["proposals"], serde_json::json!([id]));
    assert_eq!(release["text"], stock["text"], "the same answer");
    eprintln!(
        "decode tokens/s: stock {:.1}, release {:.1} (not judged here: other tests share the machine)",
        stock["decode_tokens_per_s"].as_f64().unwrap_or(0.0),
        release["decode_tokens_per_s"].as_f64().unwrap_or(0.0)
    );
    // The forged release is refused before anything runs.
    let (code, lines, _) = run_lines(&["generate", QUESTION, "--release", &path("r1")]);
    assert_eq!(code, 1, "{lines:?}");
}
