/* Stock CUDA kernel for collective.all_reduce (cacheon-slot-abi-v1), bf16.
 *
 *   out[t, i] = sum over r of partials[r, t, i]
 *
 * The ranks' rows are added in rank order 0, 1, ..., world - 1 in f32 and rounded to
 * nearest-even bf16 once, so every rank gets the same bits whatever `rank` is. The rows
 * are the validator's (every rank's partial sums where this rank can read them); the kernel
 * only reads them. Grid-stride over the elements, so any grid is correct. */
#include <cuda_bf16.h>
#include <stdint.h>

extern "C" __global__ void __launch_bounds__(256)
all_reduce(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ partials,
           int64_t tokens, int64_t hidden, int64_t world, int64_t rank) {
    (void)rank;
    const int64_t n = tokens * hidden;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        float s = __bfloat162float(partials[e]);
        for (int64_t r = 1; r < world; r++) s += __bfloat162float(partials[r * n + e]);
        out[e] = __float2bfloat16_rn(s);
    }
}
