//! The test acting as registered validators through a real subxt client, without measuring
//! anything: what a colluding or stalling operator can send. Tests use it to put a fixture
//! incumbent in place (two PASSes of their own) and to stall leases.

use std::time::{Duration, Instant};

use cacheon::chain::{self, api, ChainError, Client};
use subxt_signer::sr25519::Keypair;

/// A proposal's status as the chain stores it.
pub type Status = api::runtime_types::pallet_cacheon::types::ProposalStatus<chain::AccountId, u32>;
type Verdict = api::runtime_types::cacheon_primitives::verdict::Verdict;

const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Proposal `id`'s status at the finalized head (`None`: no such proposal).
pub async fn proposal_status(client: &Client, id: u64) -> Result<Option<Status>, ChainError> {
    let at = client
        .at_current_block()
        .await
        .map_err(chain::unavailable)?;
    let stored = at
        .storage()
        .try_fetch(api::storage().cacheon().proposals(), (id,))
        .await
        .map_err(chain::unavailable)?;
    Ok(match stored {
        Some(v) => Some(v.decode().map_err(chain::unavailable)?.status),
        None => None,
    })
}

/// Leases `id` as `key` and attests `verdict` for the lease's generation, with digests
/// derived from `tag` (two attestations of one proposal need different ones). Returns the
/// chain's refusal of the lease or the attestation.
pub async fn lease_and_attest(
    client: &Client,
    key: &Keypair,
    id: u64,
    verdict: Verdict,
    tag: u8,
) -> Result<(), ChainError> {
    chain::submit(
        client,
        &api::transactions().cacheon().claim(id),
        key,
        CALL_TIMEOUT,
    )
    .await?;
    let generation = match proposal_status(client, id).await? {
        Some(Status::Primary { lease }) | Some(Status::Reproduction { lease, .. }) => {
            lease.generation
        }
        other => return Err(ChainError::Input(format!("leased but now {other:?}"))),
    };
    let attestation = api::runtime_types::pallet_cacheon::types::Attestation {
        verdict,
        incumbent_generation: generation,
        evidence_digest: [tag; 32],
        attempt_digest: [tag ^ 0xFF; 32],
    };
    let call = api::transactions().cacheon().attest(id, attestation);
    chain::submit(client, &call, key, CALL_TIMEOUT).await?;
    Ok(())
}

/// Crowns proposal `id` on the dev chain at `url` with two PASSes of `speedup_ppm` from
/// Alice (the primary) and Bob (the reproduction), measuring nothing: a fixture incumbent.
/// Bob's lease waits, as any crowning lease does, until the chain lets it start (the
/// proposal's content priority final, no earlier overlapping proposal pending). Panics
/// after two minutes.
pub fn crown_unmeasured(url: &str, id: u64, speedup_ppm: u32) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = chain::connect(url, CALL_TIMEOUT).await.expect("connect");
        let start = Instant::now();
        // Evidence digests of 0x11 and 0x22 bytes: scripts/flake-finder.sh leaves these
        // unmeasured PASSes out of the speedups it reports.
        for (suri, tag) in [("//Alice", 0x11u8), ("//Bob", 0x22)] {
            let key = chain::signer(Some(suri), None).unwrap();
            loop {
                let pass = Verdict::Pass { speedup_ppm };
                match lease_and_attest(&client, &key, id, pass, tag).await {
                    Ok(()) => break,
                    Err(ChainError::Refused(e))
                        if (e.contains("PriorityNotFinal")
                            || e.contains("EarlierOverlapPending"))
                            && start.elapsed() < Duration::from_secs(120) =>
                    {
                        tokio::time::sleep(Duration::from_millis(500)).await
                    }
                    Err(e) => panic!("{suri} could not pass proposal {id}: {e}"),
                }
            }
        }
    });
}
