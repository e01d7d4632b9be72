/* A collective.all_reduce that is right on every rank, within tolerance, but not the same
 * on every rank: rank 0 adds the rows in rank order, the others in reverse. With three or
 * more ranks the sums differ in their last bits, so replicated state after the all-reduce
 * would drift apart between ranks. Verification compares the ranks' results bit for bit. */
#include <stdint.h>

void all_reduce(float* out, const float* partials, int64_t tokens, int64_t hidden, int64_t world,
                int64_t rank) {
    const int64_t n = tokens * hidden;
    for (int64_t e = 0; e < n; e++) {
        float s = 0.0f;
        for (int64_t i = 0; i < world; i++) {
            const int64_t r = rank == 0 ? i : world - 1 - i;
            s += partials[r * n + e];
        }
        out[e] = s;
    }
}
