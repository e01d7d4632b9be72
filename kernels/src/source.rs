//! C and CUDA source text as the screens read it: comments removed with string and character
//! literals kept intact, and backslash-continued lines joined with their first line's number.
//! The C screen (`cacheon::policy`) and the CUDA screen ([`crate::cuda::screen`]) both read
//! lines through [`logical_lines`], after refusing any line break a compiler could read
//! otherwise than they do ([`ambiguous_line_break`]).

/// Removes `//` and `/* */` comments (string and character literals are kept intact, so
/// a `"//"` inside a string is not a comment). Newlines inside block comments are kept so
/// line numbers stay right; a block comment becomes one space, as in the preprocessor.
pub fn strip_comments(text: &str) -> String {
    #[derive(PartialEq)]
    enum S {
        Code,
        Line,
        Block,
        Str(char),
    }
    let mut out = String::with_capacity(text.len());
    let mut state = S::Code;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match state {
            S::Code => match c {
                '/' if chars.peek() == Some(&'/') => {
                    chars.next();
                    state = S::Line;
                }
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    out.push(' ');
                    state = S::Block;
                }
                '"' | '\'' => {
                    out.push(c);
                    state = S::Str(c);
                }
                _ => out.push(c),
            },
            S::Line => {
                // A backslash-newline continues a line comment.
                if c == '\\' && chars.peek() == Some(&'\n') {
                    chars.next();
                    out.push('\n');
                } else if c == '\n' {
                    out.push('\n');
                    state = S::Code;
                }
            }
            S::Block => {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    state = S::Code;
                } else if c == '\n' {
                    out.push('\n');
                }
            }
            S::Str(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if c == q || c == '\n' {
                    state = S::Code;
                }
            }
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
        assert_eq!(strip_comments(text), "a \nb  \n e \"/* no */\" '/'\n\n\nf");
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
