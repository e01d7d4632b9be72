/* Shared by the two norm examples: the sum of squares of a row, eight float lanes in four
 * independent accumulators, combined in double. */
#include <immintrin.h>
#include <stdint.h>

static inline double sum_squares(const float* row, int64_t n) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 v0 = _mm256_loadu_ps(row + i), v1 = _mm256_loadu_ps(row + i + 8);
        __m256 v2 = _mm256_loadu_ps(row + i + 16), v3 = _mm256_loadu_ps(row + i + 24);
        a0 = _mm256_fmadd_ps(v0, v0, a0);
        a1 = _mm256_fmadd_ps(v1, v1, a1);
        a2 = _mm256_fmadd_ps(v2, v2, a2);
        a3 = _mm256_fmadd_ps(v3, v3, a3);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    double s = 0.0;
    for (int k = 0; k < 8; k++) s += lanes[k];
    for (; i < n; i++) s += (double)row[i] * (double)row[i];
    return s;
}

/* out[i] = row[i] * scale * w[i] */
static inline void scale_row(float* out, const float* row, const float* w, float scale, int64_t n) {
    __m256 s = _mm256_set1_ps(scale);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(row + i), s);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(v, _mm256_loadu_ps(w + i)));
    }
    for (; i < n; i++) out[i] = row[i] * scale * w[i];
}
