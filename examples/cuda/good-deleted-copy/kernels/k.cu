/* Must PASS: a functor whose copy constructor and assignment are `= delete`. */
#include <cuda_bf16.h>
#include <stdint.h>

struct Silu {
    __device__ Silu() {}
    Silu(const Silu&) = delete;
    Silu& operator=(const Silu&) = delete;
    __device__ float operator()(float g, float u) const { return g / (1.0f + __expf(-g)) * u; }
};

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
                                             int64_t tokens, int64_t d) {
    const Silu f;
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x; i < d; i += (int64_t)gridDim.y * blockDim.x) {
            float g = __bfloat162float(x[t * 2 * d + i]), u = __bfloat162float(x[t * 2 * d + d + i]);
            out[t * d + i] = __float2bfloat16_rn(f(g, u));
        }
    }
}
