//! The lane's filesystem view after it is sealed (DESIGN 7.1): Linux Landlock
//! ([`cacheon_kernels::sandbox::landlock`], which the compiler's sandbox uses too).
//!
//! Once the bundle is built and the engine loaded, candidate code needs no file but its
//! own working directory. The source screen refuses `open`, `read` and the rest by name,
//! but a C kernel can reach libc without naming it (a function pointer and an offset), and
//! the lane runs as the validator's user: without this it could read whatever that user
//! can (the validator's key file, its SQLite index, earlier evidence, `/proc/<validator>/
//! cmdline`). The ruleset allows:
//! - the lane's working directory (its private temp dir): read and execute in CPU lanes
//!   (nothing is written after the seal), everything in CUDA lanes (whose candidate code
//!   runs on the GPU, not in this process);
//! - `/usr`, `/lib`, `/lib64`: read and execute (shared libraries, nothing secret);
//! - CUDA lanes also: `/dev` read and write (the driver's device nodes), `/sys`, this
//!   process's own `/proc/<pid>` and `/proc/driver` read-only, `/opt` read and execute
//!   (toolkits installed there), `/dev/shm` files of its own.
//!
//! CPU lanes also get Landlock's network rules and scopes: no TCP, signals and abstract
//! unix sockets only within the lane.
//!
//! Landlock restricts the calling thread and every thread it creates afterwards. The lane
//! calls it on the thread that runs candidate code, before the seccomp filter. A kernel
//! without Landlock (before 5.13, or with it disabled) leaves the lane as it was; the seal
//! reply says which.

use std::path::Path;

use cacheon_kernels::sandbox::landlock::{
    Ruleset, EXECUTE, MAKE_REG, READ, REMOVE_FILE, TRUNCATE, WRITE_FILE,
};

/// Restricts this thread's (and its future threads') filesystem access to what the lane
/// needs. `Ok(true)`: in force; `Ok(false)`: this kernel has no Landlock.
pub fn restrict_filesystem(work_dir: &Path, cuda: bool) -> Result<bool, String> {
    // CPU lanes run candidate machine code: no TCP, and signals and abstract sockets only
    // within the lane. The lane writes no file once sealed (its library is built and
    // mapped before), so its directory is read-only: nothing can fill the disk.
    let Some(ruleset) = Ruleset::new(!cuda)? else {
        return Ok(false);
    };
    let work_access = if cuda {
        ruleset.handled()
    } else {
        READ | EXECUTE
    };
    let mut rules: Vec<(&Path, u64)> = vec![
        (work_dir, work_access),
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
        ruleset.allow(path, access)?;
    }
    ruleset
        .restrict_self()
        .map_err(|e| format!("landlock_restrict_self: {e}"))?;
    Ok(true)
}
