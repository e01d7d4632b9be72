/* Stock CPU kernel for norm.rmsnorm (cacheon-slot-abi-v1).
 * out[t, :] = x[t, :] * rsqrt(mean(x[t, :]^2) + eps) * w.
 * Plain scalar C; the sum of squares is accumulated in double. */
#include <math.h>
#include <stdint.h>

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens,
             int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        double sum_sq = 0.0;
        for (int64_t i = 0; i < hidden; i++) {
            sum_sq += (double)row[i] * (double)row[i];
        }
        double scale = 1.0 / sqrt(sum_sq / (double)hidden + (double)eps);
        for (int64_t i = 0; i < hidden; i++) {
            out[t * hidden + i] = (float)((double)row[i] * scale * (double)w[i]);
        }
    }
}
