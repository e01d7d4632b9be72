/* mlp.gate_up_silu (cacheon-slot-abi-v1), bf16, for 1 to 8 token rows (decode steps).
 *
 *   g = x[t] · w[o],  u = x[t] · w[inter + o],  out[t, o] = silu(g) · u
 *   (w is gate_proj over up_proj, [2 * inter, hidden]; silu(g) = g / (1 + exp(-g)))
 *
 * The products are examples/cuda/matmul-rows8-mma's: one mma.sync m16n8k16 (bf16 in, f32
 * accumulation) a 32-input step half, fragments loaded straight from global memory with
 * the inputs summed in the same permuted order for w and x. What changes is which 16
 * weight rows a tile takes: A's rows 0..7 are the gate rows of features f0..f0+7, its rows
 * 8..15 the up rows of the same features. D's registers 0 and 1 of lane (g, t) are then
 * feature f0 + g's gate sums for token rows 2t and 2t + 1, registers 2 and 3 its up sums
 * for the same rows: the SwiGLU needs no exchange between lanes, and the [tokens, 2 * inter]
 * intermediate of the members never exists.
 *
 * One row (a batch-1 step) takes a GEMV instead: a warp a feature, its gate and up rows
 * streamed side by side, the SwiGLU after the two reductions.
 *
 * A block of WARPS warps takes tiles of 8 features; its warps split the steps, then add
 * their partial sums through shared memory. Rows past `tokens` and features past `inter`
 * are read from the last valid one and never stored. Anything else (more than 8 rows,
 * hidden not a multiple of 32, unaligned pointers) takes a plain path, correct and slow. */
#include <cuda_bf16.h>
#include <stdint.h>

#define W_STREAM 1
#define DEVI static __device__ __forceinline__
/* Warps a block (its K split), 32-input steps in flight per warp, blocks an SM. */
#ifndef WARPS
#define WARPS 8
#endif
#ifndef UNR
#define UNR 4
#endif
#ifndef MINB
#define MINB 3
#endif
/* Each weight is read once, so it may bypass L1 (which keeps x). */
#if defined(CACHEON_EMU) || !defined(W_STREAM)
#define LDW(p) (*(p))
#else
#define LDW(p) __ldcs(p)
#endif

#ifndef CACHEON_EMU
DEVI void mma_m16n8k16_bf16(float d[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

/* Two mmas over one 32-input step: gate holds gate row g, up its up row, xv token row g. */
DEVI void mma_step(float acc[4], uint4 gate, uint4 up, uint4 xv) {
    const unsigned a0[4] = {gate.x, up.x, gate.y, up.y}, b0[2] = {xv.x, xv.y};
    mma_m16n8k16_bf16(acc, a0, b0);
    const unsigned a1[4] = {gate.z, up.z, gate.w, up.w}, b1[2] = {xv.z, xv.w};
    mma_m16n8k16_bf16(acc, a1, b1);
}

DEVI float silu_mul(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

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

/* One token row (the decode row of batch-1 steps): the stock GEMV's shape, one warp a
 * feature (grid-stride), each lane streaming 16-byte vectors of the feature's gate row and
 * up row, GUNR of each in flight, then two shuffle reductions and the SwiGLU in lane 0. */
#ifndef GUNR
#define GUNR 4
#endif
DEVI void gemv_row(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                   int64_t n, int64_t k) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    const int64_t kv = k >> 3;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    for (int64_t j = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; j < n; j += warps) {
        const uint4 *gr = w4 + j * kv, *ur = w4 + (n + j) * kv;
        float gs = 0.0f, us = 0.0f;
        int64_t i = lane;
        for (; i + 32 * (GUNR - 1) < kv; i += 32 * GUNR) {
            uint4 ga[GUNR], ua[GUNR];
#pragma unroll
            for (int u = 0; u < GUNR; ++u) {
                ga[u] = LDW(gr + i + 32 * u);
                ua[u] = LDW(ur + i + 32 * u);
            }
#pragma unroll
            for (int u = 0; u < GUNR; ++u) {
                const uint4 xx = xv[i + 32 * u];
                gs = dot8(ga[u], xx, gs);
                us = dot8(ua[u], xx, us);
            }
        }
        for (; i < kv; i += 32) {
            gs = dot8(LDW(gr + i), xv[i], gs);
            us = dot8(LDW(ur + i), xv[i], us);
        }
        gs = warp_sum(gs);
        us = warp_sum(us);
        if (lane == 0) out[j] = __float2bfloat16_rn(silu_mul(gs, us));
    }
}

/* Any shape, any alignment: one output element per thread, grid-stride. */
DEVI void plain(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                int64_t tokens, int64_t inter, int64_t k) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < tokens * inter;
         e += stride) {
        const int64_t t = e / inter, o = e % inter;
        float g = 0.0f, u = 0.0f;
        for (int64_t i = 0; i < k; ++i) {
            const float xv = __bfloat162float(x[t * k + i]);
            g = fmaf(xv, __bfloat162float(w[o * k + i]), g);
            u = fmaf(xv, __bfloat162float(w[(inter + o) * k + i]), u);
        }
        out[e] = __float2bfloat16_rn(silu_mul(g, u));
    }
}

