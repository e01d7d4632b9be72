/* Must FAIL Policy (static screen): a correct silu_and_mul, plus a function pointer placed
 * by hand in `.init_array`, so the dynamic loader calls `at_load` when the library is
 * opened - before any kernel call, outside every timed or audited run. It reaches libc's
 * `open` through a `weakref` alias (the forbidden name only ever appears inside a string)
 * and leaves a file in /tmp: proof that candidate code ran at load time. No `constructor`
 * attribute, no `_init`: the screen must refuse the section itself. */
#include <math.h>
#include <stdint.h>

static int sys_open(const char* path, int flags, ...) __attribute__((weakref("open")));

static void at_load(void) {
    /* O_WRONLY | O_CREAT | O_TRUNC, spelt as numbers: no <fcntl.h> needed. */
    (void)sys_open("/tmp/cacheon-init-array-ran", 01 | 0100 | 01000, 0644);
}

__attribute__((used, section(".init_array"))) static void (*const run_at_load)(void) = at_load;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float g = gate[i];
            out[t * d + i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
}
