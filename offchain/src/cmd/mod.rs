//! The `cacheon` subcommands, one file per user: [`bundle`] (the miner's local bundle
//! work), [`proposal`] and [`arena`] (the miner's chain commands), [`challenge`] (anyone's
//! challenge of a crown), [`operator`] (an operator's bond), [`validator`] (the daemon,
//! `qualify` and `evidence`), [`demo`] and [`generate`] (a person trying the engine on a
//! real model); [`events`] and [`display`] are how chain values read.

pub mod arena;
pub mod bundle;
pub mod challenge;
pub mod demo;
pub mod display;
pub mod events;
pub mod evidence;
pub mod explorer;
pub mod generate;
pub mod history;
pub mod operator;
pub mod proposal;
pub mod quote;
pub mod release;
pub mod submit;
pub mod validator;

use std::path::PathBuf;

use serde_json::Value;

/// Human or JSON output.
pub struct Out {
    pub json: bool,
}

impl Out {
    /// Prints `value` as one JSON line, or `human` for a person.
    /// A closed pipe (`cacheon … | head`) is not an error worth a panic.
    pub fn emit(&self, value: Value, human: impl FnOnce() -> String) {
        use std::io::Write;
        let text = if self.json {
            value.to_string()
        } else {
            human()
        };
        let _ = writeln!(std::io::stdout(), "{text}");
    }

    /// An error: `{"error": ..}` on stdout with --json, else `error: ..` on stderr.
    pub fn error(&self, message: &str, code: i32) -> i32 {
        if self.json {
            println!(
                "{}",
                serde_json::json!({ "error": message, "exit_code": code })
            );
        } else {
            eprintln!("error: {message}");
        }
        code
    }
}

/// Where the miner's local state lives (commit salts).
#[derive(clap::Args, Clone)]
pub struct StateArgs {
    /// Folder for local state: the salt of every commitment, written before it is
    /// submitted so a crash never loses it. Default: $XDG_DATA_HOME/cacheon or
    /// ~/.local/share/cacheon.
    #[arg(long, env = "CACHEON_STATE_DIR")]
    pub state_dir: Option<PathBuf>,
}

impl StateArgs {
    pub fn dir(&self) -> PathBuf {
        if let Some(d) = &self.state_dir {
            return d.clone();
        }
        if let Some(d) = std::env::var_os("CACHEON_STATE_DIR") {
            return PathBuf::from(d);
        }
        if let Some(x) = std::env::var_os("XDG_DATA_HOME") {
            return PathBuf::from(x).join("cacheon");
        }
        let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
        PathBuf::from(home).join(".local/share/cacheon")
    }
}

/// Where attempt reports are stored.
#[derive(clap::Args, Clone)]
pub struct EvidenceArgs {
    /// Folder of content-addressed attempt reports (default: <state>/evidence).
    #[arg(long, env = "CACHEON_EVIDENCE_DIR")]
    pub evidence_dir: Option<PathBuf>,
}

impl EvidenceArgs {
    pub fn dir(&self) -> PathBuf {
        self.evidence_dir
            .clone()
            .unwrap_or_else(|| StateArgs { state_dir: None }.dir().join("evidence"))
    }
}

/// The secret seed given (`--seed`), or a fresh one from the operating system.
pub fn seed_or_fresh(out: &Out, seed: Option<u64>) -> Result<u64, i32> {
    seed.map_or_else(cacheon::qualify::fresh_seed, Ok)
        .map_err(|e| {
            out.error(
                &format!("no secret seed from /dev/urandom: {e}"),
                cacheon::exit::USAGE,
            )
        })
}

/// This executable, which lanes are started from (`cacheon lane`).
pub fn lane_exe(out: &Out) -> Result<PathBuf, i32> {
    std::env::current_exe().map_err(|e| {
        out.error(
            &format!("cannot find the cacheon binary: {e}"),
            cacheon::exit::NO_DECISION,
        )
    })
}

/// A progress bar for a person (`template` in indicatif's style), hidden with `--json`.
pub fn progress_bar(out: &Out, template: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressStyle};
    if out.json {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(1);
        b.set_style(
            ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        b
    }
}

/// Runs an async command (or step) on a fresh runtime.
pub fn block_on<T>(fut: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(fut)
}
