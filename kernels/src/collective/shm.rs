//! The rank processes' shared memory on the CPU: one file (under `/dev/shm` by default),
//! mapped by every rank of a group, holding a barrier and an exchange area of
//! `[world, capacity]` f32 rows, row `r` written only by rank `r`.
//!
//! An exchange is: every rank writes its row, all meet at the barrier, each reads every
//! row (a collective kernel's input is the `[world, n]` view), all meet again before any
//! row is written for the next exchange. The barrier is sense-reversing (an arrival
//! counter and a generation number, both atomics in the mapping); a rank that stops
//! coming (killed, hung, or failed and said so with [`ShmGroup::poison`]) makes the others'
//! waits end with an error after the group's deadline instead of hanging forever.
//!
//! A waiting rank spins briefly, then sleeps on the generation word (a futex on the shared
//! mapping, woken by the last rank to arrive) in slices of [`SLICE`]. It reads no clock:
//! a sealed CPU lane has none (its time-stamp counter faults), so the deadline counts the
//! slices the kernel let run out.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// "CACHEON1" as a little-endian u64: the file is a group's.
const MAGIC: u64 = 0x314e_4f45_4843_4143;
/// The most ranks a group has.
const MAX_WORLD: usize = 64;
/// Bytes before the exchange area: the header below, padded to 128 bytes, then each rank's
/// current exchange length (u64).
const HEADER: usize = 128 + MAX_WORLD * 8;
/// The poison word's value when the launcher, not a rank, stopped the group.
const STOPPED: u32 = u32::MAX;
/// How long a sleeping rank sleeps before it looks again (and counts towards its deadline).
const SLICE: Duration = Duration::from_millis(1);
/// Busy polls of the generation before a rank yields, and yields before it sleeps: each
/// rank has a core of its own, so a rank waits busy for a good while (about a millisecond)
/// before paying a futex wake-up's latency.
const SPINS: u32 = 20_000;
const YIELDS: u32 = 2_000;
/// How long a rank waits at a barrier for the others before giving up.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// Why a group could not be made, joined or used.
#[derive(Debug, thiserror::Error)]
pub enum GroupError {
    #[error("group file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("group file {path} is not a rank group (bad magic or size)")]
    NotAGroup { path: PathBuf },
    #[error("rank {rank} is outside the group's world size {world}")]
    NoSuchRank { rank: usize, world: usize },
    #[error("a world of {world} ranks needs at least 1 and at most 64")]
    BadWorld { world: usize },
    #[error("a group of {world} ranks with rows of {capacity} values is too large to map")]
    TooLargeGroup { world: usize, capacity: usize },
    #[error("rank {rank} exchanged {n} values, rank {other} {theirs}: the ranks are not running the same calls")]
    Mismatch {
        rank: usize,
        n: usize,
        other: usize,
        theirs: usize,
    },
    #[error("an exchange of {n} values is larger than the group's rows of {capacity}")]
    TooLarge { n: usize, capacity: usize },
    #[error(
        "rank {rank} waited {waited:?} at barrier {generation}: {arrived} of {world} ranks came"
    )]
    Timeout {
        rank: usize,
        generation: u32,
        arrived: u32,
        world: usize,
        waited: Duration,
    },
    #[error("rank {by} gave up on the group (it failed); rank {rank} stops too")]
    Poisoned { rank: usize, by: u32 },
    #[error("the launcher stopped the group (another rank failed); rank {rank} stops too")]
    Stopped { rank: usize },
}

/// The header at the start of the mapping (all fields atomics: every rank writes them).
#[repr(C)]
struct Header {
    magic: AtomicU64,
    world: AtomicU64,
    capacity: AtomicU64,
    arrived: AtomicU32,
    generation: AtomicU32,
    /// 0, 1 + the rank that poisoned the group, or [`STOPPED`].
    poisoned: AtomicU32,
    /// Ranks asleep on `generation` (a futex): the last to arrive wakes them.
    sleepers: AtomicU32,
}

