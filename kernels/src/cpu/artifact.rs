//! The artifact screen for CPU bundles (DESIGN 7 step 3): what the compiler produced, read
//! as the dynamic loader will read it, before anything of it is loaded.
//!
//! The source screen reads what the miner wrote; this reads what will run, so it holds
//! whatever spelling the source used (trigraphs, `weakref`, `alias`, `section`, pasted
//! names). A library passes only if loading it runs none of its code and it can reach
//! nothing but the math library and the memory functions:
//! - no code at load or unload time: no `DT_INIT`/`DT_FINI`/`*_ARRAY` entries, no
//!   `.init_array`/`.fini_array`/`.preinit_array`/`.ctors`/`.dtors` sections, no indirect
//!   functions (`STT_GNU_IFUNC`, `R_X86_64_IRELATIVE`), whose resolvers run while loading;
//! - no thread-local storage (`PT_TLS`, TLS symbols);
//! - no writable and executable memory, no executable stack, executable sections only
//!   `.text` and the PLT, and no data objects inside them (machine code hidden in an
//!   array placed in `.text`);
//! - dynamic tags from a fixed list (no `RPATH`, `AUDIT`, `FILTER`, text relocations …);
//! - `NEEDED` libraries only `libm.so.6` and `libc.so.6`, and every imported symbol on
//!   [`ALLOWED_IMPORTS`];
//! - every instruction inside the arena's hardware class, and none that reads time or
//!   leaves user mode ([`isa`]).
//!
//! The library is linked with `-nostartfiles`, so an honest bundle has none of the
//! start-up code a toolchain would otherwise add (`frame_dummy` in `.init_array`).

use object::elf;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

/// Functions a CPU kernel may import: the math library and the memory functions the
/// compiler itself emits calls to.
pub const ALLOWED_IMPORTS: &[&str] = &[
    // <string.h> (the compiler lowers struct copies and zeroing loops to these)
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "__memcpy_chk",
    "__memmove_chk",
    "__memset_chk",
    "__stack_chk_fail",
    // <math.h>, double and float
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "expm1",
    "expm1f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "log1p",
    "log1pf",
    "pow",
    "powf",
    "sqrt",
    "sqrtf",
    "cbrt",
    "cbrtf",
    "hypot",
    "hypotf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "sincos",
    "sincosf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "erf",
    "erff",
    "erfc",
    "erfcf",
    "fabs",
    "fabsf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "lround",
    "lroundf",
    "trunc",
    "truncf",
    "rint",
    "rintf",
    "lrint",
    "lrintf",
    "nearbyint",
    "nearbyintf",
    "fmod",
    "fmodf",
    "remainder",
    "remainderf",
    "fma",
    "fmaf",
    "fmax",
    "fmaxf",
    "fmin",
    "fminf",
    "ldexp",
    "ldexpf",
    "frexp",
    "frexpf",
    "scalbn",
    "scalbnf",
    "copysign",
    "copysignf",
];

/// Libraries a CPU kernel may need.
pub const ALLOWED_NEEDED: &[&str] = &["libm.so.6", "libc.so.6"];

/// Dynamic tags an honest library has (`-shared -nostartfiles`, any linker option the
/// arena uses).
const ALLOWED_TAGS: &[u32] = &[
    elf::DT_NULL,
    elf::DT_NEEDED,
    elf::DT_PLTRELSZ,
    elf::DT_PLTGOT,
    elf::DT_HASH,
    elf::DT_STRTAB,
    elf::DT_SYMTAB,
    elf::DT_RELA,
    elf::DT_RELASZ,
    elf::DT_RELAENT,
    elf::DT_STRSZ,
    elf::DT_SYMENT,
    elf::DT_SONAME,
    elf::DT_PLTREL,
    elf::DT_JMPREL,
    elf::DT_BIND_NOW,
    elf::DT_FLAGS,
    elf::DT_GNU_HASH,
    elf::DT_VERSYM,
    elf::DT_RELACOUNT,
    elf::DT_FLAGS_1,
    elf::DT_VERNEED,
    elf::DT_VERNEEDNUM,
    elf::DT_VERDEF,
    elf::DT_VERDEFNUM,
];

