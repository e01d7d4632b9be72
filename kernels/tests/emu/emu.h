/* A CPU emulation of the small part of CUDA the stock kernels use, for checking their
 * logic on machines without a GPU (tests/cuda_emulated.rs). Not a simulator: every CUDA
 * thread is an OS thread, so barriers, warp shuffles and cluster barriers have their real
 * blocking semantics, but there is no warp lockstep, no memory model beyond what the
 * barriers give, and no timing. Shared memory starts filled with NaN bytes so that a read
 * of something never written shows up.
 *
 * Kernel sources are rewritten before compiling (see the test): `__shared__ T a[N];`
 * becomes a per-block buffer from emu_static_smem, and `extern __shared__ T a[];` the
 * block's dynamic shared memory from emu_dynamic_smem. */
#pragma once
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __cluster_dims__(...)

using std::max;
using std::min;

struct dim3 {
    unsigned x, y, z;
};
struct uint4 {
    unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }

struct __nv_bfloat16 {
    unsigned short x;
};
static inline float __uint_as_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t __float_as_uint(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline float __bfloat162float(__nv_bfloat16 h) { return __uint_as_float((uint32_t)h.x << 16); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) {
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return __nv_bfloat16{(unsigned short)((u >> 16) | 0x40u)};
    u += 0x7fffu + ((u >> 16) & 1u);
    return __nv_bfloat16{(unsigned short)(u >> 16)};
}
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.x; }
template <class T> static inline T __ldg(const T* p) { return *p; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* glibc declares (but does not export) a __expf of its own: map the CUDA one by name. */
#define __expf(x) expf(x)

/* ---- threads, blocks, warps, clusters ---- */
struct EmuWarp {
    pthread_barrier_t bar;
    uint32_t slot[32];
    uint32_t mma_a[32][4], mma_b[32][2];
    const unsigned short* addr[32];
};
struct EmuBlock {
    pthread_barrier_t bar;
    std::vector<EmuWarp> warps;
    std::vector<unsigned char> dyn;
    std::map<int, std::vector<unsigned char>> stat;
    std::mutex stat_mu;
    std::map<unsigned, pthread_barrier_t> named; /* bar.sync id, count (id > 0) */
    std::mutex named_mu;
};
struct EmuCluster {
    pthread_barrier_t bar;
    std::vector<EmuBlock*> blocks;
};
struct EmuThread {
    dim3 tid, bid, bdim, gdim;
    unsigned rank;
    EmuBlock* blk;
    EmuCluster* cl;
};
static thread_local EmuThread* emu_self;

#define threadIdx (emu_self->tid)
#define blockIdx (emu_self->bid)
#define blockDim (emu_self->bdim)
#define gridDim (emu_self->gdim)

static inline void __syncthreads() { pthread_barrier_wait(&emu_self->blk->bar); }

/* __syncwarp over the whole warp (the only mask the stock kernels use). */
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
    if (mask != 0xffffffffu) { fprintf(stderr, "emu: only full-warp __syncwarp\n"); abort(); }
    unsigned lin = emu_self->tid.x + emu_self->bdim.x * (emu_self->tid.y + emu_self->bdim.y * emu_self->tid.z);
    pthread_barrier_wait(&emu_self->blk->warps[lin / 32].bar);
}

/* PTX `bar.sync id, count`: a named barrier of `count` threads of the block (whole warps);
 * made on first use, so every use of one id must give the same count. */
static inline void emu_bar_sync(unsigned id, unsigned count) {
    EmuBlock* b = emu_self->blk;
    pthread_barrier_t* bar;
    {
        std::lock_guard<std::mutex> g(b->named_mu);
        auto it = b->named.find(id);
        if (it == b->named.end()) {
            it = b->named.emplace(id, pthread_barrier_t{}).first;
            pthread_barrier_init(&it->second, nullptr, count);
        }
        bar = &it->second;
    }
    pthread_barrier_wait(bar);
}

