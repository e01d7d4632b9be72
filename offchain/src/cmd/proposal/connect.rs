//! The node connection every chain command opens, and how a chain error ends one.

use std::time::Duration;

use cacheon::chain::{self, ChainError, Client};

use crate::cmd::Out;
use crate::ChainArgs;

pub(in crate::cmd) fn fail(out: &Out, e: ChainError) -> i32 {
    out.error(&e.to_string(), e.exit_code())
}

pub(in crate::cmd) async fn connect(out: &Out, c: &ChainArgs) -> Result<Client, i32> {
    chain::connect(&c.url, Duration::from_secs(c.timeout))
        .await
        .map_err(|e| fail(out, e))
}
