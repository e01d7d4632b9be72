//! A read's logit rows held on the device: after each pass the engine's last logits (bf16)
//! are copied, without waiting, into a buffer of the read's rows, so that a few of them can
//! be read back once the read is over (the referee's read judgement,
//! `offchain/src/lane/child/held_logits.rs`) while the rest never leave the GPU.

use super::*;

/// The held rows: a bf16 buffer of `rows` rows of the vocabulary.
pub(super) struct HeldLogits {
    buf: Buf,
    rows: usize,
}

impl CudaEngine {
    /// Makes room to hold `rows` logit rows (the buffer is kept and grown as needed; what
    /// it held before is dropped).
    pub fn hold_begin(&mut self, rows: usize) -> Result<(), CudaEngineError> {
        let v = self.config.vocab_size;
        if self.held.as_ref().is_none_or(|h| h.rows < rows) {
            self.held = None;
            let buf = alloc_zeroed::<u16>(&self.dev, rows.max(1) * v)?;
            self.held = Some(HeldLogits { buf, rows });
        }
        Ok(())
    }

    /// Copies the last pass's first `count` logit rows to held rows `first`,
    /// `first + stride`, … (one copy, queued on the engine's stream: no wait).
    pub fn hold_logits(
        &self,
        first: usize,
        count: usize,
        stride: usize,
    ) -> Result<(), CudaEngineError> {
        let bad = |m: &str| Err(CudaEngineError::Engine(EngineError::Config(m.into())));
        let Some(held) = &self.held else {
            return bad("hold_logits before hold_begin");
        };
        if count == 0 {
            return Ok(());
        }
        if count > self.opts.max_batch || stride == 0 || first + (count - 1) * stride >= held.rows {
            return bad("logit rows outside the held read");
        }
        let row_bytes = self.config.vocab_size * 2;
        let copy = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: self.ptr(&self.s.logits),
            srcArray: std::ptr::null_mut(),
            srcPitch: row_bytes,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: self.ptr(&held.buf) + (first * row_bytes) as u64,
            dstArray: std::ptr::null_mut(),
            dstPitch: stride * row_bytes,
            WidthInBytes: row_bytes,
            Height: count,
        };
        let stream = self.dev.stream();
        // SAFETY: the source is the first `count` rows of the logits buffer (which holds
        // `max_batch` rows); the destination rows `first + k * stride` lie inside the held
        // buffer (checked above); both are live allocations of this stream's context.
        unsafe {
            stream
                .context()
                .bind_to_thread()
                .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream())
                .result()
                .map_err(|e| driver_err("cuMemcpy2DAsync", e))?;
        }
        Ok(())
    }

    /// Held rows `which`, one after another, as f32 (waits for the stream).
    pub fn held_logits(&self, which: &[usize]) -> Result<Vec<f32>, CudaEngineError> {
        let v = self.config.vocab_size;
        let Some(held) = &self.held else {
            return Err(EngineError::Config("no read's logits are held".into()).into());
        };
        let stream = self.dev.stream();
        let mut bits = vec![0u16; which.len() * v];
        for (k, &r) in which.iter().enumerate() {
            if r >= held.rows {
                return Err(EngineError::Config(format!("row {r} is not held")).into());
            }
            stream
                .memcpy_dtoh(
                    &held.buf.slice(r * v..(r + 1) * v),
                    &mut bits[k * v..(k + 1) * v],
                )
                .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        }
        self.dev.synchronize()?;
        Ok(bits
            .into_iter()
            .map(|b| half::bf16::from_bits(b).to_f32())
            .collect())
    }
}
