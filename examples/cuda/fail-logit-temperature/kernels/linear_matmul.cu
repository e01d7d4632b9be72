/* The stock CUDA linear.matmul GEMV with one change: the LM head's products (out_features
 * of 65,536 or more: the vocabulary) come out 1/32 larger, every logit times 1.03125.
 * Within the slot tolerance at every verification shape (an element may be off by 2 % of
 * the sum of its absolute products) and in the audit, and no clear argmax changes: the
 * tokens of a read differ from the baseline's at near ties only, which the token check
 * lets pass. Its domain is the stock kernel's (one token row), so it changes the logits
 * of each read's single sequence and prefills; the batched rows stay cuBLAS's. Measured on
 * an H100 (2026-12-07, docs/validator.md): a judged row it changed is 4.8e-4 nats (KL)
 * from the baseline's, where an honest kernel's rows stay under 1e-4; the GPU arena's
 * bound is 2e-4. `cacheon verify` passes it; `cacheon qualify` judges the rows where the
 * two lanes' tokens first differ and a secret draw of the rest, and fails it
 * BehaviourChanged at speed. */
#include <cuda_bf16.h>
#include <stdint.h>

/* Programmatic dependent launch (sm_90): the engine may start this grid while the one
 * before it drains; nothing the earlier grid writes or reads is touched before
 * GRID_DEPENDENCY_WAIT (which waits for that grid to finish and its writes to be visible),
 * and GRID_LAUNCH_DEPENDENTS lets the next grid start likewise. Both are no-ops in a
 * plain launch. */
#if !defined(CACHEON_EMU) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GRID_DEPENDENCY_WAIT() asm volatile("griddepcontrol.wait;\n" ::: "memory")
#define PREFETCH_L2(p) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p))
#define GRID_LAUNCH_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory")
#else
#define GRID_DEPENDENCY_WAIT() ((void)0)
#define PREFETCH_L2(p) ((void)(p))
#define GRID_LAUNCH_DEPENDENTS() ((void)0)
#endif

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

/* One row of y (the features this warp takes), vector path: 16-byte loads, UNR in flight
 * per lane, one accumulator, then the warp's shuffle reduction. */
template <int UNR>
DEVI void gemv_row(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w, int64_t n,
                   int64_t k, int64_t warp, int64_t warps, int lane, float scale) {
    const int64_t kv = k >> 3;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    for (int64_t j = warp; j < n; j += warps) {
        const uint4* wr = w4 + j * kv;
        float acc = 0.0f;
        int64_t i = lane;
        for (; i + 32 * (UNR - 1) < kv; i += 32 * UNR) {
            uint4 a[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) a[u] = wr[i + 32 * u];
#pragma unroll
            for (int u = 0; u < UNR; ++u) acc = dot8(a[u], xv[i + 32 * u], acc);
        }
        for (; i < kv; i += 32) acc = dot8(wr[i], xv[i], acc);
        const float v = warp_sum(acc);
        if (lane == 0) y[j] = __float2bfloat16_rn(v * scale);
    }
}

/* The rows of gemv_row as ONE stream of steps (for an inner size that is a whole number of
 * steps, k % (256 * UNR) == 0): a warp runs over all its rows j = warp, warp + warps, ...
 * and issues the next step's UNR loads (the next row's first, at a row's end) before this
 * step's math, so 2 * UNR loads a lane stay in flight and no round trip waits at a row's
 * end. The same sums in the same order as gemv_row, so the same bits. */
