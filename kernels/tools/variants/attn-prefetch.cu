    /* (variant attn-pf) Before the dependency wait: this block's share of the cached rows
     * (all but the newest, which the grid before writes) heads for L2, a 128-byte line a
     * thread, K and V; seq_lens is the host's, written before the step. */
#if !defined(CACHEON_EMU) && defined(__CUDA_ARCH__)
    {
        const int64_t pb = blockIdx.x / kv_heads, pkvh = blockIdx.x % kv_heads;
        if (pb < batch && head_dim <= 256) {
            int64_t plen = seq_lens[pb];
            plen = plen < 0 ? 0 : (plen > max_seq ? max_seq : plen);
            const int64_t pchunk = (plen + NSPLIT - 1) / NSPLIT;
            const int64_t p0 = min(plen, (int64_t)__clusterRelativeBlockRank() * pchunk);
            const int64_t p1 = min(plen - 1, p0 + pchunk);
            const int64_t lines = (head_dim * 2 + 127) / 128, stride = kv_heads * head_dim;
            for (int64_t i = threadIdx.x; i < (p1 - p0) * lines * 2; i += NTHREADS) {
                const int64_t r = p0 + (i >> 1) / lines, off = ((i >> 1) % lines) * 64;
                const __nv_bfloat16* base = (i & 1) ? v_cache : k_cache;
                asm volatile("prefetch.global.L2 [%0];\n" ::"l"(base + (pb * max_seq + r) * stride + pkvh * head_dim + off));
            }
        }
    }
#endif
