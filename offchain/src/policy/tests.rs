//! Tests of [`super`] (`policy.rs`).

use super::*;

fn c(src: &str) -> Result<(), Violation> {
    screen_source("k.c", src, Language::C, &[])
}

fn cu(src: &str) -> Result<(), Violation> {
    screen_source("k.cu", src, Language::Cuda, &[])
}

fn rule(r: Result<(), Violation>) -> Rule {
    r.expect_err("expected a violation").rule
}

#[test]
fn plain_kernels_pass() {
    for stock in cacheon_kernels::bundle::stock::cpu_bundles() {
        let files = stock.files();
        screen_bundle(&files, Language::C).unwrap_or_else(|v| panic!("{}: {v}", stock.name));
    }
    for stock in cacheon_kernels::bundle::stock::cuda_bundles() {
        let files = stock.files();
        screen_bundle(&files, Language::Cuda).unwrap_or_else(|v| panic!("{}: {v}", stock.name));
    }
}

#[test]
fn each_rule_is_named() {
    assert_eq!(
        rule(c("void f(){ __asm__(\"rdtsc\"); }")),
        Rule::InlineAssembly
    );
    assert_eq!(rule(c("long t = __rdtsc();")), Rule::TimerRead);
    assert_eq!(rule(cu("long long t = clock64();")), Rule::TimerRead);
    // Inline PTX is the PTX screen's to judge (tensor-core instructions need it).
    assert!(cu(
        "__device__ void f(float* d){ asm volatile(\"mov.f32 %0, 0f00000000;\" : \"=f\"(d[0])); }"
    )
    .is_ok());
    assert_eq!(rule(c("int x = printf(\"hi\");")), Rule::InputOutput);
    assert_eq!(rule(c("long r = syscall(39);")), Rule::SystemAccess);
    assert_eq!(rule(c("float* p = malloc(4);")), Rule::Allocation);
    assert_eq!(rule(cu("float* p = new float[4];")), Rule::Allocation);
    assert_eq!(rule(cu("k<<<1, 1>>>();")), Rule::DeviceLaunch);
    assert_eq!(
        rule(c("__attribute__((constructor)) void g(void) {}")),
        Rule::LoadTimeCode
    );
    assert_eq!(
        rule(c("#define J(a,b) a##b\nJ(sys,call)(1);")),
        Rule::HiddenName
    );
    assert_eq!(rule(c("_Pragma(\"x\")")), Rule::HiddenName);
    // A build that depends on when it runs: static_assert(__TIME__[7] != '7') fails
    // in one lane out of ten.
    assert_eq!(
        rule(c("_Static_assert(__TIME__[7] != '7', \"t\");")),
        Rule::BuildTime
    );
    assert_eq!(rule(cu("const char* d = __DATE__;")), Rule::BuildTime);
    assert_eq!(rule(c("const char* d = __TIMESTAMP__;")), Rule::BuildTime);
    assert_eq!(rule(c("int \\u0061 = 1;")), Rule::HiddenName);
    assert_eq!(rule(c("%:include <stdio.h>")), Rule::HiddenName);
    // A raw string hides quotes and whole lines from a lexer that misreads it.
    assert_eq!(
        rule(c("const char* s = R\"x( \" )x\"; long t = clock();")),
        Rule::HiddenName
    );
    // The false positives: `##` inside a literal, an include in a conditional block.
    assert!(screen_source("k.c", "const char* t = \"a##b\";", Language::C, &[]).is_ok());
    assert!(screen_source(
        "k.c",
        "#ifdef NEVER\n#include <stdio.h>\n#endif\n",
        Language::C,
        &[]
    )
    .is_ok());
    assert_eq!(rule(c("#include <stdio.h>")), Rule::Include);
    assert_eq!(
        rule(c("#ifdef X\n#include </etc/passwd.h>\n#endif")),
        Rule::Include
    );
    // Linkage attributes reach names without spelling them in a call.
    assert_eq!(
        rule(c("static long w(int) __attribute__((weakref(\"write\")));")),
        Rule::Linkage
    );
    assert_eq!(
        rule(c("__attribute__((section(\".text\"))) const char x[1];")),
        Rule::Linkage
    );
    assert_eq!(rule(c("#include \"../x.h\"")), Rule::Include);
    assert_eq!(rule(c("#include_next <math.h>")), Rule::Directive);
    assert_eq!(rule(c("#pragma GCC optimize(\"O0\")")), Rule::Pragma);
    assert_eq!(rule(c("#line 1 \"x\"")), Rule::Directive);
}

