/* norm.rmsnorm for the cpu-tiny arena: AVX2 sum of squares and scaling (see norm.h). */
#include <math.h>
#include <stdint.h>
#include "norm.h"

void rmsnorm_avx2(float* out, const float* x, const float* w, float eps, int64_t tokens,
                  int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        double ms = sum_squares(row, hidden) / (double)hidden;
        float scale = (float)(1.0 / sqrt(ms + (double)eps));
        scale_row(out + t * hidden, row, w, scale, hidden);
    }
}
