/* Stock CPU kernel for activation.silu_and_mul (cacheon-slot-abi-v1).
 * out[t, i] = silu(x[t, i]) * x[t, d + i],  silu(g) = g / (1 + exp(-g)).
 * Plain scalar C: one element at a time. */
#include <math.h>
#include <stdint.h>

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