/// Section names that hold load-time code or its tables.
const LOAD_TIME_SECTIONS: &[&str] = &[
    ".init",
    ".fini",
    ".init_array",
    ".fini_array",
    ".preinit_array",
    ".ctors",
    ".dtors",
];

/// Executable sections an honest library has.
const CODE_SECTIONS: &[&str] = &[".text", ".plt", ".plt.got", ".plt.sec"];

/// Why a built library was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the built library {what}")]
pub struct ArtifactViolation {
    pub what: String,
}

fn refuse(what: impl Into<String>) -> ArtifactViolation {
    ArtifactViolation { what: what.into() }
}

pub mod isa;

/// Screens a built shared library (its bytes) for an arena of hardware class `class`:
/// its structure ([`screen_structure`]), then its instructions ([`isa`]).
pub fn screen_library(data: &[u8], class: isa::HardwareClass) -> Result<(), ArtifactViolation> {
    screen_structure(data)?;
    let file = ElfFile64::<Endianness>::parse(data)
        .map_err(|e| refuse(format!("is not a 64-bit ELF file: {e}")))?;
    isa::screen_instructions(&file, class)
}

/// The library's structure: headers, sections, symbols, dynamic entries and imports.
pub fn screen_structure(data: &[u8]) -> Result<(), ArtifactViolation> {
    let file = ElfFile64::<Endianness>::parse(data)
        .map_err(|e| refuse(format!("is not a 64-bit ELF file: {e}")))?;
    let endian = file.endian();
    let header = file.elf_header();
    if header.e_type(endian) != elf::ET_DYN || header.e_machine(endian) != elf::EM_X86_64 {
        return Err(refuse("is not an x86-64 shared library"));
    }
    for ph in file.elf_program_headers() {
        let flags = ph.p_flags(endian);
        match ph.p_type(endian) {
            elf::PT_LOAD if flags & elf::PF_W != 0 && flags & elf::PF_X != 0 => {
                return Err(refuse("maps memory both writable and executable"))
            }
            elf::PT_GNU_STACK if flags & elf::PF_X != 0 => {
                return Err(refuse("asks for an executable stack"))
            }
            elf::PT_TLS => return Err(refuse("has thread-local storage")),
            elf::PT_INTERP => return Err(refuse("names a program interpreter")),
            elf::PT_LOAD
            | elf::PT_DYNAMIC
            | elf::PT_NOTE
            | elf::PT_GNU_EH_FRAME
            | elf::PT_GNU_STACK
            | elf::PT_GNU_RELRO
            | elf::PT_GNU_PROPERTY
            | elf::PT_PHDR
            | elf::PT_NULL => {}
            other => return Err(refuse(format!("has a program header of type {other:#x}"))),
        }
    }
    let mut code_ranges = Vec::new();
    for section in file.sections() {
        let name = section.name().unwrap_or("?");
        if LOAD_TIME_SECTIONS.contains(&name) {
            return Err(refuse(format!(
                "has a `{name}` section (code run at load time)"
            )));
        }
        let sh = section.elf_section_header();
        if sh.sh_flags(endian) as u32 & elf::SHF_TLS != 0 {
            return Err(refuse(format!("has thread-local section `{name}`")));
        }
        let exec = sh.sh_flags(endian) as u32 & elf::SHF_EXECINSTR != 0;
        if exec {
            if !CODE_SECTIONS.contains(&name) {
                return Err(refuse(format!("has executable section `{name}`")));
            }
            if sh.sh_flags(endian) as u32 & elf::SHF_WRITE != 0 {
                return Err(refuse(format!("has writable code in `{name}`")));
            }
            code_ranges.push((section.index(), name.to_string()));
        }
        if section.kind() == SectionKind::Tls || section.kind() == SectionKind::UninitializedTls {
            return Err(refuse(format!("has thread-local section `{name}`")));
        }
    }
    // Symbols: no indirect functions, no TLS, no data objects inside code.
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        let st_type = sym.elf_symbol().st_type();
        let name = sym.name().unwrap_or("?");
        if st_type == elf::STT_GNU_IFUNC {
            return Err(refuse(format!(
                "defines indirect function `{name}` (its resolver runs at load time)"
            )));
        }
        if sym.kind() == SymbolKind::Tls {
            return Err(refuse(format!("has thread-local symbol `{name}`")));
        }
        if let Some(index) = sym.section_index() {
            let in_code = code_ranges.iter().find(|(i, _)| *i == index);
            if let (Some((_, section)), SymbolKind::Data) = (in_code, sym.kind()) {
                return Err(refuse(format!(
                    "places data object `{name}` in executable section `{section}`"
                )));
            }
        }
    }
    screen_dynamic(&file)?;
    // Imports: undefined dynamic symbols.
    for sym in file.dynamic_symbols() {
        if !sym.is_undefined() {
            continue;
        }
        let name = sym.name().unwrap_or("");
        if name.is_empty() {
            continue;
        }
        if !ALLOWED_IMPORTS.contains(&name) {
            return Err(refuse(format!(
                "imports `{name}`; a kernel may import only the math library and the memory \
                 functions"
            )));
        }
    }
    Ok(())
}

