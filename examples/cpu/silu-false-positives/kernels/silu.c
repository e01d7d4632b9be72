/* Must PASS: the stock scalar silu_and_mul (same math, same speed), written to trip a
 * screen that reads too little. A string literal holds `##` (token pasting only counts
 * outside literals), and an `#ifdef` branch that is never taken includes a header outside
 * the allow-list (nothing defines CACHEON_NEVER_DEFINED, so the compiler never reads it).
 * Neither gives the kernel anything: it computes exactly what the stock computes. */
#include <math.h>
#include <stdint.h>

#ifdef CACHEON_NEVER_DEFINED
#include <stdio.h>
#endif

static const char tag[] = "silu##v1";

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)tag;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float g = gate[i];
            out[t * d + i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
}
