//! The hardware class of a built library's machine code (DESIGN 7 step 3, the artifact
//! screen's instruction part).
//!
//! A CPU arena publishes a hardware class, the x86-64 level its flags name
//! (`-march=x86-64-v3`). The flags do not bound what the compiler emits: a function-level
//! `target("avx512f")` attribute, a `target` pragma, `target_clones` or an intrinsic
//! compiled under one of them yields AVX-512 in a library built "for x86-64-v3", which runs
//! (and may win) on a measuring machine that has AVX-512 and dies with SIGILL on every
//! validator of the published class. So the screen reads what will run, whatever the
//! source did: every executable section is decoded with a real decoder (`iced-x86`), and
//! each instruction's CPUID features must be in the class ([`HardwareClass::allows`]).
//! Instructions that read time or leave user mode are refused in any class
//! ([`REFUSED_IN_ANY_CLASS`]).
//!
//! The decoding is a linear sweep from each section's start, and jumping into the middle
//! of an instruction would run bytes the sweep never decoded. So every place the code names
//! (a direct jump or call target, a RIP-relative address, a relocated pointer in the data)
//! that lies in an executable section must be an instruction the sweep decoded. What stays
//! out of reach of a static check is a code address computed at run time (a function's
//! address plus a number); docs/threats.md says what holds there.

use std::collections::BTreeSet;
use std::fmt;

use iced_x86::{CpuidFeature, Decoder, DecoderOptions, Instruction, Mnemonic};
use object::read::elf::{ElfFile64, SectionHeader};
use object::{
    Endianness, Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags,
    RelocationTarget,
};

use super::{refuse, ArtifactViolation};

/// An x86-64 micro-architecture level (the psABI's levels, as `-march=` names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HardwareClass {
    X86_64,
    X86_64V2,
    X86_64V3,
    X86_64V4,
}

/// Features every x86-64 processor has (the baseline level): the integer ISA, x87, MMX,
/// SSE, SSE2, and what they bring (`pause`, `clflush`, multi-byte NOPs, `endbr64`, which
/// is a NOP where CET is absent).
const BASELINE: &[CpuidFeature] = &[
    CpuidFeature::INTEL8086,
    CpuidFeature::INTEL186,
    CpuidFeature::INTEL286,
    CpuidFeature::INTEL386,
    CpuidFeature::INTEL486,
    CpuidFeature::X64,
    CpuidFeature::CMOV,
    CpuidFeature::CX8,
    CpuidFeature::FPU,
    CpuidFeature::FPU287,
    CpuidFeature::FPU387,
    CpuidFeature::FXSR,
    CpuidFeature::MMX,
    CpuidFeature::SSE,
    CpuidFeature::SSE2,
    CpuidFeature::PAUSE,
    CpuidFeature::CLFSH,
    CpuidFeature::MULTIBYTENOP,
    CpuidFeature::CET_IBT,
];

/// Added by x86-64-v2.
const V2: &[CpuidFeature] = &[
    CpuidFeature::CMPXCHG16B,
    CpuidFeature::POPCNT,
    CpuidFeature::SSE3,
    CpuidFeature::SSSE3,
    CpuidFeature::SSE4_1,
    CpuidFeature::SSE4_2,
];

/// Added by x86-64-v3.
const V3: &[CpuidFeature] = &[
    CpuidFeature::AVX,
    CpuidFeature::AVX2,
    CpuidFeature::BMI1,
    CpuidFeature::BMI2,
    CpuidFeature::F16C,
    CpuidFeature::FMA,
    CpuidFeature::LZCNT,
    CpuidFeature::MOVBE,
    CpuidFeature::XSAVE,
];

/// Added by x86-64-v4.
const V4: &[CpuidFeature] = &[
    CpuidFeature::AVX512F,
    CpuidFeature::AVX512BW,
    CpuidFeature::AVX512CD,
    CpuidFeature::AVX512DQ,
    CpuidFeature::AVX512VL,
];

