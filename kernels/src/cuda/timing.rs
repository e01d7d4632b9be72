//! Device timing for benchmarks (DESIGN 8): CUDA events around back-to-back launches
//! replayed from a captured CUDA graph, after a warm-up; and the device's measured copy
//! bandwidth, timed the same way. Also the bytes a slot call must move, from its shape.

use cudarc::driver::{result, sys, CudaSlice, DevicePtr};

use super::device::{driver_err, CudaDevice, DeviceError};
use super::kernel::{CudaKernel, DeviceArgs, LaunchError};
use crate::slots::args::SlotArgs;
use crate::slots::{Elem, ParamKind, SlotId};

/// bf16 bytes per element on the CUDA arena.
pub const T_BYTES: u64 = 2;

/// Bytes a call must move through device memory at least: every input read once and
/// every output written once (bf16 tensors, int32 tensors). For `attention.decode` only
/// the first `seq_lens[b]` cache rows of each sequence count: the rest is never read.
pub fn bytes_moved(args: &SlotArgs) -> u64 {
    let spec = args.slot.spec();
    let mut total = 0u64;
    for p in spec.params {
        let elem_bytes = match p.elem {
            Some(Elem::T) => T_BYTES,
            Some(Elem::I32) => 4,
            None => continue,
        };
        let is_cache = args.slot == SlotId::AttentionDecode
            && p.kind == ParamKind::Input
            && (p.name == "k_cache" || p.name == "v_cache");
        let elems = if is_cache {
            let row = (args.shape_value("kv_heads") * args.shape_value("head_dim")).max(0) as u64;
            let max_seq = args.shape_value("max_seq");
            args.input_i32(3)
                .iter()
                .map(|&l| (l as i64).clamp(0, max_seq) as u64 * row)
                .sum()
        } else {
            spec.tensor_len(p, &args.shape) as u64
        };
        total += elems * elem_bytes;
    }
    total
}

/// One timing result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Mean device time per call, milliseconds.
    pub ms_per_call: f64,
    /// Calls per graph replay.
    pub calls_per_graph: usize,
    /// Timed replays.
    pub replays: usize,
}

fn end_capture_quietly(dev: &CudaDevice) {
    let _ = dev.stream().end_capture(sys::CUgraphInstantiate_flags(0));
}

/// Captures `n` calls of `body` (which must only queue work on `dev`'s stream) into a
/// CUDA graph, instantiated and uploaded; replay it with `CudaGraph::launch`.
pub fn capture_graph<F>(
    dev: &CudaDevice,
    n: usize,
    mut body: F,
) -> Result<cudarc::driver::CudaGraph, LaunchError>
where
    F: FnMut(usize) -> Result<(), LaunchError>,
{
    let stream = dev.stream();
    stream
        .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
    for i in 0..n {
        if let Err(e) = body(i) {
            end_capture_quietly(dev);
            return Err(e);
        }
    }
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))
        .map_err(|e| driver_err("cuStreamEndCapture", e))?
        .ok_or_else(|| DeviceError::Driver {
            call: "cuStreamEndCapture",
            error: "captured an empty graph".into(),
        })?;
    graph.upload().map_err(|e| driver_err("cuGraphUpload", e))?;
    Ok(graph)
}

/// Milliseconds for `replays` launches of `graph`, timed with events on `dev`'s stream.
fn time_replays(
    dev: &CudaDevice,
    graph: &cudarc::driver::CudaGraph,
    replays: usize,
) -> Result<f64, DeviceError> {
    let ctx = dev.context();
    let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let start = ctx
        .new_event(flags)
        .map_err(|e| driver_err("cuEventCreate", e))?;
    let end = ctx
        .new_event(flags)
        .map_err(|e| driver_err("cuEventCreate", e))?;
    start
        .record(dev.stream())
        .map_err(|e| driver_err("cuEventRecord", e))?;
    for _ in 0..replays {
        graph.launch().map_err(|e| driver_err("cuGraphLaunch", e))?;
    }
    end.record(dev.stream())
        .map_err(|e| driver_err("cuEventRecord", e))?;
    let ms = start
        .elapsed_ms(&end)
        .map_err(|e| driver_err("cuEventElapsedTime", e))?;
    dev.synchronize()?;
    Ok(ms as f64)
}

