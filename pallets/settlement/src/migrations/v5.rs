//! Version 4 → 5: blind verdicts. A reproduction's primary PASS is now sealed or open
//! (`PrimaryPass`), so `ProposalStatus::{ReproductionQueued, Reproduction}` change encoding
//! (the primary gains the enum's index byte). Every PASS recorded before version 5 was open:
//! each becomes `PrimaryPass::Open` with the same content. `ProposalStatus::AwaitingReveal` is
//! a new last variant that old values never use; `AttestationsDisagreed::pass_evidence`
//! (now optional) is only an event, nothing stored. Only pending proposals wait for or hold a
//! reproduction, and every pending proposal is in its arena's queue, so the migration reads at
//! most `MaxArenas × MaxQueueLen` proposals and writes those that changed: it fits one block.
//! Every other proposal's encoding is unchanged (no other variant holds a primary PASS).

use crate::*;
use codec::DecodeAll;
use frame::deps::frame_support::{migrations::VersionedMigration, storage::unhashed};
use frame::traits::UncheckedOnRuntimeUpgrade;

/// Version 4's proposal types, as they were encoded.
pub mod v4 {
    use super::*;

    #[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
    pub enum ProposalStatus<AccountId, BlockNumber> {
        Queued,
        Primary {
            lease: Lease<AccountId, BlockNumber>,
        },
        ReproductionQueued {
            primary: RecordedPass<AccountId>,
            until: BlockNumber,
        },
        Reproduction {
            primary: RecordedPass<AccountId>,
            lease: Lease<AccountId, BlockNumber>,
            until: BlockNumber,
        },
        Crowned {
            at: BlockNumber,
            speedup_ppm: u32,
            passes: BoundedVec<RecordedPass<AccountId>, MaxPasses>,
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
        Overturned {
            reason: FailReason,
        },
        Revoked {
            at: BlockNumber,
            challenge: ChallengeId,
            reason: FailReason,
        },
    }

    #[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
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
        pub excluded: BoundedVec<AccountId, MaxExcluded>,
        pub stalled: BoundedVec<AccountId, MaxExcluded>,
        pub disputed: Option<RecordedFail<AccountId>>,
    }
}

type OldProposalOf<T> =
    v4::Proposal<<T as frame_system::Config>::AccountId, BlockNumberFor<T>, BalanceOf<T>>;

/// A version 4 status whose primary PASS becomes open; `None` for every other status (its
/// encoding did not change).
pub fn status<A, B>(old: v4::ProposalStatus<A, B>) -> Option<ProposalStatus<A, B>> {
    match old {
        v4::ProposalStatus::ReproductionQueued { primary, until } => {
            Some(ProposalStatus::ReproductionQueued {
                primary: PrimaryPass::Open(primary),
                until,
            })
        }
        v4::ProposalStatus::Reproduction {
            primary,
            lease,
            until,
        } => Some(ProposalStatus::Reproduction {
            primary: PrimaryPass::Open(primary),
            lease,
            until,
        }),
        _ => None,
    }
}

/// A version 4 proposal with an open primary PASS, if its status holds one.
pub fn proposal<A, B, C>(old: v4::Proposal<A, B, C>) -> Option<Proposal<A, B, C>> {
    Some(Proposal {
        status: status(old.status)?,
        miner: old.miner,
        arena: old.arena,
        target: old.target,
        content_hash: old.content_hash,
        commit_block: old.commit_block,
        reveal_block: old.reveal_block,
        attempts: old.attempts,
        bundle_deposit: old.bundle_deposit,
        excluded: old.excluded,
        stalled: old.stalled,
        disputed: old.disputed,
    })
}

/// The version 4 proposal stored under `id`, if its whole value decodes as one. (A chain
/// upgraded from version 1 in the same block holds what `v2` wrote, in this version's
/// encoding already: its longer value does not decode whole as version 4, and is kept.)
fn old_proposal<T: Config>(id: ProposalId) -> Option<OldProposalOf<T>> {
    let raw = unhashed::get_raw(&Proposals::<T>::hashed_key_for(id))?;
    OldProposalOf::<T>::decode_all(&mut &raw[..]).ok()
}

pub struct InnerMigrateV4ToV5<T>(core::marker::PhantomData<T>);

impl<T: Config> UncheckedOnRuntimeUpgrade for InnerMigrateV4ToV5<T> {
    fn on_runtime_upgrade() -> Weight {
        let (mut reads, mut writes) = (0u64, 0u64);
        for arena in Arenas::<T>::iter_keys() {
            reads += 2;
            for id in Queue::<T>::get(&arena) {
                reads += 1;
                if let Some(new) = old_proposal::<T>(id).and_then(proposal) {
                    Proposals::<T>::insert(id, new);
                    writes += 1;
                }
            }
        }
        T::DbWeight::get().reads_writes(reads, writes)
    }

    /// The number of queued proposals whose primary PASS is to become open.
    #[cfg(feature = "try-runtime")]
    fn pre_upgrade() -> Result<alloc::vec::Vec<u8>, frame::deps::sp_runtime::TryRuntimeError> {
        let mut waiting = 0u32;
        for arena in Arenas::<T>::iter_keys() {
            for id in Queue::<T>::get(&arena) {
                let old = old_proposal::<T>(id).ok_or("a queued proposal does not decode")?;
                if status(old.status).is_some() {
                    waiting += 1;
                }
            }
        }
        Ok(waiting.encode())
    }

    #[cfg(feature = "try-runtime")]
    fn post_upgrade(
        state: alloc::vec::Vec<u8>,
    ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let before = u32::decode(&mut &state[..])
            .map_err(|_| "the count before the upgrade does not decode")?;
        let mut open = 0u32;
        for arena in Arenas::<T>::iter_keys() {
            for id in Queue::<T>::get(&arena) {
                let p = Proposals::<T>::get(id).ok_or("a queued proposal does not decode")?;
                match p.status {
                    ProposalStatus::ReproductionQueued { primary, .. }
                    | ProposalStatus::Reproduction { primary, .. } => {
                        ensure!(
                            matches!(primary, PrimaryPass::Open(_)),
                            "a primary PASS is sealed after the upgrade"
                        );
                        open += 1;
                    }
                    ProposalStatus::AwaitingReveal { .. } => {
                        return Err("a proposal awaits a reveal after the upgrade".into())
                    }
                    _ => {}
                }
            }
        }
        ensure!(open == before, "a primary PASS was lost in the upgrade");
        Pallet::<T>::do_try_state()
    }
}

/// Version 4 → 5, run only on a chain at version 4; sets version 5.
pub type MigrateV4ToV5<T> = VersionedMigration<
    4,
    5,
    InnerMigrateV4ToV5<T>,
    Pallet<T>,
    <T as frame_system::Config>::DbWeight,
>;
