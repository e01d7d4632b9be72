//! `cacheon-node`: the Cacheon chain's Substrate node.

#[cfg(feature = "runtime-benchmarks")]
mod benchmark;
mod chain_spec;
mod cli;
mod command;
mod rpc;
mod service;

fn main() -> polkadot_sdk::sc_cli::Result<()> {
    command::run()
}
