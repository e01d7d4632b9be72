//! C and CUDA source text as the screens read it, by one lexer that follows the compiler's
//! translation phases: backslash-continued lines are joined first (phase 2), then comments
//! go with string and character literals kept intact (phase 3), then the text is cut into
//! tokens. Every screen reads source through this file: the C policy screen
//! (`cacheon::policy`: [`code_lines`] and [`tokens`]), the CUDA include screen
//! ([`crate::cuda::screen`]: [`code_lines`]) and the copy screen's fingerprint
//! (`cacheon::fingerprint`: [`tokens`]). Each refuses first any line break a compiler could
//! read otherwise than this file does ([`ambiguous_line_break`]).

pub mod conditionals;

/// The code of each logical line (continued lines joined, numbered by their first physical
/// line), comments removed: a `//` comment to the end of its logical line, a block comment
/// as one space, across lines (a line wholly inside one is empty). String and character
/// literals are kept as written, so a `"//"` inside a string is not a comment. Joining
/// first matters: `*\` at the end of a line and `/` at the start of the next close a block
/// comment for the compiler, so code after them is code here too.
pub fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut in_block = false;
    logical_lines(text)
        .into_iter()
        .map(|(line_no, line)| (line_no, strip_line_comments(&line, &mut in_block)))
        .collect()
}

/// One logical line without its comments; `in_block` carries an open block comment from
/// line to line.
fn strip_line_comments(line: &str, in_block: &mut bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if *in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                *in_block = false;
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push(' ');
                *in_block = true;
            }
            '"' | '\'' => {
                // A literal runs to its closing quote (escapes honoured) or the line's end.
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Joins backslash-continued lines; yields `(first physical line number, logical line)`.
pub fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 1;
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if current.is_empty() {
            start = i + 1;
        }
        if let Some(body) = raw.strip_suffix('\\') {
            current.push_str(body);
            continue;
        }
        current.push_str(raw);
        out.push((start, std::mem::take(&mut current)));
    }
    if !current.is_empty() {
        out.push((start, current));
    }
    out
}

/// The first line break the screens and a compiler could disagree on, with its line number:
/// a carriage return not followed by a line feed (GCC ends a line there; the screens do
/// not, so `// x<CR>clock();` would hide the call in a comment), and a backslash followed
/// by spaces or tabs before the end of a line (GCC joins the lines; the screens do not).
/// Screens refuse such a source instead of guessing which reading a compiler takes.
pub fn ambiguous_line_break(text: &str) -> Option<(usize, &'static str)> {
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.contains('\r') {
            return Some((i + 1, "a carriage return that does not end a line"));
        }
        let trimmed = line.trim_end_matches([' ', '\t', '\x0b', '\x0c']);
        if trimmed.len() < line.len() && trimmed.ends_with('\\') {
            return Some((i + 1, "a backslash followed by spaces at the end of a line"));
        }
    }
    None
}

/// The first construct that C (`gnu11`, the CPU arena) and C++ (NVRTC) lex differently, with
/// its line: a raw string literal (`R"x( … )x"` runs across quotes, comments and lines in
/// C++, and GNU C) and a digit separator (`1'000` is one number in C++; in C a number and
/// the start of a character literal). Either can make a screen's reading of comments and
/// literals differ from the compiler's (`R"x(" /* ")x"` opens no comment for the compiler,
/// so a directive on the next line is real), so every screen refuses them instead of
/// guessing a dialect. Until the first such construct both readings agree, so it is found
/// in code, whatever hides behind it.
pub fn ambiguous_literal(text: &str) -> Option<(usize, &'static str)> {
    for (line_no, code) in code_lines(text) {
        let toks = tokens(&code);
        for (i, tok) in toks.iter().enumerate() {
            match tok {
                Token::Ident(w)
                    if matches!(w.as_str(), "R" | "u8R" | "uR" | "UR" | "LR")
                        && matches!(toks.get(i + 1), Some(Token::Str(q)) if q.starts_with('"')) =>
                {
                    return Some((line_no, "raw string literal"));
                }
                Token::Num(n) if n.contains('\'') => return Some((line_no, "digit separator")),
                _ => {}
            }
        }
    }
    None
}

/// One C/CUDA token as [`tokens`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Ident(String),
    Num(String),
    /// A string or character literal, quotes included, as written.
    Str(String),
    Punct(String),
    /// The end of a preprocessor directive's line.
    EndDirective,
}

