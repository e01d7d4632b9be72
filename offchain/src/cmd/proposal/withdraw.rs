//! `withdraw`: the miner takes a proposal back.

use std::time::Duration;

use cacheon::chain::{self, api};
use cacheon::exit;
use serde_json::json;

use crate::cmd::Out;
use crate::{ChainArgs, KeyArgs};

use super::connect::{connect, fail};

pub async fn withdraw(out: &Out, proposal: u64, key: &KeyArgs, c: &ChainArgs) -> i32 {
    let signer = match chain::signer(key.suri.as_deref(), key.key_file.as_deref()) {
        Ok(k) => k,
        Err(e) => return fail(out, e),
    };
    let client = match connect(out, c).await {
        Ok(cl) => cl,
        Err(code) => return code,
    };
    let call = api::transactions().cacheon().withdraw(proposal);
    match chain::submit(&client, &call, &signer, Duration::from_secs(c.timeout)).await {
        Ok((_, block)) => {
            out.emit(
                json!({"event": "withdrawn", "proposal": proposal, "block": block}),
                || format!("withdrew proposal {proposal} in finalized block #{block}"),
            );
            exit::OK
        }
        Err(e) => fail(out, e),
    }
}
