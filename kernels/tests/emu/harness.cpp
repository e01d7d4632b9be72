/* Driver for one emulated stock kernel (see emu.h and tests/cuda_emulated.rs). Compiled
 * after the kernel source with -DEMU_SLOT=<registry index> and -DEMU_ENTRY=<the kernel's
 * entry point>. Reads the call from argv[1],
 * runs the grid, checks that inputs and the guard bands around every buffer are intact,
 * and writes the outputs (bf16 bits) to argv[2]. Exit 4: an input changed; 5: a write
 * outside an output. */
#include <cstdio>
#include <vector>

static const size_t GUARD = 64; /* elements of guard band on each side of every buffer */
static const uint16_t GUARD_BF16 = 0x7F81; /* a signalling-NaN pattern nothing computes */
static const int32_t GUARD_I32 = 0x5EADBEEF;

template <class T> static T rd(FILE* f) {
    T v;
    if (fread(&v, sizeof v, 1, f) != 1) { fprintf(stderr, "emu: short input\n"); exit(3); }
    return v;
}

int main(int argc, char** argv) {
    if (argc != 3) { fprintf(stderr, "usage: harness IN OUT\n"); return 3; }
    FILE* in = fopen(argv[1], "rb");
    if (!in) { perror("input"); return 3; }
    const uint32_t slot = rd<uint32_t>(in);
    if (slot != EMU_SLOT) { fprintf(stderr, "emu: built for slot %d, called for %u\n", EMU_SLOT, slot); return 3; }
    std::vector<int64_t> shape(rd<uint32_t>(in));
    for (auto& v : shape) v = rd<int64_t>(in);
    std::vector<float> sc(rd<uint32_t>(in));
    for (auto& v : sc) v = rd<float>(in);
    dim3 grid, block, cluster;
    grid.x = rd<uint32_t>(in); grid.y = rd<uint32_t>(in); grid.z = rd<uint32_t>(in);
    block.x = rd<uint32_t>(in); block.y = rd<uint32_t>(in); block.z = rd<uint32_t>(in);
    const uint32_t smem = rd<uint32_t>(in);
    cluster.x = rd<uint32_t>(in); cluster.y = rd<uint32_t>(in); cluster.z = rd<uint32_t>(in);

    /* Buffers with guard bands: element i of a tensor lives at [GUARD + i]. */
    std::vector<std::vector<uint16_t>> bf_in;
    std::vector<std::vector<int32_t>> i32_in;
    std::vector<int> kinds;
    const uint32_t nin = rd<uint32_t>(in);
    for (uint32_t i = 0; i < nin; ++i) {
        const uint32_t kind = rd<uint32_t>(in);
        const uint64_t len = rd<uint64_t>(in);
        kinds.push_back((int)kind);
        if (kind == 0) {
            std::vector<uint16_t> v(len + 2 * GUARD, GUARD_BF16);
            if (len && fread(v.data() + GUARD, 2, len, in) != len) return 3;
            bf_in.push_back(v);
            i32_in.emplace_back();
        } else {
            std::vector<int32_t> v(len + 2 * GUARD, GUARD_I32);
            if (len && fread(v.data() + GUARD, 4, len, in) != len) return 3;
            i32_in.push_back(v);
            bf_in.emplace_back();
        }
    }
    const auto bf_before = bf_in;
    const auto i32_before = i32_in;
    std::vector<std::vector<uint16_t>> outs;
    const uint32_t nout = rd<uint32_t>(in);
    for (uint32_t i = 0; i < nout; ++i) {
        const uint64_t len = rd<uint64_t>(in);
        std::vector<uint16_t> v(len + 2 * GUARD, GUARD_BF16);
        for (uint64_t j = 0; j < len; ++j) v[GUARD + j] = 0x7FC0; /* NaN poison */
        outs.push_back(v);
    }
    fclose(in);

    auto O = [&](int i) { return reinterpret_cast<__nv_bfloat16*>(outs[i].data() + GUARD); };
    auto I = [&](int i) { return reinterpret_cast<const __nv_bfloat16*>(bf_in[i].data() + GUARD); };
    auto P = [&](int i) { return (const int32_t*)(i32_in[i].data() + GUARD); };
    auto S = [&](int i) { return shape[i]; };
    auto F = [&](int i) { return sc[i]; };
    auto body = [&]() {
#if EMU_SLOT == 0
        EMU_ENTRY(O(0), I(0), S(0), S(1));
#elif EMU_SLOT == 1
        EMU_ENTRY(O(0), I(0), I(1), F(0), S(0), S(1));
#elif EMU_SLOT == 2
        EMU_ENTRY(O(0), O(1), I(0), I(1), I(2), F(0), S(0), S(1));
#elif EMU_SLOT == 3
        EMU_ENTRY(O(0), O(1), I(0), I(1), P(2), F(0), S(0), S(1), S(2), S(3));
#elif EMU_SLOT == 4
        EMU_ENTRY(O(0), I(0), I(1), I(2), P(3), F(0), S(0), S(1), S(2), S(3), S(4));
#elif EMU_SLOT == 5 || EMU_SLOT == 7
        EMU_ENTRY(O(0), I(0), I(1), S(0), S(1), S(2));
#elif EMU_SLOT == 6
        EMU_ENTRY(O(0), I(0), I(1), I(2), P(3), F(0), S(0), S(1), S(2), S(3), S(4));
#elif EMU_SLOT == 8
        EMU_ENTRY(O(0), I(0), S(0), S(1), S(2), S(3));
#elif EMU_SLOT == 10
        EMU_ENTRY(O(0), I(0), P(1), I(2), I(3), I(4), S(0), S(1), S(2), S(3), S(4), S(5));
#else
#error "unknown EMU_SLOT"
#endif
    };
    emu_launch(grid, block, smem, cluster, body);

    if (bf_in != bf_before || i32_in != i32_before) { fprintf(stderr, "emu: an input changed\n"); return 4; }
    for (auto& o : outs) {
        for (size_t j = 0; j < GUARD; ++j) {
            if (o[j] != GUARD_BF16 || o[o.size() - 1 - j] != GUARD_BF16) {
                fprintf(stderr, "emu: write outside an output\n");
                return 5;
            }
        }
    }
    FILE* out = fopen(argv[2], "wb");
    if (!out) { perror("output"); return 3; }
    for (auto& o : outs) {
        const uint64_t len = o.size() - 2 * GUARD;
        fwrite(&len, 8, 1, out);
        fwrite(o.data() + GUARD, 2, len, out);
    }
    fclose(out);
    return 0;
}
