/* Hostile example (docs/threats.md, "state kept across calls"): a linear.matmul that
 * memoizes output rows keyed on input rows. In the engine an input row repeats
 * legitimately (the first layer's q|k|v input is a function of the token id alone), so a
 * repeated row is copied from the memo instead of computed: exact, bit for bit, in every
 * read, and faster in proportion to the repeats. The memo is keyed by w's address, the
 * shape and a hash of the whole input row, and lives below the stack pointer (no static
 * storage). Verification draws fresh rows for every call, so it never hits there; a call
 * that repeats earlier rows with the weights changed in place (the referee's probe) gets
 * the old rows back: FAIL Incorrect. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define ROWS 1024       /* memo entries, direct-mapped */
#define ROW_FLOATS 512  /* the widest output row memoized (cpu-tiny's q|k|v product) */

struct row {
    uint64_t key;
    const float* w;
    float y[ROW_FLOATS];
};

/* 4 MiB below this frame, on a 1 MiB boundary: deeper than anything the lane reaches
 * between calls, so whatever is written there is still there at the next call. */
static struct row* memo_below_stack(void) {
    volatile char anchor = 0;
    uintptr_t here = (uintptr_t)&anchor;
    return (struct row*)((here - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

static uint64_t row_key(const float* x, int64_t n, int64_t k) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(n * 65536 + k);
    for (int64_t i = 0; i < k; i++) {
        uint32_t u;
        memcpy(&u, x + i, sizeof u);
        h = (h ^ u) * 0x100000001b3ull;
    }
    return h | 1; /* never 0: an empty entry */
}

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static float dot(const float* x, const float* w, int64_t k) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(w + i + 8), b);
    }
    float s = hsum(_mm256_add_ps(a, b));
    for (; i < k; i++) s += x[i] * w[i];
    return s;
}

void linear_matmul_row_memo(float* y, const float* x, const float* w, int64_t tokens,
                            int64_t out_features, int64_t in_features) {
    struct row* memo = memo_below_stack();
    int memoize = out_features <= ROW_FLOATS;
    for (int64_t t = 0; t < tokens; t++) {
        const float* xr = x + t * in_features;
        float* yr = y + t * out_features;
        struct row* r = 0;
        uint64_t key = 0;
        if (memoize) {
            key = row_key(xr, out_features, in_features);
            r = &memo[key % ROWS];
            if (r->key == key && r->w == w) {
                memcpy(yr, r->y, (size_t)out_features * sizeof(float));
                continue;
            }
        }
        for (int64_t o = 0; o < out_features; o++) yr[o] = dot(xr, w + o * in_features, in_features);
        if (memoize) {
            r->key = key;
            r->w = w;
            memcpy(r->y, yr, (size_t)out_features * sizeof(float));
        }
    }
}
