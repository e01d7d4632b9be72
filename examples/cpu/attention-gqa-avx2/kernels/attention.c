/* attention.decode for the cpu-tiny arena, eight lanes at a time (AVX2 + FMA).
 * The query heads that share a KV head (grouped-query attention) are taken two at a
 * time, so every K and V row is loaded once per pair instead of once per head:
 *   1. scores: q . k_s for both heads in f64 as the reference computes them (exact even
 *      for inputs x1e4, where f32 scores are off by tenths), four rows at a time, each K
 *      element converted once for both heads;
 *   2. softmax weights p_s = exp(score_s - max) in f32, eight positions at a time (the
 *      Cephes-style exp of silu-avx2, about 1 ulp; 0 below -87), and their sum;
 *   3. out = sum_s p_s v_s / sum_s p_s, the accumulators for 32 dimensions of both heads
 *      held in registers while the positions stream past.
 * The plain stock kernel reads K twice per head and computes one element at a time. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

/* exp(x) for x <= 0; exactly 0 below -87 (where the f64 reference is below 1e-38). */
static inline __m256 exp_nonpos(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.0f);
    __m256 keep = _mm256_cmp_ps(x, lo, _CMP_GE_OQ);
    x = _mm256_max_ps(x, lo);
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
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), keep);
}

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Four sums of four lanes each: {sum a, sum b, sum c, sum d}. */
static inline __m256d hsum4(__m256d a, __m256d b, __m256d c, __m256d d) {
    __m256d ab = _mm256_hadd_pd(a, b), cd = _mm256_hadd_pd(c, d);
    return _mm256_add_pd(_mm256_permute2f128_pd(ab, cd, 0x20), _mm256_permute2f128_pd(ab, cd, 0x31));
}

/* Scores of two heads (qa, qb: the queries in double; the same head twice when it has no
 * partner) against rows 0..len-1, in double as the reference computes them, times scale:
 * four rows at a time, each K element converted once for both heads. */
static void scores(double* sa, double* sb, const double* qa, const double* qb, const float* k,
                   int64_t stride, int64_t len, int64_t d, double scale) {
    int64_t d4 = d & ~(int64_t)3;
    int64_t s = 0;
    for (; s + 4 <= len; s += 4) {
        const float* k0 = k + s * stride;
        const float* k1 = k0 + stride;
        const float* k2 = k1 + stride;
        const float* k3 = k2 + stride;
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd(), a3 = _mm256_setzero_pd();
        __m256d b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd(), b2 = _mm256_setzero_pd(), b3 = _mm256_setzero_pd();
        for (int64_t i = 0; i < d4; i += 4) {
            __m256d x = _mm256_loadu_pd(qa + i), y = _mm256_loadu_pd(qb + i);
            __m256d v0 = _mm256_cvtps_pd(_mm_loadu_ps(k0 + i));
            __m256d v1 = _mm256_cvtps_pd(_mm_loadu_ps(k1 + i));
            __m256d v2 = _mm256_cvtps_pd(_mm_loadu_ps(k2 + i));
            __m256d v3 = _mm256_cvtps_pd(_mm_loadu_ps(k3 + i));
            a0 = _mm256_fmadd_pd(x, v0, a0); b0 = _mm256_fmadd_pd(y, v0, b0);
            a1 = _mm256_fmadd_pd(x, v1, a1); b1 = _mm256_fmadd_pd(y, v1, b1);
            a2 = _mm256_fmadd_pd(x, v2, a2); b2 = _mm256_fmadd_pd(y, v2, b2);
            a3 = _mm256_fmadd_pd(x, v3, a3); b3 = _mm256_fmadd_pd(y, v3, b3);
        }
        __m256d ra = hsum4(a0, a1, a2, a3), rb = hsum4(b0, b1, b2, b3);
        double ta[4], tb[4];
        _mm256_storeu_pd(ta, ra);
        _mm256_storeu_pd(tb, rb);
        for (int64_t i = d4; i < d; i++) {
            ta[0] += qa[i] * k0[i]; tb[0] += qb[i] * k0[i];
            ta[1] += qa[i] * k1[i]; tb[1] += qb[i] * k1[i];
            ta[2] += qa[i] * k2[i]; tb[2] += qb[i] * k2[i];
            ta[3] += qa[i] * k3[i]; tb[3] += qb[i] * k3[i];
        }
        for (int j = 0; j < 4; j++) {
            sa[s + j] = ta[j] * scale;
            sb[s + j] = tb[j] * scale;
        }
    }
    for (; s < len; s++) {
        const float* kr = k + s * stride;
        __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
        for (int64_t i = 0; i < d4; i += 4) {
            __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(kr + i));
            a = _mm256_fmadd_pd(_mm256_loadu_pd(qa + i), v, a);
            b = _mm256_fmadd_pd(_mm256_loadu_pd(qb + i), v, b);
        }
        double t[4];
        _mm256_storeu_pd(t, hsum4(a, b, a, b));
        double ta = t[0], tb = t[1];
        for (int64_t i = d4; i < d; i++) {
            ta += qa[i] * kr[i];
            tb += qb[i] * kr[i];
        }
        sa[s] = ta * scale;
        sb[s] = tb * scale;
    }
}

/* p_s = exp(score_s - max) in f32 (the differences taken in double), eight at a time;
 * returns the sum of p. */
