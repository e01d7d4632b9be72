//! `cacheon-node` processes: free loopback ports, a log file per node, readiness by RPC,
//! restart on the same chain and ports, and a kill on drop so no node outlives its test.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cacheon::chain::Client;

use crate::{node_bin, tail};

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The CPUs this process may run on, except the highest: where the validators' lanes pin
/// their timed runs (`cacheon`'s lane sandbox takes the highest allowed CPU). `None` on a
/// one-CPU machine.
fn cpus_off_the_lanes() -> Option<libc::cpu_set_t> {
    // SAFETY: sched_getaffinity fills a zeroed cpu_set_t of the size given; CPU_* read and
    // write within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let allowed: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect();
        if allowed.len() < 2 {
            return None;
        }
        libc::CPU_CLR(*allowed.last().unwrap(), &mut set);
        Some(set)
    }
}

/// One running node, logging to `<dir>/<name>.log`. Killed when dropped.
pub struct Node {
    pub name: String,
    pub url: String,
    pub log: PathBuf,
    pub rpc_port: u16,
    pub p2p_port: u16,
    prometheus_port: u16,
    args: Vec<String>,
    /// Keep the node off the CPU the validators' lanes time their runs on.
    off_the_lanes: bool,
    child: Option<Child>,
}

impl Node {
    /// Starts `cacheon-node args…` on free RPC, P2P and Prometheus ports and waits for its RPC.
    pub fn start(name: &str, args: &[String], dir: &Path) -> Node {
        Node::spawned(name, args.to_vec(), dir, false)
    }

    /// A dev node beside validators: `--dev` with a finalized block every `block_ms`, its
    /// chain in `<dir>/node` (not `--tmp`, so [`Node::restart`] continues the same chain),
    /// and kept off the CPU the lanes time on (it would add to every attempt's noise).
    pub fn dev(dir: &Path, block_ms: u64) -> Node {
        let args = vec![
            "--dev".to_string(),
            "--base-path".to_string(),
            dir.join("node").display().to_string(),
            "--dev-block-time".to_string(),
            block_ms.to_string(),
        ];
        Node::spawned("node", args, dir, true)
    }

    fn spawned(name: &str, args: Vec<String>, dir: &Path, off_the_lanes: bool) -> Node {
        let (rpc_port, p2p_port, prometheus_port) = (free_port(), free_port(), free_port());
        let mut node = Node {
            name: name.into(),
            url: format!("ws://127.0.0.1:{rpc_port}"),
            log: dir.join(format!("{name}.log")),
            rpc_port,
            p2p_port,
            prometheus_port,
            args,
            off_the_lanes,
            child: None,
        };
        node.spawn();
        node
    }

    fn spawn(&mut self) {
        let out = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut cmd = Command::new(node_bin());
        if let Some(cpus) = cpus_off_the_lanes().filter(|_| self.off_the_lanes) {
            // SAFETY: only sched_setaffinity (async-signal-safe) between fork and exec, on a
            // cpu_set_t prepared before the fork.
            unsafe {
                cmd.pre_exec(move || {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &cpus);
                    Ok(())
                });
            }
        }
        let child = cmd
            .args(&self.args)
            .args(["--no-telemetry", "--no-mdns"])
            .args(["--rpc-port", &self.rpc_port.to_string()])
            .args(["--port", &self.p2p_port.to_string()])
            .args(["--prometheus-port", &self.prometheus_port.to_string()])
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start cacheon-node");
        self.child = Some(child);
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.rpc_port)).is_err() {
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            assert!(
                exited.is_none() && start.elapsed() < Duration::from_secs(120),
                "{}: RPC never opened (exit: {exited:?})\n{}",
                self.name,
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        eprintln!(
            "{} up at {} (p2p {}, log {})",
            self.name,
            self.url,
            self.p2p_port,
            self.log.display()
        );
    }

    /// Seals blocks on demand (`engine_createBlock`, each finalized at once: a `--dev` node's
    /// RPC) until the head is at least `block`, beside the node's timer: a test moves the
    /// chain past a deadline it would otherwise sit out (a lease's 300 blocks are 90 s at
    /// 300 ms, a few seconds this way). Returns the head reached.
    pub fn seal_until(&self, block: u64) -> u64 {
        use subxt::rpcs::{client::rpc_params, RpcClient};
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let rpc = RpcClient::from_url(&self.url)
                .await
                .unwrap_or_else(|e| panic!("{}: RPC: {e}", self.name));
            let start = Instant::now();
            loop {
                let header: serde_json::Value = rpc
                    .request("chain_getHeader", rpc_params![])
                    .await
                    .unwrap_or_else(|e| panic!("{}: chain_getHeader: {e}", self.name));
                let head = header["number"]
                    .as_str()
                    .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
                    .unwrap_or_else(|| {
                        panic!("{}: a header without a number: {header}", self.name)
                    });
                if head >= block {
                    eprintln!("sealed up to #{head} on demand in {:?}", start.elapsed());
                    return head;
                }
                for _ in head..block {
                    let _: serde_json::Value = rpc
                        .request(
                            "engine_createBlock",
                            rpc_params![true, true, None::<String>],
                        )
                        .await
                        .unwrap_or_else(|e| panic!("{}: engine_createBlock: {e}", self.name));
                }
            }
        })
    }

    /// Stops the node (SIGKILL: a crash, not a clean shutdown) and waits until it is gone.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
            eprintln!("stopped {}", self.name);
        }
    }

    /// Starts the node again with the same arguments, ports and log (its database too,
    /// unless it runs with `--tmp`).
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    pub fn log_tail(&self) -> String {
        tail(&self.log, 40)
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

    /// The node's P2P address, for another node's `--bootnodes`.
    pub fn multiaddr(&self, timeout: Duration) -> String {
        format!(
            "/ip4/127.0.0.1/tcp/{}/p2p/{}",
            self.p2p_port,
            self.peer_id(timeout)
        )
    }

    /// A subxt client, retrying until the node answers or `timeout` passes.
    pub async fn client(&self, timeout: Duration) -> Client {
        let start = Instant::now();
        loop {
            match Client::from_insecure_url(&self.url).await {
                Ok(c) => return c,
                Err(_) if start.elapsed() < timeout => {
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

    /// Waits until the node's finalized head reaches `target`, or panics with what it saw.
    pub async fn wait_for_finalized(&self, client: &Client, target: u64, timeout: Duration) {
        let start = Instant::now();
        let mut last = 0;
        while start.elapsed() < timeout {
            last = finalized_number(client).await;
            if last >= target {
                return;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        panic!(
            "{}: finalized head stayed at #{last}, wanted #{target} within {timeout:?}\n{}",
            self.name,
            self.log_tail()
        );
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The number of the node's latest finalized block.
pub async fn finalized_number(client: &Client) -> u64 {
    let at = client
        .at_current_block()
        .await
        .expect("read the finalized block");
    at.block_number()
}
