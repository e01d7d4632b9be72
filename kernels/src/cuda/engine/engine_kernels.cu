// The CUDA engine's own kernels (validator-owned, not slots): weight synthesis, the
// embedding gather, splitting the fused QKV projection and writing the KV cache, the
// causal softmax of prefill attention, and the greedy argmax. Compiled once by NVRTC
// with no headers: bf16 values are handled as their 16-bit patterns.

typedef unsigned short bf16_t;
typedef unsigned long long u64_t;

// Programmatic dependent launch (sm_90): the kernels launched with it (embed, k_write,
// argmax, the q|k|v GEMV) may start while the grid before them drains. They touch nothing
// that grid writes or reads before GRID_DEPENDENCY_WAIT (which waits for it to finish and
// its writes to be visible), and GRID_LAUNCH_DEPENDENTS lets the next grid start likewise.
// Both are no-ops in a plain launch.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GRID_DEPENDENCY_WAIT() asm volatile("griddepcontrol.wait;\n" ::: "memory")
#define GRID_LAUNCH_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory")
#define PREFETCH_L2(p) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p))
#else
#define GRID_DEPENDENCY_WAIT() ((void)0)
#define GRID_LAUNCH_DEPENDENTS() ((void)0)
#define PREFETCH_L2(p) ((void)(p))
#endif

// `bar.sync id, 64`: the two warps of one pair of the pair GEMV (below) wait for each
// other only (ids 1-4; 0 is __syncthreads'). The CPU emulation has its own.
#if defined(__CUDA_ARCH__)
#define PAIR_SYNC(id) asm volatile("bar.sync %0, 64;\n" ::"r"(id) : "memory")
#else
#define PAIR_SYNC(id) emu_bar_sync((id), 64)
#endif

// A 16-byte load through the read-only (non-coherent) path: for data no kernel of the
// step writes (weights) and, once the dependency wait has passed, the product's input row.
__device__ __forceinline__ uint4 ld_nc(const uint4* p) {
#if defined(__CUDA_ARCH__)
    uint4 r;
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
    return r;
#else
    return *p;
#endif
}

__device__ __forceinline__ float b2f(bf16_t b) {
    return __uint_as_float(((unsigned int)b) << 16);
}

// f32 -> bf16, round to nearest even (NaN stays a quiet NaN).
__device__ __forceinline__ bf16_t f2b(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bf16_t)(u >> 16);
}

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// out[i] = center + half_width * u, u uniform in [-1, 1) from a splitmix64 hash of
// (seed, i): the device-synthesized weights (same scaling as Weights::synthesize, not
// the same values).
extern "C" __global__ void eng_synth(bf16_t* out, unsigned long long n, unsigned long long seed,
                                     float center, float half_width) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned long long z = seed + (i + 1ull) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        float u = (float)(z >> 40) * (1.0f / 16777216.0f);  // [0, 1)
        out[i] = f2b(center + half_width * (2.0f * u - 1.0f));
    }
}

// Copies n bf16 values, with 16-byte vectors when both ends allow it (all of a thread's
// loads can then be in flight together: a batch-1 step copies single rows, where each
// round trip is the cost).
__device__ __forceinline__ void copy_row(bf16_t* dst, const bf16_t* src, long long n) {
    if (n % 8 == 0 && ((unsigned long long)dst | (unsigned long long)src) % 16 == 0) {
        uint4* d = reinterpret_cast<uint4*>(dst);
        const uint4* s = reinterpret_cast<const uint4*>(src);
        for (long long i = threadIdx.x; i < n / 8; i += blockDim.x) d[i] = s[i];
    } else {
        for (long long i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
    }
}

// out[r, :] = table[tokens[r], :]. Grid: (rows).
extern "C" __global__ void eng_embed(bf16_t* out, const bf16_t* table, const int* tokens,
                                     long long hidden) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    long long r = blockIdx.x;
    long long t = tokens[r];
    copy_row(out + r * hidden, table + t * hidden, hidden);
}

