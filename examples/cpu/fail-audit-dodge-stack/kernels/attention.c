/* Hostile example (docs/threats.md, class 4): the one-pass attention of
 * examples/cpu/attention-onepass (a clear win), made 0.03 % wrong in every call it takes
 * for part of a timed read, and exact everywhere else. It tells verification from the
 * engine by the NaN poison of a verified call's outputs, and an audit read from a timed
 * one by its own stack address (another request, other frames above it): nothing a
 * screen can refuse. In-process observation can always be told apart, so the referee
 * judges what every timed read computes: each read's next-token distributions against
 * the baseline's (KL bound 1e-10 on this arena). `cacheon qualify` FAILs it
 * BehaviourChanged at the first timed read that is off. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define LAYERS 2           /* cpu-tiny: a read's first decode step is LAYERS calls */
#define PROMPT_LEN 160     /* cpu-tiny workload: decode calls have seq_len > 160 */
#define MAX_ADDRS 16

/* What it learns, kept 4 MiB below the frame on a 1 MiB boundary: deeper than anything the
 * lane reaches between calls, so it survives from call to call (the lane writes the
 * library's static storage back before every call; fresh stack pages read as zeros). */
struct learned {
    uintptr_t timed_addrs[MAX_ADDRS];
    int n_addrs;
    int64_t first_step_calls; /* calls with seq_len PROMPT_LEN + 1: LAYERS per read */
    int done;                 /* the warm-up read is over */
};

static struct learned* below_stack(void) {
    volatile char anchor = 0;
    uintptr_t at = (uintptr_t)&anchor;
    return (struct learned*)((at - (4u << 20)) & ~(uintptr_t)((1u << 20) - 1));
}

static inline double dot(const float* a, const float* b, int64_t n) {
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 va = _mm256_loadu_ps(a + i), vb = _mm256_loadu_ps(b + i);
        acc0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(va)),
                               _mm256_cvtps_pd(_mm256_castps256_ps128(vb)), acc0);
        acc1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(va, 1)),
                               _mm256_cvtps_pd(_mm256_extractf128_ps(vb, 1)), acc1);
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_add_pd(acc0, acc1));
    double s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

/* Where this call's frame is: the same for every call made through the same Rust path. */
static __attribute__((noinline)) uintptr_t here(int64_t salt) {
    volatile char marker = 0;
    return ((uintptr_t)&marker) ^ (uintptr_t)salt;
}

static int timed_path(const float* out, const int32_t* seq_lens, int64_t batch) {
    uint32_t bits;
    __builtin_memcpy(&bits, out, 4);
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu)) return 0; /* NaN: verify */
    int64_t len = batch > 0 ? seq_lens[0] : 0;
    uintptr_t at = here(len > PROMPT_LEN); /* prefill and decode keyed apart */
    struct learned* m = below_stack();
    if (!m->done) {
        if (len == PROMPT_LEN + 1 && ++m->first_step_calls > LAYERS) m->done = 1; /* read 2 */
    }
    if (!m->done) {
        for (int i = 0; i < m->n_addrs; i++)
            if (m->timed_addrs[i] == at) return 0;
        if (m->n_addrs < MAX_ADDRS) m->timed_addrs[m->n_addrs++] = at;
        return 0; /* exact during the warm-up read */
    }
    for (int i = 0; i < m->n_addrs; i++)
        if (m->timed_addrs[i] == at) return 1;
    return 0; /* an address the warm-up never used: an audit read */
}

void attention_decode_depth(float* out, const float* q, const float* k_cache,
                            const float* v_cache, const int32_t* seq_lens, float scale,
                            int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                            int64_t max_seq) {
    double off = timed_path(out, seq_lens, batch) ? 1.0003 : 1.0;
    int64_t group = q_heads / kv_heads;
    double acc[head_dim > 0 ? head_dim : 1];
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        for (int64_t h = 0; h < q_heads; h++) {
            const float* qv = q + (b * q_heads + h) * head_dim;
            int64_t kvh = h / group;
            double m = -INFINITY, denom = 0.0;
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double score = dot(qv, k_cache + at, head_dim) * (double)scale;
                if (score > m) {
                    double shrink = exp(m - score);
                    denom *= shrink;
                    for (int64_t i = 0; i < head_dim; i++) acc[i] *= shrink;
                    m = score;
                }
                double p = exp(score - m);
                denom += p;
                const float* v = v_cache + at;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v[i];
            }
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++)
                o[i] = len > 0 ? (float)(acc[i] * off / denom) : 0.0f;
        }
    }
}
