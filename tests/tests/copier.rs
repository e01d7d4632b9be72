//! The copier revealing first, end to end with the real node and two validators: Charlie
//! commits a faster kernel; Eve, having seen it, commits a renamed and reformatted copy and
//! gets her reveal in before Charlie's. The earliest commitment owns the content: Eve's copy
//! is never crowned (its crowning attempt waits until Charlie's commitment is past its reveal
//! window, and by then the copy screen finds Charlie's earlier-committed original), and
//! Charlie's proposal is crowned; the live state then passes `cacheon-try-state`. Needs
//! `cacheon`, `cacheon-node` and `cacheon-try-state` built.

use std::path::{Path, PathBuf};

use cacheon_e2e::{assert_try_state, diagnostics, repo_root, run_lines, watch, Node, Validator};

/// Eve's copy of `original` (`matmul-avx2`): local names changed, comments and layout
/// rewritten, the bundle's name and file name changed (new bytes: the chain's exact check
/// lets it in).
fn renamed_copy(original: &Path, dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(original.join("kernels/matmul.c")).unwrap();
    let copied = format!(
        "// my own matrix product, written from scratch\n{}",
        src.replace("dot4", "four_dots")
            .replace("dot1", "one_dot")
            .replace("hsum", "horizontal_sum")
            .replace("    ", "  ")
    );
    let manifest = std::fs::read_to_string(original.join("manifest.toml"))
        .unwrap()
        .replace("matmul-avx2", "eves-matmul")
        .replace("kernels/matmul.c", "src/mm.c");
    let out = dir.join("eve-bundle");
    std::fs::create_dir_all(out.join("src")).unwrap();
    std::fs::write(out.join("src/mm.c"), copied).unwrap();
    std::fs::write(out.join("manifest.toml"), manifest).unwrap();
    out
}

/// `cacheon <step> <bundle>` as `suri` with its salt in `state`; the JSON lines it printed.
fn step(url: &str, state: &Path, bundle: &Path, suri: &str, name: &str) -> Vec<serde_json::Value> {
    let args = [
        name,
        bundle.to_str().unwrap(),
        "--suri",
        suri,
        "--url",
        url,
        "--state-dir",
        state.to_str().unwrap(),
    ];
    let (code, lines, err) = run_lines(&args);
    assert_eq!(code, 0, "{name} {}: {lines:?}\n{err}", bundle.display());
    lines
}

#[test]
fn copier_revealing_first_loses_to_earliest_commitment() {
    let dir = cacheon_e2e::TestDir::new();
    // One-second blocks: Charlie's reveal, after three other steps, stays well inside his
    // 30-block window.
    let node = Node::dev(dir.path(), 1000);
    cacheon_e2e::only_validators(&node.url, "cpu-tiny", &["//Alice", "//Bob"]);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let original = repo_root().join("examples/cpu/matmul-avx2");
    let copy = renamed_copy(&original, dir.path());
    let (charlie, eve) = (dir.path().join("charlie"), dir.path().join("eve"));

    eprintln!("waiting for: Charlie's commit, then Eve's commit and reveal of her copy");
    step(&node.url, &charlie, &original, "//Charlie", "commit");
    step(&node.url, &eve, &copy, "//Eve", "commit");
    let copied = step(&node.url, &eve, &copy, "//Eve", "reveal")[0]["proposal"]
        .as_u64()
        .expect("the reveal names its proposal");
    eprintln!("waiting for: Charlie's late reveal (Eve's copy is proposal {copied})");
    let honest = step(&node.url, &charlie, &original, "//Charlie", "reveal")[0]["proposal"]
        .as_u64()
        .expect("the reveal names its proposal");
    assert!(copied < honest, "Eve revealed first");

    eprintln!("waiting for: Eve's copy {copied} to end without a crown (300 s budget)");
    let w = watch(&node.url, copied, 300);
    assert_eq!(
        w.code,
        1,
        "the copy did not end uncrowned: {:#?}\n{}",
        w.events,
        diagnostics(&node, &[&alice, &bob])
    );
    eprintln!("waiting for: Charlie's original {honest} to be crowned (300 s budget)");
    let w = watch(&node.url, honest, 300);
    assert_eq!(
        w.code,
        0,
        "the original was not crowned: {:#?}\n{}",
        w.events,
        diagnostics(&node, &[&alice, &bob])
    );
    // A crown, a copy FAILed `CopyOf` with its deposit slashed: the state still meets every
    // invariant of the runtime.
    assert_try_state(&node.url);
}
