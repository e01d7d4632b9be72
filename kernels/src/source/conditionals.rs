//! What a screen can decide about preprocessor conditionals without running a
//! preprocessor: which blocks are surely not compiled.
//!
//! A block is decided only where its condition is a plain integer (`#if 0`, `#if 1`), or
//! asks whether a macro is defined (`#ifdef N`, `#ifndef N`, `#if defined(N)`,
//! `#if !defined(N)`) and the caller vouches that `N` is never defined
//! ([`Conditionals::new`]). Everything else is [`Branch::Unknown`]: a screen reads such a
//! block as code, every branch of it.

/// Whether the current branch of a conditional block is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    Taken,
    NotTaken,
    Unknown,
}

/// What is known of the branches before the current one of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Earlier {
    NoneTaken,
    OneTaken,
    Unknown,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    earlier: Earlier,
    current: Branch,
}

/// The conditional blocks around a line, read directive by directive.
pub struct Conditionals<'a> {
    never_defined: &'a dyn Fn(&str) -> bool,
    stack: Vec<Frame>,
}

impl<'a> Conditionals<'a> {
    /// `never_defined(name)` vouches that no definition of the macro `name` can be in force
    /// where the source is compiled (not the compiler's, not a header's, not the source's).
    pub fn new(never_defined: &'a dyn Fn(&str) -> bool) -> Self {
        Conditionals {
            never_defined,
            stack: Vec::new(),
        }
    }

    /// Reads one directive (`word` is its name, `rest` the text after it); returns whether
    /// it was a conditional directive.
    pub fn directive(&mut self, word: &str, rest: &str) -> bool {
        match word {
            "if" | "ifdef" | "ifndef" => {
                let current = self.condition(word, rest);
                self.stack.push(Frame {
                    earlier: Earlier::NoneTaken,
                    current,
                });
            }
            "elif" | "else" => {
                let never_defined = self.never_defined;
                let Some(frame) = self.stack.last_mut() else {
                    return true;
                };
                frame.earlier = match (frame.earlier, frame.current) {
                    (Earlier::OneTaken, _) | (_, Branch::Taken) => Earlier::OneTaken,
                    (Earlier::NoneTaken, Branch::NotTaken) => Earlier::NoneTaken,
                    _ => Earlier::Unknown,
                };
                let this = if word == "else" {
                    Branch::Taken
                } else {
                    evaluate("if", rest, never_defined)
                };
                frame.current = match (frame.earlier, this) {
                    (Earlier::OneTaken, _) => Branch::NotTaken,
                    (Earlier::NoneTaken, this) => this,
                    (Earlier::Unknown, Branch::NotTaken) => Branch::NotTaken,
                    (Earlier::Unknown, _) => Branch::Unknown,
                };
            }
            "endif" => {
                self.stack.pop();
            }
            _ => return false,
        }
        true
    }

    fn condition(&self, word: &str, rest: &str) -> Branch {
        evaluate(word, rest, self.never_defined)
    }

    /// Whether lines here are surely not compiled (some enclosing branch is not taken).
    pub fn surely_skipped(&self) -> bool {
        self.stack.iter().any(|f| f.current == Branch::NotTaken)
    }

    /// Whether lines here are inside any conditional block.
    pub fn inside(&self) -> bool {
        !self.stack.is_empty()
    }
}

/// The branch a `#if`/`#ifdef`/`#ifndef` condition takes, where it can be decided.
fn evaluate(word: &str, rest: &str, never_defined: &dyn Fn(&str) -> bool) -> Branch {
    let words: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    let name_test = |name: &str, defined_means: Branch| {
        let plain = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if plain && never_defined(name) {
            match defined_means {
                Branch::Taken => Branch::NotTaken,
                _ => Branch::Taken,
            }
        } else {
            Branch::Unknown
        }
    };
    match (word, words.as_slice()) {
        ("ifdef", [name]) => name_test(name, Branch::Taken),
        ("ifndef", [name]) => name_test(name, Branch::NotTaken),
        ("if", ["defined", name]) => name_test(name, Branch::Taken),
        ("if", ["!defined", name]) | ("if", ["!", "defined", name]) => {
            name_test(name, Branch::NotTaken)
        }
        ("if", [number]) if number.chars().all(|c| c.is_ascii_digit()) => {
            if number.chars().all(|c| c == '0') {
                Branch::NotTaken
            } else {
                Branch::Taken
            }
        }
        _ => Branch::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped_lines(text: &str, never_defined: &dyn Fn(&str) -> bool) -> Vec<usize> {
        let mut c = Conditionals::new(never_defined);
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if let Some(d) = line.trim_start().strip_prefix('#') {
                let d = d.trim_start();
                let word: String = d.chars().take_while(|c| c.is_alphanumeric()).collect();
                if c.directive(&word, d[word.len()..].trim()) {
                    continue;
                }
            }
            if c.surely_skipped() {
                out.push(i + 1);
            }
        }
        out
    }

    #[test]
    fn literal_conditions_are_decided_for_any_reader() {
        let none = |_: &str| false;
        let text = "#if 0\na\n#else\nb\n#endif\n#if 1\nc\n#elif X\nd\n#else\ne\n#endif";
        assert_eq!(skipped_lines(text, &none), vec![2, 9, 11]);
        // A name nobody vouches for: every branch may be compiled.
        let text = "#ifdef DEBUG\na\n#else\nb\n#endif\n#if X > 1\nc\n#endif";
        assert_eq!(skipped_lines(text, &none), Vec::<usize>::new());
        // An unknown branch, then `#elif 0` and `#else`: only the `#elif 0` is decided.
        let text = "#if X\na\n#elif 0\nb\n#else\nc\n#endif";
        assert_eq!(skipped_lines(text, &none), vec![4]);
    }

    #[test]
    fn names_vouched_never_defined_decide_their_tests() {
        let never = |n: &str| n == "NEVER";
        let text = "#ifdef NEVER\na\n#else\nb\n#endif\n#ifndef NEVER\nc\n#else\nd\n#endif\n\
                    #if defined(NEVER)\ne\n#endif\n#if !defined(NEVER)\nf\n#endif\n\
                    #ifdef OTHER\ng\n#endif";
        assert_eq!(skipped_lines(text, &never), vec![2, 9, 12]);
        // Nested: an inner block of a skipped block is skipped whatever it says.
        let text = "#if 0\n#if 1\na\n#endif\nb\n#endif\nc";
        assert_eq!(skipped_lines(text, &never), vec![3, 5]);
    }
}
