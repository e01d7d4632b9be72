/* Stock CUDA kernel for moe.fused_experts (cacheon-slot-abi-v1), bf16.
 *
 *   out[t, o] = sum over j with e = topk_ids[t, j] - first_expert in [0, experts) of
 *               topk_weights[t, j] * (w_down[e, o] . a_e),
 *   a_e[f] = silu(x_t . w_gate_up[e, f]) * (x_t . w_gate_up[e, inter + f])
 *
 * One block a row t: the threads compute an expert's activations into shared memory, then
 * the output features' dot products against them, accumulated in f32 in shared memory over
 * the row's experts and rounded to bf16 once. Experts held by other ranks add nothing. */
#include <cuda_bf16.h>
#include <stdint.h>

__device__ static float dot_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; i++) s += __bfloat162float(a[i]) * __bfloat162float(b[i]);
    return s;
}

extern "C" __global__ void __launch_bounds__(128)
moe_fused_experts(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
                  const int32_t* __restrict__ topk_ids,
                  const __nv_bfloat16* __restrict__ topk_weights,
                  const __nv_bfloat16* __restrict__ w_gate_up,
                  const __nv_bfloat16* __restrict__ w_down, int64_t tokens, int64_t hidden,
                  int64_t inter, int64_t experts, int64_t topk, int64_t first_expert) {
    extern __shared__ float smem[];
    float* act = smem;         /* [inter] */
    float* acc = smem + inter; /* [hidden] */
    const int64_t t = blockIdx.x;
    if (t >= tokens) return;
    const __nv_bfloat16* xr = x + t * hidden;
    for (int64_t o = threadIdx.x; o < hidden; o += blockDim.x) acc[o] = 0.0f;
    for (int64_t j = 0; j < topk; j++) {
        const int64_t e = (int64_t)topk_ids[t * topk + j] - first_expert;
        if (e < 0 || e >= experts) continue; /* the same for every thread of the block */
        const float wj = __bfloat162float(topk_weights[t * topk + j]);
        const __nv_bfloat16* wgu = w_gate_up + e * 2 * inter * hidden;
        __syncthreads(); /* the previous expert's activations are read */
        for (int64_t f = threadIdx.x; f < inter; f += blockDim.x) {
            const float g = dot_bf16(xr, wgu + f * hidden, hidden);
            const float u = dot_bf16(xr, wgu + (inter + f) * hidden, hidden);
            act[f] = g / (1.0f + __expf(-g)) * u;
        }
        __syncthreads();
        const __nv_bfloat16* wd = w_down + e * hidden * inter;
        for (int64_t o = threadIdx.x; o < hidden; o += blockDim.x) {
            float s = 0.0f;
            for (int64_t f = 0; f < inter; f++) s += __bfloat162float(wd[o * inter + f]) * act[f];
            acc[o] += wj * s;
        }
    }
    for (int64_t o = threadIdx.x; o < hidden; o += blockDim.x)
        out[t * hidden + o] = __float2bfloat16_rn(acc[o]);
}
