/* position.rope for the cpu-tiny arena: the cos/sin of each (token, frequency) pair are
 * computed once per token (in double, as the reference does) and applied to every q and k
 * head, instead of once per head. Rotate-half pairs (i, i + D/2). */
#include <math.h>
#include <stdint.h>

enum { MAX_HALF = 512 };

static void apply(float* out, const float* in, int64_t heads, int64_t head_dim,
                  const double* c, const double* s) {
    int64_t half = head_dim / 2;
    for (int64_t h = 0; h < heads; h++) {
        const float* x = in + h * head_dim;
        float* o = out + h * head_dim;
        for (int64_t i = 0; i < half; i++) {
            double x1 = x[i], x2 = x[i + half];
            o[i] = (float)(x1 * c[i] - x2 * s[i]);
            o[i + half] = (float)(x2 * c[i] + x1 * s[i]);
        }
    }
}

void rope_table(float* q_out, float* k_out, const float* q, const float* k,
                const int32_t* positions, float theta, int64_t tokens, int64_t q_heads,
                int64_t kv_heads, int64_t head_dim) {
    int64_t half = head_dim / 2;
    double c[MAX_HALF], s[MAX_HALF], inv_freq[MAX_HALF];
    if (half > MAX_HALF) half = MAX_HALF; /* head_dim <= 1024 in every arena shape */
    for (int64_t i = 0; i < half; i++) {
        inv_freq[i] = pow((double)theta, -2.0 * (double)i / (double)head_dim);
    }
    for (int64_t t = 0; t < tokens; t++) {
        for (int64_t i = 0; i < half; i++) {
            double angle = (double)positions[t] * inv_freq[i];
            c[i] = cos(angle);
            s[i] = sin(angle);
        }
        apply(q_out + t * q_heads * head_dim, q + t * q_heads * head_dim, q_heads, head_dim, c, s);
        apply(k_out + t * kv_heads * head_dim, k + t * kv_heads * head_dim, kv_heads, head_dim, c, s);
    }
}
