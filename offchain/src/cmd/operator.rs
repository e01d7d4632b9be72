//! The operator's stake, against a node: `operator bond`, `operator unbond`, `operator
//! withdraw` (the unbonded funds whose unbonding period has passed) and `operator show`
//! (bond, unbonding chunks and the arena's required bond). The chain's refusals are
//! reported with the pallet's error name and what to do about it.

use std::time::Duration;

use cacheon::chain::{self, api, bounded, stakes, AccountId, ChainError};
use cacheon::exit;
use serde_json::{json, Value};

use super::display::{units, who};
use super::proposal::connect;
use super::Out;
use crate::{ChainArgs, KeyArgs};

/// `cacheon operator …`: amounts are in UNIT, with up to 12 decimals (`1000`, `2.5`).
#[derive(clap::Subcommand)]
pub enum OperatorCommand {
    /// Bond AMOUNT more in ARENA: held from the operator's account (not spent) until
    /// unbonded and withdrawn.
    Bond {
        arena: String,
        /// In UNIT, e.g. 1000 or 2.5.
        #[arg(value_parser = super::display::parse_units)]
        amount: u128,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Take AMOUNT out of the bond in ARENA (not while the operator holds a lease): it stops
    /// counting towards the required bond at once but stays held, and slashable, for the
    /// chain's unbonding period; then `cacheon operator withdraw ARENA` releases it.
    Unbond {
        arena: String,
        /// In UNIT, e.g. 1000 or 2.5.
        #[arg(value_parser = super::display::parse_units)]
        amount: u128,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// Release the unbonded funds in ARENA whose unbonding period has passed (not while a
    /// challenge of a crown the operator's PASS made is open there).
    Withdraw {
        arena: String,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
    /// An operator's stake in each arena (or in ARENA): bonded, the arena's required bond,
    /// and the unbonding chunks with the blocks they are released from.
    Show {
        arena: Option<String>,
        /// Whose stake (SS58; default: the account of --suri or --key-file).
        #[arg(long)]
        account: Option<String>,
        #[command(flatten)]
        key: KeyArgs,
        #[command(flatten)]
        chain: ChainArgs,
    },
}

/// Runs an `operator` subcommand.
pub fn run(out: &Out, command: OperatorCommand) -> i32 {
    match command {
        OperatorCommand::Bond {
            arena,
            amount,
            key,
            chain,
        } => super::block_on(bond(out, &arena, amount, &key, &chain)),
        OperatorCommand::Unbond {
            arena,
            amount,
            key,
            chain,
        } => super::block_on(unbond(out, &arena, amount, &key, &chain)),
        OperatorCommand::Withdraw { arena, key, chain } => {
            super::block_on(withdraw(out, &arena, &key, &chain))
        }
        OperatorCommand::Show {
            arena,
            account,
            key,
            chain,
        } => super::block_on(show(
            out,
            arena.as_deref(),
            account.as_deref(),
            &key,
            &chain,
        )),
    }
}

/// What to do about a refusal, by the pallet's error name in it: the refusals a person
/// meets with these commands and `challenge`, and the free balance the holds need.
pub fn hint(refusal: &str) -> Option<&'static str> {
    const HINTS: &[(&str, &str)] = &[
        ("UnknownArena", "no such arena on this chain: `cacheon arena` lists them"),
        ("ZeroAmount", "the amount must be above zero"),
        ("UnbondTooLarge", "more than is bonded: `cacheon operator show` says what is"),
        ("LeaseOpen", "an operator holding a lease cannot unbond: wait for its attestation or expiry"),
        ("TooManyUnbondingChunks", "too many unbonding chunks: withdraw the due ones first (`cacheon operator withdraw`)"),
        ("NothingToWithdraw", "no unbonding chunk is due yet: `cacheon operator show` lists their release blocks"),
        ("CrownUnderChallenge", "a crown this operator's PASS made is challenged: its funds stay until the challenge ends"),
        ("NotCrowned", "only a standing crown can be challenged: `cacheon status N` shows the proposal's status"),
        ("AlreadyChallenged", "the crown has an open challenge already: `cacheon status N` shows it"),
        ("TooManyChallenges", "the arena has as many open challenges as it allows: try again when one ends"),
        ("UnknownProposal", "no such proposal: `cacheon status` lists the arenas' crowns"),
        ("ChallengeScheduleFull", "no deadline block had room: try again in a block"),
        ("FundsUnavailable", "the account's free balance cannot cover the amount held"),
        ("InsufficientBalance", "the account's free balance cannot cover the amount held"),
    ];
    HINTS
        .iter()
        .find(|(name, _)| refusal.contains(name))
        .map(|(_, hint)| *hint)
}

/// Reports a chain error with its hint, if it has one.
pub fn refused(out: &Out, e: ChainError) -> i32 {
    let text = e.to_string();
    match hint(&text) {
        Some(h) => out.error(&format!("{text}\n  hint: {h}"), e.exit_code()),
        None => out.error(&text, e.exit_code()),
    }
}

/// Signs `call` with `key`, waits for it in a finalized block: its events and block.
pub(super) async fn send<Call: subxt::transactions::Payload>(
    out: &Out,
    call: &Call,
    key: &KeyArgs,
    c: &ChainArgs,
) -> Result<(chain::Events, u64, AccountId), i32> {
    let signer =
        chain::signer(key.suri.as_deref(), key.key_file.as_deref()).map_err(|e| refused(out, e))?;
    let client = connect(out, c).await?;
    let (events, block) = chain::submit(&client, call, &signer, Duration::from_secs(c.timeout))
        .await
        .map_err(|e| refused(out, e))?;
    Ok((events, block, chain::account(&signer)))
}

/// The first event of type `E` among a transaction's events, or the refusal to report.
fn event<E: subxt::events::DecodeAsEvent>(out: &Out, events: &chain::Events) -> Result<E, i32> {
    match events.find_first::<E>() {
        Some(Ok(e)) => Ok(e),
        _ => Err(out.error(
            &format!(
                "the transaction was finalized without its {} event",
                std::any::type_name::<E>().rsplit("::").next().unwrap_or("")
            ),
            exit::CHAIN_REFUSED,
        )),
    }
}

pub async fn bond(out: &Out, arena: &str, amount: u128, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let call = api::tx().cacheon().bond(bounded(arena.as_bytes()), amount);
    let (events, block, _) = match send(out, &call, key, c).await {
        Ok(r) => r,
        Err(code) => return code,
    };
    let e = match event::<api::cacheon::events::OperatorBonded>(out, &events) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let operator = e.operator.to_string();
    out.emit(
        json!({"event": "bonded", "arena": arena, "operator": operator,
               "amount": e.amount.to_string(), "total": e.total.to_string(), "block": block}),
        || {
            format!(
                "{} bonded {} more in {arena} in finalized block #{block}: {} bonded there now\n  \
                 its validator keys lease in {arena} while the bond covers the arena's required bond \
                 (`cacheon operator show`)",
                who(&operator),
                units(e.amount as i128),
                units(e.total as i128)
            )
        },
    );
    exit::OK
}

pub async fn unbond(out: &Out, arena: &str, amount: u128, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let call = api::tx()
        .cacheon()
        .unbond(bounded(arena.as_bytes()), amount);
    let (events, block, _) = match send(out, &call, key, c).await {
        Ok(r) => r,
        Err(code) => return code,
    };
    let e = match event::<api::cacheon::events::OperatorUnbonded>(out, &events) {
        Ok(e) => e,
        Err(code) => return code,
    };
    out.emit(
        json!({"event": "unbonded", "arena": arena, "operator": e.operator.to_string(),
               "amount": e.amount.to_string(), "total": e.total.to_string(),
               "release_at": e.release_at, "block": block}),
        || {
            format!(
                "unbonded {} in {arena} in finalized block #{block}: {} still bonded\n  \
                 the {} stays held, and slashable, until block #{}; then `cacheon operator withdraw {arena}`",
                units(e.amount as i128),
                units(e.total as i128),
                units(e.amount as i128),
                e.release_at
            )
        },
    );
    exit::OK
}

pub async fn withdraw(out: &Out, arena: &str, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let call = api::tx()
        .cacheon()
        .withdraw_unbonded(bounded(arena.as_bytes()));
    let (events, block, _) = match send(out, &call, key, c).await {
        Ok(r) => r,
        Err(code) => return code,
    };
    let e = match event::<api::cacheon::events::UnbondedWithdrawn>(out, &events) {
        Ok(e) => e,
        Err(code) => return code,
    };
    out.emit(
        json!({"event": "withdrawn_unbonded", "arena": arena, "operator": e.operator.to_string(),
               "amount": e.amount.to_string(), "block": block}),
        || {
            format!(
                "released {} of unbonded funds in {arena} to {} in finalized block #{block}",
                units(e.amount as i128),
                who(&e.operator.to_string())
            )
        },
    );
    exit::OK
}

/// The account `show` is about: `--account`, else the signing key's.
fn account_of(out: &Out, account: Option<&str>, key: &KeyArgs) -> Result<AccountId, i32> {
    if let Some(a) = account {
        return a
            .parse::<AccountId>()
            .map_err(|e| out.error(&format!("`{a}` is not an SS58 address: {e}"), exit::USAGE));
    }
    match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => Ok(chain::account(&k)),
        Err(_) => Err(out.error(
            "whose stake? give --account SS58, or the operator's key (--suri or --key-file)",
            exit::USAGE,
        )),
    }
}

/// An arena's line of `show` for people.
pub fn stake_line(a: &Value) -> String {
    let amount = |k: &str| {
        a[k].as_str()
            .and_then(|v| v.parse::<i128>().ok())
            .map_or("?".into(), units)
    };
    let mut line = format!(
        "  {}: bonded {} (required {}){}",
        a["arena"].as_str().unwrap_or_default(),
        amount("bonded"),
        amount("required"),
        if a["covers_required"] == true {
            ""
        } else {
            ": below the required bond, its keys lease nothing here"
        }
    );
    for chunk in a["unbonding"].as_array().into_iter().flatten() {
        line.push_str(&format!(
            "\n    unbonding {} from block #{}",
            chunk["amount"]
                .as_str()
                .and_then(|v| v.parse::<i128>().ok())
                .map_or("?".into(), units),
            chunk["release_at"]
        ));
    }
    line
}

/// `operator show`: an operator's stake in each arena (or in `arena`).
pub async fn show(
    out: &Out,
    arena: Option<&str>,
    account: Option<&str>,
    key: &KeyArgs,
    c: &ChainArgs,
) -> i32 {
    let operator = match account_of(out, account, key) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let read = async {
        let at = client
            .at_current_block()
            .await
            .map_err(chain::unavailable)?;
        let names: Vec<String> = match arena {
            Some(a) => vec![a.to_string()],
            None => chain::reads::arena_summaries(&at)
                .await?
                .into_iter()
                .map(|a| a.id)
                .collect(),
        };
        let mut arenas = Vec::new();
        for name in names {
            let stake = stakes::stake_of(&at, &name, &operator).await?;
            let required = stakes::required_bond(&at, &name).await?;
            let unbonding: Vec<Value> = stake
                .unbonding
                .iter()
                .map(|(at, amount)| json!({"release_at": at, "amount": amount.to_string()}))
                .collect();
            arenas.push(json!({"arena": name, "bonded": stake.bonded.to_string(),
                "required": required.to_string(), "covers_required": stake.bonded >= required,
                "unbonding": unbonding, "slashable": stake.slashable().to_string()}));
        }
        Ok::<_, ChainError>((at.block_number(), arenas))
    };
    let (block, arenas) = match read.await {
        Ok(r) => r,
        Err(e) => return refused(out, e),
    };
    let account = operator.to_string();
    out.emit(
        json!({"account": account, "block": block, "arenas": arenas}),
        || {
            let mut s = format!("{} at finalized block #{block}:", who(&account));
            for a in &arenas {
                s.push('\n');
                s.push_str(&stake_line(a));
            }
            s
        },
    );
    exit::OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_what_to_do() {
        let refusal = "transaction refused: Module error: Cacheon::NothingToWithdraw";
        assert!(hint(refusal).unwrap().contains("release blocks"));
        assert!(hint("... Cacheon::NotCrowned ...")
            .unwrap()
            .contains("standing crown"));
        assert_eq!(hint("node unavailable: connection refused"), None);
    }

    #[test]
    fn a_stake_line_says_whether_the_bond_covers_the_arena() {
        let a = json!({"arena": "cpu-tiny", "bonded": "500000000000000",
            "required": "1000000000000000", "covers_required": false,
            "unbonding": [{"release_at": 4210, "amount": "2500000000000"}]});
        assert_eq!(
            stake_line(&a),
            "  cpu-tiny: bonded 500 UNIT (required 1000 UNIT): below the required bond, its keys \
             lease nothing here\n    unbonding 2.5 UNIT from block #4210"
        );
    }
}
