/* Must PASS: GCC vector types (`vector_size`) with an `aligned` attribute on a variable named `alias`. */
#include <math.h>
#include <stdint.h>

typedef float v8 __attribute__((vector_size(32)));

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        int64_t i = 0;
        for (; i + 8 <= d; i += 8) {
            v8 alias __attribute__((aligned(32)));
            for (int k = 0; k < 8; k++) alias[k] = gate[i + k] / (1.0f + expf(-gate[i + k]));
            for (int k = 0; k < 8; k++) out[t * d + i + k] = alias[k] * gate[d + i + k];
        }
        for (; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
    }
}
