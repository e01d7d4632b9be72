//! Runtime tests: presets build a genesis state; the committed metadata matches the runtime.

use crate::*;
use frame::deps::sp_io::TestExternalities;

/// Merges a preset (a JSON patch) into `base`, as the node's chain-spec builder does.
fn merge(base: &mut serde_json::Value, patch: serde_json::Value) {
    match (base, patch) {
        (serde_json::Value::Object(b), serde_json::Value::Object(p)) => {
            for (k, v) in p {
                merge(b.entry(k).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, p) => *b = p,
    }
}

fn build_preset(name: &str) -> TestExternalities {
    let patch: serde_json::Value =
        serde_json::from_slice(&genesis::preset(&PresetId::from(name)).expect("preset exists"))
            .unwrap();
    let mut config = serde_json::to_value(RuntimeGenesisConfig::default()).unwrap();
    merge(&mut config, patch);
    let mut ext = TestExternalities::new_empty();
    ext.execute_with(|| {
        build_state::<RuntimeGenesisConfig>(serde_json::to_vec(&config).unwrap())
            .expect("preset builds a genesis state")
    });
    ext
}

#[test]
fn presets_build_a_genesis_state() {
    for name in [genesis::DEVELOPMENT_PRESET, genesis::LOCAL_PRESET] {
        build_preset(name).execute_with(|| {
            assert_eq!(
                pallet_cacheon::Targets::<Runtime>::count(),
                cacheon_primitives::catalog::TARGETS.len() as u32,
                "{name}: catalog"
            );
            assert_eq!(
                pallet_cacheon::Arenas::<Runtime>::count(),
                cacheon_primitives::catalog::ARENAS.len() as u32,
                "{name}: arenas"
            );
            for arena in cacheon_primitives::catalog::ARENAS.map(|a| a.id) {
                let id = pallet_cacheon::Id::try_from(arena.as_bytes().to_vec()).unwrap();
                let info = pallet_cacheon::Arenas::<Runtime>::get(&id).expect("arena exists");
                assert_eq!(info.validators, 3, "{name}/{arena}: validators");
                assert_eq!(info.generation, 0);
            }
            assert!(pallet_cacheon::Emissions::<Runtime>::get().is_some());
            assert!(!pallet_aura::Authorities::<Runtime>::get().is_empty());
            assert!(Balances::free_balance(genesis::pot_account()) > 0);
            pallet_cacheon::Pallet::<Runtime>::do_try_state()
                .expect("genesis satisfies the invariants");
        });
    }
    assert!(genesis::preset(&PresetId::from("no-such-preset")).is_none());
}

#[test]
fn presets_are_listed() {
    assert_eq!(
        genesis::preset_names(),
        vec!["development".to_string(), "local".to_string()]
    );
    for name in genesis::preset_names() {
        assert!(
            genesis::preset(&name).is_some(),
            "{name} is listed but not built"
        );
    }
}

/// Path of the committed metadata that the off-chain code generates its subxt types from.
const METADATA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/metadata/cacheon.scale");

/// Fails when the runtime's metadata (V16: it describes the pallet's view functions, which V15
/// cannot) differs from the committed file. Regenerate with
/// `CACHEON_BLESS=1 cargo test -p cacheon-runtime metadata`.
#[test]
fn committed_metadata_matches_the_runtime() {
    let current: Vec<u8> = Runtime::metadata_at_version(16)
        .expect("V16 metadata is supported")
        .to_vec();
    if std::env::var_os("CACHEON_BLESS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(METADATA_FILE).parent().unwrap()).unwrap();
        std::fs::write(METADATA_FILE, &current).expect("write metadata");
    }
    let committed = std::fs::read(METADATA_FILE)
        .expect("runtime/metadata/cacheon.scale exists; run with CACHEON_BLESS=1");
    assert!(
        committed == current,
        "runtime metadata drifted from {METADATA_FILE}; rerun with CACHEON_BLESS=1 and commit the file"
    );
}

/// Outside `SKIP_WASM_BUILD`, the build produced a wasm runtime.
#[test]
fn wasm_runtime_is_built() {
    match WASM_BINARY {
        Some(wasm) => {
            assert_eq!(&wasm[..4], b"\0asm", "the runtime blob is WebAssembly");
            assert!(
                wasm.len() > 100_000,
                "the runtime blob is implausibly small"
            );
        }
        None => eprintln!("SKIP: built with SKIP_WASM_BUILD; no wasm runtime to check"),
    }
}

/// The committed metadata describes the settlement pallet's view functions (what V16 adds), so
/// clients can call `weight_vector`, `incumbent_stack` and `proposal_status` by name.
#[test]
fn committed_metadata_lists_the_view_functions() {
    use codec::Decode;
    use frame::deps::frame_support::__private::metadata::{
        RuntimeMetadata, RuntimeMetadataPrefixed,
    };
    let bytes = std::fs::read(METADATA_FILE).expect("runtime/metadata/cacheon.scale exists");
    let prefixed = RuntimeMetadataPrefixed::decode(&mut &bytes[..]).expect("metadata decodes");
    let RuntimeMetadata::V16(metadata) = prefixed.1 else {
        panic!("committed metadata is not V16");
    };
    let cacheon = metadata
        .pallets
        .iter()
        .find(|p| p.name == "Cacheon")
        .expect("the Cacheon pallet is in the metadata");
    let mut names: Vec<&str> = cacheon
        .view_functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["incumbent_stack", "proposal_status", "weight_vector"]
    );
}

#[test]
fn fees_follow_the_documented_schedule() {
    use frame::deps::frame_support::weights::WeightToFee as _;
    use frame::deps::sp_runtime::traits::{Convert, One};
    use frame::deps::sp_runtime::FixedPointNumber;
    use pallet_transaction_payment::Config as Payment;
    // 10 planck per unit of ref time, 10 µUNIT per byte.
    let ref_time = Weight::from_parts(1_000_000, 0);
    assert_eq!(
        <Runtime as Payment>::WeightToFee::weight_to_fee(&ref_time),
        10_000_000
    );
    let bytes = Weight::from_parts(1024, 0);
    assert_eq!(
        <Runtime as Payment>::LengthToFee::weight_to_fee(&bytes),
        1024 * UNIT / 100_000
    );
    // The multiplier rises after a block fuller than 25 % and falls after an emptier one,
    // never below a tenth.
    build_preset(genesis::DEVELOPMENT_PRESET).execute_with(|| {
        let max = <Runtime as frame_system::Config>::BlockWeights::get().max_block;
        let after = |fraction: u64| {
            frame_system::Pallet::<Runtime>::set_block_consumed_resources(max / 100 * fraction, 0);
            <Runtime as Payment>::FeeMultiplierUpdate::convert(Multiplier::one())
        };
        assert!(
            after(75) > Multiplier::one(),
            "a block 75 % full raises the fee"
        );
        assert!(after(5) < Multiplier::one(), "a block 5 % full lowers it");
        frame_system::Pallet::<Runtime>::set_block_consumed_resources(Weight::zero(), 0);
        let floor = Multiplier::saturating_from_rational(1, 10u128);
        assert_eq!(
            <Runtime as Payment>::FeeMultiplierUpdate::convert(floor),
            floor
        );
    });
}

#[test]
fn settlement_calls_are_charged_their_benchmarked_weights() {
    use frame::deps::frame_support::dispatch::GetDispatchInfo;
    use pallet_cacheon::weights::{SubstrateWeight, WeightInfo};
    type W = SubstrateWeight<Runtime>;
    type Call = pallet_cacheon::Call<Runtime>;
    let charged = |call: Call| RuntimeCall::Cacheon(call).get_dispatch_info().call_weight;
    let id = |s: &str| s.as_bytes().to_vec().try_into().expect("a short id");
    let reveal = |len: usize| Call::reveal {
        arena: id("cpu-tiny"),
        target: id("activation.silu_and_mul"),
        salt: [0; 32],
        bundle: vec![0u8; len].try_into().expect("within the bundle bound"),
    };
    let cases = [
        (
            charged(Call::commit {
                commitment: [1; 32],
            }),
            W::commit(),
        ),
        (
            charged(Call::cancel_commit {
                commitment: [1; 32],
            }),
            W::cancel_commit(),
        ),
        (charged(Call::withdraw { proposal: 3 }), W::withdraw()),
        (charged(reveal(100)), W::reveal(100)),
        (charged(reveal(100_000)), W::reveal(100_000)),
        (
            charged(Call::claim { proposal: 3 }),
            // The benchmark's, plus the reads of the operator's and the arena's bonds.
            W::claim(<<Runtime as pallet_cacheon::Config>::MaxQueueLen as Get<
                u32,
            >>::get())
            .saturating_add(<Runtime as frame_system::Config>::DbWeight::get().reads(2)),
        ),
        (
            charged(Call::bond {
                arena: id("cpu-tiny"),
                amount: 1,
            }),
            W::bond(),
        ),
        (
            charged(Call::unbond {
                arena: id("cpu-tiny"),
                amount: 1,
            }),
            W::unbond(),
        ),
        (
            charged(Call::overturn_fail { proposal: 3 }),
            W::overturn_fail(),
        ),
        (
            charged(Call::attest_sealed {
                proposal: 3,
                incumbent_generation: 0,
                seal: [1; 32],
            }),
            W::attest_sealed(),
        ),
        (
            charged(Call::reveal_pass {
                proposal: 3,
                speedup_ppm: 1_100_000,
                evidence_digest: [1; 32],
                attempt_digest: [2; 32],
                salt: [3; 32],
            }),
            pallet_cacheon::Pallet::<Runtime>::reveal_worst_weight(),
        ),
    ];
    for (i, (charged, measured)) in cases.into_iter().enumerate() {
        assert_eq!(charged, measured, "call {i}");
        assert!(charged.ref_time() > 0, "call {i} is charged something");
    }
    // A reveal's weight grows with its bundle (the bytes are hashed and stored).
    assert!(charged(reveal(100_000)).ref_time() > charged(reveal(100)).ref_time());
}

/// Verdicts, reveals of sealed PASSes and leases must not be crowded out of blocks that
/// ordinary calls fill (a miner's reveal window and a lease are counted in blocks): the
/// validators' calls are `Operational`, with the block's reserve beyond the normal share and
/// a higher pool priority; everybody else's stay `Normal`.
#[test]
fn validator_calls_are_operational_and_everyone_elses_normal() {
    use frame::deps::frame_support::dispatch::{DispatchClass, GetDispatchInfo};
    use pallet_cacheon::Attestation;
    type Call = pallet_cacheon::Call<Runtime>;
    let class = |call: Call| RuntimeCall::Cacheon(call).get_dispatch_info().class;
    let attestation = Attestation {
        verdict: cacheon_primitives::Verdict::Pass {
            speedup_ppm: 1_100_000,
        },
        incumbent_generation: 0,
        evidence_digest: [1; 32],
        attempt_digest: [2; 32],
    };
    let validators = [
        Call::claim { proposal: 3 },
        Call::attest {
            proposal: 3,
            attestation,
        },
        Call::attest_sealed {
            proposal: 3,
            incumbent_generation: 0,
            seal: [1; 32],
        },
        Call::reveal_pass {
            proposal: 3,
            speedup_ppm: 1_100_000,
            evidence_digest: [1; 32],
            attempt_digest: [2; 32],
            salt: [3; 32],
        },
        Call::claim_challenge { challenge: 0 },
        Call::answer_challenge {
            challenge: 0,
            verdict: cacheon_primitives::Verdict::Fail {
                reason: cacheon_primitives::FailReason::Incorrect,
            },
            evidence_digest: [4; 32],
        },
    ];
    for call in validators {
        let name = format!("{call:?}");
        assert_eq!(class(call), DispatchClass::Operational, "{name}");
    }
    for call in [
        Call::commit {
            commitment: [1; 32],
        },
        Call::withdraw { proposal: 3 },
        Call::challenge { proposal: 3 },
    ] {
        let name = format!("{call:?}");
        assert_eq!(class(call), DispatchClass::Normal, "{name}");
    }
    // The operational class has room beyond what normal calls may fill.
    let weights = <Runtime as frame_system::Config>::BlockWeights::get();
    let normal = weights
        .get(DispatchClass::Normal)
        .max_total
        .unwrap_or(weights.max_block);
    let operational = weights
        .get(DispatchClass::Operational)
        .max_total
        .unwrap_or(weights.max_block);
    assert!(operational.ref_time() > normal.ref_time());
}
