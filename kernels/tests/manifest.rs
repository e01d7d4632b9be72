//! manifest.toml parsing: unknown keys, wrong types and missing fields name the key and
//! the file; validation refuses manifests that do not fit the registry.

use cacheon_kernels::bundle::launch_expr::Expr;
use cacheon_kernels::bundle::manifest::{self, Backend, Mode};
use cacheon_kernels::slots::SlotId;
use cacheon_kernels::ManifestError;

const CUDA: &str = r#"
abi = "cacheon-slot-abi-v1"
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

const ATOMIC_CPU: &str = r#"
abi = "cacheon-slot-abi-v1"
[competition]
target = "attention.rope_decode.v1"
mode = "atomic"
[[ops]]
slot = "position.rope"
backend = "cpu"
source = "kernels/fused.c"
entry = "my_rope"
dtype = "f32"
[[ops]]
slot = "attention.decode"
backend = "cpu"
source = "kernels/fused.c"
entry = "my_attention"
dtype = "f32"
[ops.when]
head_dim = { min = 64, max = 256, multiple_of = 2 }
"#;

fn err(text: &str) -> ManifestError {
    manifest::parse("my-bundle/manifest.toml", text).unwrap_err()
}

fn parse_error(text: &str) -> (String, String) {
    match err(text) {
        e @ ManifestError::Parse { .. } => {
            let shown = e.to_string();
            assert!(shown.starts_with("my-bundle/manifest.toml: "), "{shown}");
            (e.key().to_string(), shown)
        }
        other => panic!("expected a parse error, got {other}"),
    }
}

fn invalid_key(text: &str) -> String {
    match err(text) {
        e @ ManifestError::Invalid { .. } => e.key().to_string(),
        other => panic!("expected a validation error, got {other}"),
    }
}

#[test]
fn the_design_example_parses() {
    let m = manifest::parse("manifest.toml", CUDA).unwrap();
    assert_eq!(m.name.as_deref(), Some("fast-silu"));
    assert_eq!((m.mode, m.backend), (Mode::Slot, Backend::Cuda));
    let op = m.op(SlotId::SiluAndMul).unwrap();
    let launch = op.launch.as_ref().unwrap();
    let vals = std::collections::BTreeMap::from([("tokens", 3), ("d", 4100)]);
    let grid: Vec<i64> = launch.grid.iter().map(|e| e.eval(&vals).unwrap()).collect();
    assert_eq!(grid, [3, 3, 1]);
    assert_eq!(launch.block[0], Expr::Int(256));
    assert!(op.accepts(&[3, 4096]));
    assert!(!op.accepts(&[3, 4100]));
}

#[test]
fn an_atomic_cpu_manifest_parses() {
    let m = manifest::parse("manifest.toml", ATOMIC_CPU).unwrap();
    assert_eq!(m.mode, Mode::Atomic);
    assert_eq!(m.ops.len(), 2);
    let attn = m.op(SlotId::AttentionDecode).unwrap();
    assert!(attn.launch.is_none());
    assert!(attn.accepts(&[1, 32, 8, 128, 100]));
    assert!(!attn.accepts(&[1, 32, 8, 40, 100]));
}

#[test]
fn unknown_keys_are_named() {
    let (key, shown) = parse_error(&CUDA.replace("shared_mem_bytes = 0", "shared_mem = 0"));
    assert_eq!(key, "ops[0].shared_mem");
    assert!(shown.contains("unknown field `shared_mem`"), "{shown}");
    let (key, _) = parse_error(&format!("colour = \"red\"\n{CUDA}"));
    assert_eq!(key, "colour");
    let (key, _) = parse_error(&CUDA.replace("mode = \"slot\"", "mode = \"slot\"\nprize = 1"));
    assert_eq!(key, "competition.prize");
    let (key, _) = parse_error(&CUDA.replace("multiple_of = 8", "multiple = 8"));
    assert_eq!(key, "ops[0].when.d.multiple");
}

