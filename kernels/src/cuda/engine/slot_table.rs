//! The CUDA slot table: which kernel serves each slot, and how often it was dispatched.

use super::*;

// ---------------------------------------------------------------------------------------
// The slot table.

/// Which loaded CUDA kernel serves each slot, with per-slot dispatch counters. Genesis
/// contents: the stock CUDA bundles; [`CudaSlotTable::install`] swaps one slot.
pub struct CudaSlotTable {
    kernels: Vec<CudaKernel>,
    counts: [AtomicU64; 5],
}

impl std::fmt::Debug for CudaSlotTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaSlotTable")
            .field("kernels", &self.kernels)
            .field("counts", &self.dispatch_counts())
            .finish()
    }
}

impl CudaSlotTable {
    /// A table from exactly one kernel per slot.
    pub fn new(kernels: Vec<CudaKernel>) -> Result<CudaSlotTable, CudaEngineError> {
        let mut slots: [Option<CudaKernel>; 5] = Default::default();
        for k in kernels {
            let at = k.slot().index();
            if slots[at].is_some() {
                return Err(CudaEngineError::Slots(format!(
                    "two kernels for {}",
                    k.slot()
                )));
            }
            slots[at] = Some(k);
        }
        let mut out = Vec::with_capacity(5);
        for (slot, k) in SlotId::ALL.iter().zip(slots) {
            out.push(k.ok_or_else(|| CudaEngineError::Slots(format!("no kernel for {slot}")))?);
        }
        Ok(CudaSlotTable {
            kernels: out,
            counts: Default::default(),
        })
    }

    /// The stock CUDA bundles, built by the one CUDA build path and loaded on `dev`.
    pub fn stock(dev: &CudaDevice) -> Result<CudaSlotTable, CudaEngineError> {
        let opts = CudaBuildOptions::default();
        let mut kernels = Vec::new();
        for b in stock::cuda_bundles() {
            let built = build_cuda_bundle(&b.files(), b.name, dev, &opts).map_err(|e| {
                CudaEngineError::Build {
                    name: b.name.to_string(),
                    error: e.to_string(),
                }
            })?;
            kernels.extend(built.into_kernels());
        }
        CudaSlotTable::new(kernels)
    }

    /// Puts `kernel` in its slot, returns the one it replaces and resets that slot's count.
    pub fn install(&mut self, kernel: CudaKernel) -> CudaKernel {
        let at = kernel.slot().index();
        self.counts[at].store(0, Ordering::Relaxed);
        std::mem::replace(&mut self.kernels[at], kernel)
    }

    pub fn kernel(&self, slot: SlotId) -> &CudaKernel {
        &self.kernels[slot.index()]
    }

    /// Calls per slot, in [`SlotId::ALL`] order.
    pub fn dispatch_counts(&self) -> DispatchCounts {
        std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed))
    }

    pub fn dispatch_count(&self, slot: SlotId) -> u64 {
        self.counts[slot.index()].load(Ordering::Relaxed)
    }

    pub fn reset_counts(&self) {
        self.counts
            .iter()
            .for_each(|c| c.store(0, Ordering::Relaxed));
    }

    pub(super) fn set_counts(&self, counts: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(counts) {
            c.store(v, Ordering::Relaxed);
        }
    }

    pub(super) fn add_counts(&self, delta: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(delta) {
            c.fetch_add(v, Ordering::Relaxed);
        }
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
        let k = self.kernel(slot);
        if !k.accepts(shape) {
            return Err(LaunchError::Args {
                slot,
                reason: format!("shape {shape:?} is outside the kernel's `when` domain"),
            });
        }
        k.launch_ptrs(stream, outputs, inputs, scalars, shape)?;
        self.counts[slot.index()].fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
