/* Must FAIL Policy (build stage): a correct silu_and_mul, sixteen lanes at a time in
 * AVX-512, although the arena is x86-64-v3 and builds with -march=x86-64-v3. A
 * function-level target attribute lets the compiler emit AVX-512 for these functions: on a
 * measuring machine with AVX-512 it runs and wins; on a validator of the published class it
 * dies with SIGILL, and with it every lane that loads it as the incumbent. No name here is
 * on any list: the built library's instructions are what the screen refuses. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define WIDE __attribute__((target("avx512f")))

static inline WIDE __m512 exp512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-88.3762626647949f)),
                      _mm512_set1_ps(88.3762626647949f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    /* 2^n in two steps, so that n = 128 does not overflow the exponent */
    __m512i ni = _mm512_cvtps_epi32(n);
    __m512i h1 = _mm512_srai_epi32(ni, 1);
    __m512i h2 = _mm512_sub_epi32(ni, h1);
    __m512i bias = _mm512_set1_epi32(127);
    __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h1, bias), 23));
    __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h2, bias), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
}

WIDE void silu_and_mul_avx512(float* out, const float* x, int64_t tokens, int64_t d) {
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        float* o = out + t * d;
        int64_t i = 0;
        for (; i + 16 <= d; i += 16) {
            __m512 g = _mm512_loadu_ps(gate + i);
            __m512 e = exp512(_mm512_sub_ps(_mm512_setzero_ps(), g));
            __m512 s = _mm512_div_ps(g, _mm512_add_ps(one, e));
            _mm512_storeu_ps(o + i, _mm512_mul_ps(s, _mm512_loadu_ps(up + i)));
        }
        for (; i < d; i++) {
            float g = gate[i];
            o[i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
}
