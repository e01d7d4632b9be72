/* attention.decode for the cpu-tiny arena: the stock kernel's two passes (the maximum
 * score, then the exponentials and the weighted values), with the q . k dot products
 * four doubles at a time (AVX2 + FMA). K is still read twice. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static inline double dot(const float* a, const float* b, int64_t n) {
    __m256d acc = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        acc = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(a + i)),
                              _mm256_cvtps_pd(_mm_loadu_ps(b + i)), acc);
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, acc);
    double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

void attention_decode_twopass(float* out, const float* q, const float* k_cache,
                              const float* v_cache, const int32_t* seq_lens, float scale,
                              int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                              int64_t max_seq) {
    int64_t group = q_heads / kv_heads;
    double acc[head_dim > 0 ? head_dim : 1];
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        for (int64_t h = 0; h < q_heads; h++) {
            const float* qv = q + (b * q_heads + h) * head_dim;
            int64_t kvh = h / group;
            double max_score = -INFINITY;
            for (int64_t s = 0; s < len; s++) {
                const float* kv = k_cache + ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double d = dot(qv, kv, head_dim) * (double)scale;
                if (d > max_score) max_score = d;
            }
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            double denom = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double p = exp(dot(qv, k_cache + at, head_dim) * (double)scale - max_score);
                denom += p;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v_cache[at + i];
            }
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++) o[i] = len > 0 ? (float)(acc[i] / denom) : 0.0f;
        }
    }
}
