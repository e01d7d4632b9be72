//! The source policy (DESIGN 7 step 2): what a bundle's C or CUDA source may not contain.
//!
//! The screen reads each source file as the compiler would see its tokens: line
//! continuations joined, comments removed, string and character literals skipped, blocks
//! of conditionals that are surely not compiled left out. It then refuses, naming the
//! file, the line and the rule:
//! - (C) inline assembly (`asm`, `__asm__`), which could read clocks or make system calls
//!   (CUDA's inline PTX is left to the PTX screen, which reads what it became);
//! - timer and clock reads (`clock`, `clock64`, `__globaltimer`, `rdtsc`, `clock_gettime`,
//!   …): a kernel must not be able to tell a timed run from an audited one;
//! - output, I/O, system calls, processes, signals, dynamic loading and environment access
//!   (`printf`, `fopen`, `syscall`, `fork`, `dlopen`, `getenv`, …);
//! - dynamic allocation (`malloc`, `new`, `delete`, `cudaMalloc`, `alloca`, …) and
//!   device-side launches (`<<<`, `cudaLaunchKernel`);
//! - code that runs at load time (`constructor`/`destructor` attributes, `_init`/`_fini`);
//! - ways to hide a name from this screen: token pasting (`##`), `_Pragma`, universal
//!   character names outside literals, digraph and trigraph directives;
//! - preprocessor directives other than the plain ones, pragmas other than loop hints, and
//!   (C) includes outside the arena's allow-list or the bundle's own headers;
//! - linkage tricks that reach a name without spelling it in a call (`alias`, `weakref`,
//!   `section`, `symver`, `target_clones`, whose resolver runs at load time);
//! - the build's date and time (`__DATE__`, `__TIME__`, `__TIMESTAMP__`): every lane builds
//!   the bundle again, so a build that depends on when it runs could fail in one lane only
//!   (and a crowned bundle could start failing on a later day).
//!
//! A name is refused where it means what its rule is about (`policy/meaning.rs`,
//! `policy/names.rs`): a function's name where it is called, declared or its address
//! taken, not a variable, parameter, field or member of the same name (a RoPE position
//! named `time`, a count named `free`); an attribute word (`section`, `weak`, `alias`)
//! inside an attribute only; C++ `delete` where it frees memory, not `= delete`.
//!
//! CUDA includes are checked by the build path's include screen as well
//! (`cacheon_kernels::cuda::screen`); it runs here first so that a bad include is a policy
//! failure before anything is compiled.
//!
//! For C the same screen runs a second time, in the lane, over the compiler's own
//! preprocessor output with the arena's flags ([`screen_preprocessed`]): macros expanded,
//! conditionals decided, includes resolved as the compiler resolves them, so a spelling the
//! first pass misreads (a pasted or spliced name, a quoted include that the compiler finds
//! among the system headers, a block the first pass took for never compiled) is read as it
//! is compiled. The first pass leaves out a C block only where its condition is `0`, or
//! tests a macro no source of the bundle defines and the compiler does not predefine; an
//! include inside any conditional block is checked there for its form only. CUDA has no
//! second pass: its first pass leaves out `#if 0` blocks only, and reads every branch of
//! any other. The built library is screened after both (`cacheon_kernels::cpu::artifact`),
//! its instructions included: a function-level `target` attribute is not refused here, its
//! machine code is, where it leaves the arena's hardware class (`cpu::artifact::isa`).
//!
//! Every rule maps to the on-chain reason `Policy`: a name is not a proof. `Cheating`,
//! which slashes, is for what the referee saw a kernel do (a stale output, a write past its
//! buffers, a changed input, a read faster than memory allows).

use std::collections::HashSet;

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::screen as cuda_screen;
use cacheon_kernels::source::conditionals::Conditionals;
use cacheon_kernels::source::{self, Token};
use cacheon_primitives::FailReason;
use meaning::Reading;
use names::forbidden;

/// Which compiler a source is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    C,
    Cuda,
}

/// The rule a source broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    InlineAssembly,
    TimerRead,
    InputOutput,
    SystemAccess,
    Allocation,
    DeviceLaunch,
    LoadTimeCode,
    HiddenName,
    Directive,
    Pragma,
    Include,
    Encoding,
    LineBreak,
    Linkage,
    BuildTime,
}

impl Rule {
    /// The on-chain FAIL reason for a violation of this rule: `Policy`, for every rule
    /// (a name or a construct the screen refuses is not a proof of cheating).
    pub fn fail_reason(self) -> FailReason {
        FailReason::Policy
    }

