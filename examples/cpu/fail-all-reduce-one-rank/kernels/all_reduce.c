/* A cheating collective.all_reduce: right on rank 0, but every other rank leaves out the
 * last rank's partial sums (as if it skipped waiting for it). Verification calls the
 * kernel at every rank index of its shapes, so the wrong ranks are seen. */
#include <stdint.h>

void all_reduce(float* out, const float* partials, int64_t tokens, int64_t hidden, int64_t world,
                int64_t rank) {
    const int64_t n = tokens * hidden;
    const int64_t ranks = rank == 0 ? world : world - 1;
    for (int64_t e = 0; e < n; e++) {
        float s = partials[e];
        for (int64_t r = 1; r < ranks; r++) s += partials[r * n + e];
        out[e] = s;
    }
}