#[test]
fn wrong_types_are_named() {
    let (key, shown) = parse_error(&CUDA.replace("shared_mem_bytes = 0", "shared_mem_bytes = [1]"));
    assert_eq!(key, "ops[0].shared_mem_bytes");
    assert!(shown.contains("line"), "{shown}");
    let (key, _) = parse_error(&CUDA.replace("block = [256, 1, 1]", "block = [256, 1]"));
    assert_eq!(key, "ops[0].block");
    let (key, _) = parse_error(&CUDA.replace("entry = \"silu_and_mul_bf16\"", "entry = 7"));
    assert_eq!(key, "ops[0].entry");
    let (key, _) = parse_error(&CUDA.replace("backend = \"cuda\"", "backend = \"tpu\""));
    assert_eq!(key, "ops[0].backend");
    let (key, _) = parse_error(&CUDA.replace("mode = \"slot\"", "mode = \"group\""));
    assert_eq!(key, "competition.mode");
}

#[test]
fn missing_fields_are_named() {
    let (key, shown) = parse_error(&CUDA.replace("entry = \"silu_and_mul_bf16\"\n", ""));
    assert_eq!(key, "ops[0].entry");
    assert!(shown.contains("missing field `entry`"), "{shown}");
    let (key, _) = parse_error(&CUDA.replace("abi = \"cacheon-slot-abi-v1\"\n", ""));
    assert_eq!(key, "abi");
    let (key, _) = parse_error(&CUDA.replace("target = \"activation.silu_and_mul\"\n", ""));
    assert_eq!(key, "competition.target");
}

#[test]
fn syntax_errors_give_a_line() {
    match err("abi = \"x\"\n[competition\n") {
        ManifestError::Parse { line, .. } => assert_eq!(line, Some(2)),
        other => panic!("{other}"),
    }
}

#[test]
fn validation_names_the_key() {
    let cases = [
        (
            CUDA.replace("cacheon-slot-abi-v1", "cacheon-slot-abi-v2"),
            "abi",
        ),
        (
            CUDA.replace(
                "target = \"activation.silu_and_mul\"",
                "target = \"act.gelu\"",
            ),
            "competition.target",
        ),
        (
            CUDA.replace("mode = \"slot\"", "mode = \"atomic\""),
            "competition.mode",
        ),
        (
            CUDA.replace(
                "slot = \"activation.silu_and_mul\"",
                "slot = \"norm.rmsnorm\"",
            ),
            "ops[0].slot",
        ),
        (
            CUDA.replace("kernels/silu.cu", "../silu.cu"),
            "ops[0].source",
        ),
        (
            CUDA.replace("kernels/silu.cu", "kernels/silu.c"),
            "ops[0].source",
        ),
        (
            CUDA.replace("\"silu_and_mul_bf16\"", "\"silu and mul\""),
            "ops[0].entry",
        ),
        (
            CUDA.replace("dtype = \"bf16\"", "dtype = \"f32\""),
            "ops[0].dtype",
        ),
        (
            CUDA.replace("\"ceil_div(d, 2048)\"", "\"pow(d, 2)\""),
            "ops[0].grid[1]",
        ),
        (CUDA.replace("\"tokens\"", "\"hidden\""), "ops[0].grid[0]"),
        (CUDA.replace("block = [256, 1, 1]\n", ""), "ops[0].block"),
        (
            CUDA.replace("d = { multiple_of = 8 }", "hidden = { multiple_of = 8 }"),
            "ops[0].when.hidden",
        ),
        (
            CUDA.replace("multiple_of = 8", "multiple_of = 0"),
            "ops[0].when.d",
        ),
        (
            ATOMIC_CPU.replace(
                "dtype = \"f32\"\n[[ops]]",
                "dtype = \"f32\"\nblock = [1, 1, 1]\n[[ops]]",
            ),
            "ops[0].block",
        ),
        (
            ATOMIC_CPU.replace(
                "backend = \"cpu\"\nsource = \"kernels/fused.c\"\nentry = \"my_attention\"",
                "backend = \"cuda\"\nsource = \"kernels/fused.c\"\nentry = \"my_attention\"",
            ),
            "ops[1].backend",
        ),
        (
            ATOMIC_CPU.replace("slot = \"attention.decode\"", "slot = \"position.rope\""),
            "ops[1].slot",
        ),
        (
            ATOMIC_CPU.replace("min = 64, max = 256", "min = 300, max = 256"),
            "ops[1].when.head_dim",
        ),
    ];
    // A collective kernel's domain cannot tell ranks or world sizes apart.
    let collective = |when: &str| {
        format!(
            "abi = \"cacheon-slot-abi-v1\"\n[competition]\ntarget = \"collective.all_reduce\"\nmode = \"slot\"\n\
             [[ops]]\nslot = \"collective.all_reduce\"\nbackend = \"cpu\"\nsource = \"kernels/ar.c\"\n\
             entry = \"ar\"\ndtype = \"f32\"\n[ops.when]\n{when}\n"
        )
    };
    let cases: Vec<(String, &str)> = cases
        .into_iter()
        .chain([
            (collective("rank = { max = 0 }"), "ops[0].when.rank"),
            (collective("world = { min = 3 }"), "ops[0].when.world"),
        ])
        .collect();
    assert!(cacheon_kernels::bundle::manifest::parse(
        "manifest.toml",
        &collective("hidden = { multiple_of = 8 }")
    )
    .is_ok());
    for (text, key) in cases {
        assert_eq!(invalid_key(&text), key, "{text}");
    }
    let only_rope = ATOMIC_CPU
        .split("[[ops]]")
        .take(2)
        .collect::<Vec<_>>()
        .join("[[ops]]");
    assert_eq!(invalid_key(&only_rope), "ops");
}

