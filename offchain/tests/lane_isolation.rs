//! The lane runner (DESIGN 7.1) through the real `cacheon lane` process: what candidate code
//! can and cannot do inside it, and what a crash or a hang comes to.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cacheon::arena::{self, LaneBackend};
use cacheon::lane::protocol::{Request, Special};
use cacheon::lane::{BuildOutcome, Deadlines, Lane, LaneError, Sealed};
use cacheon::qualify::findings::{self, Outcome, ScreenOptions, Stage};
use cacheon::qualify::screens;
use cacheon_kernels::bundle::{self, BundleFile};
use cacheon_kernels::slots::SlotId;
use cacheon_primitives::FailReason;
use common::manifest::Manifest;

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cacheon"))
}

fn bundle_with(source: &str) -> Vec<BundleFile> {
    Manifest::cpu(SlotId::SiluAndMul, "kernels/k.c", "silu_and_mul")
        .bundle(&[("kernels/k.c", source)])
}

/// A probe that the static screen would refuse (it is built here straight in a lane, as a
/// screen-evading bundle would be): it reports what the sandbox let it do.
const PROBE: &str = r#"
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <sys/wait.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)x;
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 0.0f;
    out[0] = (float)socket(AF_INET, SOCK_STREAM, 0);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid(pid, 0, 0);
    out[1] = (float)pid;
    char* argv[] = {"/bin/true", 0};
    out[2] = (float)execve("/bin/true", argv, argv + 1);
    out[3] = getenv("HOME") != 0 ? 1.0f : 0.0f;
    int fd = open("probe-file", O_CREAT | O_WRONLY, 0600);
    out[4] = fd >= 0 ? 1.0f : 0.0f;
    if (fd >= 0) close(fd);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    out[5] = s >= 0 ? 1.0f : 0.0f;
    if (s >= 0) close(s);
    int secret = open("SECRET_PATH", O_RDONLY);
    out[6] = secret >= 0 ? 1.0f : 0.0f;
    if (secret >= 0) close(secret);
    int parent = open("/proc/PARENT_PID/cmdline", O_RDONLY);
    out[7] = parent >= 0 ? 1.0f : 0.0f;
    if (parent >= 0) close(parent);
    struct rlimit one = {1, 1};
    out[8] = (float)prlimit(getppid(), RLIMIT_CPU, &one, 0);
    out[9] = (float)setpgid(0, getpgid(getppid()));
    char params[120] = {0};
    out[10] = (float)syscall(SYS_io_uring_setup, 8, params);
    void* code = mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out[11] = code == MAP_FAILED ? -1.0f : 1.0f;
    struct timespec ts;
    out[12] = (float)syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
}
"#;

#[test]
fn candidate_code_has_no_network_processes_files_or_clocks() {
    // A file the validator's user can read, outside the lane's directory: what a key file
    // or the attempt index looks like to candidate code.
    let secret = std::env::temp_dir().join(format!("cacheon-secret-{}", std::process::id()));
    std::fs::write(&secret, "not for candidate code").unwrap();
    let probe = PROBE
        .replace("SECRET_PATH", secret.to_str().unwrap())
        .replace("PARENT_PID", &std::process::id().to_string());
    let (mut lane, sealed, result) = probe_case(&probe);
    let o = &result.expect("probe runs");
    eprintln!(
        "probe: {o:?} (netns {}, landlock {})",
        lane.network_namespace, sealed.landlock
    );
    let _ = std::fs::remove_file(&secret);
    let refused = [
        (0, "an internet socket"),
        (1, "a new process"),
        (2, "a new program"),
        (
            8,
            "a resource limit on the referee (RLIMIT_CPU of one second kills it)",
        ),
        (9, "joining the referee's process group"),
        (10, "an io_uring (sockets and files past the filter)"),
        (11, "a new executable mapping"),
        (12, "the clock system call"),
    ];
    for (at, what) in refused {
        assert_eq!(o[at], -1.0, "refused: {what}");
    }
    assert_eq!(o[3], 0.0, "empty environment: no HOME");
    assert_eq!(
        o[4], 0.0,
        "no file is created, not even in the lane's own directory"
    );
    assert_eq!(
        o[5], 0.0,
        "no local socket either (a path socket reaches other services)"
    );
    assert_eq!(o[6], 0.0, "no file of the validator's user");
    assert_eq!(
        o[7], 0.0,
        "no other process's /proc (the referee's command line)"
    );
    let dir = lane.dir().to_path_buf();
    assert!(!dir.join("work/probe-file").exists());
    lane.shutdown();
}

