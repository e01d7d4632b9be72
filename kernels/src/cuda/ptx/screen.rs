//! The artifact screen of CUDA bundles ([`screen_ptx`]): what NVRTC produced, whatever
//! the source spelled (raw strings, macros, templates, inline PTX), may not read a timer or
//! a performance counter, learn which launch or graph it runs in or where (`%gridid`,
//! `%current_graph_exec`, `%envreg`, `%smid`, `%warpid`), call out of the module (`vprintf`,
//! `malloc`, `__assertfail`: every `.extern .func`), or stop the GPU (`trap`, `brkpt`);
//! and the module must target the arena's architecture alone (one `.target`, `sm_90a`),
//! its hardware class as the CPU arenas' instruction check is theirs.
//! Inline PTX reaches this text verbatim, comments and line breaks included, so the screen
//! reads it as the assembler does (comments removed left to right, statements across
//! lines) and refuses the PTX preprocessor.

/// The GPU arena's architecture: the one `.target` a kernel's PTX may name.
pub const ARENA_ARCH: &str = "sm_90a";

/// Why compiled PTX was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the compiled PTX {what}")]
pub struct PtxViolation {
    pub what: String,
    /// A timer or counter read (on-chain reason `Cheating`), not only a policy breach.
    pub timer: bool,
}

/// The most global memory a module may declare (`__device__` arrays): the engine owns the
/// device's memory, and a module whose variables the driver allocates at load could take
/// what the baseline lane needs.
pub const MAX_GLOBAL_BYTES: u64 = 16 << 20;

/// Bytes of one module-scope `.global` declaration (`.global .align 4 .b8 t[4096];`):
/// its element type's size times every array dimension; `None` on an overflow.
fn global_bytes(decl: &str) -> Option<u64> {
    let elem = decl.split_whitespace().find_map(|t| {
        let size = |names: &[&str]| names.contains(&t);
        if size(&[".b8", ".u8", ".s8", ".pred"]) {
            Some(1u64)
        } else if size(&[".b16", ".u16", ".s16", ".f16", ".bf16"]) {
            Some(2)
        } else if size(&[".b32", ".u32", ".s32", ".f32", ".f16x2", ".bf16x2"]) {
            Some(4)
        } else if size(&[".b64", ".u64", ".s64", ".f64"]) {
            Some(8)
        } else if size(&[".b128"]) {
            Some(16)
        } else {
            None
        }
    })?;
    decl.split('[').skip(1).try_fold(elem, |bytes, part| {
        let n = part.split(']').next().unwrap_or_default().trim();
        match n {
            "" => Some(bytes),
            n => bytes.checked_mul(n.parse().ok()?),
        }
    })
}

/// Special registers a module may not read: timers and counters (`timer` set), and what
/// names or places a launch (which grid, which graph, driver environment, which SM or warp
/// slot): a kernel that could tell a timed graph replay from an eager audited call could
/// behave differently in each.
const TIMER_REGISTERS: [&str; 3] = ["%globaltimer", "%clock", "%pm"];
const LAUNCH_REGISTERS: [&str; 7] = [
    "%gridid",
    "%current_graph_exec",
    "%envreg",
    "%smid",
    "%nsmid",
    "%warpid",
    "%nwarpid",
];

/// PTX as the assembler reads it, comments removed: `//` to the end of the line and `/* */`
/// blocks, whichever opens first, scanning left to right; a string literal (`.pragma
/// "..."`) is kept as an empty one, so nothing inside it counts as code or as a comment.
/// Inline PTX reaches this text verbatim, so a comment that one reader closes and another
/// does not would hide code: the scan follows the assembler's rules, and an unclosed block
/// comment or string is refused.
fn strip_ptx_comments(ptx: &str) -> Result<String, String> {
    let mut out = String::with_capacity(ptx.len());
    let mut chars = ptx.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                loop {
                    match chars.next() {
                        None => return Err("has a block comment that never closes".into()),
                        Some('/') if prev == '*' => break,
                        Some(c) => {
                            if c == '\n' {
                                out.push('\n');
                            }
                            prev = c;
                        }
                    }
                }
                out.push(' ');
            }
            ('"', _) => {
                loop {
                    match chars.next() {
                        None | Some('\n') => return Err("has a string that never ends".into()),
                        Some('"') => break,
                        Some(_) => {}
                    }
                }
                out.push_str("\"\"");
            }
            (c, _) => out.push(c),
        }
    }
    Ok(out)
}

