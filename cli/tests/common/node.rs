//! A real `cacheon-node --dev --tmp` for the chain-command tests: free ports, a log file,
//! killed when dropped. The node binary is the one built into the same target directory
//! (`cargo build -p cacheon-node`; scripts/test.sh builds it before these tests run).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
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
