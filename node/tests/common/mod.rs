//! Runs real `cacheon-node` processes for the end-to-end tests: free loopback ports, a log
//! file per node, readiness by RPC, and a kill on drop so no node outlives its test.

#![allow(dead_code)]

use std::{
    fs::File,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use subxt::{OnlineClient, PolkadotConfig};

#[subxt::subxt(runtime_metadata_path = "../runtime/metadata/cacheon.scale")]
pub mod cacheon {}

pub type Client = OnlineClient<PolkadotConfig>;

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .unwrap()
        .port()
}

/// One running node. Killed when dropped.
pub struct Node {
    pub name: String,
    pub rpc_port: u16,
    pub p2p_port: u16,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Node {
    /// Starts `cacheon-node` with `args` plus free RPC, P2P and Prometheus ports; its output
    /// goes to `<log_dir>/<name>.log`.
    pub fn start(name: &str, args: &[String], log_dir: &Path) -> Node {
        let (rpc_port, p2p_port, prometheus_port) = (free_port(), free_port(), free_port());
        Self::start_on(name, args, log_dir, rpc_port, p2p_port, prometheus_port)
    }

    pub fn start_on(
        name: &str,
        args: &[String],
        log_dir: &Path,
        rpc_port: u16,
        p2p_port: u16,
        prometheus_port: u16,
    ) -> Node {
        let log = log_dir.join(format!("{name}.log"));
        let out = File::options()
            .create(true)
            .append(true)
            .open(&log)
            .expect("open node log");
        let child = Command::new(env!("CARGO_BIN_EXE_cacheon-node"))
            .args(args)
            .args([
                "--rpc-port",
                &rpc_port.to_string(),
                "--port",
                &p2p_port.to_string(),
            ])
            .args([
                "--prometheus-port",
                &prometheus_port.to_string(),
                "--no-telemetry",
                "--no-mdns",
            ])
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start cacheon-node");
        eprintln!(
            "started {name}: rpc {rpc_port}, p2p {p2p_port}, log {}",
            log.display()
        );
        Node {
            name: name.into(),
            rpc_port,
            p2p_port,
            log,
            child: Some(child),
        }
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.rpc_port)
    }

    /// Connects with subxt, retrying until the node answers or `timeout` passes.
    pub async fn client(&self, timeout: Duration) -> Client {
        let start = Instant::now();
        loop {
            match Client::from_url(self.url()).await {
                Ok(c) => return c,
                Err(e) if start.elapsed() < timeout => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(e) => panic!(
                    "{} did not answer RPC within {timeout:?}: {e}\n{}",
                    self.name,
                    self.log_tail()
                ),
            }
        }
    }

    /// The node's peer id, from its log ("Local node identity is: ...").
    pub fn peer_id(&self, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            if let Some(line) = text.lines().find(|l| l.contains("Local node identity is:")) {
                return line
                    .split_whitespace()
                    .last()
                    .unwrap_or_default()
                    .to_string();
            }
            assert!(
                start.elapsed() < timeout,
                "{} printed no node identity\n{}",
                self.name,
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn multiaddr(&self, timeout: Duration) -> String {
        format!(
            "/ip4/127.0.0.1/tcp/{}/p2p/{}",
            self.p2p_port,
            self.peer_id(timeout)
        )
    }

    /// The last 40 lines of the node's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        format!(
            "--- last lines of {} ---\n{}",
            self.log.display(),
            lines[lines.len().saturating_sub(40)..].join("\n")
        )
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("killed {}", self.name);
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The number of the node's latest finalized block.
pub async fn finalized_number(client: &Client) -> u64 {
    let at = client
        .at_current_block()
        .await
        .expect("read the finalized block");
    at.block_number().into()
}

/// Waits until the node's finalized head reaches `target`, or panics with what it saw.
pub async fn wait_for_finalized(
    node: &Node,
    client: &Client,
    target: u64,
    timeout: Duration,
) -> u64 {
    let start = Instant::now();
    let mut last = 0;
    while start.elapsed() < timeout {
        last = finalized_number(client).await;
        if last >= target {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!(
        "{}: finalized head stayed at #{last}, wanted #{target} within {timeout:?}\n{}",
        node.name,
        node.log_tail()
    );
}
