/* Must PASS: `restrict` on every pointer, and a `const` restrict local. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* restrict out, const float* restrict x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* restrict gate = x + t * 2 * d;
        float* restrict o = out + t * d;
        for (int64_t i = 0; i < d; i++) o[i] = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
    }
}
