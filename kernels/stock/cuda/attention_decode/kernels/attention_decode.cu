/* Stock CUDA kernel for attention.decode (cacheon-slot-abi-v1), bf16, Hopper (sm_90).
 *
 * One query per sequence b and query head h against the KV cache [batch, max_seq,
 * kv_heads, D]: kv head = h / (q_heads / kv_heads) (grouped-query attention),
 *   p_s = softmax_s(scale * q . k_s) over s < seq_lens[b] (clamped to [0, max_seq]),
 *   out = sum_s p_s v_s;  an empty sequence gives zeros.
 *
 * Split-KV ("flash-decoding") in a single launch. The ABI gives a kernel no scratch
 * memory, so the partial results meet in distributed shared memory: the kernel has a
 * compile-time cluster of NSPLIT = 8 blocks along grid y (grid y must be 8). A cluster
 * owns one (sequence b, KV head) pair (grid x = batch * kv_heads) and the query heads of
 * that KV head's group that grid z gives it (ceil(group / gridDim.z) heads per z index,
 * taken up to GMAX = 4 at a time), so each K/V row is read once for all of them. Block
 * `rank` of the cluster takes the rank-th eighth of the sequence. With few sequences
 * (batch 1) the manifest asks for more z than the group needs, down to one head per
 * block: 4x the blocks, each K/V row then read by 4 blocks at about the same time (the
 * repeats come from L2), which beats leaving half the GPU idle; a one-head pass keeps
 * four positions' K and V loads in flight per lane instead of two.
 *
 * Inside a block, a group of TG lanes (TG = next power of two of D/8, at most 32) covers
 * one cache row with 16-byte loads (8 bf16 per lane); a warp holds 32/TG groups, the
 * block's 8 warps 8*32/TG groups, each walking its own positions two at a time (four in a
 * one-head pass; all those positions' K and V loads in flight together). Scores are reduced with xor shuffles
 * inside the group; each group keeps an online softmax (running max m, sum l and the
 * weighted sum of V, in f32, base-2 exponent with the scale folded into q). Groups are
 * merged within the warp by shuffles, warps through shared memory, and the cluster's
 * blocks through distributed shared memory, where each block finishes 1/8 of the outputs.
 *
 * That is the CUDA-core path. Head dims 64 and 128 with aligned pointers and the dynamic
 * shared memory its stages need take the tensor-core path instead (attend_block_mma,
 * below); the cluster split and the merges are the same.
 *
 * D not a multiple of 8, or unaligned q/k/v pointers, take the same code with 2-byte
 * loads (one element per lane slot). Supported head_dim: up to 256 (every model in
 * sight); a larger one gets NaN outputs, so it cannot pass unnoticed. */
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
#define MEMBER __device__ __forceinline__ static
#define NSPLIT 8
#define NTHREADS 256 /* the manifest's block size */
#define NWARPS (NTHREADS / 32)
#define GMAX 4
#define UNROLL_SMALL 4 /* positions in flight per group in a pass of 1 or 2 heads */
#define STAGES 2 /* 8-position steps in flight per warp on the tensor-core path, through shared memory (H100: 2 beat 3 and 4, run56) */
#define FULL_MASK 0xffffffffu
#define LOG2E 1.4426950408889634f
#define NEG_INF (-__int_as_float(0x7f800000))

DEVI float bf16_lo(uint32_t w) { return __uint_as_float(w << 16); }
DEVI float bf16_hi(uint32_t w) { return __uint_as_float(w & 0xffff0000u); }

/* A lane's slot of a cache row: E consecutive elements, loaded raw, converted later. */
template <int E> struct Slot;

