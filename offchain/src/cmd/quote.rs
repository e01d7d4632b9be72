//! What a submission will hold and cost, read from the chain before anything is sent: the
//! commit deposit (held from the commitment until the reveal), the bundle deposit (held
//! per byte while the chain keeps the bytes), the arena's evaluation fee (held from the
//! reveal: the operators whose verdicts decide the proposal are paid from it, the rest
//! comes back), the reveal fee (spent) and the two transactions' fees (the node's estimate
//! for these very calls). `cacheon submit` prints it and sends nothing when the account
//! cannot pay it.

use cacheon::chain::{self, api, reads, ChainError};
use serde_json::{json, Value};
use subxt::transactions::DefaultParams;
use subxt_signer::sr25519::Keypair;

use super::display::units;

/// The figures of one submission, in planck.
pub struct Quote {
    pub commit_deposit: u128,
    pub bundle_deposit: u128,
    /// One verdict's worth times the operators the arena needs.
    pub evaluation_fee: u128,
    pub reveal_fee: u128,
    pub commit_tx_fee: u128,
    pub reveal_tx_fee: u128,
    /// What the account must keep (pallet-balances' existential deposit).
    pub existential: u128,
    /// The account's free balance now.
    pub free: u128,
}

impl Quote {
    /// Held: the commit deposit until the reveal, the bundle deposit until the proposal
    /// ends (slashed only for what the bytes are), the evaluation fee until the proposal
    /// ends (what confirmed verdicts did not earn comes back).
    pub fn held(&self) -> u128 {
        self.commit_deposit + self.bundle_deposit + self.evaluation_fee
    }

    /// Spent for good: the reveal fee and the transaction fees.
    pub fn spent(&self) -> u128 {
        self.reveal_fee + self.commit_tx_fee + self.reveal_tx_fee
    }

    /// The free balance the submission needs: the commit deposit is still held when the
    /// reveal pays the fee and holds the bundle deposit, and the account must stay alive.
    pub fn needed(&self) -> u128 {
        self.held() + self.spent() + self.existential
    }

    pub fn affordable(&self) -> bool {
        self.free >= self.needed()
    }

    pub fn json(&self) -> Value {
        json!({"event": "quote", "commit_deposit": self.commit_deposit.to_string(),
               "bundle_deposit": self.bundle_deposit.to_string(), "evaluation_fee": self.evaluation_fee.to_string(),
               "reveal_fee": self.reveal_fee.to_string(),
               "commit_tx_fee": self.commit_tx_fee.to_string(), "reveal_tx_fee": self.reveal_tx_fee.to_string(),
               "held": self.held().to_string(), "spent": self.spent().to_string(),
               "needed": self.needed().to_string(), "free": self.free.to_string(),
               "affordable": self.affordable()})
    }

    pub fn human(&self, bytes: usize) -> String {
        let u = |p: u128| units(p as i128);
        format!(
            "this submission holds {} and spends {}:\n  \
             commit deposit    {:>16}  held until the reveal\n  \
             bundle deposit    {:>16}  held while the chain keeps the {bytes} bytes (slashed only if two operators FAIL them for what they are)\n  \
             evaluation fee    {:>16}  held from the reveal: pays the operators whose verdicts decide, the rest comes back\n  \
             reveal fee        {:>16}  spent at the reveal\n  \
             transaction fees  {:>16}  commit {} + reveal {} (the node's estimate)\n  \
             needs {} free (with the existential deposit {}); the account has {}",
            u(self.held()),
            u(self.spent()),
            u(self.commit_deposit),
            u(self.bundle_deposit),
            u(self.evaluation_fee),
            u(self.reveal_fee),
            u(self.commit_tx_fee + self.reveal_tx_fee),
            u(self.commit_tx_fee),
            u(self.reveal_tx_fee),
            u(self.needed()),
            u(self.existential),
            u(self.free),
        )
    }
}

/// The quote for committing to and revealing `canonical` (a bundle's canonical bytes) for
/// `target` in `arena` with `key`, at the chain's current block.
pub async fn quote(
    client: &chain::Client,
    key: &Keypair,
    arena: &str,
    target: &str,
    canonical: &[u8],
) -> Result<Quote, ChainError> {
    let at = client
        .at_current_block()
        .await
        .map_err(chain::unavailable)?;
    let consts = at.constants();
    let commit_deposit = consts
        .entry(api::constants().cacheon().commit_deposit())
        .map_err(chain::unavailable)?;
    let per_byte = consts
        .entry(api::constants().cacheon().bundle_byte_deposit())
        .map_err(chain::unavailable)?;
    let reveal_fee = consts
        .entry(api::constants().cacheon().reveal_fee())
        .map_err(chain::unavailable)?;
    let existential = consts
        .entry(api::constants().balances().existential_deposit())
        .map_err(chain::unavailable)?;
    let required = reads::fetch(
        &at,
        api::storage().cacheon().arenas(),
        (chain::bounded(arena.as_bytes()),),
    )
    .await?
    .ok_or_else(|| ChainError::Input(format!("no arena `{arena}` on this chain")))?
    .config
    .policy
    .required_distinct_validators;
    let per_verdict = reads::evaluation_fee(&at, arena.as_bytes())
        .await?
        .map_or(0, |f| f.per_verdict);
    let account = chain::account(key);
    let free = reads::fetch(&at, api::storage().system().account(), (account,))
        .await?
        .map_or(0, |a| a.data.free);
    let commit = api::transactions().cacheon().commit([0; 32]);
    let reveal = api::transactions().cacheon().reveal(
        chain::bounded(arena.as_bytes()),
        chain::bounded(target.as_bytes()),
        [0; 32],
        chain::bounded(canonical),
    );
    let commit_tx_fee = fee_estimate(&at, &commit, key).await?;
    let reveal_tx_fee = fee_estimate(&at, &reveal, key).await?;
    Ok(Quote {
        commit_deposit,
        bundle_deposit: per_byte.saturating_mul(canonical.len() as u128),
        evaluation_fee: per_verdict.saturating_mul(required.max(1) as u128),
        reveal_fee,
        commit_tx_fee,
        reveal_tx_fee,
        existential,
        free,
    })
}

/// The node's estimate of what `call` signed by `key` would pay in transaction fees (its
/// `TransactionPaymentApi`, for these very bytes); nothing is submitted.
async fn fee_estimate<Call: subxt::transactions::Payload>(
    at: &chain::At,
    call: &Call,
    key: &Keypair,
) -> Result<u128, ChainError> {
    let error = |e: subxt::error::ExtrinsicError| {
        chain::unavailable(format!("estimating a transaction fee: {e}"))
    };
    at.transactions()
        .create_signed(call, key, DefaultParams::default_params())
        .await
        .map_err(error)?
        .partial_fee_estimate()
        .await
        .map_err(error)
}
