//! The node's RPC: Substrate's defaults plus account nonces and fee queries; on a `--dev`
//! chain also manual seal's `engine_createBlock` and `engine_finalizeBlock`.

use std::sync::Arc;

use cacheon_runtime::{opaque::Block, AccountId, Balance, Hash, Nonce};
use jsonrpsee::RpcModule;
use polkadot_sdk::{
    pallet_transaction_payment_rpc::{TransactionPayment, TransactionPaymentApiServer},
    sc_consensus_manual_seal::{
        rpc::{ManualSeal, ManualSealApiServer},
        EngineCommand,
    },
    sc_transaction_pool_api::TransactionPool,
    sp_api::ProvideRuntimeApi,
    sp_block_builder::BlockBuilder,
    sp_blockchain::{Error as BlockChainError, HeaderBackend, HeaderMetadata},
    substrate_frame_rpc_system::{System, SystemApiServer},
};

pub struct FullDeps<C, P> {
    pub client: Arc<C>,
    pub pool: Arc<P>,
    /// The dev chain's sealing task (`None` on a real chain): blocks on demand.
    pub seal: Option<futures::channel::mpsc::Sender<EngineCommand<Hash>>>,
}

pub fn create_full<C, P>(
    deps: FullDeps<C, P>,
) -> Result<RpcModule<()>, Box<dyn std::error::Error + Send + Sync>>
where
    C: ProvideRuntimeApi<Block>
        + HeaderBackend<Block>
        + HeaderMetadata<Block, Error = BlockChainError>,
    C: Send + Sync + 'static,
    C::Api: polkadot_sdk::substrate_frame_rpc_system::AccountNonceApi<Block, AccountId, Nonce>,
    C::Api:
        polkadot_sdk::pallet_transaction_payment_rpc::TransactionPaymentRuntimeApi<Block, Balance>,
    C::Api: BlockBuilder<Block>,
    P: TransactionPool + 'static,
{
    let mut module = RpcModule::new(());
    let FullDeps { client, pool, seal } = deps;
    module.merge(System::new(client.clone(), pool).into_rpc())?;
    module.merge(TransactionPayment::new(client).into_rpc())?;
    if let Some(seal) = seal {
        module.merge(ManualSeal::new(seal).into_rpc())?;
    }
    Ok(module)
}
