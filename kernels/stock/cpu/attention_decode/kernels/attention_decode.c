/* Stock CPU kernel for attention.decode (cacheon-slot-abi-v1).
 * One query per sequence b and head h against the KV cache [batch, max_seq, kv_heads, D]:
 *   kv head = h / (q_heads / kv_heads)  (grouped-query attention)
 *   p_s = softmax_s(scale * q . k_s) over s < seq_lens[b];  out = sum_s p_s v_s.
 * Two plain passes (max, then exp-sum and weighted values), accumulated in double.
 * seq_lens outside [0, max_seq] are clamped; an empty sequence gives zeros. */
#include <math.h>
#include <stdint.h>

void attention_decode(float* out, const float* q, const float* k_cache, const float* v_cache,
                      const int32_t* seq_lens, float scale, int64_t batch, int64_t q_heads,
                      int64_t kv_heads, int64_t head_dim, int64_t max_seq) {
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
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)kv[i];
                dot *= (double)scale;
                if (dot > max_score) max_score = dot;
            }
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            double denom = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)k_cache[at + i];
                double p = exp(dot * (double)scale - max_score);
                denom += p;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v_cache[at + i];
            }
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++) o[i] = len > 0 ? (float)(acc[i] / denom) : 0.0f;
        }
    }
}
