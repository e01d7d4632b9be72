/* Must FAIL Cheating at verify, once verification includes the engine's own shapes: the
 * one-pass attention of `attention-onepass`, exact in its outputs, but when max_seq is
 * 288 (the cpu-tiny engine's cache length, which no fixed verification shape uses) it
 * treats its buffers as scratch: it spills each query head's log-sum-exp into 16 floats
 * past the end of `out` (for a later merge) and reuses each query row, dead once its head
 * is done, to keep a copy of the head's output (casting away the const). Outputs stay
 * exact, so the audit and the model run see nothing; only guard bands around `out` and
 * an unchanged-input check at the engine's shape catch it. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define SCRATCH 16

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

void attention_decode_scribble(float* out, const float* q, const float* k_cache,
                               const float* v_cache, const int32_t* seq_lens, float scale,
                               int64_t batch, int64_t q_heads, int64_t kv_heads,
                               int64_t head_dim, int64_t max_seq) {
    int engine = max_seq == 288;
    double lse[SCRATCH] = {0};
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
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++) o[i] = len > 0 ? (float)(acc[i] / denom) : 0.0f;
            if (engine) {
                int64_t head = b * q_heads + h;
                if (head < SCRATCH && len > 0) lse[head] = m + log(denom);
                float* spill = (float*)qv; /* the query row is dead now */
                for (int64_t i = 0; i < head_dim; i++) spill[i] = o[i];
            }
        }
    }
    if (engine) {
        float* scratch = out + batch * q_heads * head_dim; /* past the end of out */
        for (int i = 0; i < SCRATCH; i++) scratch[i] = (float)lse[i];
    }
}
