//! One call's arguments in device memory: [`DeviceArgs`] is the device-side [`SlotArgs`],
//! bf16 tensors (converted on the host from the f32 test inputs, round to nearest even) and
//! int32 tensors on the device's stream, plus the scalars and shape values, with the guard
//! bands and poison a verification call needs and the downloads that read them back.

use super::*;

fn f32_to_bf16_bits(v: &[f32]) -> Vec<u16> {
    v.iter()
        .map(|&x| half::bf16::from_f32(x).to_bits())
        .collect()
}

fn bf16_bits_to_f32(v: &[u16]) -> Vec<f32> {
    v.iter()
        .map(|&b| half::bf16::from_bits(b).to_f32())
        .collect()
}

/// An input tensor in device memory.
#[derive(Debug)]
pub enum DeviceBuffer {
    /// The arena's element type, bf16 bits.
    Bf16(CudaSlice<u16>),
    I32(CudaSlice<i32>),
}

impl DeviceBuffer {
    pub(super) fn ptr(&self, stream: &CudaStream) -> u64 {
        match self {
            DeviceBuffer::Bf16(s) => s.device_ptr(stream).0,
            DeviceBuffer::I32(s) => s.device_ptr(stream).0,
        }
    }
}

fn alloc<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>, DeviceError> {
    // A zero-length allocation is refused by some drivers; keep one spare element.
    // SAFETY: the memory is written (uploaded or poisoned) before any kernel reads it.
    unsafe { stream.alloc::<T>(len.max(1)) }.map_err(|e| driver_err("cuMemAlloc", e))
}

fn upload<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    host: &[T],
) -> Result<CudaSlice<T>, DeviceError> {
    let mut d = alloc::<T>(stream, host.len())?;
    if !host.is_empty() {
        stream
            .memcpy_htod(host, &mut d)
            .map_err(|e| driver_err("cuMemcpyHtoD", e))?;
    }
    Ok(d)
}

/// One slot call's arguments in device memory (CUDA arena: `T = bf16`).
#[derive(Debug)]
pub struct DeviceArgs {
    pub slot: SlotId,
    /// One value per shape symbol, ABI order.
    pub shape: Vec<i64>,
    /// One f32 per scalar parameter, ABI order.
    pub scalars: Vec<f32>,
    /// bf16 outputs, ABI order (each has at least one element allocated).
    pub outputs: Vec<CudaSlice<u16>>,
    /// Element counts of the outputs (the allocation may hold one spare element).
    pub output_lens: Vec<usize>,
    pub inputs: Vec<DeviceBuffer>,
    /// What was uploaded, bit for bit, to check that inputs are unchanged.
    uploaded: Vec<HostBits>,
    stream: Arc<CudaStream>,
}

/// An input tensor's bits on the host: bf16 bits or int32s.
#[derive(Clone, Debug, PartialEq, Eq)]
enum HostBits {
    Bf16(Vec<u16>),
    I32(Vec<i32>),
}

impl HostBits {
    fn len(&self) -> usize {
        match self {
            HostBits::Bf16(v) => v.len(),
            HostBits::I32(v) => v.len(),
        }
    }
}

/// Host copy of an input as uploaded (f32 rounded to bf16, round to nearest even).
fn uploaded_copy(b: &Buffer) -> HostBits {
    match b {
        Buffer::F32(v) => HostBits::Bf16(f32_to_bf16_bits(v)),
        Buffer::I32(v) => HostBits::I32(v.clone()),
    }
}

