/* Must PASS: a function-level `target("avx2,fma")` attribute: inside the arena's x86-64-v3 class, so its machine code passes. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

__attribute__((target("avx2,fma"))) static void row(float* o, const float* gate, const float* up, int64_t d) {
    int64_t i = 0;
    for (; i + 8 <= d; i += 8) {
        float g[8], e[8];
        _mm256_storeu_ps(g, _mm256_loadu_ps(gate + i));
        for (int k = 0; k < 8; k++) e[k] = g[k] / (1.0f + expf(-g[k]));
        _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(e), _mm256_loadu_ps(up + i)));
    }
    for (; i < d; i++) o[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
}

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) row(out + t * d, x + t * 2 * d, x + t * 2 * d + d, d);
}
