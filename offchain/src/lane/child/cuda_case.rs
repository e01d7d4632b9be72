//! A CUDA lane's bundle and its verification calls: bf16 outputs inside guard bands on the
//! device, poisoned before every call, inputs refreshed in place (same addresses), and
//! optionally one CUDA graph captured once and replayed per seed (DESIGN 7 steps 5-6).

use cacheon_kernels::cuda::kernel::{DeviceArgs, DeviceBuffer};
use cacheon_kernels::cuda::timing::capture_graph;
use cacheon_kernels::cuda::{compile_cuda_bundle, load_cuda_bundle, CompiledBundle};
use cacheon_kernels::cuda::{BuildStage as CudaStage, CudaBuildError, CudaBuildOptions};
use cacheon_kernels::slots::args::SlotArgs;
use cacheon_kernels::slots::{Dtype, SlotId};
use cacheon_kernels::{BundleFile, CudaBundle, CudaDevice};
use cudarc::driver::{sys, CudaSlice, DevicePtr};

use crate::lane::harness::{case_args, guard_hits};
use crate::lane::protocol::{BuildStage, CallCheck, Special};

/// Poison for bf16 outputs: a quiet NaN with a payload arithmetic does not produce.
pub const POISON_BF16: u16 = 0x7fc5;
/// Guard-band pattern for bf16 outputs.
pub const GUARD_BF16: u16 = 0x7fc3;

pub struct CudaLane {
    dev: CudaDevice,
    bundle: CudaBundle,
}

type Calls = (Vec<CallCheck>, Vec<Vec<f32>>);

impl CudaLane {
    /// Compiles the bundle (NVRTC, the ABI check, the PTX screen) without loading it. The
    /// outer error is ours (no NVRTC); the inner one is the miner's (stage and log).
    pub fn compile(
        files: &[BundleFile],
    ) -> Result<Result<CompiledBundle, (BuildStage, String)>, String> {
        // NVRTC reads the miner's source: it runs in a sandboxed process of its own.
        let exe = std::env::current_exe()
            .map_err(|e| format!("finding this executable for the NVRTC process: {e}"))?;
        let opts = CudaBuildOptions {
            sandbox_exe: Some(exe),
            ..CudaBuildOptions::default()
        };
        match compile_cuda_bundle(files, &opts) {
            Ok(compiled) => Ok(Ok(compiled)),
            Err(e) => {
                let stage = match e.stage() {
                    _ if matches!(&e, CudaBuildError::Ptx(v) if v.timer) => BuildStage::Cheating,
                    CudaStage::Screen => BuildStage::Policy,
                    CudaStage::Build => BuildStage::Build,
                    CudaStage::Abi => BuildStage::Abi,
                    CudaStage::Infrastructure => return Err(e.to_string()),
                };
                Ok(Err((stage, e.to_string())))
            }
        }
    }

    /// Loads a compiled bundle's module on `dev` (the lane is sealed by then).
    pub fn load(
        dev: CudaDevice,
        compiled: CompiledBundle,
        origin: &str,
    ) -> Result<CudaLane, String> {
        let bundle = load_cuda_bundle(compiled, origin, &dev).map_err(|e| e.to_string())?;
        Ok(CudaLane { dev, bundle })
    }

    pub fn machine(&self) -> String {
        machine(&self.dev)
    }

    pub fn log(&self) -> String {
        self.bundle.log.clone()
    }

    /// The built kernels, to be installed in an engine on the same device.
    pub fn into_kernels(self) -> Vec<cacheon_kernels::cuda::CudaKernel> {
        self.bundle.into_kernels()
    }

    fn fill(
        &self,
        buf: &CudaSlice<u16>,
        offset: usize,
        len: usize,
        bits: u16,
    ) -> Result<(), String> {
        if len == 0 {
            return Ok(());
        }
        let stream = self.dev.stream();
        let ptr = buf.device_ptr(stream).0 + (offset * 2) as u64;
        // SAFETY: [offset, offset + len) lies inside `buf`, a live allocation of this
        // stream's context.
        unsafe {
            stream
                .context()
                .bind_to_thread()
                .map_err(|e| e.to_string())?;
            sys::cuMemsetD16Async(ptr, bits, len, stream.cu_stream())
                .result()
                .map_err(|e| format!("cuMemsetD16Async: {e}"))
        }
    }

