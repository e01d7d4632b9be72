//! `cacheon`: the miner's command line and the referee's screening pipeline.
//!
//! - [`policy`]: the source policy (static screen of C and CUDA sources).
//! - [`lane`]: the lane-runner processes candidate code runs in (DESIGN 7.1).
//! - [`arena`]: the arenas the off-chain tools know.
//! - [`chain`]: the subxt client for the Cacheon node (types generated from the runtime
//!   metadata file committed with the runtime); [`chain::reads`] is every read of chain
//!   state the tools make.
//! - [`qualify`]: one whole qualification attempt and its report: the screens (DESIGN 7
//!   steps 1-6: pack, policy, copy, build, ABI, verify, graph, with typed findings that map
//!   to the on-chain FAIL reasons), speed reads, audit A, pristine reference T; [`evidence`] stores reports content-addressed.
//! - [`validator`]: the validator daemon (follows finalized blocks, leases, attempts,
//!   attests; SQLite attempt index; Prometheus metrics).
//! - [`unpack`]: writing a bundle's files into a fresh directory, safely.

pub mod arena;
pub mod chain;
pub mod evidence;
pub mod fingerprint;
pub mod lane;
pub mod policy;
pub mod qualify;
pub mod release;
pub mod unpack;
pub mod validator;

/// Exit codes of the `cacheon` binary (documented in `--help`).
pub mod exit {
    /// Success; for `verify`, the bundle passed every screen.
    pub const OK: i32 = 0;
    /// The bundle failed a screen (a FAIL verdict), or a proposal ended failed.
    pub const FAIL: i32 = 1;
    /// Bad usage or unreadable input (clap's usage errors use 2 as well).
    pub const USAGE: i32 = 2;
    /// No decision: our side failed (no GPU, lane infrastructure).
    pub const NO_DECISION: i32 = 3;
    /// The chain refused a transaction (dispatch error, invalid transaction).
    pub const CHAIN_REFUSED: i32 = 4;
    /// The node could not be reached, or finality did not come in time.
    pub const CHAIN_UNAVAILABLE: i32 = 5;
}