    fn describe(self) -> &'static str {
        match self {
            Rule::InlineAssembly => "inline assembly is not allowed",
            Rule::TimerRead => "timer and clock reads are not allowed",
            Rule::InputOutput => "output and file I/O are not allowed",
            Rule::SystemAccess => {
                "system calls, processes, signals, dynamic loading and the environment are not allowed"
            }
            Rule::Allocation => "dynamic allocation is not allowed (the engine owns all memory)",
            Rule::DeviceLaunch => "device-side launches are not allowed (the engine owns every launch)",
            Rule::LoadTimeCode => "code that runs when the library is loaded is not allowed",
            Rule::HiddenName => "token pasting, _Pragma, raw string literals and escaped identifiers are not allowed",
            Rule::Directive => "only #include, #define, #undef, #if/#ifdef/#ifndef/#elif/#else/#endif, #error and #pragma loop hints are allowed",
            Rule::Pragma => "only loop-hint pragmas (unroll, nounroll, GCC unroll, GCC ivdep, once) are allowed",
            Rule::Include => "include outside the arena's allow-list or the bundle's headers",
            Rule::Encoding => "sources must be UTF-8 text",
            Rule::LineBreak => {
                "lines end with a line feed (CR LF allowed); a lone carriage return or spaces after a line-continuing backslash read differently to a compiler"
            }
            Rule::Linkage => "linkage attributes (alias, weakref, weak, section, symver, target_clones, naked) are not allowed",
            Rule::BuildTime => {
                "the build's date and time (__DATE__, __TIME__, __TIMESTAMP__) are not allowed: a bundle builds the same in every lane, on every day"
            }
        }
    }
}

/// One refusal: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{file}:{line}: `{token}`: {}", rule.describe())]
pub struct Violation {
    pub file: String,
    pub line: usize,
    pub rule: Rule,
    pub token: String,
}

/// Headers a CPU bundle may include with `<...>` (DESIGN 6).
pub const C_SYSTEM_HEADERS: [&str; 5] =
    ["stdint.h", "stddef.h", "math.h", "string.h", "immintrin.h"];

/// The language of a bundle file by extension, or `None` for files that are not source
/// (README, manifest).
pub fn language_of(path: &str) -> Option<Language> {
    if path.ends_with(".c") || path.ends_with(".h") {
        Some(Language::C)
    } else if path.ends_with(".cu") || path.ends_with(".cuh") {
        Some(Language::Cuda)
    } else {
        None
    }
}

/// Screens every source file of a bundle for `backend`'s language. `.h` headers count
/// as the bundle's language.
pub fn screen_bundle(files: &[BundleFile], lang: Language) -> Result<(), Violation> {
    for f in files {
        let Some(file_lang) = language_of(&f.path) else {
            continue;
        };
        let lang = if f.path.ends_with(".h") {
            lang
        } else {
            file_lang
        };
        let text = std::str::from_utf8(&f.data).map_err(|_| Violation {
            file: f.path.clone(),
            line: 1,
            rule: Rule::Encoding,
            token: "non-UTF-8 bytes".into(),
        })?;
        screen_source(&f.path, text, lang, files)?;
    }
    if lang == Language::Cuda {
        cuda_screen::screen_bundle(files).map_err(|e| Violation {
            file: e.file().to_string(),
            line: 0,
            rule: Rule::Include,
            token: e.to_string(),
        })?;
    }
    Ok(())
}

/// Screens one source file. `files` is the whole bundle (for quoted includes and for
/// the macros the bundle defines).
pub fn screen_source(
    path: &str,
    text: &str,
    lang: Language,
    files: &[BundleFile],
) -> Result<(), Violation> {
    let defined = macros_defined(text, files);
    let never_defined = |name: &str| never_defined(lang, name, &defined);
    let lines = code_lines_of(path, text, lang, files, &never_defined)?;
    screen_lines(&lines, lang)
}

/// One logical line of code to screen, with where it comes from.
struct CodeLine {
    file: String,
    line: usize,
    code: String,
}

/// Whether the first pass may take a macro as never defined (C only: the lane's second
/// pass reads the preprocessor's own decisions, so a wrong guess here costs nothing).
/// Names with a leading underscore are the compiler's (`__AVX512F__`), and GNU C defines
/// `linux` and `unix`; the arena's headers define other names (`M_PI`, `NULL`), which the
/// second pass then judges. CUDA has no second pass: only `#if 0` and `#if 1` are decided.
fn never_defined(lang: Language, name: &str, defined: &HashSet<String>) -> bool {
    lang == Language::C
        && !name.starts_with('_')
        && !["linux", "unix", "i386"].contains(&name)
        && !defined.contains(name)
}

