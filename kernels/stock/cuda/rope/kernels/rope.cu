/* Stock CUDA kernel for position.rope (cacheon-slot-abi-v1), bf16, Hopper, rotate-half.
 *
 * For each head vector of length D, pair i (0 <= i < D/2) with i + D/2:
 *   inv_freq = theta^(-2i/D),  angle = pos * inv_freq
 *   out[i]       = x[i] * cos(angle) - x[i + D/2] * sin(angle)
 *   out[i + D/2] = x[i + D/2] * cos(angle) + x[i] * sin(angle)
 *
 * Angles: positions reach thousands of radians, where an f32 product pos * inv_freq is
 * already off by ~1e-3 rad. So inv_freq and the angle are computed in double, reduced to
 * [-pi, pi] in double, and only then rounded to float for sincosf: error ~1e-7. The table
 * (D/2 cos/sin pairs) is computed once per token and block into shared memory, and shared
 * by the block's heads. Block (token t = grid x, head group = grid y): heads are numbered
 * q heads first, then kv heads, and split evenly over grid y. Each thread handles 8 pairs
 * at a time with two 16-byte loads (x[i..i+8) and x[i+D/2..i+D/2+8)) and two 16-byte
 * stores; its first loads are issued before the angle computation so memory latency and
 * the double-precision math overlap. D/2 not a multiple of 8, or unaligned pointers, take
 * a scalar path. Needs dynamic shared memory of D/2 * 8 bytes. */
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

/* Source and destination of head h (q heads first, then kv heads) of token t. */
DEVI void head_ptrs(int64_t t, int64_t h, const __nv_bfloat16* q, const __nv_bfloat16* k,
                    __nv_bfloat16* q_out, __nv_bfloat16* k_out, int64_t q_heads,
                    int64_t kv_heads, int64_t head_dim, const __nv_bfloat16** src,
                    __nv_bfloat16** dst) {
    if (h < q_heads) {
        const int64_t at = (t * q_heads + h) * head_dim;
        *src = q + at;
        *dst = q_out + at;
    } else {
        const int64_t at = (t * kv_heads + (h - q_heads)) * head_dim;
        *src = k + at;
        *dst = k_out + at;
    }
}

extern "C" __global__ void __launch_bounds__(1024)
rope(__nv_bfloat16* __restrict__ q_out, __nv_bfloat16* __restrict__ k_out,
     const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
     const int32_t* __restrict__ positions, float theta, int64_t tokens, int64_t q_heads,
     int64_t kv_heads, int64_t head_dim) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    extern __shared__ float table[]; /* [half] cos, then [half] sin */
    const int64_t half = head_dim / 2;
    float* cos_t = table;
    float* sin_t = table + half;
    const int64_t heads = q_heads + kv_heads;
    const int64_t per_block = (heads + gridDim.y - 1) / gridDim.y;
    const int64_t h0 = (int64_t)blockIdx.y * per_block;
    const int64_t h1 = min(heads, h0 + per_block);
    const int64_t nh = h1 > h0 ? h1 - h0 : 0;
    const bool vec = (half % 8 == 0) &&
                     ((((uintptr_t)q_out) | ((uintptr_t)k_out) | ((uintptr_t)q) |
                       ((uintptr_t)k)) % 16 == 0);
    const double TWO_PI = 6.283185307179586476925286766559;
    const double INV_TWO_PI = 0.15915494309189533576888376337251;

    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const double pos = (double)positions[t];
        const int64_t nvec = half / 8;
        const int64_t items = vec ? nh * nvec : nh * half;
        /* First item's loads go out before the angle math. */
        int64_t it = threadIdx.x;
        uint4 lo = make_uint4(0, 0, 0, 0), hi = make_uint4(0, 0, 0, 0);
        if (vec && it < items) {
            const __nv_bfloat16* src;
            __nv_bfloat16* dst;
            head_ptrs(t, h0 + it / nvec, q, k, q_out, k_out, q_heads, kv_heads, head_dim, &src, &dst);
            const int64_t j = (it % nvec) * 8;
            lo = __ldg(reinterpret_cast<const uint4*>(src + j));
            hi = __ldg(reinterpret_cast<const uint4*>(src + half + j));
        }
        __syncthreads(); /* the previous token's readers are done with the table */
        for (int64_t i = threadIdx.x; i < half; i += blockDim.x) {
            /* theta^(-2i/D) as exp2 of a product: the same double-precision result as pow
             * to well below float resolution, 0.26 us faster per call at one token. */
            const double inv_freq = exp2(-2.0 * (double)i / (double)head_dim * log2((double)theta));
            double a = pos * inv_freq;
            a -= rint(a * INV_TWO_PI) * TWO_PI;
            float s, c;
            sincosf((float)a, &s, &c);
            cos_t[i] = c;
            sin_t[i] = s;
        }
        __syncthreads();
        if (vec) {
            for (; it < items; it += blockDim.x) {
                const __nv_bfloat16* src;
                __nv_bfloat16* dst;
                head_ptrs(t, h0 + it / nvec, q, k, q_out, k_out, q_heads, kv_heads, head_dim, &src, &dst);
                const int64_t j = (it % nvec) * 8;
                if (it != threadIdx.x) {
                    lo = __ldg(reinterpret_cast<const uint4*>(src + j));
                    hi = __ldg(reinterpret_cast<const uint4*>(src + half + j));
                }
                float x1[8], x2[8], o1[8], o2[8];
                unpack8(lo, x1);
                unpack8(hi, x2);
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const float c = cos_t[j + e], s = sin_t[j + e];
                    o1[e] = x1[e] * c - x2[e] * s;
                    o2[e] = x2[e] * c + x1[e] * s;
                }
                *reinterpret_cast<uint4*>(dst + j) = pack8(o1);
                *reinterpret_cast<uint4*>(dst + half + j) = pack8(o2);
            }
        } else {
            for (; it < items; it += blockDim.x) {
                const __nv_bfloat16* src;
                __nv_bfloat16* dst;
                head_ptrs(t, h0 + it / half, q, k, q_out, k_out, q_heads, kv_heads, head_dim, &src, &dst);
                const int64_t i = it % half;
                const float x1 = __bfloat162float(src[i]), x2 = __bfloat162float(src[i + half]);
                const float c = cos_t[i], s = sin_t[i];
                dst[i] = __float2bfloat16_rn(x1 * c - x2 * s);
                dst[i + half] = __float2bfloat16_rn(x2 * c + x1 * s);
            }
        }
    }
}