static float weights(float* p, const double* sc, int64_t len) {
    double m = -INFINITY;
    for (int64_t s = 0; s < len; s++) m = sc[s] > m ? sc[s] : m;
    __m256d vm = _mm256_set1_pd(m);
    __m256 t = _mm256_setzero_ps();
    int64_t s = 0;
    for (; s + 8 <= len; s += 8) {
        __m128 lo = _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_loadu_pd(sc + s), vm));
        __m128 hi = _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_loadu_pd(sc + s + 4), vm));
        __m256 e = exp_nonpos(_mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1));
        _mm256_storeu_ps(p + s, e);
        t = _mm256_add_ps(t, e);
    }
    float r = hsum(t);
    for (; s < len; s++) {
        p[s] = (float)exp(sc[s] - m);
        r += p[s];
    }
    return r;
}

/* oa = sum_s pa_s v_s / suma and ob likewise, 32 dimensions at a time. */
static void values(float* oa, float* ob, const float* pa, const float* pb, const float* v,
                   int64_t stride, int64_t len, int64_t d, const float sums[2]) {
    __m256 ia = _mm256_set1_ps(1.0f / sums[0]), ib = _mm256_set1_ps(1.0f / sums[1]);
    int64_t i = 0;
    for (; i + 32 <= d; i += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
        const float* vr = v + i;
        for (int64_t s = 0; s < len; s++, vr += stride) {
            __m256 x = _mm256_broadcast_ss(pa + s), y = _mm256_broadcast_ss(pb + s);
            __m256 v0 = _mm256_loadu_ps(vr), v1 = _mm256_loadu_ps(vr + 8);
            __m256 v2 = _mm256_loadu_ps(vr + 16), v3 = _mm256_loadu_ps(vr + 24);
            a0 = _mm256_fmadd_ps(x, v0, a0); b0 = _mm256_fmadd_ps(y, v0, b0);
            a1 = _mm256_fmadd_ps(x, v1, a1); b1 = _mm256_fmadd_ps(y, v1, b1);
            a2 = _mm256_fmadd_ps(x, v2, a2); b2 = _mm256_fmadd_ps(y, v2, b2);
            a3 = _mm256_fmadd_ps(x, v3, a3); b3 = _mm256_fmadd_ps(y, v3, b3);
        }
        _mm256_storeu_ps(ob + i, _mm256_mul_ps(b0, ib));
        _mm256_storeu_ps(ob + i + 8, _mm256_mul_ps(b1, ib));
        _mm256_storeu_ps(ob + i + 16, _mm256_mul_ps(b2, ib));
        _mm256_storeu_ps(ob + i + 24, _mm256_mul_ps(b3, ib));
        _mm256_storeu_ps(oa + i, _mm256_mul_ps(a0, ia));
        _mm256_storeu_ps(oa + i + 8, _mm256_mul_ps(a1, ia));
        _mm256_storeu_ps(oa + i + 16, _mm256_mul_ps(a2, ia));
        _mm256_storeu_ps(oa + i + 24, _mm256_mul_ps(a3, ia));
    }
    for (; i + 8 <= d; i += 8) {
        __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps();
        const float* vr = v + i;
        for (int64_t s = 0; s < len; s++, vr += stride) {
            __m256 v0 = _mm256_loadu_ps(vr);
            a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(pa + s), v0, a0);
            b0 = _mm256_fmadd_ps(_mm256_broadcast_ss(pb + s), v0, b0);
        }
        _mm256_storeu_ps(ob + i, _mm256_mul_ps(b0, ib));
        _mm256_storeu_ps(oa + i, _mm256_mul_ps(a0, ia));
    }
    for (; i < d; i++) {
        float a = 0.0f, b = 0.0f;
        for (int64_t s = 0; s < len; s++) {
            a += pa[s] * v[s * stride + i];
            b += pb[s] * v[s * stride + i];
        }
        ob[i] = b / sums[1];
        oa[i] = a / sums[0];
    }
}

void attention_decode_gqa_avx2(float* out, const float* q, const float* k_cache,
                           const float* v_cache, const int32_t* seq_lens, float scale,
                           int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                           int64_t max_seq) {
    int64_t group = q_heads / kv_heads;
    int64_t stride = kv_heads * head_dim;
    int64_t dn = head_dim > 0 ? head_dim : 1;
    double qa[dn], qb[dn];
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        int64_t ln = len > 0 ? len : 1;
        double sa[ln], sb[ln];
        float pa[ln], pb[ln];
        int64_t h = 0;
        while (h < q_heads) {
            /* Two heads of the same KV head, or one (computed twice, written once). */
            int64_t h2 = (h + 1 < q_heads && (h + 1) / group == h / group) ? h + 1 : h;
            float* oa = out + (b * q_heads + h) * head_dim;
            float* ob = out + (b * q_heads + h2) * head_dim;
            if (len == 0) {
                for (int64_t i = 0; i < head_dim; i++) oa[i] = ob[i] = 0.0f;
            } else {
                int64_t kvh = h / group;
                const float* k = k_cache + (b * max_seq * kv_heads + kvh) * head_dim;
                const float* v = v_cache + (b * max_seq * kv_heads + kvh) * head_dim;
                const float* xa = q + (b * q_heads + h) * head_dim;
                const float* xb = q + (b * q_heads + h2) * head_dim;
                for (int64_t i = 0; i < head_dim; i++) {
                    qa[i] = xa[i];
                    qb[i] = xb[i];
                }
                scores(sa, sb, qa, qb, k, stride, len, head_dim, (double)scale);
                float sums[2] = {weights(pa, sa, len), weights(pb, sb, len)};
                values(oa, ob, pa, pb, v, stride, len, head_dim, sums);
            }
            h = h2 + 1;
        }
    }
}
