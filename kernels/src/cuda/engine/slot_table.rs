//! The CUDA slot table: which kernel serves each slot, how often it was dispatched, and
//! (for the audit, DESIGN 7 step 8) a record of a sample of the calls of some slots.

use std::sync::Mutex;

use super::*;
use crate::slots::args::{Buffer, SlotArgs};
use crate::slots::stacks::KernelStacks;
use crate::slots::{Elem, ParamKind};

/// The calls recorded for an audit: which calls of which slots, and each call's inputs
/// (downloaded just before the launch) with its outputs (just after), bf16 widened to f32.
struct Recording {
    sample: Vec<(SlotId, Vec<u64>)>,
    calls: Mutex<Vec<RecordedLaunch>>,
}

impl Recording {
    fn wants(&self, slot: SlotId, index: u64) -> bool {
        self.sample
            .iter()
            .any(|(s, calls)| *s == slot && calls.contains(&index))
    }
}

/// One recorded call of an audit read.
#[derive(Clone, Debug)]
pub struct RecordedLaunch {
    /// Which call of its slot it was (0-based, counted from the last `reset_counts`).
    pub index: u64,
    /// Inputs as they were before the launch, outputs after it.
    pub args: SlotArgs,
    /// Inputs (ABI order) whose contents differed after the launch.
    pub inputs_changed: Vec<usize>,
}

// ---------------------------------------------------------------------------------------
// The slot table.

/// Which loaded CUDA kernels serve each slot, with per-slot dispatch counters. Genesis
/// contents: the stock CUDA bundles; [`CudaSlotTable::install`] puts a kernel over its
/// slot's current one. A call goes to the topmost kernel whose `when` domain takes its
/// shape (DESIGN 6: "calls outside it use the incumbent"); stock kernels take every shape.
pub struct CudaSlotTable {
    stacks: KernelStacks<CudaKernel>,
    recording: Option<Recording>,
}

impl std::fmt::Debug for CudaSlotTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaSlotTable")
            .field("stacks", &self.stacks)
            .finish()
    }
}

impl CudaSlotTable {
    /// A table from exactly one kernel per slot.
    pub fn new(kernels: Vec<CudaKernel>) -> Result<CudaSlotTable, CudaEngineError> {
        Ok(CudaSlotTable {
            stacks: KernelStacks::new(kernels)
                .map_err(|e| CudaEngineError::Slots(e.to_string()))?,
            recording: None,
        })
    }

    /// The stock CUDA bundles, built by the one CUDA build path and loaded on `dev`, each
    /// launched with programmatic dependent launch (every stock kernel waits for the grid
    /// before it first: `GRID_DEPENDENCY_WAIT`).
    pub fn stock(dev: &CudaDevice) -> Result<CudaSlotTable, CudaEngineError> {
        Self::stock_with(dev, true)
    }

    /// [`Self::stock`], with programmatic dependent launch on or off (a benchmark's A/B
    /// switch; the validator never turns it off).
    pub fn stock_with(
        dev: &CudaDevice,
        programmatic: bool,
    ) -> Result<CudaSlotTable, CudaEngineError> {
        let opts = CudaBuildOptions::default();
        let mut kernels = Vec::new();
        for b in stock::cuda_bundles() {
            let built = build_cuda_bundle(&b.files(), b.name, dev, &opts).map_err(|e| {
                CudaEngineError::Build {
                    name: b.name.to_string(),
                    error: e.to_string(),
                }
            })?;
            kernels.extend(built.into_kernels().into_iter().map(|mut k| {
                k.set_programmatic_launch(programmatic);
                k
            }));
        }
        CudaSlotTable::new(kernels)
    }

    /// Puts `kernel` over its slot's current kernel (which keeps serving the calls outside
    /// the new one's domain) and resets that slot's count.
    pub fn install(&mut self, kernel: CudaKernel) {
        self.stacks.install(kernel);
    }

    /// Whether some kernel of the slot's stack takes `shape` (else the engine's builtin for
    /// the slot serves the call: `linear.matmul`'s stock kernel takes single rows only).
    pub fn serves(&self, slot: SlotId, shape: &[i64]) -> bool {
        self.stacks.pick(slot, shape).is_some()
    }

    /// Whether the slot's stock kernel (the bottom of its stack) is the one that serves
    /// `shape`: nothing installed over it takes the call (false for a seam).
    pub fn stock_serves(&self, slot: SlotId, shape: &[i64]) -> bool {
        match (self.stacks.pick(slot, shape), self.stacks.bottom(slot)) {
            (Some(p), Some(b)) => std::ptr::eq(p.kernel, b.kernel),
            _ => false,
        }
    }

    /// The kernel installed last in a slot (none in a seam nothing was installed for).
    pub fn kernel(&self, slot: SlotId) -> Option<&CudaKernel> {
        self.stacks.top(slot)
    }

    /// Calls per slot, in [`SlotId::ALL`] order.
    pub fn dispatch_counts(&self) -> DispatchCounts {
        self.stacks.dispatch_counts()
    }

    pub fn dispatch_count(&self, slot: SlotId) -> u64 {
        self.stacks.dispatch_count(slot)
    }

    pub fn reset_counts(&self) {
        self.stacks.reset_counts()
    }

