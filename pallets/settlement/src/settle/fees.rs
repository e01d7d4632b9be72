//! Evaluation fees: what measuring a proposal costs in its arena, held from the miner at the
//! reveal, paid to the operators whose verdicts the outcome confirms (the PASSes that crown
//! it, the FAILs that end it), the rest returned when the proposal ends. An attempt that
//! ended on a validator's side (a stall, a lease run out, a NoDecision, a stale verdict, a
//! verdict the outcome contradicts) costs the miner nothing; the fee never reaches the
//! reward pot, so nobody earns it without measuring.

use super::*;

impl<T: Config> Pallet<T> {
    /// Sets `arena`'s evaluation fee.
    pub(crate) fn do_set_evaluation_fee(arena: ArenaId, fee: EvaluationFeeOf<T>) -> DispatchResult {
        ensure!(Arenas::<T>::contains_key(&arena), Error::<T>::UnknownArena);
        let per_verdict = fee.per_verdict();
        EvaluationFees::<T>::insert(&arena, fee.clone());
        Self::deposit_event(Event::EvaluationFeeSet {
            arena,
            fee,
            per_verdict,
        });
        Ok(())
    }

    /// What a reveal in `arena` holds: one verdict's worth for each operator whose verdict
    /// the arena needs. `(per_verdict, total)`; zero where the arena has no quote.
    pub(crate) fn evaluation_fee_due(
        arena: &ArenaId,
        required: u32,
    ) -> Result<(BalanceOf<T>, BalanceOf<T>), DispatchError> {
        let per_verdict = EvaluationFees::<T>::get(arena)
            .map(|f| f.per_verdict())
            .unwrap_or_else(Zero::zero);
        let total = per_verdict
            .checked_mul(&BalanceOf::<T>::from(required.max(1)))
            .ok_or(Error::<T>::Overflow)?;
        Ok((per_verdict, total))
    }

    /// Holds `total` from `miner` for proposal `id` (nothing when zero).
    pub(crate) fn hold_evaluation_fee(
        id: ProposalId,
        miner: &T::AccountId,
        per_verdict: BalanceOf<T>,
        total: BalanceOf<T>,
    ) -> DispatchResult {
        if total.is_zero() {
            return Ok(());
        }
        T::Currency::hold(&HoldReason::EvaluationFee.into(), miner, total)?;
        FeeEscrows::<T>::insert(
            id,
            FeeEscrow {
                per_verdict,
                left: total,
            },
        );
        Self::deposit_event(Event::EvaluationFeeHeld {
            proposal: id,
            miner: miner.clone(),
            amount: total,
        });
        Ok(())
    }

    /// Pays one verdict's worth of `id`'s held fee to each of `operators` (a verdict the
    /// outcome confirmed). A payment the currency refuses (an operator account that would
    /// stay below the existential deposit) stays held and goes back to the miner.
    pub(crate) fn pay_verdicts<'a>(
        id: ProposalId,
        miner: &T::AccountId,
        operators: impl IntoIterator<Item = &'a T::AccountId>,
    ) where
        T::AccountId: 'a,
    {
        let Some(mut escrow) = FeeEscrows::<T>::get(id) else {
            return;
        };
        for operator in operators {
            let amount = escrow.per_verdict.min(escrow.left);
            if amount.is_zero() {
                break;
            }
            let paid = T::Currency::transfer_on_hold(
                &HoldReason::EvaluationFee.into(),
                miner,
                operator,
                amount,
                Precision::Exact,
                Restriction::Free,
                Fortitude::Polite,
            );
            if paid.is_ok() {
                escrow.left = escrow.left.saturating_sub(amount);
                Self::deposit_event(Event::VerdictPaid {
                    proposal: id,
                    operator: operator.clone(),
                    amount,
                });
            }
        }
        FeeEscrows::<T>::insert(id, escrow);
    }

    /// Releases what `id`'s evaluation fee still holds back to its miner (the proposal
    /// ended).
    pub(crate) fn return_evaluation_fee(id: ProposalId, miner: &T::AccountId) {
        let Some(escrow) = FeeEscrows::<T>::take(id) else {
            return;
        };
        if escrow.left.is_zero() {
            return;
        }
        let released = T::Currency::release(
            &HoldReason::EvaluationFee.into(),
            miner,
            escrow.left,
            Precision::BestEffort,
        )
        .unwrap_or_else(|_| Zero::zero());
        Self::deposit_event(Event::EvaluationFeeReturned {
            proposal: id,
            miner: miner.clone(),
            amount: released,
        });
    }
}
