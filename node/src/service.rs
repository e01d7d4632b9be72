//! The node's services. `--dev` chains seal their own blocks (on a timer or per transaction)
//! and finalize each at once; every other chain runs Aura authorship and GRANDPA finality.

use std::{sync::Arc, time::Duration};

use cacheon_runtime::{opaque::Block, RuntimeApi};
use futures::{FutureExt, StreamExt};
use polkadot_sdk::{
    sc_client_api::BlockBackend,
    sc_consensus, sc_consensus_aura,
    sc_consensus_aura::{ImportQueueParams, SlotProportion, StartAuraParams},
    sc_consensus_grandpa,
    sc_consensus_manual_seal::{
        self,
        consensus::{aura::AuraConsensusDataProvider, timestamp::SlotTimestampProvider},
    },
    sc_executor::WasmExecutor,
    sc_network,
    sc_service::{
        self, error::Error as ServiceError, Configuration, TaskManager, TransactionPool,
        WarpSyncConfig,
    },
    sc_telemetry::{Telemetry, TelemetryWorker},
    sc_transaction_pool,
    sc_transaction_pool_api::OffchainTransactionPoolFactory,
    sp_consensus_aura::sr25519::{AuthorityId as AuraId, AuthorityPair as AuraPair},
    sp_io,
    sp_runtime::traits::Block as BlockT,
    sp_timestamp,
};

use crate::cli::Sealing;

#[cfg(not(feature = "runtime-benchmarks"))]
type HostFunctions = sp_io::SubstrateHostFunctions;
/// A runtime built with `runtime-benchmarks` imports the benchmarking host functions too.
#[cfg(feature = "runtime-benchmarks")]
pub type HostFunctions = (
    sp_io::SubstrateHostFunctions,
    polkadot_sdk::frame_benchmarking::benchmarking::HostFunctions,
);
pub type FullClient = sc_service::TFullClient<Block, RuntimeApi, WasmExecutor<HostFunctions>>;
type FullBackend = sc_service::TFullBackend<Block>;
type FullSelectChain = sc_consensus::LongestChain<FullBackend, Block>;
type GrandpaBlockImport =
    sc_consensus_grandpa::GrandpaBlockImport<FullBackend, Block, FullClient, FullSelectChain>;
type GrandpaLink = sc_consensus_grandpa::LinkHalf<Block, FullClient, FullSelectChain>;

/// Blocks between GRANDPA justifications kept for warp sync.
const GRANDPA_JUSTIFICATION_PERIOD: u32 = 512;

pub type Service = sc_service::PartialComponents<
    FullClient,
    FullBackend,
    FullSelectChain,
    sc_consensus::DefaultImportQueue<Block>,
    sc_transaction_pool::TransactionPoolHandle<Block, FullClient>,
    (Option<(GrandpaBlockImport, GrandpaLink)>, Option<Telemetry>),
>;

/// Whether the chain seals its own blocks (`--dev`).
pub fn is_dev(config: &Configuration) -> bool {
    config.chain_spec.chain_type() == polkadot_sdk::sc_chain_spec::ChainType::Development
}