/// One rank's handle on a group's shared memory.
pub struct ShmGroup {
    path: PathBuf,
    base: *mut u8,
    len: usize,
    rank: usize,
    world: usize,
    capacity: usize,
    deadline: Duration,
}

// The mapping is shared memory addressed through atomics (header) and through the
// barrier protocol (rows): moving the handle to another thread is fine.
unsafe impl Send for ShmGroup {}

impl std::fmt::Debug for ShmGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShmGroup")
            .field("path", &self.path)
            .field("rank", &self.rank)
            .field("world", &self.world)
            .field("capacity", &self.capacity)
            .finish()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GroupError + '_ {
    move |source| GroupError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The file's length for a group, `None` past what a mapping can hold.
fn bytes_for(world: usize, capacity: usize) -> Option<usize> {
    world
        .checked_mul(capacity)?
        .checked_mul(std::mem::size_of::<f32>())?
        .checked_add(HEADER)
        .filter(|&n| n <= isize::MAX as usize)
}

impl ShmGroup {
    /// Creates the group file for `world` ranks exchanging up to `capacity` values each
    /// (the launcher does this before it starts the ranks). Fails if the file exists.
    pub fn create(path: &Path, world: usize, capacity: usize) -> Result<(), GroupError> {
        if world == 0 || world > MAX_WORLD {
            return Err(GroupError::BadWorld { world });
        }
        let len =
            bytes_for(world, capacity).ok_or(GroupError::TooLargeGroup { world, capacity })?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io(path))?;
        file.set_len(len as u64).map_err(io(path))?;
        let g = Self::map(path, &file, 0, world, capacity)?;
        let h = g.header();
        h.world.store(world as u64, Ordering::Relaxed);
        h.capacity.store(capacity as u64, Ordering::Relaxed);
        h.magic.store(MAGIC, Ordering::Release);
        Ok(())
    }

    /// Joins the group at `path` as `rank`.
    pub fn join(path: &Path, rank: usize) -> Result<ShmGroup, GroupError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io(path))?;
        let len = file.metadata().map_err(io(path))?.len() as usize;
        if len < HEADER {
            return Err(GroupError::NotAGroup { path: path.into() });
        }
        // Read the header through a header-sized mapping first.
        let probe = Self::map(path, &file, 0, 1, 0)?;
        let h = probe.header();
        let (magic, world, capacity) = (
            h.magic.load(Ordering::Acquire),
            h.world.load(Ordering::Relaxed) as usize,
            h.capacity.load(Ordering::Relaxed) as usize,
        );
        drop(probe);
        if magic != MAGIC
            || world == 0
            || world > MAX_WORLD
            || bytes_for(world, capacity) != Some(len)
        {
            return Err(GroupError::NotAGroup { path: path.into() });
        }
        if rank >= world {
            return Err(GroupError::NoSuchRank { rank, world });
        }
        Self::map(path, &file, rank, world, capacity)
    }

    fn map(
        path: &Path,
        file: &File,
        rank: usize,
        world: usize,
        capacity: usize,
    ) -> Result<ShmGroup, GroupError> {
        use std::os::fd::AsRawFd;
        let len =
            bytes_for(world, capacity).ok_or(GroupError::TooLargeGroup { world, capacity })?;
        // SAFETY: a shared read-write mapping of a file we hold open, of its length (or
        // less, for the probe); unmapped in Drop.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(GroupError::Io {
                path: path.into(),
                source: std::io::Error::last_os_error(),
            });
        }
        Ok(ShmGroup {
            path: path.into(),
            base: base as *mut u8,
            len,
            rank,
            world,
            capacity,
            deadline: DEFAULT_DEADLINE,
        })
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping starts page-aligned and is at least HEADER bytes; Header is
        // atomics only, valid for any bit pattern.
        unsafe { &*(self.base as *const Header) }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn world(&self) -> usize {
        self.world
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How long [`ShmGroup::barrier`] waits for the other ranks.
    pub fn set_deadline(&mut self, deadline: Duration) {
        self.deadline = deadline;
    }

    /// Tells the other ranks this one failed: their next (or current) wait ends with
    /// [`GroupError::Poisoned`].
    pub fn poison(&self) {
        let _ = self.header().poisoned.compare_exchange(
            0,
            1 + self.rank as u32,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        self.wake_sleepers();
    }

    /// The launcher's poison: ends every rank's current or next wait on the group at `path`
    /// with [`GroupError::Stopped`] (the referee does this as soon as one rank of a lane
    /// fails, so the others stop waiting for it).
    pub fn stop(path: &Path) -> Result<(), GroupError> {
        let g = Self::join(path, 0)?;
        let _ =
            g.header()
                .poisoned
                .compare_exchange(0, STOPPED, Ordering::AcqRel, Ordering::Acquire);
        g.wake_sleepers();
        Ok(())
    }

    /// Waits until every rank of the group has arrived here. Everything a rank wrote
    /// before arriving is visible to every rank after it returns. An error leaves the
    /// group poisoned: it is not used again.
    pub fn barrier(&self) -> Result<(), GroupError> {
        let h = self.header();
        let check_poison = || match h.poisoned.load(Ordering::Acquire) {
            0 => Ok(()),
            STOPPED => Err(GroupError::Stopped { rank: self.rank }),
            by => Err(GroupError::Poisoned {
                rank: self.rank,
                by: by - 1,
            }),
        };
        check_poison()?;
        let generation = h.generation.load(Ordering::Acquire);
        if h.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.world as u32 {
            h.arrived.store(0, Ordering::Relaxed);
            h.generation
                .store(generation.wrapping_add(1), Ordering::SeqCst);
            self.wake_sleepers();
            return Ok(());
        }
        let (mut polls, mut slept) = (0u32, 0u32);
        while h.generation.load(Ordering::SeqCst) == generation {
            if let Err(e) = check_poison() {
                // The last rank may have completed this barrier and poisoned the group
                // just after (over what it found past the barrier): a completed barrier
                // returns, and this rank finds the same thing itself.
                if h.generation.load(Ordering::SeqCst) != generation {
                    break;
                }
                return Err(e);
            }
            polls += 1;
            if polls < SPINS {
                std::hint::spin_loop();
                continue;
            }
            if polls < SPINS + YIELDS {
                std::thread::yield_now();
                continue;
            }
            let waited = SLICE * slept;
            if waited > self.deadline {
                // This rank's arrival stays counted: the barrier is broken for everyone,
                // so say so rather than let a retry pair up the wrong barriers.
                self.poison();
                return Err(GroupError::Timeout {
                    rank: self.rank,
                    generation,
                    arrived: h.arrived.load(Ordering::Acquire),
                    world: self.world,
                    waited,
                });
            }
            h.sleepers.fetch_add(1, Ordering::SeqCst);
            // Sleeps only while the generation is still `generation` (the kernel checks);
            // the last rank bumps it before it looks for sleepers, so no new generation's
            // wake is lost. (A poison's may be: the slice bounds how late it is seen.)
            // Every sleep counts as a slice, woken early or not: wakes sent to keep a rank
            // from its deadline do not.
            futex_wait(&h.generation, generation, SLICE);
            slept += 1;
            h.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Wakes every rank asleep at the barrier (a new generation, or a poisoned group).
    fn wake_sleepers(&self) {
        let h = self.header();
        if h.sleepers.load(Ordering::SeqCst) > 0 {
            futex_wake(&h.generation);
        }
    }

    /// Rank `r`'s exchange length in the header.
    fn len_slot(&self, r: usize) -> &AtomicU64 {
        // SAFETY: inside the header (128 + MAX_WORLD u64s), 8-byte aligned; atomics only.
        unsafe { &*(self.base.add(128 + 8 * r) as *const AtomicU64) }
    }

    /// Row `r` of the exchange area, `n` values.
    fn row(&self, r: usize, n: usize) -> *mut f32 {
        debug_assert!(r < self.world && n <= self.capacity);
        // SAFETY: inside the mapping (HEADER + world * capacity f32s).
        unsafe { (self.base.add(HEADER) as *mut f32).add(r * self.capacity) }
    }

    /// One exchange: writes `mine` as this rank's row, waits for every rank's, hands
    /// `reduce` the rows (`[world, n]`, rank order, contiguous) and `out`, then waits
    /// until every rank is done reading before returning.
    pub fn exchange(
        &self,
        mine: &[f32],
        out: &mut [f32],
        reduce: impl FnOnce(&[f32], &mut [f32]),
    ) -> Result<(), GroupError> {
        let n = mine.len();
        if n > self.capacity {
            self.poison();
            return Err(GroupError::TooLarge {
                n,
                capacity: self.capacity,
            });
        }
        // SAFETY: this rank's row, which no other rank writes, and nobody reads until
        // the barrier below.
        unsafe { std::ptr::copy_nonoverlapping(mine.as_ptr(), self.row(self.rank, n), n) };
        self.len_slot(self.rank).store(n as u64, Ordering::Relaxed);
        self.barrier()?;
        // Every rank must be at the same call: the same length from all (else the longer
        // rows' tails would be another exchange's).
        for r in 0..self.world {
            let theirs = self.len_slot(r).load(Ordering::Relaxed) as usize;
            if theirs != n {
                self.poison();
                return Err(GroupError::Mismatch {
                    rank: self.rank,
                    n,
                    other: r,
                    theirs,
                });
            }
        }
        // Rows are `capacity` apart: gather them into one `[world, n]` view.
        let mut rows = Vec::with_capacity(self.world * n);
        for r in 0..self.world {
            // SAFETY: row r was written before its rank's arrival at the barrier; nobody
            // writes it again before the next barrier.
            rows.extend_from_slice(unsafe { std::slice::from_raw_parts(self.row(r, n), n) });
        }
        // A panic in `reduce` (a kernel's wrapper refusing the call) must not leave the
        // other ranks waiting out their deadline.
        struct PoisonOnUnwind<'a>(&'a ShmGroup);
        impl Drop for PoisonOnUnwind<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.poison();
                }
            }
        }
        let guard = PoisonOnUnwind(self);
        reduce(&rows, out);
        drop(guard);
        self.barrier()
    }
}

