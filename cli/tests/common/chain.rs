//! What the chain tests share: a real `cacheon-node --dev --tmp` (free ports, a log file,
//! killed when dropped), `cacheon validator` processes, running `cacheon --json` and
//! proposing a bundle as a miner. The node binary is the one built into the same target
//! directory (`cargo build -p cacheon-node`; scripts/test.sh builds it before these tests).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use std::time::{Duration, Instant};

pub struct DevNode {
    pub url: String,
    pub log: PathBuf,
    child: Child,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn node_binary() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_cacheon")).with_file_name("cacheon-node");
    assert!(
        bin.exists(),
        "{} is missing: build the node first (cargo build -p cacheon-node)",
        bin.display()
    );
    bin
}

impl DevNode {
    /// Starts a dev node sealing a finalized block every `block_ms` and waits for its RPC.
    pub fn start(log_dir: &Path, block_ms: u64) -> DevNode {
        let (rpc, p2p, prom) = (free_port(), free_port(), free_port());
        let log = log_dir.join("node.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(node_binary())
            .args(["--dev", "--tmp", "--no-telemetry", "--no-mdns"])
            .args(["--dev-block-time", &block_ms.to_string()])
            .args(["--rpc-port", &rpc.to_string(), "--port", &p2p.to_string()])
            .args(["--prometheus-port", &prom.to_string()])
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start cacheon-node");
        let node = DevNode {
            url: format!("ws://127.0.0.1:{rpc}"),
            log,
            child,
        };
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", rpc)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "node RPC never opened\n{}",
                node.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        eprintln!("dev node up at {} (log {})", node.url, node.log.display());
        node
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for DevNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `cacheon --json args…`: exit code, every JSON line of stdout, stderr.
pub fn run_lines(args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = crate::common::cacheon()
        .arg("--json")
        .args(args)
        .output()
        .expect("run cacheon");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Commits and reveals `bundle` as `suri`; returns the proposal id.
pub fn propose(url: &str, state: &Path, bundle: &str, suri: &str) -> u64 {
    let state = state.to_str().unwrap();
    let (code, lines, _) = run_lines(&[
        "commit",
        bundle,
        "--suri",
        suri,
        "--url",
        url,
        "--state-dir",
        state,
    ]);
    assert_eq!(code, 0, "commit {bundle}: {lines:?}");
    let (code, lines, _) = run_lines(&[
        "reveal",
        bundle,
        "--suri",
        suri,
        "--url",
        url,
        "--state-dir",
        state,
    ]);
    assert_eq!(code, 0, "reveal {bundle}: {lines:?}");
    lines[0]["proposal"].as_u64().unwrap()
}

/// A `cacheon validator` process on `cpu-tiny`, logging to `<dir>/<name>.log`, its data
/// in `<dir>/<name>`. Killed when dropped.
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
        let data = dir.join(name);
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let mut cmd = crate::common::cacheon();
        cmd.args([
            "validator",
            "--arena",
            "cpu-tiny",
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
            cmd.args(["--prometheus-port", &p.to_string()]);
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
}

impl Drop for Validator {
    fn drop(&mut self) {
        self.kill();
    }
}
