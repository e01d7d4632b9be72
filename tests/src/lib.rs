//! Helpers for Cacheon's end-to-end tests (the tests are in `tests/`): real processes only.
//!
//! - [`Node`] (`node.rs`): a `cacheon-node` on free ports with a log file, killed when
//!   dropped; [`Node::dev`] is a dev chain whose state lives in a folder of the test's temp
//!   dir (so it can be stopped and started again on the same chain).
//! - [`Validator`] (`validator.rs`): a `cacheon validator` process on `cpu-tiny`, killed
//!   when dropped; [`diagnostics`] gathers the logs a failure should print.
//! - [`cacheon`], [`run_lines`], [`propose`], [`watch`]: the miner's side, through the
//!   `cacheon` binary.
//! - [`crown_unmeasured`], [`lease_and_attest`] (`collusion.rs`): the test as registered
//!   validators sending verdicts of its own (a fixture incumbent, a stalling operator).
//! - [`fixture_incumbent`]: the scene the supersession and atomic-target tests start from
//!   (Charlie's fixture crowned for `attention.decode`, Alice and Bob running);
//!   [`only_validators`] deregisters the dev validators a test does not run.
//! - [`Explorer`] (`explorer.rs`): a `cacheon explorer` process, and HTTP GETs of its pages.
//! - [`Chain`] (`chain.rs`): follows finalized blocks over RPC and keeps every Cacheon event
//!   it saw, so a test can say what it waits for and, when the wait fails, print the events
//!   instead of a bare timeout; it also reads the reward claims from storage.
//!
//! The binaries are the ones built into the same target directory as the test (`cargo build
//! -p cacheon -p cacheon-node`; scripts/test.sh builds them first), or those named by
//! `CACHEON_BIN` and `CACHEON_NODE_BIN`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod chain;
mod collusion;
mod explorer;
mod node;
mod validator;

pub use chain::{proposal_of, Chain, Seen};
pub use collusion::{crown_unmeasured, lease_and_attest, proposal_status, reveal, Opening, Status};
pub use explorer::{get, get_json, Explorer};
pub use node::{finalized_number, free_port, Node};
pub use validator::{diagnostics, Validator};

pub use cacheon::chain::api::cacheon::Event as CacheonEvent;

/// A call of the runtime, as sudo takes it.
pub type RuntimeCall = cacheon::chain::api::runtime_types::cacheon_runtime::RuntimeCall;

/// Submits `call` as Root through Alice's sudo key on the dev chain at `url` and waits until
/// it is finalized.
pub fn sudo(url: &str, call: RuntimeCall) {
    use cacheon::chain::{self, api};
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = chain::connect(url, std::time::Duration::from_secs(30))
            .await
            .unwrap();
        let alice = chain::signer(Some("//Alice"), None).unwrap();
        chain::submit(
            &client,
            &api::transactions().sudo().sudo(call),
            &alice,
            std::time::Duration::from_secs(60),
        )
        .await
        .expect("the sudo call is finalized");
    });
}
pub use cacheon::chain::api::runtime_types::pallet_cacheon::types::RetireCause;

/// The validators the development genesis registers in every arena (runtime/src/genesis.rs).
pub const DEV_VALIDATORS: [&str; 3] = ["//Alice", "//Bob", "//Dave"];

/// Deregisters from `arena` every development validator not in `running` (through sudo), so
/// that the registered operators are the ones the test runs. A test that runs fewer
/// validators than are registered must: a NoDecision (an honest one, on a loaded machine)
/// excludes its operator from the proposal for as long as another registered operator may
/// take it, and an operator nobody runs "may" for ever, so the proposal waits for it until
/// its wait times out. With only the running ones registered, the exclusion lifts when the
/// others cannot take the proposal, and the staller measures again.
pub fn only_validators(url: &str, arena: &str, running: &[&str]) {
    use cacheon::chain::{self, api};
    type CacheonCall = api::runtime_types::pallet_cacheon::pallet::Call;
    for suri in DEV_VALIDATORS.iter().filter(|s| !running.contains(s)) {
        let key = chain::account(&chain::signer(Some(suri), None).unwrap());
        eprintln!("deregistering {suri} from {arena}: this test does not run it");
        sudo(
            url,
            RuntimeCall::Cacheon(CacheonCall::remove_validator {
                arena: chain::bounded(arena.as_bytes()),
                validator: key,
            }),
        );
    }
}

/// The scene the supersession and atomic-target tests start from: a dev chain (500 ms
/// blocks) whose `attention.decode` incumbent is Charlie's fixture
/// (`tests/fixtures/attention-decode-twice`, passed at 1.05 by the test as Alice and Bob,
/// measuring nothing), with Alice's and Bob's validators running, the only ones registered
/// for `cpu-tiny`. Fields drop in order: the validators, the follower, the node, the folder.
pub struct FixtureIncumbent {
    pub alice: Validator,
    pub bob: Validator,
    pub chain: Chain,
    pub node: Node,
    pub dir: TestDir,
    /// Charlie's proposal, and the index of its `Crowned` event in `chain.seen`.
    pub proposal: u64,
    pub crowned: usize,
}

pub fn fixture_incumbent() -> FixtureIncumbent {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 500);
    only_validators(&node.url, "cpu-tiny", &["//Alice", "//Bob"]);
    let mut chain = Chain::new(&node.url);
    let proposal = propose(
        &node.url,
        &dir.path().join("charlie"),
        &repo_root().join("tests/fixtures/attention-decode-twice"),
        "//Charlie",
    );
    eprintln!("waiting for: proposal {proposal} passed by the test as Alice and Bob");
    crown_unmeasured(&node.url, proposal, 1_050_000);
    let alice = Validator::start("alice", "//Alice", &node.url, dir.path(), None);
    let bob = Validator::start("bob", "//Bob", &node.url, dir.path(), None);
    let crowned = chain.wait_crowned(proposal, std::time::Duration::from_secs(60), || {
        diagnostics(&node, &[&alice, &bob])
    });
    FixtureIncumbent {
        alice,
        bob,
        chain,
        node,
        dir,
        proposal,
        crowned,
    }
}

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
    propose_in("cpu-tiny", url, state, bundle, suri)
}

/// [`propose`] in `arena` (the commit names it; the reveal takes it from the commit).
pub fn propose_in(arena: &str, url: &str, state: &Path, bundle: &Path, suri: &str) -> u64 {
    let (state, bundle) = (state.to_str().unwrap(), bundle.to_str().unwrap());
    eprintln!("waiting for: {suri}'s commit and reveal of {bundle} in {arena}");
    let step = |name: &str, extra: &[&str]| {
        let mut args = vec![
            name,
            bundle,
            "--suri",
            suri,
            "--url",
            url,
            "--state-dir",
            state,
        ];
        args.extend(extra);
        let (code, lines, err) = run_lines(&args);
        assert_eq!(code, 0, "{name} {bundle}: {lines:?}\n{err}");
        lines
    };
    step("commit", &["--arena", arena]);
    let id = step("reveal", &[])[0]["proposal"]
        .as_u64()
        .expect("the reveal names its proposal");
    eprintln!("revealed as proposal {id}");
    id
}
