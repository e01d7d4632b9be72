/* Stock CPU kernel for norm.fused_add_rmsnorm (cacheon-slot-abi-v1).
 * s = x + residual;  out_residual = s;  out_norm = s * rsqrt(mean(s^2) + eps) * w.
 * Plain scalar C; the sum of squares is accumulated in double. */
#include <math.h>
#include <stdint.h>

void fused_add_rmsnorm(float* out_norm, float* out_residual, const float* x,
                       const float* residual, const float* w, float eps, int64_t tokens,
                       int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        float* s = out_residual + t * hidden;
        double sum_sq = 0.0;
        for (int64_t i = 0; i < hidden; i++) {
            s[i] = x[t * hidden + i] + residual[t * hidden + i];
            sum_sq += (double)s[i] * (double)s[i];
        }
        double scale = 1.0 / sqrt(sum_sq / (double)hidden + (double)eps);
        for (int64_t i = 0; i < hidden; i++) {
            out_norm[t * hidden + i] = (float)((double)s[i] * scale * (double)w[i]);
        }
    }
}
