/* Must FAIL Policy (pack): the bundle carries a generated table that makes it larger than
 * the 512 KiB a bundle may be. */
#include <math.h>
#include <stdint.h>
#include "table.h"

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i] + TABLE[0] * 0.0f;
    }
}
