//! The miner's proposal commands, against a node: `commit`, `reveal`, `withdraw`,
//! `status`, `watch` (and the steps `submit.rs` chains).
//!
//! One module per command (`commit`, `reveal`, `withdraw`, `status`, `watch`), the commit
//! records kept on disk (`record`) and the node connection (`connect`); the proposal events
//! they print are `super::events`'s.

mod commit;
mod connect;
mod record;
mod reveal;
mod status;
mod watch;
mod withdraw;

pub use commit::commit;
pub(super) use commit::{prepare_commit, send_commit};
pub(super) use connect::{connect, fail};
pub use record::CommitRecord;
pub(super) use record::{load_records, record_path, save_record};
pub(super) use reveal::reveal_steps;
pub use reveal::{reveal, reveal_id};
pub use status::status;
pub(super) use status::{proposal_json, status_name, verdict_records, with_endpoints};
pub use watch::watch;
pub use withdraw::withdraw;
