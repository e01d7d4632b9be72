//! [`Explorer`]: a `cacheon explorer` process on a free port, and plain HTTP GETs of its
//! pages ([`get`], [`get_json`]).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::{cacheon, free_port};

/// One HTTP GET: status code and body.
pub fn get(url: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://").expect("an http:// link");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut s = std::net::TcpStream::connect(host).unwrap_or_else(|e| panic!("{url}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (code, body)
}

pub fn get_json(url: &str) -> serde_json::Value {
    let (code, body) = get(url);
    assert_eq!(code, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url} is not JSON ({e}): {body}"))
}

/// `cacheon explorer` on a free port, stopped when dropped.
pub struct Explorer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Explorer {
    pub fn start(url: &str, dir: &Path) -> Explorer {
        let port = free_port();
        let log = std::fs::File::create(dir.join("explorer.log")).unwrap();
        let child = cacheon()
            .args(["explorer", "--url", url, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--evidence-dir")
            .arg(dir.join("explorer-evidence"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start cacheon explorer");
        let base = format!("http://127.0.0.1:{port}");
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the explorer never listened"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        Explorer { child, base }
    }
}

impl Drop for Explorer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
