//! Crowns: a second PASS makes the proposal part of the incumbent stack, opens a reward
//! claim, and retires the crowns it displaces or makes stale.

use super::*;

impl<T: Config> Pallet<T> {
    /// Makes `id` part of its arena's incumbent: replaces the target's entry, removes every
    /// entry the target displaces, retires their proposals and claims, records the new claim,
    /// advances the generation and drops primary PASSes measured against the old one.
    ///
    /// Returns the weight of what it did: `weigh` (the crowning call's benchmark) of the queue
    /// and displaced entries, or a FAIL (a copy) or drop (a displaced target) instead.
    pub(super) fn crown(
        id: ProposalId,
        mut p: ProposalOf<T>,
        mut info: ArenaInfoOf<T>,
        speedup_ppm: u32,
        passes: Vec<RecordedPass<T::AccountId>>,
        weigh: fn(u32, u32) -> Weight,
    ) -> Result<Weight, DispatchError> {
        let now = frame_system::Pallet::<T>::block_number();
        // The content belongs to the earliest commitment that revealed it: a proposal whose
        // bytes an earlier commitment revealed too is a copy, however it was measured.
        if let Some(owner) = ContentOwners::<T>::get(p.content_hash) {
            if let (true, Some(last)) = (owner.miner != p.miner, passes.last()) {
                let reason = FailReason::CopyOf(owner.proposal);
                let fail = RecordedFail {
                    validator: last.validator.clone(),
                    operator: last.operator.clone(),
                    reason,
                    evidence_digest: last.evidence_digest,
                };
                Self::fail(id, p, fail, true);
                return Ok(Self::crown_refused_weight());
            }
        }
        // A target made displacing after this proposal was revealed (Root may extend a
        // target's displacement set while no member is crowned) may now displace it: the
        // proposal can never be crowned beside that incumbent, so it is dropped instead.
        if let Some(displacer) = Self::displacer_of(&p.arena, &p.target) {
            if let Some(entry) = Incumbents::<T>::get(&p.arena, &displacer) {
                p.status = ProposalStatus::Dropped {
                    displaced_by: entry.proposal,
                };
                Self::leave_queue(id, &mut p);
                Proposals::<T>::insert(id, p);
                Self::deposit_event(Event::ProposalDropped {
                    proposal: id,
                    displaced_by: entry.proposal,
                });
                return Ok(Self::crown_refused_weight());
            }
        }
        let spec = Targets::<T>::get(&p.target).ok_or(Error::<T>::UnknownTarget)?;
        let generation = info
            .generation
            .checked_add(1)
            .ok_or(Error::<T>::GenerationOverflow)?;
        let mut leaving: Vec<(ProposalId, RetireCause)> = Vec::new();
        if let Some(old) = Incumbents::<T>::get(&p.arena, &p.target) {
            leaving.push((old.proposal, RetireCause::Superseded { by: id }));
        }
        for displaced in spec.displaces.iter() {
            if let Some(old) = Incumbents::<T>::get(&p.arena, displaced) {
                // Each entry retires once, even should a stored target list it twice.
                if !leaving.iter().any(|(o, _)| *o == old.proposal) {
                    leaving.push((old.proposal, RetireCause::Displaced { by: id }));
                }
            }
        }
        ensure!(
            Claims::<T>::count().saturating_sub(leaving.len() as u32) < T::MaxClaims::get(),
            Error::<T>::TooManyClaims
        );

        for (old_id, cause) in leaving {
            Self::retire(old_id, now, cause);
        }
        for displaced in spec.displaces.iter() {
            Incumbents::<T>::remove(&p.arena, displaced);
        }
        Incumbents::<T>::insert(
            &p.arena,
            &p.target,
            IncumbentEntry {
                proposal: id,
                content_hash: p.content_hash,
            },
        );
        let evidence: BoundedVec<EvidenceDigest, MaxPasses> =
            BoundedVec::truncate_from(passes.iter().map(|pass| pass.evidence_digest).collect());
        Claims::<T>::insert(
            id,
            RewardClaim {
                miner: p.miner.clone(),
                arena: p.arena.clone(),
                target: p.target.clone(),
                speedup_ppm,
                since: p.reveal_block,
                evidence: evidence.clone(),
            },
        );
        Queue::<T>::mutate(&p.arena, |q| q.retain(|x| *x != id));
        // The PASSes that crown it are the verdicts the outcome confirms.
        Self::pay_verdicts(id, &p.miner, passes.iter().map(|pass| &pass.operator));
        Self::return_evaluation_fee(id, &p.miner);
        p.status = ProposalStatus::Crowned {
            at: now,
            speedup_ppm,
            passes: BoundedVec::truncate_from(passes),
        };
        info.generation = generation;
        let queued = Self::drop_displaced_and_stale(id, &p.arena, &spec.displaces, generation);
        Self::deposit_event(Event::Crowned {
            proposal: id,
            miner: p.miner.clone(),
            arena: p.arena.clone(),
            target: p.target.clone(),
            speedup_ppm,
            generation,
            evidence,
        });
        Arenas::<T>::insert(&p.arena, info);
        Proposals::<T>::insert(id, p);
        Ok(weigh(queued, spec.displaces.len() as u32))
    }