/// Instructions refused whatever the class: time and performance counters (a kernel must
/// not tell a timed call from an audited one), system calls and software interrupts
/// (leaving user mode), and `cpuid` (how code picks instructions outside the class on a
/// machine that has them; in a virtual machine, an exit to the hypervisor).
pub const REFUSED_IN_ANY_CLASS: &[Mnemonic] = &[
    Mnemonic::Rdtsc,
    Mnemonic::Rdtscp,
    Mnemonic::Rdpmc,
    Mnemonic::Rdpid,
    Mnemonic::Syscall,
    Mnemonic::Sysenter,
    Mnemonic::Int,
    Mnemonic::Int1,
    Mnemonic::Into,
    Mnemonic::Cpuid,
];

impl HardwareClass {
    /// The class a compiler's flags name with `-march=` (the last one counts, as for the
    /// compiler), if it is an x86-64 level.
    pub fn of_flags<S: AsRef<str>>(flags: &[S]) -> Option<HardwareClass> {
        let march = flags
            .iter()
            .filter_map(|f| f.as_ref().strip_prefix("-march="))
            .last()?;
        match march {
            "x86-64" => Some(HardwareClass::X86_64),
            "x86-64-v2" => Some(HardwareClass::X86_64V2),
            "x86-64-v3" => Some(HardwareClass::X86_64V3),
            "x86-64-v4" => Some(HardwareClass::X86_64V4),
            _ => None,
        }
    }

    /// Whether processors of this class all have `feature`.
    pub fn allows(self, feature: CpuidFeature) -> bool {
        let levels = [
            (HardwareClass::X86_64, BASELINE),
            (HardwareClass::X86_64V2, V2),
            (HardwareClass::X86_64V3, V3),
            (HardwareClass::X86_64V4, V4),
        ];
        levels
            .iter()
            .any(|(level, features)| *level <= self && features.contains(&feature))
    }
}

impl fmt::Display for HardwareClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HardwareClass::X86_64 => "x86-64",
            HardwareClass::X86_64V2 => "x86-64-v2",
            HardwareClass::X86_64V3 => "x86-64-v3",
            HardwareClass::X86_64V4 => "x86-64-v4",
        })
    }
}

/// One executable section, decoded.
struct Code<'a> {
    name: &'a str,
    address: u64,
    bytes: &'a [u8],
}

/// Screens the instructions of a built library (its bytes, already parsed as `file`).
pub(super) fn screen_instructions(
    file: &ElfFile64<Endianness>,
    class: HardwareClass,
) -> Result<(), ArtifactViolation> {
    let mut sections = Vec::new();
    for section in file.sections() {
        let elf = section.elf_section_header();
        if elf.sh_flags(file.endian()) & u64::from(object::elf::SHF_EXECINSTR) == 0 {
            continue;
        }
        let bytes = section
            .data()
            .map_err(|e| refuse(format!("has an unreadable executable section: {e}")))?;
        sections.push(Code {
            name: section.name().unwrap_or("?"),
            address: section.address(),
            bytes,
        });
    }
    let mut starts = BTreeSet::new();
    let mut named = Vec::new();
    for code in &sections {
        let mut decoder = Decoder::with_ip(64, code.bytes, code.address, DecoderOptions::NONE);
        let mut instr = Instruction::default();
        while decoder.can_decode() {
            decoder.decode_out(&mut instr);
            let at = instr.ip();
            let place = || describe_place(file, code, at);
            if instr.is_invalid() {
                return Err(refuse(format!(
                    "has bytes that decode to no instruction at {}",
                    place()
                )));
            }
            starts.insert(at);
            if REFUSED_IN_ANY_CLASS.contains(&instr.mnemonic()) {
                return Err(refuse(format!(
                    "has a `{:?}` instruction at {} (reads time or leaves user mode)",
                    instr.mnemonic(),
                    place()
                )));
            }
            if let Some(feature) = instr.cpuid_features().iter().find(|f| !class.allows(**f)) {
                return Err(refuse(format!(
                    "leaves the arena's hardware class {class}: `{:?}` ({:?}) at {} needs {feature:?}",
                    instr.mnemonic(),
                    instr.code(),
                    place()
                )));
            }
            named.extend(named_address(&instr).map(|target| (at, target)));
        }
    }
    let inside_code = |a: u64| {
        sections
            .iter()
            .any(|c| a >= c.address && a < c.address + c.bytes.len() as u64)
    };
    let misaligned = |target: u64| inside_code(target) && !starts.contains(&target);
    if let Some((at, target)) = named.into_iter().find(|(_, t)| misaligned(*t)) {
        return Err(refuse(format!(
            "names code address {target:#x} inside an instruction (at {at:#x}): bytes no \
             decoding of its code reads"
        )));
    }
    for target in relocated_pointers(file) {
        if misaligned(target) {
            return Err(refuse(format!(
                "holds a pointer to code address {target:#x}, inside an instruction"
            )));
        }
    }
    Ok(())
}

