//! Strict parsing and validation of a bundle's `manifest.toml` (DESIGN 6).
//!
//! Parsing refuses unknown keys, wrong types and missing fields, and every error names the
//! file and the key (`ops[0].block`). Validation then checks the manifest against the
//! slot registry: ABI string, known target and mode, ops covering the target's slots,
//! launch geometry present for CUDA ops and absent for CPU ops, geometry expressions and
//! `when` domains over the slot's own shape symbols.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::bundle::launch_expr::Expr;
use crate::bundle::{self, BundleFile};
use crate::slots::{self, Dtype, SlotId, TargetKind, TargetSpec, ABI_VERSION};

/// Largest manifest accepted, in bytes.
pub const MAX_MANIFEST_BYTES: usize = 64 * 1024;
const MAX_NAME_LEN: usize = 128;
const MAX_ENTRY_LEN: usize = 128;

/// A manifest that failed to parse or validate.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ManifestError {
    /// TOML syntax, an unknown key, a wrong type or a missing field.
    #[error("{file}: `{key}`: {message}{}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Parse {
        file: String,
        key: String,
        line: Option<usize>,
        message: String,
    },
    /// Well-formed but not acceptable.
    #[error("{file}: `{key}`: {reason}")]
    Invalid {
        file: String,
        key: String,
        reason: String,
    },
}

impl ManifestError {
    /// The key the error is about, e.g. `ops[0].entry` (`.` for the whole document).
    pub fn key(&self) -> &str {
        match self {
            ManifestError::Parse { key, .. } | ManifestError::Invalid { key, .. } => key,
        }
    }
}

/// How the bundle competes: one slot or an atomic group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Slot,
    Atomic,
}

/// Which arena kind an op is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cuda,
    Cpu,
}

/// A launch-geometry value: an integer or an expression string.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Geom {
    Int(i64),
    Expr(String),
}

/// An op's domain on one shape symbol; calls outside it use the incumbent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    pub multiple_of: Option<i64>,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

impl Domain {
    pub fn contains(&self, v: i64) -> bool {
        self.multiple_of.is_none_or(|m| v % m == 0)
            && self.min.is_none_or(|m| v >= m)
            && self.max.is_none_or(|m| v <= m)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    abi: String,
    name: Option<String>,
    competition: RawCompetition,
    ops: Vec<RawOp>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompetition {
    target: String,
    mode: Mode,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOp {
    slot: String,
    backend: Backend,
    source: String,
    entry: String,
    dtype: Dtype,
    block: Option<[Geom; 3]>,
    grid: Option<[Geom; 3]>,
    shared_mem_bytes: Option<Geom>,
    cluster: Option<[Geom; 3]>,
    when: Option<BTreeMap<String, Domain>>,
}

/// CUDA launch geometry, parsed against the slot's shape symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub block: [Expr; 3],
    pub grid: [Expr; 3],
    pub shared_mem_bytes: Expr,
    /// Thread-block cluster dimensions given at launch time (`cluster = [x, y, z]`), which
    /// may follow the shape; `None` launches without one (a kernel may still declare
    /// compile-time `__cluster_dims__`, but not both).
    pub cluster: Option<[Expr; 3]>,
}

/// One validated op: a kernel for one slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub slot: SlotId,
    pub backend: Backend,
    /// Bundle-relative path of the source file.
    pub source: String,
    /// Symbol name of the kernel.
    pub entry: String,
    pub dtype: Dtype,
    /// Present exactly for CUDA ops.
    pub launch: Option<Launch>,
    /// Domain per shape symbol; empty means every shape.
    pub when: BTreeMap<String, Domain>,
}

impl Op {
    /// Whether a call with these shape values (ABI order) is inside the op's domain.
    pub fn accepts(&self, shape: &[i64]) -> bool {
        in_domain(self.slot, &self.when, shape)
    }
}

/// Whether shape values (in `slot`'s ABI order) lie inside a `when` domain (an empty one
/// takes every shape). The engines call a kernel only inside its domain and hand calls
/// outside it to the kernel below (the incumbent).
pub fn in_domain(slot: SlotId, when: &BTreeMap<String, Domain>, shape: &[i64]) -> bool {
    if when.is_empty() {
        return true; // the common case, on every engine call: no allocation
    }
    let symbols = slot.spec().shape_symbols();
    when.iter().all(|(sym, dom)| {
        symbols
            .iter()
            .position(|s| s == sym)
            .is_some_and(|i| shape.get(i).is_some_and(|&v| dom.contains(v)))
    })
}

/// A validated manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub name: Option<String>,
    pub target: &'static TargetSpec,
    pub mode: Mode,
    pub backend: Backend,
    /// One op per member slot of the target, in manifest order.
    pub ops: Vec<Op>,
}

impl Manifest {
    /// The op for a slot, if the bundle provides one.
    pub fn op(&self, slot: SlotId) -> Option<&Op> {
        self.ops.iter().find(|o| o.slot == slot)
    }

