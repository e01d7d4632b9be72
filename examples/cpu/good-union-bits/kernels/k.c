/* Must PASS: a union reading a float's bits (the sign test of a gate) and `sizeof` in a static assertion. */
#include <math.h>
#include <stdint.h>

union bits {
    float f;
    uint32_t u;
};
_Static_assert(sizeof(union bits) == sizeof(float), "one float");

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) {
            union bits b = {.f = gate[i]};
            /* the same formula on both sides of zero, split only to show the bit test */
            float s = (b.u >> 31) ? gate[i] / (1.0f + expf(-gate[i])) : gate[i] / (1.0f + expf(-gate[i]));
            out[t * d + i] = s * gate[d + i];
        }
    }
}
