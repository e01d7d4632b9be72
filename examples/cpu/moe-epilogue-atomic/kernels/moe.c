/* moe.fused_experts for the cpu-tp2 arena: each row's chosen experts held here, their
 * SwiGLU MLPs weighted by the router's weights (other ranks' experts skipped).
 *
 * The stock kernel takes one dependent chain of scalar multiply-adds a dot product. Here
 * every dot product runs on 8-wide fused multiply-adds with two independent accumulators,
 * the gate and up rows of a feature share each load of the row, and the down projection
 * reads each weight row once against the expert's activations. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* x . g and x . u over n elements, into *sg and *su. */
static void dot2(const float* x, const float* g, const float* u, int64_t n, float* sg,
                 float* su) {
    __m256 g0 = _mm256_setzero_ps(), g1 = _mm256_setzero_ps();
    __m256 u0 = _mm256_setzero_ps(), u1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 xa = _mm256_loadu_ps(x + i), xb = _mm256_loadu_ps(x + i + 8);
        g0 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(g + i), g0);
        g1 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(g + i + 8), g1);
        u0 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(u + i), u0);
        u1 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(u + i + 8), u1);
    }
    float a = hsum(_mm256_add_ps(g0, g1)), b = hsum(_mm256_add_ps(u0, u1));
    for (; i < n; i++) {
        a += x[i] * g[i];
        b += x[i] * u[i];
    }
    *sg = a;
    *su = b;
}

static float dot(const float* a, const float* b, int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    float s = hsum(_mm256_add_ps(s0, s1));
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

void moe_fused_experts_avx2(float* out, const float* x, const int32_t* topk_ids,
                            const float* topk_weights, const float* w_gate_up,
                            const float* w_down, int64_t tokens, int64_t hidden, int64_t inter,
                            int64_t experts, int64_t topk, int64_t first_expert) {
    float act[inter > 0 ? inter : 1];
    for (int64_t t = 0; t < tokens; t++) {
        const float* xr = x + t * hidden;
        float* o = out + t * hidden;
        for (int64_t i = 0; i < hidden; i++) o[i] = 0.0f;
        for (int64_t j = 0; j < topk; j++) {
            const int64_t e = (int64_t)topk_ids[t * topk + j] - first_expert;
            if (e < 0 || e >= experts) continue;
            const float wj = topk_weights[t * topk + j];
            const float* wgu = w_gate_up + e * 2 * inter * hidden;
            for (int64_t f = 0; f < inter; f++) {
                float g, u;
                dot2(xr, wgu + f * hidden, wgu + (inter + f) * hidden, hidden, &g, &u);
                act[f] = g / (1.0f + expf(-g)) * u;
            }
            const float* wd = w_down + e * hidden * inter;
            for (int64_t i = 0; i < hidden; i++) o[i] += wj * dot(wd + i * inter, act, inter);
        }
    }
}
