/* An honest linear.matmul with 0.5 MiB of static scratch: each block of eight weight rows
 * is packed, column-interleaved, into a static panel, then every token's eight outputs come
 * from one vector accumulator (x[i] broadcast, eight weights per load). The panel is filled
 * before it is read in the same call, so nothing in it outlives the call that wrote it: the
 * lane writes the library's static storage back before every call, and this kernel must
 * still pass. */
#include <immintrin.h>
#include <stdint.h>

#define PANEL_FLOATS (128u << 10) /* 0.5 MiB */

static float panel[PANEL_FLOATS];

/* y[t, o..o+8) for every token, from the eight rows packed in `panel` (k columns). */
static void eight_rows(float* y, const float* x, int64_t tokens, int64_t out_features,
                       int64_t k, int64_t o) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* xr = x + t * k;
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
        int64_t i = 0;
        for (; i + 2 <= k; i += 2) {
            a = _mm256_fmadd_ps(_mm256_set1_ps(xr[i]), _mm256_loadu_ps(panel + i * 8), a);
            b = _mm256_fmadd_ps(_mm256_set1_ps(xr[i + 1]), _mm256_loadu_ps(panel + i * 8 + 8), b);
        }
        for (; i < k; i++)
            a = _mm256_fmadd_ps(_mm256_set1_ps(xr[i]), _mm256_loadu_ps(panel + i * 8), a);
        _mm256_storeu_ps(y + t * out_features + o, _mm256_add_ps(a, b));
    }
}

static float dot(const float* x, const float* w, int64_t k) {
    float s = 0.0f;
    for (int64_t i = 0; i < k; i++) s += x[i] * w[i];
    return s;
}

void linear_matmul_static_panel(float* y, const float* x, const float* w, int64_t tokens,
                                int64_t out_features, int64_t in_features) {
    const int64_t k = in_features;
    int64_t o = 0;
    if (k > 0 && k * 8 <= (int64_t)PANEL_FLOATS) {
        for (; o + 8 <= out_features; o += 8) {
            for (int64_t i = 0; i < k; i++)
                for (int64_t r = 0; r < 8; r++) panel[i * 8 + r] = w[(o + r) * k + i];
            eight_rows(y, x, tokens, out_features, k, o);
        }
    }
    for (; o < out_features; o++)
        for (int64_t t = 0; t < tokens; t++) y[t * out_features + o] = dot(x + t * k, w + o * k, k);
}
