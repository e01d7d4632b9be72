/* activation.silu_and_mul for the cpu-tiny arena, eight lanes at a time (AVX2 + FMA).
 * exp is a Cephes-style polynomial (range reduction by ln 2, degree-5 polynomial,
 * about 1 ulp): accurate to float precision, so the result stays within the f32
 * tolerance of the f64 reference. The scalar stock calls expf once per element. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static inline __m256 exp256(__m256 x) {
    const __m256 hi = _mm256_set1_ps(88.3762626647949f);
    const __m256 lo = _mm256_set1_ps(-88.3762626647949f);
    x = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    /* x = n ln2 + r, |r| <= ln2 / 2 */
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    __m256 r2 = _mm256_mul_ps(r, r);
    p = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    /* scale by 2^n, in two steps so that n = 128 does not overflow the exponent */
    __m256i ni = _mm256_cvtps_epi32(n);
    __m256i half1 = _mm256_srai_epi32(ni, 1);
    __m256i half2 = _mm256_sub_epi32(ni, half1);
    __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half1, _mm256_set1_epi32(127)), 23));
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half2, _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

void silu_and_mul_avx2(float* out, const float* x, int64_t tokens, int64_t d) {
    const __m256 one = _mm256_set1_ps(1.0f);
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        float* o = out + t * d;
        int64_t i = 0;
        for (; i + 8 <= d; i += 8) {
            __m256 g = _mm256_loadu_ps(gate + i);
            __m256 e = exp256(_mm256_sub_ps(_mm256_setzero_ps(), g));
            __m256 s = _mm256_div_ps(g, _mm256_add_ps(one, e));
            _mm256_storeu_ps(o + i, _mm256_mul_ps(s, _mm256_loadu_ps(up + i)));
        }
        for (; i < d; i++) {
            float g = gate[i];
            o[i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
}
