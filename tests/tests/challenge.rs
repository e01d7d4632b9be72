//! A wrong crown challenged and revoked, end to end with the real node, the `cacheon` CLI
//! and two real validator processes. Root (sudo, Alice on the dev chain) registers Charlie's
//! key as an operator of `cpu-tiny` and sets a required bond there; Alice, Bob, Charlie and
//! Dave bond it (`cacheon operator bond`). Eve's `fail-wrong-math` (wrong on inputs: its
//! verification FAILs `Incorrect`) is crowned by two colluding operators, the test itself as
//! Alice and Bob PASSing it unmeasured, and an epoch's weights give it everything. Ferdie
//! challenges it (`cacheon challenge`); Charlie's and Dave's validators lease the challenge,
//! re-qualify the crown's bundle from chain storage against the stack without it, FAIL it
//! and answer. The crown is revoked: the proposal is `Revoked`, the incumbent stack (the
//! pallet's `incumbent_stack` view) has its slot back to stock, its claim is gone and the
//! next weight vector (`weight_vector`) leaves Eve out; Alice's and Bob's bonds are slashed,
//! half of it to Ferdie, whose bond comes back. Then the validators' index, metrics and
//! published evidence, the explorer's arena page and `cacheon-try-state`. Needs `cacheon`,
//! `cacheon-node` and `cacheon-try-state` built.

use std::time::Duration;

use cacheon::chain::{self, api, AccountId, ApiVerdict};
use cacheon_e2e::{
    assert_try_state, crown_unmeasured, diagnostics, free_port, propose, repo_root, run_lines,
    sudo, CacheonEvent, Chain, Node, RuntimeCall, TestDir, Validator,
};
use serde_json::Value;

const UNIT: u128 = 1_000_000_000_000;
/// What Root requires of an operator in `cpu-tiny`, and what each one bonds.
const BOND: u128 = 1_000 * UNIT;
const ARENA: &str = "cpu-tiny";

type FailReason = api::runtime_types::cacheon_primitives::verdict::FailReason;
type CacheonCall = api::runtime_types::pallet_cacheon::pallet::Call;

fn account(suri: &str) -> AccountId {
    chain::account(&chain::signer(Some(suri), None).unwrap())
}

/// Reads of the finalized state a client makes: balances and the pallet's view functions.
struct Reads {
    rt: tokio::runtime::Runtime,
    client: chain::Client,
}

impl Reads {
    fn new(url: &str) -> Reads {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let client = rt
            .block_on(chain::connect(url, Duration::from_secs(30)))
            .expect("connect");
        Reads { rt, client }
    }

    fn at(&self) -> chain::At {
        self.rt.block_on(self.client.at_current_block()).unwrap()
    }

    fn free_balance(&self, who: &AccountId) -> u128 {
        let at = self.at();
        let info = self
            .rt
            .block_on(chain::reads::fetch(
                &at,
                api::storage().system().account(),
                (*who,),
            ))
            .unwrap()
            .expect("an endowed account");
        info.data.free
    }

    /// The `incumbent_stack` view: the arena's generation and `(target, proposal)` entries.
    fn incumbent_stack(&self) -> (u32, Vec<(String, u64)>) {
        let at = self.at();
        let call = api::view_functions()
            .cacheon()
            .incumbent_stack(chain::bounded(ARENA.as_bytes()));
        let (generation, entries) = self
            .rt
            .block_on(chain::view(&at, call))
            .unwrap()
            .expect("cpu-tiny");
        let entries = entries
            .into_iter()
            .map(|(t, p, _)| (String::from_utf8_lossy(&t.0).into_owned(), p))
            .collect();
        (generation, entries)
    }

    /// The `weight_vector` view: the last epoch's weights.
    fn weight_vector(&self) -> Vec<(AccountId, u32)> {
        let at = self.at();
        let call = api::view_functions().cacheon().weight_vector();
        self.rt.block_on(chain::view(&at, call)).unwrap()
    }
}

/// `cacheon status ID` as a person reads it (printed to the test's log).
fn status_text(url: &str, id: u64) -> String {
    let out = cacheon_e2e::cacheon()
        .args(["status", &id.to_string(), "--url", url])
        .output()
        .expect("run cacheon status");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    eprintln!("cacheon status {id}:\n{text}");
    text
}

/// Runs `cacheon --json args… --url URL`; panics unless it exits `want`. Its JSON lines.
fn cli(url: &str, want: i32, args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.extend(["--url", url]);
    let (code, lines, err) = run_lines(&all);
    assert_eq!(code, want, "cacheon {args:?}: {lines:?}\n{err}");
    lines
}

