//! Version 3 → 4: each arena's policy carries its speedup cap (`ArenaPolicy::max_speedup_ppm`,
//! a new last field). Until version 4 one chain-wide cap, `MaxSpeedupPpm`, held for every
//! arena, so every arena gets it as its own cap: nothing that was accepted before is refused
//! after. Everything else that changed is new and starts empty (challenges and their indexes,
//! unbonding chunks) or is a new last variant (`ProposalStatus::Revoked`,
//! `HoldReason::ChallengeBond`), which old values never use. The migration reads and writes
//! every arena once, at most `MaxArenas`: it fits one block.

use crate::*;
use frame::deps::frame_support::migrations::VersionedMigration;
use frame::traits::UncheckedOnRuntimeUpgrade;

/// Version 3's arena types, as they were encoded.
pub mod v3 {
    use super::*;

    #[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
    pub struct ArenaPolicy<BlockNumber> {
        pub min_margin_ppm: u32,
        pub max_noise_ppm: u32,
        pub noise_multiplier: u32,
        pub lease_blocks: BlockNumber,
        pub max_attempts: u32,
        pub required_distinct_validators: u32,
    }

    #[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
    pub struct ArenaConfig<BlockNumber> {
        pub id: ArenaId,
        pub backend: Backend,
        pub hardware: Id,
        pub model_digest: [u8; 32],
        pub workload_digest: [u8; 32],
        pub stock_digest: [u8; 32],
        pub targets: BoundedVec<TargetId, MaxArenaTargets>,
        pub policy: ArenaPolicy<BlockNumber>,
        pub status: Status,
    }

    #[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
    pub struct ArenaInfo<BlockNumber> {
        pub config: ArenaConfig<BlockNumber>,
        pub generation: u32,
        pub validators: u32,
    }
}

/// A version 3 arena with `max_speedup_ppm` as its cap.
pub fn arena<B>(old: v3::ArenaInfo<B>, max_speedup_ppm: u32) -> ArenaInfo<B> {
    let c = old.config;
    let p = c.policy;
    ArenaInfo {
        config: ArenaConfig {
            id: c.id,
            backend: c.backend,
            hardware: c.hardware,
            model_digest: c.model_digest,
            workload_digest: c.workload_digest,
            stock_digest: c.stock_digest,
            targets: c.targets,
            policy: ArenaPolicy {
                min_margin_ppm: p.min_margin_ppm,
                max_noise_ppm: p.max_noise_ppm,
                noise_multiplier: p.noise_multiplier,
                lease_blocks: p.lease_blocks,
                max_attempts: p.max_attempts,
                required_distinct_validators: p.required_distinct_validators,
                max_speedup_ppm,
            },
            status: c.status,
        },
        generation: old.generation,
        validators: old.validators,
    }
}

pub struct InnerMigrateV3ToV4<T>(core::marker::PhantomData<T>);

impl<T: Config> UncheckedOnRuntimeUpgrade for InnerMigrateV3ToV4<T> {
    fn on_runtime_upgrade() -> Weight {
        let cap = T::MaxSpeedupPpm::get();
        let mut arenas = 0u64;
        Arenas::<T>::translate_values::<v3::ArenaInfo<BlockNumberFor<T>>, _>(|old| {
            arenas += 1;
            Some(arena(old, cap))
        });
        T::DbWeight::get().reads_writes(arenas, arenas)
    }

    #[cfg(feature = "try-runtime")]
    fn pre_upgrade() -> Result<alloc::vec::Vec<u8>, frame::deps::sp_runtime::TryRuntimeError> {
        Ok(Arenas::<T>::count().encode())
    }

    #[cfg(feature = "try-runtime")]
    fn post_upgrade(
        state: alloc::vec::Vec<u8>,
    ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
        let before = u32::decode(&mut &state[..])
            .map_err(|_| "the arena count before the upgrade does not decode")?;
        ensure!(
            Arenas::<T>::iter_values().count() as u32 == before && Arenas::<T>::count() == before,
            "an arena was lost in the upgrade"
        );
        Pallet::<T>::do_try_state()
    }
}

/// Version 3 → 4, run only on a chain at version 3; sets version 4.
pub type MigrateV3ToV4<T> = VersionedMigration<
    3,
    4,
    InnerMigrateV3ToV4<T>,
    Pallet<T>,
    <T as frame_system::Config>::DbWeight,
>;