/// Times `kernel` on the working sets `sets` (cycled, so that several sets can keep the
/// data out of L2): one plain launch per set first (warms the module and any shared-memory
/// opt-in), then a calibration graph, then a graph of enough back-to-back launches to run
/// about `target_ms`, replayed twice as warm-up and `replays` times under events.
pub fn time_kernel(
    dev: &CudaDevice,
    kernel: &CudaKernel,
    sets: &mut [DeviceArgs],
    target_ms: f64,
    replays: usize,
) -> Result<Timing, LaunchError> {
    assert!(!sets.is_empty(), "at least one working set");
    let stream = dev.stream().clone();
    for s in sets.iter_mut() {
        kernel.launch(&stream, s)?;
    }
    dev.synchronize()?;
    let k = sets.len();
    let calib_n = 20usize.max(k);
    let graph = capture_graph(dev, calib_n, |i| kernel.launch(&stream, &mut sets[i % k]))?;
    time_replays(dev, &graph, 1)?;
    let per_call = time_replays(dev, &graph, 3)? / (3 * calib_n) as f64;
    drop(graph);
    let n = if per_call > 0.0 {
        ((target_ms / per_call).ceil() as usize).clamp(calib_n, 5000)
    } else {
        5000
    };
    let n = n.div_ceil(k) * k;
    let graph = capture_graph(dev, n, |i| kernel.launch(&stream, &mut sets[i % k]))?;
    time_replays(dev, &graph, 2)?;
    let ms = time_replays(dev, &graph, replays)?;
    Ok(Timing {
        ms_per_call: ms / (replays * n) as f64,
        calls_per_graph: n,
        replays,
    })
}

/// A plain 16-byte-vector grid-stride copy: the bandwidth a well-written streaming kernel
/// reaches, which `cuMemcpyDtoD` alone can understate.
const COPY_KERNEL: &str = r#"
extern "C" __global__ void cacheon_copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride) dst[i] = src[i];
}
"#;

/// Measured device copy bandwidth, in bytes per second counting bytes read plus written.
#[derive(Clone, Copy, Debug)]
pub struct CopyBandwidth {
    /// Bytes per copy actually used (halved from the request until two buffers fit).
    pub bytes: usize,
    /// `cuMemcpyDtoD`.
    pub memcpy: f64,
    /// [`COPY_KERNEL`], a 16-byte-vector copy kernel.
    pub kernel: f64,
}

impl CopyBandwidth {
    /// The reference for "% of copy": the better of the two.
    pub fn best(&self) -> f64 {
        self.memcpy.max(self.kernel)
    }
}

