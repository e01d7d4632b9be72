/* Stock CUDA kernel for attention.prefill (cacheon-slot-abi-v1), bf16, Hopper (sm_90).
 *
 * Causal attention of a prompt's rows over one sequence's KV cache [kv_len, kv_heads, D]:
 * row t, query head h, at position positions[t] (in [0, kv_len)), attends to cache rows
 * 0..=positions[t] of KV head h / (q_heads / kv_heads):
 *   out[t, h] = sum_j softmax_j(scale * q[t, h] . k_j) v_j   (f32 scores and sums).
 *
 * Grid (ceil(tokens / 128), q_heads), block 128 (4 warps). Block x takes the 128 rows of
 * row tile (gridDim.x - 1 - x): the tiles with the most keys start first.
 *
 * Head dims 64 and 128 with 16-byte aligned tensors (every engine call) take the flash
 * path: each warp owns 32 rows (two m16 tiles, read from the block's Q tile in shared memory
 * as tensor-core A fragments, so that each K and V fragment serves 32 rows); the block streams
 * its KV head's cache in tiles of 64 keys through two shared-memory stages (cp.async: the
 * next tile is in flight while this one is multiplied), S = Q K^T and O += P V run as
 * mma.sync m16n8k16 products (bf16 in, f32 accumulate) with K's and V's B fragments read
 * by ldmatrix (V's transposed), P reusing S's accumulator registers as A fragments (rounded
 * to bf16), and an online softmax in base 2. Only tiles holding a key past some row's
 * position pay for the causal mask. Nothing of size tokens x kv_len is ever written. Any
 * other call takes the plain path: one thread per row, an online softmax over the keys in
 * f32 (head_dim up to 256; a larger one gets NaN outputs, so it cannot pass unnoticed). */
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

#define NTHREADS 128 /* 4 warps */
#define NWARPS (NTHREADS / 32)
#define MT 2    /* m16 tiles per warp */
#define BR 128  /* query rows per block: 32 per warp */
#define BC 64   /* keys per tile */
#define PAD 8   /* shared-memory row padding (bf16): conflict-free fragment reads */
#define DMAX 128
#define PLAIN_DMAX 256
#define FULL_MASK 0xffffffffu
#define LOG2E 1.4426950408889634f
#define NEG_INF (-__int_as_float(0x7f800000))
#define NO_ROW 0x7fffffff /* a position no row has */

typedef unsigned short bits16;

static __device__ __forceinline__ float b2f(bits16 b) { return __uint_as_float(((unsigned)b) << 16); }

/* f32 -> bf16 bits, round to nearest even (NaN stays a quiet NaN). */
static __device__ __forceinline__ bits16 f2b(float f) {
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (bits16)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bits16)(u >> 16);
}

static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    return (unsigned)f2b(lo) | ((unsigned)f2b(hi) << 16);
}

/* D += A B for one warp: A 16x16 row-major, B 16x8 column-major, bf16, f32 accumulate.
 * Fragments (g = lane / 4, t = lane % 4): a[0] = row g, cols 2t..2t+1; a[1] = row g+8;
 * a[2] = row g, cols 2t+8..2t+9; a[3] = row g+8, cols 2t+8..2t+9; b[0] = rows 2t..2t+1 of
 * col g, b[1] = rows 2t+8..2t+9; d[0..1] = row g, cols 2t..2t+1, d[2..3] = row g+8. The
 * lower half of a register is the lower index. (The CPU emulation has its own.) */
