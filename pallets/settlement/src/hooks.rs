//! The pallet's hooks (a section of [`crate::pallet`]): leases and challenges expire, sealed
//! PASSes not revealed in time are void,
//! emissions are paid and epochs close at the start of a block; pruning takes what is left of a block; the
//! configuration is checked once (`integrity_test`) and the invariants after every test
//! (`try_state`).

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod hooks {
    #[pallet::hooks]
    impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
        fn on_initialize(now: BlockNumberFor<T>) -> Weight {
            let (expired, missed) = Self::expire_leases(now);
            let overdue = Self::expire_overdue(now);
            let paid = Self::pay_emissions();
            let challenges = Self::expire_challenges(now);
            let mut weight = T::WeightInfo::expire_leases(expired)
                .saturating_add(T::WeightInfo::reveals_missed(missed))
                .saturating_add(T::WeightInfo::expire_overdue(overdue))
                .saturating_add(T::WeightInfo::expire_challenges(challenges))
                .saturating_add(T::WeightInfo::pay_emissions(paid));
            if let Some(policy) = Emissions::<T>::get() {
                if !policy.epoch_blocks.is_zero() && (now % policy.epoch_blocks).is_zero() {
                    let claims = Self::close_epoch(now, &policy);
                    weight = weight.saturating_add(T::WeightInfo::close_epoch(claims));
                }
            }
            weight
        }

        fn on_idle(now: BlockNumberFor<T>, remaining: Weight) -> Weight {
            Self::prune(now, remaining)
        }

        fn integrity_test() {
            assert!(
                T::RevealDelay::get() <= T::RevealWindow::get(),
                "RevealDelay must not exceed RevealWindow: no reveal could be accepted"
            );
            for (name, v) in [
                ("MaxPendingCommits", T::MaxPendingCommits::get()),
                ("MaxRevealsPerPeriod", T::MaxRevealsPerPeriod::get()),
                ("MaxQueueLen", T::MaxQueueLen::get()),
                ("MaxBundleBytes", T::MaxBundleBytes::get()),
                ("MaxTargets", T::MaxTargets::get()),
                ("MaxValidators", T::MaxValidators::get()),
                ("MaxArenas", T::MaxArenas::get()),
                ("MaxClaims", T::MaxClaims::get()),
                ("MaxLeasesPerBlock", T::MaxLeasesPerBlock::get()),
                ("MaxLeasesPerOperator", T::MaxLeasesPerOperator::get()),
                ("MaxOpenChallenges", T::MaxOpenChallenges::get()),
            ] {
                assert!(v > 0, "{name} must be positive");
            }
            assert!(
                T::MaxBundleBytes::get() <= cacheon_primitives::BundleLimits::DEFAULT.max_bytes,
                "MaxBundleBytes above the bundle format's own limit"
            );
            assert!(
                !T::RevealPeriod::get().is_zero()
                    && !T::ReproductionTimeout::get().is_zero()
                    && !T::RevealTimeout::get().is_zero()
                    && !T::PendingLifetime::get().is_zero(),
                "RevealPeriod, ReproductionTimeout, RevealTimeout and PendingLifetime must be positive"
            );
            assert!(
                T::MaxSpeedupPpm::get() > PPM_ONE,
                "MaxSpeedupPpm must allow a speedup"
            );
            assert!(
                !T::ChallengeWindow::get().is_zero() && !T::UnbondingPeriod::get().is_zero(),
                "ChallengeWindow and UnbondingPeriod must be positive"
            );
            // Every open challenge has one deadline, `MaxOpenChallenges` a block fit.
            assert!(
                T::MaxArenas::get() <= settle::DEADLINE_TRIES,
                "the challenge deadline schedule can fill up: at most DEADLINE_TRIES arenas"
            );
            // Every pending proposal has at most one deadline: they must always find room.
            assert!(
                T::MaxLeasesPerBlock::get().saturating_mul(settle::DEADLINE_TRIES)
                    >= T::MaxArenas::get().saturating_mul(T::MaxQueueLen::get()),
                "the deadline schedule can fill up: raise MaxLeasesPerBlock"
            );
        }

        #[cfg(feature = "try-runtime")]
        fn try_state(
            _n: BlockNumberFor<T>,
        ) -> Result<(), frame::deps::sp_runtime::TryRuntimeError> {
            Self::do_try_state()
        }
    }
}
