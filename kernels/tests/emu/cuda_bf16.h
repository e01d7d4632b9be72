/* Stand-in for the CUDA header under emulation: emu.h (included first) defines the
 * __nv_bfloat16 type and the intrinsics the stock kernels use. */
#pragma once
