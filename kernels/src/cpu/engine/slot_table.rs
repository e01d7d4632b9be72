//! The engine's slot table: which loaded kernel serves each slot. Every slot call of the
//! engine goes through here, which counts it (the validator requires a candidate's slot
//! to have run) and shows it to an optional observer before and after the kernel runs
//! (the audit hook). Swapping one slot's kernel leaves the others untouched.

use std::sync::Arc;

use crate::bundle::stock;
use crate::cpu::build::{build_cpu_bundle, CpuBuildError, CpuBuildOptions, CpuBundle};
use crate::cpu::kernel::CpuKernel;
use crate::slots::call::{SlotCall, Tensor};
use crate::slots::probe::{changed_value, Change};
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

/// Sees every slot call served by its slot's top kernel, the one installed last (the
/// audit hook of DESIGN 7 step 8: the candidate's calls, not the incumbent's below it).
pub trait SlotObserver: Send + Sync {
    /// `outputs` are the call's output buffers (ABI order) as they are in `phase`.
    fn observe(&self, phase: CallPhase, call: &SlotCall<'_>, outputs: &[&[f32]]);

    /// The in-place probe to make before this call (`crate::slots::probe`), if any: the
    /// inputs' elements to change for one extra call of the same kernel on the same
    /// buffers. Asked before [`CallPhase::Before`] is shown.
    fn probe(&self, _call: &SlotCall<'_>) -> Option<Vec<Change>> {
        None
    }

    /// The probe's call, its inputs as changed, and its outputs once the kernel returned.
    fn probed(&self, _call: &SlotCall<'_>, _outputs: &[&[f32]]) {}
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
    /// A kernel installed over an empty seam covers none.
    pub fn install(&mut self, kernel: CpuKernel) -> Option<CpuKernel> {
        self.stacks.install(kernel).cloned()
    }

    /// Installs every kernel of a bundle together (an atomic target covers all of its
    /// member slots at once); returns the covered kernels.
    pub fn install_bundle(&mut self, bundle: &CpuBundle) -> Vec<CpuKernel> {
        bundle
            .kernels()
            .iter()
            .filter_map(|k| self.install(k.clone()))
            .collect()
    }

    /// The kernel installed last in a slot (it serves every call inside its domain); none
    /// in a seam nothing was installed for.
    pub fn kernel(&self, slot: SlotId) -> Option<&CpuKernel> {
        self.stacks.top(slot)
    }

    /// Whether some kernel of the slot's stack takes `shape`: always for a plain slot
    /// (its genesis kernel takes every shape), for a seam only inside an installed
    /// kernel's domain.
    pub fn serves(&self, slot: SlotId, shape: &[usize]) -> bool {
        let mut values = [0i64; MAX_SHAPE];
        let n = shape.len().min(MAX_SHAPE);
        for (v, &s) in values.iter_mut().zip(&shape[..n]) {
            *v = s as i64;
        }
        self.stacks.pick(slot, &values[..n]).is_some()
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

    /// One slot call: the topmost kernel whose domain takes `shape` runs it, writing
    /// `outputs` (one slice per output parameter, ABI order). When that is the slot's top
    /// kernel the call is counted and shown to the observer before and after it runs.
    /// Arguments are in ABI order ([`SlotCall`]); a call that does not fit the slot's ABI
    /// panics (the engine builds every call from its model's shapes).
    pub fn call(
        &self,
        slot: SlotId,
        outputs: &mut [&mut [f32]],
        inputs: &[Tensor<'_>],
        scalars: &[f32],
        shape: &[usize],
    ) {
        let mut values = [0i64; MAX_SHAPE];
        let Some(values) = values.get_mut(..shape.len()) else {
            panic!("{slot}: more shape values than any slot has")
        };
        for (v, &s) in values.iter_mut().zip(shape) {
            *v = i64::try_from(s).expect("shape values fit in int64_t");
        }
        let call = SlotCall {
            slot,
            inputs,
            scalars,
            shape: values,
        };
        // Nothing taking the shape (genesis kernels take all): the bottom kernel. A seam's
        // caller asks `serves` first.
        let pick = self
            .stacks
            .pick(slot, values)
            .or_else(|| self.stacks.bottom(slot))
            .unwrap_or_else(|| panic!("{slot}: no kernel takes {shape:?}"));
        let observer = self.observer.as_ref().filter(|_| pick.top);
        let show = |o: &Arc<dyn SlotObserver>, phase, outputs: &[&mut [f32]]| {
            let views: Vec<&[f32]> = outputs.iter().map(|v| &**v).collect();
            o.observe(phase, &call, &views);
        };
        if pick.top {
            self.stacks.count_call(slot);
        }
        if let Some(o) = observer {
            if let Some(changes) = o.probe(&call) {
                probe(&call, &changes, outputs, |c, outs| {
                    pick.kernel.call_into(c, outs);
                    let views: Vec<&[f32]> = outs.iter().map(|v| &**v).collect();
                    o.probed(c, &views);
                });
            }
            show(o, CallPhase::Before, outputs);
        }
        pick.kernel.call_into(&call, outputs);
        if let Some(o) = observer {
            show(o, CallPhase::After, outputs);
        }
    }
}

/// One in-place probe: `changes` written into the call's own input buffers (those lent in
/// place), the outputs filled with NaN, `run` (the kernel, then the observer), the old
/// values written back. The real call follows on exactly the inputs it was given.
fn probe(
    call: &SlotCall<'_>,
    changes: &[Change],
    outputs: &mut [&mut [f32]],
    run: impl FnOnce(&SlotCall<'_>, &mut [&mut [f32]]),
) {
    let mut saved = Vec::with_capacity(changes.len());
    for c in changes {
        let Some(Tensor::F32InPlace(v)) = call.inputs.get(c.input) else {
            panic!(
                "{}: input {} is not lent in place; the engine lends every f32 input after the first so",
                call.slot, c.input
            )
        };
        let Some(cell) = v.get(c.at) else { continue };
        saved.push((cell, cell.get()));
        cell.set(changed_value(cell.get()));
    }
    outputs.iter_mut().for_each(|o| o.fill(f32::NAN));
    run(call, outputs);
    for (cell, old) in saved.into_iter().rev() {
        cell.set(old);
    }
}

/// The most shape values a slot has.
const MAX_SHAPE: usize = 8;
