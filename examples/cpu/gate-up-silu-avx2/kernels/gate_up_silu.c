/* mlp.gate_up_silu for the cpu-tiny arena: out[t, o] = silu(g) * u, where g and u are the
 * dot products of x's row t with gate row o and up row inter + o of w (gate_proj over
 * up_proj), silu(g) = g / (1 + exp(-g)).
 *
 * What the seam saves over its members (the gate|up product, then SwiGLU): the
 * [tokens, 2 * inter] intermediate is never written and read back, and one call replaces
 * two. The products are the matmul-avx2 example's: four weight rows share every load of x,
 * each with two independent accumulators; a feature's gate and up rows are taken together
 * over every token, so both stay in cache while the tokens pass. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Four dot products of x with rows w0..w3, written to y[0..3]. */
static void dot4(float* y, const float* x, const float* w0, const float* w1, const float* w2,
                 const float* w3, int64_t k) {
    __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps();
    __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps();
    __m256 a3 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        __m256 xa = _mm256_loadu_ps(x + i), xb = _mm256_loadu_ps(x + i + 8);
        a0 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w0 + i), a0);
        b0 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w0 + i + 8), b0);
        a1 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w1 + i), a1);
        b1 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w1 + i + 8), b1);
        a2 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w2 + i), a2);
        b2 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w2 + i + 8), b2);
        a3 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w3 + i), a3);
        b3 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w3 + i + 8), b3);
    }
    float s0 = hsum(_mm256_add_ps(a0, b0)), s1 = hsum(_mm256_add_ps(a1, b1));
    float s2 = hsum(_mm256_add_ps(a2, b2)), s3 = hsum(_mm256_add_ps(a3, b3));
    for (; i < k; i++) {
        s0 += x[i] * w0[i];
        s1 += x[i] * w1[i];
        s2 += x[i] * w2[i];
        s3 += x[i] * w3[i];
    }
    y[0] = s0;
    y[1] = s1;
    y[2] = s2;
    y[3] = s3;
}

static float dot1(const float* x, const float* w, int64_t k) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(w + i + 8), b);
    }
    float s = hsum(_mm256_add_ps(a, b));
    for (; i < k; i++) s += x[i] * w[i];
    return s;
}

static inline float silu_mul(float g, float u) {
    return g / (1.0f + expf(-g)) * u;
}

void gate_up_silu_avx2(float* out, const float* x, const float* w, int64_t tokens,
                       int64_t inter, int64_t hidden) {
    const int64_t k = hidden;
    int64_t o = 0;
    for (; o + 4 <= inter; o += 4) {
        const float* g0 = w + o * k;
        const float* u0 = w + (inter + o) * k;
        for (int64_t t = 0; t < tokens; t++) {
            const float* xr = x + t * k;
            float g[4], u[4];
            dot4(g, xr, g0, g0 + k, g0 + 2 * k, g0 + 3 * k, k);
            dot4(u, xr, u0, u0 + k, u0 + 2 * k, u0 + 3 * k, k);
            float* yr = out + t * inter + o;
            for (int j = 0; j < 4; j++) yr[j] = silu_mul(g[j], u[j]);
        }
    }
    for (; o < inter; o++) {
        const float* gr = w + o * k;
        const float* ur = w + (inter + o) * k;
        for (int64_t t = 0; t < tokens; t++) {
            const float* xr = x + t * k;
            out[t * inter + o] = silu_mul(dot1(xr, gr, k), dot1(xr, ur, k));
        }
    }
}