/// Multi-character punctuators, longest first (the compiler's maximal munch), and the
/// digraphs with what they stand for.
const PUNCT: [&str; 25] = [
    "<<=", ">>=", "...", "->*", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##",
];
const DIGRAPHS: [(&str, &str); 6] = [
    ("%:%:", "##"),
    ("%:", "#"),
    ("<:", "["),
    (":>", "]"),
    ("<%", "{"),
    ("%>", "}"),
];

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// C/CUDA tokens of `text`, comments and whitespace dropped. Linear in the text's length.
pub fn tokens(text: &str) -> Vec<Token> {
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
                out.push(Token::EndDirective);
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
            i = i.min(src.len());
            if i < src.len() && src[i] == c {
                i += 1; // the closing quote (an unterminated literal leaves its newline)
            }
            out.push(Token::Str(src[start..i].iter().collect()));
        } else if c.is_ascii_digit() || (c == '.' && next.is_some_and(|d| d.is_ascii_digit())) {
            // An exponent's sign: after `e` in a decimal number, after `p` in a hex one.
            let hex = c == '0' && matches!(next, Some('x' | 'X'));
            let exponent = if hex { ['p', 'P'] } else { ['e', 'E'] };
            while i < src.len() {
                let d = src[i];
                let exp_sign = (d == '+' || d == '-') && exponent.contains(&src[i - 1]);
                if d.is_ascii_alphanumeric() || d == '.' || d == '_' || d == '\'' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token::Num(src[start..i].iter().collect()));
        } else if ident_char(c) {
            while i < src.len() && ident_char(src[i]) {
                i += 1;
            }
            out.push(Token::Ident(src[start..i].iter().collect()));
        } else {
            let rest: String = src[i..(i + 4).min(src.len())].iter().collect();
            let (len, p) = if let Some((d, p)) = DIGRAPHS.iter().find(|(d, _)| rest.starts_with(d))
            {
                (d.len(), p.to_string())
            } else {
                let p = PUNCT
                    .iter()
                    .find(|p| rest.starts_with(*p))
                    .map_or_else(|| c.to_string(), |p| p.to_string());
                (p.chars().count(), p)
            };
            i += len;
            if p == "#" && at_line_start {
                in_directive = true;
            }
            out.push(Token::Punct(p));
        }
    }
    if in_directive {
        out.push(Token::EndDirective);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continued_lines_join_and_keep_their_first_line_number() {
        let text = "a\\\nb\\\r\nc\nd\r\n#define X \\\n  1\n";
        assert_eq!(
            logical_lines(text),
            vec![
                (1, "abc".to_string()),
                (4, "d".to_string()),
                (5, "#define X   1".to_string()),
                (7, String::new()),
            ]
        );
        // A continuation at the very end still yields its line.
        assert_eq!(logical_lines("x\\"), vec![(1, "x".to_string())]);
    }

    #[test]
    fn comments_go_literals_stay_and_line_numbers_hold() {
        let text = "a // x \"y\"\nb /* c\nd */ e \"/* no */\" '/'\n// cont \\\nstill comment\nf";
        assert_eq!(
            code_lines(text),
            vec![
                (1, "a ".to_string()),
                (2, "b  ".to_string()),
                (3, " e \"/* no */\" '/'".to_string()),
                (4, String::new()),
                (6, "f".to_string()),
            ]
        );
    }

    #[test]
    fn constructs_c_and_cxx_read_differently_are_found() {
        assert_eq!(
            ambiguous_literal(
                "int a;\nconst char* s = R\"x(\" /* \")x\";\n#include <x.h>\n// */\n"
            ),
            Some((2, "raw string literal"))
        );
        assert_eq!(
            ambiguous_literal("int a = 1'0'/*';\n#include <x.h>\n// */\n"),
            Some((1, "digit separator"))
        );
        // Character literals with a prefix, strings after other names: not ambiguous.
        assert_eq!(
            ambiguous_literal("char c = u8'a'; const char* r = \"R\"; int x1 = 'b';"),
            None
        );
    }

    #[test]
    fn lines_are_joined_before_comments_are_found() {
        // `*\` + newline + `/` closes the comment for a compiler: the include is code.
        let lines = code_lines("/* a *\\\n/ #include <x.h>\nint b;\n");
        assert_eq!(lines[0], (1, "  #include <x.h>".to_string()));
        // `/\` + newline + `/` opens a line comment for a compiler: the rest is gone.
        let lines = code_lines("int a; /\\\n/ clock();\n");
        assert_eq!(lines[0], (1, "int a; ".to_string()));
    }

    #[test]
    fn numbers_keep_their_exponent_sign_and_digraphs_read_as_punctuators() {
        assert_eq!(
            tokens("a=1e-3f-b;"),
            vec![
                Token::Ident("a".into()),
                Token::Punct("=".into()),
                Token::Num("1e-3f".into()),
                Token::Punct("-".into()),
                Token::Ident("b".into()),
                Token::Punct(";".into()),
            ]
        );
        assert_eq!(tokens("a<:1:>"), tokens("a[1]"));
        assert_eq!(tokens("%:%: x"), tokens("## x"));
    }

    #[test]
    fn hostile_sources_are_tokenized_in_linear_time_without_panics() {
        let long_number = "0".repeat(400_000) + "x";
        assert_eq!(tokens(&long_number).len(), 1);
        for src in [
            "\"unterminated\n#define X 1\n",
            "/* open",
            "'",
            "0x1p+",
            "a$b \u{fc} = 1;",
            "<: :> <% %> %:define Y",
        ] {
            let _ = tokens(src);
        }
        assert_eq!(
            tokens("\"open\n#define X 1\n").last(),
            Some(&Token::EndDirective),
            "the literal's newline still ends the line"
        );
    }

    #[test]
    fn line_breaks_a_compiler_could_read_otherwise_are_found() {
        assert_eq!(ambiguous_line_break("a\r\nb\nc\\\n"), None);
        assert_eq!(
            ambiguous_line_break("int a;\n// x\rclock();\n"),
            Some((2, "a carriage return that does not end a line"))
        );
        assert_eq!(
            ambiguous_line_break("int a;\r\n\r\n// x \\ \t\r\nclock();"),
            Some((3, "a backslash followed by spaces at the end of a line"))
        );
        // A carriage return ending the file ends its last line on either reading.
        assert_eq!(ambiguous_line_break("x\r"), None);
    }
}
