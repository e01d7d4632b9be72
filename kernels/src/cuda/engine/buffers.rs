//! Device memory: the bf16 buffer type, zeroed allocation and the per-pass scratch.

use super::*;

pub(super) type Buf = CudaSlice<u16>;

pub(super) fn alloc_zeroed<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    dev: &CudaDevice,
    len: usize,
) -> Result<CudaSlice<T>, DeviceError> {
    dev.stream()
        .alloc_zeros::<T>(len.max(1))
        .map_err(|e| driver_err("cuMemAlloc", e))
}

/// cuBLAS workspace the engine gives the handle (so nothing is allocated during capture).
const BLAS_WORKSPACE_BYTES: usize = 32 << 20;

/// Per-forward-pass scratch buffers, `rows` tokens each.
pub(super) struct Scratch {
    pub(super) tokens: CudaSlice<i32>,
    pub(super) positions: CudaSlice<i32>,
    pub(super) cache_rows: CudaSlice<i32>,
    pub(super) seq_lens: CudaSlice<i32>,
    pub(super) next: CudaSlice<i32>,
    /// The argmax kernel's per-block best keys (`ARGMAX_MAX_BLOCKS` per row) and per-row
    /// finished-block counters (zero between launches: the last block resets its row's).
    pub(super) argmax_part: CudaSlice<u64>,
    pub(super) argmax_count: CudaSlice<u32>,
    pub(super) hidden: Buf,
    pub(super) res_a: Buf,
    pub(super) res_b: Buf,
    pub(super) normed: Buf,
    pub(super) block_out: Buf,
    pub(super) qkv: Buf,
    pub(super) q: Buf,
    pub(super) k: Buf,
    pub(super) q_rot: Buf,
    pub(super) k_rot: Buf,
    pub(super) attn: Buf,
    pub(super) gate_up: Buf,
    pub(super) act: Buf,
    pub(super) logits: Buf,
    /// Prefill attention: f32 scores and bf16 probabilities `[q_heads, n, klen]`, grown
    /// on demand (elements allocated).
    pub(super) scores: Option<CudaSlice<f32>>,
    pub(super) probs: Option<Buf>,
    pub(super) blas_workspace: CudaSlice<u8>,
}

impl Scratch {
    /// Every buffer for passes of up to `rows` tokens (the logits for `max_batch` rows),
    /// the prefill attention buffers left to grow on demand.
    pub(super) fn new(
        dev: &CudaDevice,
        c: &ModelConfig,
        rows: usize,
        max_batch: usize,
    ) -> Result<Scratch, DeviceError> {
        let (h, inter, v) = (c.hidden_size, c.intermediate_size, c.vocab_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let z = |n: usize| alloc_zeroed::<u16>(dev, n);
        let i = |n: usize| alloc_zeroed::<i32>(dev, n);
        Ok(Scratch {
            tokens: i(rows)?,
            positions: i(rows)?,
            cache_rows: i(rows)?,
            seq_lens: i(rows)?,
            next: i(rows)?,
            argmax_part: alloc_zeroed::<u64>(dev, rows * ARGMAX_MAX_BLOCKS)?,
            argmax_count: alloc_zeroed::<u32>(dev, rows)?,
            hidden: z(rows * h)?,
            res_a: z(rows * h)?,
            res_b: z(rows * h)?,
            normed: z(rows * h)?,
            block_out: z(rows * h)?,
            qkv: z(rows * (q_dim + 2 * kv_dim))?,
            q: z(rows * q_dim)?,
            k: z(rows * kv_dim)?,
            q_rot: z(rows * q_dim)?,
            k_rot: z(rows * kv_dim)?,
            attn: z(rows * q_dim)?,
            gate_up: z(rows * 2 * inter)?,
            act: z(rows * inter)?,
            logits: z(max_batch * v)?,
            scores: None,
            probs: None,
            blas_workspace: alloc_zeroed::<u8>(dev, BLAS_WORKSPACE_BYTES)?,
        })
    }
}

impl CudaEngine {
    pub(super) fn ptr<T>(&self, b: &CudaSlice<T>) -> u64 {
        b.device_ptr(self.dev.stream()).0
    }

    /// Grows the prefill attention buffers to `[q_heads, n, klen]`.
    pub(super) fn ensure_prefill_scratch(
        &mut self,
        n: usize,
        klen: usize,
    ) -> Result<(), CudaEngineError> {
        let need = self.config.num_attention_heads * n * klen;
        if self.s.scores.as_ref().is_none_or(|b| b.len() < need) {
            self.s.scores = None;
            self.s.probs = None;
            self.dev.synchronize()?;
            self.s.scores = Some(alloc_zeroed::<f32>(&self.dev, need)?);
            self.s.probs = Some(alloc_zeroed::<u16>(&self.dev, need)?);
        }
        Ok(())
    }
}
