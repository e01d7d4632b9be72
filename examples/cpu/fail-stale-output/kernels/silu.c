/* Must FAIL Cheating: computes once per output buffer, then assumes the previous result is
 * still there and writes nothing when called again with the same buffer (stale-memory
 * reuse). Its memory of the last call lives below the stack pointer: the lane writes the
 * library's static storage back before every call, so a `static` would forget. The referee
 * poisons outputs before every call and calls every case twice. */
#include <math.h>
#include <stdint.h>

struct last_call {
    float* out;
    int64_t n;
};

/* 4 MiB below this frame, on a 1 MiB boundary: deeper than anything the lane reaches
 * between calls, so what is written there is still there at the next call. */
static struct last_call* below_stack(void) {
    volatile char anchor = 0;
    uintptr_t here = (uintptr_t)&anchor;
    return (struct last_call*)((here - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    struct last_call* last = below_stack();
    if (out == last->out && tokens * d == last->n) return;
    last->out = out;
    last->n = tokens * d;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}
