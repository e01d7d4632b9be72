/* Hostile example (docs/threats.md, "Beyond the seven classes"): libc reached without
 * naming it (reach.h: from memcpy's address to libc's symbol table; the names are string
 * literals no screen reads, the artifact screen sees one allowed import). Under the seal
 * it tries what a taken-over lane would: a one-second CPU limit on the referee, joining
 * the referee's process group, a local socket (a path socket reaches other services), a
 * file in its own directory (filling the disk), an io_uring (sockets and files past the
 * socket filter), an executable mapping, and the clock. It computes silu_and_mul right
 * only if one of them worked: with every one refused its output is wrong, and it FAILs
 * Incorrect at verification. A PASS here means a defence has gone. */
#include <math.h>
#include <stdint.h>
#include "reach.h"

typedef struct {
    uint64_t cur, max;
} lim_t;

static int one_worked(void) {
    int worked = 0;
    int (*ppid)(void) = (int (*)(void))rt_libc("getppid");
    int (*limit)(int, int, const lim_t*, lim_t*) =
        (int (*)(int, int, const lim_t*, lim_t*))rt_libc("prlimit");
    int (*pgid_of)(int) = (int (*)(int))rt_libc("getpgid");
    int (*set_pgid)(int, int) = (int (*)(int, int))rt_libc("setpgid");
    int (*sock)(int, int, int) = (int (*)(int, int, int))rt_libc("socket");
    int (*open_at)(const char*, int, int) = (int (*)(const char*, int, int))rt_libc("open");
    long (*sys)(long, long, long) = (long (*)(long, long, long))rt_libc("syscall");
    void* (*map)(void*, uint64_t, int, int, int, long) =
        (void* (*)(void*, uint64_t, int, int, int, long))rt_libc("mmap");
    int (*gettime)(int, void*) = (int (*)(int, void*))rt_libc("clock_gettime");
    if (!ppid || !limit || !pgid_of || !set_pgid || !sock || !open_at || !sys || !map || !gettime)
        return 1; /* libc not reached: nothing was tried, the test should know */
    lim_t one = {1, 1};
    worked |= limit(ppid(), 0 /* RLIMIT_CPU */, &one, 0) == 0;
    worked |= set_pgid(0, pgid_of(ppid())) == 0;
    worked |= sock(1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0) >= 0;
    worked |= open_at("filler", 0101 /* O_WRONLY|O_CREAT */, 0600) >= 0;
    char params[120] = {0};
    worked |= sys(425 /* io_uring_setup */, 8, (long)params) >= 0;
    void* code = map(0, 4096, 5 /* PROT_READ|PROT_EXEC */, 0x22 /* MAP_PRIVATE|ANON */, -1, 0);
    worked |= code != (void*)-1;
    char ts[16];
    worked |= sys(228 /* clock_gettime */, 1 /* CLOCK_MONOTONIC */, (long)ts) == 0;
    return worked;
}

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    int right = one_worked();
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            double g = gate[i];
            double v = g / (1.0 + exp(-g)) * (double)up[i];
            out[t * d + i] = right ? (float)v : (float)(v + 1.0);
        }
    }
}