template <> struct Slot<8> {
    typedef uint4 raw;
    MEMBER raw zero() { return make_uint4(0u, 0u, 0u, 0u); }
    MEMBER raw load(const __nv_bfloat16* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
    MEMBER void cvt(const raw v, float f[8]) {
        f[0] = bf16_lo(v.x); f[1] = bf16_hi(v.x);
        f[2] = bf16_lo(v.y); f[3] = bf16_hi(v.y);
        f[4] = bf16_lo(v.z); f[5] = bf16_hi(v.z);
        f[6] = bf16_lo(v.w); f[7] = bf16_hi(v.w);
    }
};

template <> struct Slot<1> {
    typedef unsigned short raw;
    MEMBER raw zero() { return 0; }
    MEMBER raw load(const __nv_bfloat16* p) {
        return __ldg(reinterpret_cast<const unsigned short*>(p));
    }
    MEMBER void cvt(const raw v, float f[1]) { f[0] = __uint_as_float(((uint32_t)v) << 16); }
};

/* Weight of a partial with max m in a merge with overall max M (0 for an empty one). */
DEVI float merge_weight(float m, float M) { return m == NEG_INF ? 0.0f : exp2f(m - M); }

/* Runs this block's share of sequence b (its rank-th eighth of the seq_lens[b]
 * positions) for query heads hq0 .. hq0+gl-1, KV head kvh (gl <= G <= GMAX heads);
 * leaves each warp's partial (per head: D weighted sums, then m, then l) in
 * part[warp * GMAX * (D + 2) ...]. */
template <int E, int NV, int UNROLL, int G>
DEVI void attend_block(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
                       const __nv_bfloat16* __restrict__ v_cache, float scale, int64_t b, int64_t kvh,
                       int64_t hq0, int gl, int64_t q_heads, int64_t kv_heads, int64_t D,
                       int64_t max_seq, const int32_t* __restrict__ seq_lens, float* part) {
    typedef typename Slot<E>::raw raw;
    const int slots = (int)((D + E - 1) / E);
    int tg = 1;
    while (tg < slots && tg < 32) tg <<= 1;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gpw = 32 / tg;           /* groups per warp */
    const int ng = NWARPS * gpw;       /* groups per block */
    const int gid = warp * gpw + lane / tg;
    const int li = lane % tg;

    const float qscale = scale * LOG2E;
    float qf[G][NV][E];
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
        for (int k = 0; k < NV; ++k) {
            const int sidx = li + k * tg;
            if (g < gl && sidx < slots) {
                Slot<E>::cvt(Slot<E>::load(q + ((b * q_heads + hq0 + g) * D + (int64_t)sidx * E)), qf[g][k]);
#pragma unroll
                for (int e = 0; e < E; ++e) qf[g][k][e] *= qscale;
            } else {
#pragma unroll
                for (int e = 0; e < E; ++e) qf[g][k][e] = 0.0f;
            }
        }
    }

    /* This block's positions [s0, s1): the rank-th of NSPLIT equal chunks of the sequence
     * (the cluster size is NSPLIT by __cluster_dims__). Read after the q loads are issued,
     * so that the two round trips overlap (H200: batch-8 decode 1.808 -> 1.800 ms). */
    int64_t len = seq_lens[b];
    len = len < 0 ? 0 : (len > max_seq ? max_seq : len);
    const int64_t chunk = (len + NSPLIT - 1) / NSPLIT;
    const int64_t s0 = min(len, (int64_t)__clusterRelativeBlockRank() * chunk);
    const int64_t s1 = min(len, s0 + chunk);

    float m[G], l[G], acc[G][NV][E];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        m[g] = NEG_INF;
        l[g] = 0.0f;
#pragma unroll
        for (int k = 0; k < NV; ++k)
#pragma unroll
            for (int e = 0; e < E; ++e) acc[g][k][e] = 0.0f;
    }

    const int64_t row_stride = kv_heads * D; /* elements from one position to the next */
    const __nv_bfloat16* kbase = k_cache + (b * max_seq * kv_heads + kvh) * D;
    const __nv_bfloat16* vbase = v_cache + (b * max_seq * kv_heads + kvh) * D;

    /* Warp-uniform loop bound (every lane runs the shuffles); per-group validity inside. */
    for (int64_t base = s0; base + (int64_t)warp * gpw < s1; base += (int64_t)UNROLL * ng) {
        raw kr[UNROLL][NV], vr[UNROLL][NV];
        bool valid[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int64_t p = base + (int64_t)u * ng + gid;
            valid[u] = p < s1;
#pragma unroll
            for (int k = 0; k < NV; ++k) {
                const int sidx = li + k * tg;
                if (valid[u] && sidx < slots) {
                    kr[u][k] = Slot<E>::load(kbase + p * row_stride + (int64_t)sidx * E);
                    vr[u][k] = Slot<E>::load(vbase + p * row_stride + (int64_t)sidx * E);
                } else {
                    kr[u][k] = Slot<E>::zero();
                    vr[u][k] = Slot<E>::zero();
                }
            }
        }
        float sc[UNROLL][G];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int g = 0; g < G; ++g) sc[u][g] = 0.0f;
