/* Stock CUDA kernel for norm.fused_add_rmsnorm (cacheon-slot-abi-v1), bf16, Hopper.
 *
 *   s = x + residual (f32);  out_residual = bf16(s);  out_norm = bf16(s * rsqrt(mean(s^2) + eps) * w)
 *
 * The norm is taken of the f32 sum, as the reference does. One block per row (rows stride
 * over grid x). Each thread loads up to VPT 16-byte vectors of x, residual and w (all in
 * flight together: loading w only after the reduction costs one more memory round trip,
 * 0.5 us of a 2.4 us call at one row on an H200), keeps the f32 sums in registers, writes
 * out_residual at once, reduces the sum of squares with warp shuffles, then scales its
 * cached sums: x and residual are read once, both outputs written once. Longer rows re-read the rest; a ragged hidden or unaligned
 * pointers take a scalar path. blockDim.x must be a multiple of 32 (the manifest's is). */
#include <cuda_bf16.h>
#include <stdint.h>

/* Programmatic dependent launch (sm_90): the engine may start this grid while the one
 * before it drains; nothing the earlier grid writes or reads is touched before
 * GRID_DEPENDENCY_WAIT (which waits for that grid to finish and its writes to be visible),
 * and GRID_LAUNCH_DEPENDENTS lets the next grid start likewise. Both are no-ops in a
 * plain launch. */
#if !defined(CACHEON_EMU) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GRID_DEPENDENCY_WAIT() asm volatile("griddepcontrol.wait;\n" ::: "memory")
#define GRID_LAUNCH_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory")
#else
#define GRID_DEPENDENCY_WAIT() ((void)0)
#define GRID_LAUNCH_DEPENDENTS() ((void)0)
#endif

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

DEVI uint4 pack8(const float f[8]) {
    uint4 r;
    r.x = pack_bf16x2(f[0], f[1]);
    r.y = pack_bf16x2(f[2], f[3]);
    r.z = pack_bf16x2(f[4], f[5]);
    r.w = pack_bf16x2(f[6], f[7]);
    return r;
}

/* s = x + r for 8 elements; returns the sum of squares of s. */
DEVI float add8(const uint4 xv, const uint4 rv, float s[8]) {
    float x[8], r[8];
    unpack8(xv, x);
    unpack8(rv, r);
    float ss = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        s[i] = x[i] + r[i];
        ss = fmaf(s[i], s[i], ss);
    }
    return ss;
}

DEVI uint4 scale8(const float s[8], const uint4 wv, float inv) {
    float w[8], o[8];
    unpack8(wv, w);
#pragma unroll
    for (int i = 0; i < 8; ++i) o[i] = s[i] * inv * w[i];
    return pack8(o);
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
fused_add_rmsnorm(__nv_bfloat16* __restrict__ out_norm, __nv_bfloat16* __restrict__ out_residual,
                  const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ residual,
                  const __nv_bfloat16* __restrict__ w, float eps, int64_t tokens, int64_t hidden) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    __shared__ float red[33];
    const bool vec = (hidden % 8 == 0) &&
                     ((((uintptr_t)out_norm) | ((uintptr_t)out_residual) | ((uintptr_t)x) |
                       ((uintptr_t)residual) | ((uintptr_t)w)) % 16 == 0);
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const int64_t base = t * hidden;
        if (vec) {
            const int64_t nvec = hidden / 8;
            const uint4* x4 = reinterpret_cast<const uint4*>(x + base);
            const uint4* r4 = reinterpret_cast<const uint4*>(residual + base);
            const uint4* w4 = reinterpret_cast<const uint4*>(w);
            uint4* on4 = reinterpret_cast<uint4*>(out_norm + base);
            uint4* or4 = reinterpret_cast<uint4*>(out_residual + base);
            uint4 xv[VPT], rv[VPT], wv[VPT];
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) {
                    xv[k] = __ldg(x4 + v);
                    rv[k] = __ldg(r4 + v);
                    wv[k] = __ldg(w4 + v);
                }
            }
            float s[VPT][8];
            float ss = 0.0f;
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) {
                    ss += add8(xv[k], rv[k], s[k]);
                    or4[v] = pack8(s[k]);
                }
            }
            for (int64_t v = threadIdx.x + (int64_t)VPT * blockDim.x; v < nvec; v += blockDim.x) {
                float tmp[8];
                ss += add8(__ldg(x4 + v), __ldg(r4 + v), tmp);
                or4[v] = pack8(tmp);
            }
            const float inv = rsqrtf(block_sum(ss, red) / (float)hidden + eps);
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int64_t v = threadIdx.x + (int64_t)k * blockDim.x;
                if (v < nvec) on4[v] = scale8(s[k], wv[k], inv);
            }
            for (int64_t v = threadIdx.x + (int64_t)VPT * blockDim.x; v < nvec; v += blockDim.x) {
                float tmp[8];
                add8(__ldg(x4 + v), __ldg(r4 + v), tmp);
                on4[v] = scale8(tmp, __ldg(w4 + v), inv);
            }
        } else {
            float ss = 0.0f;
            for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) {
                const float s = __bfloat162float(x[base + i]) + __bfloat162float(residual[base + i]);
                out_residual[base + i] = __float2bfloat16_rn(s);
                ss = fmaf(s, s, ss);
            }
            const float inv = rsqrtf(block_sum(ss, red) / (float)hidden + eps);
            for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) {
                const float s = __bfloat162float(x[base + i]) + __bfloat162float(residual[base + i]);
                out_norm[base + i] = __float2bfloat16_rn(s * inv * __bfloat162float(w[i]));
            }
        }
    }
}