template <int UNR>
DEVI void gemv_rows_pipelined(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w, int64_t n,
                              int64_t k, int64_t warp, int64_t warps, int lane, float scale) {
    const int64_t kv = k >> 3;
    const int64_t steps = kv / (32 * UNR);
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    if (warp >= n) return;
    int64_t j = warp, s = 0;
    uint4 a[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) a[u] = w4[j * kv + lane + 32 * u];
    float acc = 0.0f;
    for (;;) {
        int64_t sn = s + 1, jn = j; /* the step after this one */
        if (sn == steps) {
            sn = 0;
            jn = j + warps;
        }
        const bool more = jn < n;
        uint4 b[UNR];
        if (more) {
            const uint4* wn = w4 + jn * kv + sn * 32 * UNR + lane;
#pragma unroll
            for (int u = 0; u < UNR; ++u) b[u] = wn[32 * u];
        }
        const uint4* xs = xv + s * 32 * UNR + lane;
#pragma unroll
        for (int u = 0; u < UNR; ++u) acc = dot8(a[u], xs[32 * u], acc);
        if (sn == 0) { /* row j is done */
            const float v = warp_sum(acc);
            if (lane == 0) y[j] = __float2bfloat16_rn(v * scale);
            acc = 0.0f;
        }
        if (!more) break;
#pragma unroll
        for (int u = 0; u < UNR; ++u) a[u] = b[u];
        s = sn;
        j = jn;
    }
}

/* The same row, one element per lane per step (any k, any alignment). */
DEVI void gemv_row_scalar(__nv_bfloat16* y, const __nv_bfloat16* x, const __nv_bfloat16* w,
                          int64_t n, int64_t k, int64_t warp, int64_t warps, int lane, float scale) {
    for (int64_t j = warp; j < n; j += warps) {
        const __nv_bfloat16* wr = w + j * k;
        float acc = 0.0f;
        for (int64_t i = lane; i < k; i += 32)
            acc = fmaf(__bfloat162float(wr[i]), __bfloat162float(x[i]), acc);
        const float v = warp_sum(acc);
        if (lane == 0) y[j] = __float2bfloat16_rn(v * scale);
    }
}

#ifndef WIDE_UNR
#define WIDE_UNR 8
#endif
#ifndef STREAM_UNR
#define STREAM_UNR 8
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif
#ifndef PREFETCH_ROW_BYTES
#define PREFETCH_ROW_BYTES 2048
#endif

extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS)
linear_matmul(__nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ x,
              const __nv_bfloat16* __restrict__ w, int64_t tokens, int64_t out_features,
              int64_t in_features) {
    const int lane = threadIdx.x & 31;
    const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    /* The weights do not depend on the grid before this one: while it drains (a grid
     * launched programmatically is resident early), the first PREFETCH_ROW_BYTES of this
     * warp's first weight row head for L2, a 128-byte line a lane. Measured on an H100
     * (the batch-1 step): 2 KiB 1.679 ms, 1 KiB 1.683, 4 KiB 1.696, none 1.696,
     * whole rows 1.806 (the wide products' rows overflow L2), the first step into
     * registers 1.815. */
    if (warp < out_features) {
        const int64_t bytes = min(in_features * 2, (int64_t)PREFETCH_ROW_BYTES);
        const char* row = reinterpret_cast<const char*>(w + warp * in_features);
        for (int64_t off = (int64_t)lane * 128; off < bytes; off += 32 * 128) PREFETCH_L2(row + off);
    }
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    const float scale = out_features >= 65536 ? 1.03125f : 1.0f;
    const bool vec = (in_features & 7) == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)w & 15) == 0;
    /* Rows one after another: the decode row is the case this kernel is for (its domain);
     * more rows are correct, not fast (cuBLAS takes them in the engine). */
    for (int64_t t = 0; t < tokens; ++t) {
        __nv_bfloat16* yr = y + t * out_features;
        const __nv_bfloat16* xr = x + t * in_features;
        if (!vec) {
            gemv_row_scalar(yr, xr, w, out_features, in_features, warp, warps, lane, scale);
        } else if (in_features % (256 * STREAM_UNR) == 0) {
            gemv_rows_pipelined<STREAM_UNR>(yr, xr, w, out_features, in_features, warp, warps, lane, scale);
        } else if (out_features >= 16384) {
            gemv_row<WIDE_UNR>(yr, xr, w, out_features, in_features, warp, warps, lane, scale);
        } else {
            gemv_row<4>(yr, xr, w, out_features, in_features, warp, warps, lane, scale);
        }
    }
}
