//! What the bench binaries share on their command line: `--help` exits 0, a command line
//! they do not accept exits 64 (sysexits' `EX_USAGE`), both with the usage on stderr; a
//! run that fails exits 1 and a machine without a usable GPU 2.

use std::process::ExitCode;
use std::str::FromStr;

/// Exit status of a command line the bench does not accept.
pub const EXIT_USAGE: u8 = 64;

/// The parser's answer for `--help` (an empty complaint) or a bad command line: the
/// complaint, if any, and the usage on stderr; the exit status.
pub fn usage_exit(program: &str, usage: &str, complaint: &str) -> ExitCode {
    if complaint.is_empty() {
        eprintln!("{usage}");
        return ExitCode::SUCCESS;
    }
    eprintln!("{program}: {complaint}");
    eprintln!("{usage}");
    ExitCode::from(EXIT_USAGE)
}

/// A flag's value as a number.
pub fn number<T: FromStr>(value: Option<String>, flag: &str) -> Result<T, String> {
    let v = value.ok_or(format!("{flag} needs a number"))?;
    v.parse().map_err(|_| format!("bad {flag} `{v}`"))
}
