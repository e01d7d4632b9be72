/* linear.matmul (cacheon-slot-abi-v1), bf16, for 2 to 8 token rows (batched decode).
 *
 *   y[t, o] = sum_i x[t, i] * w[o, i]     (w is [out_features, in_features])
 *
 * With up to 8 rows the product is still bound by streaming w once, but a GEMV that runs
 * row after row streams it once per row. Here one mma.sync m16n8k16 (bf16 in, f32
 * accumulation) takes 16 output features × 8 token rows × 16 inputs, so w is read once
 * for all rows and the arithmetic is free.
 *
 * Fragments straight from global memory: the sum over i may be taken in any order, as long
 * as w and x use the same one. Lane (g = lane / 4, t = lane % 4) loads 16 bytes (8 inputs)
 * of weight rows g and g + 8 and of token row g, at inputs 32s + 8t .. 32s + 8t + 7 of a
 * 32-input step s; the first four of them serve as the mma's inputs {2t, 2t+1, 2t+8, 2t+9}
 * of one mma, the last four of the next, in both the A (w) and the B (x) fragment.
 *
 * A block of WARPS warps takes MT tiles of 16 features at a time; its warps split the
 * steps (warp j takes steps j, j + WARPS, ...: together contiguous bytes of each weight
 * row), then add their partial sums through shared memory. Rows past `tokens` and features past
 * `out_features` are read from the last valid row (no branch in the loop) and never
 * stored. Anything else (more than 8 rows, in_features not a multiple of 32, unaligned
 * pointers) takes a plain path, correct and slow. */
#include <cuda_bf16.h>
#include <stdint.h>

#define W_STREAM 1
#define DEVI static __device__ __forceinline__
/* Warps a block (its K split), 16-feature tiles a block iteration, 32-input steps in flight
 * per warp, blocks an SM (the register budget). */
#ifndef WARPS
#define WARPS 8
#endif
#ifndef MT
#define MT 1
#endif
#ifndef UNR
#define UNR 4
#endif
#ifndef MINB
#define MINB 3
#endif
/* How w is loaded: each weight is read once, so it may bypass L1 (which keeps x). */
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

/* Two mmas over one 32-input step: lo holds weight row g, hi row g + 8, xv token row g. */
DEVI void mma_step(float acc[4], uint4 lo, uint4 hi, uint4 xv) {
    const unsigned a0[4] = {lo.x, hi.x, lo.y, hi.y}, b0[2] = {xv.x, xv.y};
    mma_m16n8k16_bf16(acc, a0, b0);
    const unsigned a1[4] = {lo.z, hi.z, lo.w, hi.w}, b1[2] = {xv.z, xv.w};
    mma_m16n8k16_bf16(acc, a1, b1);
}

/* Any shape, any alignment: one output element per thread, grid-stride. */
DEVI void plain(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w,
                int64_t tokens, int64_t n, int64_t k) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < tokens * n; e += stride) {
        const int64_t t = e / n, o = e % n;
        float acc = 0.0f;
        for (int64_t i = 0; i < k; ++i)
            acc = fmaf(__bfloat162float(x[t * k + i]), __bfloat162float(w[o * k + i]), acc);
        y[e] = __float2bfloat16_rn(acc);
    }
}

extern "C" __global__ void __launch_bounds__(32 * WARPS, MINB)
linear_matmul_rows8(__nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ x,
                    const __nv_bfloat16* __restrict__ w, int64_t tokens, int64_t out_features,
                    int64_t in_features) {
    const int64_t n = out_features, k = in_features;
    if (tokens < 1 || n < 1) return;
    /* Offsets in 16-byte units fit 32 bits (fewer registers than 64-bit pointers). */
    const bool vec = tokens <= 8 && (k & 31) == 0 && ((uintptr_t)x & 15) == 0 &&
                     ((uintptr_t)w & 15) == 0 && blockDim.x == 32 * WARPS &&
                     (uint64_t)n * (uint64_t)(k >> 3) <= 0xffffffffull;
    if (!vec) {
        plain(y, x, w, tokens, n, k);
        return;
    }
    __shared__ float part[WARPS * MT * 4 * 32]; /* [warp][fragment register][lane] */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const uint4* __restrict__ w4 = reinterpret_cast<const uint4*>(w);
    const uint4* __restrict__ x4 = reinterpret_cast<const uint4*>(x);
    const uint32_t steps = (uint32_t)(k >> 5), kv = (uint32_t)(k >> 3);
    const uint32_t xo = (uint32_t)(g < tokens ? g : tokens - 1) * kv + t;
    const int64_t tiles = (n + 16 * MT - 1) / (16 * MT);
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t f0 = tile * 16 * MT;
        uint32_t wo[MT][2];
#pragma unroll
        for (int m = 0; m < MT; ++m)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int64_t row = f0 + m * 16 + g + 8 * h;
                wo[m][h] = (uint32_t)(row < n ? row : n - 1) * kv + t;
            }
        float acc[MT][4];
#pragma unroll
        for (int m = 0; m < MT; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.0f;
        uint32_t s = warp;
        for (; s + WARPS * (UNR - 1) < steps; s += WARPS * UNR) {
            uint4 xa[UNR], wa[UNR][MT][2];
#pragma unroll
            for (int u = 0; u < UNR; ++u) {
                const uint32_t q = (s + WARPS * u) * 4;
                xa[u] = x4[xo + q];
#pragma unroll
                for (int m = 0; m < MT; ++m) {
                    wa[u][m][0] = LDW(w4 + (wo[m][0] + q));
                    wa[u][m][1] = LDW(w4 + (wo[m][1] + q));
                }
            }
#pragma unroll
            for (int u = 0; u < UNR; ++u)
#pragma unroll
                for (int m = 0; m < MT; ++m) mma_step(acc[m], wa[u][m][0], wa[u][m][1], xa[u]);
        }
        for (; s < steps; s += WARPS) {
            const uint32_t q = s * 4;
            const uint4 xv = x4[xo + q];
#pragma unroll
            for (int m = 0; m < MT; ++m)
                mma_step(acc[m], LDW(w4 + (wo[m][0] + q)), LDW(w4 + (wo[m][1] + q)), xv);
        }
#pragma unroll
        for (int m = 0; m < MT; ++m)
#pragma unroll
            for (int r = 0; r < 4; ++r) part[(warp * MT * 4 + m * 4 + r) * 32 + lane] = acc[m][r];
        __syncthreads();
        /* Thread (r, l) adds up fragment register r of lane l over the warps: D's register
         * r of lane l is feature g(l) (+ 8 for r >= 2) and token row 2 t(l) + (r & 1). */
        for (int e = threadIdx.x; e < MT * 4 * 32; e += blockDim.x) {
            const int mr = e >> 5, l = e & 31, m = mr >> 2, r = mr & 3;
            float v = 0.0f;
#pragma unroll
            for (int j = 0; j < WARPS; ++j) v += part[(j * MT * 4 + mr) * 32 + l];
            const int64_t feat = f0 + m * 16 + (l >> 2) + (r >= 2 ? 8 : 0);
            const int64_t tok = 2 * (l & 3) + (r & 1);
            if (feat < n && tok < tokens) y[tok * n + feat] = __float2bfloat16_rn(v);
        }
        __syncthreads();
    }
}
