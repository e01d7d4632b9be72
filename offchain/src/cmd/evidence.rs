//! `cacheon evidence DIGEST [--from URL]`: one attempt's report, from the local evidence
//! folder or fetched from a validator's HTTP endpoint (`cacheon validator
//! --prometheus-port`: `/evidence/<digest>.json`), refused unless its SHA-256 is the digest
//! (the one the chain's verdict events name), kept in the local folder, and printed: verdict,
//! stage, reason, the failing case or compiler log, the speed interval and reads (`--json`:
//! the report itself).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use cacheon::exit;
use serde_json::Value;

use super::Out;

/// A report larger than this is refused unread (a validator's reports are tens of KB).
const MAX_REPORT_BYTES: u64 = 64 << 20;

/// The report's JSON, if `bytes` hash to `digest` (as [`cacheon::evidence::parse_digest`]
/// gives it).
pub fn verified_report(digest: &str, bytes: &[u8]) -> Result<Value, String> {
    let got = hex::encode(cacheon_primitives::bundle::content_hash(bytes));
    if got != digest {
        return Err(format!(
            "the report served is not the one the digest names (its SHA-256 is {got}): refused"
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| format!("the report is not JSON: {e}"))
}

/// GET `url` + `/` + `path` (plain HTTP, a validator's endpoint): the status code and the
/// body, refused when the answer is larger than `limit` bytes or not whole within `timeout`.
pub fn http_get(
    url: &str,
    path: &str,
    timeout: Duration,
    limit: usize,
) -> Result<(u16, Vec<u8>), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("`{url}` is not an http:// URL"))?;
    let (host, prefix) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let addr = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    let mut sock = std::net::ToSocketAddrs::to_socket_addrs(&addr)
        .map_err(|e| format!("{addr}: {e}"))?
        .find_map(|a| TcpStream::connect_timeout(&a, timeout).ok())
        .ok_or_else(|| format!("cannot connect to {addr}"))?;
    let path = format!("/{}/{path}", prefix.trim_matches('/')).replace("//", "/");
    let request = format!("GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n");
    sock.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    sock.write_all(request.as_bytes())
        .map_err(|e| format!("writing to {addr}: {e}"))?;
    // One deadline for the whole answer: an endpoint that trickles bytes gets no longer.
    let deadline = std::time::Instant::now() + timeout;
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{addr}: no whole answer within {} s",
                timeout.as_secs()
            ));
        }
        sock.set_read_timeout(Some(left))
            .map_err(|e| e.to_string())?;
        let n = sock
            .read(&mut buf)
            .map_err(|e| format!("reading from {addr}: {e}"))?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if raw.len() > limit {
            return Err(format!("{addr}: the answer is larger than {limit} bytes"));
        }
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("not an HTTP response")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("not an HTTP response")?;
    Ok((status, raw[split + 4..].to_vec()))
}

/// Report `digest` fetched from the endpoint `from`, checked against the digest and kept in
/// `store`: the report and where it was saved, or why not with the exit code that says so
/// (2 not published there, 1 the bytes are not the digest's, 5 unreachable).
pub fn fetch_checked(
    from: &str,
    digest: &str,
    store: &std::path::Path,
    timeout: Duration,
) -> Result<(Value, PathBuf), (String, i32)> {
    let limit = MAX_REPORT_BYTES as usize + 64 * 1024;
    let (status, body) = http_get(from, &format!("evidence/{digest}.json"), timeout, limit)
        .map_err(|e| (e, exit::CHAIN_UNAVAILABLE))?;
    if status == 404 {
        return Err((
            format!(
                "{from} publishes no report {digest} (none, or its attestation is not final yet)"
            ),
            exit::USAGE,
        ));
    }
    if status != 200 {
        return Err((
            format!("{from} answered HTTP {status}"),
            exit::CHAIN_UNAVAILABLE,
        ));
    }
    let report = verified_report(digest, &body).map_err(|e| (e, exit::FAIL))?;
    let (_, path) = cacheon::evidence::store(store, &body).map_err(|e| {
        (
            format!("saving under {}: {e}", store.display()),
            exit::USAGE,
        )
    })?;
    Ok((report, path))
}

/// Where `cacheon status` looks for the reports its verdicts name.
#[derive(Clone)]
pub struct Fetch {
    /// Validators' endpoints, tried in order.
    pub from: Vec<String>,
    /// The local evidence folder (looked in first; fetched reports are kept there).
    pub store: PathBuf,
    pub timeout: Duration,
}

impl Fetch {
    /// Report `digest`: from the local folder if it is there, else from the first endpoint
    /// that serves it (checked and kept). `Err` says why none did; `Ok(None)` when there is
    /// nowhere to look.
    pub fn report(&self, digest: &str) -> Result<Option<(Value, PathBuf)>, String> {
        if let Ok(bytes) = cacheon::evidence::load(&self.store, digest) {
            if let Ok(r) = serde_json::from_slice(&bytes) {
                return Ok(Some((r, self.store.join(format!("{digest}.json")))));
            }
        }
        let mut why = Vec::new();
        for from in &self.from {
            match fetch_checked(from, digest, &self.store, self.timeout) {
                Ok(found) => return Ok(Some(found)),
                Err((e, _)) => why.push(e),
            }
        }
        if why.is_empty() {
            Ok(None)
        } else {
            Err(why.join("; "))
        }
    }
}

