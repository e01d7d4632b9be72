//! `cacheon demo --json` (what README's first command runs): the real node and validators,
//! from the miner's pack to the crown, the next epoch's weights and the payout, then a
//! clean stop. Needs `cacheon` and `cacheon-node` built (scripts/test.sh builds them first).

use cacheon_e2e::{cacheon, node_bin};

#[test]
fn the_demo_goes_from_pack_to_payout_and_stops_everything() {
    let logs = cacheon_e2e::TestDir::new();
    eprintln!("waiting for: the whole demo on cpu-smollm2 (about 90 s)");
    let out = cacheon()
        .args(["--json", "demo", "--node"])
        .arg(node_bin())
        .arg("--keep-logs")
        .arg(logs.path())
        .output()
        .expect("run cacheon demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().expect("every line has an event"))
        .collect();
    eprintln!("{names:?}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let order = [
        "chain_started",
        "packed",
        "committed",
        "revealed",
        "leased",
        "pass_sealed",
        "leased",
        "pass_recorded",
        "pass_revealed",
        "crowned",
        "weights",
        "payout",
        "done",
    ];
    let mut at = 0;
    for want in order {
        at += names[at..]
            .iter()
            .position(|n| *n == want)
            .unwrap_or_else(|| panic!("no `{want}` after position {at}: {names:?}"));
    }
    let weights = events.iter().find(|e| e["event"] == "weights").unwrap();
    assert_eq!(
        weights["miner_ppm"], 1_000_000,
        "the only crowned miner holds all the weight"
    );
    let payout = events.iter().find(|e| e["event"] == "payout").unwrap();
    assert!(
        payout["miner_received"]
            .as_str()
            .unwrap()
            .parse::<u128>()
            .unwrap()
            > 0
    );
    // Everything it started is gone.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    assert!(
        !ps.contains(&logs.path().display().to_string()),
        "a demo process is still running:\n{ps}"
    );
}