    /// Parses and validates the bundle's `manifest.toml`, and checks that every op's
    /// source file is in the bundle.
    pub fn from_bundle(files: &[BundleFile]) -> Result<Manifest, ManifestError> {
        let file = bundle::MANIFEST_FILE;
        let invalid = |key: &str, reason: &str| ManifestError::Invalid {
            file: file.to_string(),
            key: key.to_string(),
            reason: reason.to_string(),
        };
        let f = bundle::find(files, file).ok_or_else(|| invalid(".", "bundle has no manifest"))?;
        let text = std::str::from_utf8(&f.data).map_err(|_| invalid(".", "not UTF-8"))?;
        let manifest = parse(file, text)?;
        for (i, op) in manifest.ops.iter().enumerate() {
            if bundle::find(files, &op.source).is_none() {
                return Err(invalid(
                    &format!("ops[{i}].source"),
                    "file is not in the bundle",
                ));
            }
        }
        Ok(manifest)
    }
}

/// Parses and validates manifest text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Manifest, ManifestError> {
    let raw = deserialize(file, text)?;
    validate(file, raw)
}

fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> Option<usize> {
    span.map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
}

fn deserialize(file: &str, text: &str) -> Result<RawManifest, ManifestError> {
    let parse_err = |key: String, line, message: String| ManifestError::Parse {
        file: file.to_string(),
        key,
        line,
        message,
    };
    if text.len() > MAX_MANIFEST_BYTES {
        let msg = format!("larger than {MAX_MANIFEST_BYTES} bytes");
        return Err(parse_err(".".into(), None, msg));
    }
    let de = toml::Deserializer::parse(text)
        .map_err(|e| parse_err(".".into(), line_of(text, e.span()), e.message().to_string()))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.message().to_string();
        // A missing field is reported at the enclosing table: name the field itself.
        let field = message
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next());
        let key = match field {
            Some(f) if path == "." => f.to_string(),
            Some(f) => format!("{path}.{f}"),
            None => path,
        };
        parse_err(key, line_of(text, inner.span()), message)
    })
}

fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && s.len() <= MAX_ENTRY_LEN
}

fn geom_expr(g: &Geom, symbols: &[&str]) -> Result<Expr, String> {
    match g {
        Geom::Int(v) if *v >= 0 => Ok(Expr::Int(*v)),
        Geom::Int(v) => Err(format!("negative value {v}")),
        Geom::Expr(text) => Expr::parse(text, symbols).map_err(|e| e.to_string()),
    }
}

fn validate(file: &str, raw: RawManifest) -> Result<Manifest, ManifestError> {
    let invalid = |key: String, reason: String| ManifestError::Invalid {
        file: file.to_string(),
        key,
        reason,
    };
    if raw.abi != ABI_VERSION {
        return Err(invalid("abi".into(), format!("must be \"{ABI_VERSION}\"")));
    }
    if let Some(name) = &raw.name {
        if name.len() > MAX_NAME_LEN || name.chars().any(char::is_control) {
            let reason = format!("at most {MAX_NAME_LEN} bytes, no control characters");
            return Err(invalid("name".into(), reason));
        }
    }
    let target_id = &raw.competition.target;
    let target = slots::target(target_id).ok_or_else(|| {
        invalid(
            "competition.target".into(),
            format!("unknown target `{target_id}`"),
        )
    })?;
    let expected_mode = match target.kind {
        TargetKind::Slot => Mode::Slot,
        TargetKind::Atomic => Mode::Atomic,
    };
    if raw.competition.mode != expected_mode {
        let reason = format!("target `{target_id}` is competed for in mode {expected_mode:?}");
        return Err(invalid("competition.mode".into(), reason.to_lowercase()));
    }
    if raw.ops.is_empty() {
        return Err(invalid(
            "ops".into(),
            "at least one [[ops]] entry is required".into(),
        ));
    }
    let backend = raw.ops[0].backend;
    let mut ops: Vec<Op> = Vec::new();
    for (i, op) in raw.ops.into_iter().enumerate() {
        let op = validate_op(op, backend, target, &ops)
            .map_err(|(k, r)| invalid(format!("ops[{i}].{k}"), r))?;
        ops.push(op);
    }
    if let Some(missing) = target
        .members
        .iter()
        .find(|m| !ops.iter().any(|o| o.slot == **m))
    {
        let reason = format!("target `{target_id}` needs an op for slot `{missing}`");
        return Err(invalid("ops".into(), reason));
    }
    Ok(Manifest {
        name: raw.name,
        target,
        mode: raw.competition.mode,
        backend,
        ops,
    })
}

