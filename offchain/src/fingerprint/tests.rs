//! Tests of [`super`] (`fingerprint.rs`).

use super::*;

const MANIFEST: &str = r#"abi = "cacheon-slot-abi-v1"
name = "silu"
[competition]
target = "activation.silu_and_mul"
mode = "slot"
[[ops]]
slot = "activation.silu_and_mul"
backend = "cpu"
source = "kernels/silu.c"
entry = "silu_and_mul"
dtype = "f32"
"#;

const SOURCE: &str = r#"#include <math.h>
#include <stdint.h>
#include "util.h"
/* SiLU(gate) * up, one row at a time. */
void silu_and_mul(float *out, const float *in, int64_t tokens, int64_t d) {
for (int64_t t = 0; t < tokens; ++t) {
    const float *gate = in + t * 2 * d, *up = gate + d;
    for (int64_t i = 0; i < d; ++i)
        out[t * d + i] = silu(gate[i]) * up[i]; // the product
}
}
"#;

const UTIL: &str =
    "#define ONE 1.0f\nstatic inline float silu(float g) { return g / (ONE + expf(-g)); }\n";

fn bundle(manifest: &str, files: &[(&str, &str)]) -> Vec<BundleFile> {
    std::iter::once(("manifest.toml", manifest))
        .chain(files.iter().copied())
        .map(|(p, d)| BundleFile::new(p, d))
        .collect()
}

fn fp(files: &[BundleFile]) -> Fingerprint {
    fingerprint(files, &Manifest::from_bundle(files).expect("manifest"))
}

fn original() -> Vec<BundleFile> {
    bundle(
        MANIFEST,
        &[("kernels/silu.c", SOURCE), ("kernels/util.h", UTIL)],
    )
}

#[test]
fn renames_comments_layout_and_file_names_do_not_change_it() {
    // What a copier does: other names for everything it may rename, other comments,
    // other spacing and literal spelling, the header under another name, the bundle
    // renamed, and the entry renamed in both places.
    let source = SOURCE
        .replace(
            "/* SiLU(gate) * up, one row at a time. */",
            "// mine, all mine\n",
        )
        .replace("silu_and_mul", "swiglu_fast")
        .replace("silu(", "act(")
        .replace("gate", "g_ptr")
        .replace("*up", "*u_ptr")
        .replace("up[", "u_ptr[")
        .replace("\"util.h\"", "\"helpers/common.h\"")
        .replace("    ", "\t")
        .replace("int64_t t ", "int64_t h ")
        .replace("t < tokens; ++t", "h < tokens; ++h")
        .replace("in + t *", "in + h *")
        .replace("out[t *", "out[h *")
        .replace("; ++h)", ";\n ++h)");
    let util = "#define UNITY 1.f\nstatic inline float act(float value)\n{\n  return value/(UNITY+expf(-value));\n}\n";
    let manifest = MANIFEST
        .replace("name = \"silu\"", "name = \"totally-new\"")
        .replace("kernels/silu.c", "src/k.c")
        .replace("entry = \"silu_and_mul\"", "entry   =   \"swiglu_fast\"");
    let copy = bundle(
        &manifest,
        &[("src/k.c", &source), ("src/helpers/common.h", util)],
    );
    assert_ne!(copy, original());
    assert_eq!(fp(&copy), fp(&original()));
}

#[test]
fn a_change_to_the_code_or_the_launch_changes_it() {
    let base = fp(&original());
    let changed = |src: &str, util: &str| {
        fp(&bundle(
            MANIFEST,
            &[("kernels/silu.c", src), ("kernels/util.h", util)],
        ))
    };
    // Another constant, another operator, another math function, a different kind of
    // literal, a statement more.
    assert_ne!(changed(SOURCE, &UTIL.replace("1.0f", "2.0f")), base);
    assert_ne!(
        changed(&SOURCE.replace("t * d + i", "t * d - i"), UTIL),
        base
    );
    assert_ne!(changed(SOURCE, &UTIL.replace("expf", "__expf")), base);
    assert_ne!(changed(SOURCE, &UTIL.replace("1.0f", "1.0")), base);
    assert_ne!(
        changed(
            &SOURCE.replace("++t) {", "++t) {\n        out[0] = 0;"),
            UTIL
        ),
        base
    );
    // A directive's line end counts: the same tokens split differently do not.
    assert_ne!(
        changed(SOURCE, &UTIL.replace("1.0f\n", "1.0f\n#define TWO\n")),
        base
    );
}

#[test]
fn cuda_launch_geometry_is_part_of_it() {
    let manifest = |grid: &str| {
        format!(
            "abi = \"cacheon-slot-abi-v1\"\n[competition]\ntarget = \"activation.silu_and_mul\"\nmode = \"slot\"\n[[ops]]\nslot = \"activation.silu_and_mul\"\nbackend = \"cuda\"\nsource = \"k.cu\"\nentry = \"k\"\ndtype = \"bf16\"\nblock = [128, 1, 1]\ngrid = [{grid}, 1]\nshared_mem_bytes = 0\n"
        )
    };
    let src = "extern \"C\" __global__ void k(__nv_bfloat16* out, const __nv_bfloat16* in, long long t, long long d) {}\n";
    let a = fp(&bundle(
        &manifest("\"tokens\", \"ceil_div(d, 1024)\""),
        &[("k.cu", src)],
    ));
    let spaced = fp(&bundle(
        &manifest("\"tokens\",\"ceil_div( d,1024 )\""),
        &[("k.cu", src)],
    ));
    let other = fp(&bundle(
        &manifest("\"tokens\", \"ceil_div(d, 512)\""),
        &[("k.cu", src)],
    ));
    assert_eq!(a, spaced);
    assert_ne!(a, other);
}

