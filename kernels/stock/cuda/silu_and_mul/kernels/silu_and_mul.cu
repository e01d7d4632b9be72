/* Stock CUDA kernel for activation.silu_and_mul (cacheon-slot-abi-v1), bf16, Hopper.
 *
 *   out[t, i] = silu(x[t, i]) * x[t, d + i],   silu(g) = g / (1 + exp(-g))
 *
 * computed in f32 and rounded to nearest-even bf16. Memory-bound: each thread moves one
 * 16-byte vector (8 elements) of the gate half, one of the up half and one of the output
 * per row it visits (128-bit loads through the read-only path, 128-bit stores). The row
 * loop strides over grid x and the column loop over grid y, so any grid is correct; the
 * manifest's grid (tokens, ceil(d / 1024)) gives every thread exactly one vector per row.
 * A ragged d (not a multiple of 8) or an unaligned pointer takes the scalar path. */
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

DEVI float silu_mul(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

DEVI uint32_t silu_mul_x2(uint32_t g, uint32_t u) {
    return pack_bf16x2(silu_mul(bf16_lo(g), bf16_lo(u)), silu_mul(bf16_hi(g), bf16_hi(u)));
}

extern "C" __global__ void __launch_bounds__(1024)
silu_and_mul(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x,
             int64_t tokens, int64_t d) {
    GRID_DEPENDENCY_WAIT();
    GRID_LAUNCH_DEPENDENTS();
    const int64_t col0 = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    const int64_t col_stride = (int64_t)gridDim.y * blockDim.x;
    const bool vec = (d % 8 == 0) && ((((uintptr_t)out) | ((uintptr_t)x)) % 16 == 0);
    for (int64_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        const __nv_bfloat16* gate = x + t * 2 * d;
        const __nv_bfloat16* up = gate + d;
        __nv_bfloat16* o = out + t * d;
        if (vec) {
            const uint4* g4 = reinterpret_cast<const uint4*>(gate);
            const uint4* u4 = reinterpret_cast<const uint4*>(up);
            uint4* o4 = reinterpret_cast<uint4*>(o);
            const int64_t nvec = d / 8;
            for (int64_t v = col0; v < nvec; v += col_stride) {
                const uint4 g = __ldg(g4 + v);
                const uint4 u = __ldg(u4 + v);
                uint4 r;
                r.x = silu_mul_x2(g.x, u.x);
                r.y = silu_mul_x2(g.y, u.y);
                r.z = silu_mul_x2(g.z, u.z);
                r.w = silu_mul_x2(g.w, u.w);
                o4[v] = r;
            }
        } else {
            for (int64_t i = col0; i < d; i += col_stride) {
                const float g = __bfloat162float(gate[i]);
                const float u = __bfloat162float(up[i]);
                o[i] = __float2bfloat16_rn(silu_mul(g, u));
            }
        }
    }
}
