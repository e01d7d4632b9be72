//! A loaded CUDA kernel typed by its slot, and (`kernel/device_args.rs`) one call's
//! arguments in device memory.
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

mod device_args;

pub use device_args::{DeviceArgs, DeviceBuffer};

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
    let cluster = match &launch.cluster {
        None => (1, 1, 1),
        Some(c) => {
            let hi = MAX_CLUSTER_BLOCKS as i64;
            let cluster = (
                eval("cluster[0]".into(), &c[0], 1, hi)?,
                eval("cluster[1]".into(), &c[1], 1, hi)?,
                eval("cluster[2]".into(), &c[2], 1, hi)?,
            );
            let geometry = |reason: String| LaunchError::Geometry {
                slot,
                what: "cluster".into(),
                reason,
            };
            if cluster.0 * cluster.1 * cluster.2 > MAX_CLUSTER_BLOCKS {
                return Err(geometry(format!(
                    "{} blocks in a cluster (at most {MAX_CLUSTER_BLOCKS})",
                    cluster.0 * cluster.1 * cluster.2
                )));
            }
            let (g, c) = ([grid.0, grid.1, grid.2], [cluster.0, cluster.1, cluster.2]);
            if let Some(d) = (0..3).find(|&d| g[d] % c[d] != 0) {
                return Err(geometry(format!(
                    "grid[{d}] = {} is not a multiple of cluster[{d}] = {}",
                    g[d], c[d]
                )));
            }
            cluster
        }
    };
    Ok(Geometry {
        grid,
        block,
        shared_mem_bytes,
        cluster,
    })
}

/// Most blocks a thread-block cluster may hold (Hopper's non-portable limit; the loader
/// allows it on every kernel of a GPU with clusters).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;

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
    /// Launched with programmatic stream serialization (see [`launch_function`]): only
    /// validator-owned kernels that wait for the grid before them (`griddepcontrol.wait`)
    /// before touching anything it writes or reads.
    programmatic: bool,
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

/// Launches `f` on `stream` (`cuLaunchKernelEx`). With `programmatic`, the launch allows
/// programmatic stream serialization: the grid may start once every block of the grid
/// before it has started and signalled (`griddepcontrol.launch_dependents`) or exited, and
/// must itself wait (`griddepcontrol.wait`) before it touches that grid's data. Stream
/// capture records it as a programmatic edge of the graph.
///
/// # Safety
/// `params` must match `f`'s parameter list and point at live values; with `programmatic`,
/// `f` must wait as described.
pub(crate) unsafe fn launch_function(
    f: sys::CUfunction,
    geo: Geometry,
    stream: sys::CUstream,
    params: &mut [*mut c_void],
    programmatic: bool,
) -> Result<(), cudarc::driver::DriverError> {
    let (mut attrs, n) = launch_attributes(geo, programmatic);
    let config = launch_config(geo, stream, attrs.as_mut_ptr(), n);
    // SAFETY: the caller's contract; the config and attributes outlive the call.
    unsafe { sys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut()) }.result()
}

/// The launch attributes of `geo` (the first `n` of the array; no allocation per launch):
/// its cluster dimensions when it has a launch-time cluster, and programmatic stream
/// serialization when asked for.
fn launch_attributes(geo: Geometry, programmatic: bool) -> ([sys::CUlaunchAttribute; 2], u32) {
    // SAFETY: a zeroed attribute is a valid plain-data value; ids and values are set below.
    let mut attrs: [sys::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
    let mut n = 0;
    if geo.cluster != (1, 1, 1) {
        let a = &mut attrs[n];
        a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = geo.cluster.0;
        a.value.clusterDim.y = geo.cluster.1;
        a.value.clusterDim.z = geo.cluster.2;
        n += 1;
    }
    if programmatic {
        let a = &mut attrs[n];
        a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a.value.programmaticStreamSerializationAllowed = 1;
        n += 1;
    }
    (attrs, n as u32)
}

/// A `cuLaunchKernelEx` configuration of `geo` on `stream` with `num_attrs` attributes at
/// `attrs`.
fn launch_config(
    geo: Geometry,
    stream: sys::CUstream,
    attrs: *mut sys::CUlaunchAttribute,
    num_attrs: u32,
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: geo.grid.0,
        gridDimY: geo.grid.1,
        gridDimZ: geo.grid.2,
        blockDimX: geo.block.0,
        blockDimY: geo.block.1,
        blockDimZ: geo.block.2,
        sharedMemBytes: geo.shared_mem_bytes,
        hStream: stream,
        attrs,
        numAttrs: num_attrs,
    }
}

/// The evaluated launch geometry of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_mem_bytes: u32,
    /// Launch-time cluster dimensions; `(1, 1, 1)` launches without a cluster attribute.
    pub cluster: (u32, u32, u32),
}

/// What [`CudaKernel::residency`] reports for one launch geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Residency {
    /// Blocks in the grid.
    pub grid_blocks: i64,
    /// Blocks an SM can hold at once (registers, shared memory, threads).
    pub blocks_per_sm: i32,
    /// Blocks per cluster (1: no cluster, launch-time or compile-time).
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
            programmatic: false,
        }
    }

    /// Lets this kernel start while the grid before it in the stream drains (programmatic
    /// dependent launch). Only for kernels whose source waits for that grid
    /// (`griddepcontrol.wait`) before it reads or writes anything the grid may touch: the
    /// stock kernels do; a proposal's kernel never gets it (a kernel without the wait would
    /// race its predecessor).
    pub fn set_programmatic_launch(&mut self, on: bool) {
        self.programmatic = on;
    }

    pub fn programmatic_launch(&self) -> bool {
        self.programmatic
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
    /// blocks per SM and, for a clustered launch (the manifest's `cluster` or the kernel's
    /// compile-time cluster dimensions), how many clusters can be resident together. A
    /// grid larger than that runs in more than one wave.
    pub fn residency(&self, shape: &[i64]) -> Result<Residency, LaunchError> {
        let g = self.geometry(shape)?;
        let f = self.func.cu_function();
        let attr = |a| {
            // SAFETY: the function handle is live (the module is held by `self.func`).
            unsafe { result::function::get_function_attribute(f, a) }
                .map_err(|e| driver_err("cuFuncGetAttribute", e))
        };
        use sys::CUfunction_attribute as A;
        let cluster = if g.cluster != (1, 1, 1) {
            let c = g.cluster;
            (c.0 as i32, c.1 as i32, c.2 as i32)
        } else {
            (
                attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)?.max(1),
                attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)?.max(1),
                attr(A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)?.max(1),
            )
        };
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
            let (mut attrs, n) = launch_attributes(g, false);
            let config = launch_config(g, std::ptr::null_mut(), attrs.as_mut_ptr(), n);
            let mut n = 0i32;
            // SAFETY: as above; `config` and its attributes live across the call.
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
            launch_function(
                self.func.cu_function(),
                geo,
                stream.cu_stream(),
                &mut params,
                self.programmatic,
            )
        }
        .map_err(|e| LaunchError::Device(driver_err("cuLaunchKernelEx", e)))?;
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
