/* Must PASS: a sample named `signal`, an accumulator named `system`, a parameter named `kill`. */
#include <math.h>
#include <stdint.h>

static double mean_square(const float* row, int64_t kill) {
    double system = 0.0;
    for (int64_t i = 0; i < kill; i++) {
        float signal = row[i];
        system += (double)signal * (double)signal;
    }
    return system / (double)kill;
}

void rmsnorm(float* out, const float* x, const float* w, float eps, int64_t tokens, int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++) {
        double scale = 1.0 / sqrt(mean_square(x + t * hidden, hidden) + (double)eps);
        for (int64_t i = 0; i < hidden; i++) out[t * hidden + i] = (float)((double)x[t * hidden + i] * scale * (double)w[i]);
    }
}
