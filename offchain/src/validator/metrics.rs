//! The validator's Prometheus metrics, served as text on `http://HOST:PORT/metrics` like the
//! node's endpoint.

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    /// Attempts finished, by verdict (`pass`, `fail`, `no_decision`).
    pub attempts: IntCounterVec,
    /// Attestations finalized, and lease claims that succeeded.
    pub attestations: IntCounterVec,
    /// Wall seconds of whole attempts (lanes included).
    pub attempt_seconds: Histogram,
    /// Proposals waiting in the served arenas' queues.
    pub queue_depth: IntGauge,
    pub last_finalized_block: IntGauge,
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
        for m in [
            Box::new(attempts.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(attestations.clone()),
            Box::new(attempt_seconds.clone()),
            Box::new(queue_depth.clone()),
            Box::new(last_finalized_block.clone()),
        ] {
            registry.register(m).expect("unique metric");
        }
        Metrics {
            registry,
            attempts,
            attestations,
            attempt_seconds,
            queue_depth,
            last_finalized_block,
        }
    }

    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding");
        String::from_utf8(buf).expect("UTF-8 metrics")
    }

    /// Serves `/metrics` on `port` (127.0.0.1) until the task is dropped.
    pub async fn serve(self, port: u16) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        tracing::info!(port, "Prometheus metrics on /metrics");
        loop {
            let (mut sock, _) = listener.accept().await?;
            let m = self.clone();
            tokio::spawn(async move {
                let mut req = [0u8; 1024];
                let n = sock.read(&mut req).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&req[..n]);
                let (status, body) = if head.starts_with("GET /metrics") {
                    ("200 OK", m.render())
                } else {
                    ("404 Not Found", "not found\n".to_string())
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}
