#!/usr/bin/env python3
"""Tokens per second of SmolLM2-135M-Instruct on this machine: the Cacheon CPU engine with
the stock kernels (`cacheon generate --json`) beside llama.cpp (the PyPI package
`llama-cpp-python`, built from source by pip) on the same GGUF file, the same chat prompt and
greedy decoding, in one run. A benchmark, not a test: it prints a table and JSON lines.

Usage: python3 kernels/bench/smollm2_vs_llamacpp.py [--cacheon PATH] [--model GGUF] [--tokens N]
Needs: `pip install llama-cpp-python` (docs/model.md says how it was measured).
"""
import argparse
import json
import os
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--cacheon", default=os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/cacheon/target")),
    "debug", "cacheon"))
ap.add_argument("--model", default=os.environ.get("CACHEON_SMOLLM2_GGUF", os.path.expanduser(
    "~/.cache/cacheon/models/SmolLM2-135M-Instruct.Q4_1.gguf")))
ap.add_argument("--tokens", type=int, default=48)
args = ap.parse_args()

QUESTION = ("Explain in a few sentences how a refrigerator keeps food cold, "
            "and why its back feels warm.")
SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
PROMPT = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{QUESTION}<|im_end|>\n"
          "<|im_start|>assistant\n")

rows = []

# Cacheon: the engine with the stock C kernels through the slots, f32 weights, one core.
out = subprocess.run([args.cacheon, "--json", "generate", "--max-tokens", str(args.tokens),
                      "--model", args.model, QUESTION], capture_output=True, text=True, check=True)
c = json.loads(out.stdout.strip().splitlines()[-1])
rows.append({"engine": "cacheon (stock kernels, f32, 1 thread)", "prompt_tokens": c["prompt_tokens"],
             "generated": c["generated_tokens"], "prefill_tok_s": c["prefill_tokens_per_s"],
             "decode_tok_s": c["decode_tokens_per_s"], "text": c["text"]})

# llama.cpp on the same file, greedy, one thread and every thread.
from llama_cpp import Llama  # noqa: E402

for threads in (1, os.cpu_count() or 1):
    llm = Llama(model_path=args.model, n_ctx=512, n_threads=threads, n_threads_batch=threads,
                verbose=False)
    ids = llm.tokenize(PROMPT.encode(), add_bos=False, special=True)
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(ids)
    t1 = time.perf_counter()
    generated = []
    eos = llm.token_eos()
    for _ in range(args.tokens):
        tok = llm.sample(top_k=1, temp=0.0)
        if tok == eos:
            break
        generated.append(tok)
        llm.eval([tok])
    t2 = time.perf_counter()
    rows.append({"engine": f"llama.cpp (Q4_1 kernels, {threads} thread{'s' if threads > 1 else ''})",
                 "prompt_tokens": len(ids), "generated": len(generated),
                 "prefill_tok_s": len(ids) / (t1 - t0),
                 "decode_tok_s": len(generated) / max(t2 - t1, 1e-9),
                 "text": llm.detokenize(generated).decode(errors="replace")})
    del llm

print(f"{'engine':44} {'prompt':>6} {'gen':>4} {'prefill tok/s':>14} {'decode tok/s':>13}")
for r in rows:
    print(f"{r['engine']:44} {r['prompt_tokens']:>6} {r['generated']:>4} "
          f"{r['prefill_tok_s']:>14.1f} {r['decode_tok_s']:>13.1f}")
base = rows[0]
for r in rows[1:]:
    print(f"llama.cpp / cacheon ({r['engine']}): prefill {r['prefill_tok_s'] / base['prefill_tok_s']:.1f}x, "
          f"decode {r['decode_tok_s'] / base['decode_tok_s']:.1f}x")
for r in rows:
    print(json.dumps(r))