#ifndef CACHEON_EMU
static __device__ __forceinline__ void mma_m16n8k16_bf16(float d[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

/* cp.async (16 bytes, zeros when !valid), ldmatrix x4 (plain and transposed). Fragments of
 * ldmatrix: lane L gives the address of row L % 8 of matrix L / 8; register i receives row
 * L / 4, elements 2 (L % 4) and the next of matrix i (.trans: of its transpose). */
#ifndef CACHEON_EMU
static __device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0));
}
static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
static __device__ __forceinline__ void ldsm_x4(unsigned r[4], const void* p) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
static __device__ __forceinline__ void ldsm_x4_trans(unsigned r[4], const void* p) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
/* Two f32 to packed bf16 (round to nearest even) in one instruction. */
static __device__ __forceinline__ unsigned pack2_rn(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
#else
static inline unsigned pack2_rn(float lo, float hi) { return pack2(lo, hi); }
#endif

/* The flash path for head dim D (64 or 128). Warp w owns rows w * 32 .. w * 32 + 31 of the
 * block's tile as two m16 tiles (MT): each K or V fragment read from shared memory feeds
 * both. The block's shared memory holds its Q tile [BR][D + PAD] (read back as A
 * fragments, which would not fit in registers beside two tiles' accumulators) and two
 * stages, each a K tile and a V tile [BC][D + PAD] (row-major, as in the cache): tile
 * i + 1 is fetched with cp.async while tile i is multiplied. */
template <int D>
static __device__ __forceinline__ void flash(bits16* out, const bits16* q, const bits16* kc, const bits16* vc,
                                             const int32_t* positions, float scale, int64_t n,
                                             int64_t kv_len, int64_t q_heads, int64_t kv_heads,
                                             bits16* smem, int* top, int* bot) {
    constexpr int S = D + PAD;            /* shared row stride, bf16 */
    constexpr int TILE = BC * S;          /* one K or V tile, bf16 */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, t = lane & 3;
    const int64_t h = blockIdx.y;
    const int64_t kvh = h / (q_heads / kv_heads);
    const int64_t q_dim = q_heads * D, kv_dim = kv_heads * D;
    const int64_t tile = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t row0 = tile * BR;
    /* This lane's rows: r[m][0] = g and r[m][1] = g + 8 of m tile m. */
    int64_t r[MT][2];
    int p[MT][2];
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            r[m][u] = row0 + warp * (16 * MT) + m * 16 + u * 8 + g;
            p[m][u] = r[m][u] < n ? positions[r[m][u]] : -1;
        }

    /* Keys the block needs: 0 .. its rows' largest position (and < kv_len); keys up to its
     * valid rows' smallest position need no mask. */
    int pm = -1, pn = NO_ROW;
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            pm = p[m][u] > pm ? p[m][u] : pm;
            if (r[m][u] < n && p[m][u] < pn) pn = p[m][u];
        }
    for (int off = 16; off > 0; off >>= 1) {
        const int o = __shfl_xor_sync(FULL_MASK, pm, off);
        const int u = __shfl_xor_sync(FULL_MASK, pn, off);
        pm = o > pm ? o : pm;
        pn = u < pn ? u : pn;
    }
    if (lane == 0) {
        top[warp] = pm;
        bot[warp] = pn;
    }
    __syncthreads();
    int64_t kend = -1, kfree = NO_ROW;
    for (int w = 0; w < NWARPS; ++w) {
        kend = top[w] > kend ? top[w] : kend;
        kfree = bot[w] < kfree ? bot[w] : kfree;
    }
    kend = kend + 1 < kv_len ? kend + 1 : kv_len;
    const int ntiles = (int)((kend + BC - 1) / BC);

    /* The Q tile (zeros past n) joins tile 0's copy group; tile i's K and V rows go into
     * stage i % 2, zeros past kend. Thread x copies the 16-byte chunk x % (D / 8) of rows
     * x / (D / 8) + RSTEP k. */
    constexpr int CPR = D / 8, RSTEP = NTHREADS / CPR;
    const int frow = threadIdx.x / CPR, fc8 = (threadIdx.x % CPR) * 8;
    bits16* qs = smem;
    bits16* stages = smem + BR * S;
    {
        const bits16* qg = q + h * D + fc8;
#pragma unroll 4
        for (int k = 0; k < BR / RSTEP; ++k) {
            const int64_t rr = row0 + frow + k * RSTEP;
            const bool ok = rr < n;
            cp_async16(qs + (frow + k * RSTEP) * S + fc8, qg + (ok ? rr : 0) * q_dim, ok);
        }
    }
    const bits16* kg = kc + kvh * D + fc8;
    const bits16* vg = vc + kvh * D + fc8;
    auto fetch = [&](int i) {
        bits16* ks = stages + (i & 1) * 2 * TILE + frow * S + fc8;
        const int64_t j0 = (int64_t)i * BC + frow;
#pragma unroll
        for (int k = 0; k < BC / RSTEP; ++k) {
            const int64_t j = j0 + k * RSTEP;
            const bool ok = j < kend;
            const int64_t off = (ok ? j : 0) * kv_dim;
            cp_async16(ks + k * RSTEP * S, kg + off, ok);
            cp_async16(ks + TILE + k * RSTEP * S, vg + off, ok);
        }
        cp_async_commit();
    };
    if (ntiles > 0) fetch(0);
    else cp_async_commit();

    const float sl2 = scale * LOG2E;
    float o[MT][D / 8][4];
    float mx[MT][2], l[MT][2];
