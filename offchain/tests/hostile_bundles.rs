//! Hostile packing and unpacking inputs each get their specific error, through the real
//! binary (`pack`, `scan`, `unpack`) and the library: links, `..`, absolute paths, NUL and
//! non-UTF-8 names, ELF files, too many files, too many bytes, and an existing target.

mod common;

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use cacheon_kernels::bundle::{self, BundleError};
use cacheon_kernels::slots::SlotId;
use cacheon_primitives::bundle::BundleError as Rule;
use codec::Encode;
use common::manifest::Manifest;
use common::run_json;

fn manifest() -> String {
    Manifest::cpu(SlotId::SiluAndMul, "kernels/silu.c", "silu_and_mul").to_string()
}

fn good_bundle(dir: &Path) {
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::write(dir.join("manifest.toml"), manifest()).unwrap();
    std::fs::write(
        dir.join("kernels/silu.c"),
        "#include <stdint.h>\nvoid silu_and_mul(float* o, const float* x, int64_t t, int64_t d) { (void)o; (void)x; (void)t; (void)d; }\n",
    )
    .unwrap();
}

fn pack_error(dir: &Path) -> String {
    let (code, v) = run_json(&["pack", dir.to_str().unwrap()]);
    assert_ne!(code, 0, "{v}");
    v["error"].as_str().unwrap().to_string()
}

#[test]
fn a_link_inside_the_folder_is_refused() {
    let t = tempfile::tempdir().unwrap();
    good_bundle(t.path());
    std::os::unix::fs::symlink("/etc/passwd", t.path().join("kernels/passwd.h")).unwrap();
    let e = pack_error(t.path());
    assert!(e.contains("links and special files are refused"), "{e}");
    let (code, v) = run_json(&["scan", t.path().to_str().unwrap()]);
    assert_eq!(
        (code, v["stage"].as_str(), v["reason"].as_str()),
        (1, Some("pack"), Some("Policy")),
        "{v}"
    );
}

#[test]
fn a_non_utf8_name_is_refused() {
    let t = tempfile::tempdir().unwrap();
    good_bundle(t.path());
    let name = std::ffi::OsStr::from_bytes(b"kernels/\xff\xfe.h");
    std::fs::write(t.path().join(name), "x").unwrap();
    assert!(pack_error(t.path()).contains("not UTF-8"));
}

#[test]
fn bad_names_elf_files_and_sizes_get_their_rule() {
    type Case = (&'static str, Box<dyn Fn(&Path)>, &'static str);
    let cases: Vec<Case> = vec![
        (
            "space in a name",
            Box::new(|d: &Path| std::fs::write(d.join("a b.c"), "x").unwrap()),
            "path must be",
        ),
        (
            "ELF file",
            Box::new(|d: &Path| {
                std::fs::write(d.join("kernels/blob.c"), b"\x7fELF\x02\x01\x01").unwrap()
            }),
            "binary",
        ),
        (
            "NUL byte",
            Box::new(|d: &Path| std::fs::write(d.join("kernels/nul.h"), b"int a;\0").unwrap()),
            "binary",
        ),
        (
            "shared object",
            Box::new(|d: &Path| std::fs::write(d.join("kernels/k.so"), "text").unwrap()),
            "binary",
        ),
        (
            "too many files",
            Box::new(|d: &Path| {
                for i in 0..70 {
                    std::fs::write(d.join(format!("kernels/h{i}.h")), "x").unwrap();
                }
            }),
            "files, the limit is 64",
        ),
        (
            "too many bytes",
            Box::new(|d: &Path| {
                std::fs::write(d.join("kernels/big.h"), vec![b'x'; 600 * 1024]).unwrap()
            }),
            "the limit is 524288",
        ),
    ];
    for (what, make, needle) in cases {
        let t = tempfile::tempdir().unwrap();
        good_bundle(t.path());
        make(t.path());
        let e = pack_error(t.path());
        assert!(e.to_lowercase().contains(needle), "{what}: {e}");
    }
}

/// Canonical-looking bytes with arbitrary paths (what a hostile chain entry could hold): a
/// `(path, data)` pair of byte vectors encodes exactly as a `BundleFile` with that path.
fn crafted(files: &[(&[u8], &[u8])]) -> Vec<u8> {
    let v: Vec<(Vec<u8>, Vec<u8>)> = files
        .iter()
        .map(|(p, d)| (p.to_vec(), d.to_vec()))
        .collect();
    v.encode()
}

#[test]
fn unpack_refuses_escaping_paths_and_writes_nothing() {
    for (path, rule) in [
        (&b"../escape.c"[..], "BadPath"),
        (b"/etc/cron.d/x", "BadPath"),
        (b"kernels/\0.c", "BadPath"),
        (b"a/./b.c", "BadPath"),
    ] {
        let bytes = crafted(&[(b"manifest.toml", b"x"), (path, b"int a;")]);
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("bundle.bin");
        std::fs::write(&file, &bytes).unwrap();
        let target = t.path().join("out");
        let (code, v) = run_json(&["unpack", file.to_str().unwrap(), target.to_str().unwrap()]);
        assert_eq!(code, 1, "{v}");
        assert!(!target.exists(), "nothing written for {path:?}");
        let err = bundle::from_canonical_bytes(&bytes, bundle::MAX_BUNDLE_BYTES).unwrap_err();
        assert!(format!("{err:?}").contains(rule), "{path:?}: {err:?}");
    }
    // Not sorted, duplicated, or a file that is also a folder.
    for files in [
        vec![(&b"manifest.toml"[..], &b"x"[..]), (b"a.c", b"x")],
        vec![(b"a.c", b"x"), (b"a.c", b"y")],
        vec![(b"a", b"x"), (b"a/b.c", b"y")],
    ] {
        let err =
            bundle::from_canonical_bytes(&crafted(&files), bundle::MAX_BUNDLE_BYTES).unwrap_err();
        assert!(
            matches!(
                err,
                BundleError::Invalid {
                    reason: Rule::NotSorted { .. }
                        | Rule::DuplicatePath { .. }
                        | Rule::PathConflict { .. },
                    ..
                }
            ),
            "{err:?}"
        );
    }
}

#[test]
fn pack_then_unpack_round_trips_into_a_new_folder_only() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    good_bundle(&src);
    let file = t.path().join("b.bin");
    let (code, packed) = run_json(&[
        "pack",
        src.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{packed}");
    let out = t.path().join("copy");
    let (code, v) = run_json(&["unpack", file.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["content_hash"], packed["content_hash"]);
    assert_eq!(
        std::fs::read(out.join("manifest.toml")).unwrap(),
        manifest().as_bytes()
    );
    // Unpacking again into the same (now existing) folder is refused.
    let (code, v) = run_json(&["unpack", file.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        v["error"].as_str().unwrap().contains("already exists"),
        "{v}"
    );
    // And the repacked copy has the same hash.
    let (_, again) = run_json(&["pack", out.to_str().unwrap()]);
    assert_eq!(again["content_hash"], packed["content_hash"]);
}

#[test]
fn an_oversized_file_to_unpack_is_refused_before_reading() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("huge.bin");
    let f = std::fs::File::create(&file).unwrap();
    f.set_len(64 << 20).unwrap();
    let (code, v) = run_json(&[
        "unpack",
        file.to_str().unwrap(),
        t.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(v["error"].as_str().unwrap().contains("at most"), "{v}");
}
