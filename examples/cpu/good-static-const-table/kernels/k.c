/* Must PASS: a `static const` table (reciprocals of small widths) read by index. */
#include <math.h>
#include <stdint.h>

static const double inverse_width[9] = {0.0, 1.0, 0.5, 1.0 / 3.0, 0.25, 0.2, 1.0 / 6.0, 1.0 / 7.0, 0.125};

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens, int64_t hidden) {
    double inv = hidden < 9 ? inverse_width[hidden] : 1.0 / (double)hidden;
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        double sum = 0.0;
        for (int64_t i = 0; i < hidden; i++) sum += (double)row[i] * (double)row[i];
        double scale = 1.0 / sqrt(sum * inv + (double)eps);
        for (int64_t i = 0; i < hidden; i++) out[t * hidden + i] = (float)((double)row[i] * scale * (double)w[i]);
    }
}
