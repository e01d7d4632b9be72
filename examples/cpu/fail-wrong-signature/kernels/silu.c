/* Must FAIL Abi: the shape parameters are `int`, not `int64_t` (compiles, exports the
 * right name, and would read garbage for large shapes). */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int tokens, int d) {
    for (int t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}
