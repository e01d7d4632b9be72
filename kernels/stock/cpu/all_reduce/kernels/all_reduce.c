/* Stock CPU kernel for collective.all_reduce (cacheon-slot-abi-v1).
 * out[t, i] = sum over r of partials[r, t, i], added in rank order 0, 1, ..., world - 1 in
 * f32: the same bits on every rank, whatever `rank` is. Plain scalar C. */
#include <stdint.h>

void all_reduce(float* out, const float* partials, int64_t tokens, int64_t hidden, int64_t world,
                int64_t rank) {
    (void)rank;
    const int64_t n = tokens * hidden;
    for (int64_t e = 0; e < n; e++) {
        float s = partials[e];
        for (int64_t r = 1; r < world; r++) s += partials[r * n + e];
        out[e] = s;
    }
}
