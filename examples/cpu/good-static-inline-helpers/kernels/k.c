/* Must PASS: `static inline` helpers, one per step. */
#include <math.h>
#include <stdint.h>

static inline float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
static inline float silu(float v) { return v * sigmoid(v); }
static inline void row(float* o, const float* gate, const float* up, int64_t d) {
    for (int64_t i = 0; i < d; i++) o[i] = silu(gate[i]) * up[i];
}

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) row(out + t * d, x + t * 2 * d, x + t * 2 * d + d, d);
}
