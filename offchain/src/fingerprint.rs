//! Normalized-copy detection (THREATS: "Copying a revealed bundle"): the fingerprint of a
//! bundle's behaviour-relevant content, blind to the edits a copier makes to dodge the
//! chain's exact ContentHash check.
//!
//! The fingerprint is a SHA-256 over, for each op in slot order: the slot, backend, dtype,
//! launch geometry and `when` domains (as parsed, so spacing and quoting in the manifest do
//! not count), the entry name, then the op's source as a token stream:
//! - comments, whitespace and line continuations are gone (a newline counts only where it
//!   ends a preprocessor directive); digraphs read as the punctuators they stand for;
//! - names the bundle itself declares (macros and their parameters, functions, types,
//!   variables, parameters, template parameters: an identifier in a declarator position)
//!   are renamed to `v0, v1, …` in order of first appearance; every other name keeps its
//!   spelling — keywords, the toolkit's and the C library's names (`expf`, `__expf`,
//!   `_mm256_loadu_ps`, `atomicAdd`, `INFINITY`), member names after `.` and `->`. So
//!   renaming a variable, function or macro does not change the fingerprint; calling a
//!   different library function does;
//! - numbers are compared by value and kind (`1.0f`, `1.f` and `1.0F` are one token, and
//!   so are two `f` literals that round to one `float`; `1.0` is another, `1` another);
//! - `#include "file"` of a bundle header is replaced by that header's tokens (once per
//!   bundle), so renaming or moving headers does not count either; the bundle's `name`
//!   and file names never count.
//!
//! What it does not catch, by design: reordered functions or statements, added dead code,
//! macros wrapping the same code, a header pasted in place of its `#include`. Those are not
//! mechanical renames, and a copy that survives them is still judged on speed against
//! whatever it copied once that is crowned. Two proposals with one fingerprint are the same
//! kernel: the later one FAILs `CopyOf(earlier)` when the earliest with that fingerprint is
//! another miner's (`screens::run_screens`, stage `copy`). "Earliest" is by commitment, as
//! the chain orders owners of one ContentHash: the lowest commit block, then the lowest id. A
//! copier cannot commit to bytes before it has seen them, so revealing first does not help it. [`VERSION`] names the algorithm:
//! validators cache fingerprints by it.

use std::collections::{HashMap, HashSet};

use cacheon_kernels::bundle::BundleFile;
use cacheon_kernels::cuda::screen::resolve_bundle_header;
use cacheon_kernels::source::{tokens, Token};
use cacheon_kernels::Manifest;

/// The normalization's version; a change to what counts bumps it (cached fingerprints of
/// another version are not compared).
pub const VERSION: u32 = 1;

/// SHA-256 of a bundle's normalized content.
pub type Fingerprint = [u8; 32];

/// A proposal with priority over the one being screened (an earlier commitment, or the same
/// commit block and a lower id), as the copy screen compares with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Earlier {
    pub proposal: u64,
    pub commit_block: u64,
    pub fingerprint: Fingerprint,
    /// Revealed by another account than the screened proposal's miner.
    pub other_miner: bool,
    /// Crowned at some point (the incumbent, or retired since): its code is a baseline
    /// others may build on ([`containment`]).
    pub crowned: bool,
    /// Its code as containment compares it.
    pub signature: containment::Signature,
}

/// The original of a copy: the earliest proposal (commit block, then id) with the same
/// fingerprint, when another miner revealed it. A miner's own earlier proposal is never a copy's
/// original (and, being earliest, shields a re-reveal from a copier's later one).
pub fn copy_of(fp: &Fingerprint, earlier: &[Earlier]) -> Option<u64> {
    earlier
        .iter()
        .filter(|e| &e.fingerprint == fp)
        .min_by_key(|e| (e.commit_block, e.proposal))
        .filter(|e| e.other_miner)
        .map(|e| e.proposal)
}

/// The fingerprint of a bundle's files, `None` when its manifest does not parse.
pub fn fingerprint_of(files: &[BundleFile]) -> Option<Fingerprint> {
    Manifest::from_bundle(files)
        .ok()
        .map(|m| fingerprint(files, &m))
}

/// The fingerprint of a bundle whose manifest parsed (`manifest` is `files`' own).
pub fn fingerprint(files: &[BundleFile], manifest: &Manifest) -> Fingerprint {
    let tokens = file_tokens(files);
    let mut n = Normalizer::new(files, &tokens, false);
    n.line(&format!(
        "target {} {:?} {:?}",
        manifest.target.id, manifest.mode, manifest.backend
    ));
    let mut ops: Vec<_> = manifest.ops.iter().collect();
    ops.sort_by_key(|op| op.slot.index());
    for op in ops {
        n.line(&format!(
            "op {} {:?} {:?} launch {:?} when {:?}",
            op.slot, op.backend, op.dtype, op.launch, op.when
        ));
        n.file(&op.source);
        let entry = n.name(&op.entry);
        n.line(&format!("entry {entry}"));
    }
    cacheon_primitives::bundle::content_hash(&n.out)
}

