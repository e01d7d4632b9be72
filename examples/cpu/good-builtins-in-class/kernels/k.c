/* Must PASS: compiler builtins that read no clock: `__builtin_expect`, `__builtin_prefetch`, `__builtin_fmaf`. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        if (__builtin_expect(t + 1 < tokens, 1)) __builtin_prefetch(gate + 2 * d, 0, 3);
        for (int64_t i = 0; i < d; i++) {
            float s = gate[i] / __builtin_fmaf(1.0f, expf(-gate[i]), 1.0f);
            out[t * d + i] = s * gate[d + i];
        }
    }
}
