//! Chain specifications built from the runtime's genesis presets.

use cacheon_runtime::{genesis, WASM_BINARY};
use polkadot_sdk::{sc_chain_spec::ChainType, sc_service};

#[cfg(not(feature = "runtime-benchmarks"))]
pub type ChainSpec = sc_service::GenericChainSpec;
/// A runtime built with `runtime-benchmarks` needs the benchmarking host functions to build
/// its genesis.
#[cfg(feature = "runtime-benchmarks")]
pub type ChainSpec = sc_service::GenericChainSpec<
    polkadot_sdk::sc_chain_spec::NoExtension,
    polkadot_sdk::frame_benchmarking::benchmarking::HostFunctions,
>;

fn wasm() -> Result<&'static [u8], String> {
    WASM_BINARY.ok_or_else(|| {
        "this node was built with SKIP_WASM_BUILD: it has no runtime to run".to_string()
    })
}

fn properties() -> serde_json::Map<String, serde_json::Value> {
    let mut p = serde_json::Map::new();
    p.insert("tokenSymbol".into(), "CCH".into());
    p.insert("tokenDecimals".into(), 12.into());
    p.insert("ss58Format".into(), 42.into());
    p
}

/// `--dev`: one authority; blocks sealed by the node itself.
pub fn development() -> Result<ChainSpec, String> {
    Ok(ChainSpec::builder(wasm()?, None)
        .with_name("Cacheon Development")
        .with_id("cacheon_dev")
        .with_chain_type(ChainType::Development)
        .with_genesis_config_preset_name(genesis::DEVELOPMENT_PRESET)
        .with_properties(properties())
        .build())
}

/// `--chain local`: four Aura + GRANDPA authorities (Alice, Bob, Charlie, Dave).
pub fn local() -> Result<ChainSpec, String> {
    Ok(ChainSpec::builder(wasm()?, None)
        .with_name("Cacheon Local")
        .with_id("cacheon_local")
        .with_chain_type(ChainType::Local)
        .with_genesis_config_preset_name(genesis::LOCAL_PRESET)
        .with_properties(properties())
        .build())
}