/* A full-warp exchange: every lane deposits v, then reads the value of lane
 * `xor_with ? lane ^ arg : arg & 31`. */
static inline float emu_shuffle(unsigned mask, float v, int arg, bool xor_with) {
    if (mask != 0xffffffffu) { fprintf(stderr, "emu: only full-warp shuffles\n"); abort(); }
    unsigned lin = emu_self->tid.x + emu_self->bdim.x * (emu_self->tid.y + emu_self->bdim.y * emu_self->tid.z);
    EmuWarp& w = emu_self->blk->warps[lin / 32];
    unsigned lane = lin % 32;
    w.slot[lane] = __float_as_uint(v);
    pthread_barrier_wait(&w.bar);
    float r = __uint_as_float(w.slot[xor_with ? lane ^ (unsigned)arg : (unsigned)arg & 31u]);
    pthread_barrier_wait(&w.bar);
    return r;
}
static inline float __shfl_xor_sync(unsigned mask, float v, int off) { return emu_shuffle(mask, v, off, true); }
/* __shfl_sync: every lane reads lane `src`'s value. */
static inline float __shfl_sync(unsigned mask, float v, int src) { return emu_shuffle(mask, v, src, false); }

/* __byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of the pair y:x. */
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    const uint64_t xy = ((uint64_t)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((xy >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}

/* The same exchange for 32-bit integers (bit patterns travel unchanged). */
static inline unsigned __shfl_xor_sync(unsigned mask, unsigned v, int off) {
    return __float_as_uint(__shfl_xor_sync(mask, __uint_as_float(v), off));
}
static inline int __shfl_xor_sync(unsigned mask, int v, int off) {
    return (int)__shfl_xor_sync(mask, (unsigned)v, off);
}

/* mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 for one warp, with the PTX fragment
 * layout (g = lane / 4, t = lane % 4): A register r of lane (g, t) holds row g + 8 (r & 1),
 * columns 2t + 8 (r >> 1) and the next; B register r holds rows 2t + 8 r and the next of
 * column g; D d[i] is row g + 8 (i >> 1), column 2t + (i & 1). Low half = lower index.
 * Every lane deposits its fragments, then computes its own outputs from all of them, so a
 * kernel that puts an element in the wrong lane or register gets a wrong product here. */
#define CACHEON_EMU 1
static inline float emu_bf16_half(uint32_t r, int k) { return __uint_as_float((k & 1) ? (r & 0xffff0000u) : (r << 16)); }
static inline void mma_m16n8k16_bf16(float d[4], const unsigned a[4], const unsigned b[2]) {
    unsigned lin = emu_self->tid.x + emu_self->bdim.x * (emu_self->tid.y + emu_self->bdim.y * emu_self->tid.z);
    EmuWarp& w = emu_self->blk->warps[lin / 32];
    unsigned lane = lin % 32;
    for (int r = 0; r < 4; ++r) w.mma_a[lane][r] = a[r];
    for (int r = 0; r < 2; ++r) w.mma_b[lane][r] = b[r];
    pthread_barrier_wait(&w.bar);
    const unsigned g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
        const unsigned row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
        float acc = d[i];
        for (unsigned k = 0; k < 16; ++k) {
            const float av = emu_bf16_half(w.mma_a[(row % 8) * 4 + (k % 8) / 2][(row / 8) + 2 * (k / 8)], k);
            const float bv = emu_bf16_half(w.mma_b[col * 4 + (k % 8) / 2][k / 8], k);
            acc = fmaf(av, bv, acc);
        }
        d[i] = acc;
    }
    pthread_barrier_wait(&w.bar);
}

/* mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32: A register r of lane (g, t) holds
 * row g + 8 r, columns 2t and 2t + 1; B's one register rows 2t and 2t + 1 of column g; D as
 * in m16n8k16. */
static inline void mma_m16n8k8_bf16(float d[4], const unsigned a[2], unsigned b) {
    unsigned lin = emu_self->tid.x + emu_self->bdim.x * (emu_self->tid.y + emu_self->bdim.y * emu_self->tid.z);
    EmuWarp& w = emu_self->blk->warps[lin / 32];
    unsigned lane = lin % 32;
    for (int r = 0; r < 2; ++r) w.mma_a[lane][r] = a[r];
    w.mma_b[lane][0] = b;
    pthread_barrier_wait(&w.bar);
    const unsigned g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
        const unsigned row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
        float acc = d[i];
        for (unsigned k = 0; k < 8; ++k) {
            const float av = emu_bf16_half(w.mma_a[(row % 8) * 4 + k / 2][row / 8], k);
            const float bv = emu_bf16_half(w.mma_b[col * 4 + k / 2][0], k);
            acc = fmaf(av, bv, acc);
        }
        d[i] = acc;
    }
    pthread_barrier_wait(&w.bar);
}

