/* activation.silu_and_mul for the h200-llama8b arena (bf16, sm_90a): each thread handles
 * one 16-byte vector (8 elements) per row, 256 threads per block, 2048 columns per block
 * on grid y; f32 math, round-to-nearest bf16 results. Ragged d takes the scalar path. */
#include <cuda_bf16.h>
#include <stdint.h>

static __device__ __forceinline__ float silu_mul(float g, float u) {
    return g / (1.0f + __expf(-g)) * u;
}

extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* __restrict__ out,
                                             const __nv_bfloat16* __restrict__ x,
                                             int64_t tokens, int64_t d) {
    const int64_t lane = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.y * blockDim.x;
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const __nv_bfloat16* gate = x + t * 2 * d;
        const __nv_bfloat16* up = gate + d;
        __nv_bfloat16* o = out + t * d;
        if (d % 8 == 0) {
            for (int64_t v = lane; v < d / 8; v += stride) {
                uint4 g = reinterpret_cast<const uint4*>(gate)[v];
                uint4 u = reinterpret_cast<const uint4*>(up)[v];
                const __nv_bfloat16* gh = reinterpret_cast<const __nv_bfloat16*>(&g);
                const __nv_bfloat16* uh = reinterpret_cast<const __nv_bfloat16*>(&u);
                uint4 r;
                __nv_bfloat16* rh = reinterpret_cast<__nv_bfloat16*>(&r);
#pragma unroll
                for (int k = 0; k < 8; k++) {
                    rh[k] = __float2bfloat16_rn(silu_mul(__bfloat162float(gh[k]), __bfloat162float(uh[k])));
                }
                reinterpret_cast<uint4*>(o)[v] = r;
            }
        } else {
            for (int64_t i = lane; i < d; i += stride) {
                o[i] = __float2bfloat16_rn(silu_mul(__bfloat162float(gate[i]), __bfloat162float(up[i])));
            }
        }
    }
}