#pragma unroll
    for (int m = 0; m < MT; ++m) {
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) o[m][dt][0] = o[m][dt][1] = o[m][dt][2] = o[m][dt][3] = 0.0f;
        mx[m][0] = mx[m][1] = NEG_INF;
        l[m][0] = l[m][1] = 0.0f;
    }
    /* ldmatrix addresses within a tile: lane L reads row L % 8 of matrix L / 8. Q (A of
     * S = Q K^T): rows 8 ((L / 8) & 1) + L % 8 of an m tile, dims 8 (L / 16) of a 16-dim
     * k step. K (B of S = Q K^T): keys nt 8 + L % 8, dims 8 (L / 8) of a 32-dim pair of k
     * steps. V (B of O += P V, transposed): keys 8 ((L / 8) & 1) + L % 8 of a 16-key step,
     * dims 8 (L / 16) of a pair of 8-dim column tiles. */
    const int q_lane = (warp * (16 * MT) + ((lane >> 3) & 1) * 8 + (lane & 7)) * S + (lane >> 4) * 8;
    const int k_lane = (lane & 7) * S + (lane >> 3) * 8;
    const int v_lane = (((lane >> 3) & 1) * 8 + (lane & 7)) * S + (lane >> 4) * 8;

    for (int i = 0; i < ntiles; ++i) {
        if (i + 1 < ntiles) {
            fetch(i + 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads(); /* tile i (and the Q tile) is in for every thread */
        const bits16* ks = stages + (i & 1) * 2 * TILE;
        const bits16* vs = ks + TILE;
        const int64_t k0 = (int64_t)i * BC;

        /* S = Q K^T: per m tile 16 rows x 64 keys, 8 column tiles of 8 keys; a 32-dim pair
         * of k steps at a time, its Q fragments read once for all column tiles. */
        float s[MT][BC / 8][4];
#pragma unroll
        for (int m = 0; m < MT; ++m)
#pragma unroll
            for (int nt = 0; nt < BC / 8; ++nt) s[m][nt][0] = s[m][nt][1] = s[m][nt][2] = s[m][nt][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk += 2) {
            unsigned qa[MT][2][4];
#pragma unroll
            for (int m = 0; m < MT; ++m) {
                ldsm_x4(qa[m][0], qs + m * 16 * S + kk * 16 + q_lane);
                ldsm_x4(qa[m][1], qs + m * 16 * S + kk * 16 + 16 + q_lane);
            }
#pragma unroll
            for (int nt = 0; nt < BC / 8; ++nt) {
                unsigned b[4];
                ldsm_x4(b, ks + nt * 8 * S + kk * 16 + k_lane);
#pragma unroll
                for (int m = 0; m < MT; ++m) {
                    mma_m16n8k16_bf16(s[m][nt], qa[m][0], b);
                    mma_m16n8k16_bf16(s[m][nt], qa[m][1], b + 2);
                }
            }
        }

        /* Scale to base 2; the causal mask (key j past the row's position) only where some
         * key of the tile is past a valid row's position or past kend. Then the online
         * softmax, row by row (the 4 lanes of a row hold its 64 scores). */
        const bool masked = k0 + BC > kend || k0 + BC - 1 > kfree;
#pragma unroll
        for (int m = 0; m < MT; ++m) {
#pragma unroll
            for (int nt = 0; nt < BC / 8; ++nt) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    s[m][nt][e] *= sl2;
                    if (masked) {
                        const int j = (int)k0 + nt * 8 + 2 * t + (e & 1);
                        if (j > p[m][e >> 1] || j >= kend) s[m][nt][e] = NEG_INF;
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < 2; ++u) {
                float tm = NEG_INF;
#pragma unroll
                for (int nt = 0; nt < BC / 8; ++nt) tm = fmaxf(tm, fmaxf(s[m][nt][2 * u], s[m][nt][2 * u + 1]));
#pragma unroll
                for (int off = 1; off < 4; off <<= 1) tm = fmaxf(tm, __shfl_xor_sync(FULL_MASK, tm, off));
                const float nm = fmaxf(mx[m][u], tm);
                /* A row with no key yet keeps m = -inf and its sums 0 (no inf - inf). */
                const float a = nm == NEG_INF ? 1.0f : exp2f(mx[m][u] - nm);
                const float b = nm == NEG_INF ? 0.0f : nm;
                mx[m][u] = nm;
                float sum = 0.0f;
#pragma unroll
                for (int nt = 0; nt < BC / 8; ++nt) {
                    s[m][nt][2 * u] = exp2f(s[m][nt][2 * u] - b); /* -inf gives 0 */
                    s[m][nt][2 * u + 1] = exp2f(s[m][nt][2 * u + 1] - b);
                    sum += s[m][nt][2 * u] + s[m][nt][2 * u + 1];
                }
                l[m][u] = l[m][u] * a + sum; /* this lane's part of the row sum (the 4 lanes scale alike) */
#pragma unroll
                for (int dt = 0; dt < D / 8; ++dt) {
                    o[m][dt][2 * u] *= a;
                    o[m][dt][2 * u + 1] *= a;
                }
            }
        }

        /* O += P V: keys 16 kt .. 16 kt + 15 of P are S's column tiles 2 kt and 2 kt + 1;
         * each V fragment serves both m tiles. */
#pragma unroll
        for (int kt = 0; kt < BC / 16; ++kt) {
            unsigned pa[MT][4];
#pragma unroll
            for (int m = 0; m < MT; ++m) {
                pa[m][0] = pack2_rn(s[m][2 * kt][0], s[m][2 * kt][1]);
                pa[m][1] = pack2_rn(s[m][2 * kt][2], s[m][2 * kt][3]);
                pa[m][2] = pack2_rn(s[m][2 * kt + 1][0], s[m][2 * kt + 1][1]);
                pa[m][3] = pack2_rn(s[m][2 * kt + 1][2], s[m][2 * kt + 1][3]);
            }
#pragma unroll
            for (int dt = 0; dt < D / 8; dt += 2) {
                unsigned b[4];
                ldsm_x4_trans(b, vs + kt * 16 * S + dt * 8 + v_lane);
#pragma unroll
                for (int m = 0; m < MT; ++m) {
                    mma_m16n8k16_bf16(o[m][dt], pa[m], b);
                    mma_m16n8k16_bf16(o[m][dt + 1], pa[m], b + 2);
                }
            }
        }
        __syncthreads(); /* every warp is done with stage i % 2 before tile i + 2 lands there */
    }
    cp_async_wait<0>(); /* no copy still in flight when the block ends (no tiles: the Q tile's) */

#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            float sum = l[m][u];
#pragma unroll
            for (int off = 1; off < 4; off <<= 1) sum += __shfl_xor_sync(FULL_MASK, sum, off);
            const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
            if (r[m][u] < n) {
                bits16* orow = out + r[m][u] * q_dim + h * D + 2 * t;
#pragma unroll
                for (int dt = 0; dt < D / 8; ++dt)
                    *reinterpret_cast<unsigned*>(orow + dt * 8) =
                        pack2(o[m][dt][2 * u] * inv, o[m][dt][2 * u + 1] * inv);
            }
        }
}