/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16 for one warp: lane L gives the address
 * of row L % 8 of matrix L / 8 (8 bf16, 16 bytes); register i of lane L receives row L / 4,
 * elements 2 (L % 4) and the next of matrix i, or with .trans those of its transpose
 * (rows 2 (L % 4) and the next, column L / 4 of the matrix as stored). */
static inline void emu_ldsm_x4(unsigned r[4], const void* p, bool trans) {
    unsigned lin = emu_self->tid.x + emu_self->bdim.x * (emu_self->tid.y + emu_self->bdim.y * emu_self->tid.z);
    EmuWarp& w = emu_self->blk->warps[lin / 32];
    unsigned lane = lin % 32;
    w.addr[lane] = (const unsigned short*)p;
    pthread_barrier_wait(&w.bar);
    const unsigned g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
        unsigned short lo, hi;
        if (trans) {
            lo = w.addr[8 * i + 2 * t][g];
            hi = w.addr[8 * i + 2 * t + 1][g];
        } else {
            lo = w.addr[8 * i + g][2 * t];
            hi = w.addr[8 * i + g][2 * t + 1];
        }
        r[i] = (unsigned)lo | ((unsigned)hi << 16);
    }
    pthread_barrier_wait(&w.bar);
}
static inline void ldsm_x4(unsigned r[4], const void* p) { emu_ldsm_x4(r, p, false); }
static inline void ldsm_x4_trans(unsigned r[4], const void* p) { emu_ldsm_x4(r, p, true); }

/* cp.async.cg.shared.global 16 bytes (zeros when !valid), done at once: commit and wait
 * have nothing left to wait for, so the emulation checks a kernel's barriers, not its
 * pipeline depth. */
static inline void cp_async16(void* smem, const void* gmem, bool valid) {
    if (valid) memcpy(smem, gmem, 16);
    else memset(smem, 0, 16);
}
static inline void cp_async_commit() {}
template <int N> static inline void cp_async_wait() {}

/* Device-wide atomics and fences (blocks of one launch run as concurrent OS threads
 * within a cluster, and clusters one after another). */
static inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

static inline unsigned __clusterRelativeBlockRank() { return emu_self->rank; }
static inline unsigned __clusterSizeInBlocks() { return (unsigned)emu_self->cl->blocks.size(); }
static inline void __cluster_barrier_arrive() {}
static inline void __cluster_barrier_wait() { pthread_barrier_wait(&emu_self->cl->bar); }
static inline void* __cluster_map_shared_rank(void* p, unsigned rank) {
    EmuBlock* me = emu_self->blk;
    ptrdiff_t off = (unsigned char*)p - me->dyn.data();
    if (off < 0 || (size_t)off >= me->dyn.size()) { fprintf(stderr, "emu: map_shared_rank outside dynamic smem\n"); abort(); }
    return emu_self->cl->blocks.at(rank)->dyn.data() + off;
}

