/* Must FAIL Build: a missing closing parenthesis. */
#include <math.h>
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++ {
        out[t] = x[t];
    }
}