/// The dynamic section: tags from the list, `NEEDED` from the list, and no relocation
/// that runs code (`R_X86_64_IRELATIVE`).
fn screen_dynamic(file: &ElfFile64<Endianness>) -> Result<(), ArtifactViolation> {
    let endian = file.endian();
    let data = file.data();
    let sections = file.elf_section_table();
    for (index, sh) in sections.iter().enumerate() {
        match sh.sh_type(endian) {
            elf::SHT_DYNAMIC => {
                let Some((dyns, link)) = sh
                    .dynamic(endian, data)
                    .map_err(|e| refuse(format!("has an unreadable dynamic section: {e}")))?
                else {
                    continue;
                };
                let strings = sections
                    .strings(endian, data, link)
                    .map_err(|e| refuse(format!("has unreadable dynamic strings: {e}")))?;
                for d in dyns {
                    let tag = d.d_tag(endian) as u32;
                    if d.d_tag(endian) > u32::MAX as u64 || !ALLOWED_TAGS.contains(&tag) {
                        return Err(refuse(format!(
                            "has dynamic entry {} (tag {:#x})",
                            dynamic_tag_name(tag),
                            d.d_tag(endian)
                        )));
                    }
                    if tag == elf::DT_NEEDED {
                        let name = d
                            .string(endian, strings)
                            .map(|s| String::from_utf8_lossy(s).into_owned())
                            .unwrap_or_default();
                        if !ALLOWED_NEEDED.contains(&name.as_str()) {
                            return Err(refuse(format!("needs library `{name}`")));
                        }
                    }
                }
            }
            elf::SHT_RELA => {
                let Some((relas, _)) = sh
                    .rela(endian, data)
                    .map_err(|e| refuse(format!("has unreadable relocations: {e}")))?
                else {
                    continue;
                };
                if relas
                    .iter()
                    .any(|r| r.r_type(endian, false) == elf::R_X86_64_IRELATIVE)
                {
                    return Err(refuse(format!(
                        "has an IRELATIVE relocation in section {index} (code run at load time)"
                    )));
                }
            }
            elf::SHT_REL => return Err(refuse("has REL relocations (x86-64 uses RELA)")),
            _ => {}
        }
    }
    Ok(())
}

fn dynamic_tag_name(tag: u32) -> &'static str {
    match tag {
        elf::DT_INIT => "DT_INIT (code run at load time)",
        elf::DT_FINI => "DT_FINI (code run at unload time)",
        elf::DT_INIT_ARRAY | elf::DT_INIT_ARRAYSZ => "DT_INIT_ARRAY (code run at load time)",
        elf::DT_FINI_ARRAY | elf::DT_FINI_ARRAYSZ => "DT_FINI_ARRAY (code run at unload time)",
        elf::DT_PREINIT_ARRAY | elf::DT_PREINIT_ARRAYSZ => "DT_PREINIT_ARRAY",
        elf::DT_TEXTREL => "DT_TEXTREL (writable code)",
        elf::DT_RPATH | elf::DT_RUNPATH => "a library search path",
        elf::DT_AUDIT | elf::DT_DEPAUDIT => "a loader audit library",
        elf::DT_AUXILIARY | elf::DT_FILTER => "a filter library",
        _ => "not on the list",
    }
}