#pragma unroll
            for (int k = 0; k < NV; ++k) {
                float kf[E];
                Slot<E>::cvt(kr[u][k], kf);
#pragma unroll
                for (int g = 0; g < G; ++g)
#pragma unroll
                    for (int e = 0; e < E; ++e) sc[u][g] = fmaf(qf[g][k][e], kf[e], sc[u][g]);
            }
        }
        for (int off = tg >> 1; off > 0; off >>= 1) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int g = 0; g < G; ++g) sc[u][g] += __shfl_xor_sync(FULL_MASK, sc[u][g], off);
        }
        float vf[UNROLL][NV][E];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int k = 0; k < NV; ++k) Slot<E>::cvt(vr[u][k], vf[u][k]);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            float mx = m[g];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                if (valid[u]) mx = fmaxf(mx, sc[u][g]);
            if (mx == NEG_INF) continue; /* nothing valid seen yet */
            const float alpha = exp2f(m[g] - mx); /* m = -inf gives 0 */
            float p[UNROLL];
            float psum = 0.0f;
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                p[u] = valid[u] ? exp2f(sc[u][g] - mx) : 0.0f;
                psum += p[u];
            }
            l[g] = fmaf(l[g], alpha, psum);
#pragma unroll
            for (int k = 0; k < NV; ++k)
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    float a = acc[g][k][e] * alpha;
#pragma unroll
                    for (int u = 0; u < UNROLL; ++u) a = fmaf(p[u], vf[u][k][e], a);
                    acc[g][k][e] = a;
                }
            m[g] = mx;
        }
    }

    /* Merge the warp's groups (lanes li, li + tg, li + 2tg, ... hold the same slots). */
    for (int off = tg; off < 32; off <<= 1) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const float mo = __shfl_xor_sync(FULL_MASK, m[g], off);
            const float lo = __shfl_xor_sync(FULL_MASK, l[g], off);
            const float M = fmaxf(m[g], mo);
            const float a = merge_weight(m[g], M), c = merge_weight(mo, M);
            l[g] = l[g] * a + lo * c;
#pragma unroll
            for (int k = 0; k < NV; ++k)
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    const float other = __shfl_xor_sync(FULL_MASK, acc[g][k][e], off);
                    acc[g][k][e] = acc[g][k][e] * a + other * c;
                }
            m[g] = M;
        }
    }

    if (lane < tg) {
        float* pw = part + (int64_t)warp * GMAX * (D + 2);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            if (g >= gl) break;
            float* ph = pw + g * (D + 2);
#pragma unroll
            for (int k = 0; k < NV; ++k) {
                const int sidx = li + k * tg;
                if (sidx < slots) {
#pragma unroll
                    for (int e = 0; e < E; ++e) ph[sidx * E + e] = acc[g][k][e];
                }
            }
            if (li == 0) {
                ph[D] = m[g];
                ph[D + 1] = l[g];
            }
        }
    }
}

