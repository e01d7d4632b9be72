//! The engine's own kernels (`engine_kernels.cu`: embedding, the q|k|v split, the key
//! cache write, the prefill softmax of the builtin prefill attention, the GEMVs (with the
//! fused one-row decode kernels), the RoPE + cache-row kernels, greedy argmax and
//! weight synthesis):
//! compiled once per engine with NVRTC and launched on the engine's stream.

use super::*;
use crate::cuda::kernel::{launch_function, Geometry};
use crate::cuda::ptx_cache;

/// The engine's own kernels (see the file for what each does).
const ENGINE_KERNELS: &str = include_str!("engine_kernels.cu");

/// Most blocks the argmax kernel gives one row (each takes a strided share of the vocab;
/// 256 threads, about 8 values each).
pub(super) const ARGMAX_MAX_BLOCKS: usize = 128;

/// The loaded module and its functions.
pub(super) struct EngineKernels {
    pub(super) synth: CudaFunction,
    pub(super) embed: CudaFunction,
    pub(super) qkv_split: CudaFunction,
    pub(super) k_write: CudaFunction,
    pub(super) softmax: CudaFunction,
    pub(super) argmax: CudaFunction,
    pub(super) gemv_qkv: CudaFunction,
    pub(super) gemv_qkv_rope: CudaFunction,
    pub(super) gemv_gate_up_silu: CudaFunction,
    pub(super) rope_cache_row: CudaFunction,
    pub(super) rope_cache_rows: CudaFunction,
    _module: Arc<CudaModule>,
}

impl EngineKernels {
    /// Compiles `engine_kernels.cu` for `dev`'s architecture and loads every function.
    pub(super) fn load(dev: &CudaDevice) -> Result<EngineKernels, CudaEngineError> {
        let (maj, min) = dev.info().compute_capability;
        let options = [
            format!("--gpu-architecture=compute_{maj}{min}"),
            "--std=c++17".to_string(),
        ];
        let compile = || {
            nvrtc::compile(
                "cacheon_engine.cu",
                ENGINE_KERNELS,
                &[],
                &options,
                std::time::Duration::from_secs(60),
            )
            .map(|out| (out.ptx, out.log))
        };
        let compiled = match nvrtc::version() {
            Ok(nvrtc_version) => {
                let inputs = ptx_cache::CompileInputs {
                    nvrtc_version,
                    name: "cacheon_engine.cu",
                    source: ENGINE_KERNELS,
                    headers: &[],
                    option_sets: &[&options],
                    include_dirs: &[],
                };
                ptx_cache::cached(&inputs, compile)
            }
            Err(_) => compile(),
        };
        let (ptx, _log) = compiled.map_err(|e| CudaEngineError::Kernels(e.to_string()))?;
        let module = dev
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| driver_err("cuModuleLoadData", e))?;
        let func = |name: &str| {
            module
                .load_function(name)
                .map_err(|e| CudaEngineError::Device(driver_err("cuModuleGetFunction", e)))
        };
        Ok(EngineKernels {
            synth: func("eng_synth")?,
            embed: func("eng_embed")?,
            qkv_split: func("eng_qkv_split")?,
            k_write: func("eng_k_write")?,
            softmax: func("eng_causal_softmax")?,
            argmax: func("eng_argmax")?,
            gemv_qkv: func("eng_gemv_qkv")?,
            gemv_qkv_rope: func("eng_gemv_qkv_rope")?,
            gemv_gate_up_silu: func("eng_gemv_gate_up_silu")?,
            rope_cache_row: func("eng_rope_cache_row")?,
            rope_cache_rows: func("eng_rope_cache_rows")?,
            _module: module,
        })
    }

    /// Whether `f` waits for the grid before it (`GRID_DEPENDENCY_WAIT` in the file) and may
    /// so be launched programmatically.
    fn waits_for_the_grid_before(&self, f: &CudaFunction) -> bool {
        [
            &self.embed,
            &self.k_write,
            &self.argmax,
            &self.gemv_qkv,
            &self.gemv_qkv_rope,
            &self.gemv_gate_up_silu,
            &self.rope_cache_row,
            &self.rope_cache_rows,
        ]
        .iter()
        .any(|k| k.cu_function() == f.cu_function())
    }
}

/// A kernel argument of the engine's own kernels.
#[derive(Clone, Copy)]
pub(super) enum Arg {
    Ptr(u64),
    I64(i64),
    U64(u64),
    F32(f32),
}

impl CudaEngine {
    /// Launches one of the engine's own kernels on the engine's stream.
    pub(super) fn run(
        &self,
        f: &CudaFunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        args: &[Arg],
    ) -> Result<(), CudaEngineError> {
        self.run_smem(f, grid, block, 0, args)
    }

    /// [`Self::run`] with `smem` bytes of dynamic shared memory.
    pub(super) fn run_smem(
        &self,
        f: &CudaFunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        smem: u32,
        args: &[Arg],
    ) -> Result<(), CudaEngineError> {
        // Every argument in an 8-byte cell (an f32 in the low 4 bytes, little endian).
        let mut cells: Vec<u64> = args
            .iter()
            .map(|a| match *a {
                Arg::Ptr(v) | Arg::U64(v) => v,
                Arg::I64(v) => v as u64,
                Arg::F32(v) => v.to_bits() as u64,
            })
            .collect();
        let mut params: Vec<*mut c_void> = cells
            .iter_mut()
            .map(|c| c as *mut u64 as *mut c_void)
            .collect();
        let stream = self.dev.stream();
        let programmatic =
            self.opts.programmatic_launch && self.kernels.waits_for_the_grid_before(f);
        let geo = Geometry {
            grid,
            block,
            shared_mem_bytes: smem,
            cluster: (1, 1, 1),
        };
        // SAFETY: each kernel of `engine_kernels.cu` is called with its parameter list
        // (pointers and 64-bit integers in 8-byte cells, floats in 4 bytes); the buffers
        // hold what the shapes imply; the programmatic ones wait for the grid before them.
        unsafe {
            stream
                .context()
                .bind_to_thread()
                .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            launch_function(
                f.cu_function(),
                geo,
                stream.cu_stream(),
                &mut params,
                programmatic,
            )
        }
        .map_err(|e| CudaEngineError::Device(driver_err("cuLaunchKernelEx", e)))
    }

    /// Greedy tokens of `rows` rows of `logits` into `s.next`.
    pub(super) fn argmax(&self, rows: usize, logits: u64) -> Result<(), CudaEngineError> {
        let vocab = self.config.vocab_size;
        let nb = vocab.div_ceil(256 * 8).clamp(1, ARGMAX_MAX_BLOCKS) as u32;
        self.run(
            &self.kernels.argmax,
            (rows as u32, nb, 1),
            (256, 1, 1),
            &[
                Arg::Ptr(self.ptr(&self.s.next)),
                Arg::Ptr(logits),
                Arg::I64(vocab as i64),
                Arg::Ptr(self.ptr(&self.s.argmax_part)),
                Arg::Ptr(self.ptr(&self.s.argmax_count)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_kernels_have_no_includes() {
        assert!(!ENGINE_KERNELS.contains("#include"));
        for name in [
            "eng_synth",
            "eng_embed",
            "eng_qkv_split",
            "eng_k_write",
            "eng_causal_softmax",
            "eng_argmax",
            "eng_gemv_qkv",
            "eng_gemv_qkv_rope",
            "eng_gemv_gate_up_silu",
            "eng_rope_cache_row",
            "eng_rope_cache_rows",
        ] {
            assert!(ENGINE_KERNELS.contains(&format!(" {name}(")), "{name}");
        }
    }
}