    pub(super) fn set_counts(&self, counts: &DispatchCounts) {
        self.stacks.set_counts(counts)
    }

    pub(super) fn add_counts(&self, delta: &DispatchCounts) {
        self.stacks.add_counts(delta)
    }

    /// Starts recording the sampled calls of each slot served by its top kernel (the
    /// candidate's, not the incumbent's below): `sample` lists, per slot, which of its
    /// calls (0-based, counted like the dispatch counts) to record. Synchronous: each
    /// recorded call waits for the stream three times. Calls must then run eagerly, never
    /// inside a graph capture.
    pub fn record(&mut self, sample: Vec<(SlotId, Vec<u64>)>) {
        self.recording = Some(Recording {
            sample,
            calls: Mutex::new(Vec::new()),
        });
    }

    pub fn is_recording(&self) -> bool {
        self.recording.is_some()
    }

    /// Stops recording; the recorded calls in launch order, outputs filled in.
    pub fn take_recorded(&mut self) -> Vec<RecordedLaunch> {
        self.recording
            .take()
            .map(|r| r.calls.into_inner().unwrap_or_else(|p| p.into_inner()))
            .unwrap_or_default()
    }

    /// One slot call on `stream` with the engine's device pointers (ABI order).
    pub(super) fn launch(
        &self,
        stream: &cudarc::driver::CudaStream,
        slot: SlotId,
        outputs: &[u64],
        inputs: &[u64],
        scalars: &[f32],
        shape: &[i64],
    ) -> Result<(), LaunchError> {
        let Some(pick) = self.stacks.pick(slot, shape) else {
            return Err(LaunchError::Args {
                slot,
                reason: format!("shape {shape:?} is outside every kernel's `when` domain"),
            });
        };
        let (k, top) = (pick.kernel, pick.top);
        // The audit records the sampled calls the slot's top kernel serves (the
        // candidate's), counted like the dispatch counts.
        let index = self.stacks.dispatch_count(slot);
        let recording = self
            .recording
            .as_ref()
            .filter(|r| top && r.wants(slot, index));
        let recorded_inputs = match recording {
            Some(_) => Some(download_params(
                stream,
                slot,
                ParamKind::Input,
                inputs,
                shape,
            )?),
            None => None,
        };
        k.launch_ptrs(stream, outputs, inputs, scalars, shape)?;
        if top {
            self.stacks.count_call(slot);
        }
        if let (Some(r), Some(before)) = (recording, recorded_inputs) {
            let outputs = download_params(stream, slot, ParamKind::Output, outputs, shape)?
                .into_iter()
                .map(|b| match b {
                    Buffer::F32(v) => v,
                    Buffer::I32(v) => v.into_iter().map(|x| x as f32).collect(),
                })
                .collect();
            let after = download_params(stream, slot, ParamKind::Input, inputs, shape)?;
            let inputs_changed = crate::slots::args::changed_inputs(&before, &after);
            r.calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(RecordedLaunch {
                    index,
                    args: SlotArgs {
                        slot,
                        shape: shape.to_vec(),
                        outputs,
                        inputs: before,
                        scalars: scalars.to_vec(),
                    },
                    inputs_changed,
                });
        }
        Ok(())
    }
}

/// Copies the tensors of one side of a call (`ptrs` in ABI order, sized by the slot's ABI
/// at `shape`) to the host; waits for the stream.
fn download_params(
    stream: &cudarc::driver::CudaStream,
    slot: SlotId,
    kind: ParamKind,
    ptrs: &[u64],
    shape: &[i64],
) -> Result<Vec<Buffer>, LaunchError> {
    let spec = slot.spec();
    let mut out = Vec::with_capacity(ptrs.len());
    // SAFETY (both copies): `ptr` is the engine's buffer for this parameter, which holds
    // at least the ABI's element count at `shape` (the engine sizes every buffer for its
    // largest call); the stream is synchronized before the host reads.
    let sync = || {
        stream
            .synchronize()
            .map_err(|e| LaunchError::from(driver_err("cuStreamSynchronize", e)))
    };
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| LaunchError::from(driver_err("cuCtxSetCurrent", e)))?;
    sync()?;
    for (param, &ptr) in spec.params_of(kind).zip(ptrs) {
        let n = spec.tensor_len(param, shape);
        out.push(match param.elem {
            Some(Elem::I32) => {
                let mut v = vec![0i32; n];
                if n > 0 {
                    unsafe { result::memcpy_dtoh_async(&mut v, ptr, stream.cu_stream()) }
                        .map_err(|e| LaunchError::from(driver_err("cuMemcpyDtoHAsync", e)))?;
                }
                sync()?;
                Buffer::I32(v)
            }
            _ => {
                let mut bits = vec![0u16; n];
                if n > 0 {
                    unsafe { result::memcpy_dtoh_async(&mut bits, ptr, stream.cu_stream()) }
                        .map_err(|e| LaunchError::from(driver_err("cuMemcpyDtoHAsync", e)))?;
                }
                sync()?;
                Buffer::F32(
                    bits.into_iter()
                        .map(|b| half::bf16::from_bits(b).to_f32())
                        .collect(),
                )
            }
        });
    }
    Ok(out)
}