/// Sleeps while `word` holds `expected`, at most `timeout`.
/// A shared (not process-private) futex: the word is in a mapping several processes share.
fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: FUTEX_WAIT on an aligned u32 in a live mapping, with a valid relative timeout.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        );
    }
}

/// Wakes every process asleep on `word`.
fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on an aligned u32 in a live mapping.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX);
    }
}

impl Drop for ShmGroup {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, of `len` bytes.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn ranks_in_threads_exchange_rows_and_agree() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        ShmGroup::create(&path, 3, 16).unwrap();
        let outs: Vec<Vec<f32>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3)
                .map(|r| {
                    let path = path.clone();
                    s.spawn(move || {
                        let g = ShmGroup::join(&path, r).unwrap();
                        let mut last = vec![];
                        for round in 0..50 {
                            let mine: Vec<f32> =
                                (0..5).map(|i| (r * 100 + i + round) as f32).collect();
                            let mut out = vec![0f32; 5];
                            g.exchange(&mine, &mut out, |rows, out| {
                                for (i, o) in out.iter_mut().enumerate() {
                                    *o = (0..3).map(|q| rows[q * 5 + i]).sum();
                                }
                            })
                            .unwrap();
                            last = out;
                        }
                        last
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let want: Vec<f32> = (0..5).map(|i| (300 + 3 * (i + 49)) as f32).collect();
        for o in outs {
            assert_eq!(o, want);
        }
    }

    #[test]
    fn a_missing_rank_ends_the_wait_with_a_timeout_and_poison_ends_it_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        ShmGroup::create(&path, 2, 4).unwrap();
        let mut g0 = ShmGroup::join(&path, 0).unwrap();
        g0.set_deadline(Duration::from_millis(200));
        match g0.barrier() {
            Err(GroupError::Timeout {
                rank: 0,
                arrived: 1,
                world: 2,
                ..
            }) => {}
            other => panic!("expected a timeout, got {other:?}"),
        }
        // The timed-out rank poisoned the group: a late partner stops at once.
        let g1 = ShmGroup::join(&path, 1).unwrap();
        assert!(matches!(
            g1.barrier(),
            Err(GroupError::Poisoned { rank: 1, by: 0 })
        ));
        // A rank that fails says so: the others' waits end without the deadline.
        let path = dir.path().join("h");
        ShmGroup::create(&path, 2, 4).unwrap();
        let g0 = ShmGroup::join(&path, 0).unwrap();
        let g1 = ShmGroup::join(&path, 1).unwrap();
        g1.poison();
        assert!(matches!(
            g0.barrier(),
            Err(GroupError::Poisoned { rank: 0, by: 1 })
        ));
        // The launcher stops a group a rank of which failed without saying so (killed):
        // the waiting rank's barrier ends at once, naming the launcher.
        let path = dir.path().join("i");
        ShmGroup::create(&path, 2, 4).unwrap();
        let g0 = ShmGroup::join(&path, 0).unwrap();
        let waited = std::thread::scope(|s| {
            let h = s.spawn(move || {
                let t = Instant::now();
                (g0.barrier(), t.elapsed())
            });
            std::thread::sleep(Duration::from_millis(50));
            ShmGroup::stop(&path).unwrap();
            h.join().unwrap()
        });
        assert!(
            matches!(waited.0, Err(GroupError::Stopped { rank: 0 })),
            "{:?}",
            waited.0
        );
        assert!(waited.1 < Duration::from_secs(10), "{:?}", waited.1);
    }

    #[test]
    fn ranks_at_different_calls_are_told_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        ShmGroup::create(&path, 2, 8).unwrap();
        let errs: Vec<GroupError> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2)
                .map(|r| {
                    let path = path.clone();
                    s.spawn(move || {
                        let g = ShmGroup::join(&path, r).unwrap();
                        let mine = vec![1.0; 3 + r];
                        let mut out = vec![0.0; 3 + r];
                        g.exchange(&mine, &mut out, |_, _| {}).unwrap_err()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for e in errs {
            assert!(matches!(e, GroupError::Mismatch { .. }), "{e}");
        }
    }

    #[test]
    fn bad_files_ranks_and_sizes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        assert!(matches!(
            ShmGroup::join(&path, 0),
            Err(GroupError::NotAGroup { .. })
        ));
        assert!(matches!(
            ShmGroup::create(&path, 2, 4),
            Err(GroupError::Io { .. })
        ));
        let path = dir.path().join("h");
        assert!(matches!(
            ShmGroup::create(&path, 0, 4),
            Err(GroupError::BadWorld { world: 0 })
        ));
        assert!(matches!(
            ShmGroup::create(&path, 64, usize::MAX / 64),
            Err(GroupError::TooLargeGroup { .. })
        ));
        ShmGroup::create(&path, 2, 4).unwrap();
        assert!(matches!(
            ShmGroup::join(&path, 2),
            Err(GroupError::NoSuchRank { rank: 2, world: 2 })
        ));
        let g = ShmGroup::join(&path, 0).unwrap();
        assert!(matches!(
            g.exchange(&[0.0; 5], &mut [0.0; 5], |_, _| {}),
            Err(GroupError::TooLarge { n: 5, capacity: 4 })
        ));
    }
}
