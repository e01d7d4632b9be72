//! The include screen for CUDA bundle sources (DESIGN 7 step 2, the include part of the
//! source policy). It runs before NVRTC sees a byte, needs no GPU and no CUDA library.
//!
//! Rules, checked on every `.cu`, `.cuh` and `.h` file of the bundle after comments are
//! removed and backslash-continued lines are joined:
//! - `#include <name>` only for the arena's system headers ([`SYSTEM_HEADERS`]);
//! - `#include "path"` only for a `.cuh`/`.h` file of the bundle, resolved against the
//!   including file's folder (then the bundle root), without `..`;
//! - no computed includes (`#include MACRO`), no `#include_next`, `#import` or `#embed`;
//! - no `%:` digraph or `??=` trigraph directives (which could hide an include);
//! - sources are UTF-8 without NUL bytes (NVRTC takes C strings).
//!
//! Includes inside an `#if 0` block (or an `#else` after `#if 1`) are not read: no macro
//! definition can compile them. Every other conditional block is read in all its
//! branches, as NVRTC has no preprocessed output that would tell which one it compiled.
//!
//! The validator gives NVRTC its own `stdint.h` (see [`STDINT_H`]), so that header means
//! the same thing on every validator; the CUDA headers come from NVRTC or the toolkit.

use crate::bundle::BundleFile;
use crate::source;
use crate::source::conditionals::Conditionals;

/// System headers a CUDA bundle may include with `<...>`.
pub const SYSTEM_HEADERS: [&str; 3] = ["cuda_bf16.h", "cuda_fp16.h", "stdint.h"];

/// Extensions of bundle files that may be included with `"..."`.
pub const HEADER_EXTENSIONS: [&str; 2] = [".cuh", ".h"];

/// The validator's `stdint.h` for NVRTC (which has none of its own): the same typedefs
/// libcu++ uses under NVRTC, so the two agree if both are seen.
pub const STDINT_H: &str = r#"#ifndef CACHEON_NVRTC_STDINT_H
#define CACHEON_NVRTC_STDINT_H
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef signed short int16_t;
typedef unsigned short uint16_t;
typedef signed int int32_t;
typedef unsigned int uint32_t;
typedef signed long long int64_t;
typedef unsigned long long uint64_t;
typedef int64_t intptr_t;
typedef uint64_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;
#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#endif
"#;

/// Why a bundle source was refused by the screen.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScreenError {
    #[error("{file}: not UTF-8 text")]
    NotUtf8 { file: String },
    #[error("{file}: contains a NUL byte")]
    Nul { file: String },
    #[error("{file}:{line}: `#include <{header}>` is not allowed (allowed: {})", SYSTEM_HEADERS.join(", "))]
    SystemHeader {
        file: String,
        line: usize,
        header: String,
    },
    #[error(
        "{file}:{line}: `#include \"{header}\"` does not name a .cuh or .h file of the bundle"
    )]
    BundleHeader {
        file: String,
        line: usize,
        header: String,
    },
    #[error("{file}:{line}: {reason}")]
    Directive {
        file: String,
        line: usize,
        reason: String,
    },
}

impl ScreenError {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            ScreenError::NotUtf8 { file }
            | ScreenError::Nul { file }
            | ScreenError::SystemHeader { file, .. }
            | ScreenError::BundleHeader { file, .. }
            | ScreenError::Directive { file, .. } => file,
        }
    }
}

/// One include directive that passed the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Include {
    /// `<name>`, one of [`SYSTEM_HEADERS`].
    System(String),
    /// `"spelling"` resolving to the bundle file `path`.
    Bundle { spelling: String, path: String },
}

/// Whether a bundle path is a CUDA source or header the screen looks at.
pub fn is_cuda_text(path: &str) -> bool {
    path.ends_with(".cu") || HEADER_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

fn is_header(path: &str) -> bool {
    HEADER_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

/// Screens every CUDA text file of a bundle; returns, per file, the includes it uses.
pub fn screen_bundle(files: &[BundleFile]) -> Result<Vec<(String, Vec<Include>)>, ScreenError> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| is_cuda_text(&f.path)) {
        let text = std::str::from_utf8(&f.data).map_err(|_| ScreenError::NotUtf8 {
            file: f.path.clone(),
        })?;
        out.push((f.path.clone(), screen_source(&f.path, text, files)?));
    }
    Ok(out)
}

