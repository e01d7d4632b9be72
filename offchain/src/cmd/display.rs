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

/// An amount as a person types it, in UNIT with at most 12 decimals ("100", "2.5",
/// "0.25 UNIT"), in planck. Refuses a sign, an exponent, more decimals than a planck has,
/// and amounts that overflow.
pub fn parse_units(text: &str) -> Result<u128, String> {
    let t = text.trim();
    let t = t.strip_suffix("UNIT").unwrap_or(t).trim_end();
    let bad = || format!("`{text}` is not an amount in UNIT (e.g. 100 or 2.5)");
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) {
        return Err(bad());
    }
    if frac.len() > 12 {
        return Err(format!("`{text}`: a UNIT has 12 decimals"));
    }
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let frac: u128 = format!("{frac:0<12}").parse().map_err(|_| bad())?;
    whole
        .checked_mul(PLANCK_PER_UNIT)
        .and_then(|p| p.checked_add(frac))
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// JSON keys whose string values are accounts.
pub fn is_account_key(key: &str) -> bool {
    matches!(
        key,
        "validator"
            | "miner"
            | "pass"
            | "fail"
            | "primary_validator"
            | "operator"
            | "challenger"
            | "account"
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

    #[test]
    fn amounts_are_typed_in_unit_with_at_most_twelve_decimals() {
        assert_eq!(parse_units("100"), Ok(100 * PLANCK_PER_UNIT));
        assert_eq!(parse_units("2.5"), Ok(2_500_000_000_000));
        assert_eq!(parse_units(" 0.25 UNIT "), Ok(250_000_000_000));
        assert_eq!(parse_units(".5"), Ok(500_000_000_000));
        assert_eq!(parse_units("7."), Ok(7 * PLANCK_PER_UNIT));
        assert_eq!(parse_units("0.000000000001"), Ok(1));
        assert!(parse_units("0.0000000000001")
            .unwrap_err()
            .contains("12 decimals"));
        for bad in ["", ".", "-1", "1e3", "1,5", "ten", "1.2.3"] {
            assert!(parse_units(bad).is_err(), "{bad:?}");
        }
        assert!(parse_units(&"9".repeat(40)).is_err());
        // What `units` prints reads back.
        assert_eq!(
            parse_units(&units(52_428_800_000_000)),
            Ok(52_428_800_000_000)
        );
    }
}
