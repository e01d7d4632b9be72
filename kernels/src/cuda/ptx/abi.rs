//! The ABI check on compiled PTX (DESIGN 7 step 4): the entry must exist as a visible
//! `.entry` with exactly the slot's parameter list. Pure text processing; no GPU needed.
//!
//! PTX cannot tell a pointer from an `int64_t` (both are 64-bit integers there), so the
//! check is: the same number of parameters, pointers and shape symbols as 64-bit integers
//! (`.u64`, `.s64` or `.b64`), `float` scalars as `.f32`, and no by-value structs or
//! arrays. A C++ (mangled) name does not match the entry, which must be `extern "C"`.

use crate::slots::{ParamKind, SlotId};

/// One `.param` of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// The type without its dot, e.g. `u64`, `f32`, `b8`.
    pub ty: String,
    /// Element count for an array parameter (`name[16]`): a by-value aggregate.
    pub array: Option<u64>,
    pub name: String,
}

/// One kernel entry point found in PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEntry {
    pub name: String,
    /// `.visible` (loadable by name); `.extern` declarations and hidden entries are not.
    pub visible: bool,
    pub params: Vec<PtxParam>,
}

/// PTX text that could not be parsed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unparsable PTX near `.entry {entry}`: {reason}")]
pub struct PtxParseError {
    pub entry: String,
    pub reason: String,
}

/// Why an entry does not have its slot's ABI.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AbiError {
    #[error("entry `{name}` is not a visible kernel in the compiled code (is it `extern \"C\" __global__`?)")]
    MissingEntry { name: String },
    #[error("entry `{name}` has {got} parameters; {slot} takes {expected}: {prototype}")]
    ParamCount {
        name: String,
        slot: SlotId,
        expected: usize,
        got: usize,
        prototype: String,
    },
    #[error("entry `{name}` parameter {index} (`{param}`) is `.{got}`, {slot} needs {expected}: {prototype}")]
    ParamType {
        name: String,
        slot: SlotId,
        index: usize,
        param: &'static str,
        expected: &'static str,
        got: String,
        prototype: String,
    },
    #[error("the compiled code could not be read: {0}")]
    Parse(#[from] PtxParseError),
}

/// Removes `//` and `/* */` comments from PTX (which has no string literals).
fn strip_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (None, None) => {
                out.push_str(rest);
                return out;
            }
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = match rest[l..].find('\n') {
                    Some(n) => &rest[l + n..],
                    None => "",
                };
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = match rest[b + 2..].find("*/") {
                    Some(e) => &rest[b + 2 + e + 2..],
                    None => "",
                };
            }
            (Some(_), None) => unreachable!("covered by the guard above"),
        }
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'%'
}

/// Every `.entry` in the PTX, in order.
pub fn parse_entries(ptx: &str) -> Result<Vec<PtxEntry>, PtxParseError> {
    let text = strip_comments(ptx);
    let bytes = text.as_bytes();
    let mut entries = Vec::new();
    let mut from = 0;
    while let Some(off) = text[from..].find(".entry") {
        let at = from + off;
        from = at + ".entry".len();
        // `.entry` must be a whole directive: not `.entry_x`, and preceded by space.
        let before_ok = at == 0 || bytes[at - 1].is_ascii_whitespace();
        let after_ok = bytes.get(from).is_some_and(|b| b.is_ascii_whitespace());
        if !before_ok || !after_ok {
            continue;
        }
        // Linkage directives sit before `.entry` on the same statement.
        let stmt_start = text[..at].rfind(['}', ';', ')', '{']).map_or(0, |p| p + 1);
        let prefix = &text[stmt_start..at];
        let visible = prefix.split_whitespace().any(|t| t == ".visible");
        let is_extern = prefix.split_whitespace().any(|t| t == ".extern");
        let mut i = from;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let name_start = i;
        while i < bytes.len() && is_ident_byte(bytes[i]) {
            i += 1;
        }
        let name = text[name_start..i].to_string();
        let err = |reason: &str| PtxParseError {
            entry: name.clone(),
            reason: reason.to_string(),
        };
        if name.is_empty() {
            return Err(err("missing entry name"));
        }
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut params = Vec::new();
        if bytes.get(i) == Some(&b'(') {
            let close = text[i..]
                .find(')')
                .map(|c| i + c)
                .ok_or_else(|| err("unterminated parameter list"))?;
            let list = &text[i + 1..close];
            if !list.trim().is_empty() {
                for decl in list.split(',') {
                    params.push(parse_param(decl).map_err(|r| err(&r))?);
                }
            }
            from = close + 1;
        }
        entries.push(PtxEntry {
            name,
            visible: visible && !is_extern,
            params,
        });
    }
    Ok(entries)
}

