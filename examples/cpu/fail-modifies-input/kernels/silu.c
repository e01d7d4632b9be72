/* Must FAIL Cheating: correct outputs, but the gate half of the input is overwritten with
 * the result (an input it must not change). */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    float* scratch = (float*)x;
    for (int64_t t = 0; t < tokens; t++) {
        float* gate = scratch + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float v = gate[i] / (1.0f + expf(-gate[i])) * up[i];
            out[t * d + i] = v;
            gate[i] = v;
        }
    }
}
