#![cfg(feature = "runtime-benchmarks")]
