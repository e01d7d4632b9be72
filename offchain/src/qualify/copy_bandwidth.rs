//! The copy rate behind the physical floor: measured by the referee itself, never taken
//! from the lane.

use std::time::Instant;

use crate::arena::LaneBackend;

/// The physical floor's bandwidth, measured by the referee itself (read + written bytes
/// per second): host memory for CPU arenas, GPU 0's memory for CUDA arenas (buffers of at
/// most 1 GiB, far beyond any cache).
pub fn floor_bandwidth(backend: LaneBackend, bytes: usize) -> Result<f64, String> {
    match backend {
        LaneBackend::Cpu => Ok(copy_bandwidth(bytes)),
        LaneBackend::Cuda => {
            let dev = cacheon_kernels::CudaDevice::open(0).map_err(|e| e.to_string())?;
            cacheon_kernels::cuda::timing::copy_bandwidth(&dev, bytes.min(1 << 30), 4, 10)
                .map(|c| c.best())
                .map_err(|e| format!("measuring the GPU's copy bandwidth: {e}"))
        }
    }
}

/// Best copy rate over a host buffer of `bytes` (read + written bytes per second).
pub fn copy_bandwidth(bytes: usize) -> f64 {
    let n = bytes.max(1 << 16) / 4;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        dst.copy_from_slice(&src);
        std::hint::black_box(&mut dst);
        best = best.min(t.elapsed().as_secs_f64());
    }
    (2 * n * 4) as f64 / best.max(1e-9)
}
