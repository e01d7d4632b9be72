//! What an occurrence of a name means in its tokens: a function (called, declared, its
//! address taken), a variable, parameter or field, a member, or a word inside an
//! attribute. The source screen refuses a forbidden name only where it means what its
//! rule is about ([`super::names::Meaning`]).
//!
//! This reading is a first pass, not the boundary. Where it takes a function for a variable
//! (a function declared through a typedef of function type, `fn_t clock;`, reads like a
//! variable), what it lets through still has to pass the C preprocessor's output through
//! this screen ([`super::screen_preprocessed`]), the built library's imports (only the math
//! library and the memory functions: `cpu::artifact`) and instructions (no time-stamp
//! counter reads, no system calls: `cpu::artifact::isa`), and the sealed lane; CUDA, the PTX
//! screen.

use std::collections::HashSet;

use cacheon_kernels::source::Token;

use super::names::Meaning;
use super::Language;

/// Words after which a name is not a declarator (`return time;` uses `time`).
const NOT_A_TYPE: &[&str] = &[
    "return",
    "case",
    "goto",
    "sizeof",
    "else",
    "do",
    "throw",
    "defined",
    "typeof",
    "__typeof__",
    "__typeof",
    "alignof",
    "_Alignof",
    "__alignof__",
    "if",
    "while",
    "for",
    "switch",
    "delete",
    "new",
    "co_return",
    "co_yield",
    "decltype",
];

/// Qualifiers between a declaration's type and its name.
const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "_Atomic",
];

/// Keywords that make the next name a tag (`struct clock`), never a function.
const TAG_KEYWORDS: &[&str] = &["struct", "union", "enum", "class", "typename"];

/// Attribute introducers whose parenthesized group is attribute context.
const ATTRIBUTE_INTRODUCERS: &[&str] = &["__attribute__", "__attribute", "__declspec"];

fn punct(tok: Option<&Token>, p: &str) -> bool {
    matches!(tok, Some(Token::Punct(q)) if q == p)
}

fn ident(tok: Option<&Token>) -> Option<&str> {
    match tok {
        Some(Token::Ident(w)) => Some(w),
        _ => None,
    }
}

/// The tokens of one screened unit (a source file, or the bundle's lines of a
/// preprocessed translation unit), with what the screen needs to know about them.
pub(super) struct Reading<'a> {
    toks: &'a [Token],
    lang: Language,
    /// Names the unit declares as variables, parameters, fields or macro parameters.
    objects: HashSet<&'a str>,
    /// Per token: inside an attribute.
    in_attribute: Vec<bool>,
}

impl<'a> Reading<'a> {
    pub(super) fn new(toks: &'a [Token], lang: Language) -> Self {
        let mut r = Reading {
            toks,
            lang,
            objects: HashSet::new(),
            in_attribute: attribute_context(toks),
        };
        for (i, tok) in toks.iter().enumerate() {
            if let Token::Ident(w) = tok {
                if r.is_declarator(i) || r.is_macro_parameter(i) {
                    r.objects.insert(w.as_str());
                }
            }
        }
        r
    }

    /// Whether the occurrence of a forbidden name at `i` means what its rule is about.
    pub(super) fn breaks(&self, i: usize, meaning: Meaning) -> bool {
        match meaning {
            Meaning::Anywhere => true,
            Meaning::Attribute => self.in_attribute[i],
            Meaning::Delete => !(i > 0 && punct(self.toks.get(i - 1), "=")),
            Meaning::Function => self.names_function(i),
        }
    }

    fn names_function(&self, i: usize) -> bool {
        let prev = i.checked_sub(1).and_then(|p| self.toks.get(p));
        let next = self.toks.get(i + 1);
        if punct(prev, ".") || punct(prev, "->") {
            return false; // a member: the object's, not the library's
        }
        if self.lang == Language::Cuda && (punct(prev, "::") || punct(next, "::")) {
            return true; // a qualified name: `std::chrono`, `::clock`
        }
        if punct(next, "(") {
            return true; // a call, a function declaration or definition
        }
        if self.names_a_macro(i) {
            return false;
        }
        if ident(prev).is_some_and(|w| TAG_KEYWORDS.contains(&w)) {
            return false; // a tag: `struct clock`
        }
        if self.is_declarator(i) {
            return false;
        }
        // A value: the unit's own variable, or a function's address.
        let Some(Token::Ident(w)) = self.toks.get(i) else {
            return false;
        };
        !self.objects.contains(w.as_str())
    }

    /// `#define NAME`, `#undef NAME`, `#ifdef NAME`, `#ifndef NAME`, `defined NAME`: the
    /// name of a macro, not of a function (a call of it is judged where it is made).
    fn names_a_macro(&self, i: usize) -> bool {
        let prev = i.checked_sub(1).and_then(|p| self.toks.get(p));
        let directive = ident(prev).is_some_and(|w| {
            matches!(w, "define" | "undef" | "ifdef" | "ifndef")
                && i >= 2
                && punct(self.toks.get(i - 2), "#")
        });
        let defined = ident(prev) == Some("defined")
            || (punct(prev, "(") && i >= 2 && ident(self.toks.get(i - 2)) == Some("defined"));
        directive || defined
    }

