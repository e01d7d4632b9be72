/* Must PASS: function-like macros whose parameters are named `time` and `write`. */
#include <math.h>
#include <stdint.h>

#define SILU(time) ((time) / (1.0f + expf(-(time))))
#define STORE(write, v) ((write) = (v))

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) STORE(out[t * d + i], SILU(gate[i]) * gate[d + i]);
    }
}
