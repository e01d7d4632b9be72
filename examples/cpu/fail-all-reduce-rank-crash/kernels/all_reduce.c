/* Must FAIL at speed, not stall the arena: the stock sum in rank order for its first 5000
 * calls (verification makes far fewer), then rank 1's process dies (a write through a null
 * pointer) while rank 0 waits for it at the group's next barrier. The referee sees the
 * rank's end at once, stops the group so rank 0 stops waiting, and the lane's death inside
 * the candidate's code is the candidate's FAIL, naming the rank. */
#include <stdint.h>

#define HONEST_CALLS 5000

/* The call count lives 4 MiB below this frame, on a 1 MiB boundary: deeper than anything
 * the lane reaches between calls, so it survives from call to call (the lane writes the
 * library's static storage back before every call, so a `static` counter would not). */
static uint64_t* call_count(void) {
    volatile char anchor = 0;
    uintptr_t here = (uintptr_t)&anchor;
    return (uint64_t*)((here - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

void all_reduce(float* out, const float* partials, int64_t tokens, int64_t hidden, int64_t world,
                int64_t rank) {
    if (++*call_count() > HONEST_CALLS && rank == 1) *(volatile float*)0 = 0.0f;
    const int64_t n = tokens * hidden;
    for (int64_t e = 0; e < n; e++) {
        float s = partials[e];
        for (int64_t r = 1; r < world; r++) s += partials[r * n + e];
        out[e] = s;
    }
}