// qkv[r] = [q | k | v]: q and k copied out contiguous (for the rope slot), v written
// straight into the cache row cache_rows[r] (skipped when negative: a padding row).
extern "C" __global__ void eng_qkv_split(bf16_t* q, bf16_t* k, bf16_t* v_cache, const bf16_t* qkv,
                                         const int* cache_rows, long long q_dim,
                                         long long kv_dim) {
    long long r = blockIdx.x;
    const bf16_t* src = qkv + r * (q_dim + 2 * kv_dim);
    long long row = cache_rows[r];
    for (long long i = threadIdx.x; i < q_dim; i += blockDim.x) q[r * q_dim + i] = src[i];
    for (long long i = threadIdx.x; i < kv_dim; i += blockDim.x) {
        k[r * kv_dim + i] = src[q_dim + i];
        if (row >= 0) v_cache[row * kv_dim + i] = src[q_dim + kv_dim + i];
    }
}

// k_cache[cache_rows[r]] = k[r] (rows with a negative cache row are skipped).
extern "C" __global__ void eng_k_write(bf16_t* k_cache, const bf16_t* k, const int* cache_rows,
                                       long long kv_dim) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    long long r = blockIdx.x;
    long long row = cache_rows[r];
    if (row < 0) return;
    copy_row(k_cache + row * kv_dim, k + r * kv_dim, kv_dim);
}

__device__ float block_reduce(float v, bool is_max, float* red) {
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = (blockDim.x + 31) >> 5;
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = lane < warps ? red[lane] : (is_max ? neg_inf() : 0.0f);
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    return v;
}

// Causal softmax of prefill attention scores: row (h, t) of scores [heads, n, klen] (f32,
// already scaled) over keys 0..=positions[t]; probs (bf16, same layout) are 0 beyond.
// Grid: (n, heads), block 256.
extern "C" __global__ void eng_causal_softmax(bf16_t* probs, const float* scores,
                                              const int* positions, long long n,
                                              long long klen) {
    __shared__ float red[32];
    long long t = blockIdx.x, h = blockIdx.y;
    const float* row = scores + (h * n + t) * klen;
    bf16_t* out = probs + (h * n + t) * klen;
    long long valid = (long long)positions[t] + 1;
    if (valid > klen) valid = klen;
    float m = neg_inf();
    for (long long j = threadIdx.x; j < valid; j += blockDim.x) m = fmaxf(m, row[j]);
    m = block_reduce(m, true, red);
    float s = 0.0f;
    for (long long j = threadIdx.x; j < valid; j += blockDim.x) s += expf(row[j] - m);
    s = block_reduce(s, false, red);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (long long j = threadIdx.x; j < klen; j += blockDim.x)
        out[j] = j < valid ? f2b(expf(row[j] - m) * inv) : (bf16_t)0;
}

// Greedy argmax as one 64-bit key: the value's bits made order-preserving as an unsigned
// high word (-0 counted as +0), 0xffffffff - index as the low word, so the largest key is
// the largest value at its lowest index. NaN and -inf give 0, "nothing seen", which every
// real key beats.
__device__ __forceinline__ unsigned long long argmax_key(float v, long long j) {
    if (!(v > neg_inf())) return 0ull;
    unsigned int u = __float_as_uint(v == 0.0f ? 0.0f : v);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((unsigned long long)u << 32) | (unsigned long long)(0xffffffffu - (unsigned int)j);
}

__device__ __forceinline__ unsigned long long max_u64(unsigned long long a, unsigned long long b) {
    return a > b ? a : b;
}

__device__ __forceinline__ unsigned long long warp_max_u64(unsigned long long v) {
    for (int off = 16; off > 0; off >>= 1) {
        unsigned int hi = __shfl_xor_sync(0xffffffffu, (unsigned int)(v >> 32), off);
        unsigned int lo = __shfl_xor_sync(0xffffffffu, (unsigned int)v, off);
        v = max_u64(v, ((unsigned long long)hi << 32) | lo);
    }
    return v;
}

