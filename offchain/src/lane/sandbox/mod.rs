//! What keeps candidate code in its lane (DESIGN 7.1).
//!
//! Set up by the parent between `fork` and `exec` ([`prepare_child`]): its own process
//! group, killed if the referee dies, no new privileges, resource limits (address space,
//! CPU seconds, open files, file size, no core dumps) and, where the kernel lets an
//! unprivileged process do it, a user and network namespace with nothing but a down
//! loopback in it. The parent also clears the environment, gives the lane a fresh private
//! temp dir as its working directory and `TMPDIR`, and never hands it a key.
//!
//! Installed by the lane after the bundle is built and before it is loaded
//! ([`install_seccomp`]): a seccomp filter that refuses (`EPERM`) new programs, new
//! processes, new threads (CPU lanes; the CUDA driver needs threads, so CUDA lanes keep
//! them), changes to CPU affinity and scheduling priority, signals to any other process,
//! network sockets, tracing and namespace changes. Candidate code then cannot do work
//! outside its call: nothing of it runs but the calling thread, on the core it was given.

pub mod landlock;

use std::collections::BTreeMap;
use std::ffi::CString;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Resource limits for a lane.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Address space in bytes (`RLIMIT_AS`); `None` for CUDA lanes, whose driver maps
    /// far more virtual memory than it uses.
    pub address_space: Option<u64>,
    /// CPU seconds (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Open files (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Largest file the lane may write (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// Pin the lane to one CPU (the highest the referee may use; rank `r` of a lane split
    /// over ranks the `r`-th highest): timed CPU work is then single-threaded on a core of
    /// its own choosing, the same core for baseline and candidate, which takes the
    /// scheduler out of the measurement.
    pub pin_one_cpu: bool,
}

impl Limits {
    pub const CPU_LANE: Limits = Limits {
        address_space: Some(8 << 30),
        cpu_seconds: 600,
        open_files: 256,
        file_size: 256 << 20,
        pin_one_cpu: true,
    };
    pub const CUDA_LANE: Limits = Limits {
        address_space: None,
        cpu_seconds: 1200,
        open_files: 1024,
        file_size: 256 << 20,
        pin_one_cpu: false,
    };
}

/// Everything the `pre_exec` hook needs, prepared before `fork` (the hook itself may only
/// make system calls: no allocation).
pub struct ChildSetup {
    limits: Limits,
    uid_map: CString,
    gid_map: CString,
    cpu: Option<libc::cpu_set_t>,
}

impl ChildSetup {
    /// The setup of rank `rank` of a lane (0 for a lane of one process).
    pub fn new(limits: Limits, rank: usize) -> ChildSetup {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let cpu = limits
            .pin_one_cpu
            .then(|| high_allowed_cpu(rank))
            .flatten()
            .map(|c| {
                // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET write within it.
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_ZERO(&mut set);
                    libc::CPU_SET(c, &mut set);
                    set
                }
            });
        ChildSetup {
            limits,
            uid_map: CString::new(format!("{uid} {uid} 1")).expect("no NUL"),
            gid_map: CString::new(format!("{gid} {gid} 1")).expect("no NUL"),
            cpu,
        }
    }

    /// Runs in the child between `fork` and `exec`. Only async-signal-safe system calls.
    pub fn apply(&self) -> std::io::Result<()> {
        // SAFETY: plain system calls on this (single-threaded, just forked) process with
        // valid arguments; the strings were allocated before the fork.
        unsafe {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            let set = |res, v: u64| {
                let lim = libc::rlimit {
                    rlim_cur: v,
                    rlim_max: v,
                };
                libc::setrlimit(res, &lim)
            };
            if let Some(a) = self.limits.address_space {
                set(libc::RLIMIT_AS, a);
            }
            set(libc::RLIMIT_CPU, self.limits.cpu_seconds);
            set(libc::RLIMIT_NOFILE, self.limits.open_files);
            set(libc::RLIMIT_FSIZE, self.limits.file_size);
            set(libc::RLIMIT_CORE, 0);
            if let Some(cpu) = &self.cpu {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), cpu);
            }
            // A private network namespace needs a user namespace when unprivileged. Where
            // the system refuses (containers often do), the seccomp filter still refuses
            // network sockets.
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0 {
                write_proc(c"/proc/self/setgroups", c"deny");
                write_proc(c"/proc/self/uid_map", &self.uid_map);
                write_proc(c"/proc/self/gid_map", &self.gid_map);
            }
        }
        Ok(())
    }
}

