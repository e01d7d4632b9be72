//! Operator bonds: an operator bonds per arena from its own account, takes its bond back,
//! and loses part of it when a crown its PASS made is revoked.

use super::*;

impl<T: Config> Pallet<T> {
    /// Holds `amount` more from `operator` as its bond in `arena`.
    pub(crate) fn do_bond(
        operator: T::AccountId,
        arena: ArenaId,
        amount: BalanceOf<T>,
    ) -> DispatchResult {
        ensure!(Arenas::<T>::contains_key(&arena), Error::<T>::UnknownArena);
        ensure!(!amount.is_zero(), Error::<T>::ZeroAmount);
        let total = OperatorBonds::<T>::get(&arena, &operator)
            .checked_add(&amount)
            .ok_or(Error::<T>::Overflow)?;
        T::Currency::hold(&HoldReason::OperatorBond.into(), &operator, amount)?;
        OperatorBonds::<T>::insert(&arena, &operator, total);
        Self::deposit_event(Event::OperatorBonded {
            arena,
            operator,
            amount,
            total,
        });
        Ok(())
    }

    /// Releases `amount` of `operator`'s bond in `arena`, while it holds no lease.
    pub(crate) fn do_unbond(
        operator: T::AccountId,
        arena: ArenaId,
        amount: BalanceOf<T>,
    ) -> DispatchResult {
        ensure!(!amount.is_zero(), Error::<T>::ZeroAmount);
        let bonded = OperatorBonds::<T>::get(&arena, &operator);
        let total = bonded
            .checked_sub(&amount)
            .ok_or(Error::<T>::UnbondTooLarge)?;
        ensure!(OpenLeases::<T>::get(&operator) == 0, Error::<T>::LeaseOpen);
        T::Currency::release(
            &HoldReason::OperatorBond.into(),
            &operator,
            amount,
            Precision::Exact,
        )?;
        if total.is_zero() {
            OperatorBonds::<T>::remove(&arena, &operator);
        } else {
            OperatorBonds::<T>::insert(&arena, &operator, total);
        }
        Self::deposit_event(Event::OperatorUnbonded {
            arena,
            operator,
            amount,
            total,
        });
        Ok(())
    }

    /// Slashes `RevocationSlash` of `operator`'s bond in `arena`: `ChallengerReward` of it
    /// goes to `challenger`, the rest to the reward pot. Only what left the hold is taken off
    /// the bond (an account that cannot receive leaves its part where it was). Returns what
    /// was slashed and what of it the challenger got.
    pub(super) fn slash_bond(
        arena: &ArenaId,
        operator: &T::AccountId,
        challenger: &T::AccountId,
    ) -> (BalanceOf<T>, BalanceOf<T>) {
        let bonded = OperatorBonds::<T>::get(arena, operator);
        let due = T::RevocationSlash::get().mul_floor(bonded);
        if due.is_zero() {
            return (Zero::zero(), Zero::zero());
        }
        let reward = T::ChallengerReward::get().mul_floor(due);
        let to_challenger = Self::move_bond(operator, challenger, reward);
        let to_pot = Self::move_bond(
            operator,
            &Self::pot_account(),
            due.saturating_sub(to_challenger),
        );
        let slashed = to_challenger.saturating_add(to_pot);
        let left = bonded.saturating_sub(slashed);
        if left.is_zero() {
            OperatorBonds::<T>::remove(arena, operator);
        } else {
            OperatorBonds::<T>::insert(arena, operator, left);
        }
        Self::deposit_event(Event::OperatorSlashed {
            arena: arena.clone(),
            operator: operator.clone(),
            amount: slashed,
        });
        (slashed, to_challenger)
    }

    /// Moves up to `amount` of `from`'s held bonds to `to`'s free balance; returns what moved.
    fn move_bond(from: &T::AccountId, to: &T::AccountId, amount: BalanceOf<T>) -> BalanceOf<T> {
        if amount.is_zero() {
            return amount;
        }
        T::Currency::transfer_on_hold(
            &HoldReason::OperatorBond.into(),
            from,
            to,
            amount,
            Precision::BestEffort,
            Restriction::Free,
            Fortitude::Force,
        )
        .unwrap_or_else(|_| Zero::zero())
    }
}
