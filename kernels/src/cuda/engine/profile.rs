//! Device timing of whole decode steps and prefills between CUDA events (per-operation
//! timing is [`CudaEngine::decode_breakdown`]).

use super::*;

impl CudaEngine {
    /// Device time of one decode step for sequences `0..n` at their current lengths:
    /// the bucket's graph (captured first if needed) replayed `warmup` times, then
    /// `replays` times between two events. The sequences do not advance: every replay
    /// writes the same cache row. Milliseconds per step.
    pub fn time_decode(
        &mut self,
        n: usize,
        warmup: usize,
        replays: usize,
    ) -> Result<f64, CudaEngineError> {
        let tokens: Vec<u32> = (0..n as u32)
            .map(|t| (t * 7919 + 1) % self.config.vocab_size as u32)
            .collect();
        self.prepare_decode(&tokens)?;
        let bucket = self.bucket_for(n);
        self.run_decode(bucket)?; // eager (+ capture) on first use
        for _ in 0..warmup {
            self.run_decode(bucket)?;
        }
        self.dev.synchronize()?;
        let (start, end) = self.events()?;
        start
            .record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        for _ in 0..replays {
            self.run_decode(bucket)?;
        }
        end.record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.dev.synchronize()?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(ms as f64 / replays.max(1) as f64)
    }

    /// Device time (ms) of prefilling `tokens` into sequence `seq` (which is reset first).
    pub fn time_prefill(&mut self, seq: usize, tokens: &[u32]) -> Result<f64, CudaEngineError> {
        self.lens[seq] = 0;
        self.dev.synchronize()?;
        let (start, end) = self.events()?;
        start
            .record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.prefill_queued(seq, tokens)?;
        end.record(self.dev.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        self.dev.synchronize()?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(ms as f64)
    }

    pub(super) fn events(
        &self,
    ) -> Result<(cudarc::driver::CudaEvent, cudarc::driver::CudaEvent), CudaEngineError> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let ctx = self.dev.context();
        let a = ctx
            .new_event(flags)
            .map_err(|e| driver_err("cuEventCreate", e))?;
        let b = ctx
            .new_event(flags)
            .map_err(|e| driver_err("cuEventCreate", e))?;
        Ok((a, b))
    }
}
