/* Stock CPU kernel for position.rope (cacheon-slot-abi-v1), rotate-half layout.
 * For each head vector of length D, pair i (0 <= i < D/2) with i + D/2:
 *   inv_freq = theta^(-2i/D), angle = pos * inv_freq,
 *   out[i]       = x[i] * cos(angle) - x[i + D/2] * sin(angle)
 *   out[i + D/2] = x[i + D/2] * cos(angle) + x[i] * sin(angle)
 * The angle is computed in double: positions reach thousands of radians, where float
 * angles would lose the f32 tolerance. Plain scalar C. */
#include <math.h>
#include <stdint.h>

static void rope_heads(float* out, const float* in, int64_t heads, int64_t head_dim,
                       int32_t pos, float theta) {
    int64_t half = head_dim / 2;
    for (int64_t h = 0; h < heads; h++) {
        const float* x = in + h * head_dim;
        float* o = out + h * head_dim;
        for (int64_t i = 0; i < half; i++) {
            double inv_freq = pow((double)theta, -2.0 * (double)i / (double)head_dim);
            double angle = (double)pos * inv_freq;
            double c = cos(angle), s = sin(angle);
            double x1 = x[i], x2 = x[i + half];
            o[i] = (float)(x1 * c - x2 * s);
            o[i + half] = (float)(x2 * c + x1 * s);
        }
    }
}

void rope(float* q_out, float* k_out, const float* q, const float* k, const int32_t* positions,
          float theta, int64_t tokens, int64_t q_heads, int64_t kv_heads, int64_t head_dim) {
    for (int64_t t = 0; t < tokens; t++) {
        rope_heads(q_out + t * q_heads * head_dim, q + t * q_heads * head_dim, q_heads, head_dim,
                   positions[t], theta);
        rope_heads(k_out + t * kv_heads * head_dim, k + t * kv_heads * head_dim, kv_heads,
                   head_dim, positions[t], theta);
    }
}