/// One `[[ops]]` entry, given the bundle's `backend`, its `target` and the ops before it.
fn validate_op(
    op: RawOp,
    backend: Backend,
    target: &TargetSpec,
    earlier: &[Op],
) -> Result<Op, OpError> {
    let invalid = |k: &str, reason: String| (k.to_string(), reason);
    let slot = SlotId::parse(&op.slot)
        .ok_or_else(|| invalid("slot", format!("unknown slot `{}`", op.slot)))?;
    if !target.members.contains(&slot) {
        let reason = format!("slot `{slot}` is not part of target `{}`", target.id);
        return Err(invalid("slot", reason));
    }
    if earlier.iter().any(|o| o.slot == slot) {
        return Err(invalid("slot", format!("second op for slot `{slot}`")));
    }
    if op.backend != backend {
        return Err(invalid(
            "backend",
            "all ops of a bundle use one backend".into(),
        ));
    }
    bundle::check_path(&op.source).map_err(|e| invalid("source", e.to_string()))?;
    let (ext, dtype) = match backend {
        Backend::Cpu => (".c", Dtype::F32),
        Backend::Cuda => (".cu", Dtype::Bf16),
    };
    if !op.source.ends_with(ext) {
        return Err(invalid(
            "source",
            format!("a {backend:?} source ends in {ext}"),
        ));
    }
    if !is_identifier(&op.entry) {
        let reason = format!("must be a C identifier of at most {MAX_ENTRY_LEN} bytes");
        return Err(invalid("entry", reason));
    }
    if op.dtype != dtype {
        let reason = format!("the {backend:?} arena's element type is {}", dtype.as_str());
        return Err(invalid("dtype", reason));
    }
    let symbols = slot.spec().shape_symbols();
    let launch = launch_of(&op, backend, &symbols)?;
    let when = op.when.unwrap_or_default();
    check_when(&when, slot, &symbols)?;
    let (source, entry) = (op.source, op.entry);
    Ok(Op {
        slot,
        backend,
        source,
        entry,
        dtype,
        launch,
        when,
    })
}

/// A key under an op that is invalid (`block[1]`, `when.tokens`), and why.
type OpError = (String, String);

/// An op's launch geometry on `backend`: none on the CPU (an op there names no geometry
/// key), every dimension an expression over the slot's shape `symbols` on CUDA.
fn launch_of(op: &RawOp, backend: Backend, symbols: &[&str]) -> Result<Option<Launch>, OpError> {
    match backend {
        Backend::Cpu => {
            let present = [
                ("block", op.block.is_some()),
                ("grid", op.grid.is_some()),
                ("shared_mem_bytes", op.shared_mem_bytes.is_some()),
                ("cluster", op.cluster.is_some()),
            ];
            if let Some((k, _)) = present.iter().find(|(_, p)| *p) {
                return Err((k.to_string(), "CPU ops have no launch geometry".into()));
            }
            Ok(None)
        }
        Backend::Cuda => {
            let dims = |k: &str, g: Option<&[Geom; 3]>| -> Result<[Expr; 3], OpError> {
                let g = g.ok_or_else(|| (k.to_string(), "CUDA ops need it".to_string()))?;
                let mut out = Vec::with_capacity(3);
                for (j, v) in g.iter().enumerate() {
                    out.push(geom_expr(v, symbols).map_err(|r| (format!("{k}[{j}]"), r))?);
                }
                Ok(out.try_into().expect("three dims"))
            };
            let block = dims("block", op.block.as_ref())?;
            let grid = dims("grid", op.grid.as_ref())?;
            let smem = op.shared_mem_bytes.clone().unwrap_or(Geom::Int(0));
            let shared_mem_bytes =
                geom_expr(&smem, symbols).map_err(|r| ("shared_mem_bytes".to_string(), r))?;
            let cluster = match &op.cluster {
                Some(c) => Some(dims("cluster", Some(c))?),
                None => None,
            };
            Ok(Some(Launch {
                block,
                grid,
                shared_mem_bytes,
                cluster,
            }))
        }
    }
}

/// An op's `when` domain: only the slot's shape symbols (never a collective's `rank` or
/// `world`), each with a bound that can hold.
fn check_when(
    when: &BTreeMap<String, Domain>,
    slot: SlotId,
    symbols: &[&str],
) -> Result<(), OpError> {
    for (sym, dom) in when {
        let k = format!("when.{sym}");
        if !symbols.contains(&sym.as_str()) {
            return Err((k, format!("`{sym}` is not a shape symbol of `{slot}`")));
        }
        // A collective kernel serves every rank of a call or none: a domain that told
        // ranks apart would leave some ranks on another kernel's bits.
        if slot.is_collective() && matches!(sym.as_str(), "rank" | "world") {
            return Err((
                k,
                format!("a `{slot}` kernel must serve every rank and world size alike"),
            ));
        }
        if *dom == Domain::default() {
            return Err((k, "needs multiple_of, min or max".into()));
        }
        if dom.multiple_of.is_some_and(|m| m < 1) {
            return Err((k, "multiple_of must be at least 1".into()));
        }
        if let (Some(lo), Some(hi)) = (dom.min, dom.max) {
            if lo > hi {
                return Err((k, "min is greater than max".into()));
            }
        }
    }
    Ok(())
}