/* The plain path: thread x < BR of the block takes row (tile * BR + x) of head blockIdx.y. */
static __device__ void plain(bits16* out, const bits16* q, const bits16* kc, const bits16* vc,
                             const int32_t* positions, float scale, int64_t n, int64_t kv_len,
                             int64_t q_heads, int64_t kv_heads, int64_t D) {
    const int64_t tile = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t r = tile * BR + threadIdx.x;
    if (threadIdx.x >= BR || r >= n) return;
    const int64_t h = blockIdx.y, kvh = h / (q_heads / kv_heads);
    bits16* o = out + (r * q_heads + h) * D;
    if (D > PLAIN_DMAX) {
        for (int64_t e = 0; e < D; ++e) o[e] = 0x7fc0; /* NaN */
        return;
    }
    const bits16* qr = q + (r * q_heads + h) * D;
    int64_t len = (int64_t)positions[r] + 1;
    len = len < 0 ? 0 : (len > kv_len ? kv_len : len);
    float acc[PLAIN_DMAX];
    for (int64_t e = 0; e < D; ++e) acc[e] = 0.0f;
    float m = NEG_INF, l = 0.0f;
    for (int64_t j = 0; j < len; ++j) {
        const bits16* kr = kc + (j * kv_heads + kvh) * D;
        float dot = 0.0f;
        for (int64_t e = 0; e < D; ++e) dot = fmaf(b2f(qr[e]), b2f(kr[e]), dot);
        const float sc = dot * scale;
        const float mn = fmaxf(m, sc);
        const float a = expf(m - mn), p = expf(sc - mn); /* m = -inf gives a = 0 */
        const bits16* vr = vc + (j * kv_heads + kvh) * D;
        for (int64_t e = 0; e < D; ++e) acc[e] = fmaf(p, b2f(vr[e]), acc[e] * a);
        l = l * a + p;
        m = mn;
    }
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (int64_t e = 0; e < D; ++e) o[e] = f2b(acc[e] * inv);
}

