//! Opening a GPU: a typed error instead of a panic when there is no driver or no device,
//! then one context (the device's primary context) and one stream per [`CudaDevice`].
//!
//! cudarc's automatic cross-stream event tracking is switched off before anything is
//! allocated: every buffer of a `CudaDevice` lives on its one stream, and the tracking's
//! event records would otherwise land inside CUDA-graph captures.

use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};

use super::loader;

/// Why no GPU could be opened.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    /// No usable CUDA driver (library missing, too old, or failing to initialise).
    #[error("CUDA driver unavailable: {reason}")]
    DriverUnavailable { reason: String },
    /// A driver, but no (such) device.
    #[error("no CUDA device: {reason}")]
    NoGpu { reason: String },
    /// A driver call failed.
    #[error("CUDA driver call `{call}` failed: {error}")]
    Driver { call: &'static str, error: String },
}

/// A failed driver call as `DeviceError::Driver`, with the driver's own error text.
pub fn driver_err(call: &'static str, e: DriverError) -> DeviceError {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    DeviceError::Driver {
        call,
        error: if text.is_empty() {
            name
        } else {
            format!("{name}: {text}")
        },
    }
}

/// What the device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// Compute capability `(major, minor)`; 9.0 is Hopper.
    pub compute_capability: (i32, i32),
    pub multiprocessors: i32,
    pub l2_cache_bytes: i64,
    /// Largest dynamic shared memory a block may opt into.
    pub max_shared_mem_per_block_optin: i64,
    pub total_mem_bytes: u64,
    /// Peak SM and memory clocks the driver reports (kHz; 0 where it reports none).
    pub max_sm_clock_khz: i32,
    pub max_mem_clock_khz: i32,
    /// e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
}

/// One GPU, its primary context and one stream.
#[derive(Clone, Debug)]
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic while loading the CUDA driver".into())
}

/// Maps an initialisation failure to the right kind of error.
fn init_error(e: DriverError) -> DeviceError {
    use sys::cudaError_enum as E;
    let reason = match driver_err("cuInit", e) {
        DeviceError::Driver { error, .. } => error,
        other => other.to_string(),
    };
    match e.0 {
        E::CUDA_ERROR_NO_DEVICE | E::CUDA_ERROR_INVALID_DEVICE => DeviceError::NoGpu { reason },
        _ => DeviceError::DriverUnavailable { reason },
    }
}

impl CudaDevice {
    /// Opens device `ordinal`. Never panics: a missing `libcuda`, a driver that cannot
    /// initialise, or no device all come back as [`DeviceError`].
    pub fn open(ordinal: usize) -> Result<CudaDevice, DeviceError> {
        if !loader::driver_present() {
            return Err(DeviceError::DriverUnavailable {
                reason: "libcuda.so could not be loaded (no NVIDIA driver on this machine)".into(),
            });
        }
        std::panic::catch_unwind(|| Self::open_inner(ordinal)).unwrap_or_else(|p| {
            Err(DeviceError::DriverUnavailable {
                reason: panic_text(p),
            })
        })
    }

    fn open_inner(ordinal: usize) -> Result<CudaDevice, DeviceError> {
        result::init().map_err(init_error)?;
        let count = CudaContext::device_count().map_err(init_error)?;
        if count <= 0 {
            return Err(DeviceError::NoGpu {
                reason: "the driver reports no devices".into(),
            });
        }
        if ordinal >= count as usize {
            return Err(DeviceError::NoGpu {
                reason: format!("device {ordinal} requested, the driver reports {count}"),
            });
        }
        let ctx =
            CudaContext::new(ordinal).map_err(|e| driver_err("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: nothing has been allocated in this context object yet; all buffers of
        // this device live on its single stream (see the module docs).
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        let attr = |a: sys::CUdevice_attribute| {
            ctx.attribute(a)
                .map_err(|e| driver_err("cuDeviceGetAttribute", e))
        };
        use sys::CUdevice_attribute as A;
        let mut driver_version = 0;
        // SAFETY: plain out-parameter.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| driver_err("cuDriverGetVersion", e))?;
        let info = DeviceInfo {
            ordinal,
            name: ctx.name().map_err(|e| driver_err("cuDeviceGetName", e))?,
            compute_capability: (
                attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            l2_cache_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as i64,
            max_shared_mem_per_block_optin: attr(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )? as i64,
            total_mem_bytes: ctx
                .total_mem()
                .map_err(|e| driver_err("cuDeviceTotalMem", e))?
                as u64,
            driver_version,
            max_sm_clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0),
            max_mem_clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0),
        };
        Ok(CudaDevice { ctx, stream, info })
    }

    /// A second handle on the same device with its own stream (for work that must not
    /// share a stream, such as a graph capture beside other launches).
    pub fn with_new_stream(&self) -> Result<CudaDevice, DeviceError> {
        let stream = self
            .ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        Ok(CudaDevice {
            ctx: self.ctx.clone(),
            stream,
            info: self.info.clone(),
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for all work queued on this device's stream; reports any asynchronous
    /// error (a faulting kernel shows up here).
    pub fn synchronize(&self) -> Result<(), DeviceError> {
        self.stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))
    }
}
