/* Must PASS: AVX2 and FMA intrinsics from <immintrin.h>, in the arena's class. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens, int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        __m256d acc = _mm256_setzero_pd();
        int64_t i = 0;
        for (; i + 4 <= hidden; i += 4) {
            __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(row + i));
            acc = _mm256_fmadd_pd(v, v, acc);
        }
        double lanes[4];
        _mm256_storeu_pd(lanes, acc);
        double sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
        for (; i < hidden; i++) sum += (double)row[i] * (double)row[i];
        double scale = 1.0 / sqrt(sum / (double)hidden + (double)eps);
        for (i = 0; i < hidden; i++) out[t * hidden + i] = (float)((double)row[i] * scale * (double)w[i]);
    }
}