static inline void* emu_dynamic_smem() { return emu_self->blk->dyn.data(); }
/* %dynamic_smem_size: the launch's dynamic shared memory (the buffer has 16 guard bytes). */
static inline unsigned emu_dynamic_smem_size() { return (unsigned)emu_self->blk->dyn.size() - 16; }
static inline void* emu_static_smem(int key, size_t bytes) {
    EmuBlock* b = emu_self->blk;
    std::lock_guard<std::mutex> g(b->stat_mu);
    auto it = b->stat.find(key);
    if (it == b->stat.end()) it = b->stat.emplace(key, std::vector<unsigned char>(bytes + 16, 0xff)).first;
    return it->second.data();
}

/* Runs `body` as a grid: one cluster at a time, all its threads as OS threads. */
template <class F>
struct EmuArg {
    F* body;
    EmuThread t;
};
template <class F> static void* emu_entry(void* a) {
    auto* arg = (EmuArg<F>*)a;
    emu_self = &arg->t;
    (*arg->body)();
    return nullptr;
}

template <class F>
static void emu_launch(dim3 grid, dim3 block, size_t smem, dim3 cluster, F body) {
    if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z) {
        fprintf(stderr, "emu: grid not divisible by the cluster\n");
        exit(3);
    }
    const unsigned nthreads = block.x * block.y * block.z;
    const unsigned nblk = cluster.x * cluster.y * cluster.z;
    const unsigned nwarps = (nthreads + 31) / 32;
    if (nthreads % 32) { fprintf(stderr, "emu: block size not a multiple of 32\n"); exit(3); }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (unsigned cz = 0; cz < grid.z; cz += cluster.z)
    for (unsigned cy = 0; cy < grid.y; cy += cluster.y)
    for (unsigned cx = 0; cx < grid.x; cx += cluster.x) {
        EmuCluster cl;
        pthread_barrier_init(&cl.bar, nullptr, nblk * nthreads);
        std::vector<EmuBlock*> blocks;
        for (unsigned i = 0; i < nblk; ++i) {
            EmuBlock* b = new EmuBlock();
            pthread_barrier_init(&b->bar, nullptr, nthreads);
            b->warps.resize(nwarps);
            for (auto& w : b->warps) pthread_barrier_init(&w.bar, nullptr, 32);
            b->dyn.assign(smem + 16, 0xff);
            blocks.push_back(b);
        }
        cl.blocks = blocks;
        std::vector<EmuArg<F>> args;
        args.reserve(nblk * nthreads);
        unsigned rank = 0;
        for (unsigned bz = 0; bz < cluster.z; ++bz)
        for (unsigned by = 0; by < cluster.y; ++by)
        for (unsigned bx = 0; bx < cluster.x; ++bx, ++rank)
        for (unsigned tz = 0; tz < block.z; ++tz)
        for (unsigned ty = 0; ty < block.y; ++ty)
        for (unsigned tx = 0; tx < block.x; ++tx) {
            EmuThread t;
            t.tid = dim3{tx, ty, tz};
            t.bid = dim3{cx + bx, cy + by, cz + bz};
            t.bdim = block;
            t.gdim = grid;
            t.rank = rank;
            t.blk = blocks[rank];
            t.cl = &cl;
            args.push_back(EmuArg<F>{&body, t});
        }
        std::vector<pthread_t> th(args.size());
        for (size_t i = 0; i < args.size(); ++i) {
            if (pthread_create(&th[i], &attr, emu_entry<F>, &args[i]) != 0) {
                fprintf(stderr, "emu: pthread_create failed\n");
                exit(3);
            }
        }
        for (auto& t : th) pthread_join(t, nullptr);
        for (auto* b : blocks) {
            for (auto& w : b->warps) pthread_barrier_destroy(&w.bar);
            for (auto& n : b->named) pthread_barrier_destroy(&n.second);
            pthread_barrier_destroy(&b->bar);
            delete b;
        }
        pthread_barrier_destroy(&cl.bar);
    }
}
