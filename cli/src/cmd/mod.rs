//! The `cacheon` subcommands: [`local`] (no chain) and [`onchain`].

pub mod local;
pub mod onchain;

use std::path::PathBuf;

use serde_json::Value;

/// Human or JSON output.
pub struct Out {
    pub json: bool,
}

impl Out {
    /// Prints `value` as one JSON line, or `human` for a person.
    pub fn emit(&self, value: Value, human: impl FnOnce() -> String) {
        if self.json {
            println!("{value}");
        } else {
            println!("{}", human());
        }
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
        if let Some(x) = std::env::var_os("XDG_DATA_HOME") {
            return PathBuf::from(x).join("cacheon");
        }
        let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
        PathBuf::from(home).join(".local/share/cacheon")
    }
}

/// Runs an async command on a fresh runtime.
pub fn block_on(fut: impl std::future::Future<Output = i32>) -> i32 {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(fut)
}
