//! The C compiler's sandbox. The compiler reads hostile input (a miner's source), so a
//! compiler taken over through a crafted file must find nothing to read, nowhere to write
//! or connect to, and no way to leave work running behind it:
//!
//! - **rlimits**: address space, CPU time, file size, no core;
//! - **Landlock** ([`crate::sandbox::landlock`]): its build directory read-write; the system's
//!   programs, libraries and headers read and execute; the loader's cache and `/dev/null`;
//!   no TCP; signals and abstract unix sockets only within its own processes;
//! - **seccomp**: no sockets at all, no leaving its process group or session
//!   (`setsid`, `setpgid`), no tracing or reading other processes, no namespaces or
//!   mounts, no changing cores or priorities;
//! - **its own process group, killed after every build**, successful or not: the driver's
//!   `cc1`, `as` and `ld` and anything they started cannot leave the group, so nothing of
//!   the compiler outlives the build to spin while lanes are timed. The group is killed
//!   while the driver's exit is still unreaped, so its id cannot have been reused.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use crate::sandbox::landlock::{self, Ruleset};

/// Why the sandboxed compiler could not be run (not why a build failed: that is in the
/// compiler's own output and exit status).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("compiler `{compiler}` could not be started: {message}")]
    Unavailable { compiler: String, message: String },
    #[error("{0}")]
    Io(String),
}

/// Runs `cmd` (the compiler driver `compiler` with its arguments, directory and I/O set)
/// in the sandbox, `src_root` and `work` writable, `readable` folders (a toolkit outside
/// the system's) readable and executable too. `Ok(None)`: it ran past `timeout` and was
/// killed. Whatever it ended as, every process left in its group is killed before this
/// returns.
pub fn run(
    mut cmd: Command,
    compiler: &Path,
    src_root: &Path,
    work: &Path,
    timeout: Duration,
    readable: &[PathBuf],
) -> Result<Option<ExitStatus>, SandboxError> {
    use std::os::unix::process::CommandExt;
    let ruleset = landlock_rules(compiler, src_root, work, readable)?;
    let filter = seccomp_filter().map_err(SandboxError::Io)?;
    let cpu_seconds = timeout.as_secs().max(1) + 1;
    cmd.process_group(0);
    // SAFETY: setrlimit, prctl, landlock_restrict_self and seccomp only (no allocation on
    // the success paths), between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let set = |res, v: u64| {
                let lim = libc::rlimit {
                    rlim_cur: v,
                    rlim_max: v,
                };
                libc::setrlimit(res, &lim)
            };
            set(libc::RLIMIT_AS, 4 << 30);
            set(libc::RLIMIT_CPU, cpu_seconds);
            set(libc::RLIMIT_FSIZE, 256 << 20);
            set(libc::RLIMIT_CORE, 0);
            if let Some(r) = &ruleset {
                r.restrict_self()?;
            }
            seccompiler::apply_filter(&filter).map_err(|e| std::io::Error::other(e.to_string()))
        });
    }
    let mut child = cmd.spawn().map_err(|e| SandboxError::Unavailable {
        compiler: compiler.display().to_string(),
        message: e.to_string(),
    })?;
    let pgid = child.id() as libc::pid_t;
    let exited = wait_unreaped(pgid, timeout)
        .map_err(|e| SandboxError::Io(format!("waiting for the compiler: {e}")))?;
    // SAFETY: kill(2) on the process group created for this child, whose leader is not
    // reaped yet (so the id is still ours).
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    let status = child
        .wait()
        .map_err(|e| SandboxError::Io(format!("waiting for the compiler: {e}")))?;
    Ok(exited.then_some(status))
}

/// Waits until process `pid` exits, without reaping it, for at most `timeout`. `true`:
/// it exited.
fn wait_unreaped(pid: libc::pid_t, timeout: Duration) -> std::io::Result<bool> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        // SAFETY: waitid on our own child with a zeroed siginfo it fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        // SAFETY: si_pid is set by waitid (0 while the child still runs).
        if unsafe { info.si_pid() } != 0 {
            return Ok(true);
        }
        if started.elapsed() >= timeout {
            return Ok(false);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The compiler's view of the system, built before the fork and put in force in the child:
/// its build directory (everything), the system's programs, libraries and headers (`/usr`,
/// `/lib`, `/lib64`, `/bin`, and the compiler's own installation wherever it lives: read and
/// execute), the loader's cache and `/dev/null`; no TCP, and no signals or abstract unix
/// sockets beyond its own processes. A compiler exploited through a crafted source then
/// finds nothing to read (the validator's key, its database, other attempts' evidence) and
/// nowhere to write or connect to. `None` on a kernel without Landlock (the rest remains).
fn landlock_rules(
    compiler: &Path,
    src_root: &Path,
    work: &Path,
    readable: &[PathBuf],
) -> Result<Option<Ruleset>, SandboxError> {
    let Some(ruleset) = Ruleset::new(true).map_err(SandboxError::Io)? else {
        return Ok(None);
    };
    let read_exec = landlock::READ | landlock::EXECUTE;
    let mut rules: Vec<(PathBuf, u64)> = vec![
        (work.to_path_buf(), ruleset.handled()),
        (src_root.to_path_buf(), ruleset.handled()),
        (PathBuf::from("/usr"), read_exec),
        (PathBuf::from("/lib"), read_exec),
        (PathBuf::from("/lib64"), read_exec),
        (PathBuf::from("/bin"), read_exec),
        (PathBuf::from("/etc/ld.so.cache"), landlock::READ_FILE),
        (
            PathBuf::from("/dev/null"),
            landlock::READ_FILE | landlock::WRITE_FILE,
        ),
    ];
    // The driver itself, and a toolchain outside /usr (say /opt/gcc-14/bin/cc): its own
    // directories, not the whole prefix (which may be a home directory).
    if let Some(driver) = resolve(compiler) {
        if let Some(prefix) = driver.parent().and_then(Path::parent) {
            for dir in ["bin", "lib", "lib64", "libexec", "include"] {
                rules.push((prefix.join(dir), read_exec));
            }
        }
        rules.push((driver, landlock::READ_FILE | landlock::EXECUTE));
    }
    rules.extend(readable.iter().map(|d| (d.clone(), read_exec)));
    for (path, access) in rules {
        ruleset.allow(&path, access).map_err(SandboxError::Io)?;
    }
    Ok(Some(ruleset))
}

/// The compiler driver's real path (found on `PATH` for a bare name, links resolved).
fn resolve(compiler: &Path) -> Option<PathBuf> {
    let found = if compiler.components().count() > 1 {
        Some(compiler.to_path_buf())
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(compiler))
                .find(|p| p.is_file())
        })
    };
    std::fs::canonicalize(found?).ok()
}

/// The compiler's seccomp filter: what a C toolchain never needs is refused with `EPERM`
/// (sockets of every kind, leaving its group or session, tracing or reading other
/// processes, namespaces and mounts, other cores or priorities); the rest is allowed. It
/// is built before the fork (building allocates) and applied in the child.
fn seccomp_filter() -> Result<seccompiler::BpfProgram, String> {
    use seccompiler::{SeccompAction, SeccompFilter, TargetArch};
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let refused = [
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_connect,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_accept,
        libc::SYS_accept4,
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_open,
        libc::SYS_pidfd_getfd,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_chroot,
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setattr,
        libc::SYS_setpriority,
        libc::SYS_ioprio_set,
    ];
    let filter = SeccompFilter::new(
        refused.iter().map(|&s| (s, vec![])).collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}
