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

/// What opens a PASS the test sent sealed: the test reveals it once the reproduction has
/// PASSed ([`reveal`]).
pub struct Opening {
    pub proposal: u64,
    pub speedup_ppm: u32,
    pub evidence_digest: [u8; 32],
    pub attempt_digest: [u8; 32],
    pub salt: [u8; 32],
}

/// Leases `id` as `key` and attests `verdict` for the lease's generation, with digests
/// derived from `tag` (two attestations of one proposal need different ones). A PASS of a
/// primary lease where two operators must agree goes on chain sealed, as a validator sends
/// it: then the opening is returned, to [`reveal`] after the reproduction. Returns the
/// chain's refusal of the lease or the attestation.
pub async fn lease_and_attest(
    client: &Client,
    key: &Keypair,
    id: u64,
    verdict: Verdict,
    tag: u8,
) -> Result<Option<Opening>, ChainError> {
    chain::submit(
        client,
        &api::transactions().cacheon().claim(id),
        key,
        CALL_TIMEOUT,
    )
    .await?;
    let (generation, primary) = match proposal_status(client, id).await? {
        Some(Status::Primary { lease }) => (lease.generation, true),
        Some(Status::Reproduction { lease, .. }) => (lease.generation, false),
        other => return Err(ChainError::Input(format!("leased but now {other:?}"))),
    };
    let (evidence_digest, attempt_digest) = ([tag; 32], [tag ^ 0xFF; 32]);
    if let (Verdict::Pass { speedup_ppm }, true) = (&verdict, primary) {
        if two_operators_must_agree(client, id).await? {
            let opening = Opening {
                proposal: id,
                speedup_ppm: *speedup_ppm,
                evidence_digest,
                attempt_digest,
                salt: [tag ^ 0x5A; 32],
            };
            let seal = cacheon_primitives::pass_seal(
                id,
                &key.public_key().0,
                generation,
                opening.speedup_ppm,
                &evidence_digest,
                &attempt_digest,
                &opening.salt,
            );
            let call = api::transactions()
                .cacheon()
                .attest_sealed(id, generation, seal);
            chain::submit(client, &call, key, CALL_TIMEOUT).await?;
            return Ok(Some(opening));
        }
    }
    let attestation = api::runtime_types::pallet_cacheon::types::Attestation {
        verdict,
        incumbent_generation: generation,
        evidence_digest,
        attempt_digest,
    };
    let call = api::transactions().cacheon().attest(id, attestation);
    chain::submit(client, &call, key, CALL_TIMEOUT).await?;
    Ok(None)
}

/// Opens sealed PASS `opening` as `key` (the chain must be waiting for it).
pub async fn reveal(client: &Client, key: &Keypair, opening: &Opening) -> Result<(), ChainError> {
    let call = api::transactions().cacheon().reveal_pass(
        opening.proposal,
        opening.speedup_ppm,
        opening.evidence_digest,
        opening.attempt_digest,
        opening.salt,
    );
    chain::submit(client, &call, key, CALL_TIMEOUT).await?;
    Ok(())
}

/// Whether proposal `id`'s arena needs two operators' PASSes to crown.
async fn two_operators_must_agree(client: &Client, id: u64) -> Result<bool, ChainError> {
    let at = client
        .at_current_block()
        .await
        .map_err(chain::unavailable)?;
    let p = chain::reads::proposal_at(&at, id)
        .await?
        .ok_or_else(|| ChainError::Input(format!("no proposal {id}")))?;
    let info = chain::reads::fetch(&at, api::storage().cacheon().arenas(), (p.arena,)).await?;
    Ok(info.is_some_and(|i| i.config.policy.required_distinct_validators >= 2))
}

/// Crowns proposal `id` on the dev chain at `url` with two PASSes of `speedup_ppm` from
/// Alice (the primary, sealed, revealed after Bob's) and Bob (the reproduction), measuring
/// nothing: a fixture incumbent.
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
        let mut sealed = None;
        for (suri, tag) in [("//Alice", 0x11u8), ("//Bob", 0x22)] {
            let key = chain::signer(Some(suri), None).unwrap();
            loop {
                let pass = Verdict::Pass { speedup_ppm };
                match lease_and_attest(&client, &key, id, pass, tag).await {
                    Ok(opening) => {
                        sealed = sealed.or(opening.map(|o| (key.clone(), o)));
                        break;
                    }
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
        // Alice's PASS went on chain sealed: the crown waits for her to open it.
        if let Some((key, opening)) = sealed {
            reveal(&client, &key, &opening)
                .await
                .unwrap_or_else(|e| panic!("Alice could not reveal her PASS of {id}: {e}"));
        }
    });
}
