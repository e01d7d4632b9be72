/* Hostile example (docs/threats.md, "Beyond the seven classes"): plainly wrong math, in a
 * bundle that also holds folders named like files the build writes for itself (its ABI
 * check, today and as it was once named inside the bundle's folder). A build that wrote a
 * file of its own where a bundle path can stand would fail with an I/O error, which a
 * lane reports as the validator's (NoDecision, on every validator, for ever). The build
 * writes its files beside the bundle's folder, never in it, so this FAILs Incorrect. */
#include <stdint.h>

void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t i = 0; i < tokens * d; i++) out[i] = x[i] * 0.5f;
}
