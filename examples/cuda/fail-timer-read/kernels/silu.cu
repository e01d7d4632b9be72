/* Must FAIL Policy (static screen): reads the SM clock, so it could behave differently when timed. */
#include <cuda_bf16.h>
#include <stdint.h>

static __device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out,
                                             const __nv_bfloat16* __restrict__ x,
                                             int64_t tokens, int64_t d) {
    const int64_t lane = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.y * blockDim.x;
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const __nv_bfloat16* gate = x + t * 2 * d;
        const __nv_bfloat16* up = gate + d;
        for (int64_t i = lane; i < d; i += stride) {
            float g = __bfloat162float(gate[i]), u = __bfloat162float(up[i]);
            long long c = clock64(); out[t * d + i] = __float2bfloat16_rn(silu_mul(g, u) + (c < 0 ? 1.0f : 0.0f));
        }
    }
    
}
