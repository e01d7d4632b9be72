//! The chain client: subxt with types generated from the runtime metadata committed with
//! the runtime (`runtime/metadata/cacheon.scale`, kept in step by the runtime's drift
//! test), keys from a secret URI or a key file, and transactions that wait for finality
//! within a deadline.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use subxt::{OnlineClient, PolkadotConfig};
use subxt_signer::sr25519::Keypair;
use subxt_signer::SecretUri;

pub mod reads;
pub mod stakes;

#[subxt::subxt(runtime_metadata_path = "../runtime/metadata/cacheon.scale")]
pub mod api {}

pub type Client = OnlineClient<PolkadotConfig>;
/// The chain's state at one block.
pub type At = subxt::client::ClientAtBlock<
    PolkadotConfig,
    subxt::client::OnlineClientAtBlockImpl<PolkadotConfig>,
>;
pub type AccountId = subxt::utils::AccountId32;
/// A proposal as the pallet stores it (and its `proposal_status` view function returns).
pub type Proposal = api::runtime_types::pallet_cacheon::types::Proposal<AccountId, u32, u128>;
pub type ProposalStatus = api::runtime_types::pallet_cacheon::types::ProposalStatus<AccountId, u32>;
pub type RecordedFail = api::runtime_types::pallet_cacheon::types::RecordedFail<AccountId>;
pub type RecordedPass = api::runtime_types::pallet_cacheon::types::RecordedPass<AccountId>;
/// A reproduction's primary PASS: sealed (blind verdicts) or open.
pub type PrimaryPass = api::runtime_types::pallet_cacheon::types::PrimaryPass<AccountId>;
pub type SealedPass = api::runtime_types::pallet_cacheon::types::SealedPass<AccountId>;

/// The operator of a primary PASS, sealed or open.
pub fn primary_operator(primary: &PrimaryPass) -> &AccountId {
    match primary {
        PrimaryPass::Open(pass) => &pass.operator,
        PrimaryPass::Sealed(pass) => &pass.operator,
    }
}
pub type Events = subxt::extrinsics::ExtrinsicEvents<PolkadotConfig>;
/// A verdict as the chain's calls and events carry it.
pub type ApiVerdict = api::runtime_types::cacheon_primitives::verdict::Verdict;

/// A verdict as JSON: `verdict` (`pass`, `fail`, `no_decision`) with the PASS's
/// `speedup_ppm` or the `reason` of a FAIL or NoDecision.
pub fn verdict_json(v: &ApiVerdict) -> serde_json::Value {
    match v {
        ApiVerdict::Pass { speedup_ppm } => {
            serde_json::json!({"verdict": "pass", "speedup_ppm": speedup_ppm})
        }
        ApiVerdict::Fail { reason } => {
            serde_json::json!({"verdict": "fail", "reason": format!("{reason:?}")})
        }
        ApiVerdict::NoDecision { reason } => {
            serde_json::json!({"verdict": "no_decision", "reason": format!("{reason:?}")})
        }
    }
}

/// Why a chain operation did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// The node cannot be reached, or stopped answering.
    #[error("node unavailable: {0}")]
    Unavailable(String),
    /// The transaction was refused: invalid, or its dispatch failed (with the pallet error).
    #[error("transaction refused: {0}")]
    Refused(String),
    /// Finality (or an awaited event) did not come in time.
    #[error("timed out: {0}")]
    Timeout(String),
    /// A key or argument could not be used.
    #[error("{0}")]
    Input(String),
}

impl ChainError {
    /// The `cacheon` exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            ChainError::Refused(_) => crate::exit::CHAIN_REFUSED,
            ChainError::Unavailable(_) | ChainError::Timeout(_) => crate::exit::CHAIN_UNAVAILABLE,
            ChainError::Input(_) => crate::exit::USAGE,
        }
    }
}

/// A node or RPC failure, as the error the chain commands report.
pub fn unavailable(e: impl std::fmt::Display) -> ChainError {
    ChainError::Unavailable(e.to_string())
}

