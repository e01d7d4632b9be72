//! Version 2 → 3: the wait for a reproduction stands still while the reproduction is leased.
//!
//! Version 3 moves a reproduction's deadline (`Reproduction { until }`) by its lease's length
//! when the lease is taken. A lease taken under version 2 kept the wait's deadline as it was,
//! so its deadline moves now by what is left of the lease. Nothing else changes encoding:
//! `SlashedDeposits` and `FailedContents` are new and start empty, `ProposalStatus::Overturned`
//! is a new last variant. Only pending proposals can be leased, and every pending proposal is
//! in its arena's queue, so the migration reads at most `MaxArenas × MaxQueueLen` proposals:
//! it fits one block.

use crate::*;
use frame::deps::frame_support::migrations::VersionedMigration;
use frame::traits::UncheckedOnRuntimeUpgrade;

pub struct InnerMigrateV2ToV3<T>(core::marker::PhantomData<T>);

impl<T: Config> UncheckedOnRuntimeUpgrade for InnerMigrateV2ToV3<T> {
    fn on_runtime_upgrade() -> Weight {
        let now = frame_system::Pallet::<T>::block_number();
        let (mut reads, mut writes) = (0u64, 0u64);
        for arena in Arenas::<T>::iter_keys() {
            reads += 2;
            for id in Queue::<T>::get(&arena) {
                reads += 1;
                let Some(mut p) = Proposals::<T>::get(id) else {
                    continue;
                };
                if let ProposalStatus::Reproduction { lease, until, .. } = &mut p.status {
                    *until = until.saturating_add(lease.expires_at.saturating_sub(now));
                    Proposals::<T>::insert(id, p);
                    writes += 1;
                }
            }
        }
        T::DbWeight::get().reads_writes(reads, writes)
    }

    #[cfg(feature = "try-runtime")]
    fn post_upgrade(
        _state: alloc::vec::Vec<u8>,
    ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        Pallet::<T>::do_try_state()
    }
}

/// Version 2 → 3, run only on a chain at version 2; sets version 3.
pub type MigrateV2ToV3<T> = VersionedMigration<
    2,
    3,
    InnerMigrateV2ToV3<T>,
    Pallet<T>,
    <T as frame_system::Config>::DbWeight,
>;