/// Screens compiled PTX (see the module docs). The text is read as the assembler reads it
/// (comments removed, [`strip_ptx_comments`]), in statements (up to each `;`, `{` or `}`,
/// across lines), so neither a comment nor a line break hides a token from the screen.
pub fn screen_ptx(ptx: &str) -> Result<(), PtxViolation> {
    let refuse = |what: String, timer: bool| Err(PtxViolation { what, timer });
    let code = match strip_ptx_comments(ptx) {
        Ok(code) => code,
        Err(what) => return refuse(what, false),
    };
    // NVRTC never writes preprocessor directives; the assembler would expand them (a
    // register name pasted from pieces, an included file).
    if let Some(line) = code.lines().find(|l| l.trim_start().starts_with('#')) {
        return refuse(
            format!("uses the PTX preprocessor: `{}`", line.trim()),
            false,
        );
    }
    let (mut depth, mut global, mut targets) = (0i64, 0u64, 0u32);
    let mut statement = String::new();
    for c in code.chars().chain(std::iter::once(';')) {
        if !matches!(c, ';' | '{' | '}') {
            statement.push(c);
            continue;
        }
        let tokens: Vec<&str> = statement
            .split(|c: char| !(c.is_ascii_alphanumeric() || "%._$".contains(c)))
            .filter(|t| !t.is_empty())
            .collect();
        if let Some(at) = tokens.iter().position(|t| *t == ".target") {
            // The module's architecture is the arena's hardware class: one `.target`,
            // naming exactly the architecture NVRTC was asked for (a directive that names
            // another, or a second one, could only come from outside NVRTC's own output).
            targets += 1;
            let arch: Vec<&str> = tokens[at + 1..]
                .iter()
                .take_while(|t| !t.starts_with('.'))
                .filter(|t| t.starts_with("sm_") || t.starts_with("compute_"))
                .copied()
                .collect();
            if targets > 1 || arch != [ARENA_ARCH] {
                return refuse(
                    format!(
                        "targets `{}`, not the arena's `{ARENA_ARCH}` alone",
                        arch.join(",")
                    ),
                    false,
                );
            }
        }
        for token in &tokens {
            if TIMER_REGISTERS.iter().any(|t| token.starts_with(t)) {
                return refuse(format!("reads timer or counter `{token}`"), true);
            }
            if LAUNCH_REGISTERS.iter().any(|t| token.starts_with(t)) {
                return refuse(format!("reads launch identity `{token}`"), true);
            }
            let op = token.split('.').next().unwrap_or_default();
            if ["trap", "brkpt", "pmevent", "nanosleep"].contains(&op) {
                return refuse(format!("uses instruction `{token}`"), false);
            }
        }
        // Anything declared outside the module: a function (`vprintf`, `malloc`) or data.
        if tokens.contains(&".extern") && (tokens.contains(&".func") || tokens.contains(&".global"))
        {
            return refuse(
                format!(
                    "calls a function outside the module: `{}`",
                    statement.split_whitespace().collect::<Vec<_>>().join(" ")
                ),
                false,
            );
        }
        if depth == 0 && tokens.contains(&".global") {
            let bytes = global_bytes(&statement).unwrap_or(u64::MAX);
            global = global.saturating_add(bytes);
            if global > MAX_GLOBAL_BYTES {
                return refuse(
                    format!(
                        "declares more than {MAX_GLOBAL_BYTES} bytes of global memory (`{}`)",
                        statement.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                    false,
                );
            }
        }
        statement.clear();
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_global_memory_is_refused_in_the_ptx() {
        let table = ".visible .global .align 4 .b8 table[4096];\n.global .f32 x;\n";
        assert_eq!(screen_ptx(table), Ok(()));
        let hog = ".visible .global .align 8 .u64 hog[1048576][4];\n";
        let e = screen_ptx(hog).unwrap_err();
        assert!(e.what.contains("global memory"), "{}", e.what);
        // Several declarations add up; an unreadable size counts as too large.
        let many = ".global .b8 a[9000000];\n.global .b8 b[9000000];\n";
        assert!(screen_ptx(many).is_err());
        assert!(screen_ptx(".global .b8 c[99999999999999999999];\n").is_err());
        // A function's own state spaces are not module globals.
        let local = ".entry k()\n{\n\t.local .align 4 .b8 stack[65536];\n\tret;\n}\n";
        assert_eq!(screen_ptx(local), Ok(()));
    }

    #[test]
    fn timers_external_calls_and_traps_are_refused_in_the_ptx() {
        let ok = ".visible .entry k(.param .u64 p)\n{\n\tmov.u32 %r1, %tid.x; // %clock in a comment\n\tret;\n}\n";
        assert_eq!(screen_ptx(ok), Ok(()));
        let timer = screen_ptx("\tmov.u64 %rd1, %globaltimer;\n").unwrap_err();
        assert!(timer.timer, "{timer}");
        assert!(screen_ptx("\tmov.u32 %r1, %clock;\n").unwrap_err().timer);
        assert!(screen_ptx("\tmov.u64 %rd2, %clock64;\n").unwrap_err().timer);
        assert!(screen_ptx("\tmov.u32 %r3, %pm0;\n").unwrap_err().timer);
        // Launch identity: which grid or graph a call belongs to (inline PTX reaches it).
        assert!(screen_ptx("\tmov.u64 %rd3, %gridid;\n").unwrap_err().timer);
        assert!(
            screen_ptx("\tmov.u64 %rd4, %current_graph_exec;\n")
                .unwrap_err()
                .timer
        );
        assert!(screen_ptx("\tmov.u32 %r5, %envreg3;\n").unwrap_err().timer);
        assert!(screen_ptx("\tmov.u32 %r6, %smid;\n").unwrap_err().timer);
        let printf = screen_ptx(".extern .func (.param .b32 r) vprintf\n(\n.param .b64 a\n);\n")
            .unwrap_err();
        assert!(!printf.timer && printf.what.contains("vprintf"), "{printf}");
        assert!(screen_ptx("\ttrap;\n").is_err());
        assert!(screen_ptx("\tbrkpt;\n").is_err());
        assert!(screen_ptx("\tnanosleep.u32 100;\n").is_err());
        assert_eq!(screen_ptx("/* trap; %globaltimer */\n\tret;\n"), Ok(()));
    }

    #[test]
    fn a_module_for_another_architecture_is_refused() {
        let head = |target: &str| {
            format!(".version 8.8\n.target {target}\n.address_size 64\n\n.visible .entry k()\n{{\n\tret;\n}}\n")
        };
        assert_eq!(screen_ptx(&head(ARENA_ARCH)), Ok(()));
        for other in ["sm_100a", "sm_90", "sm_80", "sm_90a, sm_100a"] {
            let e = screen_ptx(&head(other)).unwrap_err();
            assert!(e.what.contains("not the arena's"), "{other}: {e:?}");
            assert!(!e.timer);
        }
        let twice = format!("{}.target sm_90a\n", head(ARENA_ARCH));
        assert!(screen_ptx(&twice).is_err());
    }

    #[test]
    fn inline_ptx_cannot_hide_code_in_comments_strings_lines_or_macros() {
        // A `/*` inside a line comment opens nothing: the assembler compiles the next line.
        let hidden = "\t// /*\n\tmov.u64 %rd1, %globaltimer;\n\t// */\n";
        assert!(screen_ptx(hidden).unwrap_err().timer);
        // A `//` inside a string is no comment either.
        let in_string = ".pragma \"nounroll // \";\n\tmov.u64 %rd1, %globaltimer;\n";
        assert!(screen_ptx(in_string).unwrap_err().timer);
        // A declaration split over lines is one statement.
        let split = ".extern\n.func (.param .b32 r) vprintf\n(\n.param .b64 a\n);\n";
        assert!(screen_ptx(split)
            .unwrap_err()
            .what
            .contains("outside the module"));
        let data = ".extern .global .align 8 .b8 theirs[8];\n";
        assert!(screen_ptx(data).is_err());
        // An unclosed comment or string, and the preprocessor, are refused outright.
        assert!(screen_ptx("\tret;\n/* never closed\n\tmov.u64 %rd1, %globaltimer;\n").is_err());
        assert!(screen_ptx(".pragma \"open;\n").is_err());
        let macro_ = "#define T %global ## timer\n\tmov.u64 %rd1, T;\n";
        assert!(screen_ptx(macro_)
            .unwrap_err()
            .what
            .contains("preprocessor"));
        // A module global declared after closing a function from inline PTX still counts.
        let escape = ".entry k()\n{\n\tret;\n}\n.global .b8 big[99999999];\n.func f()\n{\n";
        assert!(screen_ptx(escape)
            .unwrap_err()
            .what
            .contains("global memory"));
        // What NVRTC writes passes: line comments, an entry with its braces, extern shared.
        let ok = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_90a\n\
                  .extern .shared .align 16 .b8 smem[];\n.visible .entry k(\n\t.param .u64 p\n)\n\
                  {\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x; // comment\n\tret;\n}\n";
        assert_eq!(screen_ptx(ok), Ok(()));
    }
}
