# What scripts/test.sh and scripts/flake-finder.sh share: one feature set for every test
# binary (so each crate is built once), the filters of the three steps, and how the
# end-to-end step runs. Sourced, not run.

# Every package with tests, in one cargo invocation and one feature set: cargo unifies
# features per invocation, and crates shared by invocations with different feature sets
# (the FRAME stack, the `cacheon` crate) are built once for each set.
# The pallet's benchmarks run as tests (`runtime-benchmarks`); the node's embedded wasm
# runtime is built without it (runtime/build.rs follows the runtime crate's own features).
TEST_PACKAGES=(-p cacheon-primitives -p pallet-cacheon -p cacheon-kernels -p cacheon
  -p cacheon-runtime -p cacheon-node -p cacheon-e2e)
TEST_FLAGS=(--locked "${TEST_PACKAGES[@]}" --features pallet-cacheon/runtime-benchmarks)

# Unit tests: everything but real processes and timings.
UNIT_FILTER='not (package(cacheon-e2e) | (package(cacheon) & binary(qualify)))'
# Tests that start nodes and validators or time a workload (tests/, and the `cacheon`
# crate's whole qualification attempts).
E2E_FILTER='package(cacheon-e2e) | (package(cacheon) & binary(qualify))'
# Of those, the ones that time nothing (no qualification reaches its timed reads: no
# validator, or only validators re-qualifying a bundle that FAILs verification, as in
# `challenge`): they run two at a time (in scripts/test.sh beside the unit tests, in
# scripts/flake-finder.sh before the others); the others run one at a time: a validator's
# timed reads must not share the machine with another test.
E2E_UNTIMED='package(cacheon-e2e) & binary(/^(dev_chain|local_network|chain_commands|submit|try_state|challenge|reproduction_idler|release)$/)'

# Builds every test binary and the binaries the end-to-end tests start (`--bins --tests`
# together: with the tests' dev-dependencies in the same resolution, nextest then finds all
# of it fresh), then the try-state tool. The try-state tool is the runtime built with
# `try-runtime`, which must not reach the node, so it is its own build; it runs the runtime
# natively, so it skips the wasm build.
build_all() {
  cargo build "${TEST_FLAGS[@]}" --bins --tests &&
    SKIP_WASM_BUILD=1 cargo build --locked -p cacheon-try-state
}

# The end-to-end tests that time nothing, two at a time.
run_untimed() {
  cargo nextest run "${TEST_FLAGS[@]}" --no-fail-fast --test-threads 2 -E "$E2E_UNTIMED"
}

# The tests a nextest filter picks (default: the end-to-end tests that time something), one
# at a time: a validator's timed reads must not share the machine with another test.
run_timed() {
  cargo nextest run "${TEST_FLAGS[@]}" --no-fail-fast --test-threads 1 \
    -E "${1:-($E2E_FILTER) & not ($E2E_UNTIMED)}"
}

# Runs the end-to-end tests a nextest filter picks (default: all of them, the untimed ones
# two at a time first). Fails when any test failed.
run_e2e() {
  local filter="${1:-$E2E_FILTER}" status=0
  if [ "$filter" = "$E2E_FILTER" ]; then
    run_untimed || status=1
    run_timed || status=1
  else
    run_timed "$filter" || status=1
  fi
  return "$status"
}
