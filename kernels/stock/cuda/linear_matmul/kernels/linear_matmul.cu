/* Stock CUDA kernel for linear.matmul (cacheon-slot-abi-v1), bf16, Hopper.
 *
 *   y[t, o] = sum_i x[t, i] * w[o, i]     (w is [out_features, in_features])
 *
 * accumulated in f32 and rounded to nearest-even bf16. Written for the decode row, where
 * the product is bound by streaming w once: one warp per output feature (grid-stride, so
 * any grid is correct), each lane loading 16-byte vectors of the weight row with UNR
 * loads in flight (8 for the widest products, 4 otherwise: measured on an H200), x (at
 * most 8 rows at a time) read through L1, then a warp shuffle reduction. Rows beyond 8
 * are taken 8 at a time. A ragged in_features or an unaligned pointer takes the scalar
 * path (one element per lane per step). */
#include <cuda_bf16.h>
#include <stdint.h>

#define DEVI static __device__ __forceinline__

/* Dot product of 8 bf16 pairs packed in two 16-byte vectors, added to s. */
DEVI float dot8(uint4 a, uint4 b, float s) {
    s = fmaf(__uint_as_float(a.x << 16), __uint_as_float(b.x << 16), s);
    s = fmaf(__uint_as_float(a.x & 0xffff0000u), __uint_as_float(b.x & 0xffff0000u), s);
    s = fmaf(__uint_as_float(a.y << 16), __uint_as_float(b.y << 16), s);
    s = fmaf(__uint_as_float(a.y & 0xffff0000u), __uint_as_float(b.y & 0xffff0000u), s);
    s = fmaf(__uint_as_float(a.z << 16), __uint_as_float(b.z << 16), s);
    s = fmaf(__uint_as_float(a.z & 0xffff0000u), __uint_as_float(b.z & 0xffff0000u), s);
    s = fmaf(__uint_as_float(a.w << 16), __uint_as_float(b.w << 16), s);
    s = fmaf(__uint_as_float(a.w & 0xffff0000u), __uint_as_float(b.w & 0xffff0000u), s);
    return s;
}

DEVI float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* Rows [m0, m0 + rows) (rows <= 8) of y for the features this warp takes, vector path. */
template <int UNR>
DEVI void gemv_vec(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w,
                   int64_t m0, int rows, int64_t n, int64_t k, int64_t warp, int64_t warps,
                   int lane) {
    const int64_t kv = k >> 3;
    const uint4* xv = reinterpret_cast<const uint4*>(x + m0 * k);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    for (int64_t j = warp; j < n; j += warps) {
        const uint4* wr = w4 + j * kv;
        float acc[8];
#pragma unroll
        for (int m = 0; m < 8; ++m) acc[m] = 0.0f;
        int64_t i = lane;
        for (; i + 32 * (UNR - 1) < kv; i += 32 * UNR) {
            uint4 a[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) a[u] = wr[i + 32 * u];
#pragma unroll
            for (int m = 0; m < 8; ++m) {
                if (m < rows) {
                    const uint4* xr = xv + m * kv;
                    float s = acc[m];
#pragma unroll
                    for (int u = 0; u < UNR; ++u) s = dot8(a[u], xr[i + 32 * u], s);
                    acc[m] = s;
                }
            }
        }
        for (; i < kv; i += 32) {
            const uint4 a = wr[i];
#pragma unroll
            for (int m = 0; m < 8; ++m)
                if (m < rows) acc[m] = dot8(a, xv[m * kv + i], acc[m]);
        }
#pragma unroll
        for (int m = 0; m < 8; ++m) {
            if (m < rows) {
                const float v = warp_sum(acc[m]);
                if (lane == 0) y[(m0 + m) * n + j] = __float2bfloat16_rn(v);
            }
        }
    }
}

/* The same rows, one element per lane per step (any k, any alignment). */
DEVI void gemv_scalar(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w,
                      int64_t m0, int rows, int64_t n, int64_t k, int64_t warp, int64_t warps,
                      int lane) {
    for (int64_t j = warp; j < n; j += warps) {
        const __nv_bfloat16* wr = w + j * k;
        float acc[8];
#pragma unroll
        for (int m = 0; m < 8; ++m) acc[m] = 0.0f;
        for (int64_t i = lane; i < k; i += 32) {
            const float a = __bfloat162float(wr[i]);
#pragma unroll
            for (int m = 0; m < 8; ++m)
                if (m < rows) acc[m] = fmaf(a, __bfloat162float(x[(m0 + m) * k + i]), acc[m]);
        }
#pragma unroll
        for (int m = 0; m < 8; ++m) {
            if (m < rows) {
                const float v = warp_sum(acc[m]);
                if (lane == 0) y[(m0 + m) * n + j] = __float2bfloat16_rn(v);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
linear_matmul(__nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ x,
              const __nv_bfloat16* __restrict__ w, int64_t tokens, int64_t out_features,
              int64_t in_features) {
    const int lane = threadIdx.x & 31;
    const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    const bool vec = (in_features & 7) == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)w & 15) == 0;
    for (int64_t m0 = 0; m0 < tokens; m0 += 8) {
        const int rows = (int)(tokens - m0 < 8 ? tokens - m0 : 8);
        if (!vec) {
            gemv_scalar(y, x, w, m0, rows, out_features, in_features, warp, warps, lane);
        } else if (out_features >= 16384) {
            gemv_vec<8>(y, x, w, m0, rows, out_features, in_features, warp, warps, lane);
        } else {
            gemv_vec<4>(y, x, w, m0, rows, out_features, in_features, warp, warps, lane);
        }
    }
}