/// Every macro name a `#define` of the bundle's sources (or of `text`) names.
fn macros_defined(text: &str, files: &[BundleFile]) -> HashSet<String> {
    let texts = files
        .iter()
        .filter(|f| language_of(&f.path).is_some())
        .filter_map(|f| std::str::from_utf8(&f.data).ok())
        .chain(std::iter::once(text));
    let mut names = HashSet::new();
    for text in texts {
        for (_, code) in source::code_lines(text) {
            let toks = source::tokens(&code);
            if let [Token::Punct(hash), Token::Ident(define), Token::Ident(name), ..] =
                toks.as_slice()
            {
                if hash == "#" && define == "define" {
                    names.insert(name.clone());
                }
            }
        }
    }
    names
}

/// The lines of one source that are code, after the line-level rules (line breaks,
/// ambiguous literals, digraph directives, the directive, pragma and include rules).
/// Lines inside a conditional block that is surely not compiled are not code; an include
/// in any conditional block is checked for its form only (C: the second pass decides).
fn code_lines_of(
    path: &str,
    text: &str,
    lang: Language,
    files: &[BundleFile],
    never_defined: &dyn Fn(&str) -> bool,
) -> Result<Vec<CodeLine>, Violation> {
    let fail = |line: usize, rule: Rule, token: &str| Violation {
        file: path.to_string(),
        line,
        rule,
        token: token.to_string(),
    };
    if let Some((line, what)) = source::ambiguous_line_break(text) {
        return Err(fail(line, Rule::LineBreak, what));
    }
    // Raw strings and digit separators: lexed otherwise by C and C++ (`source.rs`).
    if let Some((line, what)) = source::ambiguous_literal(text) {
        return Err(fail(line, Rule::HiddenName, what));
    }
    let mut conditionals = Conditionals::new(never_defined);
    let mut lines = Vec::new();
    for (line_no, code) in source::code_lines(text) {
        let trimmed = code.trim_start();
        if trimmed.starts_with("%:") || trimmed.starts_with("??=") || code.contains("%:%:") {
            return Err(fail(line_no, Rule::HiddenName, "digraph or trigraph"));
        }
        if let Some(directive) = trimmed.strip_prefix('#') {
            let directive = directive.trim_start();
            let word: String = directive
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let rest = directive[word.len()..].trim();
            if conditionals.directive(&word, rest) {
                continue;
            }
            let include = word == "include" && lang == Language::C;
            if include && conditionals.inside() {
                check_include_form(path, line_no, rest)?;
            } else if !conditionals.surely_skipped() {
                check_directive(path, line_no, directive, lang, files)?;
            }
            // The macro body of a #define is code like any other: fall through.
        }
        if !conditionals.surely_skipped() {
            lines.push(CodeLine {
                file: path.to_string(),
                line: line_no,
                code,
            });
        }
    }
    Ok(lines)
}

