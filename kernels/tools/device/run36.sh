#!/usr/bin/env bash
# Session 23, twelfth call (the H200 of run35, still warm; run inline as this script's
# body, without lib.sh's tests, which run35 had just run): the committed set's full run
# (prefill 2048, batches 1 and 8 at context 2048), its floor, PyTorch eager, and the same
# full run with --unfused. Carries target/gpu-carry (unpacked by run35 on that machine).
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
R=$OUT/r36; mkdir -p "$R"; B=target/gpu-bin
nvidia-smi --query-gpu=name --format=csv,noheader
source <(sed -n '/^summary()/,$p' "$(dirname "$0")/lib.sh")
headline
run unfused 2048 --unfused
el done
