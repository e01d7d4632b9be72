//! Tests of [`super`] (`containment.rs`), on the repository's example and stock bundles.

use super::*;
use cacheon_kernels::bundle::stock;

fn example(name: &str) -> Vec<BundleFile> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name);
    cacheon_kernels::bundle::read_dir(&root).expect("an example bundle")
}

fn sig(files: &[BundleFile]) -> Signature {
    Signature::of_files(files).expect("a manifest")
}

/// `files` with `f` applied to every kernel source (not the manifest).
fn edit(files: &[BundleFile], f: impl Fn(&str) -> String) -> Vec<BundleFile> {
    files
        .iter()
        .map(|b| {
            if b.path == "manifest.toml" {
                b.clone()
            } else {
                BundleFile::new(b.path.clone(), f(&String::from_utf8_lossy(&b.data)))
            }
        })
        .collect()
}

fn stock_cpu() -> Signature {
    let sigs: Vec<Signature> = stock::cpu_bundles()
        .iter()
        .map(|b| sig(&b.files()))
        .collect();
    Signature::union(&sigs)
}

fn earlier(
    proposal: u64,
    commit_block: u64,
    other: bool,
    crowned: bool,
    s: &Signature,
) -> EarlierCode<'_> {
    EarlierCode {
        proposal,
        commit_block,
        other_miner: other,
        crowned,
        signature: s,
    }
}

/// What a copier does to dodge the fingerprint: renames, then wraps the copy in code of
/// its own (a dead helper before it, an unused branch after).
fn wrapped_copy(original: &[BundleFile]) -> Vec<BundleFile> {
    edit(original, |src| {
        let renamed = src.replace("acc", "total").replace("row", "r_");
        format!(
            "static float unused_helper(const float *p, long n) {{\n  float s = 0;\n  for (long i = 0; i < n; ++i) s += p[i] * 0.5f;\n  return s > 1e30f ? s : 0.0f;\n}}\n{renamed}\nstatic int never_called(int x) {{ if (x > 3) return x * 7; return x - 1; }}\n"
        )
    })
}

#[test]
fn a_renamed_copy_wrapped_in_code_of_its_own_contains_the_original() {
    let original = example("examples/cpu/matmul-avx2");
    let copy = wrapped_copy(&original);
    assert_ne!(
        crate::fingerprint::fingerprint_of(&original),
        crate::fingerprint::fingerprint_of(&copy),
        "the fingerprint alone no longer sees it"
    );
    let (o, c) = (sig(&original), sig(&copy));
    assert!(o.tokens >= MIN_TOKENS, "{} tokens", o.tokens);
    assert!(o.share_in(&c) >= 990, "{}", o.share_in(&c));
    let found = original_contained(&c, &[earlier(3, 10, true, false, &o)], &stock_cpu());
    assert!(
        matches!(found, Some((3, share)) if share >= 990),
        "{found:?}"
    );
}

#[test]
fn honest_kernels_for_one_slot_do_not_contain_each_other() {
    // Four kernels for norm.rmsnorm and two for linear.matmul, written separately.
    let rms = [
        "examples/cpu/rmsnorm-avx2",
        "examples/cpu/good-avx2-intrinsics",
        "examples/cpu/good-pragma-gcc-unroll-ivdep",
        "examples/cpu/good-static-const-table",
    ];
    let mm = [
        "examples/cpu/matmul-avx2",
        "examples/cpu/good-static-scratch-panel",
    ];
    for group in [&rms[..], &mm[..]] {
        for a in group {
            for b in group.iter().filter(|b| *b != a) {
                let (sa, sb) = (sig(&example(a)), sig(&example(b)));
                let found =
                    original_contained(&sb, &[earlier(1, 1, true, false, &sa)], &stock_cpu());
                assert_eq!(found, None, "{a} in {b}");
            }
        }
    }
}

#[test]
fn building_on_the_stock_code_or_a_crown_is_no_copy() {
    let stock_mm = stock::cpu_bundle(cacheon_kernels::slots::SlotId::LinearMatmul)
        .unwrap()
        .files();
    // Another miner's earlier proposal that is the stock matmul with a helper added, and a
    // later one that also builds on the stock code: the shared code is the stock's.
    let first = wrapped_copy(&stock_mm);
    let later = edit(&stock_mm, |src| {
        format!("{src}\nstatic int mine(int x) {{ return x * 3 + 1; }}\n")
    });
    let (sf, sl) = (sig(&first), sig(&later));
    let stock = stock_cpu();
    assert_eq!(
        original_contained(&sl, &[earlier(1, 5, true, false, &sf)], &stock),
        None
    );
    // A crowned kernel is the baseline: a later proposal may carry it and improve on it.
    let crowned = example("examples/cpu/matmul-avx2");
    let sc = sig(&crowned);
    let improved = sig(&wrapped_copy(&crowned));
    assert_eq!(
        original_contained(&improved, &[earlier(2, 6, true, true, &sc)], &stock),
        None
    );
    // The same kernel never crowned: a copy.
    assert_eq!(
        original_contained(&improved, &[earlier(2, 6, true, false, &sc)], &stock).map(|f| f.0),
        Some(2)
    );
}

