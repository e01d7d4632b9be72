//! Command line: the usual Substrate node flags plus how `--dev` seals blocks.

use polkadot_sdk::sc_cli;

/// How a `--dev` chain makes blocks. Every sealed block is finalized at once, so clients that
/// wait for finality work on a one-node chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sealing {
    /// A block every `--dev-block-time` milliseconds, with or without transactions.
    Timer,
    /// A block as soon as a transaction arrives.
    Instant,
}

#[derive(Debug, clap::Parser)]
#[command(
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  cacheon-node --dev --tmp                 one node, a finalized block every second\n  cacheon-node --dev --tmp --sealing instant\n  cacheon-node --chain local --alice --tmp  one of four Aura + GRANDPA authorities"
)]
pub struct Cli {
    #[command(subcommand)]
    pub subcommand: Option<Subcommand>,

    #[clap(flatten)]
    pub run: sc_cli::RunCmd,

    /// With `--dev`: how blocks are sealed (always finalized at once).
    #[arg(long, value_enum, default_value_t = Sealing::Timer)]
    pub sealing: Sealing,

    /// With `--dev --sealing timer`: milliseconds between blocks (as polkadot-omni-node).
    #[arg(long = "dev-block-time", value_name = "MS", default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(50..))]
    pub dev_block_time_ms: u64,
}

#[derive(Debug, clap::Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum Subcommand {
    /// Key management: generate, inspect, insert.
    #[command(subcommand)]
    Key(sc_cli::KeySubcommand),

    /// Build a chain specification (deprecated upstream in favour of `export-chain-spec`).
    BuildSpec(sc_cli::BuildSpecCmd),

    /// Export the chain specification of `--chain`.
    ExportChainSpec(sc_cli::ExportChainSpecCmd),

    /// Validate blocks.
    CheckBlock(sc_cli::CheckBlockCmd),

    /// Export blocks.
    ExportBlocks(sc_cli::ExportBlocksCmd),

    /// Export the state of a given block into a chain spec.
    ExportState(sc_cli::ExportStateCmd),

    /// Import blocks.
    ImportBlocks(sc_cli::ImportBlocksCmd),

    /// Remove the whole chain.
    PurgeChain(sc_cli::PurgeChainCmd),

    /// Revert the chain to a previous state.
    Revert(sc_cli::RevertCmd),

    /// Database meta columns information.
    ChainInfo(sc_cli::ChainInfoCmd),

    /// Measure a pallet's benchmarks in the wasm runtime and write its weights.
    #[cfg(feature = "runtime-benchmarks")]
    BenchmarkPallet(crate::benchmark::BenchmarkPalletCmd),
}
