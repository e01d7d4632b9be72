/* Stock CPU kernel for attention.prefill (cacheon-slot-abi-v1).
 * Causal attention of a prompt's rows over one sequence's KV cache [kv_len, kv_heads, D]:
 * row t (query heads h, at position positions[t]) attends to cache rows 0..=positions[t]
 * of kv head h / (q_heads / kv_heads) (grouped-query attention):
 *   p_s = softmax_s(scale * q[t, h] . k_s);  out[t, h] = sum_s p_s v_s.
 * Two plain passes per row and head (max, then exp-sum and weighted values), accumulated
 * in double. Positions outside [0, kv_len) are clamped; a row with no key gives zeros. */
#include <math.h>
#include <stdint.h>

void attention_prefill(float* out, const float* q, const float* k_cache, const float* v_cache,
                       const int32_t* positions, float scale, int64_t tokens, int64_t q_heads,
                       int64_t kv_heads, int64_t head_dim, int64_t kv_len) {
    int64_t group = q_heads / kv_heads;
    double acc[head_dim > 0 ? head_dim : 1];
    for (int64_t t = 0; t < tokens; t++) {
        int64_t len = (int64_t)positions[t] + 1;
        if (len < 0) len = 0;
        if (len > kv_len) len = kv_len;
        for (int64_t h = 0; h < q_heads; h++) {
            const float* qv = q + (t * q_heads + h) * head_dim;
            int64_t kvh = h / group;
            double max_score = -INFINITY;
            for (int64_t s = 0; s < len; s++) {
                const float* kv = k_cache + (s * kv_heads + kvh) * head_dim;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)kv[i];
                dot *= (double)scale;
                if (dot > max_score) max_score = dot;
            }
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            double denom = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = (s * kv_heads + kvh) * head_dim;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)k_cache[at + i];
                double p = exp(dot * (double)scale - max_score);
                denom += p;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v_cache[at + i];
            }
            float* o = out + (t * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++) o[i] = len > 0 ? (float)(acc[i] / denom) : 0.0f;
        }
    }
}
