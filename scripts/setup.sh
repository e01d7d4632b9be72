#!/usr/bin/env bash
# Installs what the build needs on a fresh machine: the wasm target for the runtime,
# rust-src, protoc, OpenSSL's development files and cargo-nextest. Safe to run again;
# prints what it does.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is missing; install Rust with rustup first" >&2
  exit 1
fi
if command -v rustup >/dev/null 2>&1; then
  installed=$(rustup target list --installed)
  for t in wasm32v1-none wasm32-unknown-unknown; do
    grep -qx "$t" <<<"$installed" || { echo "setup: rustup target add $t"; rustup target add "$t"; }
  done
  rustup component list --installed | grep -q '^rust-src' || { echo "setup: rustup component add rust-src"; rustup component add rust-src; }
else
  echo "setup: rustup not found; assuming the toolchain already has the wasm32v1-none target" >&2
fi
# The node's networking (litep2p) generates code from .proto files at build time.
if ! command -v protoc >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get install protobuf-compiler"
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null && $sudo_cmd apt-get install -y -qq protobuf-compiler >/dev/null
  else
    echo "setup: protoc is missing; install the protobuf compiler (package protobuf-compiler)" >&2
    exit 1
  fi
fi
# The node links the system's OpenSSL (.cargo/config.toml: OPENSSL_NO_VENDOR) instead of
# compiling a vendored copy.
if ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl; }; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get install libssl-dev pkg-config"
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null && $sudo_cmd apt-get install -y -qq libssl-dev pkg-config >/dev/null
  else
    echo "setup: OpenSSL's development files are missing; install them (libssl-dev and pkg-config, or openssl-devel)" >&2
    exit 1
  fi
fi
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: cargo install cargo-nextest --locked"
  cargo install cargo-nextest --locked
fi
# The CPU arena's real model (tests that need it skip without it).
"$(dirname "$0")/fetch-model.sh" || echo "setup: continuing without the SmolLM2 model" >&2
