//! Decode graphs: one captured CUDA graph per batch bucket, replayed for every step
//! after the bucket's first (eager) one.

use super::*;

pub(super) struct Graph {
    pub(super) graph: CudaGraph,
    /// Slot launches one replay makes.
    pub(super) counts: DispatchCounts,
}

impl CudaEngine {
    /// Swapping a slot's kernel drops every captured graph (they hold the old kernel).
    pub fn slots_mut(&mut self) -> &mut CudaSlotTable {
        self.graphs.clear();
        &mut self.slots
    }

    pub fn set_use_graphs(&mut self, on: bool) {
        self.opts.use_graphs = on;
    }

    /// Chooses the GEMV kernel (on) or cuBLAS (off) for products of at most 8 rows; drops
    /// the captured graphs.
    pub fn set_small_gemv(&mut self, on: bool) {
        self.opts.small_gemv = on;
        self.graphs.clear();
        self.graph_failures.clear();
    }

    /// Switches prefill attention between the flash kernel and the cuBLAS path
    /// ([`CudaEngineOptions::flash_prefill`]; prefill runs eagerly, so no graph changes).
    pub fn set_flash_prefill(&mut self, on: bool) {
        self.opts.flash_prefill = on;
    }

    /// Buckets with a captured decode graph.
    pub fn graph_buckets(&self) -> Vec<usize> {
        self.graphs.keys().copied().collect()
    }

    /// Why a bucket's capture failed (it then runs eagerly), if one did.
    pub fn graph_note(&self) -> Option<String> {
        if self.graph_failures.is_empty() {
            return None;
        }
        Some(
            self.graph_failures
                .iter()
                .map(|(b, e)| format!("bucket {b}: {e}"))
                .collect::<Vec<_>>()
                .join("; "),
        )
    }

    /// Runs the prepared decode step: a graph replay, or eagerly (then captured). While
    /// the slot table records calls, every step runs eagerly and nothing is captured.
    pub(super) fn run_decode(&mut self, bucket: usize) -> Result<(), CudaEngineError> {
        let recording = self.slots.is_recording();
        if let Some(g) = self.graphs.get(&bucket).filter(|_| !recording) {
            g.graph
                .launch()
                .map_err(|e| driver_err("cuGraphLaunch", e))?;
            self.slots.add_counts(&g.counts);
            return Ok(());
        }
        self.forward(Pass::Decode { bucket })?;
        if self.opts.use_graphs && !recording && !self.graph_failures.contains_key(&bucket) {
            self.dev.synchronize()?;
            match self.capture(bucket) {
                Ok(g) => {
                    self.graphs.insert(bucket, g);
                }
                Err(e) => {
                    self.graph_failures.insert(bucket, e.to_string());
                }
            }
        }
        Ok(())
    }

    /// Captures one decode step of `bucket` rows (records only; runs nothing).
    pub(super) fn capture(&mut self, bucket: usize) -> Result<Graph, CudaEngineError> {
        let stream = self.dev.stream().clone();
        let before = self.slots.dispatch_counts();
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
        let body = self.forward(Pass::Decode { bucket });
        let end = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        let after = self.slots.dispatch_counts();
        self.slots.set_counts(&before);
        body?;
        let graph = end
            .map_err(|e| driver_err("cuStreamEndCapture", e))?
            .ok_or_else(|| CudaEngineError::Kernels("captured an empty graph".into()))?;
        graph.upload().map_err(|e| driver_err("cuGraphUpload", e))?;
        let counts = std::array::from_fn(|i| after[i] - before[i]);
        Ok(Graph { graph, counts })
    }
}
