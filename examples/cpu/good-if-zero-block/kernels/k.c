/* Must PASS: an old variant kept under `#if 0` (a timer read, a pragma outside the list): not code. */
#include <math.h>
#include <stdint.h>

#if 0
#pragma GCC optimize("O0")
static long stamp(void) { return clock(); }
#endif

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t i = 0; i < tokens * d; i++) {
        int64_t t = i / d, c = i % d;
        float g = x[t * 2 * d + c];
        out[i] = g / (1.0f + expf(-g)) * x[t * 2 * d + d + c];
    }
}
