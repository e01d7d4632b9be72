//! Version 1 → 2. What changed and how old state moves:
//! - `Validators` values name an operator: every existing key becomes its own operator
//!   (`KeyOperators` is filled from them).
//! - `Commits` values keep the deposit held: the configured `CommitDeposit` (what v1 held).
//! - `FirstRevealer` becomes `ContentOwners`, which also records the owner's commit block
//!   (read from its proposal).
//! - `Proposal` gains `excluded` and `stalled` (empty) and `disputed` (none); leases and recorded PASSes name
//!   their operator (the validator key itself, as above); `Crowned` keeps its PASSes (none are
//!   known for crowns made before v2) and reward claims their evidence (likewise empty).
//! - `OpenLeases` is counted from the leases held.
//! - A proposal waiting for its reproduction gets a deadline `ReproductionTimeout` blocks
//!   from the upgrade, scheduled in `LeaseDeadlines`.
//! - `Bundles` keeps only the bytes; the reference counts move to `BundleRefs`.
//! - `RevealsInEpoch` (per miner, per emissions epoch) is dropped: reveal caps count per
//!   `RevealPeriod` in `RevealsInPeriod`, from zero.
//! - Terminal proposals are queued for pruning as if they had ended at the upgrade.
//! - Version 2's runtime has smaller bounds than version 1's (`MaxQueueLen` 256 → 128,
//!   `MaxLeasesPerBlock` 64 → 32): a longer queue keeps its oldest entries and expires the
//!   rest (deposits returned); a fuller deadline block moves its surplus leases to the next
//!   blocks with room (the lease ends that much later). Nothing is left that would not decode.

use crate::*;
use frame::deps::frame_support::migrations::VersionedMigration;
use frame::traits::UncheckedOnRuntimeUpgrade;

/// Version 1's types, as they were encoded.
pub mod v1 {
    use super::*;

    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub struct Lease<AccountId, BlockNumber> {
        pub validator: AccountId,
        pub generation: u32,
        pub expires_at: BlockNumber,
    }

    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub struct RecordedPass<AccountId> {
        pub validator: AccountId,
        pub speedup_ppm: u32,
        pub generation: u32,
        pub evidence_digest: EvidenceDigest,
        pub attempt_digest: [u8; 32],
    }

    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub enum ProposalStatus<AccountId, BlockNumber> {
        Queued,
        Primary {
            lease: Lease<AccountId, BlockNumber>,
        },
        ReproductionQueued {
            primary: RecordedPass<AccountId>,
        },
        Reproduction {
            primary: RecordedPass<AccountId>,
            lease: Lease<AccountId, BlockNumber>,
        },
        Crowned {
            at: BlockNumber,
            speedup_ppm: u32,
        },
        Retired {
            at: BlockNumber,
        },
        Failed {
            reason: FailReason,
        },
        Expired,
        Withdrawn,
        Dropped {
            displaced_by: ProposalId,
        },
    }

    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub struct Proposal<AccountId, BlockNumber, Balance> {
        pub miner: AccountId,
        pub arena: ArenaId,
        pub target: TargetId,
        pub content_hash: ContentHash,
        pub commit_block: BlockNumber,
        pub reveal_block: BlockNumber,
        pub attempts: u32,
        pub bundle_deposit: Balance,
        pub status: ProposalStatus<AccountId, BlockNumber>,
    }

    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub struct RewardClaim<AccountId, BlockNumber> {
        pub miner: AccountId,
        pub arena: ArenaId,
        pub target: TargetId,
        pub speedup_ppm: u32,
        pub since: BlockNumber,
    }

    pub type ProposalOf<T> =
        Proposal<<T as frame_system::Config>::AccountId, BlockNumberFor<T>, BalanceOf<T>>;

    /// Version 1's stored bundle: bytes and reference count in one value.
    #[derive(Clone, Encode, Decode, TypeInfo)]
    pub struct StoredBundle {
        pub bytes: alloc::vec::Vec<u8>,
        pub refs: u32,
    }

    /// Version 1's reveal counts: miner → (emissions epoch, reveals).
    #[frame::storage_alias]
    pub type RevealsInEpoch<T: Config> =
        StorageMap<Pallet<T>, Blake2_128Concat, <T as frame_system::Config>::AccountId, (u32, u32)>;

    /// Version 1's first revealer of each ContentHash.
    #[frame::storage_alias]
    pub type FirstRevealer<T: Config> = StorageMap<
        Pallet<T>,
        Identity,
        ContentHash,
        (<T as frame_system::Config>::AccountId, ProposalId),
    >;
}

fn lease<A: Clone, B>(old: v1::Lease<A, B>) -> Lease<A, B> {
    Lease {
        operator: old.validator.clone(),
        validator: old.validator,
        generation: old.generation,
        expires_at: old.expires_at,
    }
}

