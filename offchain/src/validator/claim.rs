//! Which proposal to lease next: the pallet's rules for who may take what, read from the
//! finalized state, and the check that a served arena is the one this build measures.

use super::*;

/// What the chain says of an arena, as far as this build must agree with it.
/// Says, once a connection, which served arenas this build may not measure for (the
/// chain's engine or policy differs) or that the chain does not have; those are skipped.
pub(super) async fn check_served_arenas(
    client: &Client,
    cfg: &Config,
    metrics: &Metrics,
) -> Result<(), ValidatorError> {
    let at = client.at_current_block().await.map_err(unavailable)?;
    for arena in &cfg.arenas {
        let key = (chain::bounded(arena.name().as_bytes()),);
        let agrees = match fetch(&at, api::storage().cacheon().arenas(), key).await? {
            None => {
                warn!(
                    arena = arena.name(),
                    "the chain has no such arena: not served"
                );
                false
            }
            Some(info) => match contract_disagreement(arena, &info) {
                Some(why) => {
                    error!("{why}: not served (run a build that matches the chain)");
                    false
                }
                None => true,
            },
        };
        metrics
            .contract_agrees
            .with_label_values(&[arena.name()])
            .set(i64::from(agrees));
    }
    Ok(())
}

/// Why this build may not measure for `arena` under the chain's record of it (engine
/// digests, margin or noise bound differ), if it may not.
pub(super) fn contract_disagreement(
    arena: &Arena,
    info: &api::runtime_types::pallet_cacheon::types::ArenaInfo<u32>,
) -> Option<String> {
    arena.disagreement(&crate::chain::reads::chain_view(&info.config))
}

/// The earliest proposal of a served arena this validator may lease, by the pallet's rules
/// (`Claimant::eligible` and `in_turn`): reveal order; never a proposal of its operator's
/// keys, one its operator already stalled or failed, or the reproduction of its operator's
/// PASS; and the attempt that would crown only once the proposal's content priority is final
/// and no earlier proposal for an overlapping target is pending.
pub(super) async fn next_claimable(
    at: &At,
    cfg: &Config,
    me: &AccountId,
    metrics: &Metrics,
) -> Result<Option<(u64, Arena)>, ValidatorError> {
    let reveal_window = crate::chain::reads::reveal_window(at)?;
    let now = at.block_number();
    let mut depth = 0;
    let mut found = None;
    for arena in &cfg.arenas {
        let arena_id = || chain::bounded(arena.name().as_bytes());
        let queue = fetch(at, api::storage().cacheon().queue(), (arena_id(),))
            .await?
            .map(|q| q.0)
            .unwrap_or_default();
        depth += queue.len();
        if found.is_some() {
            continue;
        }
        let Some(operator) =
            fetch(at, api::storage().cacheon().validators(), (arena_id(), *me)).await?
        else {
            continue;
        };
        let Some(info) = fetch(at, api::storage().cacheon().arenas(), (arena_id(),)).await? else {
            continue;
        };
        // Never measure for an arena whose engine or policy is not the one this build runs.
        let agrees = contract_disagreement(arena, &info).is_none();
        metrics
            .contract_agrees
            .with_label_values(&[arena.name()])
            .set(i64::from(agrees));
        if !agrees {
            continue;
        }
        let required = info.config.policy.required_distinct_validators;
        let mut ahead: Vec<ApiTarget> = Vec::new();
        for id in queue {
            let Some(p) = proposal_at(at, id).await? else {
                continue;
            };
            let crowning = match &p.status {
                ApiStatus::Queued => Some(required <= 1),
                ApiStatus::ReproductionQueued { primary, .. }
                    if *crate::chain::primary_operator(primary) != operator =>
                {
                    Some(true)
                }
                _ => None,
            };
            // Never the operator's own proposal, whichever of its keys (any arena) revealed it.
            let own = crowning.is_some()
                && (&p.miner == me
                    || p.miner == operator
                    || fetch(at, api::storage().cacheon().key_operators(), (p.miner,))
                        .await?
                        .is_some_and(|(o, _)| o == operator));
            let eligible = !own && !p.excluded.0.contains(&operator) && crowning.is_some();
            let spec = fetch(
                at,
                api::storage().cacheon().targets(),
                (chain::bounded(&p.target.0),),
            )
            .await?;
            let in_turn = crowning != Some(true)
                || (now >= p.commit_block as u64 + reveal_window
                    && spec
                        .as_ref()
                        .is_none_or(|s| !ahead.iter().any(|a| overlaps(a, s))));
            if eligible && in_turn {
                found = Some((id, *arena));
                break;
            }
            let pending = !matches!(
                p.status,
                ApiStatus::Crowned { .. }
                    | ApiStatus::Retired { .. }
                    | ApiStatus::Failed { .. }
                    | ApiStatus::Expired
                    | ApiStatus::Withdrawn
                    | ApiStatus::Dropped { .. }
            );
            if let Some(spec) = spec.filter(|_| pending) {
                ahead.push(spec);
            }
        }
    }
    metrics.queue_depth.set(depth as i64);
    Ok(found)
}

pub(super) type ApiTarget = api::runtime_types::pallet_cacheon::types::TargetSpec;

/// As the pallet's `overlaps`: the same target, a shared member slot, or one displacing the
/// other.
pub(super) fn overlaps(a: &ApiTarget, b: &ApiTarget) -> bool {
    let ids = |v: &[api::runtime_types::bounded_collections::bounded_vec::BoundedVec<u8>]| {
        v.iter().map(|i| i.0.clone()).collect::<Vec<_>>()
    };
    let (a_members, b_members) = (ids(&a.members.0), ids(&b.members.0));
    a.id.0 == b.id.0
        || a_members.iter().any(|m| b_members.contains(m))
        || ids(&a.displaces.0).contains(&b.id.0)
        || ids(&b.displaces.0).contains(&a.id.0)
}
