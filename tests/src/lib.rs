//! Helpers for Cacheon's end-to-end tests (the tests are in `tests/`): real processes only.
//!
//! - [`DevNode`]: a `cacheon-node --dev` on free ports with its state in a folder of the
//!   test's temp dir (so it can be stopped and started again on the same chain), a log file,
//!   killed when dropped.
//! - [`Validator`]: a `cacheon validator` process on `cpu-tiny`, killed when dropped.
//! - [`cacheon`], [`run_lines`], [`propose`]: the miner's side, through the `cacheon` binary.
//! - [`Chain`]: follows finalized blocks over RPC and keeps every Cacheon event it saw, so a
//!   test can say what it waits for and, when the wait fails, print the events instead of a
//!   bare timeout; it also reads the reward claims from storage.
//!
//! The binaries are the ones built into the same target directory as the test (`cargo build
//! -p cacheon -p cacheon-node`; scripts/test.sh builds them first), or those named by
//! `CACHEON_BIN` and `CACHEON_NODE_BIN`.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cacheon::chain::api;
use serde_json::Value;

pub use cacheon::chain::api::cacheon::Event as CacheonEvent;
pub use cacheon::chain::api::runtime_types::pallet_cacheon::types::RetireCause;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fresh folder for one test's logs and state: removed when dropped, unless
/// `CACHEON_E2E_KEEP` is set (then it stays, and its path is printed).
pub struct TestDir {
    path: PathBuf,
    _removed_on_drop: Option<tempfile::TempDir>,
}

