/* Must FAIL Abi: the shape parameters are 32-bit ints, not int64_t. */
#include <cuda_bf16.h>
#include <stdint.h>

static __device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out,
                                             const __nv_bfloat16* __restrict__ x,
                                             int tokens, int d) {
    for (int t = blockIdx.x; t < tokens; t += gridDim.x) {
        for (int i = blockIdx.y * blockDim.x + threadIdx.x; i < d; i += gridDim.y * blockDim.x) {
            float g = __bfloat162float(x[t * 2 * d + i]), u = __bfloat162float(x[t * 2 * d + d + i]);
            out[t * d + i] = __float2bfloat16_rn(silu_mul(g, u));
        }
    }
}
