/* Must PASS: `#pragma GCC unroll` and `#pragma GCC ivdep` loop hints. */
#include <math.h>
#include <stdint.h>

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens, int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        double sum = 0.0;
#pragma GCC unroll 4
        for (int64_t i = 0; i < hidden; i++) sum += (double)row[i] * (double)row[i];
        double scale = 1.0 / sqrt(sum / (double)hidden + (double)eps);
#pragma GCC ivdep
        for (int64_t i = 0; i < hidden; i++) out[t * hidden + i] = (float)((double)row[i] * scale * (double)w[i]);
    }
}