/// The device's copy bandwidth two ways on the same pair of buffers: `copies` copies of
/// `bytes` bytes per graph, by `cuMemcpyDtoD` and by [`COPY_KERNEL`], each timed over
/// `replays` replays after a warm-up.
pub fn copy_bandwidth(
    dev: &CudaDevice,
    bytes: usize,
    copies: usize,
    replays: usize,
) -> Result<CopyBandwidth, LaunchError> {
    use std::ffi::c_void;
    let stream = dev.stream().clone();
    let mut bytes = bytes / 16 * 16;
    let (src, dst): (CudaSlice<u8>, CudaSlice<u8>) = loop {
        // SAFETY: contents are irrelevant (set below before timing).
        let a = unsafe { stream.alloc::<u8>(bytes) };
        let b = unsafe { stream.alloc::<u8>(bytes) };
        match (a, b) {
            (Ok(a), Ok(b)) => break (a, b),
            _ if bytes > 64 << 20 => bytes /= 2,
            (Err(e), _) | (_, Err(e)) => return Err(driver_err("cuMemAlloc", e).into()),
        }
    };
    let (mut sp, mut dp) = (src.device_ptr(&stream).0, dst.device_ptr(&stream).0);
    // SAFETY: both allocations hold `bytes` bytes on this stream's context.
    unsafe {
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        result::memset_d8_async(sp, 0x5A, bytes, stream.cu_stream())
            .map_err(|e| driver_err("cuMemsetD8Async", e))?;
    }
    let moved = 2.0 * bytes as f64 * (copies * replays) as f64;
    let time = |graph: &cudarc::driver::CudaGraph| -> Result<f64, LaunchError> {
        time_replays(dev, graph, 2)?;
        Ok(moved / (time_replays(dev, graph, replays)? / 1e3))
    };

    let graph = capture_graph(dev, copies, |_| {
        // SAFETY: as above; the copy is queued (captured) on this stream.
        unsafe { result::memcpy_dtod_async(dp, sp, bytes, stream.cu_stream()) }
            .map_err(|e| LaunchError::from(driver_err("cuMemcpyDtoDAsync", e)))
    })?;
    let memcpy = time(&graph)?;
    drop(graph);

    let out = super::nvrtc::compile(
        "cacheon_copy16.cu",
        COPY_KERNEL,
        &[],
        &["--gpu-architecture=sm_90a".to_string()],
        std::time::Duration::from_secs(60),
    )
    .map_err(|e| {
        LaunchError::Device(DeviceError::Driver {
            call: "nvrtcCompileProgram",
            error: e.to_string(),
        })
    })?;
    let module = stream
        .context()
        .load_module(cudarc::nvrtc::Ptx::from_src(out.ptx))
        .map_err(|e| driver_err("cuModuleLoadData", e))?;
    let func = module
        .load_function("cacheon_copy16")
        .map_err(|e| driver_err("cuModuleGetFunction", e))?;
    let mut n = (bytes / 16) as u64;
    let sms = dev.info().multiprocessors.max(1) as u32;
    let graph = capture_graph(dev, copies, |_| {
        let mut params: Vec<*mut c_void> = vec![
            &mut sp as *mut u64 as *mut c_void,
            &mut dp as *mut u64 as *mut c_void,
            &mut n as *mut u64 as *mut c_void,
        ];
        // SAFETY: the kernel takes (src, dst, n) and both buffers hold n 16-byte vectors.
        unsafe {
            result::launch_kernel(
                func.cu_function(),
                (sms * 8, 1, 1),
                (512, 1, 1),
                0,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| LaunchError::from(driver_err("cuLaunchKernel", e)))
    })?;
    let kernel = time(&graph)?;
    drop(graph);
    drop((src, dst));
    Ok(CopyBandwidth {
        bytes,
        memcpy,
        kernel,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::args::Buffer;
    use crate::slots::cases;

    #[test]
    fn bytes_moved_counts_inputs_outputs_and_valid_cache_rows() {
        let a = cases::generate(SlotId::SiluAndMul, &[4, 16], 1);
        assert_eq!(bytes_moved(&a), (4 * 32 + 4 * 16) * 2);
        let a = cases::generate(SlotId::RmsNorm, &[3, 8], 1);
        assert_eq!(bytes_moved(&a), (3 * 8 + 8 + 3 * 8) * 2);
        let a = cases::generate(SlotId::Rope, &[2, 4, 2, 8], 1);
        assert_eq!(bytes_moved(&a), 2 * (2 * 4 * 8 + 2 * 2 * 8) * 2 + 2 * 4);
        let mut a = cases::generate(SlotId::AttentionDecode, &[2, 4, 2, 8, 10], 1);
        if let Buffer::I32(l) = &mut a.inputs[3] {
            *l = vec![10, 3];
        }
        let q_out = 2 * (2 * 4 * 8) * 2;
        let cache = 2 * (13 * 2 * 8) * 2;
        assert_eq!(bytes_moved(&a), (q_out + cache + 2 * 4) as u64);
    }
}
