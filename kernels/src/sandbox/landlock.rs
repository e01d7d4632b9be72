//! Linux Landlock through its three system calls (no library: the kernel interface is three
//! calls and two structs). Used twice: the lane restricts itself before it loads candidate
//! code (`cacheon`'s `lane::sandbox::landlock`), and the C compiler runs restricted to its build
//! directory ([`crate::cpu::build`]).
//!
//! A [`Ruleset`] handles every filesystem right the running kernel knows, so whatever no rule
//! allows is refused; with `deny_network` it also handles TCP bind and connect (ABI 4) with
//! no port allowed, and scopes abstract unix sockets and signals to the restricted processes
//! (ABI 6). A kernel without Landlock (before 5.13, or with it disabled) gives no ruleset,
//! and the caller says so.

use std::ffi::CString;
use std::path::Path;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: u32 = 1;

// Filesystem access rights (include/uapi/linux/landlock.h).
pub const EXECUTE: u64 = 1 << 0;
pub const WRITE_FILE: u64 = 1 << 1;
pub const READ_FILE: u64 = 1 << 2;
pub const READ_DIR: u64 = 1 << 3;
pub const REMOVE_FILE: u64 = 1 << 5;
pub const MAKE_REG: u64 = 1 << 8;
/// Every right of ABI 1 (bits 0–12: execute, read, write, remove and make-anything).
const ABI1_ALL: u64 = (1 << 13) - 1;
/// ABI 2 adds `REFER` (link or rename across directories).
const REFER: u64 = 1 << 13;
/// ABI 3 adds `TRUNCATE`. (ABI 5's `IOCTL_DEV` is left unhandled: the CUDA driver talks to
/// its device nodes by ioctl.)
pub const TRUNCATE: u64 = 1 << 14;
pub const READ: u64 = READ_FILE | READ_DIR;

// Network rights (ABI 4) and scopes (ABI 6).
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// A Landlock ruleset being built; [`Ruleset::restrict_self`] puts it in force.
pub struct Ruleset {
    fd: i32,
    handled: u64,
    /// The kernel's Landlock ABI version.
    pub abi: i64,
    /// Whether TCP and the scopes are restricted (`deny_network` and ABI ≥ 4 / ≥ 6).
    pub network_denied: bool,
}

impl Ruleset {
    /// A ruleset refusing every filesystem access no rule allows (and, with `deny_network`,
    /// TCP bind/connect, abstract unix sockets and signals outside the restricted
    /// processes, as far as the kernel supports them). `Ok(None)`: no Landlock here.
    pub fn new(deny_network: bool) -> Result<Option<Ruleset>, String> {
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
            return Ok(None);
        }
        let mut handled = ABI1_ALL;
        if abi >= 2 {
            handled |= REFER;
        }
        if abi >= 3 {
            handled |= TRUNCATE;
        }
        let net = deny_network && abi >= 4;
        let attr = RulesetAttr {
            handled_access_fs: handled,
            handled_access_net: if net {
                NET_BIND_TCP | NET_CONNECT_TCP
            } else {
                0
            },
            scoped: if deny_network && abi >= 6 {
                SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
            } else {
                0
            },
        };
        // The attribute's size tells the kernel which fields it reads.
        let size = match (net, deny_network && abi >= 6) {
            (_, true) => std::mem::size_of::<RulesetAttr>(),
            (true, false) => 16,
            (false, false) => 8,
        };
        // SAFETY: `attr` is a valid ruleset attribute at least `size` bytes long.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                size,
                0u32,
            )
        };
        if fd < 0 {
            return Err(format!(
                "landlock_create_ruleset: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Some(Ruleset {
            fd: fd as i32,
            handled,
            abi,
            network_denied: net,
        }))
    }

    /// Every filesystem right this ruleset handles.
    pub fn handled(&self) -> u64 {
        self.handled
    }

    /// Allows `access` beneath `path` (a file gets only its file rights); a path that does
    /// not exist is skipped.
    pub fn allow(&self, path: &Path, access: u64) -> Result<(), String> {
        let Ok(c) = CString::new(path.as_os_str().as_encoded_bytes()) else {
            return Err(format!("{}: a NUL in the path", path.display()));
        };
        // SAFETY: a valid C string; O_PATH opens without reading.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return Ok(());
        }
        // SAFETY: `st` is written by fstat on success.
        let is_dir = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFDIR
        };
        let mut access = access & self.handled;
        if !is_dir {
            access &= EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE;
        }
        let rule = PathBeneathAttr {
            allowed_access: access,
            parent_fd: fd,
        };
        // SAFETY: a valid path-beneath attribute with an fd we own.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd,
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

    /// Puts the ruleset in force for the calling thread and every thread or process it
    /// creates afterwards, after setting `no_new_privs` (which Landlock requires). Two
    /// system calls and no allocation: safe between `fork` and `exec`.
    pub fn restrict_self(&self) -> std::io::Result<()> {
        // SAFETY: plain prctl and landlock_restrict_self on a ruleset fd we own.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, self.fd, 0u32) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl Drop for Ruleset {
    fn drop(&mut self) {
        // SAFETY: closing the ruleset fd this value owns.
        unsafe { libc::close(self.fd) };
    }
}
