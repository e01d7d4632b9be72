//! The C compiler's sandbox (`sandbox::compiler::run`) against a compiler that a crafted
//! source took over, played by a shell script doing what such code would: leave a process
//! behind after a successful build, escape its process group, open sockets.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cacheon_kernels::sandbox::compiler;

fn fake_compiler(dir: &Path, script: &str) -> std::path::PathBuf {
    let path = dir.join("hostile-cc");
    std::fs::write(&path, format!("#!/bin/sh\n{script}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs the fake compiler `cc` in the sandbox with `work` as its folder; its output in
/// `work/log`. Returns what `run` returned and the output.
fn run_fake(
    cc: &Path,
    work: &Path,
    timeout: Duration,
) -> (Option<std::process::ExitStatus>, String) {
    let log = work.join("log");
    let mut cmd = Command::new(cc);
    cmd.current_dir(work)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::null());
    let status = compiler::run(cmd, cc, work, work, timeout, &[]).unwrap();
    (status, std::fs::read_to_string(&log).unwrap())
}

/// Whether process `pid` is gone (or a zombie waiting for its new parent to reap it).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// The `spinner=PID` the fake compiler printed is gone within a few seconds.
fn spinner_is_gone(text: &str) -> bool {
    let spinner: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("spinner="))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no spinner pid in {text}"));
    let t = Instant::now();
    while !gone(spinner) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    gone(spinner)
}

#[test]
fn nothing_the_compiler_started_outlives_a_successful_build() {
    let work = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = udp.local_addr().unwrap().port();
    let has_bash = Path::new("/bin/bash").exists();
    let udp_line = if has_bash {
        format!(
            "/bin/bash -c 'echo hi > /dev/udp/127.0.0.1/{port}' 2>/dev/null && echo UDP-SENT || echo udp-refused\n"
        )
    } else {
        String::new()
    };
    // A spinner in the group, one that tries to leave it (setsid), then success.
    let script = format!(
        "sleep 1000 &\necho spinner=$!\n\
         if command -v setsid >/dev/null; then \
           setsid sleep 1000 2>/dev/null & sid=$!; sleep 0.2; \
           if kill -0 $sid 2>/dev/null; then echo SETSID-RAN; else echo setsid-refused; fi; \
         fi\n\
         {udp_line}exit 0\n"
    );
    let cc = fake_compiler(tools.path(), &script);
    let (status, text) = run_fake(&cc, work.path(), Duration::from_secs(20));
    assert!(status.expect("the fake compiler exits at once").success());
    assert!(
        spinner_is_gone(&text),
        "the spinner outlived the build: {text}"
    );
    assert!(!text.contains("SETSID-RAN"), "{text}");
    if ["/usr/bin/setsid", "/bin/setsid"]
        .iter()
        .any(|p| Path::new(p).exists())
    {
        assert!(text.contains("setsid-refused"), "{text}");
    }
    if has_bash {
        assert!(text.contains("udp-refused"), "{text}");
        udp.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 16];
        assert!(udp.recv(&mut buf).is_err(), "a datagram got out");
    }
}

#[test]
fn a_compiler_past_its_time_is_killed_with_its_group() {
    let work = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let cc = fake_compiler(tools.path(), "sleep 1000 &\necho spinner=$!\nsleep 1000\n");
    let t = Instant::now();
    let (status, text) = run_fake(&cc, work.path(), Duration::from_secs(1));
    assert!(status.is_none(), "past its time: {status:?}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(spinner_is_gone(&text), "{text}");
}