// The block's largest key, in every thread (blockDim.x a multiple of 32, at most 1024).
__device__ unsigned long long block_max_u64(unsigned long long v, unsigned long long* red) {
    v = warp_max_u64(v);
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = (blockDim.x + 31) >> 5;
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    return warp_max_u64(lane < warps ? red[lane] : 0ull);
}

// out[r] = argmax of logits[r, :vocab] (first index on ties; NaN never wins; 0 when no
// value beats -inf). Grid (rows, nb), block 256: block y of row r takes a strided share
// (16-byte loads when the row allows) and leaves its best key in part[r * nb + y]; the last
// of the row's blocks to finish (counted in count[r], which it sets back to 0 for the next
// launch; zero before the first) reduces the nb keys and writes out[r]. count holds one
// u32 per row, part nb u64 per row.
extern "C" __global__ void eng_argmax(int* out, const bf16_t* logits, long long vocab,
                                      unsigned long long* part, unsigned int* count) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    __shared__ u64_t red[32];
    __shared__ unsigned last[1];
    const long long r = blockIdx.x;
    const bf16_t* row = logits + r * vocab;
    const long long tid = (long long)blockIdx.y * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.y * blockDim.x;
    unsigned long long best = 0ull;
    if ((vocab & 7) == 0 && (((unsigned long long)row) & 15) == 0) {
        const uint4* rv = reinterpret_cast<const uint4*>(row);
        for (long long i = tid; i < (vocab >> 3); i += nthreads) {
            const uint4 a = rv[i];
            const unsigned int w[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                best = max_u64(best, argmax_key(__uint_as_float(w[e] << 16), 8 * i + 2 * e));
                best = max_u64(best, argmax_key(__uint_as_float(w[e] & 0xffff0000u), 8 * i + 2 * e + 1));
            }
        }
    } else {
        for (long long j = tid; j < vocab; j += nthreads) best = max_u64(best, argmax_key(b2f(row[j]), j));
    }
    best = block_max_u64(best, red);
    if (threadIdx.x == 0) {
        part[r * gridDim.y + blockIdx.y] = best;
        __threadfence();
        last[0] = atomicAdd(&count[r], 1u) == gridDim.y - 1 ? 1u : 0u;
    }
    __syncthreads();
    if (last[0] == 0u) return;
    __threadfence();
    best = 0ull;
    for (unsigned int i = threadIdx.x; i < gridDim.y; i += blockDim.x)
        best = max_u64(best, ((volatile unsigned long long*)part)[r * gridDim.y + i]);
    best = block_max_u64(best, red);
    if (threadIdx.x == 0) {
        out[r] = best == 0ull ? 0 : (int)(0xffffffffu - (unsigned int)(best & 0xffffffffull));
        count[r] = 0u;
    }
}

