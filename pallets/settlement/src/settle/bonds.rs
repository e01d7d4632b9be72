//! Operator bonds: an operator bonds per arena from its own account, unbonds (its funds
//! stay held and slashable for `UnbondingPeriod`) and withdraws them, and loses part of its
//! stake when a crown its PASS made is revoked.

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

    /// Moves `amount` of `operator`'s bond in `arena` (while it holds no lease) to an
    /// unbonding chunk released from `UnbondingPeriod` blocks on. Unbonds in the same block
    /// share a chunk.
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
        let release_at =
            frame_system::Pallet::<T>::block_number().saturating_add(T::UnbondingPeriod::get());
        let mut chunks = Unbonding::<T>::get(&arena, &operator);
        match chunks.last_mut() {
            Some(last) if last.release_at == release_at => {
                last.amount = last
                    .amount
                    .checked_add(&amount)
                    .ok_or(Error::<T>::Overflow)?;
            }
            _ => chunks
                .try_push(UnbondingChunk { release_at, amount })
                .map_err(|_| Error::<T>::TooManyUnbondingChunks)?,
        }

        Unbonding::<T>::insert(&arena, &operator, chunks);
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
            release_at,
        });
        Ok(())
    }

    /// Releases `operator`'s unbonding chunks in `arena` that are due, unless a challenge of
    /// a crown its PASS made is open there (the slash would find nothing left).
    pub(crate) fn do_withdraw_unbonded(operator: T::AccountId, arena: ArenaId) -> DispatchResult {
        let now = frame_system::Pallet::<T>::block_number();
        let mut chunks = Unbonding::<T>::get(&arena, &operator);
        let due: BalanceOf<T> = chunks
            .iter()
            .filter(|c| c.release_at <= now)
            .fold(Zero::zero(), |sum, c| sum.saturating_add(c.amount));
        ensure!(!due.is_zero(), Error::<T>::NothingToWithdraw);
        let challenged = OpenChallenges::<T>::get(&arena).iter().any(|id| {
            Challenges::<T>::get(id)
                .is_some_and(|c| c.passes.iter().any(|pass| pass.operator == operator))
        });
        ensure!(!challenged, Error::<T>::CrownUnderChallenge);

        T::Currency::release(
            &HoldReason::OperatorBond.into(),
            &operator,
            due,
            Precision::Exact,
        )?;
        chunks.retain(|c| c.release_at > now);
        if chunks.is_empty() {
            Unbonding::<T>::remove(&arena, &operator);
        } else {
            Unbonding::<T>::insert(&arena, &operator, chunks);
        }
        Self::deposit_event(Event::UnbondedWithdrawn {
            arena,
            operator,
            amount: due,
        });
        Ok(())
    }

    /// Slashes `RevocationSlash` of `operator`'s stake in `arena` (its bond and its
    /// unbonding chunks): `ChallengerReward` of it goes to `challenger`, the rest to the
    /// reward pot. It is taken from the bond first, then from the chunks that would be
    /// released last. Only what left the hold is taken off (an account that cannot receive
    /// leaves its part where it was). Returns what was slashed and what of it the challenger
    /// got.
    pub(super) fn slash_bond(
        arena: &ArenaId,
        operator: &T::AccountId,
        challenger: &T::AccountId,
    ) -> (BalanceOf<T>, BalanceOf<T>) {
        let bonded = OperatorBonds::<T>::get(arena, operator);
        let mut chunks = Unbonding::<T>::get(arena, operator);
        let stake = chunks
            .iter()
            .fold(bonded, |sum, c| sum.saturating_add(c.amount));
        let due = T::RevocationSlash::get().mul_floor(stake);
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

        let from_bond = slashed.min(bonded);
        let left = bonded.saturating_sub(from_bond);
        if left.is_zero() {
            OperatorBonds::<T>::remove(arena, operator);
        } else {
            OperatorBonds::<T>::insert(arena, operator, left);
        }
        let mut rest = slashed.saturating_sub(from_bond);
        for chunk in chunks.iter_mut().rev() {
            let taken = rest.min(chunk.amount);
            chunk.amount = chunk.amount.saturating_sub(taken);
            rest = rest.saturating_sub(taken);
        }
        chunks.retain(|c| !c.amount.is_zero());
        if chunks.is_empty() {
            Unbonding::<T>::remove(arena, operator);
        } else {
            Unbonding::<T>::insert(arena, operator, chunks);
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