/* ---- The tensor-core path (head_dim 64 or 128, 16-byte aligned) ----
 *
 * A warp takes STEP = 8 cache positions at a time for all of the pass's query heads at
 * once, with two mma.sync products a step:
 *   scores  S[head][pos] = Q K^T   (m16n8k16; heads are the rows, of which gl are real;
 *                                    the 8 positions the columns; D / 16 products)
 *   output  O^T[dim][head] += V^T P^T  (m16n8k8; 16 dims a product, D / 16 of them; the
 *                                    8 positions are k; heads the columns)
 * The scores' accumulator is laid out as the second product's B fragment (row g, columns
 * 2t and 2t + 1 are the same lane's pair), so the probabilities never leave registers.
 * Both products are sums, so dims may be visited in any order as long as q and k agree:
 * lane (g, t) (g = lane / 4, t = lane % 4) loads K row g's dims [t D/4, (t+1) D/4) with
 * 16-byte loads and feeds them to k-step s as logical dims 16s + 2t + {0, 1, 8, 9}; q the
 * same. For V, lane (g, t) loads rows 2t and 2t + 1's dims [g D/8, (g+1) D/8): word i of
 * a row holds dims g D/8 + 2i (row g of the i-th 16-dim product) and + 1 (row g + 8),
 * which __byte_perm pairs across the two positions. Scores are scaled in f32 (q stays
 * bf16 as given); probabilities are rounded to bf16 for the product, their sum l is kept
 * in f32. A lane holds q (D / 8 words), one step's K (D / 8) and V (D / 16 x 2) words and
 * O^T (D / 4 floats).
 *
 * The cache rows reach the warp through a ring of STAGES shared-memory stages (cp.async,
 * 32 * D bytes a stage, copied by whole rows), filled STAGES - 1 steps ahead: the next
 * step's loads are in flight while this step multiplies, without the registers that
 * holding them would take (two steps in registers spilled at 128 registers a thread). The
 * stages take 64 KiB a block at head_dim 128 (two blocks an SM); the partials reuse them
 * once every warp is done. Three stages (96 KiB) were no faster alone (10.7 against
 * 10.5 us a layer, on two H100s) and made the step slower (22 us a step between the
 * kernels: the SMs' shared-memory carveout then differs from the GEMVs' beside it);
 * docs/performance.md has the numbers. */
#define STEP 8
#ifndef CACHEON_EMU
DEVI void mma_m16n8k16_bf16(float d[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
DEVI void mma_m16n8k8_bf16(float d[4], const unsigned a[2], unsigned b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5}, {%6}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
}
#endif

/* Round-to-nearest-even bf16 pair (lo in the low half). */
DEVI unsigned pack_bf16x2(float lo, float hi) {
    return (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(lo)) |
           ((unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(hi)) << 16);
}

/* cp.async (16 bytes, zeros when !valid; the source must still be a readable address)
 * and its groups. The emulation (tests/emu/emu.h) supplies its own. */
#ifndef CACHEON_EMU
DEVI void cp_async16(void* smem, const void* gmem, bool valid) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0));
}
DEVI void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> DEVI void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
DEVI unsigned dynamic_smem_bytes() {
    unsigned r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}
#else
DEVI unsigned dynamic_smem_bytes() { return emu_dynamic_smem_size(); }
#endif

/* A stage holds one step's 16 cache rows (rows 0-7: K at positions base .. base + 7; rows
 * 8-15: V), D / 8 chunks of 16 bytes a row. Logical chunk c of a row is stored at
 * stage_chunk(row, c): an XOR swizzle within the row, chosen so that the copies (a warp
 * writes whole rows) and both reads (a lane's K quarter-row, its two V eighth-rows) touch
 * eight different 16-byte bank groups in each group of eight lanes: no bank conflicts. */
template <int D>
DEVI int stage_chunk(int row, int c) {
    if (D == 128) return row * 16 + (c ^ ((((c >> 3) ^ (row >> 2)) & 1) | ((row & 1) << 1) | (((row >> 1) & 1) << 2)));
    return row * 8 + (c ^ (row & 7));
}