/// Host-side argument checks the kernels rely on (the CPU wrapper's, for device calls).
fn check_host_args(args: &SlotArgs) -> Result<(), LaunchError> {
    let bad = |reason: &str| LaunchError::Args {
        slot: args.slot,
        reason: reason.to_string(),
    };
    match args.slot {
        SlotId::Rope if args.shape_value("head_dim") % 2 != 0 => Err(bad("head_dim must be even")),
        SlotId::AttentionDecode => {
            let (q, kv) = (args.shape_value("q_heads"), args.shape_value("kv_heads"));
            if kv <= 0 || q % kv != 0 {
                return Err(bad("q_heads must be a multiple of kv_heads > 0"));
            }
            let max_seq = args.shape_value("max_seq");
            if args
                .input_i32(3)
                .iter()
                .any(|&l| l < 0 || l as i64 > max_seq)
            {
                return Err(bad("seq_lens must lie in [0, max_seq]"));
            }
            Ok(())
        }
        SlotId::AttentionPrefill => {
            let (q, kv) = (args.shape_value("q_heads"), args.shape_value("kv_heads"));
            if kv <= 0 || q % kv != 0 {
                return Err(bad("q_heads must be a multiple of kv_heads > 0"));
            }
            let kv_len = args.shape_value("kv_len");
            if args
                .input_i32(3)
                .iter()
                .any(|&p| p < 0 || p as i64 >= kv_len)
            {
                return Err(bad("positions must lie in [0, kv_len)"));
            }
            Ok(())
        }
        SlotId::AllReduce | SlotId::ArResidualRmsNorm => {
            let (world, rank) = (args.shape_value("world"), args.shape_value("rank"));
            if world < 1 || rank < 0 || rank >= world {
                return Err(bad("rank must lie in [0, world), world at least 1"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

impl DeviceArgs {
    /// Uploads a call's inputs (f32 → bf16, round to nearest even) to `dev`'s stream and
    /// allocates NaN-poisoned bf16 outputs. Queued on the stream; not synchronised.
    pub fn upload(dev: &CudaDevice, args: &SlotArgs) -> Result<DeviceArgs, LaunchError> {
        check_host_args(args)?;
        let stream = dev.stream().clone();
        let uploaded: Vec<HostBits> = args.inputs.iter().map(uploaded_copy).collect();
        let mut inputs = Vec::with_capacity(uploaded.len());
        for b in &uploaded {
            inputs.push(match b {
                HostBits::Bf16(v) => DeviceBuffer::Bf16(upload(&stream, v)?),
                HostBits::I32(v) => DeviceBuffer::I32(upload(&stream, v)?),
            });
        }
        let output_lens = args.output_lens();
        let outputs = output_lens
            .iter()
            .map(|&n| alloc::<u16>(&stream, n))
            .collect::<Result<Vec<_>, _>>()?;
        let mut d = DeviceArgs {
            slot: args.slot,
            shape: args.shape.clone(),
            scalars: args.scalars.clone(),
            outputs,
            output_lens,
            inputs,
            uploaded,
            stream,
        };
        d.poison_outputs()?;
        Ok(d)
    }

    /// Replaces the input contents (same slot, shape and scalars) in the existing device
    /// buffers, so a captured graph sees the new values on its next replay.
    pub fn refresh_inputs(&mut self, args: &SlotArgs) -> Result<(), LaunchError> {
        let bad = |reason: &str| LaunchError::Args {
            slot: self.slot,
            reason: reason.to_string(),
        };
        if args.slot != self.slot || args.shape != self.shape {
            return Err(bad("refresh with another slot or shape"));
        }
        if args.scalars != self.scalars {
            return Err(bad("scalars are part of a launch and cannot be refreshed"));
        }
        check_host_args(args)?;
        let bits: Vec<HostBits> = args.inputs.iter().map(uploaded_copy).collect();
        for (d, h) in self.inputs.iter_mut().zip(&bits) {
            // Pageable host-to-device copies return once the source is staged.
            let r = match (d, h) {
                (DeviceBuffer::Bf16(d), HostBits::Bf16(v)) if !v.is_empty() => {
                    self.stream.memcpy_htod(v.as_slice(), d)
                }
                (DeviceBuffer::I32(d), HostBits::I32(v)) if !v.is_empty() => {
                    self.stream.memcpy_htod(v.as_slice(), d)
                }
                _ => Ok(()),
            };
            r.map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        }
        self.uploaded = bits;
        Ok(())
    }

    /// Fills every output with bf16 NaN (queued on the stream; capturable).
    pub fn poison_outputs(&mut self) -> Result<(), DeviceError> {
        for o in &self.outputs {
            let ptr = o.device_ptr(&self.stream).0;
            // SAFETY: `ptr` is a live allocation of at least `o.len()` u16 elements on
            // this stream's context.
            unsafe {
                self.stream
                    .context()
                    .bind_to_thread()
                    .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                sys::cuMemsetD16Async(ptr, BF16_NAN, o.len(), self.stream.cu_stream())
                    .result()
                    .map_err(|e| driver_err("cuMemsetD16Async", e))?;
            }
        }
        Ok(())
    }

    /// Downloads the outputs as f32 (waits for the stream).
    pub fn download_outputs(&self) -> Result<Vec<Vec<f32>>, DeviceError> {
        let mut out = Vec::with_capacity(self.outputs.len());
        for (o, &n) in self.outputs.iter().zip(&self.output_lens) {
            let bits = self
                .stream
                .clone_dtoh(o)
                .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
            out.push(bf16_bits_to_f32(&bits[..n]));
        }
        self.stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        Ok(out)
    }

    fn download_input_bits(&self) -> Result<Vec<HostBits>, DeviceError> {
        let mut out = Vec::with_capacity(self.inputs.len());
        for (d, up) in self.inputs.iter().zip(&self.uploaded) {
            let n = up.len();
            out.push(match d {
                DeviceBuffer::Bf16(s) => {
                    let mut bits = self
                        .stream
                        .clone_dtoh(s)
                        .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                    bits.truncate(n);
                    HostBits::Bf16(bits)
                }
                DeviceBuffer::I32(s) => {
                    let mut v = self
                        .stream
                        .clone_dtoh(s)
                        .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                    v.truncate(n);
                    HostBits::I32(v)
                }
            });
        }
        self.stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        Ok(out)
    }

    /// Downloads the inputs as they are now on the device (bf16 as f32).
    pub fn download_inputs(&self) -> Result<Vec<Buffer>, DeviceError> {
        Ok(self
            .download_input_bits()?
            .into_iter()
            .map(|b| match b {
                HostBits::Bf16(v) => Buffer::F32(bf16_bits_to_f32(&v)),
                HostBits::I32(v) => Buffer::I32(v),
            })
            .collect())
    }

    /// Whether the device inputs still hold exactly the bits that were uploaded.
    pub fn inputs_unchanged(&self) -> Result<bool, DeviceError> {
        Ok(self.download_input_bits()? == self.uploaded)
    }

    /// A copy on the device (inputs copied device-to-device, outputs fresh and poisoned):
    /// more working sets for timing runs that must not all sit in L2.
    pub fn duplicate(&self) -> Result<DeviceArgs, DeviceError> {
        let copy = |s: &CudaSlice<u16>| -> Result<CudaSlice<u16>, DeviceError> {
            let mut d = alloc::<u16>(&self.stream, s.len())?;
            self.stream
                .memcpy_dtod(s, &mut d)
                .map_err(|e| driver_err("cuMemcpyDtoD", e))?;
            Ok(d)
        };
        let mut inputs = Vec::with_capacity(self.inputs.len());
        for b in &self.inputs {
            inputs.push(match b {
                DeviceBuffer::Bf16(s) => DeviceBuffer::Bf16(copy(s)?),
                DeviceBuffer::I32(s) => {
                    let mut d = alloc::<i32>(&self.stream, s.len())?;
                    self.stream
                        .memcpy_dtod(s, &mut d)
                        .map_err(|e| driver_err("cuMemcpyDtoD", e))?;
                    DeviceBuffer::I32(d)
                }
            });
        }
        let outputs = self
            .output_lens
            .iter()
            .map(|&n| alloc::<u16>(&self.stream, n))
            .collect::<Result<Vec<_>, _>>()?;
        let mut d = DeviceArgs {
            slot: self.slot,
            shape: self.shape.clone(),
            scalars: self.scalars.clone(),
            outputs,
            output_lens: self.output_lens.clone(),
            inputs,
            uploaded: self.uploaded.clone(),
            stream: self.stream.clone(),
        };
        d.poison_outputs()?;
        Ok(d)
    }

    /// Bytes of all tensors (allocated sizes): the working set of one call.
    pub fn footprint_bytes(&self) -> u64 {
        let outs: usize = self.outputs.iter().map(|o| o.len() * 2).sum();
        let ins: usize = self
            .inputs
            .iter()
            .map(|b| match b {
                DeviceBuffer::Bf16(s) => s.len() * 2,
                DeviceBuffer::I32(s) => s.len() * 4,
            })
            .sum();
        (outs + ins) as u64
    }
}