/// The parts every command needs: client, backend, pool and an import queue that matches
/// the chain's consensus.
pub fn new_partial(config: &Configuration) -> Result<Service, ServiceError> {
    let telemetry = config
        .telemetry_endpoints
        .clone()
        .filter(|x| !x.is_empty())
        .map(
            |endpoints| -> Result<_, polkadot_sdk::sc_telemetry::Error> {
                let worker = TelemetryWorker::new(16)?;
                let telemetry = worker.handle().new_telemetry(endpoints);
                Ok((worker, telemetry))
            },
        )
        .transpose()?;

    let executor = sc_service::new_wasm_executor::<HostFunctions>(&config.executor);
    let (client, backend, keystore_container, task_manager) =
        sc_service::new_full_parts::<Block, RuntimeApi, _>(
            config,
            telemetry.as_ref().map(|(_, telemetry)| telemetry.handle()),
            executor,
            Vec::new(),
        )?;
    let client = Arc::new(client);
    let telemetry = telemetry.map(|(worker, telemetry)| {
        task_manager
            .spawn_handle()
            .spawn("telemetry", None, worker.run());
        telemetry
    });
    let select_chain = sc_consensus::LongestChain::new(backend.clone());
    let transaction_pool = Arc::from(
        sc_transaction_pool::Builder::new(
            task_manager.spawn_essential_handle(),
            client.clone(),
            config.role.is_authority().into(),
        )
        .with_options(config.transaction_pool.clone())
        .with_prometheus(config.prometheus_registry())
        .build(),
    );

    let (import_queue, grandpa) = if is_dev(config) {
        let queue = sc_consensus_manual_seal::import_queue(
            Box::new(client.clone()),
            &task_manager.spawn_essential_handle(),
            config.prometheus_registry(),
        );
        (queue, None)
    } else {
        let (grandpa_block_import, grandpa_link) = sc_consensus_grandpa::block_import(
            client.clone(),
            GRANDPA_JUSTIFICATION_PERIOD,
            &client,
            select_chain.clone(),
            telemetry.as_ref().map(|x| x.handle()),
        )?;
        let cidp_client = client.clone();
        let queue = sc_consensus_aura::import_queue::<AuraPair, _, _, _, _, _>(
            ImportQueueParams {
                block_import: grandpa_block_import.clone(),
                justification_import: Some(Box::new(grandpa_block_import.clone())),
                client: client.clone(),
                create_inherent_data_providers: move |parent_hash, _| {
                    let cidp_client = cidp_client.clone();
                    async move {
                        let slot_duration = sc_consensus_aura::standalone::slot_duration_at(
                            &*cidp_client,
                            parent_hash,
                        )?;
                        let timestamp = sp_timestamp::InherentDataProvider::from_system_time();
                        let slot = polkadot_sdk::sp_consensus_aura::inherents::InherentDataProvider::from_timestamp_and_slot_duration(
                        *timestamp,
                        slot_duration,
                    );
                        Ok((slot, timestamp))
                    }
                },
                spawner: &task_manager.spawn_essential_handle(),
                registry: config.prometheus_registry(),
                check_for_equivocation: Default::default(),
                telemetry: telemetry.as_ref().map(|x| x.handle()),
                compatibility_mode: Default::default(),
            },
        )?;
        (queue, Some((grandpa_block_import, grandpa_link)))
    };

    Ok(sc_service::PartialComponents {
        client,
        backend,
        task_manager,
        import_queue,
        keystore_container,
        select_chain,
        transaction_pool,
        other: (grandpa, telemetry),
    })
}

