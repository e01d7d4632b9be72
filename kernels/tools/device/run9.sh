#!/usr/bin/env bash
# Session 18, device call 2: variants of examples/cuda/matmul-rows8-mma (32-bit offsets)
# against stock at batch 8 (context 576, the batched part's); the fastest becomes the
# example (its knobs set by sed, as kernels/tools/rows8-variants.sh writes them); if it
# beats stock's batch-8 step by 3 % or more, the GPU crown on chain with it
# (scripts/gpu-crown.sh: dev node, Alice and Bob on GPU 0, Charlie's proposal); then the
# batched part's profile (prefill 512 and batch-8 step breakdowns) with what time is left.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r9; mkdir -p $R; B=target/gpu-bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $R/gpu.txt
for v in stock $(ls target/rows8-variants) stock2; do
  case $v in stock*) b=();; *) b=(--bundle target/rows8-variants/$v);; esac
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 576 --batch 8 --replays 100 "${b[@]}" --json-out $R/dec-$v.jsonl > $R/dec-$v.txt 2>&1
  echo "$v $(grep -h -o '"ms_per_step":[0-9.]*' $R/dec-$v.jsonl | head -1 | cut -d: -f2)" >> $R/b8.txt
done
el "variants"; cat $R/b8.txt
W=$(python3 - $R/b8.txt <<'PY'
import sys
ms={}
for l in open(sys.argv[1]):
    p=l.split()
    if len(p)==2: ms[p[0]]=float(p[1])
stock=min(ms.get('stock',9e9),ms.get('stock2',9e9))
best=min((t,k) for k,t in ms.items() if not k.startswith('stock'))
print('%s %.4f' % (best[1], best[0]/stock))
PY
)
el "best: $W (ratio to stock)"
name=${W% *}; ratio=${W#* }
cp target/rows8-variants/$name/kernels/matmul_rows8.cu examples/cuda/matmul-rows8-mma/kernels/matmul_rows8.cu
sed -i "s/^block = .*/$(grep '^block' target/rows8-variants/$name/manifest.toml)/" examples/cuda/matmul-rows8-mma/manifest.toml
cp -r examples/cuda/matmul-rows8-mma $R/crowned-bundle
if python3 -c "import sys; sys.exit(0 if float('$ratio') <= 0.97 else 1)"; then
  CACHEON_BIN_DIR=target/gpu-cli timeout 440 scripts/gpu-crown.sh examples/cuda/matmul-rows8-mma $R/crown > $R/crown.out 2>&1
  el "crown rc $?"; grep -aE "crown|PASS|FAIL|attest|lease|weight|paid|block" $R/crown.out | tail -30 | cut -c1-200
  pkill -f target/gpu-cli/ ; sleep 2
else
  el "no crown attempt: the best variant is not 3 % faster at batch 8"
fi
left=$(( 590 - $(date +%s) + T0 ))
if [ $left -gt 40 ]; then
  timeout $(( left - 15 )) $B/cacheon-engine-bench --prompt 512 --context 576 --batch 8 --replays 50 --breakdown --breakdown-reps 20 --json-out $R/prof.jsonl > $R/prof.txt 2>&1
  el "profile rc $?"; grep -E "^(prefill|decode) |sum of ops" $R/prof.txt | cut -c1-160
fi
tar czf $OUT/r9.tgz -C /tmp r9
el done
