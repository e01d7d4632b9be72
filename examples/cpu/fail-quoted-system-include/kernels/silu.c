/* Must FAIL Policy (static screen): `#include "stdio.h"` in quotes. The bundle has no
 * stdio.h, so the compiler falls back to the system header, which the arena's allow-list
 * (stdint.h, stddef.h, math.h, string.h, immintrin.h) leaves out. Through it the kernel
 * calls `dprintf`, a POSIX stdio function the screen's name list does not hold, and
 * writes a line to the referee's stdout (fd 1) on every call. The screen must refuse a
 * quoted include that is not one of the bundle's own headers. */
#define _POSIX_C_SOURCE 200809L
#include "stdio.h"
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++) {
        const float* gate = x + t * 2 * d;
        const float* up = gate + d;
        for (int64_t i = 0; i < d; i++) {
            float g = gate[i];
            out[t * d + i] = g / (1.0f + expf(-g)) * up[i];
        }
    }
    dprintf(1, "silu_and_mul tokens=%lld d=%lld\n", (long long)tokens, (long long)d);
}