/// `digest` from the local evidence folder `store` (checked against its name), or, with
/// `from`, fetched from a validator's endpoint, checked, and kept in `store`.
pub fn evidence(out: &Out, digest: &str, from: Option<&str>, store: PathBuf, timeout: u64) -> i32 {
    let Some(digest) = cacheon::evidence::parse_digest(digest) else {
        return out.error("a digest is 64 hex digits", exit::USAGE);
    };
    let (report, saved) = match from {
        // `load` checks the stored bytes against their name.
        None => match cacheon::evidence::load(&store, &digest) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(r) => (r, store.join(format!("{digest}.json"))),
                Err(e) => return out.error(&format!("the report is not JSON: {e}"), exit::FAIL),
            },
            Err(e) => return out.error(&format!("evidence {digest}: {e}"), exit::USAGE),
        },
        Some(from) => match fetch_checked(from, &digest, &store, Duration::from_secs(timeout)) {
            Ok(found) => found,
            Err((e, code)) => return out.error(&e, code),
        },
    };
    out.emit(report.clone(), || describe(&report, &digest, &saved));
    exit::OK
}

/// The report in a few lines: verdict and where it was decided, the failing detail (the
/// case, or the build log's last lines), the speed interval and the reads' range.
/// `text` without control characters (a report comes from a validator: no terminal escape
/// sequences reach the miner's terminal).
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

pub fn describe(r: &Value, digest: &str, saved: &std::path::Path) -> String {
    let s = |v: &Value| {
        printable(
            &v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string()),
        )
    };
    let mut lines = vec![format!(
        "report {digest} (SHA-256 checked), arena {}, seed {}",
        s(&r["arena"]),
        s(&r["seed"])
    )];
    lines.push(format!(
        "  verdict {}{}",
        s(&r["verdict"]),
        match (r["stage"].as_str(), r["reason"].as_str()) {
            (Some(stage), Some(reason)) => format!(": {reason} at {stage}"),
            _ => String::new(),
        }
    ));
    if let Some(d) = r["detail"].as_str().filter(|d| !d.is_empty()) {
        lines.push(format!("  {}", printable(d)));
    }
    if let Some(log) = r["screens"]["build_log"]
        .as_str()
        .filter(|l| !l.trim().is_empty())
    {
        let tail: Vec<&str> = log.lines().rev().take(8).collect();
        lines.push("  build log (last lines):".into());
        lines.extend(
            tail.into_iter()
                .rev()
                .map(|l| format!("    {}", printable(l))),
        );
    }
    let sp = &r["speed"];
    if let Some(iv) = sp["interval"].as_object() {
        let f = |k: &str| iv.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        lines.push(format!(
            "  speedup {:.4} (95 % interval {:.4}..{:.4}) over {} pairs",
            f("speedup"),
            f("low"),
            f("high"),
            s(&iv["pairs"])
        ));
    }
    let range = |k: &str| -> Option<String> {
        let v: Vec<f64> = sp[k].as_array()?.iter().filter_map(Value::as_f64).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!v.is_empty()).then(|| format!("{lo:.2}-{hi:.2} ms ({} reads)", v.len()))
    };
    if let (Some(b), Some(c)) = (range("baseline_ms"), range("candidate_ms")) {
        lines.push(format!("  baseline {b}, candidate {c}"));
    }
    let c = &r["contract"];
    if let Some(block) = c["block"].as_u64() {
        let short = |k: &str| {
            c[k].as_str()
                .map_or("?".to_string(), |d| d.chars().take(12).collect())
        };
        lines.push(format!(
            "  measured under the arena's contract at block #{block}: generation {}, margin {} ppm, noise {} ppm, workload {}…, stock {}…",
            s(&c["generation"]),
            s(&c["min_margin_ppm"]),
            s(&c["max_noise_ppm"]),
            short("workload_digest"),
            short("stock_digest"),
        ));
    }
    lines.push(format!("  saved in {}", saved.display()));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_must_hash_to_its_digest() {
        let bytes = br#"{"verdict":"fail","reason":"Incorrect"}"#;
        let digest = hex::encode(cacheon_primitives::bundle::content_hash(bytes));
        let r = verified_report(&digest, bytes).unwrap();
        assert_eq!(r["reason"], "Incorrect");
        let parsed = cacheon::evidence::parse_digest(&format!("0x{}", digest.to_uppercase()));
        assert_eq!(parsed.as_deref(), Some(digest.as_str()));
        let tampered = br#"{"verdict":"pass","reason":"Incorrect"}"#;
        let e = verified_report(&digest, tampered).unwrap_err();
        assert!(e.contains("refused"), "{e}");
    }
}

/// The attempt the holder of `proposal`'s lease is running now, as its endpoint publishes
/// it on `/attempt` (stage, cases or pairs read, seconds run; `cacheon validator`'s
/// `live.rs`), with the holder's account added; `None` when no lease is held, the holder
/// published no endpoint, or it does not answer within two seconds about this proposal.
pub async fn running_attempt(
    at: &cacheon::chain::At,
    proposal: u64,
    status: &cacheon::chain::ProposalStatus,
) -> Option<Value> {
    use cacheon::chain::ProposalStatus as S;
    let lease = match status {
        S::Primary { lease } | S::Reproduction { lease, .. } => lease,
        _ => return None,
    };
    let url = cacheon::chain::reads::evidence_endpoint(at, &lease.validator)
        .await
        .ok()
        .flatten()
        .filter(|u| !u.is_empty())?;
    let (status, body) = tokio::task::spawn_blocking(move || {
        http_get(&url, "attempt", Duration::from_secs(2), 64 * 1024)
    })
    .await
    .ok()?
    .ok()?;
    let mut attempt = serde_json::from_slice::<Value>(&body).ok()?["attempt"].take();
    let ours = status == 200
        && attempt["proposal"].as_u64() == Some(proposal)
        && attempt["kind"] == "lease";
    ours.then(|| {
        attempt["validator"] = Value::String(lease.validator.to_string());
        attempt
    })
}
