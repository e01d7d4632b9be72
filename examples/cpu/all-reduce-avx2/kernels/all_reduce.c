/* collective.all_reduce with AVX2: eight elements at a time, the ranks' rows added in rank
 * order (the same additions as the stock kernel, so the same bits on every rank). */
#include <immintrin.h>
#include <stdint.h>

__attribute__((target("avx2"))) void all_reduce_avx2(float* out, const float* partials, int64_t tokens,
                                                     int64_t hidden, int64_t world, int64_t rank) {
    (void)rank;
    const int64_t n = tokens * hidden;
    int64_t e = 0;
    for (; e + 8 <= n; e += 8) {
        __m256 s = _mm256_loadu_ps(partials + e);
        for (int64_t r = 1; r < world; r++) s = _mm256_add_ps(s, _mm256_loadu_ps(partials + r * n + e));
        _mm256_storeu_ps(out + e, s);
    }
    for (; e < n; e++) {
        float s = partials[e];
        for (int64_t r = 1; r < world; r++) s += partials[r * n + e];
        out[e] = s;
    }
}
