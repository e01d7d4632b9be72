# Sourced by gpu-bench.sh (and by any one-off device script) with the results folder's name:
# unpacks the carried binaries (target/gpu-carry/gpu.tar.xz, pack.sh), names the card and
# its driver, runs the GPU test executables (cuda_stock: every stock kernel against the
# reference; cuda_engine: graph = eager bitwise, tokens = the CPU engine's), and defines
# `el` (seconds since the start), `summary` (prefill and decode times of a --json-out file),
# `run` (one engine bench run at context 2048, batches 1 and 8, 100 replays, its JSON kept),
# `torch` (PyTorch eager in the same call), `breakdown`, `regs` and `arena_profile`.
# $B is the binaries' folder (target/gpu-bin; `B=target/gpu-bin-old run ...` for the older set).
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=$OUT/$1; mkdir -p "$R"; B=target/gpu-bin
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$R/gpu.txt"
timeout 90 $B/cuda_stock --test-threads=1 > "$R/cuda_stock.txt" 2>&1; el "cuda_stock rc $?"; grep -E "test result|FAIL|panic" "$R/cuda_stock.txt" | head -5
timeout 150 $B/cuda_engine --test-threads=1 --nocapture > "$R/cuda_engine.txt" 2>&1; el "cuda_engine rc $?"; grep -E "test result|FAIL|panic" "$R/cuda_engine.txt" | head -5
summary() { # name, jsonl
  local p b1 b8
  p=$(grep -h '"kind":"prefill"' "$2" | grep -o '"ms":[0-9.]*' | cut -d: -f2)
  b1=$(grep -h '"kind":"decode"' "$2" | grep '"batch":1,' | grep -o '"ms_per_step":[0-9.]*' | cut -d: -f2)
  b8=$(grep -h '"kind":"decode"' "$2" | grep '"batch":8,' | grep -o '"ms_per_step":[0-9.]*' | cut -d: -f2)
  echo "$1 prefill $p b1 $b1 b8 $b8"
}
run() { # name, prompt length, engine bench flags...
  local n=$1 p=$2; shift 2
  timeout 90 $B/cacheon-cuda-engine-bench --prompt "$p" --context 2048 --batch 1 --batch 8 --replays 100 "$@" --json-out "$R/$n.jsonl" > "$R/$n.txt" 2>&1
  echo "rc $? $(summary "$n" "$R/$n.jsonl")"
}
torch() { # PyTorch eager at batches 1 and 8 on this GPU, in this call
  timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 --json-out "$R/torch.jsonl" > "$R/torch.txt" 2>&1; el "torch rc $?"
  grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' "$R/torch.txt"
}
breakdown() { # name, engine bench flags...: the batch-1 breakdown at context 2048 (16-token prompt), its rows
  local n=$1; shift
  timeout 60 $B/cacheon-cuda-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 "$@" --json-out "$R/$n.jsonl" > "$R/$n.txt" 2>&1; el "$n rc $?"
  grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention.decode|o_proj|gate_up|silu|down|lm_head|argmax|sum)" "$R/$n.txt" | cut -c1-150 | head -14
}
regs() { # .cu files: the registers (and spills) ptxas gives each entry for sm_90a
  local f
  for f in "$@"; do
    timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 -Xptxas -v -o /dev/null "$f" 2>&1 | grep -E "Compiling entry|registers" | paste - - \
      | sed -E 's/.*entry function .([a-z_]+). for .sm_90a.*Used ([0-9]+) registers(.*)/\1 \2 regs\3/'
  done
}
arena_profile() { # the breakdowns behind offchain/src/arena/profile.rs: a 2048-token prefill with batch-1 steps at context 2048, 512-token prefills with batch-8 steps at context 576
  timeout 120 $B/cacheon-cuda-engine-bench --prompt 2048 --context 2048 --batch 1 --replays 100 --breakdown --json-out "$R/profile-2048.jsonl" > "$R/profile-2048.txt" 2>&1; el "profile 2048 rc $?"
  timeout 120 $B/cacheon-cuda-engine-bench --prompt 512 --context 576 --batch 8 --replays 100 --breakdown --json-out "$R/profile-512.jsonl" > "$R/profile-512.txt" 2>&1; el "profile 512 rc $?"
}
