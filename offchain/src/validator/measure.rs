//! One qualification attempt of a proposal's bundle read from chain storage, as a validator
//! runs it for a lease: the arena's contract checked before and after, the copy screen's
//! earlier proposals, a fresh secret seed, [`crate::qualify::attempt`] against the incumbent
//! stack. The same path serves a proposal's lease and a challenge's re-qualification of a
//! crown (whose stack leaves the challenged crown out: what its revocation would leave).

use super::*;

/// What an attempt produced, before it is stored and attested (or answered).
pub(super) struct Finished {
    pub(super) verdict: Verdict,
    pub(super) outcome: &'static str,
    pub(super) report: serde_json::Value,
    pub(super) seed: u64,
    pub(super) started: Instant,
}

impl Finished {
    /// A NoDecision of our side (`Infrastructure`): the report says why.
    fn infrastructure(report: serde_json::Value, seed: u64, started: Instant) -> Finished {
        Finished {
            verdict: Verdict::NoDecision {
                reason: NoDecisionReason::Infrastructure,
            },
            outcome: "no_decision",
            report,
            seed,
            started,
        }
    }
}

/// What to measure: proposal `proposal`'s bundle against the arena's incumbent stack at the
/// lease's block, without the crown of `leave_out` when one is named.
#[derive(Clone, Copy, Debug)]
pub(super) struct Subject {
    pub(super) proposal: u64,
    pub(super) leave_out: Option<u64>,
}

type ArenaInfo = api::runtime_types::pallet_cacheon::types::ArenaInfo<u32>;

/// The arena's record at `at`, and its contract as the evidence records it (with the block
/// and generation it was read at).
async fn contract_at(
    at: &At,
    arena: Arena,
) -> Result<(Option<ArenaInfo>, Option<serde_json::Value>), ValidatorError> {
    let info = fetch(
        at,
        api::storage().cacheon().arenas(),
        (chain::bounded(arena.name().as_bytes()),),
    )
    .await?;
    let contract = info.as_ref().map(|i| {
        let mut c = serde_json::to_value(crate::chain::reads::contract_of(i)).expect("JSON");
        c["block"] = serde_json::json!(at.block_number());
        c["generation"] = serde_json::json!(i.generation);
        c
    });
    Ok((info, contract))
}

impl Session<'_> {
    /// Screens and times `subject`'s bundle in `arena`, reading chain state at `at` (the
    /// lease's block). Nothing is measured under a contract this build does not run, and a
    /// contract changed while the attempt ran makes it a NoDecision.
    pub(super) async fn measure(
        &self,
        subject: Subject,
        arena: Arena,
        at: &At,
    ) -> Result<Finished, ValidatorError> {
        let id = subject.proposal;
        let Some(p) = proposal_at(at, id).await? else {
            return Err(unavailable(format!("proposal {id} vanished")).into());
        };
        let files = bundle_files(at, &p.content_hash).await;
        if let Ok(files) = &files {
            // Kept for later proposals' copy screens, also when this validator did not
            // follow the reveal.
            remember_files(self.store, &p.content_hash, Some(files))?;
        }
        // The arena's contract at the block of the lease: recorded in the evidence, and
        // nothing is measured under one this build does not run (a governance change
        // between the claim and now).
        let (info, contract) = contract_at(at, arena).await?;
        let refused = match &info {
            None => Some("the chain no longer has this arena".to_string()),
            Some(i) => contract_disagreement(&arena, i),
        };
        if let Some(why) = refused {
            error!(
                proposal = id,
                arena = arena.name(),
                "{why}: no decision (run a build that matches the chain)"
            );
            self.metrics
                .contract_agrees
                .with_label_values(&[arena.name()])
                .set(0);
            let report = serde_json::json!({"error": why, "contract": contract});
            return Ok(Finished::infrastructure(report, 0, Instant::now()));
        }
        let stack = incumbent_stack(at, arena.name(), subject.leave_out).await?;
        let earlier =
            earlier_proposals(at, self.store, id, p.commit_block as u64, &p.miner).await?;
        let seed = crate::qualify::fresh_seed().map_err(|e| {
            ValidatorError::Storage(format!("no secret seed from /dev/urandom: {e}"))
        })?;
        let started = Instant::now();
        let files = match files {
            Ok(files) => files,
            Err(detail) => {
                warn!(proposal = id, "{detail}");
                let report = serde_json::json!({"error": detail, "contract": contract});
                return Ok(Finished::infrastructure(report, seed, started));
            }
        };
        let opts = AttemptOptions {
            lane_exe: self.cfg.lane_exe.clone(),
            seed,
            stack,
            deadlines: Default::default(),
            earlier: Some(earlier),
            copy_bandwidth: None,
        };
        let live = self.metrics.live.clone();
        let _published = live.start(id, arena.name(), subject.leave_out.is_some());
        let report = tokio::task::spawn_blocking(move || {
            attempt(&files, arena, &opts, &mut |p| live.progress(p))
        })
        .await
        .map_err(|e| unavailable(format!("attempt task: {e}")))?;
        let verdict = match &report.outcome {
            Outcome::Pass => Verdict::Pass {
                speedup_ppm: report.speedup_ppm.unwrap_or(0),
            },
            Outcome::Fail(f) => Verdict::Fail { reason: f.reason },
            Outcome::NoDecision { reason, .. } => Verdict::NoDecision { reason: *reason },
        };
        let mut finished = Finished {
            verdict,
            outcome: report.verdict(),
            report: serde_json::to_value(&report).map_err(|e| unavailable(e.to_string()))?,
            seed,
            started,
        };
        finished.report["contract"] = contract.unwrap_or_default();
        self.unless_contract_changed(id, arena, &info, &mut finished)
            .await?;
        Ok(finished)
    }

    /// Makes `finished` a NoDecision if the arena's contract is no longer `measured_under`:
    /// governance may have changed the arena while the attempt ran.
    async fn unless_contract_changed(
        &self,
        id: u64,
        arena: Arena,
        measured_under: &Option<ArenaInfo>,
        finished: &mut Finished,
    ) -> Result<(), ValidatorError> {
        let now = self.client.at_current_block().await.map_err(unavailable)?;
        let (info_now, _) = contract_at(&now, arena).await?;
        let view = |i: &Option<ArenaInfo>| {
            i.as_ref()
                .map(|i| crate::chain::reads::chain_view(&i.config))
        };
        if view(&info_now) == view(measured_under) {
            return Ok(());
        }
        error!(
            proposal = id,
            arena = arena.name(),
            "the arena's contract changed while the attempt ran: no decision"
        );
        self.metrics
            .contract_agrees
            .with_label_values(&[arena.name()])
            .set(i64::from(
                info_now
                    .as_ref()
                    .is_some_and(|i| contract_disagreement(&arena, i).is_none()),
            ));
        finished.verdict = Verdict::NoDecision {
            reason: NoDecisionReason::Infrastructure,
        };
        finished.outcome = "no_decision";
        finished.report["contract_changed_at"] = serde_json::json!(now.block_number());
        Ok(())
    }
}
