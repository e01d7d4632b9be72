//! A loaded CUDA kernel typed by its slot, and one call's arguments in device memory.
//!
//! [`DeviceArgs`] is the device-side [`SlotArgs`]: bf16 tensors (converted on the host
//! from the f32 test inputs, round to nearest even) and int32 tensors on the device's
//! stream, plus the scalars and shape values. [`CudaKernel::launch`] checks the arguments
//! against the slot, evaluates the manifest's launch geometry with the validator's own
//! evaluator and launches on a stream; nothing synchronises, so launches can be captured
//! into a CUDA graph.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaFunction, CudaSlice, CudaStream, DevicePtr};

use super::device::{driver_err, CudaDevice, DeviceError};
use crate::bundle::launch_expr::ExprError;
use crate::bundle::manifest::{Domain, Launch};
use crate::slots::args::{Buffer, SlotArgs};
use crate::slots::{ParamKind, SlotId};

/// bf16 quiet NaN: the poison written into outputs before a call.
pub const BF16_NAN: u16 = 0x7FC0;
/// Dynamic shared memory a block gets without opting in.
const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

/// Why a launch did not happen, or a device transfer failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LaunchError {
    #[error("kernel `{entry}` is for {kernel}, called with {args} arguments")]
    WrongSlot {
        entry: String,
        kernel: SlotId,
        args: SlotId,
    },
    #[error("{slot}: bad arguments: {reason}")]
    Args { slot: SlotId, reason: String },
    #[error("{slot}: launch geometry `{what}`: {reason}")]
    Geometry {
        slot: SlotId,
        what: String,
        reason: String,
    },
    #[error(transparent)]
    Device(#[from] DeviceError),
}

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
    fn ptr(&self, stream: &CudaStream) -> u64 {
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

/// Evaluates a manifest's launch geometry for a shape with the validator's expression
/// evaluator and checks it against CUDA's limits (grid, block, threads per block, and
/// `max_smem` bytes of dynamic shared memory). Needs no device.
pub fn evaluate_geometry(
    slot: SlotId,
    launch: &Launch,
    shape: &[i64],
    max_smem: u32,
) -> Result<Geometry, LaunchError> {
    let symbols = slot.spec().shape_symbols();
    let values: BTreeMap<&str, i64> = symbols.iter().copied().zip(shape.iter().copied()).collect();
    let eval = |what: String, e: &crate::bundle::launch_expr::Expr, lo: i64, hi: i64| {
        let v = e
            .eval(&values)
            .map_err(|err: ExprError| LaunchError::Geometry {
                slot,
                what: what.clone(),
                reason: err.to_string(),
            })?;
        if v < lo || v > hi {
            return Err(LaunchError::Geometry {
                slot,
                what,
                reason: format!("{v} is outside [{lo}, {hi}]"),
            });
        }
        Ok(v as u32)
    };
    let g = &launch.grid;
    let b = &launch.block;
    let grid = (
        eval("grid[0]".into(), &g[0], 1, i32::MAX as i64)?,
        eval("grid[1]".into(), &g[1], 1, 65535)?,
        eval("grid[2]".into(), &g[2], 1, 65535)?,
    );
    let block = (
        eval("block[0]".into(), &b[0], 1, 1024)?,
        eval("block[1]".into(), &b[1], 1, 1024)?,
        eval("block[2]".into(), &b[2], 1, 64)?,
    );
    if block.0 as u64 * block.1 as u64 * block.2 as u64 > 1024 {
        return Err(LaunchError::Geometry {
            slot,
            what: "block".into(),
            reason: "more than 1024 threads per block".into(),
        });
    }
    let shared_mem_bytes = eval(
        "shared_mem_bytes".into(),
        &launch.shared_mem_bytes,
        0,
        max_smem as i64,
    )?;
    Ok(Geometry {
        grid,
        block,
        shared_mem_bytes,
    })
}

/// A kernel resolved from a loaded CUDA module, typed by its slot, with its launch
/// geometry. Keeps the module (and its context) alive.
pub struct CudaKernel {
    slot: SlotId,
    entry: String,
    origin: String,
    func: CudaFunction,
    launch: Launch,
    when: BTreeMap<String, Domain>,
    /// Largest dynamic shared memory opted into so far (bytes).
    smem_optin: AtomicU32,
    max_smem_optin: u32,
}

impl std::fmt::Debug for CudaKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaKernel")
            .field("slot", &self.slot)
            .field("entry", &self.entry)
            .field("origin", &self.origin)
            .field("launch", &self.launch)
            .finish()
    }
}

