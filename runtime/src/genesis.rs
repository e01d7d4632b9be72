//! Genesis presets: `development` (one authority, fast epochs) and `local` (four authorities).
//!
//! Both register the catalog and the arenas of `cacheon_primitives::catalog` (one target per
//! slot and the atomic RoPE + decode target; the CPU arenas `cpu-tiny` and `cpu-smollm2` and
//! the CUDA arena `h200-llama8b`), and dev validators for every arena.

use crate::*;
use cacheon_primitives::catalog::{ARENAS, TARGETS};
use pallet_cacheon::{
    ArenaConfig, ArenaPolicy, EmissionsPolicy, EvaluationFee, Id, Status, TargetSpec,
};
use polkadot_sdk::sp_keyring::{Ed25519Keyring, Sr25519Keyring};

/// Name of the local-network preset (also accepted: `local_testnet`).
pub const LOCAL_PRESET: &str = "local";
/// Name of the development preset (also accepted: `dev`).
pub const DEVELOPMENT_PRESET: &str = DEV_RUNTIME_PRESET;

fn id(s: &str) -> Id {
    Id::try_from(s.as_bytes().to_vec()).expect("catalog ids are short ASCII")
}

/// The catalog of `cacheon_primitives::catalog`: one singleton target per slot, plus the
/// atomic target.
pub fn catalog() -> Vec<TargetSpec> {
    TARGETS
        .iter()
        .map(|t| TargetSpec {
            id: id(t.id),
            kind: t.kind,
            members: BoundedVec::truncate_from(t.members.iter().map(|m| id(m)).collect()),
            displaces: BoundedVec::truncate_from(t.displaces.iter().map(|d| id(d)).collect()),
            allowed_features: BoundedVec::new(),
            status: Status::Active,
        })
        .collect()
}

/// The arenas of `cacheon_primitives::catalog`, each allowing every target of the catalog.
pub fn arenas() -> Vec<ArenaConfig<BlockNumber>> {
    ARENAS
        .iter()
        .map(|a| {
            let digests = a.engine_digests();
            ArenaConfig {
                id: id(a.id),
                backend: a.backend,
                hardware: id(a.hardware),
                model_digest: digests.model,
                workload_digest: digests.workload,
                stock_digest: digests.stock,
                targets: BoundedVec::truncate_from(TARGETS.iter().map(|t| id(t.id)).collect()),
                policy: ArenaPolicy {
                    min_margin_ppm: a.min_margin_ppm,
                    max_noise_ppm: a.max_noise_ppm,
                    noise_multiplier: a.noise_multiplier,
                    lease_blocks: a.lease_blocks,
                    max_attempts: a.max_attempts,
                    required_distinct_validators: a.required_distinct_validators,
                    max_speedup_ppm: a.max_speedup_ppm,
                },
                status: Status::Active,
            }
        })
        .collect()
}

/// The genesis price of one second of a validator's machine: 0.01 UNIT. A dev chain's
/// number, not a market's; the admin origin quotes another with `set_evaluation_fee`.
pub const PRICE_PER_MACHINE_SECOND: Balance = UNIT / 100;

/// Each arena's evaluation fee: its median attempt's machine time at the genesis price.
pub fn evaluation_fees() -> Vec<(Id, EvaluationFee<Balance>)> {
    ARENAS
        .iter()
        .map(|a| {
            let fee = EvaluationFee {
                attempt_ms: a.median_attempt_ms,
                price_per_second: PRICE_PER_MACHINE_SECOND,
            };
            (id(a.id), fee)
        })
        .collect()
}

/// The reward pot's account.
pub fn pot_account() -> AccountId {
    pallet_cacheon::Pallet::<Runtime>::pot_account()
}

struct Preset {
    authorities: Vec<(Sr25519Keyring, Ed25519Keyring)>,
    validators: Vec<Sr25519Keyring>,
    epoch_blocks: BlockNumber,
    half_life_blocks: BlockNumber,
}

fn genesis(p: Preset) -> serde_json::Value {
    let endowed: Vec<(AccountId, Balance)> = Sr25519Keyring::iter()
        .map(|k| (k.to_account_id(), 1_000_000 * UNIT))
        .chain([(pot_account(), 1_000_000 * UNIT)])
        .collect();
    // Each dev validator key is its own operator.
    let validators: Vec<(Id, AccountId, AccountId)> = ARENAS
        .iter()
        .flat_map(|a| {
            p.validators
                .iter()
                .map(move |v| (id(a.id), v.to_account_id(), v.to_account_id()))
        })
        .collect();
    frame::deps::frame_support::build_struct_json_patch!(RuntimeGenesisConfig {
        balances: BalancesConfig { balances: endowed },
        aura: AuraConfig {
            authorities: p
                .authorities
                .iter()
                .map(|(a, _)| a.public().into())
                .collect::<Vec<_>>()
        },
        grandpa: GrandpaConfig {
            authorities: p
                .authorities
                .iter()
                .map(|(_, g)| (g.public().into(), 1))
                .collect::<Vec<_>>()
        },
        sudo: SudoConfig {
            key: Some(Sr25519Keyring::Alice.to_account_id())
        },
        cacheon: CacheonConfig {
            targets: catalog(),
            arenas: arenas(),
            validators,
            emissions: Some(EmissionsPolicy {
                half_life_blocks: p.half_life_blocks,
                epoch_blocks: p.epoch_blocks,
                emission_per_epoch: 10 * UNIT,
                bootstrap_account: Sr25519Keyring::Ferdie.to_account_id(),
            }),
            evaluation_fees: evaluation_fees(),
        },
    })
}

/// Development: Alice authors and finalizes; Alice, Bob and Dave validate every arena;
/// 10-block epochs so a demo sees weights quickly.
fn development() -> serde_json::Value {
    genesis(Preset {
        authorities: vec![(Sr25519Keyring::Alice, Ed25519Keyring::Alice)],
        validators: vec![
            Sr25519Keyring::Alice,
            Sr25519Keyring::Bob,
            Sr25519Keyring::Dave,
        ],
        epoch_blocks: 10,
        half_life_blocks: 1_000,
    })
}

/// Local network: four Aura + GRANDPA authorities (GRANDPA needs more than two thirds of the
/// voters, so four tolerate one node down); hourly epochs at 6 s blocks.
fn local() -> serde_json::Value {
    genesis(Preset {
        authorities: vec![
            (Sr25519Keyring::Alice, Ed25519Keyring::Alice),
            (Sr25519Keyring::Bob, Ed25519Keyring::Bob),
            (Sr25519Keyring::Charlie, Ed25519Keyring::Charlie),
            (Sr25519Keyring::Dave, Ed25519Keyring::Dave),
        ],
        validators: vec![
            Sr25519Keyring::Alice,
            Sr25519Keyring::Bob,
            Sr25519Keyring::Dave,
        ],
        epoch_blocks: 600,
        half_life_blocks: 100_800,
    })
}

/// The JSON of a named preset.
pub fn preset(id: &PresetId) -> Option<Vec<u8>> {
    let name: &str = id.as_ref();
    let value = match name {
        DEVELOPMENT_PRESET | "dev" => development(),
        LOCAL_PRESET | LOCAL_TESTNET_RUNTIME_PRESET => local(),
        _ => return None,
    };
    Some(
        serde_json::to_string(&value)
            .expect("preset serializes")
            .into_bytes(),
    )
}

pub fn preset_names() -> Vec<PresetId> {
    vec![
        PresetId::from(DEVELOPMENT_PRESET),
        PresetId::from(LOCAL_PRESET),
    ]
}