/// Every bundle file but the manifest as a token stream, by path.
fn file_tokens(files: &[BundleFile]) -> HashMap<&str, Vec<Token>> {
    files
        .iter()
        .filter(|f| f.path != "manifest.toml")
        .map(|f| (f.path.as_str(), tokens(&String::from_utf8_lossy(&f.data))))
        .collect()
}

/// Writes a bundle's normalized tokens, one a line.
struct Normalizer<'a> {
    files: &'a [BundleFile],
    tokens: &'a HashMap<&'a str, Vec<Token>>,
    /// Names the bundle declares (renamed).
    declared: HashSet<String>,
    /// Every declared name becomes one placeholder `v` instead of `v0, v1, …` (for
    /// containment, where code around a copied kernel shifts the numbering).
    collapse: bool,
    /// Renamed identifiers: original -> index of first appearance.
    names: HashMap<String, usize>,
    /// Files already emitted, in order.
    emitted: Vec<String>,
    out: Vec<u8>,
}

impl<'a> Normalizer<'a> {
    fn new(
        files: &'a [BundleFile],
        tokens: &'a HashMap<&'a str, Vec<Token>>,
        collapse: bool,
    ) -> Self {
        let mut declared = HashSet::new();
        for toks in tokens.values() {
            declared_names(toks, &mut declared);
        }
        Normalizer {
            files,
            tokens,
            declared,
            collapse,
            names: HashMap::new(),
            emitted: Vec::new(),
            out: Vec::new(),
        }
    }

    fn line(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(b'\n');
    }

