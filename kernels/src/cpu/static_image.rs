//! The writable static storage of a loaded library (C `.data`, `.bss` and the rest of their
//! pages), kept as it was once the loader was done and written back before every call of
//! one of the library's kernels: nothing a kernel leaves there reaches its next call.
//!
//! Found through the loader's own records (`dl_iterate_phdr`): the writable `PT_LOAD`
//! segments of the object that holds the kernel's code, from the first to the last byte of
//! their pages, less the part the loader made read-only after relocating it
//! (`PT_GNU_RELRO`: the GOT, `.dynamic`, `.init_array`), which no call can change. The
//! cost is a copy of those bytes per call: a few hundred bytes for a kernel with no static
//! storage, the whole of it for one that has some (measured in docs/validator.md).

use std::ffi::c_void;
use std::sync::{Arc, Mutex, Weak};

/// A byte range of the library's writable pages and what it held after loading.
#[derive(Debug)]
struct Span {
    addr: usize,
    /// The bytes at load; `None` where they were all zero (written back with a fill).
    image: Option<Vec<u8>>,
    len: usize,
}

/// The writable static storage of one loaded library, as loaded.
#[derive(Debug)]
pub struct StaticImage {
    /// The library's load address.
    base: usize,
    spans: Vec<Span>,
    /// Calls into the library one at a time: each owns its static storage while it runs.
    guard: Mutex<()>,
}

/// One object's program headers as the loader reports them.
struct Object {
    base: usize,
    /// (start, end, writable) of each `PT_LOAD`, absolute.
    loads: Vec<(usize, usize, bool)>,
    /// The loader's read-only-after-relocation range, absolute.
    relro: Option<(usize, usize)>,
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the process.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

unsafe extern "C" fn collect(
    info: *mut libc::dl_phdr_info,
    _size: libc::size_t,
    data: *mut c_void,
) -> libc::c_int {
    // SAFETY: the loader hands a valid record for the duration of the callback; `data` is
    // the `Vec<Object>` passed to `dl_iterate_phdr` below.
    let (info, out) = unsafe { (&*info, &mut *data.cast::<Vec<Object>>()) };
    let base = info.dlpi_addr as usize;
    let headers = if info.dlpi_phdr.is_null() {
        &[][..]
    } else {
        // SAFETY: dlpi_phdr points at dlpi_phnum program headers.
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) }
    };
    let mut obj = Object {
        base,
        loads: Vec::new(),
        relro: None,
    };
    for h in headers {
        let start = base + h.p_vaddr as usize;
        let end = start + h.p_memsz as usize;
        match h.p_type {
            libc::PT_LOAD => obj.loads.push((start, end, h.p_flags & libc::PF_W != 0)),
            libc::PT_GNU_RELRO => obj.relro = Some((start, end)),
            _ => {}
        }
    }
    out.push(obj);
    0
}

/// The loaded objects, as the loader reports them.
fn loaded_objects() -> Vec<Object> {
    let mut objects: Vec<Object> = Vec::new();
    // SAFETY: `collect` only reads the records it is handed and appends to `objects`.
    unsafe { libc::dl_iterate_phdr(Some(collect), (&mut objects as *mut Vec<Object>).cast()) };
    objects
}

/// The loaded object (not the main program) whose segments hold `addr`.
fn object_holding(addr: usize) -> Option<Object> {
    loaded_objects()
        .into_iter()
        .find(|o| o.base != 0 && o.loads.iter().any(|&(s, e, _)| (s..e).contains(&addr)))
}

fn object_base(addr: *const c_void) -> Option<usize> {
    object_holding(addr as usize).map(|o| o.base)
}

impl StaticImage {
    /// The image of the library whose code holds `addr` (a kernel's entry), taken now: call
    /// it after loading and before any of the library's code ran. `None` where no loaded
    /// object holds `addr`.
    pub fn of(addr: *const c_void) -> Option<StaticImage> {
        let obj = object_holding(addr as usize)?;
        let page = page_size();
        // What the loader protects: whole pages from the start of PT_GNU_RELRO to the page
        // its end falls in (glibc's `_dl_protect_relro`).
        let protected = obj
            .relro
            .map(|(s, e)| (s & !(page - 1), e & !(page - 1)))
            .unwrap_or((0, 0));
        let mut spans = Vec::new();
        for &(start, end, writable) in &obj.loads {
            if !writable {
                continue;
            }
            let (lo, hi) = (start & !(page - 1), (end + page - 1) & !(page - 1));
            let (p0, p1) = protected;
            let parts = if p1 <= lo || p0 >= hi {
                vec![(lo, hi)]
            } else {
                vec![(lo, p0), (p1, hi)]
            };
            for (s, e) in parts {
                if s < e {
                    spans.push(Span::take(s, e - s));
                }
            }
        }
        Some(StaticImage {
            base: obj.base,
            spans,
            guard: Mutex::new(()),
        })
    }

    /// The image of the library holding `addr`, shared by every kernel of that library: the
    /// one taken when its first kernel was resolved, while it is alive, else a new one.
    pub fn shared(addr: *const c_void) -> Option<Arc<StaticImage>> {
        static LOADED: Mutex<Vec<Weak<StaticImage>>> = Mutex::new(Vec::new());
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        loaded.retain(|w| w.strong_count() > 0);
        let base = object_base(addr)?;
        if let Some(image) = loaded
            .iter()
            .filter_map(Weak::upgrade)
            .find(|i| i.base == base)
        {
            return Some(image);
        }
        let image = Arc::new(StaticImage::of(addr)?);
        loaded.push(Arc::downgrade(&image));
        Some(image)
    }

    /// Bytes written back before every call.
    pub fn bytes(&self) -> usize {
        self.spans.iter().map(|s| s.len).sum()
    }

    /// Writes the image back, then runs `call` (a kernel of this library) with the static
    /// storage its own until it returns.
    pub fn fresh_for<R>(&self, call: impl FnOnce() -> R) -> R {
        let _one_at_a_time = self.guard.lock().unwrap_or_else(|p| p.into_inner());
        for s in &self.spans {
            s.restore();
        }
        call()
    }
}

impl Span {
    fn take(addr: usize, len: usize) -> Span {
        // SAFETY: [addr, addr + len) lies in a writable, mapped segment of a loaded library
        // (whole pages of its PT_LOAD), which stays mapped while the library is loaded.
        let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) };
        let image = bytes.iter().any(|&b| b != 0).then(|| bytes.to_vec());
        Span { addr, image, len }
    }

    fn restore(&self) {
        let at = self.addr as *mut u8;
        // SAFETY: as in `take`: the same writable range of a library that is still loaded
        // (the kernel holding this image keeps it loaded); no Rust reference points into
        // it (only the library's own code uses it).
        unsafe {
            match &self.image {
                Some(image) => std::ptr::copy_nonoverlapping(image.as_ptr(), at, self.len),
                None => std::ptr::write_bytes(at, 0, self.len),
            }
        }
    }
}
