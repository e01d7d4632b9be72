//! Tests of [`super`] (`release.rs`): contributions and releases on disk, with real builds
//! of an example bundle (the C compiler the engine uses).

use super::*;
use std::cell::RefCell;

fn example(name: &str) -> Vec<BundleFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/cpu")
        .join(name);
    bundle::read_dir(&root).expect("an example bundle")
}

fn alice() -> sr25519::Keypair {
    sr25519::dev::alice()
}

/// The record an integration writes for `files` as proposal `proposal` of cpu-tiny.
fn record(proposal: u64, target: &str, files: &[BundleFile]) -> Contribution {
    let packed = bundle::canonical_bytes(files, bundle::MAX_BUNDLE_BYTES).unwrap();
    let alice = crate::chain::account(&alice()).to_string();
    Contribution {
        format: CONTRIBUTION_FORMAT.into(),
        proposal,
        arena: "cpu-tiny".into(),
        target: target.into(),
        content_hash: sha256_hex(&packed),
        crowned_at: 40,
        speedup_ppm: 1_150_000,
        miner: "5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y".into(),
        files: files
            .iter()
            .map(|f| FileDigest {
                path: f.path.clone(),
                sha256: sha256_hex(&f.data),
            })
            .collect(),
        review: Review {
            maintainer: alice,
            read: files.iter().map(|f| f.path.clone()).collect(),
            verify_seeds: vec![11, 12],
            cases: 9,
            attribution: "Charlie".into(),
        },
    }
}

fn integrated(root: &Path, proposal: u64, name: &str, target: &str) -> PathBuf {
    let files = example(name);
    let dir = root.join(format!("c{proposal}"));
    write_contribution(&dir, record(proposal, target, &files), &files, &alice()).unwrap();
    dir
}

fn build(
    contributions: &[PathBuf],
    out: &Path,
    rerun: &dyn Fn(&[BundleFile], u64) -> Result<(), String>,
) -> Result<Release, ReleaseError> {
    let inputs = BuildInputs {
        arena: crate::arena::arena("cpu-tiny").unwrap(),
        contributions,
        keys: &Keys::embedded(),
        rerun,
    };
    build_release(&inputs, out, &alice())
}

#[test]
fn a_contribution_reads_back_and_refuses_any_change() {
    let t = tempfile::tempdir().unwrap();
    let dir = integrated(t.path(), 3, "rmsnorm-avx2", "norm.rmsnorm");
    let keys = Keys::embedded();
    let c = read_contribution(&dir, &keys).unwrap();
    assert_eq!(c.record.proposal, 3);
    assert_eq!(c.files.len(), example("rmsnorm-avx2").len());
    // One byte of a kernel changed.
    let src = dir.join("bundle").join(&c.record.files[1].path);
    let mut bytes = std::fs::read(&src).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&src, &bytes).unwrap();
    assert!(matches!(
        read_contribution(&dir, &keys),
        Err(ReleaseError::DigestMismatch { .. })
    ));
    bytes[0] ^= 1;
    std::fs::write(&src, &bytes).unwrap();
    // A file the record does not name.
    std::fs::write(dir.join("bundle/extra.h"), "int x;").unwrap();
    assert!(matches!(
        read_contribution(&dir, &keys),
        Err(ReleaseError::Unlisted(_))
    ));
    std::fs::remove_file(dir.join("bundle/extra.h")).unwrap();
    // The record edited after signing (the speedup).
    let json = std::fs::read_to_string(dir.join(CONTRIBUTION_FILE)).unwrap();
    std::fs::write(
        dir.join(CONTRIBUTION_FILE),
        json.replace("1150000", "1950000"),
    )
    .unwrap();
    assert!(matches!(
        read_contribution(&dir, &keys),
        Err(ReleaseError::BadSignature(_))
    ));
    std::fs::write(dir.join(CONTRIBUTION_FILE), &json).unwrap();
    read_contribution(&dir, &keys).unwrap();
    // Signed by a key that is no maintainer's.
    let files = example("rmsnorm-avx2");
    let bobs = t.path().join("bobs");
    write_contribution(
        &bobs,
        record(4, "norm.rmsnorm", &files),
        &files,
        &sr25519::dev::bob(),
    )
    .unwrap();
    assert!(matches!(
        read_contribution(&bobs, &keys),
        Err(ReleaseError::UnknownSigner { .. })
    ));
}

