/* Must FAIL Cheating: computes once per output buffer, then assumes the previous result is
 * still there and writes nothing when called again with the same buffer (stale-memory
 * reuse). The referee poisons outputs before every call and calls every case twice. */
#include <math.h>
#include <stdint.h>

static float* last_out;
static int64_t last_n;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    if (out == last_out && tokens * d == last_n) return;
    last_out = out;
    last_n = tokens * d;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
    }
}
