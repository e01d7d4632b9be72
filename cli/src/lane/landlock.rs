//! The lane's filesystem view after it is sealed (DESIGN 7.1): Linux Landlock, through its
//! three system calls (no library: the kernel interface is three calls and two structs).
//!
//! Once the bundle is built and the engine loaded, candidate code needs no file but its
//! own working directory. The source screen refuses `open`, `read` and the rest by name,
//! but a C kernel can reach libc without naming it (a function pointer and an offset), and
//! the lane runs as the validator's user: without this it could read whatever that user
//! can (the validator's key file, its SQLite index, earlier evidence, `/proc/<validator>/
//! cmdline`). The ruleset allows:
//! - the lane's working directory (its private temp dir): everything;
//! - `/usr`, `/lib`, `/lib64`: read and execute (shared libraries, nothing secret);
//! - CUDA lanes also: `/dev` read and write (the driver's device nodes), `/sys`, this
//!   process's own `/proc/<pid>` and `/proc/driver` read-only, `/opt` read and execute
//!   (toolkits installed there), `/dev/shm` files of its own.
//!
//! Landlock restricts the calling thread and every thread it creates afterwards. The lane
//! calls it on the thread that runs candidate code, before the seccomp filter. A kernel
//! without Landlock (before 5.13, or with it disabled) leaves the lane as it was; the seal
//! reply says which.

use std::ffi::CString;
use std::path::Path;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: u32 = 1;

// Filesystem access rights (include/uapi/linux/landlock.h).
const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REMOVE_FILE: u64 = 1 << 5;
const MAKE_REG: u64 = 1 << 8;
/// Every right of ABI 1 (bits 0–12: execute, read, write, remove and make-anything).
const ABI1_ALL: u64 = (1 << 13) - 1;
/// ABI 2 adds `REFER` (link or rename across directories).
const REFER: u64 = 1 << 13;
/// ABI 3 adds `TRUNCATE`. (ABI 5's `IOCTL_DEV` is left unhandled: the CUDA driver talks to
/// its device nodes by ioctl.)
const TRUNCATE: u64 = 1 << 14;

const READ: u64 = READ_FILE | READ_DIR;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Restricts this thread's (and its future threads') filesystem access to what the lane
/// needs. `Ok(true)`: in force; `Ok(false)`: this kernel has no Landlock.
pub fn restrict_filesystem(work_dir: &Path, cuda: bool) -> Result<bool, String> {
    // SAFETY: the version query takes no attribute.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if abi < 1 {
        return Ok(false);
    }
    let mut handled = ABI1_ALL;
    if abi >= 2 {
        handled |= REFER;
    }
    if abi >= 3 {
        handled |= TRUNCATE;
    }
    let attr = RulesetAttr {
        handled_access_fs: handled,
    };
    // SAFETY: `attr` is a valid ruleset attribute of the size passed.
    let ruleset = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
        )
    };
    if ruleset < 0 {
        return Err(format!(
            "landlock_create_ruleset: {}",
            std::io::Error::last_os_error()
        ));
    }
    let ruleset = ruleset as i32;
    let result = (|| {
        let mut rules: Vec<(&Path, u64)> = vec![
            (work_dir, handled),
            (Path::new("/usr"), READ | EXECUTE),
            (Path::new("/lib"), READ | EXECUTE),
            (Path::new("/lib64"), READ | EXECUTE),
        ];
        let own_proc = format!("/proc/{}", std::process::id());
        if cuda {
            rules.extend([
                (Path::new("/dev"), READ | WRITE_FILE),
                (
                    Path::new("/dev/shm"),
                    READ | WRITE_FILE | MAKE_REG | REMOVE_FILE | TRUNCATE,
                ),
                (Path::new("/sys"), READ),
                (Path::new(own_proc.as_str()), READ),
                (Path::new("/proc/driver"), READ),
                (Path::new("/opt"), READ | EXECUTE),
            ]);
        }
        for (path, access) in rules {
            add_path_rule(ruleset, path, access & handled)?;
        }
        // SAFETY: a ruleset fd we own; the lane set no_new_privs before exec.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) } != 0 {
            return Err(format!(
                "landlock_restrict_self: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(true)
    })();
    // SAFETY: closing the ruleset fd opened above.
    unsafe { libc::close(ruleset) };
    result
}

/// Allows `access` beneath `path`; a path that does not exist is skipped.
fn add_path_rule(ruleset: i32, path: &Path, access: u64) -> Result<(), String> {
    let Ok(c) = CString::new(path.as_os_str().as_encoded_bytes()) else {
        return Err(format!("{}: a NUL in the path", path.display()));
    };
    // SAFETY: a valid C string; O_PATH opens without reading.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Ok(());
    }
    // A rule on a file (not a directory) may only carry file rights.
    // SAFETY: `st` is written by fstat on success.
    let is_dir = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFDIR
    };
    let access = if is_dir {
        access
    } else {
        access & (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE)
    };
    let rule = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    // SAFETY: a valid path-beneath attribute with an fd we own.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            RULE_PATH_BENEATH,
            &rule as *const PathBeneathAttr,
            0u32,
        )
    };
    let err = std::io::Error::last_os_error();
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    if r != 0 {
        return Err(format!("landlock_add_rule {}: {err}", path.display()));
    }
    Ok(())
}