#[test]
fn the_time_stamp_counter_faults_in_candidate_code() {
    let src = "#include <stdint.h>\nvoid silu_and_mul(float* o, const float* x, int64_t t, int64_t d) {\n    (void)x;\n    for (int64_t i = 0; i < t * d; i++) o[i] = (float)__builtin_ia32_rdtsc();\n}\n";
    let (_lane, _sealed, result) = probe_case(src);
    match result {
        Err(LaneError::CandidateDied { status, .. }) => {
            assert!(status.contains("SIGSEGV"), "{status}")
        }
        other => panic!("expected the candidate to crash on rdtsc, got {other:?}"),
    }
}

#[test]
fn a_crash_in_candidate_code_fails_the_candidate() {
    let src = "#include <stdint.h>\nvoid silu_and_mul(float* o, const float* x, int64_t t, int64_t d) {\n    (void)x; (void)t; (void)d; (void)o;\n    *(volatile float*)0 = 1.0f;\n}\n";
    let opts = ScreenOptions::new(exe(), 7);
    let report = screens::run_screens(
        &bundle_with(src),
        arena::arena("cpu-tiny").unwrap(),
        &opts,
        &mut |_| {},
    );
    match report.outcome {
        Outcome::Fail(f) => {
            assert_eq!((f.stage, f.reason), (Stage::Verify, FailReason::Incorrect));
            assert!(f.detail.contains("SIGSEGV"), "{}", f.detail);
        }
        other => panic!("expected a FAIL, got {other:?}"),
    }
}

#[test]
fn a_hang_in_candidate_code_is_killed_at_the_deadline() {
    let src = "#include <stdint.h>\nvoid silu_and_mul(float* o, const float* x, int64_t t, int64_t d) {\n    (void)x; (void)t; (void)d;\n    for (volatile int i = 0; ; i++) o[0] = (float)i;\n}\n";
    let mut opts = ScreenOptions::new(exe(), 7);
    opts.deadlines.call = Duration::from_secs(2);
    let started = Instant::now();
    let report = screens::run_screens(
        &bundle_with(src),
        arena::arena("cpu-tiny").unwrap(),
        &opts,
        &mut |_| {},
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    match report.outcome {
        Outcome::Fail(f) => {
            assert_eq!((f.stage, f.reason), (Stage::Verify, FailReason::Incorrect));
            assert!(f.detail.contains("within 2 s"), "{}", f.detail);
        }
        other => panic!("expected a FAIL, got {other:?}"),
    }
}

#[test]
fn a_lane_that_cannot_start_is_no_decision() {
    let opts = ScreenOptions::new(PathBuf::from("/nonexistent/cacheon"), 7);
    let files = cacheon_kernels::bundle::stock::cpu_bundle(cacheon_kernels::SlotId::SiluAndMul)
        .unwrap()
        .files();
    let report = screens::run_screens(
        &files,
        arena::arena("cpu-tiny").unwrap(),
        &opts,
        &mut |_| {},
    );
    assert!(
        matches!(report.outcome, Outcome::NoDecision { .. }),
        "{:?}",
        report.outcome
    );
}

#[test]
fn a_lane_killed_from_outside_mid_case_is_no_decision_only_outside_candidate_code() {
    // Outside candidate code (idle, waiting for a request): our fault.
    let mut lane = Lane::spawn(&exe(), LaneBackend::Cpu, Deadlines::default()).unwrap();
    let pid = lane_pid(&lane);
    // SAFETY: killing the lane process this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    std::thread::sleep(Duration::from_millis(200));
    let files = cacheon_kernels::bundle::stock::cpu_bundle(cacheon_kernels::SlotId::SiluAndMul)
        .unwrap()
        .files();
    let canonical = bundle::canonical_bytes(&files, bundle::MAX_BUNDLE_BYTES).unwrap();
    let err = lane.build(&canonical, "stock").unwrap_err();
    assert!(matches!(err, LaneError::Infrastructure(_)), "{err:?}");
}

fn lane_pid(lane: &Lane) -> i32 {
    // The lane's working directory is owned by the parent; its pid is found from /proc by cwd.
    let work = lane.dir().join("work");
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if std::fs::read_link(format!("/proc/{pid}/cwd"))
            .map(|p| p == work)
            .unwrap_or(false)
        {
            return pid;
        }
    }
    panic!("lane process not found");
}

/// Builds `source` unscreened in a fresh CPU lane that holds it as candidate code, seals
/// the lane (which loads the library) and runs one silu_and_mul case at [1, 8].
fn probe_case(source: &str) -> (Lane, Sealed, Result<Vec<f32>, LaneError>) {
    probe_case_within(source, Deadlines::default())
}

