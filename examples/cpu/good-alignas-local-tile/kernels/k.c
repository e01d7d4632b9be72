/* Must PASS: an `_Alignas(32)` stack tile, `sizeof`, and `memcpy` from <string.h>. */
#include <math.h>
#include <stdint.h>
#include <string.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    _Alignas(32) float tile[8];
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i += 8) {
            int64_t n = d - i < 8 ? d - i : 8;
            memcpy(tile, gate + i, (size_t)n * sizeof tile[0]);
            for (int64_t k = 0; k < n; k++) tile[k] = tile[k] / (1.0f + expf(-tile[k])) * gate[d + i + k];
            memcpy(out + t * d + i, tile, (size_t)n * sizeof(float));
        }
    }
}
