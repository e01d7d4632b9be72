//! Property-based fuzzing of the two parsers that see untrusted bytes first: the manifest
//! parser and the canonical bundle decoder. Neither may panic on any input; both run in CI.

use cacheon_kernels::bundle::manifest;
use cacheon_kernels::bundle::{
    canonical_bytes, from_canonical_bytes, BundleFile, MAX_BUNDLE_BYTES,
};
use proptest::prelude::*;

/// A valid manifest to mutate.
const SEED: &str = r#"abi = "cacheon-slot-abi-v1"
name = "fast-silu"
[competition]
target = "activation.silu_and_mul"
mode = "slot"
[[ops]]
slot = "activation.silu_and_mul"
backend = "cuda"
source = "kernels/silu.cu"
entry = "silu_and_mul_bf16"
dtype = "bf16"
block = [256, 1, 1]
grid = ["tokens", "ceil_div(d, 2048)", 1]
shared_mem_bytes = 0
[ops.when]
d = { multiple_of = 8 }
"#;

/// Fragments that make parsers take unusual paths: deep nesting, huge numbers, odd
/// expressions, duplicate keys, control characters.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[[ops]]\n".to_string()),
        Just("grid = [\"ceil_div(ceil_div(d, 0), 1)\", \"min(\", 1]\n".to_string()),
        Just("block = [99999999999999999999, -1, 0]\n".to_string()),
        Just("shared_mem_bytes = -5\n".to_string()),
        Just("a = [[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]\n".to_string()),
        Just("abi = \"cacheon-slot-abi-v1\"\n".to_string()),
        Just("[ops.when]\nd = { multiple_of = 0 }\n".to_string()),
        Just("entry = \"\\u0000\"\n".to_string()),
        "[a-z_.\\[\\]= \"{},0-9\n-]{0,64}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn manifest_parser_never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        let _ = manifest::parse("manifest.toml", &text);
    }

    #[test]
    fn manifest_parser_never_panics_on_mutated_manifests(
        cut in 0usize..SEED.len(),
        insert in fragment(),
        keep_tail in any::<bool>(),
    ) {
        let cut = (0..=cut).rev().find(|i| SEED.is_char_boundary(*i)).unwrap_or(0);
        let mut text = SEED[..cut].to_string();
        text.push_str(&insert);
        if keep_tail {
            text.push_str(&SEED[cut..]);
        }
        let _ = manifest::parse("manifest.toml", &text);
    }

    #[test]
    fn bundle_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = from_canonical_bytes(&bytes, MAX_BUNDLE_BYTES);
    }

    #[test]
    fn bundle_decoder_never_panics_on_corrupted_bundles(
        flip in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        truncate in any::<Option<usize>>(),
    ) {
        let files = vec![
            BundleFile::new("manifest.toml", SEED),
            BundleFile::new("kernels/silu.cu", "extern \"C\" __global__ void k() {}\n"),
        ];
        let mut bytes = canonical_bytes(&files, MAX_BUNDLE_BYTES).unwrap();
        for (at, value) in flip {
            let i = at % bytes.len();
            bytes[i] = value;
        }
        if let Some(n) = truncate {
            bytes.truncate(n % (bytes.len() + 1));
        }
        let _ = from_canonical_bytes(&bytes, MAX_BUNDLE_BYTES);
    }
}

#[test]
fn the_seed_manifest_parses() {
    // The mutation fuzzing starts from a valid manifest, so mutations reach deep checks.
    manifest::parse("manifest.toml", SEED).expect("seed manifest is valid");
}
