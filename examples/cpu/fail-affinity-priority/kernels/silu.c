/* Must FAIL Policy (artifact screen): a correct silu_and_mul that, on its first call,
 * tries to leave the core both lanes share and raise its own priority, so that its lane
 * runs faster than the baseline lane for reasons that have nothing to do with the
 * kernel. Neither name is on the source screen's list and no header is needed: the
 * functions are declared by hand. The built library then imports `sched_setaffinity` and
 * `setpriority`, which the artifact screen refuses (a kernel imports only the math
 * library and the memory functions); past it, the lane's seccomp filter refuses both
 * system calls after the seal. */
#include <math.h>
#include <stdint.h>

extern int sched_setaffinity(int pid, unsigned long size, const void* mask);
extern int setpriority(int which, unsigned int who, int prio);

static int moved;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    if (!moved) {
        unsigned long all[16];
        for (int i = 0; i < 16; i++) all[i] = ~0ul;
        (void)sched_setaffinity(0, sizeof all, all);
        (void)setpriority(0, 0, -10);
        moved = 1;
    }
    for (int64_t t = 0; t < tokens; t++) {
        const float* g = x + t * 2 * d;
        const float* u = g + d;
        for (int64_t i = 0; i < d; i++) {
            float v = g[i];
            out[t * d + i] = v / (1.0f + expf(-v)) * u[i];
        }
    }
}
