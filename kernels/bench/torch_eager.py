#!/usr/bin/env python3
"""PyTorch eager baseline for `cacheon-cuda-engine-bench` (DESIGN 8), same shapes and method.

`llama8b-8l`: hidden 4096, 32 heads, 8 KV heads, head_dim 128, intermediate 14336,
vocab 128256, 8 layers, bf16, random weights with the engine's scales (embeddings
U[-1, 1), norms 1 +- 0.1, projections uniform with std 1/sqrt(in)). A Hugging Face style
Llama written out: RMSNorm (f32 inside), rotate-half RoPE (theta 500000), GQA through
`scaled_dot_product_attention(enable_gqa=True)`, SwiGLU, a preallocated KV cache
`[batch, kv_heads, max_seq, head_dim]` per layer. The q/k/v and gate/up projections are
fused into one matmul each (fewer launches than HF's separate Linear modules: a
slightly stronger eager baseline). No torch.compile, no CUDA graphs.

Timing as in the Rust bench: CUDA events; prefill of 1 x 2048 tokens after one warm-up,
best of 3; decode with every sequence at context 2048, 5 warm-up steps then 50 timed
steps, each rewriting the same cache position. Prints JSON lines with the bench's field
names (`engine`, `kind`, `shape`, `batch`, `tokens`, `ms`, `tokens_per_s`, `context`,
`ms_per_step`, `graph`).

Usage: python3 kernels/bench/torch_eager.py [--batch 1 --batch 8] [--json-out FILE]
"""

import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F

SHAPE = "llama8b-8l"
H, NH, KVH, HD, INTER, VOCAB, LAYERS = 4096, 32, 8, 128, 14336, 128256, 8
EPS, THETA = 1e-5, 500000.0
DT = torch.bfloat16


def uniform(shape, center, half_width, gen):
    t = torch.empty(shape, dtype=torch.float32, device="cuda")
    t.uniform_(-half_width, half_width, generator=gen)
    return (t + center).to(DT)


def linear_w(out_f, in_f, gen):
    return uniform((out_f, in_f), 0.0, math.sqrt(3.0 / in_f), gen)


class Model:
    def __init__(self, max_batch, max_seq, seed=1):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        q_dim, kv_dim = NH * HD, KVH * HD
        self.embed = uniform((VOCAB, H), 0.0, 1.0, gen)
        self.layers = []
        for _ in range(LAYERS):
            self.layers.append(
                dict(
                    n1=uniform((H,), 1.0, 0.1, gen),
                    wqkv=torch.cat(
                        [linear_w(q_dim, H, gen), linear_w(kv_dim, H, gen), linear_w(kv_dim, H, gen)]
                    ),
                    wo=linear_w(H, q_dim, gen),
                    n2=uniform((H,), 1.0, 0.1, gen),
                    wgu=torch.cat([linear_w(INTER, H, gen), linear_w(INTER, H, gen)]),
                    wd=linear_w(H, INTER, gen),
                )
            )
        self.norm = uniform((H,), 1.0, 0.1, gen)
        self.lm_head = linear_w(VOCAB, H, gen)
        self.k_cache = [
            torch.zeros((max_batch, KVH, max_seq, HD), dtype=DT, device="cuda") for _ in range(LAYERS)
        ]
        self.v_cache = [torch.zeros_like(k) for k in self.k_cache]
        inv_freq = 1.0 / (THETA ** (torch.arange(0, HD, 2, dtype=torch.float32, device="cuda") / HD))
        pos = torch.arange(max_seq, dtype=torch.float32, device="cuda")
        freqs = torch.outer(pos, inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.cos, self.sin = emb.cos().to(DT), emb.sin().to(DT)

    def weight_bytes_per_step(self):
        n = self.norm.numel() + self.lm_head.numel()
        for lw in self.layers:
            n += sum(t.numel() for t in lw.values())
        return 2 * n


def rmsnorm(x, w):
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)
    return w * xf.to(x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : HD // 2], x[..., HD // 2 :]
    return torch.cat([-x2, x1], dim=-1)


@torch.inference_mode()
def forward(m, tokens, start):
    """tokens [B, T] appended to every sequence at positions start..start+T; returns the
    greedy next token of each sequence (logits of the last position only)."""
    b, t = tokens.shape
    q_dim, kv_dim = NH * HD, KVH * HD
    x = m.embed[tokens]
    cos = m.cos[start : start + t][None, None]
    sin = m.sin[start : start + t][None, None]
    for l, lw in enumerate(m.layers):
        h = rmsnorm(x, lw["n1"])
        qkv = h @ lw["wqkv"].t()
        q, k, v = qkv.split([q_dim, kv_dim, kv_dim], dim=-1)
        q = q.view(b, t, NH, HD).transpose(1, 2)
        k = k.view(b, t, KVH, HD).transpose(1, 2)
        v = v.view(b, t, KVH, HD).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        kc, vc = m.k_cache[l], m.v_cache[l]
        kc[:b, :, start : start + t] = k
        vc[:b, :, start : start + t] = v
        keys, values = kc[:b, :, : start + t], vc[:b, :, : start + t]
        o = F.scaled_dot_product_attention(
            q, keys, values, is_causal=(t > 1 and start == 0), enable_gqa=True
        )
        o = o.transpose(1, 2).reshape(b, t, q_dim)
        x = x + o @ lw["wo"].t()
        h = rmsnorm(x, lw["n2"])
        g, u = (h @ lw["wgu"].t()).chunk(2, dim=-1)
        x = x + (F.silu(g) * u) @ lw["wd"].t()
    x = rmsnorm(x[:, -1], m.norm)
    logits = x @ m.lm_head.t()
    return logits.argmax(-1)


def timed(fn, reps):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, action="append")
    ap.add_argument("--prompt", type=int, default=2048)
    ap.add_argument("--context", type=int, default=2048)
    ap.add_argument("--replays", type=int, default=50)
    ap.add_argument("--json-out")
    a = ap.parse_args()
    batches = a.batch or [1, 8]
    if not torch.cuda.is_available():
        print("torch_eager: no CUDA device", file=sys.stderr)
        return 2
    lines = []

    def emit(d):
        s = json.dumps(d)
        print(s, flush=True)
        lines.append(s)

    print(
        f"# torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}",
        flush=True,
    )
    max_seq = max(a.prompt, a.context + 1)
    m = Model(max(batches), max_seq)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2)
    prompt = torch.randint(0, VOCAB, (1, a.prompt), device="cuda", generator=gen)

    forward(m, prompt, 0)  # warm-up
    prefill_ms = min(timed(lambda: forward(m, prompt, 0), 1) for _ in range(3))
    emit(
        dict(
            engine="torch-eager", kind="prefill", shape=SHAPE, batch=1, tokens=a.prompt,
            ms=prefill_ms, tokens_per_s=a.prompt / (prefill_ms / 1e3),
        )
    )
    for b in batches:
        toks = torch.randint(0, VOCAB, (b, 1), device="cuda", generator=gen)
        step = lambda: forward(m, toks, a.context)  # noqa: E731
        timed(step, 5)
        ms = timed(step, a.replays)
        emit(
            dict(
                engine="torch-eager", kind="decode", shape=SHAPE, batch=b, context=a.context,
                ms_per_step=ms, tokens_per_s=b / (ms / 1e3), graph=False,
                weight_bytes=m.weight_bytes_per_step(),
            )
        )
    if a.json_out:
        with open(a.json_out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
