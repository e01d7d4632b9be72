//! Normalized-copy detection (THREATS: "Copying a revealed bundle"): the fingerprint of a
//! bundle's behaviour-relevant content, blind to the edits a copier makes to dodge the
//! chain's exact ContentHash check.
//!
//! The fingerprint is a SHA-256 over, for each op in manifest order: the slot, backend,
//! dtype, launch geometry and `when` domains (as parsed, so spacing and quoting in the
//! manifest do not count), the entry name, then the op's source as a token stream:
//! - comments, whitespace and line continuations are gone (a newline counts only where it
//!   ends a preprocessor directive);
//! - identifiers are renamed to `v0, v1, …` in order of first appearance, except
//!   keywords, directive names, CUDA's built-in variables, names starting with `__`
//!   (qualifiers and intrinsics) and the math library: renaming a variable, function or
//!   macro does not change the fingerprint, swapping `expf` for `__expf` does;
//! - numbers are compared by value and kind (`1.0f`, `1.f` and `1.0F` are one token;
//!   `1.0` is another, `1` another);
//! - `#include "file"` of a bundle header is replaced by that header's tokens (once per
//!   bundle), so renaming or moving headers does not count either; the bundle's `name`
//!   and file names never count.
//!
//! What it does not catch, by design: reordered functions or statements, added dead code,
//! macros wrapping the same code. Those are not mechanical renames, and a copy that
//! survives them is then judged on speed against whatever it copied once that is crowned.
//! Two proposals with one fingerprint are the same kernel: the later one by another miner
//! FAILs `CopyOf(earlier)` (`screens::run_screens`, stage `copy`).

use std::collections::HashMap;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::screen::resolve_bundle_header;
use cacheon_kernels::Manifest;

/// SHA-256 of a bundle's normalized content.
pub type Fingerprint = [u8; 32];

/// An earlier proposal by another miner, as the copy screen compares against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Earlier {
    pub proposal: u64,
    pub fingerprint: Fingerprint,
}

/// The first earlier proposal (lowest id) with the same fingerprint.
pub fn copy_of(fp: &Fingerprint, earlier: &[Earlier]) -> Option<u64> {
    earlier
        .iter()
        .filter(|e| &e.fingerprint == fp)
        .map(|e| e.proposal)
        .min()
}

/// The fingerprint of a bundle whose manifest parsed (`manifest` is `files`' own).
pub fn fingerprint(files: &[BundleFile], manifest: &Manifest) -> Fingerprint {
    let mut n = Normalizer {
        files,
        names: HashMap::new(),
        emitted: Vec::new(),
        out: Vec::new(),
    };
    n.line(&format!(
        "target {} {:?} {:?}",
        manifest.target.id, manifest.mode, manifest.backend
    ));
    for op in &manifest.ops {
        n.line(&format!(
            "op {} {:?} {:?} launch {:?} when {:?}",
            op.slot, op.backend, op.dtype, op.launch, op.when
        ));
        n.file(&op.source);
        let entry = n.rename(&op.entry);
        n.line(&format!("entry {entry}"));
    }
    cacheon_primitives::bundle::content_hash(&n.out)
}

struct Normalizer<'a> {
    files: &'a [BundleFile],
    /// Renamed identifiers: original -> index of first appearance.
    names: HashMap<String, usize>,
    /// Files already emitted, in order.
    emitted: Vec<String>,
    out: Vec<u8>,
}