const PTX_TYPES: [&str; 20] = [
    "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "f16",
    "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "b128",
];

fn parse_param(decl: &str) -> Result<PtxParam, String> {
    let mut tokens = decl.split_whitespace();
    if tokens.next() != Some(".param") {
        return Err(format!("`{}` is not a .param declaration", decl.trim()));
    }
    let rest: Vec<&str> = tokens.collect();
    let (last, quals) = rest
        .split_last()
        .ok_or_else(|| format!("`{}` has no name", decl.trim()))?;
    let ty = quals
        .iter()
        .filter_map(|t| t.strip_prefix('.'))
        .find(|t| PTX_TYPES.contains(t))
        .ok_or_else(|| format!("`{}` has no type", decl.trim()))?
        .to_string();
    let (name, array) = match last.split_once('[') {
        Some((n, dim)) => {
            let dim = dim
                .strip_suffix(']')
                .and_then(|d| d.trim().parse().ok())
                .ok_or_else(|| format!("`{last}`: bad array size"))?;
            (n.to_string(), Some(dim))
        }
        None => (last.to_string(), None),
    };
    if name.is_empty() || name.starts_with('.') {
        return Err(format!("`{}` has no name", decl.trim()));
    }
    Ok(PtxParam { ty, array, name })
}

fn expected_types(kind: ParamKind) -> (&'static [&'static str], &'static str) {
    match kind {
        ParamKind::Output | ParamKind::Input => (&["u64", "b64"], "a pointer (`.u64`)"),
        ParamKind::ScalarF32 => (&["f32"], "`float` (`.f32`)"),
        ParamKind::Shape => (&["u64", "s64", "b64"], "`int64_t` (`.u64`/`.s64`)"),
    }
}

