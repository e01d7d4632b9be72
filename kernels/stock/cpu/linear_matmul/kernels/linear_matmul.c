/* Stock CPU kernel for linear.matmul (cacheon-slot-abi-v1).
 * y[t, o] = sum_i x[t, i] * w[o, i]   (w is [out_features, in_features]).
 * Plain C, one thread: the weight rows are taken in blocks of 16 so a block stays in
 * cache while every input row passes over it, and each dot product keeps eight
 * independent float accumulators (which the compiler turns into one vector register),
 * summed in a fixed order; the tail past a multiple of 8 is added last. */
#include <stdint.h>

#define BLOCK 16

static float dot(const float* a, const float* b, int64_t n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int l = 0; l < 8; l++) acc[l] += a[i + l] * b[i + l];
    }
    float tail = 0.0f;
    for (; i < n; i++) tail += a[i] * b[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) +
           tail;
}

void linear_matmul(float* y, const float* x, const float* w, int64_t tokens,
                   int64_t out_features, int64_t in_features) {
    for (int64_t o0 = 0; o0 < out_features; o0 += BLOCK) {
        int64_t o1 = o0 + BLOCK < out_features ? o0 + BLOCK : out_features;
        for (int64_t t = 0; t < tokens; t++) {
            const float* xr = x + t * in_features;
            for (int64_t o = o0; o < o1; o++) {
                y[t * out_features + o] = dot(xr, w + o * in_features, in_features);
            }
        }
    }
}
