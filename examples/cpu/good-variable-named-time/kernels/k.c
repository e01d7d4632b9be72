/* Must PASS: the token index is a variable named `time`; `time` names no function here. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t time = 0; time < tokens; time++) {
        const float* gate = x + time * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[time * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}
