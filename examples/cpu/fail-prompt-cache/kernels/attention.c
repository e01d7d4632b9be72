/* Must PASS the screens and FAIL NotFaster in qualify: the stock scalar attention (exact;
 * a miss costs what the stock costs, plus a hash of 64-element samples), behind a static
 * cache of outputs. Each call hashes a sample of its inputs - 64 strided elements of q and
 * of each sequence's valid K and V rows, the seq_lens, the scale and the shape - and when
 * the hash matches an earlier call's it copies the stored output and computes nothing.
 * Verification draws fresh inputs for every call and the audit a fresh prompt, so both
 * only ever miss; timed reads that replayed the same prompt run after run would hit on
 * every call from the second run on. Timed reads whose calls never repeat see only
 * misses: the stock's speed. The table is sized for the cpu-tiny engine: 4096 entries of
 * 256 floats (batch 1 x 4 heads x head_dim 64; a run makes 32 x 2 = 64 calls: the prompt's
 * rows attend through attention.prefill). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#define ENTRIES 4096
#define ENTRY_FLOATS 256
#define SAMPLES 64

static struct {
    uint64_t key;
    int64_t n;
    float out[ENTRY_FLOATS];
} cache[ENTRIES];

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v;
    h *= 0x100000001b3ull;
    return h ^ (h >> 29);
}

static uint64_t sample(uint64_t h, const float* p, int64_t n) {
    int64_t step = n / SAMPLES > 0 ? n / SAMPLES : 1;
    for (int64_t i = 0; i < n; i += step) {
        uint32_t u;
        memcpy(&u, p + i, sizeof u);
        h = mix(h, u);
    }
    return h;
}

static void attention_exact(float* out, const float* q, const float* k_cache,
                            const float* v_cache, const int32_t* seq_lens, float scale,
                            int64_t batch, int64_t q_heads, int64_t kv_heads,
                            int64_t head_dim, int64_t max_seq) {
    int64_t group = q_heads / kv_heads;
    double acc[head_dim > 0 ? head_dim : 1];
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        for (int64_t h = 0; h < q_heads; h++) {
            const float* qv = q + (b * q_heads + h) * head_dim;
            int64_t kvh = h / group;
            double max_score = -INFINITY;
            for (int64_t s = 0; s < len; s++) {
                const float* kv = k_cache + ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)kv[i];
                dot *= (double)scale;
                if (dot > max_score) max_score = dot;
            }
            for (int64_t i = 0; i < head_dim; i++) acc[i] = 0.0;
            double denom = 0.0;
            for (int64_t s = 0; s < len; s++) {
                int64_t at = ((b * max_seq + s) * kv_heads + kvh) * head_dim;
                double dot = 0.0;
                for (int64_t i = 0; i < head_dim; i++) dot += (double)qv[i] * (double)k_cache[at + i];
                double p = exp(dot * (double)scale - max_score);
                denom += p;
                for (int64_t i = 0; i < head_dim; i++) acc[i] += p * (double)v_cache[at + i];
            }
            float* o = out + (b * q_heads + h) * head_dim;
            for (int64_t i = 0; i < head_dim; i++) o[i] = len > 0 ? (float)(acc[i] / denom) : 0.0f;
        }
    }
}

void attention_decode_cached(float* out, const float* q, const float* k_cache,
                             const float* v_cache, const int32_t* seq_lens, float scale,
                             int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                             int64_t max_seq) {
    int64_t n = batch * q_heads * head_dim;
    uint64_t key = 0xcbf29ce484222325ull;
    uint32_t sbits;
    memcpy(&sbits, &scale, sizeof sbits);
    key = mix(mix(mix(mix(mix(key, sbits), (uint64_t)batch), (uint64_t)q_heads),
                  (uint64_t)kv_heads), (uint64_t)(head_dim * 65536 + max_seq));
    key = sample(key, q, n);
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = seq_lens[b];
        if (len < 0) len = 0;
        if (len > max_seq) len = max_seq;
        key = mix(key, (uint64_t)len);
        int64_t row = b * max_seq * kv_heads * head_dim, span = len * kv_heads * head_dim;
        key = sample(key, k_cache + row, span);
        key = sample(key, v_cache + row, span);
    }
    int cacheable = n <= ENTRY_FLOATS;
    int64_t slot = (int64_t)(key & (ENTRIES - 1));
    if (cacheable && cache[slot].key == key && cache[slot].n == n) {
        memcpy(out, cache[slot].out, (size_t)n * sizeof(float));
        return;
    }
    attention_exact(out, q, k_cache, v_cache, seq_lens, scale, batch, q_heads, kv_heads,
                    head_dim, max_seq);
    if (cacheable) {
        cache[slot].key = key;
        cache[slot].n = n;
        memcpy(cache[slot].out, out, (size_t)n * sizeof(float));
    }
}