/// Screens one source text. `path` is its bundle path (for resolving `"..."` includes and
/// for messages); `files` is the whole bundle.
pub fn screen_source(
    path: &str,
    text: &str,
    files: &[BundleFile],
) -> Result<Vec<Include>, ScreenError> {
    if text.contains('\0') {
        return Err(ScreenError::Nul {
            file: path.to_string(),
        });
    }
    if let Some((line, what)) = source::ambiguous_line_break(text) {
        return Err(ScreenError::Directive {
            file: path.to_string(),
            line,
            reason: format!("{what}: a compiler could read the lines otherwise"),
        });
    }
    if let Some((line, what)) = source::ambiguous_literal(text) {
        return Err(ScreenError::Directive {
            file: path.to_string(),
            line,
            reason: format!("{what}: C and C++ read the text around it differently"),
        });
    }
    let mut includes = Vec::new();
    // Only blocks no definition can compile (`#if 0`) are left out: NVRTC has no
    // preprocessed output to check a guess about which macros its headers define.
    let nothing_vouched = |_: &str| false;
    let mut conditionals = Conditionals::new(&nothing_vouched);
    for (line_no, line) in source::code_lines(text) {
        let directive = |reason: String| ScreenError::Directive {
            file: path.to_string(),
            line: line_no,
            reason,
        };
        let t = line.trim_start();
        if t.starts_with("%:") || t.starts_with("??=") {
            return Err(directive(
                "digraph and trigraph directives are not allowed".into(),
            ));
        }
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let name_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let (name, arg) = rest.split_at(name_len);
        if conditionals.directive(name, arg.trim()) || conditionals.surely_skipped() {
            continue;
        }
        match name {
            "include" => {}
            "include_next" | "import" | "embed" => {
                return Err(directive(format!("`#{name}` is not allowed")));
            }
            _ => continue,
        }
        let arg = arg.trim();
        let header_name = |open: char, close: char| -> Option<&str> {
            let inner = arg.strip_prefix(open)?;
            let end = inner.find(close)?;
            inner[end + 1..].trim().is_empty().then_some(&inner[..end])
        };
        if let Some(h) = header_name('<', '>') {
            if !SYSTEM_HEADERS.contains(&h) {
                return Err(ScreenError::SystemHeader {
                    file: path.to_string(),
                    line: line_no,
                    header: h.to_string(),
                });
            }
            includes.push(Include::System(h.to_string()));
        } else if let Some(h) = header_name('"', '"') {
            let resolved =
                resolve_bundle_header(path, h, files).ok_or_else(|| ScreenError::BundleHeader {
                    file: path.to_string(),
                    line: line_no,
                    header: h.to_string(),
                })?;
            includes.push(Include::Bundle {
                spelling: h.to_string(),
                path: resolved,
            });
        } else {
            return Err(directive(format!(
                "`#include {arg}`: only `<header>` and `\"file\"` forms are allowed"
            )));
        }
    }
    Ok(includes)
}

