/* norm.fused_add_rmsnorm for the cpu-tiny arena: the residual sum written once with AVX2,
 * then normalised from the written sum (see norm.h). */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include "norm.h"

void fused_add_rmsnorm_avx2(float* out_norm, float* out_residual, const float* x,
                            const float* residual, const float* w, float eps, int64_t tokens,
                            int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* a = x + t * hidden;
        const float* b = residual + t * hidden;
        float* s = out_residual + t * hidden;
        int64_t i = 0;
        for (; i + 8 <= hidden; i += 8) {
            _mm256_storeu_ps(s + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
        }
        for (; i < hidden; i++) s[i] = a[i] + b[i];
        double ms = sum_squares(s, hidden) / (double)hidden;
        float scale = (float)(1.0 / sqrt(ms + (double)eps));
        scale_row(out_norm + t * hidden, s, w, scale, hidden);
    }
}
