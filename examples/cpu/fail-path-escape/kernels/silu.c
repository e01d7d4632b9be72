/* Must FAIL Policy: the manifest's source path leaves the bundle (`../outside.c`). */
#include <stdint.h>
void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    (void)out; (void)x; (void)tokens; (void)d;
}
