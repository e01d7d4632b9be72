/* Must PASS: cursors named `read` and `write` (declared together), not the system calls. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    const float* read = x;
    float* write = out;
    for (int64_t t = 0; t < tokens; t++, read += 2 * d, write += d) {
        int64_t i = 0, close = d;
        for (; i < close; i++) write[i] = read[i] / (1.0f + expf(-read[i])) * read[d + i];
    }
}