fn pass<A: Clone>(old: v1::RecordedPass<A>) -> RecordedPass<A> {
    RecordedPass {
        operator: old.validator.clone(),
        validator: old.validator,
        speedup_ppm: old.speedup_ppm,
        generation: old.generation,
        evidence_digest: old.evidence_digest,
        attempt_digest: old.attempt_digest,
    }
}

/// `until`: the deadline given to a proposal waiting for its reproduction.
fn status<A: Clone, B>(old: v1::ProposalStatus<A, B>, until: B) -> ProposalStatus<A, B> {
    use v1::ProposalStatus as O;
    match old {
        O::Queued => ProposalStatus::Queued,
        O::Primary { lease: l } => ProposalStatus::Primary { lease: lease(l) },
        O::ReproductionQueued { primary } => ProposalStatus::ReproductionQueued {
            primary: PrimaryPass::Open(pass(primary)),
            until,
        },
        O::Reproduction { primary, lease: l } => ProposalStatus::Reproduction {
            primary: PrimaryPass::Open(pass(primary)),
            lease: lease(l),
            until,
        },
        O::Crowned { at, speedup_ppm } => ProposalStatus::Crowned {
            at,
            speedup_ppm,
            passes: BoundedVec::new(),
        },
        O::Retired { at } => ProposalStatus::Retired { at },
        O::Failed { reason } => ProposalStatus::Failed { reason },
        O::Expired => ProposalStatus::Expired,
        O::Withdrawn => ProposalStatus::Withdrawn,
        O::Dropped { displaced_by } => ProposalStatus::Dropped { displaced_by },
    }
}

/// The version 1 → 2 translation, without the version guard (see [`MigrateV1ToV2`]).
pub struct InnerMigrateV1ToV2<T>(core::marker::PhantomData<T>);