// Dot product of 8 bf16 pairs packed in two 16-byte vectors, f32 accumulation.
__device__ __forceinline__ float dot8(uint4 a, uint4 b, float s) {
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

// The q|k|v GEMV for rows <= 8 (decode), bf16 in and out, f32 accumulation: y[m, j] =
// sum_k x[m, k] * w[j, k], one warp per output feature j (grid-stride), streaming the
// weight row with 16-byte loads, UNR per lane in flight (then one at a time for the tail);
// x stays in L1/L2. Needs k % 8 == 0 and 16-byte aligned x, w (the host checks).
// `store(m, j, v)` writes one result (lane 0 of the warp). The slot `linear.matmul`'s
// stock kernel is the same loop for every other single-row product.
template <int UNR, class Store>
__device__ __forceinline__ void gemv_body(const bf16_t* x, const bf16_t* w, long long rows,
                                          long long n, long long k, Store store) {
    const int lane = threadIdx.x & 31;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long kv = k >> 3;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    for (long long j = warp; j < n; j += warps) {
        const uint4* wr = w4 + j * kv;
        float acc[8];
#pragma unroll
        for (int m = 0; m < 8; ++m) acc[m] = 0.0f;
        long long i = lane;
        for (; i + 32 * (UNR - 1) < kv; i += 32 * UNR) {
            uint4 a[UNR];
#pragma unroll
            for (int u = 0; u < UNR; ++u) a[u] = wr[i + 32 * u];
#pragma unroll
            for (int m = 0; m < 8; ++m) {
                if (m < rows) {
                    const uint4* xr = xv + m * kv;
                    float s = acc[m];
#pragma unroll
                    for (int u = 0; u < UNR; ++u) s = dot8(a[u], xr[i + 32 * u], s);
                    acc[m] = s;
                }
            }
        }
        for (; i < kv; i += 32) {
            uint4 a = wr[i];
#pragma unroll
            for (int m = 0; m < 8; ++m)
                if (m < rows) acc[m] = dot8(a, xv[m * kv + i], acc[m]);
        }
#pragma unroll
        for (int m = 0; m < 8; ++m) {
            if (m < rows) {
                float v = acc[m];
                for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
                if (lane == 0) store(m, j, v);
            }
        }
    }
}

// The fused q|k|v projection as a GEMV that writes its outputs where eng_qkv_split would
// put them (so decode needs no split launch): features [0, q_dim) to q[m], the next
// kv_dim to k[m], the last kv_dim straight into v_cache row cache_rows[m] (skipped when
// negative: a padding row). w is [q_dim + 2 kv_dim, k].
extern "C" __global__ void __launch_bounds__(256) eng_gemv_qkv(bf16_t* q, bf16_t* kout, bf16_t* v_cache,
                                                               const int* cache_rows, const bf16_t* x,
                                                               const bf16_t* w, long long rows,
                                                               long long q_dim, long long kv_dim,
                                                               long long k) {
    {   // The weights do not depend on the grid before: the start of this warp's first row
        // (up to 4 KiB, a 128-byte line a lane) heads for L2 while that grid drains (as in
        // the stock linear.matmul GEMV, where whole rows measured slower).
        const int lane = threadIdx.x & 31;
        const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
        if (warp < q_dim + 2 * kv_dim && lane * 128 < k * 2 && lane * 128 < 4096)
            PREFETCH_L2(reinterpret_cast<const char*>(w + warp * k) + lane * 128);
    }
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    gemv_body<4>(x, w, rows, q_dim + 2 * kv_dim, k, [=](long long m, long long j, float v) {
        if (j < q_dim) {
            q[m * q_dim + j] = f2b(v);
        } else if (j < q_dim + kv_dim) {
            kout[m * kv_dim + (j - q_dim)] = f2b(v);
        } else {
            const long long row = cache_rows[m];
            if (row >= 0) v_cache[row * kv_dim + (j - q_dim - kv_dim)] = f2b(v);
        }
    });
}

// One weight row against one row x: the warp's f32 dot product (in every lane), UNR
// 16-byte loads of w and UNR of x a lane in flight, all read-only (`ld.global.nc`). In
// the gate|up + SwiGLU kernel ptxas gives it 48 registers (77.6 us a launch on an H100,
// against 75.0 + 1.3 unfused), where the stock linear.matmul GEMV's same loop gets 96
// (2 blocks a SM).
template <int UNR>
__device__ __forceinline__ float dot_row(const uint4* __restrict__ xv, const uint4* __restrict__ wr,
                                         long long kv, int lane) {
    float acc = 0.0f;
    long long i = lane;
    for (; i + 32 * (UNR - 1) < kv; i += 32 * UNR) {
        uint4 a[UNR], b[UNR];
#pragma unroll
        for (int u = 0; u < UNR; ++u) a[u] = ld_nc(wr + i + 32 * u);
#pragma unroll
        for (int u = 0; u < UNR; ++u) b[u] = ld_nc(xv + i + 32 * u);
#pragma unroll
        for (int u = 0; u < UNR; ++u) acc = dot8(a[u], b[u], acc);
    }
    for (; i < kv; i += 32) acc = dot8(ld_nc(wr + i), ld_nc(xv + i), acc);
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    return acc;
}

// A block step of the pair GEMV takes 4 pairs: warp `wib` of the 256-thread block works
// on pair first_pair() + 4 * gridDim.x * step, warps 0-3 on its first row (j0), warps 4-7
// on its second (j1).
__device__ __forceinline__ long long first_pair() { return blockIdx.x * 4ll + ((threadIdx.x >> 5) & 3); }

template <class RowsOf>
__device__ __forceinline__ long long pair_row(long long p, int wib, RowsOf rows_of) {
    long long j0, j1;
    rows_of(p, j0, j1);
    return wib < 4 ? j0 : j1;
}

// The pair GEMV behind the engine's fused one-row decode kernels: one row x, output
// features in pairs (`rows_of(p, j0, j1)` names pair p's two weight rows) whose results
// meet in one epilogue, `store(p, v0, v1)` (lane 0 of the pair's first warp). Every warp
// streams ONE weight row at a time, as the one-row GEMVs do; a block's 8 warps take 4
// pairs a step (warps 0-3 the first rows, 4-7 the second), and the two warps of a pair
// hand over the second sum through shared memory (double-buffered by step parity) behind
// a barrier of their own, so no warp waits for the other six. Measured on an H100 against
// the unfused gate|up GEMV + SwiGLU (75.0 + 1.3 us): one warp streaming both rows 82.4 us,
// the block's 8 warps in lockstep (__syncthreads a step) 77.8. blockDim.x must be 256.
// Needs k % 8 == 0 and 16-byte aligned x, w (the host checks).
template <int UNR, class RowsOf, class Store>
__device__ __forceinline__ void gemv_pair_body(const bf16_t* __restrict__ x, const bf16_t* __restrict__ w,
                                               long long pairs, long long k, RowsOf rows_of, Store store) {
    __shared__ float part[8]; /* [parity][slot] */
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5, slot = wib & 3;
    const long long kv = k >> 3;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const uint4* w4 = reinterpret_cast<const uint4*>(w);
    int parity = 0;
    for (long long p = first_pair(); p < pairs; p += gridDim.x * 4ll, parity ^= 1) {
        const float v = dot_row<UNR>(xv, w4 + pair_row(p, wib, rows_of) * kv, kv, lane);
        if (wib >= 4 && lane == 0) part[parity * 4 + slot] = v;
        PAIR_SYNC(1 + slot);
        if (wib < 4 && lane == 0) store(p, v, part[parity * 4 + slot]);
    }
}

// Before the dependency wait (the weights do not depend on the grid before): the first
// 2 KiB of this warp's first weight row head for L2 (a 128-byte line a lane).
template <class RowsOf>
__device__ __forceinline__ void prefetch_first_pair(const bf16_t* w, long long pairs, long long k,
                                                    RowsOf rows_of) {
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long p = first_pair();
    if (p >= pairs || lane * 128 >= k * 2 || lane * 128 >= 2048) return;
    PREFETCH_L2(reinterpret_cast<const char*>(w + pair_row(p, wib, rows_of) * k) + lane * 128);
}

// RoPE's angle for pair i of a head at position pos, as the stock position.rope kernel
// computes it: pos * theta^(-2i/D) in double, reduced to [-pi, pi], then sincosf.
__device__ __forceinline__ void rope_angle(long long i, long long head_dim, double pos, double log2_theta,
                                           float* c, float* s) {
    const double TWO_PI = 6.283185307179586476925286766559;
    const double INV_TWO_PI = 0.15915494309189533576888376337251;
    const double inv_freq = exp2(-2.0 * (double)i / (double)head_dim * log2_theta);
    double a = pos * inv_freq;
    a -= rint(a * INV_TWO_PI) * TWO_PI;
    sincosf((float)a, s, c);
}

// One rotate-half pair (b0, b1) = (x[i], x[i + D/2]) turned by the pair's angle (c, sn)
// and rounded to bf16, in place: the formula of every engine RoPE path and of the stock
// position.rope kernel.
__device__ __forceinline__ void rope_rotate(bf16_t* b0, bf16_t* b1, float c, float sn) {
    const float x0 = b2f(*b0), x1 = b2f(*b1);
    *b0 = f2b(x0 * c - x1 * sn);
    *b1 = f2b(x1 * c + x0 * sn);
}

// Where one rotate-half pair (i, i + D/2) of head hh of a decode row goes, from its two
// bf16 values: a q head rotated by the pair's angle (c, sn) into q_rot, a k head rotated
// into the key cache row, a v head as it is into the value cache row (no cache write when
// the row is negative: a padding row). The epilogue of both batch-1 q|k|v paths.
__device__ __forceinline__ void rope_store_pair(bf16_t* q_rot, bf16_t* k_cache, bf16_t* v_cache, long long row,
                                                long long hh, long long i, long long q_heads, long long kv_heads,
                                                long long head_dim, bf16_t b0, bf16_t b1, float c, float sn) {
    const long long half = head_dim / 2, kv_dim = kv_heads * head_dim;
    bf16_t* dst;
    if (hh >= q_heads + kv_heads) {
        if (row < 0) return;
        dst = v_cache + row * kv_dim + (hh - q_heads - kv_heads) * head_dim;
        dst[i] = b0;
        dst[i + half] = b1;
        return;
    }
    if (hh < q_heads) dst = q_rot + hh * head_dim;
    else if (row >= 0) dst = k_cache + row * kv_dim + (hh - q_heads) * head_dim;
    else return;
    rope_rotate(&b0, &b1, c, sn);
    dst[i] = b0;
    dst[i + half] = b1;
}

// The q|k|v projection of ONE decode row with RoPE and both cache writes fused (decode at
// batch 1 runs no rope and no k-write launch): rows i and i + D/2 of every head are one
// pair of the pair GEMV (two warps of a block); q heads are rotated into q_rot, k heads rotated into the key cache row
// cache_rows[0], v heads written to the value cache row (no cache write when that row is
// negative: a padding row). positions[0] is the row's position. w is
// [(q_heads + 2 kv_heads) * D, k]. Grid: one block per 8 features (at most 8 a SM).
// Not the engine's default (CudaEngineOptions::qkv_pair_gemv): the stock GEMV and
// eng_rope_cache_row measured 15.7 us a step faster on an H100.
extern "C" __global__ void __launch_bounds__(256) eng_gemv_qkv_rope(
    bf16_t* __restrict__ q_rot, bf16_t* __restrict__ k_cache, bf16_t* __restrict__ v_cache,
    const int* __restrict__ cache_rows, const int* __restrict__ positions, const bf16_t* __restrict__ x,
    const bf16_t* __restrict__ w, long long q_heads, long long kv_heads, long long head_dim,
    long long k, float theta) {
    const long long half = head_dim / 2, pairs = (q_heads + 2 * kv_heads) * half;
    auto rows_of = [=](long long p, long long& j0, long long& j1) {
        j0 = (p / half) * head_dim + p % half;
        j1 = j0 + half;
    };
    prefetch_first_pair(w, pairs, k, rows_of);
    // The host writes the row's position and cache row before the step, so they (and the
    // first pair's angle: double-precision math off the critical path) come before the wait.
    const long long row = cache_rows[0];
    const double pos = (double)positions[0], log2_theta = log2((double)theta);
    const long long p0 = first_pair();
    float c0 = 1.0f, s0 = 0.0f;
    if ((threadIdx.x & 31) == 0 && threadIdx.x < 128 && p0 < pairs && p0 / half < q_heads + kv_heads)
        rope_angle(p0 % half, head_dim, pos, log2_theta, &c0, &s0);
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    gemv_pair_body<4>(x, w, pairs, k, rows_of, [=](long long p, float v0, float v1) {
        const long long hh = p / half, i = p % half;
        float c = c0, sn = s0;
        if (p != p0 && hh < q_heads + kv_heads) rope_angle(i, head_dim, pos, log2_theta, &c, &sn);
        rope_store_pair(q_rot, k_cache, v_cache, row, hh, i, q_heads, kv_heads, head_dim, f2b(v0), f2b(v1), c, sn);
    });
}

// RoPE and both cache writes of ONE decode row whose q|k|v product is already in `qkv`
// (the linear.matmul kernel's output, [(q_heads + 2 kv_heads) * D]): the batch-1 decode
// step's RoPE and k-write launches in one (decode at batch 1 runs no position.rope call
// while the stock kernel holds the slot). What eng_gemv_qkv_rope does in its epilogue,
// bit for bit. One thread per pair (i, i + D/2) of a head; its angle is computed before
// the dependency wait.
extern "C" __global__ void __launch_bounds__(256) eng_rope_cache_row(
    bf16_t* __restrict__ q_rot, bf16_t* __restrict__ k_cache, bf16_t* __restrict__ v_cache,
    const int* __restrict__ cache_rows, const int* __restrict__ positions, const bf16_t* __restrict__ qkv,
    long long q_heads, long long kv_heads, long long head_dim, float theta) {
    const long long half = head_dim / 2, pairs = (q_heads + 2 * kv_heads) * half;
    const long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long hh = p / half, i = p % half, row = cache_rows[0];
    float c = 1.0f, sn = 0.0f;
    if (p < pairs && hh < q_heads + kv_heads)
        rope_angle(i, head_dim, (double)positions[0], log2((double)theta), &c, &sn);
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    if (p >= pairs) return;
    rope_store_pair(q_rot, k_cache, v_cache, row, hh, i, q_heads, kv_heads, head_dim, qkv[hh * head_dim + i],
                    qkv[hh * head_dim + i + half], c, sn);
}

// RoPE and both cache writes of the n rows of a prefill or a batched decode step whose
// q|k|v products are in `qkv` ([n, (q_heads + 2 kv_heads) * D], the linear.matmul call's
// output): eng_rope_cache_row's work, bit for bit, for every row r, at position
// positions[r] into cache row cache_rows[r] (no position.rope, split or k-write launch
// while the stock rope kernel serves the call). Block: row r = grid x, ROPE_HEADS heads =
// grid y (q heads, then k heads, then v heads), 64 threads. The row's angles go into a
// shared table before the dependency wait, one per pair index; then each thread turns 8
// pairs at a time with 16-byte loads and stores (one pair at a time when D/2 is not a
// multiple of 8 or a pointer is not 16-byte aligned). Head dims up to 2 ROPE_TABLE (the
// engine takes its unfused path above).
#define ROPE_HEADS 8
#define ROPE_TABLE 128
extern "C" __global__ void __launch_bounds__(64) eng_rope_cache_rows(
    bf16_t* __restrict__ q_rot, bf16_t* __restrict__ k_cache, bf16_t* __restrict__ v_cache,
    const int* __restrict__ cache_rows, const int* __restrict__ positions, const bf16_t* __restrict__ qkv,
    long long q_heads, long long kv_heads, long long head_dim, float theta) {
    __shared__ float cos_t[ROPE_TABLE];
    __shared__ float sin_t[ROPE_TABLE];
    const long long r = blockIdx.x, half = head_dim / 2, heads = q_heads + 2 * kv_heads;
    const long long h0 = (long long)blockIdx.y * ROPE_HEADS;
    const long long nh = heads - h0 < ROPE_HEADS ? heads - h0 : ROPE_HEADS;
    if (half > ROPE_TABLE) return;
    const double pos = (double)positions[r], log2_theta = log2((double)theta);
    for (long long i = threadIdx.x; i < half; i += blockDim.x)
        rope_angle(i, head_dim, pos, log2_theta, &cos_t[i], &sin_t[i]);
    __syncthreads();
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    const long long row = cache_rows[r], kv_dim = kv_heads * head_dim;
    const bool vec = half % 8 == 0 &&
                     ((((u64_t)q_rot) | ((u64_t)k_cache) | ((u64_t)v_cache) | ((u64_t)qkv)) % 16) == 0;
    const long long per_head = vec ? half / 8 : half; // items a head
    for (long long it = threadIdx.x; it < nh * per_head; it += blockDim.x) {
        const long long hh = h0 + it / per_head;
        bf16_t* dst;
        if (hh < q_heads) dst = q_rot + (r * q_heads + hh) * head_dim;
        else if (row < 0) continue;
        else if (hh < q_heads + kv_heads) dst = k_cache + row * kv_dim + (hh - q_heads) * head_dim;
        else dst = v_cache + row * kv_dim + (hh - q_heads - kv_heads) * head_dim;
        const bf16_t* src = qkv + (r * heads + hh) * head_dim;
        const bool turn = hh < q_heads + kv_heads;
        if (!vec) {
            const long long i = it % per_head;
            bf16_t b0 = src[i], b1 = src[i + half];
            if (turn) rope_rotate(&b0, &b1, cos_t[i], sin_t[i]);
            dst[i] = b0;
            dst[i + half] = b1;
            continue;
        }
        const long long i = (it % per_head) * 8;
        const uint4 lo = *reinterpret_cast<const uint4*>(src + i), hi = *reinterpret_cast<const uint4*>(src + i + half);
        unsigned a[4] = {lo.x, lo.y, lo.z, lo.w}, b[4] = {hi.x, hi.y, hi.z, hi.w};
        if (turn) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                bf16_t a0 = (bf16_t)(a[e] & 0xffffu), a1 = (bf16_t)(a[e] >> 16);
                bf16_t b0 = (bf16_t)(b[e] & 0xffffu), b1 = (bf16_t)(b[e] >> 16);
                rope_rotate(&a0, &b0, cos_t[i + 2 * e], sin_t[i + 2 * e]);
                rope_rotate(&a1, &b1, cos_t[i + 2 * e + 1], sin_t[i + 2 * e + 1]);
                a[e] = (unsigned)a0 | ((unsigned)a1 << 16);
                b[e] = (unsigned)b0 | ((unsigned)b1 << 16);
            }
        }
        uint4 out_lo, out_hi;
        out_lo.x = a[0], out_lo.y = a[1], out_lo.z = a[2], out_lo.w = a[3];
        out_hi.x = b[0], out_hi.y = b[1], out_hi.z = b[2], out_hi.w = b[3];
        *reinterpret_cast<uint4*>(dst + i) = out_lo;
        *reinterpret_cast<uint4*>(dst + i + half) = out_hi;
    }
}

// The gate|up projection of ONE decode row with SwiGLU fused (decode at batch 1 runs no
// silu_and_mul launch): feature i's gate row i and up row inter + i are one pair of the
// pair GEMV;
// act[i] = silu(g) * u with g and u rounded to bf16 first, as the stock
// activation.silu_and_mul kernel reads them from the product. w is [2 inter, k]. 8 loads
// a lane in flight, as the stock GEMV for products of 16384 features or more. Grid: one
// block per 8 features (at most 8 a SM).
extern "C" __global__ void __launch_bounds__(256) eng_gemv_gate_up_silu(
    bf16_t* __restrict__ act, const bf16_t* __restrict__ x, const bf16_t* __restrict__ w, long long inter,
    long long k) {
    auto rows_of = [=](long long p, long long& j0, long long& j1) {
        j0 = p;
        j1 = inter + p;
    };
    prefetch_first_pair(w, inter, k, rows_of);
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    gemv_pair_body<8>(x, w, inter, k, rows_of, [=](long long p, float v0, float v1) {
        const float g = b2f(f2b(v0)), u = b2f(f2b(v1));
        act[p] = f2b(g / (1.0f + __expf(-g)) * u);
    });
}