/// Checks that `entry` is a visible kernel in `ptx` with exactly `slot`'s ABI.
pub fn check_abi(slot: SlotId, entry: &str, ptx: &str) -> Result<(), AbiError> {
    let entries = parse_entries(ptx)?;
    let found = entries
        .iter()
        .find(|e| e.name == entry && e.visible)
        .ok_or_else(|| AbiError::MissingEntry {
            name: entry.to_string(),
        })?;
    let spec = slot.spec();
    let prototype = crate::slots::cuda_prototype(slot, Some(entry));
    if found.params.len() != spec.params.len() {
        return Err(AbiError::ParamCount {
            name: entry.to_string(),
            slot,
            expected: spec.params.len(),
            got: found.params.len(),
            prototype,
        });
    }
    for (index, (want, got)) in spec.params.iter().zip(&found.params).enumerate() {
        let (allowed, expected) = expected_types(want.kind);
        if got.array.is_some() || !allowed.contains(&got.ty.as_str()) {
            let got_ty = match got.array {
                Some(n) => format!("{}[{n}]", got.ty),
                None => got.ty.clone(),
            };
            return Err(AbiError::ParamType {
                name: entry.to_string(),
                slot,
                index,
                param: want.name,
                expected,
                got: got_ty,
                prototype,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RMSNORM: &str = "
//
// Generated by NVIDIA NVVM Compiler
// Cuda compilation tools, release 13.0
//
.version 9.0
.target sm_90a
.address_size 64

	// .globl	rmsnorm
.visible .entry rmsnorm(
	.param .u64 .ptr .align 1 rmsnorm_param_0,
	.param .u64 .ptr .align 1 rmsnorm_param_1,
	.param .u64 .ptr .align 1 rmsnorm_param_2,
	.param .f32 rmsnorm_param_3,
	.param .u64 rmsnorm_param_4,
	.param .u64 rmsnorm_param_5
)
.maxntid 1024, 1, 1
{
	.reg .b32 %r<3>;
	ret;
}
";

    #[test]
    fn parses_an_nvrtc_entry() {
        let e = parse_entries(RMSNORM).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].name, "rmsnorm");
        assert!(e[0].visible);
        let tys: Vec<&str> = e[0].params.iter().map(|p| p.ty.as_str()).collect();
        assert_eq!(tys, ["u64", "u64", "u64", "f32", "u64", "u64"]);
        assert_eq!(e[0].params[3].name, "rmsnorm_param_3");
        check_abi(SlotId::RmsNorm, "rmsnorm", RMSNORM).unwrap();
    }

    #[test]
    fn wrong_slot_or_name_is_refused() {
        let e = check_abi(SlotId::SiluAndMul, "rmsnorm", RMSNORM).unwrap_err();
        assert!(
            matches!(
                e,
                AbiError::ParamCount {
                    expected: 4,
                    got: 6,
                    ..
                }
            ),
            "{e}"
        );
        let e = check_abi(SlotId::RmsNorm, "rms_norm", RMSNORM).unwrap_err();
        assert_eq!(
            e,
            AbiError::MissingEntry {
                name: "rms_norm".into()
            }
        );
    }

    #[test]
    fn type_mismatches_name_the_parameter() {
        // eps as double, tokens as int32.
        let ptx = RMSNORM.replace(".f32 rmsnorm_param_3", ".f64 rmsnorm_param_3");
        let e = check_abi(SlotId::RmsNorm, "rmsnorm", &ptx).unwrap_err();
        assert!(
            matches!(&e, AbiError::ParamType { index: 3, param: "eps", got, .. } if got == "f64"),
            "{e}"
        );
        let ptx = RMSNORM.replace(".u64 rmsnorm_param_4", ".u32 rmsnorm_param_4");
        let e = check_abi(SlotId::RmsNorm, "rmsnorm", &ptx).unwrap_err();
        assert!(
            matches!(
                &e,
                AbiError::ParamType {
                    index: 4,
                    param: "tokens",
                    ..
                }
            ),
            "{e}"
        );
        // A pointer where the float scalar belongs.
        let ptx = RMSNORM.replace(".f32 rmsnorm_param_3", ".u64 rmsnorm_param_3");
        assert!(matches!(
            check_abi(SlotId::RmsNorm, "rmsnorm", &ptx),
            Err(AbiError::ParamType { index: 3, .. })
        ));
        // A by-value struct.
        let ptx = RMSNORM.replace(
            ".param .u64 rmsnorm_param_5",
            ".param .align 8 .b8 rmsnorm_param_5[16]",
        );
        let e = check_abi(SlotId::RmsNorm, "rmsnorm", &ptx).unwrap_err();
        assert!(
            matches!(&e, AbiError::ParamType { index: 5, got, .. } if got == "b8[16]"),
            "{e}"
        );
    }

    #[test]
    fn mangled_extern_and_commented_entries_do_not_count() {
        let mangled = RMSNORM.replace("rmsnorm(", "_Z7rmsnormP13__nv_bfloat16PKS_S2_fxx(");
        assert!(matches!(
            check_abi(SlotId::RmsNorm, "rmsnorm", &mangled),
            Err(AbiError::MissingEntry { .. })
        ));
        let ext = ".extern .entry rmsnorm(.param .u64 a, .param .u64 b, .param .u64 c, \
                   .param .f32 d, .param .u64 e, .param .u64 f);";
        assert!(!parse_entries(ext).unwrap()[0].visible);
        let commented = "// .visible .entry rmsnorm(.param .u64 a)\n/* .visible .entry x() */";
        assert!(parse_entries(commented).unwrap().is_empty());
    }

    #[test]
    fn several_entries_cluster_directives_and_empty_lists() {
        let ptx = "
.visible .entry first()
{ ret; }
.weak .entry hidden(.param .u32 hidden_param_0) { ret; }
.visible .entry attention_decode(
	.param .u64 .ptr .align 1 p0, .param .u64 .ptr .align 1 p1,
	.param .u64 .ptr .align 1 p2, .param .u64 .ptr .align 1 p3,
	.param .u64 .ptr .align 1 p4, .param .f32 p5, .param .u64 p6,
	.param .u64 p7, .param .u64 p8, .param .u64 p9, .param .s64 p10
)
.explicitcluster
.reqnctapercluster 1, 8, 1
.maxntid 256, 1, 1
{ ret; }
";
        let e = parse_entries(ptx).unwrap();
        let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["first", "hidden", "attention_decode"]);
        assert!(e[0].params.is_empty() && e[0].visible);
        assert!(!e[1].visible);
        check_abi(SlotId::AttentionDecode, "attention_decode", ptx).unwrap();
        assert!(matches!(
            check_abi(SlotId::AttentionDecode, "hidden", ptx),
            Err(AbiError::MissingEntry { .. })
        ));
    }

    #[test]
    fn malformed_lists_are_parse_errors() {
        assert!(parse_entries(".visible .entry k(.param .u64 a").is_err());
        assert!(parse_entries(".visible .entry k(.reg .u64 a)").is_err());
        assert!(parse_entries(".visible .entry k(.param a)").is_err());
        assert!(parse_entries(".visible .entry k(.param .u64 a[x])").is_err());
        assert!(parse_entries(".visible .entry (.param .u64 a)").is_err());
    }
}
