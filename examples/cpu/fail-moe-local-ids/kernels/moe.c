/* Must FAIL Incorrect at verify: right wherever every chosen expert is held here, but it
 * takes expert ids modulo the held block's size, so a rank holding experts 4..7 runs
 * expert id 1 as its own expert 1 (id 5) instead of skipping an expert another rank
 * holds. Verification's rows choose experts held elsewhere too (ids below the block and
 * past it). */
#include <math.h>
#include <stdint.h>

static float dot(const float* a, const float* b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void moe_fused_experts(float* out, const float* x, const int32_t* topk_ids,
                       const float* topk_weights, const float* w_gate_up, const float* w_down,
                       int64_t tokens, int64_t hidden, int64_t inter, int64_t experts,
                       int64_t topk, int64_t first_expert) {
    (void)first_expert;
    float act[inter > 0 ? inter : 1];
    for (int64_t t = 0; t < tokens; t++) {
        const float* xr = x + t * hidden;
        float* o = out + t * hidden;
        for (int64_t i = 0; i < hidden; i++) o[i] = 0.0f;
        for (int64_t j = 0; j < topk; j++) {
            const int64_t e = (int64_t)topk_ids[t * topk + j] % experts;
            const float wj = topk_weights[t * topk + j];
            const float* wgu = w_gate_up + e * 2 * inter * hidden;
            for (int64_t f = 0; f < inter; f++) {
                const float g = dot(xr, wgu + f * hidden, hidden);
                const float u = dot(xr, wgu + (inter + f) * hidden, hidden);
                act[f] = g / (1.0f + expf(-g)) * u;
            }
            const float* wd = w_down + e * hidden * inter;
            for (int64_t i = 0; i < hidden; i++) o[i] += wj * dot(wd + i * inter, act, inter);
        }
    }
}