    /// Whether the name at `i` is declared here as a variable, parameter or field: a
    /// type (a name, `*`, `&`, qualifiers) before it, and after it what ends a declarator
    /// (`=`, `;`, `,`, `[`, `)`, `:`, `{`). A function-pointer declarator `T (*name)(…)`
    /// declares an object too; a call through a dereference, `(*name)(…)` after an
    /// operator, does not.
    fn is_declarator(&self, i: usize) -> bool {
        let next = self.toks.get(i + 1);
        let ends = ["=", ";", ",", "[", ")", ":", "{"];
        if !ends.iter().any(|p| punct(next, p)) {
            return false;
        }
        let mut j = i;
        let mut pointer = false;
        let mut opened = false;
        while j > 0 {
            match &self.toks[j - 1] {
                Token::Punct(p) if p == "*" || p == "&" || p == "&&" => pointer = true,
                Token::Ident(w) if QUALIFIERS.contains(&w.as_str()) => {}
                Token::Punct(p) if p == "(" && pointer && !opened => {
                    // `(*name)` declares a pointer only as `T (*name)(…)` or `T (*name)[…]`.
                    let after = self.toks.get(i + 2);
                    if !(punct(next, ")") && (punct(after, "(") || punct(after, "["))) {
                        return false;
                    }
                    opened = true;
                }
                _ => break,
            }
            j -= 1;
        }
        match j.checked_sub(1).and_then(|p| self.toks.get(p)) {
            Some(Token::Ident(w)) => !NOT_A_TYPE.contains(&w.as_str()),
            // A template type: `Vec<float> time`.
            Some(Token::Punct(p)) if p == ">" => self.lang == Language::Cuda,
            // A later declarator of one declaration: `int64_t read = 0, write = 1;`.
            Some(Token::Punct(p)) if p == "," => self.declaration_before(j - 1),
            _ => false,
        }
    }

    /// Whether the comma at `comma` separates the declarators of a declaration: the
    /// statement it is in (from the last `;`, block brace or `for (`) starts with a type
    /// and a name (`int64_t read`, `static float`, `float *p`), not an expression
    /// (`x = a, time`) or a call's arguments (`f(a, time)`).
    fn declaration_before(&self, comma: usize) -> bool {
        let mut depth = 0usize;
        let mut k = comma;
        let start = loop {
            if k == 0 {
                break 0;
            }
            k -= 1;
            match &self.toks[k] {
                Token::Punct(p) if p == ")" || p == "]" => depth += 1,
                // An initializer's brace (`= {1, 2}, time`) is part of the declaration.
                Token::Punct(p) if p == "}" && (depth > 0 || punct(self.toks.get(k + 1), ",")) => {
                    depth += 1
                }
                Token::Punct(p) if (p == "(" || p == "[" || p == "{") && depth > 0 => depth -= 1,
                Token::Punct(p) if p == "(" => {
                    if ident(k.checked_sub(1).and_then(|b| self.toks.get(b))) == Some("for") {
                        break k + 1;
                    }
                    return false;
                }
                Token::Punct(p) if p == ";" || p == "{" || p == "}" => break k + 1,
                Token::EndDirective => break k + 1,
                Token::Punct(p) if p == "[" => return false,
                _ => {}
            }
        };
        let first = ident(self.toks.get(start));
        let second = self.toks.get(start + 1);
        first.is_some_and(|w| !NOT_A_TYPE.contains(&w))
            && (ident(second).is_some() || punct(second, "*"))
    }

    /// A parameter of a function-like macro: `#define ROT(x, time) …`.
    fn is_macro_parameter(&self, i: usize) -> bool {
        // Walk back over `name ,` pairs to `( NAME define #`.
        let mut j = i;
        loop {
            let Some(p) = j.checked_sub(1) else {
                return false;
            };
            match &self.toks[p] {
                Token::Punct(q) if q == "," => {
                    if p == 0 || ident(self.toks.get(p - 1)).is_none() {
                        return false;
                    }
                    j = p - 1;
                }
                Token::Punct(q) if q == "(" => {
                    return p >= 3
                        && ident(self.toks.get(p - 1)).is_some()
                        && ident(self.toks.get(p - 2)) == Some("define")
                        && punct(self.toks.get(p - 3), "#");
                }
                _ => return false,
            }
        }
    }
}

/// Per token, whether it is inside an attribute: the parenthesized group after
/// `__attribute__`/`__attribute`/`__declspec`, and `[[ … ]]`.
fn attribute_context(toks: &[Token]) -> Vec<bool> {
    let mut inside = vec![false; toks.len()];
    let mut i = 0;
    while i < toks.len() {
        let introducer = ident(toks.get(i)).is_some_and(|w| ATTRIBUTE_INTRODUCERS.contains(&w))
            && punct(toks.get(i + 1), "(");
        let brackets = punct(toks.get(i), "[") && punct(toks.get(i + 1), "[");
        if !(introducer || brackets) {
            i += 1;
            continue;
        }
        let (open, close) = if introducer { ("(", ")") } else { ("[", "]") };
        let mut depth = 0usize;
        let mut j = i + 1;
        while j < toks.len() {
            if punct(toks.get(j), open) {
                depth += 1;
            } else if punct(toks.get(j), close) {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else if matches!(toks[j], Token::EndDirective) {
                break;
            }
            inside[j] = true;
            j += 1;
        }
        i = j + 1;
    }
    inside
}