/// The evaluated launch geometry of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_mem_bytes: u32,
}

/// What [`CudaKernel::residency`] reports for one launch geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Residency {
    /// Blocks in the grid.
    pub grid_blocks: i64,
    /// Blocks an SM can hold at once (registers, shared memory, threads).
    pub blocks_per_sm: i32,
    /// Blocks per cluster (1: no compile-time cluster).
    pub cluster_blocks: i32,
    /// Clusters the GPU can hold at once, for a clustered kernel.
    pub max_active_clusters: Option<i32>,
}

impl Residency {
    /// Clusters in the grid (blocks, for a kernel without clusters).
    pub fn clusters(&self) -> i64 {
        self.grid_blocks / self.cluster_blocks.max(1) as i64
    }

    /// Waves the grid needs: by clusters for a clustered kernel, by blocks otherwise.
    pub fn waves(&self, sms: i64) -> f64 {
        match self.max_active_clusters {
            Some(c) => self.clusters() as f64 / c.max(1) as f64,
            None => self.grid_blocks as f64 / (self.blocks_per_sm.max(1) as i64 * sms) as f64,
        }
    }

    /// One line for a bench table: grid, blocks per SM, clusters, waves.
    pub fn describe(&self, sms: i64) -> String {
        let clusters = self
            .max_active_clusters
            .map(|c| {
                format!(
                    ", {} clusters of {} with {c} resident at once",
                    self.clusters(),
                    self.cluster_blocks
                )
            })
            .unwrap_or_default();
        format!(
            "grid {} blocks, {} per SM{clusters}: {:.2} wave(s)",
            self.grid_blocks,
            self.blocks_per_sm,
            self.waves(sms)
        )
    }
}

impl CudaKernel {
    pub(crate) fn new(
        slot: SlotId,
        entry: String,
        origin: String,
        func: CudaFunction,
        launch: Launch,
        when: BTreeMap<String, Domain>,
        max_smem_optin: u32,
    ) -> Self {
        CudaKernel {
            slot,
            entry,
            origin,
            func,
            launch,
            when,
            smem_optin: AtomicU32::new(DEFAULT_DYNAMIC_SMEM),
            max_smem_optin,
        }
    }

    pub fn slot(&self) -> SlotId {
        self.slot
    }

    /// The entry symbol's name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// Where the kernel came from (a stock bundle's name, a proposal, a folder).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The manifest's launch geometry expressions.
    pub fn launch_exprs(&self) -> &Launch {
        &self.launch
    }

    /// Whether a call with these shape values is inside the op's `when` domain.
    pub fn accepts(&self, shape: &[i64]) -> bool {
        crate::bundle::manifest::in_domain(self.slot, &self.when, shape)
    }

    /// Registers, local memory and static shared memory of the compiled kernel.
    pub fn resources(&self) -> Result<(i32, i32, i32), DeviceError> {
        let regs = self
            .func
            .num_regs()
            .map_err(|e| driver_err("cuFuncGetAttribute", e))?;
        let local = self
            .func
            .local_size_bytes()
            .map_err(|e| driver_err("cuFuncGetAttribute", e))?;
        let shared = self
            .func
            .shared_size_bytes()
            .map_err(|e| driver_err("cuFuncGetAttribute", e))?;
        Ok((regs, local, shared))
    }

