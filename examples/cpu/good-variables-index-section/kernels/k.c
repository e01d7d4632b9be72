/* Must PASS: the columns walked in blocks: variables named `index`, `section` and `weak`. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    const int64_t section = 8;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t index = 0; index < d; index += section) {
            int64_t weak = index + section < d ? index + section : d;
            for (int64_t i = index; i < weak; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
        }
    }
}
