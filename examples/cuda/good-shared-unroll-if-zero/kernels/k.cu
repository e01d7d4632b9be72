/* Must PASS: `__shared__` staging, `#pragma unroll`, and an `#if 0` block with an include outside the list. */
#include <cuda_bf16.h>
#include <stdint.h>

#if 0
#include <cstdio>
#endif

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
                                             int64_t tokens, int64_t d) {
    __shared__ float gate[256];
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        for (int64_t base = (int64_t)blockIdx.y * blockDim.x; base < d; base += (int64_t)gridDim.y * blockDim.x) {
            int64_t i = base + threadIdx.x;
            __syncthreads();
            gate[threadIdx.x] = i < d ? __bfloat162float(x[t * 2 * d + i]) : 0.0f;
            __syncthreads();
            if (i < d) {
                float g = gate[threadIdx.x], r = 1.0f;
#pragma unroll
                for (int k = 0; k < 1; k++) r += __expf(-g);
                out[t * d + i] = __float2bfloat16_rn(g / r * __bfloat162float(x[t * 2 * d + d + i]));
            }
        }
    }
}