/// The CPUs this process may run on (its affinity mask), highest first.
fn allowed_cpu_ids() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills a zeroed cpu_set_t of the size given.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .rev()
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The `nth` highest-numbered CPU this process may run on (0: the highest), counting
/// round when there are fewer (a lane of ranks is refused before that: one core a rank).
fn high_allowed_cpu(nth: usize) -> Option<usize> {
    let allowed = allowed_cpu_ids();
    (!allowed.is_empty()).then(|| allowed[nth % allowed.len()])
}

/// How many CPUs this process may run on (at least 1).
pub fn allowed_cpus() -> usize {
    allowed_cpu_ids().len().max(1)
}

/// # Safety
/// Async-signal-safe: open/write/close only.
unsafe fn write_proc(path: &std::ffi::CStr, text: &std::ffi::CStr) {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd >= 0 {
        let bytes = text.to_bytes();
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
    }
}

/// Whether this process sees no network interface but loopback.
pub fn in_private_network_namespace() -> bool {
    std::fs::read_to_string("/proc/self/net/dev")
        .map(|t| {
            t.lines()
                .skip(2)
                .filter_map(|l| l.split(':').next())
                .all(|name| name.trim() == "lo")
        })
        .unwrap_or(false)
}

/// Installs the lane's seccomp filter on every thread of the process. With `no_threads`
/// (CPU lanes) no thread can be created after it either.
pub fn install_seccomp(no_threads: bool) -> Result<(), String> {
    let cond = |idx, op, v| {
        SeccompCondition::new(idx, SeccompCmpArgLen::Qword, op, v).map_err(|e| e.to_string())
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for sys in [
        libc::SYS_execve,
        libc::SYS_execveat,
        libc::SYS_fork,
        libc::SYS_vfork,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_chroot,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_accept,
        libc::SYS_accept4,
        // Work outside the call: another core, a higher priority.
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_setpriority,
        libc::SYS_ioprio_set,
        // Signals to other processes (the referee, the other lane).
        libc::SYS_tkill,
        libc::SYS_pidfd_open,
        libc::SYS_pidfd_send_signal,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
        // Leaving the lane's process group (the referee freezes the group) or joining
        // another one (the referee's).
        libc::SYS_setpgid,
        libc::SYS_setsid,
        // Sockets and connections by another route than socket(2).
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(sys, vec![]);
    }
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() } as u64;
    let rule = |conds: Vec<SeccompCondition>| SeccompRule::new(conds).map_err(|e| e.to_string());
    // kill and tgkill only towards this process (pid 0: its own group, which is only it).
    rules.insert(
        libc::SYS_kill,
        vec![rule(vec![
            cond(0, SeccompCmpOp::Ne, me)?,
            cond(0, SeccompCmpOp::Ne, 0)?,
        ])?],
    );
    rules.insert(
        libc::SYS_tgkill,
        vec![rule(vec![cond(0, SeccompCmpOp::Ne, me)?])?],
    );
    // Resource limits: reading this process's own stays (the C library's getrlimit is
    // prlimit64 with no new limit); setting any, or touching another process's (a CPU
    // limit of one second on the referee kills it), is refused.
    rules.insert(
        libc::SYS_prlimit64,
        vec![
            rule(vec![
                cond(0, SeccompCmpOp::Ne, 0)?,
                cond(0, SeccompCmpOp::Ne, me)?,
            ])?,
            rule(vec![cond(2, SeccompCmpOp::Ne, 0)?])?,
        ],
    );
    rules.insert(libc::SYS_setrlimit, vec![]);
    // clone without CLONE_THREAD makes a process; with `no_threads` every clone is refused.
    let clone_rules = if no_threads {
        vec![]
    } else {
        vec![rule(vec![cond(
            0,
            SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
            0,
        )?])?]
    };
    rules.insert(libc::SYS_clone, clone_rules);
    // Only local (AF_UNIX) sockets.
    rules.insert(
        libc::SYS_socket,
        vec![
            SeccompRule::new(vec![cond(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?])
                .map_err(|e| e.to_string())?,
        ],
    );
    apply(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
    )?;
    // clone3 passes its flags in memory, where a filter cannot look. It answers ENOSYS
    // (not EPERM), so the C library falls back to clone, whose flags are checked above.
    let mut clone3 = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, vec![]);
    apply(
        clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
    )
}

