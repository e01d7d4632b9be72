/* Must PASS: a count of elements left named `free`, not the allocator. */
#include <math.h>
#include <stdint.h>

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens, int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* row = x + t * hidden;
        double sum = 0.0;
        int64_t free = hidden;
        while (free > 0) {
            free--;
            sum += (double)row[free] * (double)row[free];
        }
        double scale = 1.0 / sqrt(sum / (double)hidden + (double)eps);
        for (int64_t i = 0; i < hidden; i++) out[t * hidden + i] = (float)((double)row[i] * scale * (double)w[i]);
    }
}
