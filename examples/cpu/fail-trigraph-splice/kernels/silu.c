/* Must FAIL (trigraph line splice): reads the process clock without the screen seeing the
 * name. The trigraph for a backslash (two question marks and a slash) ends a line, so a
 * compiler that replaces trigraphs joins `clo` and `ck` into one identifier, while a
 * screen that only joins lines ending in a real backslash reads two harmless names. With
 * the clock it skips all work when called again on the same buffers within 1 ms of CPU
 * time - a tight timing loop - trusting that the previous result is still in `out`.
 * Trigraphs are replaced under -std=c11 (ISO mode) but not under -std=gnu11: there the
 * splice does not happen and `clo ? ? /` is a syntax error, a Build failure. */
#include <math.h>
#include <stdint.h>

extern long clo??/
ck(void);

static long last_ticks = -1000000;
static float* last_out;
static int64_t last_n;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    long now = clo??/
ck();
    int hot = out == last_out && tokens * d == last_n && now - last_ticks < 1000;
    last_ticks = now;
    last_out = out;
    last_n = tokens * d;
    if (hot) return;
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float g = gate[i];
            out[t * d + i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
}
