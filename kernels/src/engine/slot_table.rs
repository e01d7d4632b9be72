//! The engine's slot table: which loaded kernel serves each slot. Every slot call of the
//! engine goes through here, which counts it (the validator requires a candidate's slot
//! to have run) and shows it to an optional observer before and after the kernel runs
//! (the audit hook). Swapping one slot's kernel leaves the others untouched.

use std::sync::Arc;

use crate::bundle::stock;
use crate::cpu::build::{build_cpu_bundle, CpuBuildError, CpuBuildOptions, CpuBundle};
use crate::cpu::kernel::CpuKernel;
use crate::slots::args::{Buffer, SlotArgs};
use crate::slots::stacks::{KernelStacks, StackError};
use crate::slots::SlotId;

/// When an observer sees a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallPhase {
    /// Outputs hold whatever the engine left there; inputs are what the kernel gets.
    Before,
    /// The kernel has returned; outputs hold its results.
    After,
}

/// One slot call's arguments, borrowed from the engine.
#[derive(Clone, Copy, Debug)]
pub enum SlotCall<'a> {
    SiluAndMul {
        out: &'a [f32],
        x: &'a [f32],
        tokens: usize,
        d: usize,
    },
    RmsNorm {
        out: &'a [f32],
        x: &'a [f32],
        w: &'a [f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    },
    FusedAddRmsNorm {
        out_norm: &'a [f32],
        out_residual: &'a [f32],
        x: &'a [f32],
        residual: &'a [f32],
        w: &'a [f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    },
    Rope {
        q_out: &'a [f32],
        k_out: &'a [f32],
        q: &'a [f32],
        k: &'a [f32],
        positions: &'a [i32],
        theta: f32,
        tokens: usize,
        q_heads: usize,
        kv_heads: usize,
        head_dim: usize,
    },
    AttentionDecode {
        out: &'a [f32],
        q: &'a [f32],
        k_cache: &'a [f32],
        v_cache: &'a [f32],
        seq_lens: &'a [i32],
        scale: f32,
        batch: usize,
        q_heads: usize,
        kv_heads: usize,
        head_dim: usize,
        max_seq: usize,
    },
}

impl SlotCall<'_> {
    pub fn slot(&self) -> SlotId {
        match self {
            SlotCall::SiluAndMul { .. } => SlotId::SiluAndMul,
            SlotCall::RmsNorm { .. } => SlotId::RmsNorm,
            SlotCall::FusedAddRmsNorm { .. } => SlotId::FusedAddRmsNorm,
            SlotCall::Rope { .. } => SlotId::Rope,
            SlotCall::AttentionDecode { .. } => SlotId::AttentionDecode,
        }
    }

    /// The output buffers, in ABI order.
    pub fn outputs(&self) -> Vec<&[f32]> {
        match *self {
            SlotCall::SiluAndMul { out, .. }
            | SlotCall::RmsNorm { out, .. }
            | SlotCall::AttentionDecode { out, .. } => vec![out],
            SlotCall::FusedAddRmsNorm {
                out_norm,
                out_residual,
                ..
            } => vec![out_norm, out_residual],
            SlotCall::Rope { q_out, k_out, .. } => vec![q_out, k_out],
        }
    }

    /// A private copy of the call's inputs (outputs poisoned), ready for the reference.
    pub fn to_args(&self) -> SlotArgs {
        let f = |v: &[f32]| Buffer::F32(v.to_vec());
        let n = |v: &[i32]| Buffer::I32(v.to_vec());
        let i = |v: usize| v as i64;
        let (shape, inputs, scalars) = match *self {
            SlotCall::SiluAndMul { x, tokens, d, .. } => {
                (vec![i(tokens), i(d)], vec![f(x)], vec![])
            }
            SlotCall::RmsNorm {
                x,
                w,
                eps,
                tokens,
                hidden,
                ..
            } => (vec![i(tokens), i(hidden)], vec![f(x), f(w)], vec![eps]),
            SlotCall::FusedAddRmsNorm {
                x,
                residual,
                w,
                eps,
                tokens,
                hidden,
                ..
            } => (
                vec![i(tokens), i(hidden)],
                vec![f(x), f(residual), f(w)],
                vec![eps],
            ),
            SlotCall::Rope {
                q,
                k,
                positions,
                theta,
                tokens,
                q_heads,
                kv_heads,
                head_dim,
                ..
            } => (
                vec![i(tokens), i(q_heads), i(kv_heads), i(head_dim)],
                vec![f(q), f(k), n(positions)],
                vec![theta],
            ),
            SlotCall::AttentionDecode {
                q,
                k_cache,
                v_cache,
                seq_lens,
                scale,
                batch,
                q_heads,
                kv_heads,
                head_dim,
                max_seq,
                ..
            } => (
                vec![i(batch), i(q_heads), i(kv_heads), i(head_dim), i(max_seq)],
                vec![f(q), f(k_cache), f(v_cache), n(seq_lens)],
                vec![scale],
            ),
        };
        SlotArgs::new(self.slot(), shape, inputs, scalars).expect("engine calls fit the ABI")
    }
}

