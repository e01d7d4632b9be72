//! The slot registry (DESIGN 5 and 5.1): every slot's id, its ABI parameter list, shape
//! symbols, correctness check and fixed verification shapes, plus the atomic targets.
//!
//! Everything here is backend-neutral: the same table drives the CPU arena (`T = float`)
//! and the CUDA arena (`T = __nv_bfloat16`).
//!
//! The registry itself: its vocabulary (`spec.rs`: [`SlotId`], [`Param`], [`SlotSpec`],
//! [`Dtype`] and its [`Tolerance`]), the table of every slot's spec (`table.rs`), the
//! catalog's targets (`targets.rs`) and the C and CUDA prototypes (`prototype.rs`).

pub mod args;
pub mod call;
pub mod cases;
pub mod compare;
pub mod probe;
pub mod reference;
pub mod stacks;

mod prototype;
mod spec;
mod table;
mod targets;

pub use prototype::{c_prototype, cuda_prototype};
pub use spec::{
    Check, Dim, Dtype, Elem, Param, ParamKind, SlotId, SlotSpec, Tolerance, SLOT_COUNT,
};
pub use targets::{target, targets, TargetKind, TargetSpec};

/// The ABI version string every bundle manifest must carry.
pub const ABI_VERSION: &str = "cacheon-slot-abi-v1";
