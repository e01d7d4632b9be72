//! Storage migrations, one module per storage version. The runtime lists the ones it still
//! needs in its `Executive`'s migrations; each runs once (guarded by the on-chain version).

pub mod v2;
pub mod v3;
pub mod v4;
pub mod v5;