impl Normalizer<'_> {
    fn line(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(b'\n');
    }

    fn rename(&mut self, ident: &str) -> String {
        if kept(ident) {
            return ident.to_string();
        }
        let next = self.names.len();
        format!("v{}", *self.names.entry(ident.to_string()).or_insert(next))
    }

    /// Emits a bundle file's tokens, or a back-reference when it was emitted before.
    fn file(&mut self, path: &str) {
        if let Some(k) = self.emitted.iter().position(|p| p == path) {
            self.line(&format!("file#{k}"));
            return;
        }
        self.emitted.push(path.to_string());
        let Some(f) = self.files.iter().find(|f| f.path == path) else {
            self.line("file-missing");
            return;
        };
        let text = String::from_utf8_lossy(&f.data).into_owned();
        let toks = tokens(&text);
        let mut i = 0;
        while i < toks.len() {
            // `#include "header"` of a bundle file: the header's tokens instead; a system
            // header: its name as one token (never renamed).
            if let (Tok::Punct(hash), Some(Tok::Ident(inc)), Some(arg)) =
                (&toks[i], toks.get(i + 1), toks.get(i + 2))
            {
                if hash == "#" && inc == "include" {
                    match arg {
                        Tok::Str(s) => {
                            let spelling = s.trim_matches('"');
                            if let Some(header) = resolve_bundle_header(path, spelling, self.files)
                            {
                                self.line("#include");
                                self.file(&header);
                                i += 3;
                                continue;
                            }
                        }
                        Tok::Punct(lt) if lt == "<" => {
                            let mut name = String::new();
                            let mut j = i + 3;
                            while let Some(t) = toks.get(j) {
                                j += 1;
                                match t {
                                    Tok::Punct(gt) if gt == ">" => break,
                                    Tok::Ident(x) | Tok::Num(x) | Tok::Str(x) | Tok::Punct(x) => {
                                        name.push_str(x)
                                    }
                                    Tok::EndDirective => break,
                                }
                            }
                            self.line(&format!("#include <{name}>"));
                            i = j;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            let t = match &toks[i] {
                Tok::Ident(s) => self.rename(s),
                Tok::Num(s) => number(s),
                Tok::Str(s) | Tok::Punct(s) => s.clone(),
                Tok::EndDirective => "⏎".to_string(),
            };
            self.line(&t);
            i += 1;
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Num(String),
    /// A string or character literal, quotes included, as written.
    Str(String),
    Punct(String),
    /// The end of a preprocessor directive's line.
    EndDirective,
}

/// Multi-character punctuators, longest first (the compiler's maximal munch).
const PUNCT: [&str; 25] = [
    "<<=", ">>=", "...", "->*", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##",
];

/// C/CUDA tokens of `text`, comments and whitespace dropped.
fn tokens(text: &str) -> Vec<Tok> {
    let src: Vec<char> = text
        .replace("\\\r\n", "")
        .replace("\\\n", "")
        .chars()
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut in_directive = false;
    while i < src.len() {
        let c = src[i];
        let next = src.get(i + 1).copied();
        if c == '\n' {
            if in_directive {
                out.push(Tok::EndDirective);
                in_directive = false;
            }
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && next == Some('/') {
            while i < src.len() && src[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i < src.len() && !(src[i] == '*' && src.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            continue;
        }
        let at_line_start = line_start;
        line_start = false;
        let start = i;
        if c == '"' || c == '\'' {
            i += 1;
            while i < src.len() && src[i] != c && src[i] != '\n' {
                i += if src[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(src.len());
            out.push(Tok::Str(src[start..i].iter().collect()));
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(src[start..i].iter().collect()));
        } else if c.is_ascii_digit() || (c == '.' && next.is_some_and(|d| d.is_ascii_digit())) {
            while i < src.len() {
                let d = src[i];
                // An exponent's sign: after `e` in a decimal number, after `p` in a hex one.
                let hex = src[start..i].iter().any(|&x| x == 'x' || x == 'X');
                let exponent = if hex { ['p', 'P'] } else { ['e', 'E'] };
                let exp_sign = (d == '+' || d == '-') && exponent.contains(&src[i - 1]);
                if d.is_ascii_alphanumeric() || d == '.' || d == '_' || d == '\'' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Tok::Num(src[start..i].iter().collect()));
        } else {
            let rest: String = src[i..(i + 3).min(src.len())].iter().collect();
            let p = PUNCT
                .iter()
                .find(|p| rest.starts_with(*p))
                .map_or_else(|| c.to_string(), |p| p.to_string());
            i += p.chars().count();
            if p == "#" && at_line_start {
                in_directive = true;
            }
            out.push(Tok::Punct(p));
        }
    }
    if in_directive {
        out.push(Tok::EndDirective);
    }
    out
}

/// A number by kind and value: `i<suffix>:<value>` for integers, `f:`/`d:` for float and
/// double literals; anything unparsable stays as written (lowercased).
fn number(raw: &str) -> String {
    let s = raw.to_ascii_lowercase().replace('\'', "");
    let hex = s.starts_with("0x");
    let float = if hex {
        s.contains('.') || s.contains('p')
    } else {
        s.contains('.') || s.contains('e')
    };
    if float {
        if hex {
            return s;
        }
        let (body, kind) = match s.strip_suffix('f') {
            Some(b) => (b, "f"),
            None => (s.strip_suffix('l').unwrap_or(&s), "d"),
        };
        return match body.parse::<f64>() {
            Ok(v) => format!("{kind}:{v:e}"),
            Err(_) => s,
        };
    }
    let body = s.trim_end_matches(['u', 'l']);
    let suffix = &s[body.len()..];
    let unsigned = if suffix.contains('u') { "u" } else { "" };
    let longs = suffix.matches('l').count();
    let value = if let Some(h) = body.strip_prefix("0x") {
        u128::from_str_radix(h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        u128::from_str_radix(b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        u128::from_str_radix(&body[1..], 8)
    } else {
        body.parse::<u128>()
    };
    match value {
        Ok(v) => format!("i{unsigned}{longs}:{v}"),
        Err(_) => s,
    }
}

/// Identifiers that keep their spelling: renaming them would change what the code means.
fn kept(ident: &str) -> bool {
    const KEPT: &[&str] = &[
        // C and C++ keywords the kernels use, and the preprocessor's words.
        "auto",
        "bool",
        "break",
        "case",
        "char",
        "const",
        "constexpr",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "false",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "nullptr",
        "operator",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "static_assert",
        "struct",
        "switch",
        "template",
        "true",
        "typedef",
        "typename",
        "union",
        "unsigned",
        "using",
        "void",
        "volatile",
        "while",
        "class",
        "namespace",
        "reinterpret_cast",
        "static_cast",
        "const_cast",
        "alignas",
        "alignof",
        "decltype",
        "noexcept",
        "include",
        "define",
        "undef",
        "ifdef",
        "ifndef",
        "elif",
        "endif",
        "error",
        "pragma",
        "defined",
        "unroll",
        "nounroll",
        "once",
        "GCC",
        "ivdep",
        // Fixed-width types of stdint.h, CUDA's vector and bf16/half types.
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "size_t",
        "uintptr_t",
        "intptr_t",
        "float2",
        "float4",
        "int2",
        "int4",
        "uint2",
        "uint4",
        "half",
        "half2",
        "nv_bfloat16",
        "nv_bfloat162",
        // CUDA's built-in variables.
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "warpSize",
        // The math library (single and double precision).
        "expf",
        "exp2f",
        "exp10f",
        "expm1f",
        "logf",
        "log2f",
        "log10f",
        "log1pf",
        "powf",
        "sqrtf",
        "rsqrtf",
        "cbrtf",
        "sinf",
        "cosf",
        "tanf",
        "tanhf",
        "sinhf",
        "coshf",
        "erff",
        "fabsf",
        "fmaxf",
        "fminf",
        "fmaf",
        "floorf",
        "ceilf",
        "roundf",
        "truncf",
        "rintf",
        "fmodf",
        "sincosf",
        "exp",
        "exp2",
        "log",
        "log2",
        "pow",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tan",
        "tanh",
        "erf",
        "fabs",
        "fmax",
        "fmin",
        "fma",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fmod",
        "min",
        "max",
        "abs",
    ];
    ident.starts_with("__") || KEPT.contains(&ident)
}

#[cfg(test)]
mod tests {
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
            .map(|(p, d)| BundleFile {
                path: p.to_string(),
                data: d.as_bytes().to_vec(),
            })
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
        assert_eq!(number("0x10"), number("16"));
        assert_eq!(number("020"), number("16"));
        assert_eq!(number("16u"), number("16U"));
        assert_ne!(number("16u"), number("16"));
        assert_ne!(number("1.0"), number("1.0f"));
        assert_ne!(number("1"), number("1.0"));
        assert_eq!(number("1e-3f"), number("0.001f"));
        assert_eq!(
            tokens("a=1e-3f-b;"),
            ["a", "=", "1e-3f", "-", "b", ";"]
                .iter()
                .map(|s| match *s {
                    "a" | "b" => Tok::Ident(s.to_string()),
                    "1e-3f" => Tok::Num(s.to_string()),
                    _ => Tok::Punct(s.to_string()),
                })
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_earliest_match_is_the_original() {
        let f = fp(&original());
        let other = [0u8; 32];
        let earlier = [
            Earlier {
                proposal: 9,
                fingerprint: f,
            },
            Earlier {
                proposal: 4,
                fingerprint: f,
            },
            Earlier {
                proposal: 2,
                fingerprint: other,
            },
        ];
        assert_eq!(copy_of(&f, &earlier), Some(4));
        assert_eq!(copy_of(&other, &earlier[..2]), None);
    }
}