    /// A name as it enters the fingerprint: renamed when the bundle declares it.
    fn name(&mut self, ident: &str) -> String {
        if !self.declared.contains(ident) {
            return ident.to_string();
        }
        if self.collapse {
            return "v".to_string();
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
        let Some(toks) = self.tokens.get(path) else {
            self.line("file-missing");
            return;
        };
        let mut i = 0;
        while i < toks.len() {
            if let Some(next) = self.include(path, toks, i) {
                i = next;
                continue;
            }
            let member = i > 0 && matches!(&toks[i - 1], Token::Punct(p) if p == "." || p == "->");
            let t = match &toks[i] {
                Token::Ident(s) if member => s.clone(),
                Token::Ident(s) => self.name(s),
                Token::Num(s) => number(s),
                Token::Str(s) | Token::Punct(s) => s.clone(),
                Token::EndDirective => "⏎".to_string(),
            };
            self.line(&t);
            i += 1;
        }
    }

    /// At an `#include` (token `i` is its `#`): emits the bundle header's tokens, or a
    /// system header's name as one token; returns the index after the directive's name.
    fn include(&mut self, path: &str, toks: &[Token], i: usize) -> Option<usize> {
        let (Token::Punct(hash), Some(Token::Ident(inc)), Some(arg)) =
            (&toks[i], toks.get(i + 1), toks.get(i + 2))
        else {
            return None;
        };
        if hash != "#" || inc != "include" {
            return None;
        }
        match arg {
            Token::Str(s) => {
                let header = resolve_bundle_header(path, s.trim_matches('"'), self.files)?;
                self.line("#include");
                self.file(&header);
                Some(i + 3)
            }
            Token::Punct(lt) if lt == "<" => {
                let mut name = String::new();
                let mut j = i + 3;
                while let Some(t) = toks.get(j) {
                    j += 1;
                    match t {
                        Token::Punct(gt) if gt == ">" => break,
                        Token::EndDirective => break,
                        Token::Ident(x) | Token::Num(x) | Token::Str(x) | Token::Punct(x) => {
                            name.push_str(x)
                        }
                    }
                }
                self.line(&format!("#include <{name}>"));
                Some(j)
            }
            _ => None,
        }
    }
}

/// Words that end a walk back through a declaration's specifiers: an identifier after
/// them is an operand or a label, not a declarator.
const NOT_SPECIFIERS: &[&str] = &[
    "return",
    "case",
    "goto",
    "sizeof",
    "else",
    "do",
    "throw",
    "new",
    "delete",
    "co_return",
    "if",
    "while",
    "for",
    "switch",
    "defined",
    "alignof",
    "decltype",
];

fn is_word(t: &Token) -> bool {
    matches!(t, Token::Ident(w) if !NOT_SPECIFIERS.contains(&w.as_str()))
}

fn punct(t: Option<&Token>, set: &[&str]) -> bool {
    matches!(t, Some(Token::Punct(p)) if set.contains(&p.as_str()))
}

/// Adds the names `toks` declares: `#define` names and their parameters, and every
/// identifier in a declarator position — after a run of specifiers (words, `*`, `&`, `::`,
/// `<…>` template arguments, `extern "C"`, `__attr__(…)` groups) that starts a statement,
/// a parameter or a template parameter, and before `= ; , ) [ ( : { < >`; and after a
/// top-level comma of a declaration statement (`int a, *b;`).
fn declared_names(toks: &[Token], out: &mut HashSet<String>) {
    const AFTER: &[&str] = &["=", ";", ",", ")", "[", "(", ":", "{", "<", ">"];
    const STARTS: &[&str] = &["(", ",", ";", "{", "}", "<", ":"];
    let mut decl_statement = false; // the current statement began with `word word`/`word *`
    let mut depth = 0usize; // parentheses inside the current statement
    for i in 0..toks.len() {
        // #define NAME / #define NAME(params)
        if let (Token::Punct(h), Some(Token::Ident(d)), Some(Token::Ident(name))) =
            (&toks[i], toks.get(i + 1), toks.get(i + 2))
        {
            if h == "#" && d == "define" {
                out.insert(name.clone());
                if punct(toks.get(i + 3), &["("]) {
                    for t in toks[i + 4..].iter().take_while(|t| !punct(Some(t), &[")"])) {
                        if let Token::Ident(p) = t {
                            out.insert(p.clone());
                        }
                    }
                }
            }
        }
        match &toks[i] {
            Token::Punct(p) if p == ";" || p == "{" || p == "}" => {
                decl_statement = toks.get(i + 1).is_some_and(is_word)
                    && (toks.get(i + 2).is_some_and(is_word)
                        || punct(toks.get(i + 2), &["*", "&"]));
                depth = 0;
                continue;
            }
            Token::Punct(p) if p == "(" => depth += 1,
            Token::Punct(p) if p == ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let Token::Ident(name) = &toks[i] else {
            continue;
        };
        // `__` names belong to the implementation (`__launch_bounds__(256)` is no function).
        if name.starts_with("__") || !punct(toks.get(i + 1), AFTER) {
            continue;
        }
        // `int a, *b`: a name after a top-level comma of a declaration statement.
        let mut j = i;
        while j > 0 && punct(toks.get(j - 1), &["*", "&", "&&"]) {
            j -= 1;
        }
        if j > 0 && punct(toks.get(j - 1), &[","]) && decl_statement && depth == 0 {
            out.insert(name.clone());
            continue;
        }
        // Otherwise walk back over the specifiers to what starts the declaration.
        let mut k = i;
        let mut words = 0;
        let starts = loop {
            if k == 0 {
                break true;
            }
            let prev = &toks[k - 1];
            if punct(Some(prev), &["*", "&", "&&", "::"]) || matches!(prev, Token::Str(_)) {
                k -= 1;
            } else if is_word(prev) {
                words += 1;
                k -= 1;
            } else if let Some(m) = group_start(toks, k - 1) {
                // `__attr__(…)` or `Name<…>`: part of the specifiers.
                words += 1;
                k = m;
            } else {
                break punct(Some(prev), STARTS) || matches!(prev, Token::EndDirective);
            }
        };
        if words > 0 && starts {
            out.insert(name.clone());
        }
    }
}

/// When token `close` ends an attribute group `__name(…)` or template arguments `Name<…>`,
/// the index of that `__name` or `Name`.
fn group_start(toks: &[Token], close: usize) -> Option<usize> {
    let (open_p, close_p) = match &toks[close] {
        Token::Punct(p) if p == ")" => ("(", ")"),
        Token::Punct(p) if p == ">" => ("<", ">"),
        _ => return None,
    };
    let mut level = 0usize;
    let mut m = close;
    loop {
        match &toks[m] {
            Token::Punct(p) if p == close_p => level += 1,
            Token::Punct(p) if p == open_p => level -= 1,
            Token::Punct(p) if p == ";" || p == "{" || p == "}" => return None,
            _ => {}
        }
        if level == 0 {
            break;
        }
        if m == 0 {
            return None;
        }
        m -= 1;
    }
    let name = m.checked_sub(1)?;
    match &toks[name] {
        Token::Ident(a) if open_p == "(" && a.starts_with("__") => Some(name),
        t if open_p == "<" && is_word(t) => Some(name),
        _ => None,
    }
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
        if let Some(body) = s.strip_suffix('f') {
            return match body.parse::<f32>() {
                Ok(v) => format!("f:{v:e}"),
                Err(_) => s,
            };
        }
        let body = s.strip_suffix('l').unwrap_or(&s);
        return match body.parse::<f64>() {
            Ok(v) => format!("d:{v:e}"),
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

pub mod containment;

#[cfg(test)]
mod tests;
