/* Must PASS: a struct whose fields are named `clock` and `section`, read as members. */
#include <math.h>
#include <stdint.h>

struct span {
    int64_t clock;   /* the row this span starts at */
    int64_t section; /* how many rows */
};

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    struct span s = {.clock = 0, .section = tokens};
    struct span* p = &s;
    for (int64_t t = p->clock; t < s.clock + p->section; t++) {
        const float* gate = x + t * 2 * d;
        for (int64_t i = 0; i < d; i++) out[t * d + i] = gate[i] / (1.0f + expf(-gate[i])) * gate[d + i];
    }
}