impl TestDir {
    pub fn new() -> TestDir {
        let dir = tempfile::Builder::new()
            .prefix("cacheon-e2e-")
            .tempdir()
            .expect("a temp dir");
        if std::env::var_os("CACHEON_E2E_KEEP").is_some() {
            eprintln!("logs and state kept in {}", dir.path().display());
            return TestDir {
                path: dir.keep(),
                _removed_on_drop: None,
            };
        }
        TestDir {
            path: dir.path().to_path_buf(),
            _removed_on_drop: Some(dir),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Default for TestDir {
    fn default() -> Self {
        TestDir::new()
    }
}

/// A binary: `$var` if set, else `name` in the target directory this test was built into
/// (the test runs from `<target>/<profile>/deps/`).
fn binary(name: &str, var: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(var) {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("tests run from <target>/<profile>/deps");
    let bin = profile_dir.join(name);
    assert!(
        bin.exists(),
        "{} is missing: build it first (cargo build -p cacheon -p cacheon-node), or set {var}",
        bin.display()
    );
    bin
}

/// The `cacheon` binary (`CACHEON_BIN` overrides).
pub fn cacheon_bin() -> PathBuf {
    binary("cacheon", "CACHEON_BIN")
}

/// The `cacheon-node` binary (`CACHEON_NODE_BIN` overrides).
pub fn node_bin() -> PathBuf {
    binary("cacheon-node", "CACHEON_NODE_BIN")
}

/// The `cacheon-try-state` binary (`CACHEON_TRY_STATE_BIN` overrides). scripts/test.sh builds
/// it on its own: it turns on the runtime's `try-runtime` feature.
pub fn try_state_bin() -> PathBuf {
    binary("cacheon-try-state", "CACHEON_TRY_STATE_BIN")
}

/// Runs `cacheon-try-state` against the node at `url` (its finalized head): this repository's
/// migrations and every pallet's `try_state` on the live chain's state. Panics with the
/// tool's report when a check fails.
pub fn assert_try_state(url: &str) {
    eprintln!("waiting for: try-state of the live chain");
    let out = Command::new(try_state_bin())
        .args(["--json", "--url", url])
        .output()
        .expect("run cacheon-try-state");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the chain's state fails the runtime's checks: {report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("try-state: {report}");
}

/// A `cacheon` command.
pub fn cacheon() -> Command {
    Command::new(cacheon_bin())
}

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

/// A dev node: `--dev` with manual sealing, a finalized block every `block_ms`. Its chain
/// lives in `<dir>/node` (not `--tmp`), so [`DevNode::restart`] continues the same chain.
pub struct DevNode {
    pub url: String,
    pub log: PathBuf,
    base: PathBuf,
    block_ms: u64,
    ports: (u16, u16, u16),
    child: Option<Child>,
}

impl DevNode {
    /// Starts a dev node sealing a finalized block every `block_ms` and waits for its RPC.
    pub fn start(dir: &Path, block_ms: u64) -> DevNode {
        let ports = (free_port(), free_port(), free_port());
        let mut node = DevNode {
            url: format!("ws://127.0.0.1:{}", ports.0),
            log: dir.join("node.log"),
            base: dir.join("node"),
            block_ms,
            ports,
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
        let (rpc, p2p, prom) = self.ports;
        let mut cmd = Command::new(node_bin());
        // The node keeps off the CPU the lanes time their runs on: it seals a block every
        // `block_ms` and would otherwise add to the timing noise of every attempt.
        if let Some(cpus) = cpus_off_the_lanes() {
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
            .args(["--dev", "--no-telemetry", "--no-mdns"])
            .arg("--base-path")
            .arg(&self.base)
            .args(["--dev-block-time", &self.block_ms.to_string()])
            .args(["--rpc-port", &rpc.to_string(), "--port", &p2p.to_string()])
            .args(["--prometheus-port", &prom.to_string()])
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start cacheon-node");
        self.child = Some(child);
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", rpc)).is_err() {
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            assert!(
                exited.is_none() && start.elapsed() < Duration::from_secs(120),
                "node RPC never opened (exit: {exited:?})\n{}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        eprintln!("dev node up at {} (log {})", self.url, self.log.display());
    }

    /// Stops the node (SIGKILL: a crash, not a clean shutdown) and waits until it is gone.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
            eprintln!("stopped the dev node");
        }
    }

    /// Starts the node again on the same chain, ports and log.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    pub fn log_tail(&self) -> String {
        tail(&self.log, 30)
    }
}

impl Drop for DevNode {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The last `n` lines of a file, headed by its path.
pub fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    format!(
        "--- last lines of {} ---\n{}",
        path.display(),
        lines[lines.len().saturating_sub(n)..].join("\n")
    )
}

/// Runs `cacheon --json args…`: exit code, every JSON line of stdout, stderr.
pub fn run_lines(args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = cacheon()
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

/// What `cacheon watch` saw of one proposal until it ended or `secs` ran out.
pub struct Watched {
    /// `cacheon watch`'s exit code: 0 crowned, 1 another end, 5 out of time or no chain.
    pub code: i32,
    pub events: Vec<Value>,
}

impl Watched {
    /// The events' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| e["event"].as_str())
            .collect()
    }
}

/// Runs `cacheon watch ID --for-secs SECS` against `url` and prints the event names seen.
pub fn watch(url: &str, id: u64, secs: u64) -> Watched {
    let (code, events, _) = run_lines(&[
        "watch",
        &id.to_string(),
        "--url",
        url,
        "--for-secs",
        &secs.to_string(),
    ]);
    let w = Watched { code, events };
    eprintln!("proposal {id}: watch exited {code}, events {:?}", w.names());
    w
}

/// Commits and reveals `bundle` as `suri` (the salt kept in `state`); returns the proposal id.
pub fn propose(url: &str, state: &Path, bundle: &Path, suri: &str) -> u64 {
    let (state, bundle) = (state.to_str().unwrap(), bundle.to_str().unwrap());
    eprintln!("waiting for: {suri}'s commit and reveal of {bundle}");
    let step = |name: &str| {
        let args = [
            name,
            bundle,
            "--suri",
            suri,
            "--url",
            url,
            "--state-dir",
            state,
        ];
        let (code, lines, err) = run_lines(&args);
        assert_eq!(code, 0, "{name} {bundle}: {lines:?}\n{err}");
        lines
    };
    step("commit");
    let id = step("reveal")[0]["proposal"]
        .as_u64()
        .expect("the reveal names its proposal");
    eprintln!("revealed as proposal {id}");
    id
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
        let mut cmd = cacheon();
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

/// The node's log tail and each validator's, for failure messages.
pub fn diagnostics(node: &DevNode, validators: &[&Validator]) -> String {
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

/// One Cacheon event seen in a finalized block.
pub struct Seen {
    pub block: u64,
    /// The event's name (`Crowned`, `Retired`, …).
    pub name: String,
    /// The event with its fields, ids as text.
    pub text: String,
    pub event: CacheonEvent,
}

/// Follows a node's finalized blocks over RPC and keeps every Cacheon event in them.
/// Reconnects when the node goes away (a restart) and continues where it was.
pub struct Chain {
    url: String,
    rt: tokio::runtime::Runtime,
    client: Option<cacheon::chain::Client>,
    /// The next block whose events have not been read.
    next: u64,
    pub seen: Vec<Seen>,
}

type At = subxt::client::ClientAtBlock<
    subxt::PolkadotConfig,
    subxt::client::OnlineClientAtBlockImpl<subxt::PolkadotConfig>,
>;

impl Chain {
    pub fn new(url: &str) -> Chain {
        Chain {
            url: url.to_string(),
            rt: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap(),
            client: None,
            next: 1,
            seen: Vec::new(),
        }
    }

    fn client(&mut self) -> Result<cacheon::chain::Client, String> {
        if let Some(c) = &self.client {
            return Ok(c.clone());
        }
        let c = self
            .rt
            .block_on(cacheon::chain::connect(&self.url, Duration::from_secs(5)))
            .map_err(|e| e.to_string())?;
        self.client = Some(c.clone());
        Ok(c)
    }

    fn at_finalized(&mut self) -> Result<At, String> {
        let client = self.client()?;
        let r = self.rt.block_on(client.at_current_block());
        r.map_err(|e| {
            self.client = None;
            e.to_string()
        })
    }

    /// Reads the events of every finalized block not read yet. Returns the finalized
    /// block number, or why the node could not be read (the caller retries).
    pub fn poll(&mut self) -> Result<u64, String> {
        let head = self.at_finalized()?.block_number();
        let client = self.client()?;
        while self.next <= head {
            let n = self.next;
            let events = self.rt.block_on(async {
                let at = client.at_block(n).await.map_err(|e| e.to_string())?;
                at.events().fetch().await.map_err(|e| e.to_string())
            });
            let events = events.inspect_err(|_| self.client = None)?;
            for ev in events.iter() {
                let ev = ev.map_err(|e| e.to_string())?;
                if ev.pallet_name() != "Cacheon" {
                    continue;
                }
                let name = ev.event_name().to_string();
                let event = match ev.decode_as::<api::Event>() {
                    Ok(api::Event::Cacheon(e)) => e,
                    Ok(_) => continue,
                    Err(e) => return Err(format!("decoding {name} in block #{n}: {e}")),
                };
                let text = readable(&format!("{event:?}"));
                eprintln!("  #{n:<5} {text}");
                self.seen.push(Seen {
                    block: n,
                    name,
                    text,
                    event,
                });
            }
            self.next = n + 1;
        }
        Ok(head)
    }

    /// Every Cacheon event seen so far, one per line.
    pub fn events_text(&self) -> String {
        let mut s = String::from("--- Cacheon events seen on chain ---\n");
        for e in &self.seen {
            s.push_str(&format!("#{:<5} {}\n", e.block, e.text));
        }
        s
    }

    /// Polls until an event satisfies `want` (or `timeout` passes: then it panics with every
    /// event seen and `context()`). Prints what it waits for. Returns the event's index in
    /// [`Chain::seen`].
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        want: impl Fn(&Seen) -> bool,
        context: impl Fn() -> String,
    ) -> usize {
        self.wait_for_from(0, what, timeout, want, context)
    }

    /// As [`Chain::wait_for`], looking only at events from index `from` of [`Chain::seen`].
    pub fn wait_for_from(
        &mut self,
        from: usize,
        what: &str,
        timeout: Duration,
        want: impl Fn(&Seen) -> bool,
        context: impl Fn() -> String,
    ) -> usize {
        eprintln!("waiting for: {what} ({} s budget)", timeout.as_secs());
        let start = Instant::now();
        loop {
            let last_error = self.poll().err();
            if let Some(i) = self.seen.iter().skip(from).position(&want) {
                eprintln!("saw: {what} after {:.0} s", start.elapsed().as_secs_f64());
                return from + i;
            }
            if start.elapsed() > timeout {
                panic!(
                    "did not see {what} within {} s{}\n{}\n{}",
                    timeout.as_secs(),
                    last_error
                        .map(|e| format!(" (last RPC error: {e})"))
                        .unwrap_or_default(),
                    self.events_text(),
                    context()
                );
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Waits until the finalized head is above `block`; returns it. Fails with every event
    /// seen and `context()` after `timeout`.
    pub fn wait_head_above(
        &mut self,
        block: u64,
        timeout: Duration,
        context: impl Fn() -> String,
    ) -> u64 {
        eprintln!(
            "waiting for: a finalized block after #{block} ({} s budget)",
            timeout.as_secs()
        );
        let start = Instant::now();
        loop {
            let head = self.poll();
            if let Ok(h) = head {
                if h > block {
                    eprintln!("saw: finalized block #{h}");
                    return h;
                }
            }
            if start.elapsed() > timeout {
                panic!(
                    "the finalized head did not pass #{block} within {} s (last: {head:?})\n{}\n{}",
                    timeout.as_secs(),
                    self.events_text(),
                    context()
                );
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Waits until proposal `id` is crowned; fails at once (with every event seen and
    /// `context()`) if it ends any other way first. Returns the index of its `Crowned` event.
    pub fn wait_crowned(
        &mut self,
        id: u64,
        timeout: Duration,
        context: impl Fn() -> String,
    ) -> usize {
        let what = format!("proposal {id} to be leased, passed by two validators and crowned");
        let at = self.wait_for(
            &what,
            timeout,
            |e| proposal_of(&e.event) == Some(id) && is_end(&e.event),
            &context,
        );
        if !matches!(self.seen[at].event, CacheonEvent::Crowned { .. }) {
            let msg = format!(
                "proposal {id} ended without a crown: {}",
                self.seen[at].text
            );
            self.fail(&msg, &context());
        }
        at
    }

    /// Fails the test with `msg`, every event seen and `context`.
    pub fn fail(&mut self, msg: &str, context: &str) -> ! {
        let _ = self.poll();
        panic!("{msg}\n{}\n{context}", self.events_text())
    }

    /// The active reward claims at the finalized block: (proposal, miner, target, speedup).
    pub fn claims(&mut self) -> Vec<(u64, String, String, u32)> {
        let at = self.at_finalized().expect("read the finalized block");
        self.rt.block_on(async {
            let mut out = Vec::new();
            let mut it = at
                .storage()
                .iter(api::storage().cacheon().claims(), ())
                .await
                .expect("iterate claims");
            while let Some(kv) = it.next().await {
                let kv = kv.expect("a claim");
                let proposal = kv
                    .key()
                    .ok()
                    .and_then(|k| k.part(0))
                    .and_then(|p| p.decode_as::<u64>().ok().flatten())
                    .expect("a claim's proposal id");
                let c = kv.value().decode().expect("decode a claim");
                out.push((
                    proposal,
                    c.miner.to_string(),
                    String::from_utf8_lossy(&c.target.0).into_owned(),
                    c.speedup_ppm,
                ));
            }
            out.sort();
            out
        })
    }
}

/// The proposal an event is about, if any.
pub fn proposal_of(e: &CacheonEvent) -> Option<u64> {
    use CacheonEvent as E;
    match e {
        E::Revealed { proposal, .. }
        | E::Withdrawn { proposal }
        | E::Leased { proposal, .. }
        | E::PassRecorded { proposal, .. }
        | E::Failed { proposal, .. }
        | E::AttestationsDisagreed { proposal, .. }
        | E::NoDecisionRecorded { proposal, .. }
        | E::LeaseExpired { proposal, .. }
        | E::AttestationStale { proposal, .. }
        | E::PassDropped { proposal, .. }
        | E::ProposalDropped { proposal, .. }
        | E::Expired { proposal, .. }
        | E::ReproductionTimedOut { proposal, .. }
        | E::FailRecorded { proposal, .. }
        | E::DepositSlashed { proposal, .. }
        | E::ContentReclaimed { proposal, .. }
        | E::Crowned { proposal, .. }
        | E::Retired { proposal, .. } => Some(*proposal),
        _ => None,
    }
}

/// Whether the event ends a proposal's way to a crown (the crown included).
fn is_end(e: &CacheonEvent) -> bool {
    use CacheonEvent as E;
    matches!(
        e,
        E::Crowned { .. }
            | E::Failed { .. }
            | E::AttestationsDisagreed { .. }
            | E::Expired { .. }
            | E::ReproductionTimedOut { .. }
            | E::Withdrawn { .. }
            | E::ProposalDropped { .. }
    )
}

/// `{:?}` output with every `BoundedVec([…])` of printable ASCII bytes shown as its text.
fn readable(debug: &str) -> String {
    const OPEN: &str = "BoundedVec([";
    let mut out = String::new();
    let mut rest = debug;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        let Some(end) = after.find("])") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let bytes: Option<Vec<u8>> = after[..end]
            .split(',')
            .map(|b| b.trim().parse::<u8>().ok())
            .collect();
        match bytes {
            Some(b) if !b.is_empty() && b.iter().all(|c| c.is_ascii_graphic()) => {
                out.push('"');
                out.push_str(&String::from_utf8(b).unwrap());
                out.push('"');
            }
            _ => out.push_str(&rest[i..i + OPEN.len() + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}
