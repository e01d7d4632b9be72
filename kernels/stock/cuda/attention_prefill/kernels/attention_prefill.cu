/* Stock CUDA kernel for attention.prefill (cacheon-slot-abi-v1), bf16, Hopper (sm_90).
 *
 * Causal attention of a prompt's rows over one sequence's KV cache [kv_len, kv_heads, D]:
 * row t, query head h, at position positions[t] (in [0, kv_len)), attends to cache rows
 * 0..=positions[t] of KV head h / (q_heads / kv_heads):
 *   out[t, h] = sum_j softmax_j(scale * q[t, h] . k_j) v_j   (f32 scores and sums).
 *
 * Grid (ceil(tokens / 64), q_heads), block 128 (4 warps). Block x takes the 64 rows of
 * row tile (gridDim.x - 1 - x): the tiles with the most keys start first.
 *
 * Head dims 64 and 128 with 16-byte aligned tensors (every engine call) take the flash
 * path: each warp owns 16 rows and holds them as tensor-core A fragments; per tile of 64
 * keys the block stages K and V (row-major, 16-byte stores) in shared memory, S = Q K^T and
 * O += P V run as mma.sync m16n8k16 products (bf16 in, f32 accumulate), V's B fragments
 * gathered two bf16 at a time, P reusing S's
 * accumulator registers as A fragments (rounded to bf16), with an online softmax in base
 * 2. Nothing of size tokens x kv_len is ever written. Any other call takes the plain path:
 * one thread per row, an online softmax over the keys in f32 (head_dim up to 256; a larger
 * one gets NaN outputs, so it cannot pass unnoticed). */
#include <cuda_bf16.h>
#include <stdint.h>

#define BR 64   /* query rows per block: 16 per warp */
#define BC 64   /* keys per tile */
#define PAD 8   /* shared-memory row padding (bf16): conflict-free fragment reads */
#define DMAX 128
#define PLAIN_DMAX 256
#define FULL_MASK 0xffffffffu
#define LOG2E 1.4426950408889634f
#define NEG_INF (-__int_as_float(0x7f800000))

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

/* The flash path for head dim D (64 or 128); ks and vs are the block's shared K and V
 * tiles, both [BC][D + PAD] (row-major, as in the cache). */
