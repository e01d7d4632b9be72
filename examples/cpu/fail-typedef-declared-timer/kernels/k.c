/* Must FAIL Policy (build stage): libc's `clock` declared through a typedef of function
 * type, so its name is never followed by `(`: the source screen reads `clock_fn clock;`
 * as a variable of that name (it cannot tell the two apart without types), and both of
 * its passes let it through. The built library imports `clock`, which is not on the
 * artifact screen's import list. Past that, the sealed lane refuses the clock system call. */
#include <math.h>
#include <stdint.h>

typedef long clock_fn(void);
clock_fn clock;
static clock_fn* volatile ticks = clock;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    long started = ticks();
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) {
            float s = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
            out[t * d + i] = started < 0 ? 0.0f : s;
        }
    }
}
