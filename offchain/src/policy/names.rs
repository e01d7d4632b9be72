//! The names the source screen refuses, by rule (timers, I/O, system access, allocation,
//! device launches, load-time code, hidden names, linkage tricks, the build's date and
//! time), and by [`Meaning`]: where an occurrence of the name is what the rule is about.

use super::{Language, Rule};

/// Where an occurrence of a forbidden name breaks its rule (`policy/meaning.rs` reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Meaning {
    /// Everywhere: keywords (`asm`, `new`, `_Pragma`), the build-time macros, and reserved
    /// identifiers (a leading underscore: compiler builtins and intrinsics such as
    /// `__rdtsc`), which no honest kernel names a variable.
    Anywhere,
    /// Where it names a function: called, declared or defined (followed by `(`), used as a
    /// value without being a variable, parameter or field the source declares (a
    /// function's address), or qualified (`std::chrono`). A variable, parameter, field or
    /// member of that name is not the function.
    Function,
    /// Inside an attribute (`__attribute__((...))`, `[[...]]`, `__declspec(...)`) only:
    /// `section`, `weak`, `alias`, … are ordinary words elsewhere.
    Attribute,
    /// C++ `delete`: freeing memory, but not a deleted function (`= delete`).
    Delete,
}

/// The rule `ident` breaks in a `lang` source, if any.
pub(super) fn forbidden(lang: Language, ident: &str) -> Option<(Rule, Meaning)> {
    let rule = forbidden_rule(lang, ident)?;
    Some((rule, meaning(lang, ident, rule)))
}

/// How an occurrence of a forbidden name is judged.
fn meaning(lang: Language, ident: &str, rule: Rule) -> Meaning {
    const ATTRIBUTE_WORDS: &[&str] = &[
        "alias",
        "weakref",
        "weak",
        "section",
        "symver",
        "target_clones",
        "naked",
        "constructor",
        "destructor",
        "init_priority",
        "ifunc",
    ];
    const KEYWORDS: &[&str] = &["asm", "new"];
    if lang == Language::Cuda && ident == "delete" {
        Meaning::Delete
    } else if ATTRIBUTE_WORDS.contains(&ident) {
        Meaning::Attribute
    } else if ident.starts_with('_') || KEYWORDS.contains(&ident) || rule == Rule::BuildTime {
        Meaning::Anywhere
    } else {
        Meaning::Function
    }
}