/// One HTTP GET on loopback: status code and body.
fn http_get(url: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut s = std::net::TcpStream::connect(host).unwrap_or_else(|e| panic!("{url}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let code = raw.split_whitespace().nth(1).and_then(|c| c.parse().ok());
    let body = raw.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (code.unwrap_or(0), body.to_string())
}

/// Root registers Charlie's key as its own operator in `cpu-tiny` and requires [`BOND`];
/// Alice, Bob, Charlie and Dave bond it with `cacheon operator bond`, side by side.
fn register_and_bond(url: &str) {
    eprintln!("waiting for: Charlie registered, the required bond set, four operators bonded");
    let arena = || chain::bounded(ARENA.as_bytes());
    let charlie = account("//Charlie");
    sudo(
        url,
        RuntimeCall::Cacheon(CacheonCall::add_validator {
            arena: arena(),
            validator: charlie,
            operator: charlie,
        }),
    );
    sudo(
        url,
        RuntimeCall::Cacheon(CacheonCall::set_required_bond {
            arena: arena(),
            amount: BOND,
        }),
    );
    let bonds: Vec<_> = ["//Alice", "//Bob", "//Charlie", "//Dave"]
        .into_iter()
        .map(|suri| {
            let url = url.to_string();
            std::thread::spawn(move || {
                let amount = (BOND / UNIT).to_string();
                let args = ["operator", "bond", ARENA, &amount, "--suri", suri];
                cli(&url, 0, &args)
            })
        })
        .collect();
    for b in bonds {
        let lines = b.join().unwrap();
        assert_eq!(lines[0]["total"], BOND.to_string(), "{lines:?}");
    }
}

/// The operator's bond in `cpu-tiny` as `cacheon operator show` reads it.
fn bonded(url: &str, suri: &str) -> u128 {
    let who = account(suri).to_string();
    let lines = cli(url, 0, &["operator", "show", ARENA, "--account", &who]);
    lines[0]["arenas"][0]["bonded"]
        .as_str()
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("{lines:?}"))
}

/// Ferdie challenges crown `id` with `cacheon challenge`; a second challenge is refused.
/// Returns the challenge id.
fn challenge(url: &str, id: u64) -> u64 {
    let lines = cli(
        url,
        0,
        &["challenge", &id.to_string(), "--suri", "//Ferdie"],
    );
    let opened = &lines[0];
    assert_eq!(opened["proposal"], id, "{opened}");
    assert_eq!(opened["bond"], (100 * UNIT).to_string(), "{opened}");
    assert!(
        opened["deadline"].as_u64() > opened["block"].as_u64(),
        "{opened}"
    );
    let again = cli(url, 4, &["challenge", &id.to_string(), "--suri", "//Eve"]);
    let why = again[0]["error"].as_str().unwrap_or_default();
    assert!(why.contains("AlreadyChallenged"), "{again:?}");
    let status = cli(url, 0, &["status", &id.to_string()]);
    assert_eq!(status[0]["status"], "crowned");
    assert_eq!(
        status[0]["challenge"]["challenger"],
        account("//Ferdie").to_string()
    );
    let text = status_text(url, id);
    assert!(
        text.contains("challenged: challenge 0 by Ferdie ("),
        "{text}"
    );
    opened["challenge"].as_u64().unwrap()
}

#[test]
fn two_operators_revoke_a_colluders_wrong_crown_and_the_colluders_are_slashed() {
    let dir = TestDir::new();
    let node = Node::dev(dir.path(), 250);
    let url = node.url.clone();
    let mut chain = Chain::new(&url);
    let reads = Reads::new(&url);
    register_and_bond(&url);

    let bundle = repo_root().join("examples/cpu/fail-wrong-math");
    let id = propose(&url, &dir.path().join("eve"), &bundle, "//Eve");
    eprintln!("waiting for: proposal {id} passed by the test as Alice and Bob");
    crown_unmeasured(&url, id, 1_300_000);
    let ports = [free_port(), free_port()];
    let charlie = Validator::start("charlie", "//Charlie", &url, dir.path(), Some(ports[0]));
    let dave = Validator::start("dave", "//Dave", &url, dir.path(), Some(ports[1]));
    let ctx = || diagnostics(&node, &[&charlie, &dave]);
    let crowned = chain.wait_crowned(id, Duration::from_secs(60), ctx);
    let eve = account("//Eve");
    chain.wait_for_from(
        crowned,
        "an epoch's weights with the wrong crown: all of them to Eve",
        Duration::from_secs(60),
        |e| matches!(&e.event, CacheonEvent::WeightsSet { weights, .. } if weights.0 == [(eve, 1_000_000)]),
        ctx,
    );
    let (generation, stack) = reads.incumbent_stack();
    assert_eq!(stack, [("activation.silu_and_mul".to_string(), id)]);

    let ferdie = account("//Ferdie");
    let ferdie_before = reads.free_balance(&ferdie);
    let cid = challenge(&url, id);
    let revoked = chain.wait_for(
        "Charlie's and Dave's validators to re-qualify the crown, FAIL it and revoke it",
        Duration::from_secs(240),
        |e| matches!(e.event, CacheonEvent::CrownRevoked { proposal, .. } if proposal == id),
        ctx,
    );
    assert_revocation(&mut chain, revoked, cid, &ctx());
    assert_crown_gone(&url, &reads, &mut chain, revoked, id, generation, &ctx);
    assert_slashed(&url, &reads, &ferdie, ferdie_before);
    assert_validators_answered(&charlie, &dave, ports, cid, id, &chain);
    assert_explorer_shows(&url, dir.path(), id, cid);
    assert_try_state(&url);
}

/// The revocation's event: two FAILs `Incorrect` by Charlie and Dave, both colluders'
/// bonds slashed whole, half of it to the challenger.
fn assert_revocation(chain: &mut Chain, at: usize, cid: u64, ctx: &str) {
    let (alice, bob) = (account("//Alice"), account("//Bob"));
    let answers: Vec<(AccountId, &ApiVerdict)> = chain
        .seen
        .iter()
        .filter_map(|e| match &e.event {
            CacheonEvent::ChallengeAnswered {
                challenge,
                validator,
                verdict,
                ..
            } if *challenge == cid => Some((*validator, verdict)),
            _ => None,
        })
        .collect();
    let incorrect = |v: &ApiVerdict| {
        matches!(
            v,
            ApiVerdict::Fail {
                reason: FailReason::Incorrect
            }
        )
    };
    let mut who: Vec<AccountId> = answers.iter().map(|(v, _)| *v).collect();
    who.sort_by_key(|a| a.0);
    let mut want = vec![account("//Charlie"), account("//Dave")];
    want.sort_by_key(|a| a.0);
    if who != want || !answers.iter().all(|(_, v)| incorrect(v)) {
        chain.fail(
            &format!("want two FAIL Incorrect answers by Charlie and Dave: {answers:?}"),
            ctx,
        );
    }
    let CacheonEvent::CrownRevoked {
        challenge,
        reason,
        slashed,
        challenger_reward,
        ..
    } = &chain.seen[at].event
    else {
        unreachable!()
    };
    assert_eq!(*challenge, cid);
    assert!(matches!(reason, FailReason::Incorrect), "{reason:?}");
    assert_eq!((*slashed, *challenger_reward), (2 * BOND, BOND));
    let slashed_ops: Vec<(AccountId, u128)> = chain
        .seen
        .iter()
        .filter_map(|e| match &e.event {
            CacheonEvent::OperatorSlashed {
                operator, amount, ..
            } => Some((*operator, *amount)),
            _ => None,
        })
        .collect();
    assert_eq!(slashed_ops, [(alice, BOND), (bob, BOND)]);
}

/// The crown left: `Revoked`, its slot back to stock in the `incumbent_stack` view (the
/// generation moved on), its claim gone, and the next `weight_vector` leaves Eve out.
fn assert_crown_gone(
    url: &str,
    reads: &Reads,
    chain: &mut Chain,
    revoked: usize,
    id: u64,
    generation: u32,
    ctx: &dyn Fn() -> String,
) {
    let status = cli(url, 0, &["status", &id.to_string()]);
    assert_eq!(status[0]["status"], "revoked", "{status:?}");
    assert_eq!(status[0]["revocation"]["reason"], "Incorrect", "{status:?}");
    assert!(status[0]["challenge"].is_null(), "closed: {status:?}");
    let text = status_text(url, id);
    assert!(
        text.contains(": revoked\n") && text.contains("two operators found it wrong (Incorrect)"),
        "{text}"
    );
    assert_eq!(reads.incumbent_stack(), (generation + 1, vec![]));
    let claims = chain.claims();
    assert!(claims.iter().all(|c| c.0 != id), "{claims:?}");
    let w = chain.wait_for_from(
        revoked,
        "the next epoch's weights",
        Duration::from_secs(60),
        |e| matches!(e.event, CacheonEvent::WeightsSet { .. }),
        ctx,
    );
    let eve = account("//Eve");
    let CacheonEvent::WeightsSet { weights, .. } = &chain.seen[w].event else {
        unreachable!()
    };
    assert!(
        weights.0.iter().all(|(a, _)| *a != eve),
        "{}",
        chain.seen[w].text
    );
    assert!(reads.weight_vector().iter().all(|(a, _)| *a != eve));
}

/// Alice's and Bob's bonds are gone, Charlie's and Dave's stand; Ferdie has his bond back
/// and half of what was slashed (the challenge's fee aside).
fn assert_slashed(url: &str, reads: &Reads, ferdie: &AccountId, before: u128) {
    assert_eq!(bonded(url, "//Alice"), 0);
    assert_eq!(bonded(url, "//Bob"), 0);
    assert_eq!(bonded(url, "//Charlie"), BOND);
    assert_eq!(bonded(url, "//Dave"), BOND);
    let after = reads.free_balance(ferdie);
    assert!(
        after + UNIT >= before + BOND,
        "Ferdie had {before}, has {after}: want the bond back and {BOND} more"
    );
}

/// Each validator indexed one answered challenge lease, counts it in its metrics, and serves
/// the report its answer names; the report says what it re-qualified.
fn assert_validators_answered(
    charlie: &Validator,
    dave: &Validator,
    ports: [u16; 2],
    cid: u64,
    id: u64,
    chain: &Chain,
) {
    for (v, suri, port) in [(charlie, "//Charlie", ports[0]), (dave, "//Dave", ports[1])] {
        let rows = v.challenge_attempts();
        assert_eq!(
            rows,
            [(
                cid as i64,
                id as i64,
                "attested".into(),
                Some("fail".into())
            )],
            "{}",
            v.name
        );
        let (code, metrics) = http_get(&format!("http://127.0.0.1:{port}/metrics"));
        assert_eq!(code, 200);
        assert!(
            metrics.contains("cacheon_validator_challenge_answers_total{verdict=\"fail\"} 1"),
            "{metrics}"
        );
        let me = account(suri);
        let digest = chain
            .seen
            .iter()
            .find_map(|e| match &e.event {
                CacheonEvent::ChallengeAnswered {
                    validator,
                    evidence_digest,
                    ..
                } if *validator == me => Some(hex(evidence_digest)),
                _ => None,
            })
            .expect("its answer");
        let from = format!("http://127.0.0.1:{port}");
        let (code, lines, err) = run_lines(&["evidence", &digest, "--from", &from]);
        assert_eq!(code, 0, "{lines:?} {err}");
        assert_eq!(lines[0]["reason"], "Incorrect", "{}", lines[0]);
        assert_eq!(lines[0]["challenge"]["proposal"], id, "{}", lines[0]);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `cacheon explorer`'s arena page (its JSON twin) lists the revoked crown and the bonds.
fn assert_explorer_shows(url: &str, dir: &std::path::Path, id: u64, cid: u64) {
    let port = free_port();
    let mut explorer = cacheon_e2e::cacheon()
        .args([
            "explorer",
            "--url",
            url,
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .arg("--evidence-dir")
        .arg(dir.join("explorer-evidence"))
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("explorer.log")).unwrap())
        .spawn()
        .expect("start cacheon explorer");
    eprintln!("waiting for: the explorer's arena page to list the revoked crown (60 s budget)");
    let start = std::time::Instant::now();
    let page = loop {
        let answer = std::net::TcpStream::connect(("127.0.0.1", port))
            .ok()
            .map(|_| http_get(&format!("http://127.0.0.1:{port}/arena/{ARENA}.json")));
        if let Some((200, body)) = answer {
            let page: Value = serde_json::from_str(&body).unwrap();
            if page["stakes"]["revoked"][0]["proposal"] == id {
                break page;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the explorer never showed it"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let _ = explorer.kill();
    let _ = explorer.wait();
    let stakes = &page["stakes"];
    assert_eq!(stakes["revoked"][0]["challenge"], cid, "{stakes}");
    assert_eq!(stakes["required_bond"], BOND.to_string(), "{stakes}");
    let bonded: Vec<&str> = stakes["bonds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["operator"].as_str())
        .collect();
    let want = [
        account("//Charlie").to_string(),
        account("//Dave").to_string(),
    ];
    assert_eq!(bonded.len(), 2, "{stakes}");
    assert!(
        want.iter().all(|w| bonded.contains(&w.as_str())),
        "{stakes}"
    );
    assert_eq!(stakes["open_challenges"], serde_json::json!([]), "{stakes}");
}
