//! The weights on the device: where each tensor lives, and filling them from host f32
//! weights or synthesizing them from a seed.

use super::*;

/// Where a weight tensor goes: a device pointer and its element count.
pub(super) struct Placement {
    pub(super) ptr: u64,
    pub(super) len: usize,
    pub(super) role: TensorRole,
    pub(super) in_features: usize,
    pub(super) name: String,
}

/// One layer's weights in bf16 (HF `[out, in]` layout; q|k|v and gate|up stacked).
pub(super) struct LayerWeights {
    pub(super) attn_norm: Buf,
    pub(super) qkv: Buf,
    pub(super) o: Buf,
    pub(super) mlp_norm: Buf,
    pub(super) gate_up: Buf,
    pub(super) down: Buf,
}

pub(super) struct DeviceWeights {
    pub(super) embed: Buf,
    pub(super) layers: Vec<LayerWeights>,
    pub(super) norm: Buf,
    pub(super) lm_head: Buf,
}

impl DeviceWeights {
    /// Zeroed buffers for every tensor of `c`.
    pub(super) fn zeroed(dev: &CudaDevice, c: &ModelConfig) -> Result<DeviceWeights, DeviceError> {
        let (h, inter, v) = (c.hidden_size, c.intermediate_size, c.vocab_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let z = |n: usize| alloc_zeroed::<u16>(dev, n);
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for _ in 0..c.num_hidden_layers {
            layers.push(LayerWeights {
                attn_norm: z(h)?,
                qkv: z((q_dim + 2 * kv_dim) * h)?,
                o: z(h * q_dim)?,
                mlp_norm: z(h)?,
                gate_up: z(2 * inter * h)?,
                down: z(h * inter)?,
            });
        }
        Ok(DeviceWeights {
            embed: z(v * h)?,
            layers,
            norm: z(h)?,
            lm_head: z(v * h)?,
        })
    }
}

/// Where the weights come from.
#[derive(Clone, Copy, Debug)]
pub enum WeightSource<'a> {
    /// Uploaded from host f32 weights (rounded to bf16).
    Host(&'a Weights),
    /// Synthesized on the device from a seed (see the module docs: not the values of
    /// [`Weights::synthesize`], the same scales).
    Synthesize { seed: u64 },
}

/// A seed per tensor name: FNV-1a of the name mixed with the model seed.
fn tensor_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl CudaEngine {
    /// Every tensor of [`tensor_specs`] with its device destination.
    pub(super) fn placements(&self) -> Vec<Placement> {
        let c = &self.config;
        let (h, inter) = (c.hidden_size, c.intermediate_size);
        let (q_dim, kv_dim) = (c.q_dim(), c.kv_dim());
        let mut dest: Vec<u64> = vec![self.ptr(&self.weights.embed)];
        for l in &self.weights.layers {
            let qkv = self.ptr(&l.qkv);
            let gu = self.ptr(&l.gate_up);
            dest.extend([
                self.ptr(&l.attn_norm),
                qkv,
                qkv + (q_dim * h * 2) as u64,
                qkv + ((q_dim + kv_dim) * h * 2) as u64,
                self.ptr(&l.o),
                self.ptr(&l.mlp_norm),
                gu,
                gu + (inter * h * 2) as u64,
                self.ptr(&l.down),
            ]);
        }
        dest.push(self.ptr(&self.weights.norm));
        dest.push(self.ptr(&self.weights.lm_head));
        tensor_specs(c)
            .into_iter()
            .zip(dest)
            .map(|(spec, ptr)| Placement {
                ptr,
                len: spec.shape.iter().product(),
                role: spec.role,
                in_features: spec.shape.get(1).copied().unwrap_or(1),
                name: spec.name,
            })
            .collect()
    }

    pub(super) fn fill_weights(&mut self, source: WeightSource<'_>) -> Result<(), CudaEngineError> {
        let stream = self.dev.stream().clone();
        let places = self.placements();
        match source {
            WeightSource::Host(w) => {
                for (p, t) in places.iter().zip(w.ordered()) {
                    let bits: Vec<u16> = t
                        .iter()
                        .map(|&x| half::bf16::from_f32(x).to_bits())
                        .collect();
                    // SAFETY: `p.ptr` holds `p.len` == `bits.len()` bf16 values; the copy
                    // is waited for before `bits` is dropped.
                    unsafe {
                        self.dev
                            .context()
                            .bind_to_thread()
                            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                        result::memcpy_htod_async(p.ptr, &bits, stream.cu_stream())
                            .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
                    }
                    self.dev.synchronize()?;
                }
            }
            WeightSource::Synthesize { seed } => {
                let tied = self.config.tie_word_embeddings;
                for p in &places {
                    if tied && p.name == "lm_head.weight" {
                        let embed = self.ptr(&self.weights.embed);
                        // SAFETY: both tensors hold `p.len` bf16 values.
                        unsafe {
                            result::memcpy_dtod_async(p.ptr, embed, p.len * 2, stream.cu_stream())
                        }
                        .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                        continue;
                    }
                    let (center, half_width) = match p.role {
                        TensorRole::Embedding => (0.0, 1.0),
                        TensorRole::Norm => (1.0, 0.1),
                        TensorRole::Linear => (0.0, (3.0 / p.in_features as f32).sqrt()),
                    };
                    let sms = self.dev.info().multiprocessors.max(1) as u32;
                    self.run(
                        &self.kernels.synth,
                        (sms * 8, 1, 1),
                        (256, 1, 1),
                        &[
                            Arg::Ptr(p.ptr),
                            Arg::U64(p.len as u64),
                            Arg::U64(tensor_seed(seed, &p.name)),
                            Arg::F32(center),
                            Arg::F32(half_width),
                        ],
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Bytes of weights one decode step reads (everything but the embedding table).
    pub fn weight_bytes_per_step(&self) -> u64 {
        let w = &self.weights;
        let mut n = w.norm.len() + w.lm_head.len();
        for l in &w.layers {
            n += l.attn_norm.len() + l.qkv.len() + l.o.len() + l.mlp_norm.len();
            n += l.gate_up.len() + l.down.len();
        }
        2 * n as u64
    }

    /// Downloads a weight tensor by its HF name (bf16 as f32), for tests.
    pub fn weight(&self, name: &str) -> Result<Option<Vec<f32>>, CudaEngineError> {
        let Some(p) = self.placements().into_iter().find(|p| p.name == name) else {
            return Ok(None);
        };
        let mut bits = vec![0u16; p.len];
        // SAFETY: `p.ptr` holds `p.len` bf16 values; waited for below.
        unsafe {
            self.dev
                .context()
                .bind_to_thread()
                .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            result::memcpy_dtoh_async(&mut bits, p.ptr, self.dev.stream().cu_stream())
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
        }
        self.dev.synchronize()?;
        Ok(Some(
            bits.into_iter()
                .map(|b| half::bf16::from_bits(b).to_f32())
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_seeds_differ_by_name_and_seed() {
        assert_ne!(tensor_seed(1, "a"), tensor_seed(1, "b"));
        assert_ne!(tensor_seed(1, "a"), tensor_seed(2, "a"));
        assert_eq!(
            tensor_seed(7, "lm_head.weight"),
            tensor_seed(7, "lm_head.weight")
        );
    }
}