    /// How much of the launch for `shape` the GPU holds at once: the occupancy API's
    /// blocks per SM and, for a kernel with compile-time cluster dimensions, how many
    /// clusters can be resident together. A grid larger than that runs in more than one
    /// wave.
    pub fn residency(&self, shape: &[i64]) -> Result<Residency, LaunchError> {
        let g = self.geometry(shape)?;
        let f = self.func.cu_function();
        let attr = |a| {
            // SAFETY: the function handle is live (the module is held by `self.func`).
            unsafe { result::function::get_function_attribute(f, a) }
                .map_err(|e| driver_err("cuFuncGetAttribute", e))
        };
        use sys::CUfunction_attribute as A;
        let cluster = (
            attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)?.max(1),
            attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)?.max(1),
            attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)?.max(1),
        );
        self.ensure_smem(g.shared_mem_bytes)?;
        let threads = (g.block.0 * g.block.1 * g.block.2) as i32;
        // SAFETY: as above.
        let blocks_per_sm = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                f,
                threads,
                g.shared_mem_bytes as usize,
            )
        }
        .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        let cluster_blocks = cluster.0 * cluster.1 * cluster.2;
        let max_active_clusters = if cluster_blocks > 1 {
            let config = sys::CUlaunchConfig {
                gridDimX: g.grid.0,
                gridDimY: g.grid.1,
                gridDimZ: g.grid.2,
                blockDimX: g.block.0,
                blockDimY: g.block.1,
                blockDimZ: g.block.2,
                sharedMemBytes: g.shared_mem_bytes,
                hStream: std::ptr::null_mut(),
                attrs: std::ptr::null_mut(),
                numAttrs: 0,
            };
            let mut n = 0i32;
            // SAFETY: as above; `config` lives across the call and names no attributes.
            unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f, &config) }
                .result()
                .map_err(|e| driver_err("cuOccupancyMaxActiveClusters", e))?;
            Some(n)
        } else {
            None
        };
        Ok(Residency {
            grid_blocks: (g.grid.0 * g.grid.1 * g.grid.2) as i64,
            blocks_per_sm,
            cluster_blocks,
            max_active_clusters,
        })
    }

    /// Evaluates the manifest geometry for a shape and checks it against CUDA's limits.
    pub fn geometry(&self, shape: &[i64]) -> Result<Geometry, LaunchError> {
        evaluate_geometry(self.slot, &self.launch, shape, self.max_smem_optin)
    }

    fn ensure_smem(&self, bytes: u32) -> Result<(), DeviceError> {
        if bytes <= self.smem_optin.load(Ordering::Relaxed) {
            return Ok(());
        }
        // SAFETY: the function handle is live (the module is held by `self.func`).
        unsafe {
            result::function::set_function_attribute(
                self.func.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(|e| driver_err("cuFuncSetAttribute", e))?;
        self.smem_optin.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// Queues one call on `stream` (no synchronisation; capturable into a CUDA graph
    /// once a first launch of the same geometry has set any shared-memory opt-in).
    /// Calls whose outputs are all empty launch nothing.
    pub fn launch(&self, stream: &CudaStream, args: &mut DeviceArgs) -> Result<(), LaunchError> {
        if args.slot != self.slot {
            return Err(LaunchError::WrongSlot {
                entry: self.entry.clone(),
                kernel: self.slot,
                args: args.slot,
            });
        }
        let spec = self.slot.spec();
        let n_out = spec.params_of(ParamKind::Output).count();
        let n_in = spec.params_of(ParamKind::Input).count();
        let n_sc = spec.params_of(ParamKind::ScalarF32).count();
        let n_sh = spec.shape_symbols().len();
        if args.outputs.len() != n_out
            || args.inputs.len() != n_in
            || args.scalars.len() != n_sc
            || args.shape.len() != n_sh
        {
            return Err(LaunchError::Args {
                slot: self.slot,
                reason: "argument counts do not match the ABI".into(),
            });
        }
        for (p, &n) in spec.params_of(ParamKind::Output).zip(&args.output_lens) {
            if spec.tensor_len(p, &args.shape) != n {
                return Err(LaunchError::Args {
                    slot: self.slot,
                    reason: format!("output `{}` has the wrong length", p.name),
                });
            }
        }
        let outputs: Vec<u64> = args
            .outputs
            .iter()
            .map(|o| o.device_ptr(stream).0)
            .collect();
        let inputs: Vec<u64> = args.inputs.iter().map(|b| b.ptr(stream)).collect();
        self.launch_ptrs(stream, &outputs, &inputs, &args.scalars, &args.shape)
    }

    /// Queues one call on `stream` with raw device pointers (the engine's own buffers):
    /// `outputs` and `inputs` in ABI order, then the f32 scalars and the shape values.
    /// Checks the argument counts and evaluates the manifest geometry; the caller
    /// guarantees that every buffer holds what the shape implies (bf16 tensors, int32
    /// positions and sequence lengths) and that inputs and outputs do not alias.
    /// Calls whose outputs are all empty launch nothing. Capturable, like [`Self::launch`].
    pub fn launch_ptrs(
        &self,
        stream: &CudaStream,
        outputs: &[u64],
        inputs: &[u64],
        scalars: &[f32],
        shape: &[i64],
    ) -> Result<(), LaunchError> {
        let spec = self.slot.spec();
        if outputs.len() != spec.params_of(ParamKind::Output).count()
            || inputs.len() != spec.params_of(ParamKind::Input).count()
            || scalars.len() != spec.params_of(ParamKind::ScalarF32).count()
            || shape.len() != spec.shape_symbols().len()
        {
            return Err(LaunchError::Args {
                slot: self.slot,
                reason: "argument counts do not match the ABI".into(),
            });
        }
        if spec
            .params_of(ParamKind::Output)
            .all(|p| spec.tensor_len(p, shape) == 0)
        {
            return Ok(());
        }
        let geo = self.geometry(shape)?;
        self.ensure_smem(geo.shared_mem_bytes)?;
        // Parameter values in ABI order: output pointers, input pointers, f32 scalars,
        // int64 shape values. cuLaunchKernel copies them during the call.
        let mut ptrs: Vec<u64> = outputs.to_vec();
        ptrs.extend_from_slice(inputs);
        let scalars = scalars.to_vec();
        let shape = shape.to_vec();
        let mut params: Vec<*mut c_void> =
            Vec::with_capacity(ptrs.len() + scalars.len() + shape.len());
        params.extend(ptrs.iter().map(|p| p as *const u64 as *mut c_void));
        params.extend(scalars.iter().map(|s| s as *const f32 as *mut c_void));
        params.extend(shape.iter().map(|s| s as *const i64 as *mut c_void));
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        // SAFETY: the entry passed the ABI check for this slot at build time, so its
        // parameters are exactly these (pointers, f32, int64) in this order; the caller
        // guarantees the buffers' lengths; the values outlive the call.
        unsafe {
            result::launch_kernel(
                self.func.cu_function(),
                geo.grid,
                geo.block,
                geo.shared_mem_bytes,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| LaunchError::Device(driver_err("cuLaunchKernel", e)))?;
        Ok(())
    }

    /// Host convenience: uploads `args` (f32 → bf16), poisons the outputs, launches on
    /// `dev`'s stream, waits, and writes the bf16 outputs back into `args.outputs` as f32.
    pub fn call(&self, dev: &CudaDevice, args: &mut SlotArgs) -> Result<(), LaunchError> {
        let mut d = DeviceArgs::upload(dev, args)?;
        self.launch(dev.stream(), &mut d)?;
        dev.synchronize()?;
        args.outputs = d.download_outputs()?;
        Ok(())
    }
}

impl crate::slots::stacks::StackedKernel for CudaKernel {
    fn slot(&self) -> SlotId {
        CudaKernel::slot(self)
    }
    fn accepts(&self, shape: &[i64]) -> bool {
        CudaKernel::accepts(self, shape)
    }
}