/// Builds and starts a full node.
pub fn new_full<N: sc_network::NetworkBackend<Block, <Block as BlockT>::Hash>>(
    config: Configuration,
    sealing: Sealing,
    block_time: Duration,
) -> Result<TaskManager, ServiceError> {
    let dev = is_dev(&config);
    let sc_service::PartialComponents {
        client,
        backend,
        mut task_manager,
        import_queue,
        keystore_container,
        select_chain,
        transaction_pool,
        other: (grandpa, mut telemetry),
    } = new_partial(&config)?;

    let mut net_config = sc_network::config::FullNetworkConfiguration::<
        Block,
        <Block as BlockT>::Hash,
        N,
    >::new(&config.network, config.prometheus_registry().cloned());
    let metrics = N::register_notification_metrics(config.prometheus_registry());

    let grandpa_protocol_name = sc_consensus_grandpa::protocol_standard_name(
        &client
            .block_hash(0)
            .ok()
            .flatten()
            .expect("the genesis block exists"),
        &config.chain_spec,
    );
    let mut grandpa_notification_service = None;
    let mut warp_sync_config = None;
    if let Some((_, link)) = &grandpa {
        let (protocol_config, notification_service) =
            sc_consensus_grandpa::grandpa_peers_set_config::<_, N>(
                grandpa_protocol_name.clone(),
                metrics.clone(),
                net_config.peer_store_handle(),
            );
        net_config.add_notification_protocol(protocol_config);
        grandpa_notification_service = Some(notification_service);
        warp_sync_config = Some(WarpSyncConfig::WithProvider(Arc::new(
            sc_consensus_grandpa::warp_proof::NetworkProvider::new(
                backend.clone(),
                link.shared_authority_set().clone(),
                Vec::default(),
            ),
        )));
    }

    let (network, system_rpc_tx, tx_handler_controller, sync_service, _bitswap) =
        sc_service::build_network(sc_service::BuildNetworkParams {
            config: &config,
            net_config,
            client: client.clone(),
            transaction_pool: transaction_pool.clone(),
            spawn_handle: task_manager.spawn_handle(),
            spawn_essential_handle: task_manager.spawn_essential_handle(),
            import_queue,
            block_announce_validator_builder: None,
            warp_sync_config,
            block_relay: None,
            metrics,
            gap_sync_body_policy: None,
        })?;

    let role = config.role;
    let force_authoring = config.force_authoring;
    let name = config.network.node_name.clone();
    let enable_grandpa = !config.disable_grandpa;
    let prometheus_registry = config.prometheus_registry().cloned();

    // A `--dev` node also seals on demand: `engine_createBlock` (manual seal's RPC) sends its
    // commands into the same sealing task as the timer, so a test can move the chain past a
    // deadline without waiting for it.
    let (seal_requests, seal_commands) = futures::channel::mpsc::channel(64);
    let rpc_builder = {
        let client = client.clone();
        let pool = transaction_pool.clone();
        let seal = dev.then_some(seal_requests);
        Box::new(move |_| {
            let deps = crate::rpc::FullDeps {
                client: client.clone(),
                pool: pool.clone(),
                seal: seal.clone(),
            };
            crate::rpc::create_full(deps).map_err(Into::into)
        })
    };

    sc_service::spawn_tasks(sc_service::SpawnTasksParams {
        network: network.clone(),
        client: client.clone(),
        keystore: keystore_container.keystore(),
        task_manager: &mut task_manager,
        transaction_pool: transaction_pool.clone(),
        rpc_builder,
        backend,
        system_rpc_tx,
        tx_handler_controller,
        sync_service: sync_service.clone(),
        config,
        telemetry: telemetry.as_mut(),
        tracing_execute_block: None,
    })?;

    let proposer = polkadot_sdk::sc_basic_authorship::ProposerFactory::new(
        task_manager.spawn_handle(),
        client.clone(),
        transaction_pool.clone(),
        prometheus_registry.as_ref(),
        telemetry.as_ref().map(|x| x.handle()),
    );

    if dev {
        start_dev_sealing(
            &task_manager,
            client,
            transaction_pool,
            select_chain,
            proposer,
            sealing,
            block_time,
            seal_commands,
        )?;
        return Ok(task_manager);
    }

    let (block_import, grandpa_link) =
        grandpa.expect("non-dev chains build a GRANDPA block import");
    if role.is_authority() {
        let slot_duration = sc_consensus_aura::slot_duration::<AuraId, _, _>(&*client)?;
        let aura = sc_consensus_aura::start_aura::<AuraPair, _, _, _, _, _, _, _, _, _, _>(
            StartAuraParams {
                slot_duration,
                client: client.clone(),
                select_chain,
                block_import,
                proposer_factory: proposer,
                create_inherent_data_providers: move |_, ()| async move {
                    let timestamp = sp_timestamp::InherentDataProvider::from_system_time();
                    let slot = polkadot_sdk::sp_consensus_aura::inherents::InherentDataProvider::from_timestamp_and_slot_duration(
                    *timestamp,
                    slot_duration,
                );
                    Ok((slot, timestamp))
                },
                force_authoring,
                backoff_authoring_blocks: Option::<()>::None,
                keystore: keystore_container.keystore(),
                sync_oracle: sync_service.clone(),
                justification_sync_link: sync_service.clone(),
                block_proposal_slot_portion: SlotProportion::new(2f32 / 3f32),
                max_block_proposal_slot_portion: None,
                telemetry: telemetry.as_ref().map(|x| x.handle()),
                compatibility_mode: Default::default(),
            },
        )?;
        task_manager
            .spawn_essential_handle()
            .spawn_blocking("aura", Some("block-authoring"), aura);
    }

    if enable_grandpa {
        let keystore = if role.is_authority() {
            Some(keystore_container.keystore())
        } else {
            None
        };
        let grandpa_params = sc_consensus_grandpa::GrandpaParams {
            config: sc_consensus_grandpa::Config {
                gossip_duration: Duration::from_millis(333),
                justification_generation_period: GRANDPA_JUSTIFICATION_PERIOD,
                name: Some(name),
                observer_enabled: false,
                keystore,
                local_role: role,
                telemetry: telemetry.as_ref().map(|x| x.handle()),
                protocol_name: grandpa_protocol_name,
            },
            link: grandpa_link,
            network,
            sync: Arc::new(sync_service),
            notification_service: grandpa_notification_service
                .expect("set up with the GRANDPA block import"),
            voting_rule: sc_consensus_grandpa::VotingRulesBuilder::default().build(),
            prometheus_registry,
            shared_voter_state: sc_consensus_grandpa::SharedVoterState::empty(),
            telemetry: telemetry.as_ref().map(|x| x.handle()),
            offchain_tx_pool_factory: OffchainTransactionPoolFactory::new(transaction_pool),
        };
        task_manager.spawn_essential_handle().spawn_blocking(
            "grandpa-voter",
            None,
            sc_consensus_grandpa::run_grandpa_voter(grandpa_params)?,
        );
    }
    Ok(task_manager)
}

