//! Human output of chain values: accounts by their dev name where they have one ("Alice
//! (5GrwvaEF…oHGKutQY)"), else shortened SS58; amounts in UNIT with decimals. JSON output keeps
//! the raw values (full SS58 addresses, planck as strings).

use std::sync::OnceLock;

use cacheon::chain::AccountId;

/// Planck per UNIT (12 decimals: the runtime's `UNIT` and the chain spec's `tokenDecimals`).
const PLANCK_PER_UNIT: u128 = 1_000_000_000_000;

/// The dev accounts (`//Alice` … `//Ferdie`) as SS58, with their names.
fn dev_accounts() -> &'static [(String, &'static str)] {
    static DEV: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    DEV.get_or_init(|| {
        use subxt_signer::sr25519::dev;
        [
            (dev::alice(), "Alice"),
            (dev::bob(), "Bob"),
            (dev::charlie(), "Charlie"),
            (dev::dave(), "Dave"),
            (dev::eve(), "Eve"),
            (dev::ferdie(), "Ferdie"),
        ]
        .into_iter()
        .map(|(k, name)| (AccountId::from(k.public_key()).to_string(), name))
        .collect()
    })
}

/// An SS58 address for people: "Alice (5GrwvaEF…oHGKutQY)" for a dev account,
/// "5GrwvaEF…oHGKutQY" else (eight characters each side: a lookalike address is not cheap
/// to grind); anything that is not an address comes back unchanged.
pub fn who(ss58: &str) -> String {
    let short = if ss58.len() > 20 && ss58.is_ascii() {
        format!("{}…{}", &ss58[..8], &ss58[ss58.len() - 8..])
    } else {
        return ss58.to_string();
    };
    match dev_accounts().iter().find(|(a, _)| a == ss58) {
        Some((_, name)) => format!("{name} ({short})"),
        None => short,
    }
}

/// An amount in planck as UNIT with its decimals, trailing zeros dropped: "52.4288 UNIT".
pub fn units(planck: i128) -> String {
    let sign = if planck < 0 { "-" } else { "" };
    let p = planck.unsigned_abs();
    let (whole, frac) = (p / PLANCK_PER_UNIT, p % PLANCK_PER_UNIT);
    let frac = format!("{frac:012}");
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{whole} UNIT")
    } else {
        format!("{sign}{whole}.{frac} UNIT")
    }
}

/// JSON keys whose string values are accounts.
pub fn is_account_key(key: &str) -> bool {
    matches!(
        key,
        "validator" | "miner" | "pass" | "fail" | "primary_validator" | "operator"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_accounts_by_name_and_amounts_in_unit() {
        let alice = AccountId::from(subxt_signer::sr25519::dev::alice().public_key()).to_string();
        assert_eq!(
            who(&alice),
            format!("Alice ({}…{})", &alice[..8], &alice[alice.len() - 8..])
        );
        let bob = "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty";
        assert_eq!(who(bob), "Bob (5FHneW46…jJM694ty)");
        let other = AccountId::from([7u8; 32]).to_string();
        assert_eq!(
            who(&other),
            format!("{}…{}", &other[..8], &other[other.len() - 8..])
        );
        assert_eq!(who("none"), "none");
        assert_eq!(units(52_428_800_000_000), "52.4288 UNIT");
        assert_eq!(units(3 * PLANCK_PER_UNIT as i128), "3 UNIT");
        assert_eq!(units(-1), "-0.000000000001 UNIT");
    }
}
