/* Must PASS: a function template and a variable named `time`. */
#include <cuda_bf16.h>
#include <stdint.h>

template <typename T>
__device__ __forceinline__ T silu_mul(T g, T u) { return g / (T(1) + __expf(-g)) * u; }

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
                                             int64_t tokens, int64_t d) {
    for (int64_t time = blockIdx.x; time < tokens; time += gridDim.x) {
        for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x; i < d; i += (int64_t)gridDim.y * blockDim.x) {
            float g = __bfloat162float(x[time * 2 * d + i]), u = __bfloat162float(x[time * 2 * d + d + i]);
            out[time * d + i] = __float2bfloat16_rn(silu_mul<float>(g, u));
        }
    }
}
