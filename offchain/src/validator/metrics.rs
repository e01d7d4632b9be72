//! The validator's HTTP endpoint on `127.0.0.1:PORT`: Prometheus metrics as text on
//! `/metrics`, like the node's endpoint, and its published evidence on
//! `/evidence/<digest>.json` (the report of an attempt whose attestation is finalized, the
//! bytes whose SHA-256 the chain's verdict events name; `cacheon evidence` fetches and
//! checks it), and the attempt in progress on `/attempt` (`live.rs`).

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    /// Attempts finished, by verdict (`pass`, `fail`, `no_decision`).
    pub attempts: IntCounterVec,
    /// Attestations and challenge answers finalized, and lease claims (of proposals and
    /// challenges) that succeeded, by call.
    pub attestations: IntCounterVec,
    /// Wall seconds of whole attempts (lanes included).
    pub attempt_seconds: Histogram,
    /// Proposals waiting in the served arenas' queues.
    pub queue_depth: IntGauge,
    pub last_finalized_block: IntGauge,
    /// Challenge answers finalized, by verdict (`pass`, `fail`, `no_decision`).
    pub challenge_answers: IntCounterVec,
    /// Per served arena: 1 while the chain's contract (engine digests, margin, noise) is
    /// the one this build measures, 0 while it differs (nothing is leased there).
    pub contract_agrees: IntGaugeVec,
    /// The attempt in progress, served on `/attempt`.
    pub live: super::live::LiveAttempt,
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry =
            Registry::new_custom(Some("cacheon_validator".into()), None).expect("valid prefix");
        let attempts = IntCounterVec::new(
            Opts::new("attempts_total", "Attempts finished, by verdict"),
            &["verdict"],
        )
        .expect("metric");
        let attestations = IntCounterVec::new(
            Opts::new("chain_calls_total", "Claims and attestations finalized"),
            &["call"],
        )
        .expect("metric");
        let challenge_answers = IntCounterVec::new(
            Opts::new(
                "challenge_answers_total",
                "Answers to crown challenges finalized, by verdict",
            ),
            &["verdict"],
        )
        .expect("metric");
        let attempt_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "attempt_seconds",
                "Wall time of one attempt, lanes included",
            )
            .buckets(vec![1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 120.0, 300.0, 600.0]),
        )
        .expect("metric");
        let queue_depth =
            IntGauge::new("queue_depth", "Proposals waiting in the served arenas").expect("metric");
        let last_finalized_block =
            IntGauge::new("last_finalized_block", "Last finalized block seen").expect("metric");
        let contract_agrees = IntGaugeVec::new(
            Opts::new(
                "arena_contract_agrees",
                "1 while the chain's contract for a served arena is the one this build measures, else 0",
            ),
            &["arena"],
        )
        .expect("metric");
        for m in [
            Box::new(attempts.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(attestations.clone()),
            Box::new(challenge_answers.clone()),
            Box::new(attempt_seconds.clone()),
            Box::new(queue_depth.clone()),
            Box::new(last_finalized_block.clone()),
            Box::new(contract_agrees.clone()),
        ] {
            registry.register(m).expect("unique metric");
        }
        Metrics {
            registry,
            attempts,
            attestations,
            challenge_answers,
            attempt_seconds,
            queue_depth,
            last_finalized_block,
            contract_agrees,
            live: Default::default(),
        }
    }

    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding");
        String::from_utf8(buf).expect("UTF-8 metrics")
    }

    /// Serves `/metrics`, `/attempt` and `/evidence/<digest>.json` (from `data_dir`) on `port`
    /// (127.0.0.1) until the task is dropped.
    pub async fn serve(self, port: u16, data_dir: std::path::PathBuf) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        tracing::info!(port, "Prometheus metrics on /metrics");
        loop {
            let (mut sock, _) = listener.accept().await?;
            let m = self.clone();
            let data_dir = data_dir.clone();
            tokio::spawn(async move {
                // The request head, however many reads it takes (up to 1 KiB, within 5 s).
                let mut req = Vec::with_capacity(1024);
                let mut buf = [0u8; 1024];
                let read_head = async {
                    while req.len() < 1024 && !req.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => req.extend_from_slice(&buf[..n]),
                        }
                    }
                };
                let _ = tokio::time::timeout(std::time::Duration::from_secs(5), read_head).await;
                let head = String::from_utf8_lossy(&req);
                let path = head
                    .strip_prefix("GET ")
                    .and_then(|r| r.split_whitespace().next());
                let text = |status: &'static str, body: &str| {
                    (
                        status,
                        "text/plain; version=0.0.4",
                        body.as_bytes().to_vec(),
                    )
                };
                let (status, kind, body) = match path {
                    Some("/metrics") => text("200 OK", &m.render()),
                    Some("/attempt") => ("200 OK", "application/json", m.live.json().into_bytes()),
                    Some(p) if p.starts_with("/evidence/") => {
                        let digest = p["/evidence/".len()..].trim_end_matches(".json");
                        match published(&data_dir, digest) {
                            Some(bytes) => ("200 OK", "application/json", bytes),
                            None => text("404 Not Found", "no published report with that digest\n"),
                        }
                    }
                    _ => text("404 Not Found", "not found\n"),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
            });
        }
    }
}

/// The stored report `digest` names, if its attestation is finalized (and the file still
/// hashes to its name).
fn published(data_dir: &std::path::Path, digest: &str) -> Option<Vec<u8>> {
    let digest = crate::evidence::parse_digest(digest)?;
    let db = data_dir.join("validator.sqlite");
    if !super::store::is_published(&db, &digest).unwrap_or(false) {
        return None;
    }
    crate::evidence::load(&data_dir.join("evidence"), &digest).ok()
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}