/// The CPU lane's second filter, installed once its bundles are loaded (no more mapping of
/// code) and before any of their functions is called: an allow-list. What the harness
/// needs to run calls and answer stays — reading and writing its open descriptors, memory
/// without executable pages (`mmap`/`mprotect` with `PROT_EXEC` are refused, so no code is
/// made or patched), futexes, signals to itself, exit — and every other system call
/// answers `EPERM`, whatever its number or spelling: no files, sockets, `io_uring`,
/// process groups, resource limits, clocks. The time-stamp counter is switched off first
/// (`PR_SET_TSC`): `rdtsc` faults, and so does the vDSO's `clock_gettime`, which reads it,
/// so candidate code has no clock by any route.
pub fn install_cpu_allow_list() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prctl with integer arguments; affects this process only.
    if unsafe { libc::prctl(libc::PR_SET_TSC, libc::PR_TSC_SIGSEGV, 0, 0, 0) } != 0 {
        return Err(format!("PR_SET_TSC: {}", std::io::Error::last_os_error()));
    }
    let cond = |idx, op, v| {
        SeccompCondition::new(idx, SeccompCmpArgLen::Qword, op, v).map_err(|e| e.to_string())
    };
    let rule = |conds: Vec<SeccompCondition>| SeccompRule::new(conds).map_err(|e| e.to_string());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for sys in [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_readv,
        libc::SYS_writev,
        libc::SYS_close,
        libc::SYS_brk,
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_madvise,
        libc::SYS_futex,
        libc::SYS_getrandom,
        libc::SYS_sched_yield,
        libc::SYS_getpid,
        libc::SYS_gettid,
        libc::SYS_rt_sigreturn,
        libc::SYS_rt_sigprocmask,
        libc::SYS_rt_sigaction,
        libc::SYS_sigaltstack,
        libc::SYS_restart_syscall,
        libc::SYS_exit,
        libc::SYS_exit_group,
    ] {
        rules.insert(sys, vec![]);
    }
    let no_exec = || cond(2, SeccompCmpOp::MaskedEq(libc::PROT_EXEC as u64), 0);
    rules.insert(libc::SYS_mmap, vec![rule(vec![no_exec()?])?]);
    rules.insert(libc::SYS_mprotect, vec![rule(vec![no_exec()?])?]);
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() } as u64;
    rules.insert(
        libc::SYS_kill,
        vec![rule(vec![cond(0, SeccompCmpOp::Eq, me)?])?],
    );
    rules.insert(
        libc::SYS_tgkill,
        vec![rule(vec![cond(0, SeccompCmpOp::Eq, me)?])?],
    );
    apply(
        rules,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
    )
}

/// Compiles `rules` (matching calls get `on_match`, the rest `otherwise`) and installs the
/// filter on every thread of the process.
fn apply(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    otherwise: SeccompAction,
    on_match: SeccompAction,
) -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(rules, otherwise, on_match, arch).map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())
}