#[test]
fn the_copier_in_between_points_back_to_the_owner() {
    // Charlie's proposal 1 (the code); Eve's proposal 2, committed later, is a renamed copy
    // of it; Charlie's proposal 3 builds on his own code, so it contains Eve's copy too.
    let charlie = example("examples/cpu/matmul-avx2");
    let eve = edit(&charlie, |s| s.replace("acc", "sum_"));
    let (sc, se) = (sig(&charlie), sig(&eve));
    let charlie_again = sig(&wrapped_copy(&charlie));
    let seen_by_charlie = [
        earlier(1, 5, false, false, &sc),
        earlier(2, 7, true, false, &se),
    ];
    assert_eq!(
        original_contained(&charlie_again, &seen_by_charlie, &stock_cpu()),
        None
    );
    // Seen by a third miner the same code is Charlie's: the copy names proposal 1.
    let seen_by_frank = [
        earlier(1, 5, true, false, &sc),
        earlier(2, 7, true, false, &se),
    ];
    assert_eq!(
        original_contained(&charlie_again, &seen_by_frank, &stock_cpu()).map(|f| f.0),
        Some(1)
    );
}

#[test]
fn short_kernels_are_never_called_contained() {
    // A whole silu kernel is a shared idiom: wrapped or not, it is nobody's to own.
    let manifest = "abi = \"cacheon-slot-abi-v1\"\nname = \"silu\"\n[competition]\ntarget = \"activation.silu_and_mul\"\nmode = \"slot\"\n[[ops]]\nslot = \"activation.silu_and_mul\"\nbackend = \"cpu\"\nsource = \"kernels/silu.c\"\nentry = \"silu_and_mul\"\ndtype = \"f32\"\n";
    let source = "#include <math.h>\n#include <stdint.h>\nvoid silu_and_mul(float *out, const float *in, int64_t tokens, int64_t d) {\n  for (int64_t t = 0; t < tokens; ++t)\n    for (int64_t i = 0; i < d; ++i) {\n      float g = in[t * 2 * d + i];\n      out[t * d + i] = g / (1.0f + expf(-g)) * in[t * 2 * d + d + i];\n    }\n}\n";
    let silu: Vec<BundleFile> = [("manifest.toml", manifest), ("kernels/silu.c", source)]
        .into_iter()
        .map(|(p, d)| BundleFile::new(p, d))
        .collect();
    let s = sig(&silu);
    let wrapped = sig(&wrapped_copy(&silu));
    assert!(s.tokens < MIN_TOKENS, "{} tokens", s.tokens);
    assert!(
        s.share_in(&wrapped) >= CONTAINED_PERMILLE,
        "{}",
        s.share_in(&wrapped)
    );
    let found = original_contained(
        &wrapped,
        &[earlier(1, 1, true, false, &s)],
        &Signature::default(),
    );
    assert_eq!(found, None);
}

#[test]
fn the_stock_kernel_renamed_is_a_stock_copy_and_a_changed_one_is_not() {
    let slot = cacheon_kernels::slots::SlotId::RmsNorm;
    let stock_files = stock::cpu_bundle(slot).unwrap().files();
    let source = |s| stock::cpu_bundle(s).map(|b| b.files());
    let renamed = edit(&stock_files, |src| {
        format!(
            "/* my own fast rmsnorm */\n{}",
            src.replace("sum", "ss").replace("    ", "\t")
        )
    });
    let m = Manifest::from_bundle(&renamed).unwrap();
    assert!(is_stock_copy(&renamed, &m, source));
    // One operator changed: code of its own.
    let changed = edit(&stock_files, |src| src.replacen("+=", "-=", 1));
    let m = Manifest::from_bundle(&changed).unwrap();
    assert!(!is_stock_copy(&changed, &m, source));
    // An honest kernel for the slot.
    let honest = example("examples/cpu/rmsnorm-avx2");
    let m = Manifest::from_bundle(&honest).unwrap();
    assert!(!is_stock_copy(&honest, &m, source));
}