    /// A crown that ended as a FAIL (a copy) or a drop (a displaced target) instead: the
    /// crown's own checks (owner, displacement walk) plus a FAIL's writes.
    pub(super) fn crown_refused_weight() -> Weight {
        T::WeightInfo::attest_crown(0, 0).max(T::WeightInfo::attest_fail())
    }

    /// Ends a crown: its claim is removed and its bundle deposit released with its reference.
    pub(super) fn retire(id: ProposalId, now: BlockNumberFor<T>, cause: RetireCause) {
        Claims::<T>::remove(id);
        if let Some(mut old) = Proposals::<T>::get(id) {
            old.status = ProposalStatus::Retired { at: now };
            Self::finish(id, &mut old);
            Proposals::<T>::insert(id, old);
        }
        Self::deposit_event(Event::Retired {
            proposal: id,
            cause,
        });
    }

    /// After the crown of `crowned`: pending proposals for targets it displaces can never be
    /// crowned, so they are dropped (deposits returned); primary PASSes waiting for a
    /// reproduction were measured against the previous incumbent and go back to the queue.
    /// Returns the number of queue entries visited.
    pub(super) fn drop_displaced_and_stale(
        crowned: ProposalId,
        arena: &ArenaId,
        displaces: &BoundedVec<TargetId, MaxMembers>,
        generation: u32,
    ) -> u32 {
        let queue = Queue::<T>::get(arena);
        let mut dropped: BTreeSet<ProposalId> = BTreeSet::new();
        for id in queue.iter().copied() {
            let Some(mut q) = Proposals::<T>::get(id) else {
                continue;
            };
            if displaces.contains(&q.target) {
                match &q.status {
                    ProposalStatus::Primary { lease }
                    | ProposalStatus::Reproduction { lease, .. } => Self::end_lease(id, lease),
                    status => Self::end_wait(id, status),
                }
                q.status = ProposalStatus::Dropped {
                    displaced_by: crowned,
                };
                // `leave_queue` without the queue write: the queue is written once below.
                Self::finish(id, &mut q);
                dropped.insert(id);
                Proposals::<T>::insert(id, q);
                Self::deposit_event(Event::ProposalDropped {
                    proposal: id,
                    displaced_by: crowned,
                });
                continue;
            }
            if let ProposalStatus::ReproductionQueued { primary, .. } = &q.status {
                if primary.generation() != generation {
                    Self::end_wait(id, &q.status);
                    q.status = ProposalStatus::Queued;
                    Proposals::<T>::insert(id, q);
                    Self::deposit_event(Event::PassDropped {
                        proposal: id,
                        generation,
                    });
                }
            }
        }
        if !dropped.is_empty() {
            Queue::<T>::mutate(arena, |q| q.retain(|x| !dropped.contains(x)));
        }
        queue.len() as u32
    }
}