/* Copies the step at base into a stage: each instruction of the warp copies 32 / (D / 8)
 * whole rows, so every 32-byte sector is fetched once and whole; zeros past s1. */
template <int D>
DEVI void mma_stage(uint4* st, const __nv_bfloat16* krow0, const __nv_bfloat16* vrow0, int64_t row_stride,
                    int64_t base, int64_t s1, int lane) {
    constexpr int CPR = D / 8, RPI = 32 / CPR;
#pragma unroll
    for (int i = 0; i < D / 16; ++i) {
        const int row = i * RPI + lane / CPR, c = lane % CPR;
        const int64_t p = base + (row & 7);
        const __nv_bfloat16* src = (row < 8 ? krow0 : vrow0) + (p < s1 ? p : 0) * row_stride + c * 8;
        cp_async16(st + stage_chunk<D>(row, c), src, p < s1);
    }
}

/* Lane (g, t)'s words of a stage: K row g's dims [t D/4, (t+1) D/4) and V rows 2t and
 * 2t + 1's dims [g D/8, (g+1) D/8), the layout mma_step takes. */
template <int D>
DEVI void mma_unstage(unsigned (&kw)[D / 8], unsigned (&vw)[2][D / 16], const uint4* st, int g, int t) {
#pragma unroll
    for (int j = 0; j < D / 32; ++j) {
        const uint4 v = st[stage_chunk<D>(g, t * (D / 32) + j)];
        kw[4 * j] = v.x; kw[4 * j + 1] = v.y; kw[4 * j + 2] = v.z; kw[4 * j + 3] = v.w;
    }
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int j = 0; j < D / 64; ++j) {
            const uint4 v = st[stage_chunk<D>(8 + 2 * t + r, g * (D / 64) + j)];
            vw[r][4 * j] = v.x; vw[r][4 * j + 1] = v.y; vw[r][4 * j + 2] = v.z; vw[r][4 * j + 3] = v.w;
        }
}

/* One step of 8 positions from base: the scores, the online softmax of head g (m, and l
 * for this lane's two positions) and the output's update. */
template <int D>
DEVI void mma_step(const unsigned (&qw)[D / 8], const unsigned (&kw)[D / 8], const unsigned (&vw)[2][D / 16],
                   float (&o)[D / 16][4], float& m, float& l, int64_t base, int64_t s1, float qscale, int t) {
    float sc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int s = 0; s < D / 16; ++s) {
        const unsigned a[4] = {qw[2 * s], 0u, qw[2 * s + 1], 0u};
        const unsigned bk[2] = {kw[2 * s], kw[2 * s + 1]};
        mma_m16n8k16_bf16(sc, a, bk);
    }
    /* sc[0], sc[1]: head g at positions base + 2t and the next. */
    const int64_t p0 = base + 2 * t;
    const float x0 = p0 < s1 ? sc[0] * qscale : NEG_INF;
    const float x1 = p0 + 1 < s1 ? sc[1] * qscale : NEG_INF;
    float mx = fmaxf(x0, x1);
    mx = fmaxf(mx, __shfl_xor_sync(FULL_MASK, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(FULL_MASK, mx, 2));
    const float mn = fmaxf(m, mx);
    const float alpha = merge_weight(m, mn); /* 0 while nothing was seen */
    const float e0 = x0 == NEG_INF ? 0.0f : exp2f(x0 - mn);
    const float e1 = x1 == NEG_INF ? 0.0f : exp2f(x1 - mn);
    l = fmaf(l, alpha, e0 + e1);
    m = mn;
    /* The output's columns are heads 2t and 2t + 1: their rescale factors. */
    const float a0 = __shfl_sync(FULL_MASK, alpha, 8 * t);
    const float a1 = __shfl_sync(FULL_MASK, alpha, 8 * t + 4);
    const unsigned pb = pack_bf16x2(e0, e1);
#pragma unroll
    for (int i = 0; i < D / 16; ++i) {
        o[i][0] *= a0; o[i][1] *= a1; o[i][2] *= a0; o[i][3] *= a1;
        const unsigned av[2] = {__byte_perm(vw[0][i], vw[1][i], 0x5410), __byte_perm(vw[0][i], vw[1][i], 0x7632)};
        mma_m16n8k8_bf16(o[i], av, pb);
    }
}

