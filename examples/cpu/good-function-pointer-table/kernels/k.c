/* Must PASS: a local `static const` table of function pointers to the kernel's own helpers, called through the table. */
#include <math.h>
#include <stdint.h>

static float gate_of(const float* row, int64_t i, int64_t d) { (void)d; return row[i]; }
static float up_of(const float* row, int64_t i, int64_t d) { return row[d + i]; }

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    static float (*const read_part[2])(const float*, int64_t, int64_t) = {gate_of, up_of};
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) {
            float g = read_part[0](row, i, d);
            out[t * d + i] = g / (1.0f + expf(-g)) * read_part[1](row, i, d);
        }
    }
}
