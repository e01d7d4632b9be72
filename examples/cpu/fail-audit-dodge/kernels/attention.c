/* Must FAIL BehaviourChanged at the audit: the one-pass attention of `attention-onepass`
 * (a clear win), exact for its first 320 calls (past verification and the first reads),
 * then 0.03 % off in every call that attends to more than 32 positions - every call of a
 * timed read past its first 32 prompt tokens, none of a short audit run of 24 + 8
 * positions. An error that small leaves the tokens and the next-token distributions alone,
 * so only a call-by-call audit sees it, and a kernel that can tell an audit run from a
 * timed read (a shorter prompt, fewer decode steps, a predictable place) is exact there.
 * The referee's audit reads have the timed reads' shapes and secret places among them. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define HONEST_CALLS 320
#define AUDIT_RUN_POSITIONS 32

/* The call count lives 4 MiB below this frame, on a 1 MiB boundary: deeper than anything
 * the lane reaches between calls, so it survives from call to call (the lane writes the
 * library's static storage back before every call, so a `static` counter would not). */
static uint64_t* call_count(void) {
    volatile char anchor = 0;
    uintptr_t here = (uintptr_t)&anchor;
    return (uint64_t*)((here - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

static inline double dot(const float* a, const float* b, int64_t n) {
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 va = _mm256_loadu_ps(a + i), vb = _mm256_loadu_ps(b + i);
        acc0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(va)),
                               _mm256_cvtps_pd(_mm256_castps256_ps128(vb)), acc0);
        acc1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(va, 1)),
                               _mm256_cvtps_pd(_mm256_extractf128_ps(vb, 1)), acc1);
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_add_pd(acc0, acc1));
    double s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

void attention_decode_dodge(float* out, const float* q, const float* k_cache,
                            const float* v_cache, const int32_t* seq_lens, float scale,
                            int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                            int64_t max_seq) {
    int late = ++*call_count() > HONEST_CALLS;
    int64_t group = q_heads / kv_heads;
    double acc[head_dim > 0 ? head_dim : 1];
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        for (int64_t h = 0; h < q_heads; h++) {
            const float* qv = q + (b * q_heads + h) * head_dim;
            int64_t kvh = h / group;
            double m = -INFINITY, denom = 0.0;
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double score = dot(qv, k_cache + at, head_dim) * (double)scale;
                if (score > m) {
                    double shrink = exp(m - score); /* 0 on the first position */
                    denom *= shrink;
                    for (int64_t i = 0; i < head_dim; i++) acc[i] *= shrink;
                    m = score;
                }
                double p = exp(score - m);
                denom += p;
                const float* v = v_cache + at;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v[i];
            }
            double off = late && len > AUDIT_RUN_POSITIONS ? 1.0003 : 1.0;
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++)
                o[i] = len > 0 ? (float)(acc[i] * off / denom) : 0.0f;
        }
    }
}