/// The code address an instruction names: a direct branch's target, a RIP-relative
/// operand's address.
fn named_address(instr: &Instruction) -> Option<u64> {
    let branch = instr.is_jmp_short_or_near()
        || instr.is_jcc_short_or_near()
        || instr.is_call_near()
        || instr.is_jcx_short()
        || instr.is_loop();
    if branch {
        Some(instr.near_branch_target())
    } else if instr.is_ip_rel_memory_operand() {
        Some(instr.ip_rel_memory_address())
    } else {
        None
    }
}

/// The addresses the dynamic relocations write into the data: `R_X86_64_RELATIVE`
/// (base + addend) and `R_X86_64_64` of a defined symbol (its value + addend).
fn relocated_pointers(file: &ElfFile64<Endianness>) -> Vec<u64> {
    let Some(relocations) = file.dynamic_relocations() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (_, r) in relocations {
        let RelocationFlags::Elf { r_type } = r.flags() else {
            continue;
        };
        let base = match (r_type, r.target()) {
            (object::elf::R_X86_64_RELATIVE, _) => 0,
            (object::elf::R_X86_64_64, RelocationTarget::Symbol(index)) => {
                let symbol = file
                    .dynamic_symbol_table()
                    .and_then(|table| table.symbol_by_index(index).ok());
                match symbol {
                    Some(sym) if !sym.is_undefined() => sym.address(),
                    _ => continue,
                }
            }
            _ => continue,
        };
        out.push(base.wrapping_add(r.addend() as u64));
    }
    out
}

