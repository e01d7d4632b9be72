//! Trusted references for every slot: f32 in and out, f64 inside.
//!
//! These are the ground truth that stock and candidate kernels are compared with
//! (DESIGN 7 step 5 and the audit in step 8). They are written for clarity, not speed.
//! Each function takes exactly the slot's ABI parameters, as slices.
//!
//! One module per slot family (`activation`, `norm`, `position`, `attention`, `linear`,
//! `mlp`, `collective`, `moe`), the dispatch of a whole call (`compute.rs`), the error
//! scales (`scales.rs`) and the judging of a call, whole or on sampled rows (`judge.rs`).

mod activation;
mod attention;
mod collective;
mod compute;
mod judge;
mod linear;
mod mlp;
mod moe;
mod norm;
mod position;
mod scales;

pub use activation::silu_and_mul;
pub use attention::{attention_decode, attention_prefill};
pub use collective::all_reduce;
pub use compute::compute;
pub use judge::{
    expect, judge, judge_expected, judge_rows, reference_work, sampled_rows, Expectation, Judged,
    MAX_REFERENCE_WORK,
};
pub use linear::linear_matmul;
pub use mlp::gate_up_silu;
pub use moe::{moe_fused_experts, moe_shape, MoeInputs, MoeShape};
pub use norm::{fused_add_rmsnorm, rmsnorm};
pub use position::rope;
pub use scales::error_scales;

pub use crate::slots::compare::{allclose, check, check_scaled, matched_ratio, CompareReport};