/// Sees every slot call served by its slot's top kernel, the one installed last (the
/// audit hook of DESIGN 7 step 8: the candidate's calls, not the incumbent's below it).
pub trait SlotObserver: Send + Sync {
    fn observe(&self, phase: CallPhase, call: &SlotCall<'_>);
}

/// Why a slot table could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum SlotTableError {
    #[error(transparent)]
    Stacks(#[from] StackError),
    #[error("building stock bundle `{name}`: {source}")]
    Stock {
        name: &'static str,
        source: CpuBuildError,
    },
}

/// Picks the kernel for one call of `$slot` at `$shape` (bound to `$k`), shows `$call` to
/// the observer when the slot's top kernel serves it, runs `$run`, shows `$call` again
/// (now with outputs).
macro_rules! observed {
    ($self:ident, $slot:expr, $shape:expr, $call:expr, |$k:ident| $run:expr) => {{
        let ($k, top) = $self.dispatch($slot, $shape);
        let observer = $self.observer.as_ref().filter(|_| top);
        if let Some(o) = observer {
            o.observe(CallPhase::Before, &$call);
        }
        $run;
        if let Some(o) = observer {
            o.observe(CallPhase::After, &$call);
        }
    }};
}

pub use crate::slots::stacks::DispatchCounts;

/// The kernels serving each slot, with dispatch counters and an optional observer.
///
/// Per slot, a stack: the genesis kernel at the bottom, each installed kernel over the
/// ones before it. A call goes to the topmost kernel whose `when` domain takes its shape
/// (DESIGN 6: "calls outside it use the incumbent"); genesis kernels take every shape.
pub struct SlotTable {
    stacks: KernelStacks<CpuKernel>,
    observer: Option<Arc<dyn SlotObserver>>,
}

impl std::fmt::Debug for SlotTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlotTable")
            .field("stacks", &self.stacks)
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

impl SlotTable {
    /// A table from exactly one kernel per slot.
    pub fn new(kernels: Vec<CpuKernel>) -> Result<SlotTable, SlotTableError> {
        Ok(SlotTable {
            stacks: KernelStacks::new(kernels)?,
            observer: None,
        })
    }

    /// The CPU genesis stack: the five stock bundles, built by the common build path.
    pub fn genesis_cpu(opts: &CpuBuildOptions) -> Result<SlotTable, SlotTableError> {
        let mut kernels = Vec::new();
        for b in stock::cpu_bundles() {
            let built = build_cpu_bundle(&b.files(), b.name, opts).map_err(|source| {
                SlotTableError::Stock {
                    name: b.name,
                    source,
                }
            })?;
            kernels.extend(built.kernels().iter().cloned());
        }
        SlotTable::new(kernels)
    }

    /// Installs a kernel over its slot's current one and returns (a handle to) the kernel
    /// it covers, which still serves the calls outside the new kernel's `when` domain.
    /// The slot's dispatch count restarts at zero, so counts always belong to the
    /// installed kernel; the other slots' kernels and counts are untouched.
    pub fn install(&mut self, kernel: CpuKernel) -> CpuKernel {
        self.stacks.install(kernel).clone()
    }

    /// Installs every kernel of a bundle together (an atomic target covers all of its
    /// member slots at once); returns the covered kernels.
    pub fn install_bundle(&mut self, bundle: &CpuBundle) -> Vec<CpuKernel> {
        bundle
            .kernels()
            .iter()
            .map(|k| self.install(k.clone()))
            .collect()
    }

    /// The kernel installed last in a slot (it serves every call inside its domain).
    pub fn kernel(&self, slot: SlotId) -> &CpuKernel {
        self.stacks.top(slot)
    }