/// Resolves `"spelling"` from the file at `from`: against `from`'s folder first, then the
/// bundle root. Only existing `.cuh`/`.h` bundle files, never through `..` or `.`.
pub fn resolve_bundle_header(from: &str, spelling: &str, files: &[BundleFile]) -> Option<String> {
    if spelling.is_empty()
        || spelling.starts_with('/')
        || spelling.contains('\\')
        || spelling
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
        || !is_header(spelling)
    {
        return None;
    }
    let dir = from.rsplit_once('/').map(|(d, _)| d);
    dir.map(|d| format!("{d}/{spelling}"))
        .into_iter()
        .chain(std::iter::once(spelling.to_string()))
        .find(|c| files.iter().any(|f| &f.path == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(extra: &[(&str, &str)]) -> Vec<BundleFile> {
        extra
            .iter()
            .map(|(p, d)| BundleFile::new(*p, d.as_bytes()))
            .collect()
    }

    fn screen(text: &str) -> Result<Vec<Include>, ScreenError> {
        let files = bundle(&[
            ("kernels/k.cu", text),
            ("kernels/util.cuh", "#pragma once\n"),
            ("common.h", "\n"),
            ("kernels/other.cu", "\n"),
        ]);
        screen_source("kernels/k.cu", text, &files)
    }

    #[test]
    fn allows_the_system_headers_and_bundle_headers() {
        let inc = screen(
            "#include <cuda_bf16.h>\n  #  include <stdint.h>\n#include \"util.cuh\"\n\
             #include \"common.h\"\n#include \"kernels/util.cuh\" // trailing\n",
        )
        .unwrap();
        assert_eq!(
            inc,
            vec![
                Include::System("cuda_bf16.h".into()),
                Include::System("stdint.h".into()),
                Include::Bundle {
                    spelling: "util.cuh".into(),
                    path: "kernels/util.cuh".into()
                },
                Include::Bundle {
                    spelling: "common.h".into(),
                    path: "common.h".into()
                },
                Include::Bundle {
                    spelling: "kernels/util.cuh".into(),
                    path: "kernels/util.cuh".into()
                },
            ]
        );
    }

    #[test]
    fn refuses_other_system_headers() {
        for h in [
            "cuda_runtime.h",
            "stdio.h",
            "cooperative_groups.h",
            "cuda/std/cstdint",
        ] {
            let e = screen(&format!("\n#include <{h}>\n")).unwrap_err();
            assert_eq!(
                e,
                ScreenError::SystemHeader {
                    file: "kernels/k.cu".into(),
                    line: 2,
                    header: h.into()
                }
            );
        }
    }

    #[test]
    fn refuses_quoted_includes_outside_the_bundle_headers() {
        for h in [
            "missing.cuh",
            "../kernels/util.cuh",
            "./util.cuh",
            "/etc/passwd",
            "other.cu",
            "stdint.h",
            "cuda_bf16.h",
        ] {
            let e = screen(&format!("#include \"{h}\"\n")).unwrap_err();
            assert!(matches!(e, ScreenError::BundleHeader { .. }), "{h}: {e:?}");
        }
    }

    #[test]
    fn refuses_computed_includes_and_other_include_directives() {
        let cases = [
            "#define H <stdio.h>\n#include H\n",
            "#include_next <stdint.h>\n",
            "#import <stdint.h>\n",
            "#embed \"util.cuh\"\n",
            "%:include <stdio.h>\n",
            "??=include <stdio.h>\n",
            "#include <stdint.h> extra\n",
            "#include <stdint.h\n",
        ];
        for c in cases {
            assert!(
                matches!(screen(c), Err(ScreenError::Directive { .. })),
                "{c:?} -> {:?}",
                screen(c)
            );
        }
    }

    #[test]
    fn sees_through_comments_and_line_continuations() {
        // An include hidden behind a block comment or split with a backslash is found.
        let e = screen("/* x */ #include <stdio.h>\n").unwrap_err();
        assert!(
            matches!(e, ScreenError::SystemHeader { line: 1, .. }),
            "{e:?}"
        );
        let e = screen("#inc\\\nlude <stdio.h>\n").unwrap_err();
        assert!(
            matches!(e, ScreenError::SystemHeader { line: 1, .. }),
            "{e:?}"
        );
        let e = screen("/* a\n b */\n#include <stdio.h>\n").unwrap_err();
        assert!(
            matches!(e, ScreenError::SystemHeader { line: 3, .. }),
            "{e:?}"
        );
        // Commented-out includes and includes inside strings are not directives.
        assert!(screen("// #include <stdio.h>\n/* #include <stdio.h> */\n").is_ok());
        assert!(screen("const char* s = \"#include <stdio.h>\";\n").is_ok());
        assert!(screen("const char* s = \"// not a comment\"; int x;\n").is_ok());
        // A line comment continued by a backslash swallows the next line.
        assert!(screen("// note \\\n#include <stdio.h>\n").is_ok());
        // A block comment closed across a continued line (`*\` then `/`) hides nothing:
        // the compiler joins the lines first, and so does the screen.
        let e = screen("/* a *\\\n/ #include <stdio.h>\n").unwrap_err();
        assert!(
            matches!(e, ScreenError::SystemHeader { line: 1, .. }),
            "{e:?}"
        );
        // A raw string or a digit separator that would make the screen read a comment the
        // compiler does not (the include below is real for NVRTC) is refused.
        for text in [
            "const char* s = R\"x(\" /* \")x\";\n#include <stdio.h>\n// */\n",
            "int a = 1'0'/*';\n#include <stdio.h>\n// */\n",
        ] {
            let e = screen(text).unwrap_err();
            assert!(matches!(e, ScreenError::Directive { line: 1, .. }), "{e:?}");
        }
    }

    #[test]
    fn includes_in_blocks_no_definition_compiles_are_not_read() {
        assert!(screen("#if 0\n#include <stdio.h>\n#endif\n").is_ok());
        assert!(screen("#if 1\n#else\n#include <stdio.h>\n#endif\n").is_ok());
        // A macro test may be true on NVRTC's side (its headers define names): both read.
        for text in [
            "#ifdef CACHEON_DEBUG\n#include <stdio.h>\n#endif\n",
            "#if 0\n#else\n#include <stdio.h>\n#endif\n",
            "#if 0\n#elif X\n#include <stdio.h>\n#endif\n",
        ] {
            assert!(
                matches!(screen(text), Err(ScreenError::SystemHeader { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_nul_and_non_utf8() {
        assert!(matches!(screen("int x;\0"), Err(ScreenError::Nul { .. })));
        let files = vec![BundleFile::new("k.cu", vec![0xff, 0xfe])];
        assert!(matches!(
            screen_bundle(&files),
            Err(ScreenError::NotUtf8 { .. })
        ));
    }

    #[test]
    fn screens_every_cuda_text_file_of_a_bundle() {
        let files = bundle(&[
            ("manifest.toml", "#include <stdio.h>\n"),
            ("README.md", "#include <stdio.h>\n"),
            ("kernels/a.cu", "#include \"util.cuh\"\n"),
            ("kernels/util.cuh", "#include <stdio.h>\n"),
        ]);
        let e = screen_bundle(&files).unwrap_err();
        assert_eq!(e.file(), "kernels/util.cuh");
    }

    #[test]
    fn a_line_break_nvrtc_could_read_otherwise_is_refused() {
        let e = screen("__global__ void k() {}\n// x\r#include <cstdio>\n").unwrap_err();
        assert!(
            matches!(&e, ScreenError::Directive { line: 2, reason, .. } if reason.contains("carriage return")),
            "{e}"
        );
        assert!(screen("__global__ void k() {}\r\n").is_ok());
    }
}
