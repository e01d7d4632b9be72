//! Epoch weights (DESIGN 4.4): decayed credits per miner, split into exactly 1_000_000 ppm.

use crate::*;
use alloc::{collections::BTreeMap, vec::Vec};
use frame::traits::tokens::Fortitude;

/// Parts per million in a whole weight vector.
pub const WEIGHT_TOTAL: u32 = 1_000_000;

/// Emission transfers made per block: an epoch's payout runs over the blocks after its close,
/// so no block carries all `MaxClaims` transfers.
pub const PAYOUTS_PER_BLOCK: u32 = 64;

/// A claim's credit at `age` blocks: `floor((speedup_ppm − 1_000_000) × h / (h + age))`.
pub fn credit(speedup_ppm: u32, half_life: u128, age: u128) -> u128 {
    let excess = speedup_ppm.saturating_sub(PPM_ONE) as u128;
    // h + age cannot be 0: the emissions policy requires h > 0.
    excess.saturating_mul(half_life) / half_life.saturating_add(age).max(1)
}

/// Splits credits into ppm shares summing to exactly 1_000_000 by largest remainder (ties go
/// to the smaller account id). Zero credits are dropped; a positive credit whose share
/// rounds to zero gets 1 ppm from the largest share, so no recipient gets 0. Returns an empty
/// vector when no credit is positive. The output is sorted by account.
pub fn split_weights<A: Ord + Clone>(credits: &[(A, u128)]) -> Vec<(A, u32)> {
    let mut merged: BTreeMap<A, u128> = BTreeMap::new();
    for (who, c) in credits.iter().filter(|(_, c)| *c > 0) {
        let e = merged.entry(who.clone()).or_default();
        *e = e.saturating_add(*c);
    }
    let total: u128 = merged.values().fold(0u128, |a, c| a.saturating_add(*c));
    if total == 0 {
        return Vec::new();
    }
    // (account, floor share, remainder), in account order.
    let mut rows: Vec<(A, u32, u128)> = merged
        .into_iter()
        .map(|(who, c)| {
            let exact = c.saturating_mul(WEIGHT_TOTAL as u128);
            (who, (exact / total) as u32, exact % total)
        })
        .collect();
    let assigned: u32 = rows.iter().map(|r| r.1).sum();
    let mut leftover = WEIGHT_TOTAL.saturating_sub(assigned);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // Stable sort keeps account order among equal remainders.
    order.sort_by(|a, b| rows[*b].2.cmp(&rows[*a].2));
    for i in order {
        if leftover == 0 {
            break;
        }
        rows[i].1 += 1;
        leftover -= 1;
    }
    // No recipient gets 0: move 1 ppm from the largest share (first in account order).
    for i in 0..rows.len() {
        if rows[i].1 == 0 {
            let donor = (0..rows.len()).max_by(|a, b| rows[*a].1.cmp(&rows[*b].1).then(b.cmp(a)));
            if let Some(d) = donor.filter(|d| rows[*d].1 > 1) {
                rows[d].1 -= 1;
                rows[i].1 = 1;
            }
        }
    }
    rows.into_iter()
        .map(|(who, share, _)| (who, share))
        .collect()
}

impl<T: Config> Pallet<T> {
    /// Computes and stores the weight vector of the epoch that starts at `now` and (with
    /// emissions) starts its payout run. Returns the number of claims read, for the hook's
    /// weight.
    pub(crate) fn close_epoch(now: BlockNumberFor<T>, policy: &EmissionsPolicyOf<T>) -> u32 {
        let epoch: u32 = (now / policy.epoch_blocks).saturated_into();
        let h: u128 = policy.half_life_blocks.saturated_into();
        let mut claims = 0u32;
        let credits: Vec<(T::AccountId, u128)> = Claims::<T>::iter_values()
            .map(|c| {
                claims += 1;
                let age: u128 = now.saturating_sub(c.since).saturated_into();
                (c.miner, credit(c.speedup_ppm, h, age))
            })
            .collect();
        let mut vector = split_weights(&credits);
        if vector.is_empty() {
            vector.push((policy.bootstrap_account.clone(), WEIGHT_TOTAL));
        }
        // At most one claim per arena and target, so `vector` fits `MaxClaims`.
        let weights: WeightVectorOf<T> = BoundedVec::truncate_from(vector);
        Weights::<T>::put(weights.clone());
        WeightsEpoch::<T>::put(epoch);
        Self::deposit_event(Event::WeightsSet {
            epoch,
            weights: weights.clone(),
        });
        // A run still going (only if Root shortened the epoch) ends here: what it did not pay
        // stays in the pot.
        if let Some(run) = Payout::<T>::take() {
            Self::deposit_event(Event::EmissionsPaid {
                epoch: run.epoch,
                total: run.paid,
            });
        }
        if !policy.emission_per_epoch.is_zero() {
            let available = T::Currency::reducible_balance(
                &Self::pot_account(),
                Preservation::Preserve,
                Fortitude::Polite,
            );
            Payout::<T>::put(PayoutRun {
                epoch,
                budget: policy.emission_per_epoch.min(available),
                next: 0,
                paid: Zero::zero(),
            });
        }
        claims
    }

    /// Pays the next `PAYOUTS_PER_BLOCK` shares of the running payout: each recipient of the
    /// weight vector gets its ppm of the budget fixed at the close. Returns how many shares
    /// it paid, for the hook's weight.
    pub(crate) fn pay_emissions() -> u32 {
        let Some(mut run) = Payout::<T>::get() else {
            return 0;
        };
        let pot = Self::pot_account();
        let weights = Weights::<T>::get();
        let start = run.next as usize;
        let end = weights
            .len()
            .min(start.saturating_add(PAYOUTS_PER_BLOCK as usize));
        for (who, ppm) in weights.iter().take(end).skip(start) {
            let amount = Permill::from_parts(*ppm).mul_floor(run.budget);
            if amount.is_zero() {
                continue;
            }
            match T::Currency::transfer(&pot, who, amount, Preservation::Preserve) {
                Ok(_) => run.paid = run.paid.saturating_add(amount),
                Err(_) => Self::deposit_event(Event::EmissionUnpaid {
                    epoch: run.epoch,
                    miner: who.clone(),
                    amount,
                }),
            }
        }
        run.next = end as u32;
        if end >= weights.len() {
            Payout::<T>::kill();
            Self::deposit_event(Event::EmissionsPaid {
                epoch: run.epoch,
                total: run.paid,
            });
        } else {
            Payout::<T>::put(run);
        }
        end.saturating_sub(start) as u32
    }
}