    /// How many times each slot's installed kernel has been called (since it was
    /// installed or the last reset); calls outside its domain, served by a kernel below
    /// it, do not count.
    pub fn dispatch_counts(&self) -> DispatchCounts {
        self.stacks.dispatch_counts()
    }

    pub fn dispatch_count(&self, slot: SlotId) -> u64 {
        self.stacks.dispatch_count(slot)
    }

    pub fn reset_counts(&self) {
        self.stacks.reset_counts()
    }

    /// Sets (or clears) the observer shown every call.
    pub fn set_observer(&mut self, observer: Option<Arc<dyn SlotObserver>>) {
        self.observer = observer;
    }

    /// The kernel for one call, the topmost whose domain takes `shape` (ABI order), and
    /// whether it is the slot's top kernel.
    fn dispatch(&self, slot: SlotId, shape: &[usize]) -> (&CpuKernel, bool) {
        let mut values = [0i64; 5];
        values
            .iter_mut()
            .zip(shape)
            .for_each(|(v, &s)| *v = s as i64);
        let shape = &values[..shape.len()];
        // Nothing taking the shape (genesis kernels take all): the bottom kernel.
        let pick = self
            .stacks
            .pick(slot, shape)
            .unwrap_or_else(|| self.stacks.bottom(slot));
        if pick.top {
            self.stacks.count_call(slot);
        }
        (pick.kernel, pick.top)
    }

    pub fn silu_and_mul(&self, out: &mut [f32], x: &[f32], tokens: usize, d: usize) {
        observed!(
            self,
            SlotId::SiluAndMul,
            &[tokens, d],
            SlotCall::SiluAndMul {
                out: &*out,
                x,
                tokens,
                d
            },
            |kernel| kernel.silu_and_mul(out, x, tokens, d)
        );
    }

    pub fn rmsnorm(
        &self,
        out: &mut [f32],
        x: &[f32],
        w: &[f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    ) {
        observed!(
            self,
            SlotId::RmsNorm,
            &[tokens, hidden],
            SlotCall::RmsNorm {
                out: &*out,
                x,
                w,
                eps,
                tokens,
                hidden
            },
            |kernel| kernel.rmsnorm(out, x, w, eps, tokens, hidden)
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn fused_add_rmsnorm(
        &self,
        out_norm: &mut [f32],
        out_residual: &mut [f32],
        x: &[f32],
        residual: &[f32],
        w: &[f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    ) {
        observed!(
            self,
            SlotId::FusedAddRmsNorm,
            &[tokens, hidden],
            SlotCall::FusedAddRmsNorm {
                out_norm: &*out_norm,
                out_residual: &*out_residual,
                x,
                residual,
                w,
                eps,
                tokens,
                hidden,
            },
            |kernel| kernel.fused_add_rmsnorm(
                out_norm,
                out_residual,
                x,
                residual,
                w,
                eps,
                tokens,
                hidden
            )
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn rope(
        &self,
        q_out: &mut [f32],
        k_out: &mut [f32],
        q: &[f32],
        k: &[f32],
        positions: &[i32],
        theta: f32,
        tokens: usize,
        q_heads: usize,
        kv_heads: usize,
        head_dim: usize,
    ) {
        observed!(
            self,
            SlotId::Rope,
            &[tokens, q_heads, kv_heads, head_dim],
            SlotCall::Rope {
                q_out: &*q_out,
                k_out: &*k_out,
                q,
                k,
                positions,
                theta,
                tokens,
                q_heads,
                kv_heads,
                head_dim,
            },
            |kernel| kernel
                .rope(q_out, k_out, q, k, positions, theta, tokens, q_heads, kv_heads, head_dim)
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn attention_decode(
        &self,
        out: &mut [f32],
        q: &[f32],
        k_cache: &[f32],
        v_cache: &[f32],
        seq_lens: &[i32],
        scale: f32,
        batch: usize,
        q_heads: usize,
        kv_heads: usize,
        head_dim: usize,
        max_seq: usize,
    ) {
        observed!(
            self,
            SlotId::AttentionDecode,
            &[batch, q_heads, kv_heads, head_dim, max_seq],
            SlotCall::AttentionDecode {
                out: &*out,
                q,
                k_cache,
                v_cache,
                seq_lens,
                scale,
                batch,
                q_heads,
                kv_heads,
                head_dim,
                max_seq,
            },
            |kernel| kernel.attention_decode(
                out, q, k_cache, v_cache, seq_lens, scale, batch, q_heads, kv_heads, head_dim,
                max_seq,
            )
        );
    }
}