impl<T: Config> UncheckedOnRuntimeUpgrade for InnerMigrateV1ToV2<T> {
    fn on_runtime_upgrade() -> Weight {
        let (mut reads, mut writes) = (0u64, 0u64);

        Validators::<T>::translate::<(), _>(|_, key, ()| {
            reads += 1;
            writes += 2;
            KeyOperators::<T>::mutate(&key, |k| {
                let arenas = k.as_ref().map_or(0, |(_, n)| *n);
                *k = Some((key.clone(), arenas + 1));
            });
            Some(key)
        });
        let now = frame_system::Pallet::<T>::block_number();
        let until = now.saturating_add(T::ReproductionTimeout::get());
        let deposit = T::CommitDeposit::get();
        Commits::<T>::translate::<BlockNumberFor<T>, _>(|_, _, at| {
            reads += 1;
            writes += 1;
            Some(CommitRecord { at, deposit })
        });
        Proposals::<T>::translate::<v1::ProposalOf<T>, _>(|_, old| {
            reads += 1;
            writes += 1;
            Some(Proposal {
                miner: old.miner,
                arena: old.arena,
                target: old.target,
                content_hash: old.content_hash,
                commit_block: old.commit_block,
                reveal_block: old.reveal_block,
                attempts: old.attempts,
                bundle_deposit: old.bundle_deposit,
                status: status(old.status, until),
                excluded: BoundedVec::new(),
                stalled: BoundedVec::new(),
                disputed: None,
            })
        });
        Claims::<T>::translate_values::<v1::RewardClaim<T::AccountId, BlockNumberFor<T>>, _>(
            |old| {
                reads += 1;
                writes += 1;
                Some(RewardClaim {
                    miner: old.miner,
                    arena: old.arena,
                    target: old.target,
                    speedup_ppm: old.speedup_ppm,
                    since: old.since,
                    evidence: BoundedVec::new(),
                })
            },
        );
        for (hash, (miner, proposal)) in v1::FirstRevealer::<T>::drain() {
            reads += 2;
            writes += 2;
            let commit_block = Proposals::<T>::get(proposal)
                .map(|p| p.commit_block)
                .unwrap_or_else(Zero::zero);
            ContentOwners::<T>::insert(
                hash,
                ContentOwner {
                    miner,
                    proposal,
                    commit_block,
                },
            );
        }
        // Bundle bytes and reference counts apart, before anything below releases a bundle.
        Bundles::<T>::translate::<v1::StoredBundle, _>(|hash, old| {
            reads += 1;
            writes += 2;
            BundleRefs::<T>::insert(hash, old.refs);
            // Cannot fail: `MaxBundleBytes` never shrank.
            Some(BoundedVec::truncate_from(old.bytes))
        });
        // Deadline blocks fuller than the new bound: the surplus moves on.
        let mut moved: alloc::vec::Vec<(BlockNumberFor<T>, ProposalId)> = alloc::vec::Vec::new();
        LeaseDeadlines::<T>::translate::<alloc::vec::Vec<ProposalId>, _>(|at, ids| {
            reads += 1;
            writes += 1;
            let keep = (T::MaxLeasesPerBlock::get() as usize).min(ids.len());
            moved.extend(ids[keep..].iter().map(|id| (at, *id)));
            Some(BoundedVec::truncate_from(ids))
        });
        for (at, id) in moved {
            reads += 2 + crate::settle::DEADLINE_TRIES as u64;
            writes += 2;
            let next = Pallet::<T>::schedule_deadline(id, at.saturating_add(One::one()));
            Proposals::<T>::mutate(id, |p| {
                if let Some(
                    ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. },
                ) = p.as_mut().map(|p| &mut p.status)
                {
                    // Cannot be `None`: every pending proposal fits the schedule
                    // (`integrity_test`); should it be, the lease keeps its old end.
                    lease.expires_at = next.unwrap_or(lease.expires_at);
                }
            });
        }
        // Queues longer than the new bound: the oldest entries stay, the rest expire.
        let mut surplus: alloc::vec::Vec<ProposalId> = alloc::vec::Vec::new();
        Queue::<T>::translate::<alloc::vec::Vec<ProposalId>, _>(|_, ids| {
            reads += 1;
            writes += 1;
            let keep = (T::MaxQueueLen::get() as usize).min(ids.len());
            surplus.extend_from_slice(&ids[keep..]);
            Some(BoundedVec::truncate_from(ids))
        });
        for id in surplus {
            reads += 1;
            writes += 5;
            if let Some(mut p) = Proposals::<T>::get(id) {
                if let ProposalStatus::Primary { lease }
                | ProposalStatus::Reproduction { lease, .. } = &p.status
                {
                    Pallet::<T>::unschedule(id, lease.expires_at);
                }
                p.status = ProposalStatus::Expired;
                Pallet::<T>::release_bundle(&mut p);
                Proposals::<T>::insert(id, p);
                Pallet::<T>::deposit_event(Event::Expired {
                    proposal: id,
                    attempts: 0,
                });
            }
        }
        for (id, p) in Proposals::<T>::iter() {
            reads += 1;
            match p.status {
                ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => {
                    reads += 1;
                    writes += 1;
                    OpenLeases::<T>::mutate(&lease.operator, |n| *n = n.saturating_add(1));
                }
                ProposalStatus::ReproductionQueued { primary, until } => {
                    // As `await_reproduction` does: the first block with room, or the PASS is
                    // dropped and the proposal measured again.
                    reads += crate::settle::DEADLINE_TRIES as u64;
                    writes += 2;
                    match Pallet::<T>::schedule_deadline(id, until) {
                        Some(at) if at != until => Proposals::<T>::mutate(id, |p| {
                            if let Some(p) = p {
                                p.status =
                                    ProposalStatus::ReproductionQueued { primary, until: at };
                            }
                        }),
                        Some(_) => {}
                        None => {
                            Proposals::<T>::mutate(id, |p| {
                                if let Some(p) = p {
                                    p.status = ProposalStatus::Queued;
                                }
                            });
                            Pallet::<T>::deposit_event(Event::PassDropped {
                                proposal: id,
                                generation: primary.generation(),
                            });
                        }
                    }
                }
                ProposalStatus::Crowned { .. } => {}
                s if s.is_pending() => {}
                _ => {
                    reads += 1;
                    writes += 2;
                    Pallet::<T>::schedule_prune(id);
                }
            }
        }
        RevealsClearedBelow::<T>::put(Pallet::<T>::reveal_period());
        writes += 1;
        let cleared = v1::RevealsInEpoch::<T>::clear(u32::MAX, None);
        writes += cleared.backend as u64;
        T::DbWeight::get().reads_writes(reads, writes)
    }

    #[cfg(feature = "try-runtime")]
    fn pre_upgrade() -> Result<alloc::vec::Vec<u8>, frame::deps::sp_runtime::TryRuntimeError> {
        let proposals = Proposals::<T>::iter_keys().count() as u64;
        let owners = v1::FirstRevealer::<T>::iter_keys().count() as u64;
        Ok((proposals, owners).encode())
    }

    #[cfg(feature = "try-runtime")]
    fn post_upgrade(
        state: alloc::vec::Vec<u8>,
    ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let (proposals, owners): (u64, u64) =
            Decode::decode(&mut &state[..]).map_err(|_| "pre_upgrade state does not decode")?;
        ensure!(
            Proposals::<T>::iter().count() as u64 == proposals,
            "a proposal did not decode after the migration"
        );
        ensure!(
            ContentOwners::<T>::iter().count() as u64 == owners,
            "a first revealer was not moved"
        );
        Pallet::<T>::do_try_state()
    }
}

/// Version 1 → 2, run only on a chain at version 1; sets version 2.
pub type MigrateV1ToV2<T> = VersionedMigration<
    1,
    2,
    InnerMigrateV1ToV2<T>,
    Pallet<T>,
    <T as frame_system::Config>::DbWeight,
>;