/// The rule a name is on the lists of, if any.
fn forbidden_rule(lang: Language, ident: &str) -> Option<Rule> {
    const ASM: &[&str] = &["asm", "__asm", "__asm__"];
    const TIMERS_COMMON: &[&str] = &[
        "clock",
        "time",
        "clock_gettime",
        "gettimeofday",
        "timespec_get",
    ];
    const TIMERS_C: &[&str] = &[
        "times",
        "getrusage",
        "__rdtsc",
        "_rdtsc",
        "__rdtscp",
        "_rdtscp",
        "__rdpmc",
        "_rdpmc",
        "__builtin_ia32_rdtsc",
        "__builtin_ia32_rdtscp",
        "__builtin_ia32_rdpmc",
        "__builtin_readcyclecounter",
        "__builtin_readsteadycounter",
        "_xbegin",
        "_xend",
    ];
    const TIMERS_CUDA: &[&str] = &[
        "clock64",
        "__globaltimer",
        "globaltimer",
        "__nanosleep",
        "chrono",
        "__clock",
    ];
    const IO: &[&str] = &[
        "printf",
        "dprintf",
        "vdprintf",
        "vfprintf",
        "writev",
        "readv",
        "vprintf",
        "fprintf",
        "sprintf",
        "snprintf",
        "vsnprintf",
        "puts",
        "putchar",
        "fputs",
        "fputc",
        "putc",
        "fwrite",
        "fread",
        "fopen",
        "fclose",
        "fflush",
        "freopen",
        "fdopen",
        "open",
        "openat",
        "creat",
        "read",
        "write",
        "pread",
        "pwrite",
        "close",
        "stdout",
        "stderr",
        "stdin",
        "perror",
        "scanf",
        "fscanf",
        "getchar",
        "FILE",
    ];
    const SYSTEM: &[&str] = &[
        "syscall",
        "ioctl",
        "mmap",
        "munmap",
        "mprotect",
        "madvise",
        "socket",
        "connect",
        "bind",
        "listen",
        "accept",
        "send",
        "recv",
        "fork",
        "vfork",
        "clone",
        "execve",
        "execv",
        "execvp",
        "execl",
        "execlp",
        "system",
        "popen",
        "dlopen",
        "dlsym",
        "dlclose",
        "getenv",
        "secure_getenv",
        "setenv",
        "putenv",
        "environ",
        "__environ",
        "kill",
        "signal",
        "sigaction",
        "raise",
        "abort",
        "exit",
        "_exit",
        "_Exit",
        "atexit",
        "at_quick_exit",
        "pthread_create",
        "thrd_create",
        "setjmp",
        "longjmp",
        "_setjmp",
        "_longjmp",
        "__builtin_setjmp",
        "__builtin_longjmp",
        "sleep",
        "usleep",
        "nanosleep",
        "sched_yield",
        "ptrace",
        "prctl",
        "__builtin_frame_address",
        "__builtin_return_address",
        "__builtin_apply",
        "__builtin_apply_args",
        "__trap",
        "__brkpt",
        "cudaDeviceSynchronize",
        "cudaStreamCreate",
        "cudaEventRecord",
    ];
    const ALLOC_C: &[&str] = &[
        "malloc",
        "calloc",
        "realloc",
        "free",
        "aligned_alloc",
        "posix_memalign",
        "alloca",
        "__builtin_alloca",
        "__builtin_alloca_with_align",
        "valloc",
        "memalign",
    ];
    const ALLOC_CUDA: &[&str] = &[
        "malloc",
        "free",
        "new",
        "delete",
        "cudaMalloc",
        "cudaFree",
        "cudaMallocAsync",
        "__builtin_alloca",
        "alloca",
    ];
    const LAUNCH_CUDA: &[&str] = &[
        "cudaLaunchKernel",
        "cudaLaunchDevice",
        "cudaGetParameterBuffer",
        "cudaGraphLaunch",
        "cudaLaunchCooperativeKernel",
    ];
    const LOAD_TIME: &[&str] = &[
        "constructor",
        "destructor",
        "__constructor__",
        "__destructor__",
        "_init",
        "_fini",
        "init_priority",
        "ifunc",
        "__ifunc__",
    ];
    const HIDDEN: &[&str] = &["_Pragma", "__pragma"];
    const LINKAGE: &[&str] = &[
        "alias",
        "__alias__",
        "weakref",
        "__weakref__",
        "weak",
        "__weak__",
        "section",
        "__section__",
        "symver",
        "__symver__",
        "target_clones",
        "__target_clones__",
        "naked",
        "__naked__",
    ];

    let within = |list: &[&str]| list.contains(&ident);
    // C only: a CUDA kernel's inline PTX lands in the PTX the artifact screen reads
    // (`cacheon_kernels::cuda::ptx::screen_ptx`), which refuses timers, counters, the graph
    // a launch belongs to and calls out of the module however the source spelled them.
    if lang == Language::C && within(ASM) {
        return Some(Rule::InlineAssembly);
    }
    if within(TIMERS_COMMON)
        || (lang == Language::C && within(TIMERS_C))
        || (lang == Language::Cuda && within(TIMERS_CUDA))
    {
        return Some(Rule::TimerRead);
    }
    if within(IO) {
        return Some(Rule::InputOutput);
    }
    if within(SYSTEM) {
        return Some(Rule::SystemAccess);
    }
    if (lang == Language::C && within(ALLOC_C)) || (lang == Language::Cuda && within(ALLOC_CUDA)) {
        return Some(Rule::Allocation);
    }
    if lang == Language::Cuda && within(LAUNCH_CUDA) {
        return Some(Rule::DeviceLaunch);
    }
    if within(LOAD_TIME) {
        return Some(Rule::LoadTimeCode);
    }
    if within(HIDDEN) {
        return Some(Rule::HiddenName);
    }
    if lang == Language::C && within(LINKAGE) {
        return Some(Rule::Linkage);
    }
    if within(&["__DATE__", "__TIME__", "__TIMESTAMP__"]) {
        return Some(Rule::BuildTime);
    }
    None
}