/// [`probe_case`] with the lane's deadlines.
fn probe_case_within(
    source: &str,
    deadlines: Deadlines,
) -> (Lane, Sealed, Result<Vec<f32>, LaneError>) {
    let mut lane = Lane::spawn(&exe(), LaneBackend::Cpu, deadlines).expect("lane starts");
    let canonical =
        bundle::canonical_bytes(&bundle_with(source), bundle::MAX_BUNDLE_BYTES).unwrap();
    match lane.build_unscreened_probe(&canonical).expect("build") {
        BuildOutcome::Built { .. } => {}
        BuildOutcome::Failed { log, .. } => panic!("probe did not build: {log}"),
    }
    lane.mark_candidate();
    let sealed = lane.seal().expect("seal");
    assert!(sealed.seccomp, "the seccomp filter is installed");
    let req = Request::Verify {
        slot: "activation.silu_and_mul".into(),
        shape: vec![1, 16],
        seeds: vec![1],
        special: Special::None,
        guard: 16,
        graph: false,
        probe: None,
    };
    let result = lane.verify(&req).map(|(_, mut outputs)| outputs.remove(0));
    (lane, sealed, result)
}

#[test]
fn load_time_code_runs_only_under_the_seal() {
    // A constructor: the library's first chance to run, before any kernel call. The lane
    // seals itself before it loads the library, so the constructor meets the filter.
    let src = r#"
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <sched.h>
static float seen[3] = {7, 7, 7};
__attribute__((constructor)) static void at_load(void) {
    seen[0] = (float)socket(AF_INET, SOCK_STREAM, 0);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid(pid, 0, 0);
    seen[1] = (float)pid;
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 64; c++) CPU_SET(c, &all);
    seen[2] = (float)sched_setaffinity(0, sizeof all, &all);
}
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)x;
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 0.0f;
    for (int i = 0; i < 3; i++) out[i] = seen[i];
}
"#;
    let (mut lane, _, result) = probe_case(src);
    let o = result.expect("the probe runs");
    assert_eq!(o[0], -1.0, "no internet socket at load time");
    assert_eq!(o[1], -1.0, "no new process at load time");
    assert_eq!(o[2], -1.0, "no change of CPU affinity");
    lane.shutdown();
}

#[test]
fn candidate_code_cannot_start_threads_or_change_its_core() {
    let src = r#"
#define _GNU_SOURCE
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
static void* spin(void* arg) { for (;;) { (void)arg; } return 0; }
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)x;
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 0.0f;
    pthread_t t;
    out[0] = (float)pthread_create(&t, 0, spin, 0);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 64; c++) CPU_SET(c, &all);
    out[1] = (float)sched_setaffinity(0, sizeof all, &all);
    out[2] = (float)setpriority(PRIO_PROCESS, 0, -5);
}
"#;
    let (mut lane, _, result) = probe_case(src);
    let o = result.expect("the probe runs");
    assert_ne!(o[0], 0.0, "no thread: pthread_create fails");
    assert_eq!(o[1], -1.0, "no change of CPU affinity");
    assert_eq!(o[2], -1.0, "no change of priority");
    lane.shutdown();
}

#[test]
fn printing_cannot_reach_the_referee_and_a_forged_reply_is_cheating() {
    // stdout is the lane's log, not the reply channel: printing changes nothing.
    let printer = r#"
#include <stdint.h>
#include <unistd.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    static const char frame[] = "J\x10\x00\x00\x00{\"ran\":{}}       ";
    write(1, frame, sizeof frame - 1);
    write(2, frame, sizeof frame - 1);
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 1.0f;
    (void)x;
}
"#;
    let (mut lane, _, result) = probe_case(printer);
    let o = result.expect("printing does not disturb the protocol");
    assert!(o.iter().all(|&v| v == 1.0));
    lane.shutdown();

    // Writing to the reply descriptor itself: whatever arrives where the referee expects
    // the case's reply is the candidate's doing.
    let forger = r#"
#include <stdint.h>
#include <string.h>
#include <unistd.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    const char* json = "{\"ran\":{\"tokens\":[1,2,3],\"dispatch\":[0,0,0,0,0]}}";
    uint32_t len = (uint32_t)strlen(json);
    write(3, "J", 1);
    write(3, &len, 4);
    write(3, json, len);
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 1.0f;
    (void)x;
}
"#;
    let (_lane, _, result) = probe_case(forger);
    let err = result.expect_err("a forged reply is refused");
    assert!(matches!(err, LaneError::CandidateForged { .. }), "{err:?}");
    assert!(matches!(
        findings::lane_outcome(Stage::Verify, err),
        Outcome::Fail(f) if f.reason == FailReason::Cheating
    ));
}

