//! `cacheon validator` processes, and the logs to print when a test fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use crate::{cacheon, tail, Node};

/// A `cacheon validator` process (on `cpu-tiny` unless started in another arena), logging
/// to `<dir>/<name>.log`, its data in `<dir>/<name>`. Killed when dropped.
pub struct Validator {
    pub name: String,
    pub data: PathBuf,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Validator {
    pub fn start(
        name: &str,
        suri: &str,
        url: &str,
        dir: &Path,
        metrics_port: Option<u16>,
    ) -> Validator {
        Self::start_in("cpu-tiny", name, suri, url, dir, metrics_port)
    }

    /// A validator serving `arena`.
    pub fn start_in(
        arena: &str,
        name: &str,
        suri: &str,
        url: &str,
        dir: &Path,
        metrics_port: Option<u16>,
    ) -> Validator {
        let data = dir.join(name);
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let mut cmd = cacheon();
        cmd.args([
            "validator",
            "--arena",
            arena,
            "--suri",
            suri,
            "--url",
            url,
            "--timeout",
            "60",
        ])
        .arg("--data-dir")
        .arg(&data)
        .env("CACHEON_LOG", "info")
        .stdout(Stdio::null())
        .stderr(out);
        if let Some(p) = metrics_port {
            // The evidence endpoint is published on chain, where `status` finds it.
            cmd.args(["--prometheus-port", &p.to_string()])
                .args(["--public-url", &format!("http://127.0.0.1:{p}")]);
        }
        let child = cmd.spawn().expect("start validator");
        eprintln!("started validator {name} (log {})", log.display());
        Validator {
            name: name.into(),
            data,
            log,
            child: Some(child),
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
            eprintln!("killed validator {}", self.name);
        }
    }

    /// (proposal, state, outcome) of every attempt in the validator's SQLite index.
    pub fn attempts(&self) -> Vec<(i64, String, Option<String>)> {
        let conn = rusqlite::Connection::open(self.data.join("validator.sqlite")).unwrap();
        let mut stmt = conn
            .prepare("SELECT proposal, state, outcome FROM attempts ORDER BY proposal, expires_at")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    /// (challenge, proposal, state, outcome) of every challenge lease in the validator's
    /// SQLite index.
    pub fn challenge_attempts(&self) -> Vec<(i64, i64, String, Option<String>)> {
        let conn = rusqlite::Connection::open(self.data.join("validator.sqlite")).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT challenge, proposal, state, outcome FROM challenge_attempts
                 ORDER BY challenge, expires_at",
            )
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }
}

impl Drop for Validator {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The node's log tail and each validator's, for failure messages.
pub fn diagnostics(node: &Node, validators: &[&Validator]) -> String {
    // Validators first: CI summaries keep the head of a failure's output.
    let mut s = String::new();
    for v in validators {
        s.push_str(&tail(&v.log, 40));
        s.push('\n');
    }
    // The node's routine per-block lines say nothing about a failure; keep the rest.
    let text = std::fs::read_to_string(&node.log).unwrap_or_default();
    let routine = [
        "Prepared block",
        "Imported #",
        "Starting consensus",
        "CreatedBlock",
        "Idle (",
    ];
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !routine.iter().any(|r| l.contains(r)))
        .collect();
    s.push_str(&format!(
        "--- last non-routine lines of {} ---\n{}\n",
        node.log.display(),
        lines[lines.len().saturating_sub(30)..].join("\n")
    ));
    s
}
