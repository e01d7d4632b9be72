//! Why the validator stopped or must reconnect.

use crate::chain::ChainError;

/// A validator failure. The loop reconnects after a node failure ([`ValidatorError::Chain`]
/// other than `Input`) and stops on everything else: nothing it could attest without its
/// attempt index or its evidence store would be safe.
#[derive(Debug, thiserror::Error)]
pub enum ValidatorError {
    /// The node: unreachable, a refused transaction, a timeout, or a bad key or argument.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The SQLite attempt index.
    #[error("attempt index: {0}")]
    Index(#[from] rusqlite::Error),
    /// The data folder or the evidence store.
    #[error("{0}")]
    Storage(String),
}

impl ValidatorError {
    /// Whether the loop should reconnect and go on (a node failure), or stop.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ValidatorError::Chain(
                ChainError::Unavailable(_) | ChainError::Timeout(_) | ChainError::Refused(_)
            )
        )
    }

    /// The `cacheon` exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            ValidatorError::Chain(e) => e.exit_code(),
            ValidatorError::Index(_) | ValidatorError::Storage(_) => crate::exit::USAGE,
        }
    }
}