/// A miner's CUDA source is compiled by NVRTC in a sandboxed child process (`cacheon
/// nvrtc-child`), not in the lane: the request and the reply make the round trip through
/// the sandbox. With NVRTC present the PTX comes back; without it (CI) the child's own
/// answer does, that the library is missing.
#[test]
fn nvrtc_compiles_a_miners_source_in_a_sandboxed_process() {
    use cacheon_kernels::cuda::nvrtc::{self, NvrtcError};
    let source = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n";
    let options = vec!["--gpu-architecture=compute_90".to_string()];
    let r = nvrtc::compile_sandboxed(
        &exe(),
        "k.cu",
        source,
        &[],
        &options,
        Duration::from_secs(60),
    );
    if cacheon_kernels::cuda::loader::nvrtc_present() {
        let out = r.expect("NVRTC compiles in its sandbox");
        assert!(out.ptx.contains(".entry k"), "{}", out.ptx);
        // A compile error comes back as the child's log, not as a sandbox failure.
        let bad = nvrtc::compile_sandboxed(
            &exe(),
            "bad.cu",
            "this is not CUDA\n",
            &[],
            &options,
            Duration::from_secs(60),
        );
        assert!(matches!(bad, Err(NvrtcError::Failed { .. })), "{bad:?}");
    } else {
        eprintln!("NVRTC is not on this machine: checking the child's own answer");
        match r {
            Err(NvrtcError::Unavailable(m)) => {
                assert!(m.contains("library not found"), "{m}")
            }
            other => panic!("expected the child to report NVRTC missing, got {other:?}"),
        }
    }
}

/// A field of `/proc/<pid>/status`, e.g. `Cpus_allowed_list`.
fn proc_status(pid: i32, field: &str) -> String {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
        .trim()
        .to_string()
}

/// The highest CPU this process may run on.
fn highest_cpu_here() -> String {
    proc_status(std::process::id() as i32, "Cpus_allowed_list")
        .split(',')
        .flat_map(|r| r.split('-').next_back().map(str::to_string))
        .filter_map(|c| c.parse::<usize>().ok())
        .max()
        .unwrap()
        .to_string()
}

#[test]
fn both_lanes_share_the_highest_core_and_a_frozen_lane_runs_nothing() {
    let kernel = r#"
#include <stdint.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)x;
    for (int64_t i = 0; i < tokens * d; i++) out[i] = 1.0f;
}
"#;
    let (mut base, _, first) = probe_case(kernel);
    let (mut cand, _, _) = probe_case(kernel);
    first.expect("the probe runs");
    let (b, c) = (lane_pid(&base), lane_pid(&cand));
    let core = highest_cpu_here();
    assert_eq!(
        proc_status(b, "Cpus_allowed_list"),
        core,
        "the baseline lane's core"
    );
    assert_eq!(
        proc_status(c, "Cpus_allowed_list"),
        core,
        "the candidate lane's core"
    );

    // Frozen between requests: stopped (state T) until the next request thaws it, which
    // is then answered as before.
    base.freeze();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let state = proc_status(b, "State");
    assert!(state.starts_with('T'), "a frozen lane is stopped: {state}");
    let req = Request::Verify {
        slot: "activation.silu_and_mul".into(),
        shape: vec![1, 8],
        seeds: vec![2],
        special: Special::None,
        guard: 16,
        graph: false,
        probe: None,
    };
    let (_, outputs) = base.verify(&req).expect("a thawed lane answers");
    assert_eq!(outputs[0], vec![1.0; 8]);
    let state = proc_status(b, "State");
    assert!(!state.starts_with('T'), "a request thaws the lane: {state}");
    base.shutdown();
    cand.shutdown();
}

#[test]
fn frames_announcing_candidate_code_do_not_extend_the_deadline() {
    // Candidate code that keeps writing `Entering` frames to the reply descriptor while it
    // spins: the request's one deadline still ends it.
    let src = r#"
#include <stdint.h>
#include <string.h>
#include <unistd.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    const char* json = "{\"entering\":{\"what\":\"more\"}}";
    uint32_t len = (uint32_t)strlen(json);
    for (volatile uint64_t i = 0;; i++) {
        if (i % 20000000 == 0) {
            write(3, "J", 1);
            write(3, &len, 4);
            write(3, json, len);
        }
    }
    (void)out; (void)x; (void)tokens; (void)d;
}
"#;
    let deadlines = Deadlines {
        call: Duration::from_secs(2),
        ..Deadlines::default()
    };
    let started = Instant::now();
    let err = probe_case_within(src, deadlines)
        .2
        .expect_err("the probe never answers");
    assert!(
        matches!(err, LaneError::CandidateTimeout { seconds: 2, .. }),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_lane_that_closes_its_reply_pipe_and_runs_on_is_killed_and_at_fault() {
    let src = r#"
#include <stdint.h>
#include <unistd.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    close(3);
    for (volatile uint64_t i = 0;; i++) {}
    (void)out; (void)x; (void)tokens; (void)d;
}
"#;
    let started = Instant::now();
    let err = probe_case(src).2.expect_err("the probe never answers");
    assert!(
        matches!(&err, LaneError::CandidateForged { detail } if detail.contains("closed its reply pipe")),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
