/* A deliberately slow incumbent for the referee's power check (docs/validator.md): the
 * stock rmsnorm, exact, plus one thread per block spinning on a chain of dependent FMAs
 * (SLOW_SPIN of them, about 4 cycles each) whose result is stored only if it is -1, which
 * it never is. Installed with `--stack`, the stock kernel as the candidate removes the
 * spin: a known win of the h200-llama8b read, 1.8 % on an H100 (median of 10 attempts;
 * 10,000 gave 1.5 % of the H200's shorter read but only about 1.3 % of the H100's, 12,500
 * about the same; docs/validator.md). */
#ifndef SLOW_SPIN
#define SLOW_SPIN 16000
#endif
/* Stock CUDA kernel for norm.rmsnorm (cacheon-slot-abi-v1), bf16, Hopper.
 *
 *   out[t, :] = x[t, :] * rsqrt(mean(x[t, :]^2) + eps) * w
 *
 * One block per row (rows stride over grid x, so any grid is correct). Each thread loads
 * up to VPT 16-byte vectors of its row, and the matching vectors of w, into registers
 * (all loads in flight together; w fetched after the reduction would cost a round trip),
 * the sum of squares is reduced in f32 with warp shuffles and one shared-memory step,
 * then the cached vectors are scaled and stored: the row is read from memory once. Rows
 * longer than blockDim * 8 * VPT re-read the rest. A ragged hidden (not a multiple of 8)
 * or an unaligned pointer takes a scalar two-pass path. blockDim.x must be a multiple of
 * 32 (the manifest's is). */
#include <cuda_bf16.h>
#include <stdint.h>

#define DEVI static __device__ __forceinline__
#define VPT 4

DEVI float bf16_lo(uint32_t w) { return __uint_as_float(w << 16); }
DEVI float bf16_hi(uint32_t w) { return __uint_as_float(w & 0xffff0000u); }
DEVI uint32_t bf16_bits(float f) { return (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(f)); }
DEVI uint32_t pack_bf16x2(float lo, float hi) { return bf16_bits(lo) | (bf16_bits(hi) << 16); }

DEVI void unpack8(const uint4 v, float f[8]) {
    f[0] = bf16_lo(v.x); f[1] = bf16_hi(v.x);
    f[2] = bf16_lo(v.y); f[3] = bf16_hi(v.y);
    f[4] = bf16_lo(v.z); f[5] = bf16_hi(v.z);
    f[6] = bf16_lo(v.w); f[7] = bf16_hi(v.w);
}

DEVI float sumsq8(const uint4 v) {
    float f[8];
    unpack8(v, f);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) s = fmaf(f[i], f[i], s);
    return s;
}

/* x * inv * w for 8 elements, packed back to bf16. */
DEVI uint4 scale8(const uint4 xv, const uint4 wv, float inv) {
    float x[8], w[8];
    unpack8(xv, x);
    unpack8(wv, w);
    uint4 r;
    r.x = pack_bf16x2(x[0] * inv * w[0], x[1] * inv * w[1]);
    r.y = pack_bf16x2(x[2] * inv * w[2], x[3] * inv * w[3]);
    r.z = pack_bf16x2(x[4] * inv * w[4], x[5] * inv * w[5]);
    r.w = pack_bf16x2(x[6] * inv * w[6], x[7] * inv * w[7]);
    return r;
}

DEVI float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Sum over the block; every thread gets the total. `red` holds 33 floats. */
DEVI float block_sum(float v, float* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float s = lane < nwarps ? red[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) red[32] = s;
    }
    __syncthreads();
    const float total = red[32];
    __syncthreads(); /* red is reused for the next row */
    return total;
}

extern "C" __global__ void __launch_bounds__(512)
rmsnorm(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
        const __nv_bfloat16* __restrict__ w, float eps, int64_t tokens, int64_t hidden) {
    __shared__ float red[33];
    const bool vec = (hidden % 8 == 0) &&
                     ((((uintptr_t)out) | ((uintptr_t)x) | ((uintptr_t)w)) % 16 == 0);
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const __nv_bfloat16* xr = x + t * hidden;
        __nv_bfloat16* orow = out + t * hidden;
        if (vec) {
            const int64_t nvec = hidden / 8;
            const uint4* x4 = reinterpret_cast<const uint4*>(xr);
            const uint4* w4 = reinterpret_cast<const uint4*>(w);
            uint4* o4 = reinterpret_cast<uint4*>(orow);
            uint4 cache[VPT], wv[VPT];
            float ss = 0.0f;
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) {
                    cache[k] = __ldg(x4 + v);
                    wv[k] = __ldg(w4 + v);
                }
            }
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) ss += sumsq8(cache[k]);
            }
            for (int64_t v = threadIdx.x + (int64_t)VPT * blockDim.x; v < nvec; v += blockDim.x)
                ss += sumsq8(__ldg(x4 + v));
            const float inv = rsqrtf(block_sum(ss, red) / (float)hidden + eps);
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) o4[v] = scale8(cache[k], wv[k], inv);
            }
            for (int64_t v = threadIdx.x + (int64_t)VPT * blockDim.x; v < nvec; v += blockDim.x)
                o4[v] = scale8(__ldg(x4 + v), __ldg(w4 + v), inv);
        } else {
            float ss = 0.0f;
            for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) {
                const float v = __bfloat162float(xr[i]);
                ss = fmaf(v, v, ss);
            }
            const float inv = rsqrtf(block_sum(ss, red) / (float)hidden + eps);
            for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x)
                orow[i] = __float2bfloat16_rn(__bfloat162float(xr[i]) * inv * __bfloat162float(w[i]));
        }
    }
    if (threadIdx.x == 0) {
        float a = eps;
        for (int i = 0; i < SLOW_SPIN; ++i) a = fmaf(a, 0.9999999f, 1.0e-7f);
        if (a == -1.0f) out[0] = __float2bfloat16_rn(a);
    }
}