extern "C" __global__ void __launch_bounds__(NTHREADS, 2)
attention_prefill(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ q,
                  const __nv_bfloat16* __restrict__ k_cache, const __nv_bfloat16* __restrict__ v_cache,
                  const int32_t* __restrict__ positions, float scale, int64_t tokens, int64_t q_heads,
                  int64_t kv_heads, int64_t head_dim, int64_t kv_len) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    /* The Q tile [BR][D + PAD] and two stages of a K tile and a V tile [BC][D + PAD] each
     * (the manifest asks for the bytes of D = DMAX: (128 + 4 * 64) * 136 * 2), as 16-byte
     * words. */
    extern __shared__ uint4 tiles[];
    __shared__ int top[NWARPS];
    __shared__ int bot[NWARPS];
    bits16* o = reinterpret_cast<bits16*>(out);
    const bits16* qb = reinterpret_cast<const bits16*>(q);
    const bits16* kb = reinterpret_cast<const bits16*>(k_cache);
    const bits16* vb = reinterpret_cast<const bits16*>(v_cache);
    const bool aligned =
        ((((uintptr_t)out) | ((uintptr_t)q) | ((uintptr_t)k_cache) | ((uintptr_t)v_cache)) % 16) == 0;
    bits16* smem = reinterpret_cast<bits16*>(tiles);
    if (aligned && blockDim.x == NTHREADS && head_dim == 64)
        flash<64>(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, smem, top, bot);
    else if (aligned && blockDim.x == NTHREADS && head_dim == 128)
        flash<128>(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, smem, top, bot);
    else
        plain(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, head_dim);
}
