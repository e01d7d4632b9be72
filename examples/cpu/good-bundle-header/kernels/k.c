/* Must PASS: a helper header of the bundle, included with quotes, its guard macro tested with `#ifndef`. */
#include <stdint.h>
#include "silu_math.h"

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t i = 0; i < d; i++) out[t * d + i] = silu_of(x[t * 2 * d + i]) * x[t * 2 * d + d + i];
}