template <int D>
static __device__ __forceinline__ void flash(bits16* out, const bits16* q, const bits16* kc, const bits16* vc,
                                             const int32_t* positions, float scale, int64_t n,
                                             int64_t kv_len, int64_t q_heads, int64_t kv_heads,
                                             bits16* ks, bits16* vs, int* top) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, t = lane & 3;
    const int64_t h = blockIdx.y;
    const int64_t kvh = h / (q_heads / kv_heads);
    const int64_t q_dim = q_heads * D, kv_dim = kv_heads * D;
    const int64_t tile = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t r0 = tile * BR + warp * 16 + g, r1 = r0 + 8;
    const int p0 = r0 < n ? positions[r0] : -1;
    const int p1 = r1 < n ? positions[r1] : -1;

    /* Keys the block needs: 0 .. its rows' largest position (and < kv_len). */
    int pm = p0 > p1 ? p0 : p1;
    for (int off = 16; off > 0; off >>= 1) {
        const int o = __shfl_xor_sync(FULL_MASK, pm, off);
        pm = o > pm ? o : pm;
    }
    if (lane == 0) top[warp] = pm;
    __syncthreads();
    int64_t kend = -1;
    for (int w = 0; w < BR / 16; ++w) kend = top[w] > kend ? top[w] : kend;
    kend = kend + 1 < kv_len ? kend + 1 : kv_len;

    /* This warp's 16 rows as A fragments (zeros past n). */
    unsigned qa[D / 16][4];
    const bits16* q0 = q + r0 * q_dim + h * D + 2 * t;
    const bits16* q1 = q + r1 * q_dim + h * D + 2 * t;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        qa[kk][0] = r0 < n ? *reinterpret_cast<const unsigned*>(q0 + kk * 16) : 0u;
        qa[kk][1] = r1 < n ? *reinterpret_cast<const unsigned*>(q1 + kk * 16) : 0u;
        qa[kk][2] = r0 < n ? *reinterpret_cast<const unsigned*>(q0 + kk * 16 + 8) : 0u;
        qa[kk][3] = r1 < n ? *reinterpret_cast<const unsigned*>(q1 + kk * 16 + 8) : 0u;
    }

    const float sl2 = scale * LOG2E;
    float o[D / 8][4];
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.0f;
    float m0 = NEG_INF, m1 = NEG_INF, l0 = 0.0f, l1 = 0.0f;

    for (int64_t k0 = 0; k0 < kend; k0 += BC) {
        __syncthreads(); /* the last tile's reads are done */
        for (int i = threadIdx.x; i < BC * (D / 8); i += blockDim.x) {
            const int row = i / (D / 8), c8 = (i % (D / 8)) * 8;
            const int64_t j = k0 + row;
            uint4 kv, vv;
            kv.x = kv.y = kv.z = kv.w = 0u;
            vv = kv;
            if (j < kend) {
                kv = *reinterpret_cast<const uint4*>(kc + j * kv_dim + kvh * D + c8);
                vv = *reinterpret_cast<const uint4*>(vc + j * kv_dim + kvh * D + c8);
            }
            *reinterpret_cast<uint4*>(ks + row * (D + PAD) + c8) = kv;
            *reinterpret_cast<uint4*>(vs + row * (D + PAD) + c8) = vv;
        }
        __syncthreads();

        /* S = Q K^T: 16 rows x 64 keys, 8 column tiles of 8 keys. */
        float s[BC / 8][4];
#pragma unroll
        for (int nt = 0; nt < BC / 8; ++nt) {
            s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.0f;
            const bits16* kr = ks + (nt * 8 + g) * (D + PAD) + 2 * t;
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                const unsigned b[2] = {*reinterpret_cast<const unsigned*>(kr + kk * 16),
                                       *reinterpret_cast<const unsigned*>(kr + kk * 16 + 8)};
                mma_m16n8k16_bf16(s[nt], qa[kk], b);
            }
        }

        /* Causal mask (key j past the row's position) and the tile's row maxima. */
        float mx0 = NEG_INF, mx1 = NEG_INF;
#pragma unroll
        for (int nt = 0; nt < BC / 8; ++nt) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int64_t j = k0 + nt * 8 + 2 * t + (i & 1);
                const int p = i < 2 ? p0 : p1;
                s[nt][i] = (j <= p && j < kend) ? s[nt][i] * sl2 : NEG_INF;
            }
            mx0 = fmaxf(mx0, fmaxf(s[nt][0], s[nt][1]));
            mx1 = fmaxf(mx1, fmaxf(s[nt][2], s[nt][3]));
        }
#pragma unroll
        for (int off = 1; off < 4; off <<= 1) { /* the 4 lanes of a row */
            mx0 = fmaxf(mx0, __shfl_xor_sync(FULL_MASK, mx0, off));
            mx1 = fmaxf(mx1, __shfl_xor_sync(FULL_MASK, mx1, off));
        }
        const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
        /* A row with no key yet keeps m = -inf and its sums 0 (no inf - inf). */
        const float a0 = n0 == NEG_INF ? 1.0f : exp2f(m0 - n0);
        const float a1 = n1 == NEG_INF ? 1.0f : exp2f(m1 - n1);
        const float b0 = n0 == NEG_INF ? 0.0f : n0, b1 = n1 == NEG_INF ? 0.0f : n1;
        m0 = n0;
        m1 = n1;
        float rs0 = 0.0f, rs1 = 0.0f;