/// Connects to `url`, retrying until `timeout`.
pub async fn connect(url: &str, timeout: Duration) -> Result<Client, ChainError> {
    let start = std::time::Instant::now();
    loop {
        match Client::from_insecure_url(url).await {
            Ok(c) => return Ok(c),
            Err(e) if start.elapsed() >= timeout => {
                return Err(ChainError::Unavailable(format!("{url}: {e}")))
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

/// A signing key from a secret URI (`//Alice`, a mnemonic, `0x…` seed, with optional
/// derivation) or from a file holding one. Never both.
pub fn signer(suri: Option<&str>, key_file: Option<&Path>) -> Result<Keypair, ChainError> {
    let text = match (suri, key_file) {
        (Some(s), None) => s.to_string(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .map_err(|e| ChainError::Input(format!("reading key file {}: {e}", path.display())))?
            .trim()
            .to_string(),
        (Some(_), Some(_)) => {
            return Err(ChainError::Input(
                "give --suri or --key-file, not both".into(),
            ))
        }
        (None, None) => {
            return Err(ChainError::Input(
                "a signing key is needed: --suri (e.g. //Charlie on a dev chain) or --key-file"
                    .into(),
            ))
        }
    };
    let uri = SecretUri::from_str(&text)
        .map_err(|e| ChainError::Input(format!("not a secret URI: {e}")))?;
    Keypair::from_uri(&uri).map_err(|e| ChainError::Input(format!("bad key: {e}")))
}

/// The account of a key.
pub fn account(key: &Keypair) -> AccountId {
    key.public_key().into()
}

/// Signs and submits `call`, waits until it is in a finalized block and succeeded.
pub async fn submit<Call: subxt::transactions::Payload>(
    client: &Client,
    call: &Call,
    key: &Keypair,
    timeout: Duration,
) -> Result<(Events, u64), ChainError> {
    let work = async {
        let at = client.at_current_block().await.map_err(unavailable)?;
        let progress = at
            .transactions()
            .sign_and_submit_then_watch_default(call, key)
            .await
            .map_err(|e| ChainError::Refused(e.to_string()))?;
        let in_block = progress
            .wait_for_finalized()
            .await
            .map_err(|e| ChainError::Refused(e.to_string()))?;
        let hash = in_block.block_hash();
        let events = in_block
            .wait_for_success()
            .await
            .map_err(|e| ChainError::Refused(e.to_string()))?;
        let number = client
            .at_block(hash)
            .await
            .map(|b| b.block_number())
            .map_err(unavailable)?;
        Ok((events, number))
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| ChainError::Timeout(format!("not finalized within {} s", timeout.as_secs())))?
}

/// Bytes as the runtime's bounded vector type.
pub fn bounded(
    bytes: &[u8],
) -> api::runtime_types::bounded_collections::bounded_vec::BoundedVec<u8> {
    api::runtime_types::bounded_collections::bounded_vec::BoundedVec(bytes.to_vec())
}

/// Calls one of the runtime's view functions at `at` (the pallet's read interface for
/// clients: `proposal_status`, `incumbent_stack`, `weight_vector`).
///
/// The runtime API `RuntimeViewFunction_execute_view_function` takes `(ViewFunctionId,
/// Vec<u8>)` and answers `Result<Vec<u8>, ViewFunctionDispatchError>` (frame-support 49).
/// subxt 0.51.1's `ViewFunctionsClient::call` passes the inputs without their length prefix
/// (the runtime answers `Err(Codec)`) and decodes the answer as the bare output, so this
/// builds the call's arguments and opens the answer itself.
pub async fn view<P>(at: &At, payload: P) -> Result<P::ReturnType, ChainError>
where
    P: subxt::view_functions::Payload,
{
    use codec::Decode;
    use subxt::ext::scale_decode::IntoVisitor;
    let functions = at.view_functions();
    // subxt encodes the view function's id followed by its inputs; the runtime API takes
    // `(ViewFunctionId, Vec<u8>)`, so the inputs go in as one length-prefixed vector.
    let encoded = functions.encode_args(&payload).map_err(unavailable)?;
    if encoded.len() < 32 {
        return Err(unavailable("a view function id is 32 bytes"));
    }
    let (id, inputs) = encoded.split_at(32);
    let mut args = id.to_vec();
    codec::Encode::encode_to(&inputs.to_vec(), &mut args);
    let raw = functions.call_raw(Some(&args)).await.map_err(unavailable)?;
    let (pallet, function) = (payload.pallet_name(), payload.function_name());
    let what = || format!("view function {pallet}.{function}");
    let answer = <Result<Vec<u8>, ()>>::decode(&mut &raw[..])
        .map_err(|e| unavailable(format!("{}: {e}", what())))?;
    let bytes = answer.map_err(|()| {
        unavailable(format!(
            "{} failed in the runtime (answer {})",
            what(),
            hex::encode(&raw)
        ))
    })?;
    let metadata = at.metadata_ref();
    subxt::ext::frame_decode::view_functions::decode_view_function_response(
        pallet,
        function,
        &mut &bytes[..],
        metadata,
        metadata.types(),
        P::ReturnType::into_visitor(),
    )
    .map_err(|e| unavailable(format!("{} output: {e}", what())))
}
