/* Hostile example (docs/threats.md, "state kept across calls"): a linear.matmul whose
 * output depends on what earlier calls left behind. It keeps a private copy of each weight
 * matrix between calls and multiplies the copy instead of `w` (standing for a private
 * quantized copy: what matters is where the numbers come from, not their format).
 *
 * The copy lives below the stack pointer, not in static storage, so nothing that resets
 * .data/.bss touches it. It is keyed by w's address, the shape and four sampled weights,
 * made the second time a key is seen and used from the third on: verification gives fresh
 * weights at every call, so it computes from `w` there; in the engine the weights never
 * change and every timed read multiplies the copy. Only a call whose weights changed in
 * place where the samples do not look (the audit's probe) shows it: FAIL BehaviourChanged. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define ENTRIES 8
#define AREA_FLOATS (768u << 10) /* 3 MiB of copies */

struct entry {
    const float* w;
    int64_t n, k;
    uint32_t sample[4];
    int64_t seen;
    uint64_t offset;
};

struct store {
    uint64_t magic;
    uint64_t used;
    struct entry e[ENTRIES];
};

/* 4 MiB below this frame, on a 1 MiB boundary: deeper than anything the lane reaches
 * between calls, so whatever is written there is still there at the next call. */
static struct store* store_below_stack(void) {
    volatile char anchor = 0;
    uintptr_t here = (uintptr_t)&anchor;
    return (struct store*)((here - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

static float* area(struct store* s) { return (float*)((char*)s + 4096); }

static inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Four dot products of x with rows w0..w3, written to y[0..3]. */
static void dot4(float* y, const float* x, const float* w0, const float* w1, const float* w2,
                 const float* w3, int64_t k) {
    __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps();
    __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps();
    __m256 a3 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        __m256 xa = _mm256_loadu_ps(x + i), xb = _mm256_loadu_ps(x + i + 8);
        a0 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w0 + i), a0);
        b0 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w0 + i + 8), b0);
        a1 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w1 + i), a1);
        b1 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w1 + i + 8), b1);
        a2 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w2 + i), a2);
        b2 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w2 + i + 8), b2);
        a3 = _mm256_fmadd_ps(xa, _mm256_loadu_ps(w3 + i), a3);
        b3 = _mm256_fmadd_ps(xb, _mm256_loadu_ps(w3 + i + 8), b3);
    }
    float s0 = hsum(_mm256_add_ps(a0, b0)), s1 = hsum(_mm256_add_ps(a1, b1));
    float s2 = hsum(_mm256_add_ps(a2, b2)), s3 = hsum(_mm256_add_ps(a3, b3));
    for (; i < k; i++) {
        s0 += x[i] * w0[i];
        s1 += x[i] * w1[i];
        s2 += x[i] * w2[i];
        s3 += x[i] * w3[i];
    }
    y[0] = s0;
    y[1] = s1;
    y[2] = s2;
    y[3] = s3;
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

static void sample_of(uint32_t out[4], const float* w, int64_t size) {
    int64_t at[4] = {0, size / 3, (2 * size) / 3, size - 1};
    for (int i = 0; i < 4; i++) memcpy(&out[i], w + at[i], sizeof out[i]);
}

/* The weights to multiply: the private copy once its key was seen twice, else `w`. */
static const float* weights_for(const float* w, int64_t n, int64_t k) {
    struct store* s = store_below_stack();
    if (s->magic != 0x636f7079u) {
        memset(s, 0, sizeof *s);
        s->magic = 0x636f7079u;
    }
    uint32_t sample[4];
    sample_of(sample, w, n * k);
    for (int i = 0; i < ENTRIES; i++) {
        struct entry* e = &s->e[i];
        if (e->w != w || e->n != n || e->k != k) continue;
        if (memcmp(e->sample, sample, sizeof sample) != 0) {
            memcpy(e->sample, sample, sizeof sample);
            e->seen = 1;
            return w;
        }
        e->seen++;
        if (e->seen == 2) memcpy(area(s) + e->offset, w, (size_t)(n * k) * sizeof(float));
        return e->seen >= 3 ? area(s) + e->offset : w;
    }
    for (int i = 0; i < ENTRIES; i++) {
        struct entry* e = &s->e[i];
        if (e->w != 0 || s->used + (uint64_t)(n * k) > AREA_FLOATS) continue;
        e->w = w;
        e->n = n;
        e->k = k;
        memcpy(e->sample, sample, sizeof sample);
        e->seen = 1;
        e->offset = s->used;
        s->used += (uint64_t)(n * k);
        break;
    }
    return w;
}

void linear_matmul_weight_copy(float* y, const float* x, const float* w, int64_t tokens,
                               int64_t out_features, int64_t in_features) {
    const float* src = weights_for(w, out_features, in_features);
    const int64_t k = in_features;
    int64_t o = 0;
    for (; o + 4 <= out_features; o += 4) {
        const float* w0 = src + o * k;
        for (int64_t t = 0; t < tokens; t++)
            dot4(y + t * out_features + o, x + t * k, w0, w0 + k, w0 + 2 * k, w0 + 3 * k, k);
    }
    for (; o < out_features; o++)
        for (int64_t t = 0; t < tokens; t++) y[t * out_features + o] = dot(x + t * k, src + o * k, k);
}