#[test]
fn a_release_builds_reproducibly_verifies_and_refuses_tampering() {
    let t = tempfile::tempdir().unwrap();
    let contributions = [
        integrated(t.path(), 7, "matmul-avx2", "linear.matmul"),
        integrated(t.path(), 3, "rmsnorm-avx2", "norm.rmsnorm"),
    ];
    let reruns = RefCell::new(Vec::new());
    let rerun = |files: &[BundleFile], seed: u64| {
        reruns.borrow_mut().push((files.len(), seed));
        Ok(())
    };
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    let release = build(&contributions, &a, &rerun).unwrap();
    build(&contributions, &b, &rerun).unwrap();
    // Every pinned seed of both contributions ran, for each build.
    assert_eq!(reruns.borrow().len(), 8);
    assert_eq!(
        release
            .kernels
            .iter()
            .map(|k| k.proposal)
            .collect::<Vec<_>>(),
        [3, 7]
    );
    // Two builds of the same inputs: the same bytes, file for file, and the same manifest
    // (its digest); only the signature differs (sr25519 signing is randomized).
    for f in ["lib/3.so", "lib/7.so", "contributions/7/contribution.json"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    let body = |dir: &Path| {
        let signed: Signed<Release> =
            serde_json::from_slice(&std::fs::read(dir.join(RELEASE_FILE)).unwrap()).unwrap();
        signed.body.digest()
    };
    assert_eq!(body(&a), body(&b));
    assert_eq!(body(&a), release.digest());
    let keys = Keys::embedded();
    let v = verify(&a, &keys, true).unwrap();
    assert_eq!(v.bundles.len(), 2);
    // A byte of the manifest changed: its signature no longer holds.
    let json = std::fs::read_to_string(a.join(RELEASE_FILE)).unwrap();
    let speed = release.kernels[0].speedup_ppm.to_string();
    std::fs::write(a.join(RELEASE_FILE), json.replacen(&speed, "1999999", 1)).unwrap();
    assert!(matches!(
        verify(&a, &keys, false),
        Err(ReleaseError::BadSignature(_))
    ));
    std::fs::write(a.join(RELEASE_FILE), &json).unwrap();
    // A byte of a built library changed.
    let lib = a.join("lib/7.so");
    let mut bytes = std::fs::read(&lib).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&lib, &bytes).unwrap();
    assert!(matches!(
        verify(&a, &keys, false),
        Err(ReleaseError::DigestMismatch { .. })
    ));
    bytes[last] ^= 0x55;
    std::fs::write(&lib, &bytes).unwrap();
    // Code that was not integrated, slipped in beside the rest.
    std::fs::write(a.join("lib/9.so"), b"\x7fELF").unwrap();
    assert!(matches!(
        verify(&a, &keys, false),
        Err(ReleaseError::Unlisted(_))
    ));
    std::fs::remove_file(a.join("lib/9.so")).unwrap();
    verify(&a, &keys, true).unwrap();
}

#[test]
fn a_release_refuses_a_failing_pinned_case_and_two_kernels_for_one_target() {
    let t = tempfile::tempdir().unwrap();
    let one = integrated(t.path(), 3, "rmsnorm-avx2", "norm.rmsnorm");
    let failing = |_: &[BundleFile], seed: u64| Err(format!("case 2 of seed {seed} differs"));
    let err = build(&[one.clone()], &t.path().join("r1"), &failing).unwrap_err();
    assert!(err.to_string().contains("no longer passes"), "{err}");
    let two = integrated(t.path(), 5, "good-avx2-intrinsics", "norm.rmsnorm");
    let err = build(&[one, two], &t.path().join("r2"), &|_, _| Ok(())).unwrap_err();
    assert!(err.to_string().contains("one kernel per target"), "{err}");
}

#[test]
fn a_release_mark_reads_back_and_other_remarks_do_not() {
    let t = tempfile::tempdir().unwrap();
    let contributions = [integrated(t.path(), 3, "rmsnorm-avx2", "norm.rmsnorm")];
    let release = build(&contributions, &t.path().join("r"), &|_, _| Ok(())).unwrap();
    let mark = parse_mark(&release.mark()).expect("a mark");
    assert_eq!(mark["digest"], release.digest());
    assert_eq!(mark["arena"], "cpu-tiny");
    assert_eq!(mark["proposals"], serde_json::json!([3]));
    for other in [
        &b"hello"[..],
        br#"{"cacheon_release": "xyz", "proposals": []}"#,
    ] {
        assert!(parse_mark(other).is_none());
    }
}