/// `section+offset (function+offset)` for an address, for the miner.
fn describe_place(file: &ElfFile64<Endianness>, code: &Code, at: u64) -> String {
    let function = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == object::SymbolKind::Text && s.address() <= at)
        .filter(|s| at < s.address() + s.size().max(1))
        .find_map(|s| {
            s.name()
                .ok()
                .map(|n| format!(" in `{n}`+{:#x}", at - s.address()))
        });
    format!(
        "{}+{:#x}{}",
        code.name,
        at - code.address,
        function.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::artifact::{screen_library, screen_structure};

    /// A library built from `source` by the system compiler with the arena's flags,
    /// bypassing the source screens (these tests are about what the compiler emits).
    fn built(source: &str) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("k.c");
        let lib = dir.path().join("libk.so");
        std::fs::write(&src, source).unwrap();
        let out = std::process::Command::new("cc")
            .args(crate::cpu::build::ARENA_FLAGS)
            .arg(&src)
            .arg("-o")
            .arg(&lib)
            .args(["-nostartfiles", "-lm"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(lib).unwrap()
    }

    const V3: HardwareClass = HardwareClass::X86_64V3;

    fn refused(source: &str) -> String {
        screen_library(&built(source), V3)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn a_target_attribute_compiles_to_avx512_and_the_instructions_are_refused() {
        let wide = "#include <immintrin.h>\n\
            __attribute__((target(\"avx512f\"))) void scale(float* o, const float* x, long n) {\n\
              for (long i = 0; i + 16 <= n; i += 16)\n\
                _mm512_storeu_ps(o + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), _mm512_set1_ps(2.f)));\n\
            }\n";
        let lib = built(wide);
        // Every rule of the artifact screen before this check passes it.
        assert_eq!(screen_structure(&lib), Ok(()));
        let why = screen_library(&lib, V3).unwrap_err().to_string();
        assert!(
            why.contains("x86-64-v3") && why.contains("AVX512F"),
            "{why}"
        );
        assert!(
            why.contains(".text+0x") && why.contains("`scale`+0x"),
            "{why}"
        );
        // In a class that has AVX-512 it is fine; the same loop in AVX2 is fine in v3.
        assert_eq!(screen_library(&lib, HardwareClass::X86_64V4), Ok(()));
        let narrow = wide
            .replace("target(\"avx512f\")", "unused")
            .replace("512", "256")
            .replace("16", "8");
        assert_eq!(screen_library(&built(&narrow), V3), Ok(()));
    }

    #[test]
    fn raw_encodings_time_reads_and_system_calls_are_refused_whatever_the_route() {
        // AVX-512 as raw bytes (vaddps zmm0, zmm0, zmm1), no attribute anywhere.
        let raw = "void f(void) { __asm__ volatile(\".byte 0x62,0xf1,0x7c,0x48,0x58,0xc1\"); }";
        assert!(refused(raw).contains("AVX512F"), "{}", refused(raw));
        for (source, what) in [
            ("unsigned long long f(void) { return __builtin_ia32_rdtsc(); }", "Rdtsc"),
            ("void f(void) { __asm__ volatile(\"syscall\"); }", "Syscall"),
            ("void f(void) { __asm__ volatile(\"cpuid\" ::: \"eax\", \"ebx\", \"ecx\", \"edx\"); }", "Cpuid"),
            ("void f(void) { __asm__ volatile(\"int $0x80\"); }", "Int"),
        ] {
            let why = refused(source);
            assert!(why.contains(&format!("`{what}`")), "{source}: {why}");
        }
        // A jump into the middle of an instruction (to an rdtsc hidden in a call's bytes).
        let hidden =
            "void f(void) { __asm__ volatile(\".byte 0xeb,0x01,0xe8,0x0f,0x31,0x90,0x90\"); }";
        let why = refused(hidden);
        assert!(why.contains("inside an instruction"), "{why}");
    }

    #[test]
    fn the_levels_hold_what_the_psabi_lists() {
        let v3 = HardwareClass::X86_64V3;
        for f in [
            CpuidFeature::SSE4_2,
            CpuidFeature::AVX2,
            CpuidFeature::FMA,
            CpuidFeature::BMI2,
            CpuidFeature::F16C,
            CpuidFeature::MOVBE,
        ] {
            assert!(v3.allows(f), "{f:?}");
        }
        for f in [
            CpuidFeature::AVX512F,
            CpuidFeature::AVX512VL,
            CpuidFeature::AVX512_VNNI,
            CpuidFeature::AVX_VNNI,
            CpuidFeature::AMX_TILE,
            CpuidFeature::RDRAND,
            CpuidFeature::RTM,
            CpuidFeature::WAITPKG,
        ] {
            assert!(!v3.allows(f), "{f:?}");
        }
        assert!(HardwareClass::X86_64V4.allows(CpuidFeature::AVX512F));
        assert!(!HardwareClass::X86_64V2.allows(CpuidFeature::AVX));
    }

    #[test]
    fn the_class_is_read_from_the_last_march_flag() {
        let flags = ["-O3", "-march=x86-64", "-march=x86-64-v3"];
        assert_eq!(
            HardwareClass::of_flags(&flags),
            Some(HardwareClass::X86_64V3)
        );
        assert_eq!(HardwareClass::of_flags(&["-march=native"]), None);
        assert_eq!(HardwareClass::of_flags(&["-O3"]), None);
    }
}