/// The token rules over a unit's code lines: no token pasting, device-side launch or
/// universal character name, and no forbidden name where it means what its rule is about
/// (`policy/meaning.rs`). String and character literals are single tokens, so nothing
/// inside them counts.
fn screen_lines(lines: &[CodeLine], lang: Language) -> Result<(), Violation> {
    let mut toks = Vec::new();
    let mut origin = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        for tok in source::tokens(&line.code) {
            toks.push(tok);
            origin.push(index);
        }
    }
    let fail = |i: usize, rule: Rule, token: &str| {
        let line = &lines[origin[i]];
        Violation {
            file: line.file.clone(),
            line: line.line,
            rule,
            token: token.to_string(),
        }
    };
    let reading = Reading::new(&toks, lang);
    for (i, tok) in toks.iter().enumerate() {
        let next = toks.get(i + 1);
        match tok {
            Token::Punct(p) if p == "##" => return Err(fail(i, Rule::HiddenName, "##")),
            Token::Punct(p)
                if lang == Language::Cuda
                    && p == "<<"
                    && matches!(next, Some(Token::Punct(q)) if q.starts_with('<')) =>
            {
                return Err(fail(i, Rule::DeviceLaunch, "<<<"));
            }
            // After joining lines, a backslash outside literals only starts a universal
            // character name (`\u0063lock` is `clock`).
            Token::Punct(p) if p == "\\" => {
                return Err(fail(i, Rule::HiddenName, "universal character name"));
            }
            Token::Ident(w) => {
                if let Some((rule, meaning)) = forbidden(lang, w) {
                    if reading.breaks(i, meaning) {
                        return Err(fail(i, rule, w));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// An include inside a conditional block: its form only (`<name.h>` or a relative
/// `"path.h"`); whether it is allowed is decided on the preprocessor's output, where it is
/// known whether the block is compiled and which file the compiler found.
fn check_include_form(path: &str, line: usize, rest: &str) -> Result<(), Violation> {
    let inner = rest
        .strip_prefix('<')
        .and_then(|r| r.strip_suffix('>'))
        .or_else(|| rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')));
    let ok = inner.is_some_and(|h| {
        let h = h.trim();
        h.ends_with(".h")
            && !h.starts_with('/')
            && !h.split('/').any(|part| part == ".." || part.is_empty())
    });
    if ok {
        Ok(())
    } else {
        Err(Violation {
            file: path.to_string(),
            line,
            rule: Rule::Include,
            token: format!("#include {rest}"),
        })
    }
}

/// Screens one C source as the compiler's preprocessor gave it: every line that comes
/// from the bundle's own files (by the line markers) goes through the same rules as the
/// source, and every file entered from a bundle file must be one of the bundle's headers
/// or an allowed system header, as the compiler resolved it.
pub fn screen_preprocessed(
    pre: &cacheon_kernels::cpu::build::Preprocessed,
    files: &[BundleFile],
) -> Result<(), Violation> {
    let root = pre.root.to_string_lossy().into_owned();
    let in_bundle =
        |file: &str| (!file.starts_with('/') && !file.starts_with('<')) || file.starts_with(&root);
    let relative = |file: &str| -> String {
        file.strip_prefix(&root)
            .map(|f| f.trim_start_matches('/').to_string())
            .unwrap_or_else(|| file.to_string())
    };
    // The stack of files being read (line markers with flag 1 enter, flag 2 return).
    let mut stack: Vec<String> = Vec::new();
    let mut current = pre.source.clone();
    let mut line_no = 0usize;
    // The bundle's lines of the translation unit, screened together (a call may span lines).
    let mut lines = Vec::new();
    let defined = HashSet::new();
    let never_defined = |name: &str| never_defined(Language::C, name, &defined);
    for raw in pre.text.lines() {
        if let Some((line, file, flags)) = line_marker(raw) {
            if flags.contains(&1) {
                if in_bundle(&current) && !in_bundle(&file) {
                    let name = file.rsplit('/').next().unwrap_or(&file);
                    let system = flags.contains(&3);
                    if !(system && C_SYSTEM_HEADERS.contains(&name)) {
                        return Err(Violation {
                            file: relative(&current),
                            line: line_no,
                            rule: Rule::Include,
                            token: format!("#include resolved to {file}"),
                        });
                    }
                }
                stack.push(std::mem::replace(&mut current, file));
            } else if flags.contains(&2) {
                current = stack.pop().unwrap_or(file);
            } else {
                current = file;
            }
            line_no = line;
            continue;
        }
        if in_bundle(&current) && !current.starts_with('<') {
            let file = relative(&current);
            let found = code_lines_of(&file, raw, Language::C, files, &never_defined);
            let found = found.map_err(|mut v| {
                v.line = line_no;
                v
            })?;
            lines.extend(found.into_iter().map(|l| CodeLine { line: line_no, ..l }));
        }
        line_no += 1;
    }
    screen_lines(&lines, Language::C)
}

/// A preprocessor line marker `# LINE "FILE" FLAGS…`.
fn line_marker(raw: &str) -> Option<(usize, String, Vec<u8>)> {
    let rest = raw.strip_prefix("# ")?;
    let (line, rest) = rest.split_once(' ')?;
    let line: usize = line.parse().ok()?;
    let rest = rest.strip_prefix('"')?;
    let end = rest.rfind('"')?;
    // The preprocessor escapes a backslash in a file name as two.
    let file = rest[..end].replace("\\\\", "\\");
    let flags = rest[end + 1..]
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    Some((line, file, flags))
}

fn check_directive(
    path: &str,
    line: usize,
    directive: &str,
    lang: Language,
    files: &[BundleFile],
) -> Result<(), Violation> {
    let fail = |rule: Rule, token: &str| Violation {
        file: path.to_string(),
        line,
        rule,
        token: token.to_string(),
    };
    let name: String = directive
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let rest = directive[name.len()..].trim();
    match name.as_str() {
        "" | "define" | "undef" | "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif"
        | "error" => Ok(()),
        "pragma" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let ok = matches!(
                words.as_slice(),
                ["unroll", ..] | ["nounroll"] | ["once"] | ["GCC", "unroll", ..] | ["GCC", "ivdep"]
            );
            if ok {
                Ok(())
            } else {
                Err(fail(Rule::Pragma, &format!("#pragma {rest}")))
            }
        }
        "include" if lang == Language::C => {
            if let Some(h) = rest.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
                if C_SYSTEM_HEADERS.contains(&h.trim()) {
                    return Ok(());
                }
            } else if let Some(h) = rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                if h.ends_with(".h") && cuda_screen::resolve_bundle_header(path, h, files).is_some()
                {
                    return Ok(());
                }
            }
            Err(fail(Rule::Include, &format!("#include {rest}")))
        }
        // CUDA includes are checked file by file by the include screen.
        "include" => Ok(()),
        other => Err(fail(Rule::Directive, &format!("#{other}"))),
    }
}

mod meaning;
mod names;
#[cfg(test)]
mod tests;