#pragma unroll
        for (int nt = 0; nt < BC / 8; ++nt) {
            s[nt][0] = exp2f(s[nt][0] - b0); /* -inf gives 0 */
            s[nt][1] = exp2f(s[nt][1] - b0);
            s[nt][2] = exp2f(s[nt][2] - b1);
            s[nt][3] = exp2f(s[nt][3] - b1);
            rs0 += s[nt][0] + s[nt][1];
            rs1 += s[nt][2] + s[nt][3];
        }
        l0 = l0 * a0 + rs0; /* this lane's part of the row sum (the 4 lanes scale alike) */
        l1 = l1 * a1 + rs1;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) {
            o[dt][0] *= a0;
            o[dt][1] *= a0;
            o[dt][2] *= a1;
            o[dt][3] *= a1;
        }

        /* O += P V: keys 16 kt .. 16 kt + 15 of P are S's column tiles 2 kt and 2 kt + 1. */
#pragma unroll
        for (int kt = 0; kt < BC / 16; ++kt) {
            const unsigned pa[4] = {pack2(s[2 * kt][0], s[2 * kt][1]), pack2(s[2 * kt][2], s[2 * kt][3]),
                                    pack2(s[2 * kt + 1][0], s[2 * kt + 1][1]),
                                    pack2(s[2 * kt + 1][2], s[2 * kt + 1][3])};
#pragma unroll
            for (int dt = 0; dt < D / 8; ++dt) {
                /* B = V[keys][dims]: keys 2t, 2t+1 (and +8) of dim column g, gathered from
                 * the row-major tile (lanes of one t read one row: no bank conflicts). */
                const bits16* vr = vs + (kt * 16 + 2 * t) * (D + PAD) + dt * 8 + g;
                const unsigned b[2] = {(unsigned)vr[0] | ((unsigned)vr[D + PAD] << 16),
                                       (unsigned)vr[8 * (D + PAD)] | ((unsigned)vr[9 * (D + PAD)] << 16)};
                mma_m16n8k16_bf16(o[dt], pa, b);
            }
        }
    }

#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
        l0 += __shfl_xor_sync(FULL_MASK, l0, off);
        l1 += __shfl_xor_sync(FULL_MASK, l1, off);
    }
    const float i0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, i1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
        if (r0 < n)
            *reinterpret_cast<unsigned*>(out + r0 * q_dim + h * D + dt * 8 + 2 * t) =
                pack2(o[dt][0] * i0, o[dt][1] * i0);
        if (r1 < n)
            *reinterpret_cast<unsigned*>(out + r1 * q_dim + h * D + dt * 8 + 2 * t) =
                pack2(o[dt][2] * i1, o[dt][3] * i1);
    }
}

/* The plain path: thread x < 64 of the block takes row (tile * 64 + x) of head blockIdx.y. */
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

extern "C" __global__ void __launch_bounds__(128)
attention_prefill(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ q,
                  const __nv_bfloat16* __restrict__ k_cache, const __nv_bfloat16* __restrict__ v_cache,
                  const int32_t* __restrict__ positions, float scale, int64_t tokens, int64_t q_heads,
                  int64_t kv_heads, int64_t head_dim, int64_t kv_len) {
    /* K tile [BC][DMAX + PAD] then V tile [BC][DMAX + PAD], as 16-byte words. */
    __shared__ uint4 tiles[2 * BC * (DMAX + PAD) / 8];
    __shared__ int top[BR / 16];
    bits16* o = reinterpret_cast<bits16*>(out);
    const bits16* qb = reinterpret_cast<const bits16*>(q);
    const bits16* kb = reinterpret_cast<const bits16*>(k_cache);
    const bits16* vb = reinterpret_cast<const bits16*>(v_cache);
    const bool aligned =
        ((((uintptr_t)out) | ((uintptr_t)q) | ((uintptr_t)k_cache) | ((uintptr_t)v_cache)) % 16) == 0;
    bits16* ks = reinterpret_cast<bits16*>(tiles);
    if (aligned && head_dim == 64)
        flash<64>(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, ks, ks + BC * (64 + PAD), top);
    else if (aligned && head_dim == 128)
        flash<128>(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, ks, ks + BC * (128 + PAD), top);
    else
        plain(o, qb, kb, vb, positions, scale, tokens, kv_len, q_heads, kv_heads, head_dim);
}