/// `cluster = [x, y, z]` is launch geometry like the grid: expressions over the shape
/// symbols, evaluated per call, refused where a cluster would not tile the grid or holds
/// more blocks than Hopper allows; CPU ops have none.
#[test]
fn a_launch_time_cluster_follows_the_shape_and_tiles_the_grid() {
    use cacheon_kernels::cuda::{evaluate_geometry, LaunchError};
    let with = |cluster: &str| {
        CUDA.replace(
            "shared_mem_bytes = 0",
            &format!("shared_mem_bytes = 0\ncluster = {cluster}"),
        )
    };
    let geometry = |text: &str, shape: &[i64]| {
        let m = manifest::parse("manifest.toml", text).unwrap();
        let launch = m.ops[0].launch.clone().unwrap();
        evaluate_geometry(SlotId::SiluAndMul, &launch, shape, 48 * 1024)
    };
    // No `cluster`: no launch-time cluster.
    assert_eq!(geometry(CUDA, &[3, 4096]).unwrap().cluster, (1, 1, 1));
    // grid y = ceil_div(d, 2048): the cluster takes all of it.
    let follows = with("[1, \"ceil_div(d, 2048)\", 1]");
    assert_eq!(geometry(&follows, &[3, 4096]).unwrap().cluster, (1, 2, 1));
    assert_eq!(geometry(&follows, &[3, 32768]).unwrap().cluster, (1, 16, 1));
    let refused = |text: &str, shape: &[i64]| match geometry(text, shape) {
        Err(LaunchError::Geometry { what, reason, .. }) => format!("{what}: {reason}"),
        other => panic!("expected a geometry error, got {other:?}"),
    };
    // 3 rows do not split into clusters of 2 along x.
    let ragged = refused(&with("[2, 1, 1]"), &[3, 4096]);
    assert!(ragged.contains("not a multiple of cluster[0]"), "{ragged}");
    // 17 × 2048 features: a cluster of 17 blocks is over the limit.
    let big = refused(&follows, &[1, 17 * 2048]);
    assert!(big.starts_with("cluster[1]"), "{big}");
    let product = refused(&with("[2, \"ceil_div(d, 2048)\", 1]"), &[4, 8 * 2048 * 2]);
    assert!(product.contains("blocks in a cluster"), "{product}");
    // Expressions are checked like the grid's; CPU ops have no cluster.
    assert_eq!(
        invalid_key(&with("[1, \"hidden\", 1]")),
        "ops[0].cluster[1]"
    );
    let cpu = ATOMIC_CPU.replace(
        "dtype = \"f32\"\n[[ops]]",
        "dtype = \"f32\"\ncluster = [1, 1, 1]\n[[ops]]",
    );
    assert_eq!(invalid_key(&cpu), "ops[0].cluster");
}
