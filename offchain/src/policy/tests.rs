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
fn reasons_map_to_the_chain() {
    assert_eq!(Rule::TimerRead.fail_reason(), FailReason::Cheating);
    assert_eq!(Rule::InlineAssembly.fail_reason(), FailReason::Policy);
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
