/* Must PASS: a tracing build behind `#ifdef CACHEON_TRACE` (nothing defines it): an include outside the allow-list and a printf that are never compiled. */
#include <math.h>
#include <stdint.h>

#ifdef CACHEON_TRACE
#include <stdio.h>
#define TRACE(t, d) printf("silu row %ld of width %ld\n", (long)(t), (long)(d))
#else
#define TRACE(t, d) ((void)0)
#endif

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        TRACE(t, d);
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
    }
}