#[test]
fn names_are_found_through_continuations_but_not_in_comments_or_strings() {
    assert_eq!(
        rule(c("long t = sys\\\ncall(1);")).clone(),
        Rule::SystemAccess
    );
    let v =
        c("int a;\n/* printf( */ int b;\nint c; // clock()\nconst char* s = \"printf time\";\n");
    assert_eq!(v, Ok(()));
    let v = c("int a;\n/* multi\nline clock() */\nint b = clock();").unwrap_err();
    assert_eq!((v.line, v.rule), (4, Rule::TimerRead));
    assert_eq!(c("float x = 1.0e-3f + 0x1p3f;"), Ok(()));
    assert_eq!(
        c("#pragma GCC unroll 4\n#pragma once\n#include <math.h>"),
        Ok(())
    );
}

#[test]
fn quoted_includes_must_be_bundle_headers() {
    let files = vec![
        BundleFile::new(
            "kernels/util.h",
            "static inline float sq(float x) { return x * x; }\n",
        ),
        BundleFile::new("kernels/k.c", "#include \"util.h\"\n"),
    ];
    assert_eq!(screen_bundle(&files, Language::C), Ok(()));
    let files = vec![BundleFile::new("kernels/k.c", "#include \"missing.h\"\n")];
    assert_eq!(rule(screen_bundle(&files, Language::C)), Rule::Include);
    let files = vec![BundleFile::new("kernels/k.c", "#include \"/etc/passwd\"\n")];
    assert_eq!(rule(screen_bundle(&files, Language::C)), Rule::Include);
}

#[test]
fn every_rule_is_a_policy_failure_never_cheating() {
    // A name is not a proof: before, a timer's name failed `Cheating`, which slashes.
    for r in [
        Rule::TimerRead,
        Rule::InlineAssembly,
        Rule::Allocation,
        Rule::Linkage,
    ] {
        assert_eq!(r.fail_reason(), FailReason::Policy, "{r:?}");
    }
}

#[test]
fn a_line_break_a_compiler_could_read_otherwise_is_refused() {
    // A lone carriage return ends a line for GCC: the call would run, hidden in a comment
    // for a screen that does not split there.
    for (src, line) in [
        ("void f(long* t) {\n  // note\r *t = __rdtsc();\n}\n", 2),
        ("// x \\ \t\n long t = __rdtsc();\n", 1),
    ] {
        for r in [c(src), cu(src)] {
            let v = r.expect_err("refused");
            assert_eq!((v.rule, v.line), (Rule::LineBreak, line), "{v}");
        }
    }
    // CR LF line ends and a backslash directly before the line feed are fine.
    assert!(c("int a;\r\n#define X \\\r\n  1\r\nint b = X;\r\n").is_ok());
}

#[test]
fn a_variable_parameter_field_or_member_named_like_a_function_is_not_the_function() {
    // Each of these was refused by name before (`time` as a timer read, `Cheating`).
    let honest = [
        "void rope(float* q, int64_t time) { float t = (float)time * 0.5f; q[0] = t; }",
        "void f(float* o) { int64_t read = 0, write = 1; float free = 2.0f; read += write; o[read] = free; }",
        "int g(int signal, int system) { return signal + system; }",
        "struct clocks { float clock; int section; int weak; };\n\
         float h(struct clocks* c) { return c->clock + c[0].clock + (float)c->section; }",
        "static const float alias[4] = {1, 2, 3, 4};\nfloat k(int i) { return alias[i]; }",
        "struct ops { float (*read)(const float*); };\nfloat u(struct ops o, const float* p) { return o.read(p); }",
        "#define ROT(x, time) ((x) * (time))\nfloat v(float a, float b) { return ROT(a, b); }",
        "float w(const float* restrict time, int64_t n) { float s = 0; for (int64_t i = 0; i < n; i++) s += time[i]; return s; }",
    ];
    for src in honest {
        assert_eq!(c(src), Ok(()), "{src}");
    }
    let cuda_honest = [
        "struct Tile { Tile(const Tile&) = delete; Tile& operator=(const Tile&) = delete; };",
        "__device__ float f(float time) { return time * 2.0f; }",
        "template <typename T> __device__ T twice(T x) { T clock = x; return clock + x; }",
    ];
    for src in cuda_honest {
        assert_eq!(cu(src), Ok(()), "{src}");
    }
}

