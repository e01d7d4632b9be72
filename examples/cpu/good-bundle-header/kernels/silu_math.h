#ifndef SILU_MATH_H
#define SILU_MATH_H
#include <math.h>
static inline float silu_of(float g) { return g / (1.0f + expf(-g)); }
#endif
