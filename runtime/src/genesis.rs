//! Genesis presets: `development` (one authority, fast epochs) and `local` (four authorities).
//!
//! Both register the catalog of DESIGN 5 (five slots and the atomic RoPE + decode target), the
//! CPU arena `cpu-tiny` and the CUDA arena `h200-llama8b`, and dev validators for both arenas.

use crate::*;
use alloc::format;
use pallet_cacheon::{
    ArenaConfig, ArenaPolicy, Backend, EmissionsPolicy, Id, Status, TargetKind, TargetSpec,
};
use polkadot_sdk::sp_keyring::{Ed25519Keyring, Sr25519Keyring};

/// Name of the local-network preset (also accepted: `local_testnet`).
pub const LOCAL_PRESET: &str = "local";
/// Name of the development preset (also accepted: `dev`).
pub const DEVELOPMENT_PRESET: &str = DEV_RUNTIME_PRESET;

/// The five slots of DESIGN 5, in catalog order.
pub const SLOTS: [&str; 5] = [
    "activation.silu_and_mul",
    "norm.rmsnorm",
    "norm.fused_add_rmsnorm",
    "position.rope",
    "attention.decode",
];
/// The atomic target: RoPE and decode attention replaced together.
pub const ROPE_DECODE: &str = "attention.rope_decode.v1";
pub const CPU_ARENA: &str = "cpu-tiny";
pub const CUDA_ARENA: &str = "h200-llama8b";

fn id(s: &str) -> Id {
    Id::try_from(s.as_bytes().to_vec()).expect("preset ids are short ASCII")
}

/// The catalog: one singleton target per slot, plus the atomic target.
pub fn catalog() -> Vec<TargetSpec> {
    let mut targets: Vec<TargetSpec> = SLOTS
        .iter()
        .map(|s| TargetSpec {
            id: id(s),
            kind: TargetKind::Slot,
            members: BoundedVec::truncate_from(vec![id(s)]),
            displaces: BoundedVec::new(),
            allowed_features: BoundedVec::new(),
            status: Status::Active,
        })
        .collect();
    let members = vec![id("position.rope"), id("attention.decode")];
    targets.push(TargetSpec {
        id: id(ROPE_DECODE),
        kind: TargetKind::Atomic,
        members: BoundedVec::truncate_from(members.clone()),
        displaces: BoundedVec::truncate_from(members),
        allowed_features: BoundedVec::new(),
        status: Status::Active,
    });
    targets
}

/// A digest naming an engine component, e.g. `digest("model", "tiny")`. The off-chain
/// arena table (`offchain/src/arena.rs`) names the same engines; nothing compares the two
/// yet (docs/README.md, "Arenas").
pub fn digest(kind: &str, name: &str) -> [u8; 32] {
    frame::hashing::sha2_256(format!("cacheon/{kind}/v1/{name}").as_bytes())
}

/// The two arenas. Every arena allows all targets of the catalog.
pub fn arenas() -> Vec<ArenaConfig<BlockNumber>> {
    let all_targets: Vec<Id> = SLOTS
        .iter()
        .map(|s| id(s))
        .chain([id(ROPE_DECODE)])
        .collect();
    vec![
        ArenaConfig {
            id: id(CPU_ARENA),
            backend: Backend::Cpu,
            hardware: id("x86-64-v3"),
            model_digest: digest("model", "tiny"),
            workload_digest: digest("workload", "cpu-tiny"),
            stock_digest: digest("stock", "cpu-c11-scalar"),
            targets: BoundedVec::truncate_from(all_targets.clone()),
            policy: ArenaPolicy {
                min_margin_ppm: 20_000,
                max_noise_ppm: 150_000,
                noise_multiplier: 3,
                lease_blocks: 300,
                max_attempts: 3,
                required_distinct_validators: 2,
            },
            status: Status::Active,
        },
        ArenaConfig {
            id: id(CUDA_ARENA),
            backend: Backend::Cuda,
            hardware: id("sm90a"),
            model_digest: digest("model", "llama8b-8l"),
            workload_digest: digest("workload", "h200-llama8b"),
            stock_digest: digest("stock", "cuda-bf16-hopper"),
            targets: BoundedVec::truncate_from(all_targets),
            policy: ArenaPolicy {
                min_margin_ppm: 10_000,
                max_noise_ppm: 20_000,
                noise_multiplier: 3,
                lease_blocks: 600,
                max_attempts: 3,
                required_distinct_validators: 2,
            },
            status: Status::Active,
        },
    ]
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
    let validators: Vec<(Id, AccountId, AccountId)> = [CPU_ARENA, CUDA_ARENA]
        .iter()
        .flat_map(|a| {
            p.validators
                .iter()
                .map(move |v| (id(a), v.to_account_id(), v.to_account_id()))
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
        },
    })
}

/// Development: Alice authors and finalizes; Alice, Bob and Dave validate both arenas;
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