    /// Runs `slot` once per seed (see the module docs); returns the harness's checks and
    /// the outputs as f32, call-major.
    pub fn calls(
        &self,
        slot: SlotId,
        shape: &[i64],
        seeds: &[u64],
        special: Special,
        guard: usize,
        graph: bool,
    ) -> Result<Calls, String> {
        let kernel = self
            .bundle
            .kernel(slot)
            .ok_or_else(|| format!("the bundle has no kernel for {slot}"))?;
        let stream = self.dev.stream().clone();
        let first = case_args(slot, shape, seeds.first().copied().unwrap_or(0), special);
        let mut dargs = DeviceArgs::upload(&self.dev, &first).map_err(|e| e.to_string())?;
        let lens = first.output_lens();
        let mut outs = Vec::new();
        for &n in &lens {
            // SAFETY: every element is written by `fill` before any kernel reads it.
            let buf = unsafe { stream.alloc::<u16>(n + 2 * guard) }.map_err(|e| e.to_string())?;
            outs.push(buf);
        }
        let out_ptrs: Vec<u64> = outs
            .iter()
            .map(|b| b.device_ptr(&stream).0 + (guard * 2) as u64)
            .collect();
        let in_ptrs: Vec<u64> = dargs
            .inputs
            .iter()
            .map(|b| match b {
                DeviceBuffer::Bf16(s) => s.device_ptr(&stream).0,
                DeviceBuffer::I32(s) => s.device_ptr(&stream).0,
            })
            .collect();
        let scalars = first.scalars.clone();
        let launch = || kernel.launch_ptrs(&stream, &out_ptrs, &in_ptrs, &scalars, shape);
        let poison = |this: &Self| -> Result<(), String> {
            for (b, &n) in outs.iter().zip(&lens) {
                this.fill(b, 0, n + 2 * guard, GUARD_BF16)?;
                this.fill(b, guard, n, POISON_BF16)?;
            }
            Ok(())
        };
        let graph = if graph {
            // One plain launch first: shared-memory opt-in happens outside the capture.
            poison(self)?;
            launch().map_err(|e| e.to_string())?;
            self.dev.synchronize().map_err(|e| e.to_string())?;
            Some(capture_graph(&self.dev, 1, |_| launch()).map_err(|e| e.to_string())?)
        } else {
            None
        };
        let mut checks = Vec::new();
        let mut outputs = Vec::new();
        for (k, &seed) in seeds.iter().enumerate() {
            let mut args: SlotArgs = if k == 0 {
                first.clone()
            } else {
                let mut a = case_args(slot, shape, seed, special);
                // A graph keeps the scalars it was captured with; plain calls use the
                // same ones so that the referee's expectation is the same either way.
                a.scalars = scalars.clone();
                dargs.refresh_inputs(&a).map_err(|e| e.to_string())?;
                a
            };
            poison(self)?;
            match &graph {
                Some(g) => g.launch().map_err(|e| format!("cuGraphLaunch: {e}"))?,
                None => launch().map_err(|e| e.to_string())?,
            }
            self.dev.synchronize().map_err(|e| e.to_string())?;
            let mut check = CallCheck::default();
            for (i, (b, &n)) in outs.iter().zip(&lens).enumerate() {
                let bits = stream.clone_dtoh(b).map_err(|e| e.to_string())?;
                check
                    .guard_hits
                    .extend(guard_hits(i, bits.iter().copied(), n, guard, GUARD_BF16));
                let region = &bits[guard..guard + n];
                check.unwritten += region.iter().filter(|&&h| h == POISON_BF16).count() as u64;
                outputs.push(
                    bits[guard..guard + n]
                        .iter()
                        .map(|&h| half::bf16::from_bits(h).to_f32())
                        .collect(),
                );
            }
            args.round_inputs(Dtype::Bf16);
            let now = dargs.download_inputs().map_err(|e| e.to_string())?;
            check.inputs_changed = cacheon_kernels::slots::args::changed_inputs(&now, &args.inputs);
            checks.push(check);
        }
        Ok((checks, outputs))
    }
}

/// The device's description for reports.
pub fn machine(dev: &CudaDevice) -> String {
    let i = dev.info();
    format!(
        "{} (compute {}.{}, {} SMs, SM clock up to {} MHz, memory clock {} MHz, driver {})",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        i.max_sm_clock_khz / 1000,
        i.max_mem_clock_khz / 1000,
        i.driver_version
    )
}
