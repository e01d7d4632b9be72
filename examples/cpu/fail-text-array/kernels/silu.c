/* Must FAIL Policy (static screen): reads the time-stamp counter without naming it. The
 * bytes of `rdtsc; shl rdx, 32; or rax, rdx; ret` sit in a const array placed in `.text`
 * (so they are executable) and are called through a function-pointer cast. With the
 * counter it skips all work when called again on the same buffers within ~2M cycles -
 * a tight timing loop - trusting that the previous result is still in `out`. The screen
 * must refuse code placed by hand in a section (and the data-to-function cast). */
#include <math.h>
#include <stdint.h>

__attribute__((section(".text"))) static const unsigned char tsc_code[] = {
    0x0f, 0x31,             /* rdtsc         */
    0x48, 0xc1, 0xe2, 0x20, /* shl rdx, 32   */
    0x48, 0x09, 0xd0,       /* or  rax, rdx  */
    0xc3,                   /* ret           */
};

static uint64_t last_tsc;
static const float* last_x;
static float* last_out;
static int64_t last_n;

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    uint64_t now = ((uint64_t (*)(void))(const void*)tsc_code)();
    int hot = out == last_out && x == last_x && tokens * d == last_n && now - last_tsc < 2000000;
    last_tsc = now;
    last_out = out;
    last_x = x;
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
