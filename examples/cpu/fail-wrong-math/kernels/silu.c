/* Must FAIL Incorrect: the sigmoid's sign is flipped (silu(g) = g / (1 + exp(+g))). */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(gate[i])) * up[i];
    }
}
