/* Driver for the CUDA engine's own kernels (src/cuda/engine_kernels.cu) under the CPU
 * emulation (emu.h), compiled after the kernel source. Each kernel runs on small inputs
 * that reach its tails (ragged lengths, grid-stride loops, padding rows, ties, NaN) and
 * is checked against a double-precision computation here. Exit 0: all passed. */
#include <cstdio>
#include <vector>

static int failures = 0;
#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fprintf(stderr, "\n");                         \
            if (++failures > 20) exit(1);                  \
        }                                                  \
    } while (0)

static uint64_t rng_state = 0x12345678abcdefull;
static float frand() { /* uniform in [-1, 1) */
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng_state >> 40) & 0xffffff) / 8388608.0f - 1.0f;
}
static std::vector<bf16_t> rand_bf16(size_t n) {
    std::vector<bf16_t> v(n);
    for (auto& x : v) x = f2b(frand());
    return v;
}

static void run_argmax(std::vector<int>& out, const bf16_t* l, long long rows, long long vocab, unsigned nb,
                       std::vector<unsigned long long>& part, std::vector<unsigned>& count) {
    emu_launch(dim3{(unsigned)rows, nb, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
               [&] { eng_argmax(out.data(), l, vocab, part.data(), count.data()); });
    for (long long r = 0; r < rows; ++r) CHECK(count[r] == 0, "argmax left count[%lld] = %u", r, count[r]);
}

static void test_argmax() {
    /* Odd vocab (scalar loads), several blocks per row, run twice (the counters reset). */
    const long long vocab = 3001;
    std::vector<bf16_t> l(4 * vocab);
    for (auto& v : l) v = f2b(frand());
    l[0 * vocab + 2999] = f2b(5.0f);                             /* row 0: max near the end */
    l[1 * vocab + 7] = f2b(4.0f);
    l[1 * vocab + 1500] = f2b(4.0f);                             /* row 1: tie, lowest wins */
    l[1 * vocab + 3] = 0x7FC0;                                   /* and a NaN never wins */
    for (long long j = 0; j < vocab; ++j) l[2 * vocab + j] = 0x7FC0; /* row 2: all NaN -> 0 */
    for (long long j = 0; j < vocab; ++j) l[3 * vocab + j] = f2b(-2.0f - (float)(j % 5));
    l[3 * vocab + 2500] = 0x8000;                                /* row 3: -0 beats negatives, */
    l[3 * vocab + 2600] = 0x0000;                                /* ties with +0: lowest wins */
    l[3 * vocab + 10] = 0xFF80;                                  /* and -inf never wins */
    for (unsigned nb : {1u, 3u, 5u}) {
        std::vector<unsigned long long> part(4 * nb, 0xdeadull);
        std::vector<unsigned> count(4, 0);
        for (int rep = 0; rep < 2; ++rep) {
            std::vector<int> out(4, -1);
            run_argmax(out, l.data(), 4, vocab, nb, part, count);
            CHECK(out[0] == 2999, "argmax nb %u row 0: %d", nb, out[0]);
            CHECK(out[1] == 7, "argmax nb %u row 1: %d", nb, out[1]);
            CHECK(out[2] == 0, "argmax nb %u row 2: %d", nb, out[2]);
            CHECK(out[3] == 2500, "argmax nb %u row 3: %d", nb, out[3]);
        }
    }
    /* A vocab of whole 16-byte vectors (the vector path), against a plain scan. */
    const long long v2 = 8 * 700;
    std::vector<bf16_t> l2(2 * v2 + 8);
    bf16_t* row0 = l2.data();
    while (((uintptr_t)row0) & 15) ++row0; /* 16-byte aligned rows */
    for (long long j = 0; j < 2 * v2; ++j) row0[j] = f2b(frand());
    row0[v2 + 4001] = f2b(3.0f);
    row0[v2 + 5] = f2b(3.0f);
    for (unsigned nb : {1u, 2u, 7u}) {
        std::vector<unsigned long long> part(2 * nb);
        std::vector<unsigned> count(2, 0);
        std::vector<int> out(2, -1);
        run_argmax(out, row0, 2, v2, nb, part, count);
        for (long long r = 0; r < 2; ++r) {
            int want = 0;
            for (long long j = 1; j < v2; ++j)
                if (b2f(row0[r * v2 + j]) > b2f(row0[r * v2 + want])) want = (int)j;
            CHECK(out[r] == want, "argmax (vectors) nb %u row %lld: %d, want %d", nb, r, out[r], want);
        }
        CHECK(out[1] == 5, "argmax (vectors) tie: %d", out[1]);
    }
}

static void test_gemv_qkv() {
    const long long q_dim = 40, kv_dim = 24, k = 8 * 140, n = q_dim + 2 * kv_dim, total_rows = 6;
    for (long long rows : {1ll, 2ll}) {
        auto x = rand_bf16(rows * k), w = rand_bf16(n * k);
        std::vector<int> cr = {4, rows == 2 ? -1 : 0};
        std::vector<bf16_t> q(rows * q_dim, 0x7F81), kk(rows * kv_dim, 0x7F81), vc(total_rows * kv_dim, 0x7F81);
        emu_launch(dim3{2, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
                   [&] { eng_gemv_qkv(q.data(), kk.data(), vc.data(), cr.data(), x.data(), w.data(), rows, q_dim, kv_dim, k); });
        for (long long m = 0; m < rows; ++m)
            for (long long j = 0; j < n; ++j) {
                double ref = 0, mag = 0;
                for (long long i = 0; i < k; ++i) {
                    double p = (double)b2f(x[m * k + i]) * b2f(w[j * k + i]);
                    ref += p;
                    mag += fabs(p);
                }
                bf16_t g;
                if (j < q_dim) g = q[m * q_dim + j];
                else if (j < q_dim + kv_dim) g = kk[m * kv_dim + j - q_dim];
                else if (cr[m] >= 0) g = vc[cr[m] * kv_dim + j - q_dim - kv_dim];
                else continue;
                double got = b2f(g);
                CHECK(fabs(got - ref) <= 8e-3 * fabs(ref) + 1e-5 * mag, "gemv_qkv rows %lld m %lld j %lld: %g vs %g",
                      rows, m, j, got, ref);
            }
        int written = 0;
        for (auto v : vc) written += v != 0x7F81;
        CHECK(written == kv_dim, "gemv_qkv wrote %d cache values", written);
    }
}

static double dot_ref(const bf16_t* x, const bf16_t* w, long long k, double* mag) {
    double s = 0, m = 0;
    for (long long i = 0; i < k; ++i) {
        double p = (double)b2f(x[i]) * b2f(w[i]);
        s += p;
        m += fabs(p);
    }
    *mag = m;
    return s;
}

/* The fused one-row q|k|v GEMV with RoPE: q rotated into q_rot, k rotated and v into the
 * cache rows, nothing into the cache for a padding row. */
static void test_gemv_qkv_rope() {
    const long long qh = 2, kvh = 1, hd = 16, half = hd / 2, k = 8 * 140, kv_dim = kvh * hd;
    const long long n = (qh + 2 * kvh) * hd, total_rows = 6;
    const float theta = 10000.0f;
    for (int cache_row : {3, -1}) {
        auto x = rand_bf16(k), w = rand_bf16(n * k);
        std::vector<int> cr = {cache_row}, pos = {1234};
        std::vector<bf16_t> q(qh * hd, 0x7F81), kc(total_rows * kv_dim, 0x7F81), vc(kc);
        /* 3 blocks take 12 pairs a step: the last step of 32 pairs is partial. */
        emu_launch(dim3{3, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1}, [&] {
            eng_gemv_qkv_rope(q.data(), kc.data(), vc.data(), cr.data(), pos.data(), x.data(), w.data(), qh, kvh,
                              hd, k, theta);
        });
        for (long long hh = 0; hh < qh + 2 * kvh; ++hh)
            for (long long i = 0; i < half; ++i) {
                const long long j0 = hh * hd + i, j1 = j0 + half;
                double m0, m1;
                const double d0 = dot_ref(x.data(), &w[j0 * k], k, &m0), d1 = dot_ref(x.data(), &w[j1 * k], k, &m1);
                double r0 = d0, r1 = d1;
                if (hh < qh + kvh) {
                    const double a = pos[0] * pow((double)theta, -2.0 * i / hd);
                    r0 = d0 * cos(a) - d1 * sin(a);
                    r1 = d1 * cos(a) + d0 * sin(a);
                }
                const double tol0 = 8e-3 * (fabs(d0) + fabs(d1)) + 1e-5 * (m0 + m1), tol1 = tol0;
                const bf16_t* at;
                if (hh < qh) at = &q[hh * hd];
                else if (cache_row < 0) continue;
                else if (hh < qh + kvh) at = &kc[cache_row * kv_dim + (hh - qh) * hd];
                else at = &vc[cache_row * kv_dim + (hh - qh - kvh) * hd];
                CHECK(fabs(b2f(at[i]) - r0) <= tol0, "gemv_qkv_rope row %d head %lld i %lld: %g vs %g", cache_row,
                      hh, i, b2f(at[i]), r0);
                CHECK(fabs(b2f(at[i + half]) - r1) <= tol1, "gemv_qkv_rope row %d head %lld i+half %lld: %g vs %g",
                      cache_row, hh, i, b2f(at[i + half]), r1);
            }
        int written = 0;
        for (size_t i = 0; i < kc.size(); ++i) written += (kc[i] != 0x7F81) + (vc[i] != 0x7F81);
        CHECK(written == (cache_row < 0 ? 0 : 2 * kv_dim), "gemv_qkv_rope wrote %d cache values (row %d)", written,
              cache_row);
        for (auto v : q) CHECK(v != 0x7F81, "gemv_qkv_rope left a q value unwritten");

        /* The two-launch form (the one-row product into a stacked buffer, then
         * eng_rope_cache_row) writes the same bits: 64 threads, half past the 32 pairs. */
        std::vector<bf16_t> qkv(n), q2(q.size(), 0x7F81), kc2(kc.size(), 0x7F81), vc2(kc2);
        emu_launch(dim3{4, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1}, [&] {
            gemv_body<4>(x.data(), w.data(), 1, n, k, [&](long long, long long j, float v) { qkv[j] = f2b(v); });
        });
        emu_launch(dim3{1, 1, 1}, dim3{64, 1, 1}, 0, dim3{1, 1, 1}, [&] {
            eng_rope_cache_row(q2.data(), kc2.data(), vc2.data(), cr.data(), pos.data(), qkv.data(), qh, kvh, hd,
                               theta);
        });
        CHECK(q2 == q && kc2 == kc && vc2 == vc, "rope_cache_row differs from gemv_qkv_rope (row %d)", cache_row);
    }
}

/* The many-row RoPE + cache-row kernel writes, for every row, the bits the one-row kernel
 * (checked above against double precision) writes for that row alone: head dim 16 (one
 * 8-pair vector a head half) on the vector path and 12 (D/2 = 6) on the pair-at-a-time
 * path; 2 + 2 x 3 heads over two head groups of 8 (the second one partial); a padding row;
 * positions past the first thousand; a misaligned q_rot forcing the pair path. */
static void test_rope_cache_rows() {
    const long long qh = 6, kvh = 3, total_rows = 9;
    const float theta = 500000.0f;
    for (long long hd : {16ll, 12ll})
        for (int misalign : {0, 1}) {
            const long long n = 5, qkv_dim = (qh + 2 * kvh) * hd, kv_dim = kvh * hd;
            auto qkv = rand_bf16(n * qkv_dim);
            std::vector<int> cr = {4, -1, 0, 8, 2}, pos = {0, 7, 1023, 4097, 3};
            std::vector<bf16_t> q(n * qh * hd + 8, 0x7F81), kc(total_rows * kv_dim, 0x7F81), vc(kc);
            emu_launch(dim3{(unsigned)n, (unsigned)((qh + 2 * kvh + 7) / 8), 1}, dim3{64, 1, 1}, 0, dim3{1, 1, 1},
                       [&] {
                           eng_rope_cache_rows(q.data() + misalign, kc.data(), vc.data(), cr.data(), pos.data(),
                                               qkv.data(), qh, kvh, hd, theta);
                       });
            std::vector<bf16_t> q1(q.size(), 0x7F81), kc1(kc.size(), 0x7F81), vc1(kc1);
            for (long long r = 0; r < n; ++r)
                emu_launch(dim3{1, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1}, [&] {
                    eng_rope_cache_row(q1.data() + misalign + r * qh * hd, kc1.data(), vc1.data(), &cr[r], &pos[r],
                                       qkv.data() + r * qkv_dim, qh, kvh, hd, theta);
                });
            CHECK(q == q1 && kc == kc1 && vc == vc1, "rope_cache_rows differs from rope_cache_row (hd %lld, misalign %d)",
                  hd, misalign);
            int unwritten = 0;
            for (long long i = 0; i < n * qh * hd; ++i) unwritten += q[misalign + i] == 0x7F81;
            CHECK(unwritten == 0, "rope_cache_rows left %d q values unwritten (hd %lld)", unwritten, hd);
            int written = 0;
            for (size_t i = 0; i < kc.size(); ++i) written += (kc[i] != 0x7F81) + (vc[i] != 0x7F81);
            CHECK(written == 4 * 2 * kv_dim, "rope_cache_rows wrote %d cache values (hd %lld)", written, hd);
        }
}

/* The fused one-row gate|up GEMV with SwiGLU against silu(x.w_g) * (x.w_u) in double. */
static void test_gemv_gate_up_silu() {
    const long long inter = 40, k = 8 * 150;
    auto x = rand_bf16(k), w = rand_bf16(2 * inter * k);
    std::vector<bf16_t> act(inter + 8, 0x7F81);
    emu_launch(dim3{3, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1}, /* 40 pairs, 12 a step */
               [&] { eng_gemv_gate_up_silu(act.data(), x.data(), w.data(), inter, k); });
    for (long long i = 0; i < inter; ++i) {
        double mg, mu;
        const double g = dot_ref(x.data(), &w[i * k], k, &mg), u = dot_ref(x.data(), &w[(inter + i) * k], k, &mu);
        const double sg = g / (1.0 + exp(-g)), ref = sg * u;
        const double tol = 1.2e-2 * fabs(ref) + 2e-5 * (mg * fabs(u) + mu * fabs(sg)) + 1e-6;
        CHECK(fabs(b2f(act[i]) - ref) <= tol, "gate_up_silu %lld: %g vs %g", i, b2f(act[i]), ref);
    }
    for (long long i = inter; i < inter + 8; ++i) CHECK(act[i] == 0x7F81, "gate_up_silu wrote past its output");
}

static void test_softmax() {
    const long long heads = 2, n = 5, klen = 9, start = 4;
    std::vector<float> s(heads * n * klen);
    for (auto& v : s) v = 4.0f * frand();
    std::vector<int> pos(n);
    for (long long t = 0; t < n; ++t) pos[t] = (int)(start + t);
    std::vector<bf16_t> p(heads * n * klen, 0x7F81);
    emu_launch(dim3{(unsigned)n, (unsigned)heads, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
               [&] { eng_causal_softmax(p.data(), s.data(), pos.data(), n, klen); });
    for (long long h = 0; h < heads; ++h)
        for (long long t = 0; t < n; ++t) {
            const float* row = &s[(h * n + t) * klen];
            long long valid = pos[t] + 1;
            double m = -1e30, sum = 0;
            for (long long j = 0; j < valid; ++j) m = std::max(m, (double)row[j]);
            for (long long j = 0; j < valid; ++j) sum += exp(row[j] - m);
            for (long long j = 0; j < klen; ++j) {
                double want = j < valid ? exp(row[j] - m) / sum : 0.0;
                double got = b2f(p[(h * n + t) * klen + j]);
                CHECK(fabs(got - want) <= 5e-3 * want + 1e-6, "softmax h %lld t %lld j %lld: %g vs %g", h, t, j,
                      got, want);
            }
        }
}

static void test_split_write_embed_synth() {
    const long long rows = 3, q_dim = 40, kv_dim = 24, cache_rows_total = 10;
    auto qkv = rand_bf16(rows * (q_dim + 2 * kv_dim));
    std::vector<int> cr = {7, -1, 2}; /* row 1 is padding: no cache write */
    std::vector<bf16_t> q(rows * q_dim), k(rows * kv_dim), vc(cache_rows_total * kv_dim, 0), kc(vc);
    emu_launch(dim3{(unsigned)rows, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
               [&] { eng_qkv_split(q.data(), k.data(), vc.data(), qkv.data(), cr.data(), q_dim, kv_dim); });
    emu_launch(dim3{(unsigned)rows, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
               [&] { eng_k_write(kc.data(), k.data(), cr.data(), kv_dim); });
    for (long long r = 0; r < rows; ++r) {
        const bf16_t* src = &qkv[r * (q_dim + 2 * kv_dim)];
        for (long long i = 0; i < q_dim; ++i) CHECK(q[r * q_dim + i] == src[i], "split q");
        for (long long i = 0; i < kv_dim; ++i) {
            CHECK(k[r * kv_dim + i] == src[q_dim + i], "split k");
            if (cr[r] >= 0) {
                CHECK(vc[cr[r] * kv_dim + i] == src[q_dim + kv_dim + i], "v cache row");
                CHECK(kc[cr[r] * kv_dim + i] == src[q_dim + i], "k cache row");
            }
        }
    }
    int written = 0;
    for (auto v : vc) written += v != 0;
    CHECK(written <= 2 * kv_dim, "the padding row wrote into the cache");

    /* 300: the element-wise path; 304 (a multiple of 8): the 16-byte vector path. */
    for (const long long hidden : {300LL, 304LL}) {
        auto table = rand_bf16(20 * hidden);
        std::vector<int> toks = {19, 0, 5};
        std::vector<bf16_t> e(3 * hidden);
        emu_launch(dim3{3, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
                   [&] { eng_embed(e.data(), table.data(), toks.data(), hidden); });
        for (long long r = 0; r < 3; ++r)
            for (long long i = 0; i < hidden; ++i)
                CHECK(e[r * hidden + i] == table[toks[r] * hidden + i], "embed (hidden %lld)", hidden);
    }

    const unsigned long long n = 20000;
    std::vector<bf16_t> w(n);
    emu_launch(dim3{2, 1, 1}, dim3{256, 1, 1}, 0, dim3{1, 1, 1},
               [&] { eng_synth(w.data(), n, 99ull, 1.0f, 0.1f); });
    double mean = 0;
    for (auto v : w) {
        float f = b2f(v);
        CHECK(f >= 0.89f && f <= 1.11f, "synth value %g", f); /* 1 +- 0.1, bf16-rounded */
        mean += f;
    }
    mean /= n;
    CHECK(fabs(mean - 1.0) < 0.005, "synth mean %g", mean);
}

int main() {
    test_argmax();
    test_gemv_qkv();
    test_gemv_qkv_rope();
    test_rope_cache_rows();
    test_gemv_gate_up_silu();
    test_softmax();
    test_split_write_embed_synth();
    if (failures) return 1;
    printf("engine kernels: all checks passed\n");
    return 0;
}