/// `--dev` authorship: blocks carry Aura digests for slots derived from a timestamp that
/// advances one slot per block, and every block is finalized when sealed.
fn start_dev_sealing(
    task_manager: &TaskManager,
    client: Arc<FullClient>,
    pool: Arc<sc_transaction_pool::TransactionPoolHandle<Block, FullClient>>,
    select_chain: FullSelectChain,
    proposer: polkadot_sdk::sc_basic_authorship::ProposerFactory<
        sc_transaction_pool::TransactionPoolHandle<Block, FullClient>,
        FullClient,
    >,
    sealing: Sealing,
    block_time: Duration,
    requested: futures::channel::mpsc::Receiver<
        sc_consensus_manual_seal::EngineCommand<<Block as BlockT>::Hash>,
    >,
) -> Result<(), ServiceError> {
    use sc_consensus_manual_seal::EngineCommand;

    let commands_stream: std::pin::Pin<
        Box<dyn futures::Stream<Item = EngineCommand<<Block as BlockT>::Hash>> + Send>,
    > = match sealing {
        Sealing::Timer => {
            let (mut sink, stream) = futures::channel::mpsc::channel(16);
            task_manager
                .spawn_handle()
                .spawn("dev-block-timer", None, async move {
                    loop {
                        futures_timer::Delay::new(block_time).await;
                        let seal = EngineCommand::SealNewBlock {
                            create_empty: true,
                            finalize: true,
                            parent_hash: None,
                            sender: None,
                        };
                        if sink.try_send(seal).is_err() {
                            // The authorship task is behind; skip this tick rather than queue up.
                            if sink.is_closed() {
                                break;
                            }
                        }
                    }
                });
            Box::pin(stream)
        }
        Sealing::Instant => {
            // Seal whenever a transaction enters the pool, and finalize at once. One block
            // is sealed first so that the transaction pool has a view to validate against.
            let seal = || EngineCommand::SealNewBlock {
                create_empty: true,
                finalize: true,
                parent_hash: None,
                sender: None,
            };
            let first = futures::stream::once(futures::future::ready(seal()));
            Box::pin(first.chain(pool.import_notification_stream().map(move |_| seal())))
        }
    };

    // Blocks asked for over RPC (`engine_createBlock`) come in beside the timer's or the pool's.
    let commands_stream = Box::pin(futures::stream::select(commands_stream, requested));
    let cidp_client = client.clone();
    let params = sc_consensus_manual_seal::ManualSealParams {
        block_import: client.clone(),
        env: proposer,
        client: client.clone(),
        pool,
        select_chain,
        commands_stream,
        consensus_data_provider: Some(Box::new(AuraConsensusDataProvider::new(client.clone()))),
        create_inherent_data_providers: move |_, ()| {
            let client = cidp_client.clone();
            async move {
                let timestamp =
                    SlotTimestampProvider::new_aura(client).map_err(|e| format!("{e}"))?;
                let slot = polkadot_sdk::sp_consensus_aura::inherents::InherentDataProvider::new(
                    timestamp.slot(),
                );
                Ok((slot, timestamp))
            }
        },
    };
    task_manager.spawn_essential_handle().spawn_blocking(
        "dev-seal",
        None,
        sc_consensus_manual_seal::run_manual_seal(params).boxed(),
    );
    Ok(())
}