template <int D>
DEVI void attend_block_mma(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
                           const __nv_bfloat16* __restrict__ v_cache, float scale, int64_t b, int64_t kvh,
                           int64_t hq0, int gl, int64_t q_heads, int64_t kv_heads, int64_t max_seq,
                           const int32_t* __restrict__ seq_lens, float* part) {
    constexpr int KW = D / 8;  /* 32-bit words of a lane's K quarter-row (and of q) */
    constexpr int VW = D / 16; /* words of a lane's V eighth-row */
    constexpr int NT = D / 16; /* k-steps of the score product = dim tiles of the output */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;

    unsigned qw[KW];
    if (g < gl) {
        const uint4* qp = reinterpret_cast<const uint4*>(q + (b * q_heads + hq0 + g) * D + t * (D / 4));
#pragma unroll
        for (int j = 0; j < KW / 4; ++j) {
            const uint4 v = __ldg(qp + j);
            qw[4 * j] = v.x; qw[4 * j + 1] = v.y; qw[4 * j + 2] = v.z; qw[4 * j + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < KW; ++j) qw[j] = 0u;
    }

    int64_t len = seq_lens[b];
    len = len < 0 ? 0 : (len > max_seq ? max_seq : len);
    const int64_t chunk = (len + NSPLIT - 1) / NSPLIT;
    const int64_t s0 = min(len, (int64_t)__clusterRelativeBlockRank() * chunk);
    const int64_t s1 = min(len, s0 + chunk);

    const float qscale = scale * LOG2E;
    float m = NEG_INF, l = 0.0f; /* head g's running max (quad-uniform) and this lane's sum */
    float o[NT][4];
#pragma unroll
    for (int i = 0; i < NT; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;

    const int64_t row_stride = kv_heads * D;
    const __nv_bfloat16* krow0 = k_cache + (b * max_seq * kv_heads + kvh) * D;
    const __nv_bfloat16* vrow0 = v_cache + (b * max_seq * kv_heads + kvh) * D;

    /* The warp's steps are first, first + WSTRIDE, ...; step n goes through stage n % STAGES
     * of the warp's ring, issued STAGES - 1 steps ahead (every iteration commits one group,
     * empty past s1, so wait_group counts steps). Lanes read what other lanes copied, so a
     * __syncwarp follows each wait (and precedes each refill: the stage refilled is the one
     * the warp read in the step before). */
    constexpr int64_t WSTRIDE = (int64_t)NWARPS * STEP;
    uint4* ring = reinterpret_cast<uint4*>(part) + (int64_t)warp * STAGES * 2 * D; /* 2D chunks a stage */
    const int64_t first = s0 + (int64_t)warp * STEP;
#pragma unroll
    for (int i = 0; i < STAGES - 1; ++i) {
        if (first + i * WSTRIDE < s1)
            mma_stage<D>(ring + i * 2 * D, krow0, vrow0, row_stride, first + i * WSTRIDE, s1, lane);
        cp_async_commit();
    }
    int stage = 0;
    for (int64_t base = first; base < s1; base += WSTRIDE) {
        const int ahead = stage == 0 ? STAGES - 1 : stage - 1;
        __syncwarp(); /* every lane is done reading stage `ahead` (the step before's) */
        if (base + (STAGES - 1) * WSTRIDE < s1)
            mma_stage<D>(ring + ahead * 2 * D, krow0, vrow0, row_stride, base + (STAGES - 1) * WSTRIDE, s1, lane);
        cp_async_commit();
        cp_async_wait<STAGES - 1>();
        __syncwarp();
        unsigned kw[KW], vw[2][VW];
        mma_unstage<D>(kw, vw, ring + stage * 2 * D, g, t);
        mma_step<D>(qw, kw, vw, o, m, l, base, s1, qscale, t);
        stage = stage == STAGES - 1 ? 0 : stage + 1;
    }
    /* The partials below reuse the stages: every copy landed, every warp done reading. */
    cp_async_wait<0>();
    __syncthreads();

    l += __shfl_xor_sync(FULL_MASK, l, 1);
    l += __shfl_xor_sync(FULL_MASK, l, 2);

    float* pw = part + (int64_t)warp * GMAX * (D + 2);
#pragma unroll
    for (int c = 0; c < 2; ++c) {
        const int h = 2 * t + c;
        if (h < gl) {
            float* ph = pw + h * (D + 2);
#pragma unroll
            for (int i = 0; i < NT; ++i) {
                ph[g * (D / 8) + 2 * i] = o[i][c];
                ph[g * (D / 8) + 2 * i + 1] = o[i][2 + c];
            }
        }
    }
    if (t == 0 && g < gl) {
        pw[g * (D + 2) + D] = m;
        pw[g * (D + 2) + D + 1] = l;
    }
}

extern "C" __global__ void __cluster_dims__(1, NSPLIT, 1) __launch_bounds__(NTHREADS, 512 / NTHREADS)
attention_decode(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ q,
                 const __nv_bfloat16* __restrict__ k_cache, const __nv_bfloat16* __restrict__ v_cache,
                 const int32_t* __restrict__ seq_lens, float scale, int64_t batch, int64_t q_heads,
                 int64_t kv_heads, int64_t head_dim, int64_t max_seq) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    extern __shared__ float smem[]; /* [NWARPS + 1][GMAX][head_dim + 2]; the tensor-core path's stages first */
    const int64_t D = head_dim;
    const int64_t group = q_heads / kv_heads;
    const int64_t b = blockIdx.x / kv_heads;
    const int64_t kvh = blockIdx.x % kv_heads;
    /* Grid z splits the GQA group: each z index takes hpb consecutive query heads (any
     * grid z is correct; the manifest picks more z when batch * kv_heads alone would leave
     * most of the GPU idle, trading repeated K/V reads, served by L2, for parallelism). */
    const int64_t hpb = (group + gridDim.z - 1) / gridDim.z;
    const int64_t g0 = (int64_t)blockIdx.z * hpb;
    /* Everything that ends a block early is the same for the whole cluster (cluster
     * dims are (1, NSPLIT, 1)), so whole clusters leave together. */
    if (b >= batch || g0 >= group) return;
    const int64_t gend = min(group, g0 + hpb);
    const unsigned rank = __clusterRelativeBlockRank();
    const unsigned nblk = __clusterSizeInBlocks();

    const bool vec = (D % 8 == 0) &&
                     ((((uintptr_t)q) | ((uintptr_t)k_cache) | ((uintptr_t)v_cache)) % 16 == 0);
    if (D > 256) {
        for (int64_t i = rank * NTHREADS + threadIdx.x; i < (gend - g0) * D; i += (int64_t)nblk * NTHREADS)
            out[(b * q_heads + kvh * group + g0 + i / D) * D + i % D] =
                __float2bfloat16_rn(__int_as_float(0x7fc00000));
        return;
    }

    /* The tensor-core path streams through STAGES shared-memory stages a warp (32 * D
     * bytes each); with less dynamic shared memory than that the CUDA-core path runs. */
    const bool staged = vec && (D == 64 || D == 128) &&
                        dynamic_smem_bytes() >= (unsigned)(STAGES * NWARPS * 32 * D);
    const int64_t hs = D + 2; /* floats per head in a partial */
    float* blk = smem + (int64_t)NWARPS * GMAX * hs;

    /* Up to GMAX query heads per pass (one pass unless the grid gives a block more). */
    for (int64_t gc = g0; gc < gend; gc += GMAX) {
        const int gl = (int)min((int64_t)GMAX, gend - gc);
        const int64_t hq0 = kvh * group + gc;
        if (staged && D == 128)
            attend_block_mma<128>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, max_seq, seq_lens, smem);
        else if (staged && D == 64)
            attend_block_mma<64>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, max_seq, seq_lens, smem);
        else if (vec && gl == 1)
            attend_block<8, 1, UNROLL_SMALL, 1>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, D, max_seq, seq_lens, smem);
        else if (vec && gl == 2)
            attend_block<8, 1, UNROLL_SMALL, 2>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, D, max_seq, seq_lens, smem);
        else if (vec)
            attend_block<8, 1, 2, GMAX>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, D, max_seq, seq_lens, smem);
        else
            attend_block<1, 8, 1, GMAX>(q, k_cache, v_cache, scale, b, kvh, hq0, gl, q_heads, kv_heads, D, max_seq, seq_lens, smem);
        __syncthreads();

        /* Merge the warps into the block's partial. */
        for (int64_t i = threadIdx.x; i < gl * D; i += NTHREADS) {
            const int64_t g = i / D, d = i % D;
            float M = NEG_INF;
#pragma unroll
            for (int w = 0; w < NWARPS; ++w) M = fmaxf(M, smem[(w * GMAX + g) * hs + D]);
            float o = 0.0f;
#pragma unroll
            for (int w = 0; w < NWARPS; ++w) {
                const float* pw = smem + (w * GMAX + g) * hs;
                o = fmaf(merge_weight(pw[D], M), pw[d], o);
            }
            blk[g * hs + d] = o;
        }
        for (int64_t g = threadIdx.x; g < gl; g += NTHREADS) {
            float M = NEG_INF;
#pragma unroll
            for (int w = 0; w < NWARPS; ++w) M = fmaxf(M, smem[(w * GMAX + g) * hs + D]);
            float l = 0.0f;
#pragma unroll
            for (int w = 0; w < NWARPS; ++w) {
                const float* pw = smem + (w * GMAX + g) * hs;
                l = fmaf(merge_weight(pw[D], M), pw[D + 1], l);
            }
            blk[g * hs + D] = M;
            blk[g * hs + D + 1] = l;
        }

        /* Every block's partial is written (release) and visible (acquire) cluster-wide. */
        __cluster_barrier_arrive();
        __cluster_barrier_wait();

        /* Block `rank` finishes a contiguous 1/NSPLIT of the cluster's outputs; a thread
         * issues all its remote reads at once (cluster size is NSPLIT by __cluster_dims__). */
        {
            const int64_t per = (gl * D + NSPLIT - 1) / NSPLIT;
            const int64_t iend = min((int64_t)gl * D, (int64_t)(rank + 1) * per);
            for (int64_t i = (int64_t)rank * per + threadIdx.x; i < iend; i += NTHREADS) {
                const int64_t g = i / D, d = i % D;
                float mr[NSPLIT], lr[NSPLIT], orr[NSPLIT];
#pragma unroll
                for (int r = 0; r < NSPLIT; ++r) {
                    const float* pr = static_cast<const float*>(__cluster_map_shared_rank((void*)blk, r));
                    mr[r] = pr[g * hs + D];
                    lr[r] = pr[g * hs + D + 1];
                    orr[r] = pr[g * hs + d];
                }
                float M = NEG_INF;
#pragma unroll
                for (int r = 0; r < NSPLIT; ++r) M = fmaxf(M, mr[r]);
                float o = 0.0f, l = 0.0f;
#pragma unroll
                for (int r = 0; r < NSPLIT; ++r) {
                    const float wgt = merge_weight(mr[r], M);
                    o = fmaf(wgt, orr[r], o);
                    l = fmaf(wgt, lr[r], l);
                }
                out[(b * q_heads + hq0 + g) * D + d] = __float2bfloat16_rn(l > 0.0f ? o / l : 0.0f);
            }
        }

        /* No block leaves (freeing its shared memory) or starts the next pass (rewriting
         * it) while another may still read it. */
        __cluster_barrier_arrive();
        __cluster_barrier_wait();
    }
}
