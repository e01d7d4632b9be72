/* attention.decode for the cpu-tiny arena, in plain C (no intrinsics): one pass over the
 * cache with an online softmax (the running maximum rescales the accumulator when it
 * grows), accumulated in double. The scalar stock reads K twice, once for the maximum and
 * once for the weights; this reads K and V once. */
#include <math.h>
#include <stdint.h>

void attention_decode_onepass_c(float* out, const float* q, const float* k_cache,
                                const float* v_cache, const int32_t* seq_lens, float scale,
                                int64_t batch, int64_t q_heads, int64_t kv_heads,
                                int64_t head_dim, int64_t max_seq) {
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
                const float* k = k_cache + at;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)k[i];
                double score = dot * (double)scale;
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
        }
    }
}
