/* Must FAIL Policy (static screen): reads the time-stamp counter, so it could behave
 * differently when it is being timed. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static uint64_t first_seen;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    uint64_t now = __rdtsc();
    if (first_seen == 0) first_seen = now;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}