#[test]
fn a_function_named_in_a_call_a_declaration_or_by_its_address_is_refused() {
    let cases = [
        // A call, spaced or split across lines.
        ("long t = clock ();", Rule::TimerRead),
        ("long t = clock\n(\n);", Rule::TimerRead),
        // A declaration by hand.
        ("long clock(void);", Rule::TimerRead),
        ("int system(const char*);", Rule::SystemAccess),
        // Its address, as a value, in parentheses, through a dereference, in a table.
        ("long (*f)(void) = clock;", Rule::TimerRead),
        ("void* p = (void*)&clock;", Rule::TimerRead),
        (
            "int r(void) { return (system)(\"x\"); }",
            Rule::SystemAccess,
        ),
        (
            "int r(void) { return (*system)(\"x\"); }",
            Rule::SystemAccess,
        ),
        (
            "struct t { long (*c)(void); } s = { clock };",
            Rule::TimerRead,
        ),
        (
            "void z(void* p) { __attribute__((cleanup(free))) void* q = p; }",
            Rule::Allocation,
        ),
        // A macro that expands to the name (the preprocessed pass also reads the call).
        ("#define T clock\nlong t = T();", Rule::TimerRead),
        // Reserved names (builtins, intrinsics) anywhere, even as a variable.
        ("long __rdtsc = 0;", Rule::TimerRead),
        // Attribute words inside attributes, whatever the attribute syntax.
        ("__attribute__((section(\".x\"))) int a;", Rule::Linkage),
        ("[[gnu::section(\".x\")]] int a;", Rule::Linkage),
        ("__attribute__((weak)) int a;", Rule::Linkage),
        (
            "__attribute__((target_clones(\"avx512f\", \"default\"))) void f(void) {}",
            Rule::Linkage,
        ),
        (
            "#define A __attribute__((alias(\"write\")))\n",
            Rule::Linkage,
        ),
    ];
    for (src, expected) in cases {
        assert_eq!(rule(c(src)), expected, "{src}");
    }
    assert_eq!(c("long t = clock\n(\n);").unwrap_err().line, 1);
    let cuda = [
        (
            "__device__ void f(float* p) { delete p; }",
            Rule::Allocation,
        ),
        (
            "__device__ void f(float* p) { delete[] p; }",
            Rule::Allocation,
        ),
        ("void operator delete(void* p);", Rule::Allocation),
        (
            "auto t = std::chrono::steady_clock::now();",
            Rule::TimerRead,
        ),
        ("long long t = ::clock64();", Rule::TimerRead),
    ];
    for (src, expected) in cuda {
        assert_eq!(rule(cu(src)), expected, "{src}");
    }
}

#[test]
fn blocks_never_compiled_are_not_code() {
    let debug = "#ifdef CACHEON_DEBUG\n#include <stdio.h>\n#define LOG(x) printf(\"%f\", x)\n\
                 #else\n#define LOG(x) ((void)(x))\n#endif\nvoid f(float x) { LOG(x); }\n";
    assert_eq!(c(debug), Ok(()));
    let zero = "#if 0\nlong t = clock();\n#pragma GCC optimize(\"O0\")\n#endif\n";
    assert_eq!(c(zero), Ok(()));
    assert_eq!(cu(zero), Ok(()));
    // CUDA has no preprocessed second pass: an `#ifdef` is read in both branches.
    assert_eq!(rule(cu(debug)), Rule::InputOutput);
    // A macro the bundle defines, a reserved name, `#else` of a never-defined test: code.
    for src in [
        "#define CACHEON_DEBUG 1\n#ifdef CACHEON_DEBUG\nint x = printf(\"\");\n#endif\n",
        "#ifdef __AVX512F__\nlong t = clock();\n#endif\n",
        "#ifdef NEVER\n#else\nlong t = clock();\n#endif\n",
        "#ifndef NEVER\nlong t = clock();\n#endif\n",
    ] {
        assert!(c(src).is_err(), "{src}");
    }
    // Another file of the bundle defines the macro: the block is code.
    let files = vec![
        BundleFile::new("kernels/config.h", "#define CACHEON_DEBUG 1\n"),
        BundleFile::new(
            "kernels/k.c",
            "#include \"config.h\"\n#ifdef CACHEON_DEBUG\nint x = printf(\"\");\n#endif\n",
        ),
    ];
    assert_eq!(rule(screen_bundle(&files, Language::C)), Rule::InputOutput);
}

#[test]
fn the_preprocessed_pass_reads_the_bundles_lines_as_one_unit() {
    let pre = |text: &str| cacheon_kernels::cpu::build::Preprocessed {
        source: "k.c".into(),
        text: text.into(),
        root: "/build/bundle".into(),
    };
    // A variable named `time` and its uses, split over lines by the preprocessor.
    let honest = "# 1 \"k.c\"\nvoid f(float* o, long time) {\no[0] = (float)time\n; }\n";
    assert_eq!(screen_preprocessed(&pre(honest), &[]), Ok(()));
    // A call the expansion of a macro wrote across lines.
    let hidden = "# 1 \"k.c\"\nlong g(void) {\nreturn clock\n(); }\n";
    let v = screen_preprocessed(&pre(hidden), &[]).unwrap_err();
    assert_eq!(
        (v.rule, v.line, v.file.as_str()),
        (Rule::TimerRead, 2, "k.c")
    );
    // A pragma the expansion of `_Pragma` would leave.
    let pragma = "# 1 \"k.c\"\n#pragma GCC target(\"avx512f\")\nint a;\n";
    assert_eq!(rule(screen_preprocessed(&pre(pragma), &[])), Rule::Pragma);
}
