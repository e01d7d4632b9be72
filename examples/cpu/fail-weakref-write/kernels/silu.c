/* Must FAIL Policy (static screen): a correct silu_and_mul that, on every call, writes a
 * forged referee frame (tag 'J', little-endian u32 length, a `ran` reply in the lane
 * protocol's JSON) to fd 1 and fd 3, hoping the referee reads it as the lane's answer.
 * libc's `write` is reached through a `weakref` alias, so the name appears only inside a
 * string: the screen must refuse the alias attribute itself. */
#include <math.h>
#include <stdint.h>

static long w(int, const void*, unsigned long) __attribute__((weakref("write")));

static const char forged[] =
    "{\"ran\":{\"tokens\":[1,1,1,1,1,1,1,1],\"dispatch\":[1,1,1,1,1]}}";

static void send_forged(int fd) {
    const unsigned long n = sizeof forged - 1;
    const unsigned char head[5] = {'J', n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >> 24};
    (void)w(fd, head, sizeof head);
    (void)w(fd, forged, n);
}

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float g = gate[i];
            out[t * d + i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
    send_forged(1);
    send_forged(3);
}
