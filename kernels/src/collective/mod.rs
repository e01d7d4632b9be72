//! What the ranks of a tensor-parallel engine share. On the CPU, every rank is its own
//! process and the ranks meet in one shared-memory file ([`shm::ShmGroup`]): each writes
//! its partial result as its row of a `[world, n]` exchange area, and after a barrier every
//! rank reduces all the rows in rank order, so all ranks hold the same bits afterwards.

pub mod shm;

pub use shm::{GroupError, ShmGroup};