#[test]
fn numbers_compare_by_kind_and_value() {
    assert_eq!(number("1.0f"), number("1.F"));
    assert_eq!(number("1.0f"), number("1.00000001f"), "one float");
    assert_ne!(number("1.0"), number("1.00000001"));
    assert_eq!(number("0x10"), number("16"));
    assert_eq!(number("020"), number("16"));
    assert_eq!(number("16u"), number("16U"));
    assert_ne!(number("16u"), number("16"));
    assert_ne!(number("1.0"), number("1.0f"));
    assert_ne!(number("1"), number("1.0"));
    assert_eq!(number("1e-3f"), number("0.001f"));
}

#[test]
fn the_earliest_match_is_the_original() {
    let f = fp(&original());
    let other = [0u8; 32];
    let e = |proposal, commit_block, fingerprint, other_miner| Earlier {
        proposal,
        commit_block,
        fingerprint,
        other_miner,
        crowned: false,
        signature: Default::default(),
    };
    let earlier = [e(9, 50, f, true), e(4, 50, f, true), e(2, 10, other, true)];
    assert_eq!(copy_of(&f, &earlier), Some(4));
    assert_eq!(copy_of(&other, &earlier[..2]), None);
    // The miner's own proposal came first: a re-reveal is not a copy of a copier's.
    assert_eq!(copy_of(&f, &[e(9, 50, f, true), e(3, 50, f, false)]), None);
    // Commitment order, not reveal order: the copier revealed first (id 3) but committed
    // after the original (id 7).
    assert_eq!(
        copy_of(&f, &[e(3, 60, f, true), e(7, 40, f, true)]),
        Some(7)
    );
}

fn cuda_bundle(src: &str) -> Vec<BundleFile> {
    let manifest = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/stock/cuda/attention_decode/manifest.toml"
    ))
    .unwrap();
    bundle(&manifest, &[("kernels/attention_decode.cu", src)])
}

#[test]
fn the_stock_cuda_attention_with_its_names_changed_is_the_same_kernel() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/stock/cuda/attention_decode/kernels/attention_decode.cu"
    ))
    .unwrap();
    let renamed = src
        .replace("attend_block", "process_chunk")
        .replace("merge_weight", "mw")
        .replace("qscale", "q_scale")
        .replace("NSPLIT", "CLUSTER")
        .replace("UNROLL_SMALL", "DEPTH")
        .replace("Slot", "Lanes")
        .replace("kbase", "k_ptr")
        .replace("psum", "p_total")
        .replace("/* Runs this block", "/* (mine) Runs this block");
    assert_ne!(renamed, src);
    assert_eq!(fp(&cuda_bundle(&renamed)), fp(&cuda_bundle(&src)));
    // A different intrinsic, constant, vector member or library call at one place is
    // a different kernel.
    for (from, to) in [
        (
            "__shfl_xor_sync(FULL_MASK, sc[u][g], off)",
            "__shfl_down_sync(FULL_MASK, sc[u][g], off)",
        ),
        (
            "return make_uint4(0u, 0u, 0u, 0u)",
            "return make_uint4(0u, 0u, 0u, 1u)",
        ),
        ("f[2] = bf16_lo(v.y)", "f[2] = bf16_lo(v.z)"),
        ("fmaxf(mx, sc[u][g])", "fminf(mx, sc[u][g])"),
    ] {
        assert!(src.contains(from), "{from}");
        let changed = src.replacen(from, to, 1);
        assert_ne!(fp(&cuda_bundle(&changed)), fp(&cuda_bundle(&src)), "{to}");
    }
}

fn declared(src: &str) -> Vec<String> {
    let mut set = HashSet::new();
    declared_names(&tokens(src), &mut set);
    let mut v: Vec<_> = set.into_iter().collect();
    v.sort();
    v
}

#[test]
fn library_names_keep_their_spelling() {
    let base = "void k(float* o, const float* a) { __m256 v = _mm256_loadu_ps(a); \
                _mm256_storeu_ps(o, v); o[1] = INFINITY; }\n";
    assert_eq!(declared(base), ["a", "k", "o", "v"]);
    let manifest = MANIFEST.replace("entry = \"silu_and_mul\"", "entry = \"k\"");
    let f = |src: &str| fp(&bundle(&manifest, &[("kernels/silu.c", src)]));
    assert_ne!(
        f(&base.replace("_mm256_loadu_ps", "_mm256_load_ps")),
        f(base)
    );
    assert_ne!(f(&base.replace("INFINITY", "NAN")), f(base));
    assert_eq!(
        f(&base.replace(" v ", " w ").replace("o, v)", "o, w)")),
        f(base)
    );
}

#[test]
fn declarations_are_found_where_c_puts_them() {
    let src = r#"#define N 4
#define SQ(x) ((x) * (x))
template <int E, class S> struct Pack;
typedef unsigned int word;
extern "C" __global__ void __launch_bounds__(256) kern(float* __restrict__ out, long long n) {
const float *a = out + 1, *b = a + n;
for (long long i = 0; i < n; ++i) out[i] = SQ(a[i]) + b[i] * INFINITY;
[=](int m) { return m; };
}
"#;
    assert_eq!(
        declared(src),
        ["E", "N", "Pack", "S", "SQ", "a", "b", "i", "kern", "m", "n", "out", "word", "x"]
    );
}
