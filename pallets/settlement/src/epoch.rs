//! Epoch weights (DESIGN 4.4): decayed credits per miner, split into exactly 1_000_000 ppm.

use crate::*;
use alloc::{collections::BTreeMap, vec::Vec};
use frame::traits::tokens::Fortitude;

/// Parts per million in a whole weight vector.
pub const WEIGHT_TOTAL: u32 = 1_000_000;

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
    /// Computes, stores and (with emissions) pays the weight vector of the epoch that starts
    /// at `now`. Returns the number of claims read, for the hook's weight.
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
        if !policy.emission_per_epoch.is_zero() {
            Self::pay_emissions(epoch, policy.emission_per_epoch, &weights);
        }
        claims
    }

    /// Pays `emission` (or what the pot holds, if less) pro rata to `weights`.
    fn pay_emissions(epoch: u32, emission: BalanceOf<T>, weights: &WeightVectorOf<T>) {
        let pot = Self::pot_account();
        let available =
            T::Currency::reducible_balance(&pot, Preservation::Preserve, Fortitude::Polite);
        let budget = emission.min(available);
        let mut total: BalanceOf<T> = Zero::zero();
        for (who, ppm) in weights.iter() {
            let amount = Permill::from_parts(*ppm).mul_floor(budget);
            if amount.is_zero() {
                continue;
            }
            if T::Currency::transfer(&pot, who, amount, Preservation::Preserve).is_ok() {
                total = total.saturating_add(amount);
            }
        }
        Self::deposit_event(Event::EmissionsPaid { epoch, total });
    }
}