extern "C" __global__ void __launch_bounds__(32 * WARPS, MINB)
gate_up_silu_rows8(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
                   const __nv_bfloat16* __restrict__ w, int64_t tokens, int64_t inter,
                   int64_t hidden) {
    const int64_t n = inter, k = hidden;
    if (tokens < 1 || n < 1) return;
    /* Offsets in 16-byte units fit 32 bits (fewer registers than 64-bit pointers). */
    const bool vec = tokens <= 8 && (k & 31) == 0 && ((uintptr_t)x & 15) == 0 &&
                     ((uintptr_t)w & 15) == 0 && blockDim.x == 32 * WARPS &&
                     (uint64_t)(2 * n) * (uint64_t)(k >> 3) <= 0xffffffffull;
    if (!vec) {
        plain(out, x, w, tokens, n, k);
        return;
    }
    if (tokens == 1) {
        gemv_row(out, x, w, n, k);
        return;
    }
    __shared__ float part[WARPS * 4 * 32]; /* [warp][fragment register][lane] */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const uint4* __restrict__ w4 = reinterpret_cast<const uint4*>(w);
    const uint4* __restrict__ x4 = reinterpret_cast<const uint4*>(x);
    const uint32_t steps = (uint32_t)(k >> 5), kv = (uint32_t)(k >> 3);
    const uint32_t xo = (uint32_t)(g < tokens ? g : tokens - 1) * kv + t;
    const int64_t tiles = (n + 7) / 8;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t f0 = tile * 8, feat = f0 + g < n ? f0 + g : n - 1;
        const uint32_t go = (uint32_t)feat * kv + t, uo = (uint32_t)(n + feat) * kv + t;
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        uint32_t s = warp;
        for (; s + WARPS * (UNR - 1) < steps; s += WARPS * UNR) {
            uint4 xa[UNR], ga[UNR], ua[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) {
                const uint32_t q = (s + WARPS * u) * 4;
                xa[u] = x4[xo + q];
                ga[u] = LDW(w4 + (go + q));
                ua[u] = LDW(w4 + (uo + q));
            }
#pragma unroll
            for (int u = 0; u < UNR; ++u) mma_step(acc, ga[u], ua[u], xa[u]);
        }
        for (; s < steps; s += WARPS) {
            const uint32_t q = s * 4;
            mma_step(acc, LDW(w4 + (go + q)), LDW(w4 + (uo + q)), x4[xo + q]);
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) part[(warp * 4 + r) * 32 + lane] = acc[r];
        __syncthreads();
        /* Thread (r, l), r in {0, 1}: feature f0 + g(l), token row 2 t(l) + r, its gate sum
         * from register r and its up sum from register r + 2, over the warps. */
        for (int e = threadIdx.x; e < 2 * 32; e += blockDim.x) {
            const int r = e >> 5, l = e & 31;
            float gs = 0.0f, us = 0.0f;
#pragma unroll
            for (int j = 0; j < WARPS; ++j) {
                gs += part[(j * 4 + r) * 32 + l];
                us += part[(j * 4 + r + 2) * 32 + l];
            }
            const int64_t f = f0 + (l >> 2), tok = 2 * (l & 3) + r;
            if (f < n && tok < tokens) out[tok * n + f] = __float2bfloat16_rn(silu_mul(gs, us));
        }
        __syncthreads();
    }
}
