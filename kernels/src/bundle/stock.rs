//! The stock kernels, embedded in the binary: the genesis incumbent of every arena is a
//! set of these validator-owned bundles, built and loaded by the same code that builds a
//! miner's bundle. The files live under `kernels/stock/<backend>/<name>/`: plain scalar C
//! for the CPU arena, bf16 CUDA written for Hopper (sm_90a) for the CUDA arena.

use crate::bundle::BundleFile;
use crate::slots::SlotId;

/// One embedded stock bundle.
#[derive(Clone, Copy, Debug)]
pub struct StockBundle {
    /// Folder name under `stock/<backend>/`.
    pub name: &'static str,
    pub slot: SlotId,
    /// `(relative path, contents)` of every file.
    pub files: &'static [(&'static str, &'static str)],
}

impl StockBundle {
    /// The bundle as in-memory files, ready for the build path.
    pub fn files(&self) -> Vec<BundleFile> {
        self.files
            .iter()
            .map(|(p, d)| BundleFile::new(*p, d.as_bytes()))
            .collect()
    }
}

/// The stock bundle `stock/$backend/$name/`: its manifest and `kernels/$name.$ext`.
macro_rules! stock_bundle {
    ($backend:literal, $ext:literal, $name:literal, $slot:expr) => {
        StockBundle {
            name: $name,
            slot: $slot,
            files: &[
                (
                    "manifest.toml",
                    include_str!(concat!(
                        "../../stock/",
                        $backend,
                        "/",
                        $name,
                        "/manifest.toml"
                    )),
                ),
                (
                    concat!("kernels/", $name, ".", $ext),
                    include_str!(concat!(
                        "../../stock/",
                        $backend,
                        "/",
                        $name,
                        "/kernels/",
                        $name,
                        ".",
                        $ext
                    )),
                ),
            ],
        }
    };
}

/// One per slot in registry order; a fused seam has none (its member slots serve it).
static CPU: [StockBundle; 9] = [
    stock_bundle!("cpu", "c", "silu_and_mul", SlotId::SiluAndMul),
    stock_bundle!("cpu", "c", "rmsnorm", SlotId::RmsNorm),
    stock_bundle!("cpu", "c", "fused_add_rmsnorm", SlotId::FusedAddRmsNorm),
    stock_bundle!("cpu", "c", "rope", SlotId::Rope),
    stock_bundle!("cpu", "c", "attention_decode", SlotId::AttentionDecode),
    stock_bundle!("cpu", "c", "linear_matmul", SlotId::LinearMatmul),
    stock_bundle!("cpu", "c", "attention_prefill", SlotId::AttentionPrefill),
    stock_bundle!("cpu", "c", "all_reduce", SlotId::AllReduce),
    stock_bundle!("cpu", "c", "moe_fused_experts", SlotId::MoeFusedExperts),
];

static CUDA: [StockBundle; 9] = [
    stock_bundle!("cuda", "cu", "silu_and_mul", SlotId::SiluAndMul),
    stock_bundle!("cuda", "cu", "rmsnorm", SlotId::RmsNorm),
    stock_bundle!("cuda", "cu", "fused_add_rmsnorm", SlotId::FusedAddRmsNorm),
    stock_bundle!("cuda", "cu", "rope", SlotId::Rope),
    stock_bundle!("cuda", "cu", "attention_decode", SlotId::AttentionDecode),
    stock_bundle!("cuda", "cu", "linear_matmul", SlotId::LinearMatmul),
    stock_bundle!("cuda", "cu", "attention_prefill", SlotId::AttentionPrefill),
    stock_bundle!("cuda", "cu", "all_reduce", SlotId::AllReduce),
    stock_bundle!("cuda", "cu", "moe_fused_experts", SlotId::MoeFusedExperts),
];

/// The CUDA arena's stock bundles, one per slot but the seams, in registry order.
pub fn cuda_bundles() -> &'static [StockBundle] {
    &CUDA
}

/// The CUDA stock bundle for one slot; `None` for a fused seam.
pub fn cuda_bundle(slot: SlotId) -> Option<&'static StockBundle> {
    CUDA.iter().find(|b| b.slot == slot)
}

/// The CPU arena's stock bundles, one per slot but the seams, in registry order.
pub fn cpu_bundles() -> &'static [StockBundle] {
    &CPU
}

/// The CPU stock bundle for one slot; `None` for a fused seam.
pub fn cpu_bundle(slot: SlotId) -> Option<&'static StockBundle> {
    CPU.iter().find(|b| b.slot == slot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::manifest::{Backend, Manifest};

    #[test]
    fn every_slot_but_a_seam_has_a_valid_cpu_stock_bundle() {
        for slot in SlotId::ALL {
            let Some(b) = cpu_bundle(slot) else {
                assert!(slot.is_seam(), "{slot} has no stock bundle");
                continue;
            };
            assert_eq!(b.slot, slot);
            let m = Manifest::from_bundle(&b.files()).unwrap();
            assert_eq!(m.backend, Backend::Cpu);
            assert_eq!(m.target.id, slot.as_str());
            assert_eq!(m.ops.len(), 1);
            assert_eq!(m.ops[0].entry, slot.spec().c_name);
        }
    }

    #[test]
    fn every_slot_but_a_seam_has_a_valid_cuda_stock_bundle_that_passes_the_screen() {
        for slot in SlotId::ALL {
            let Some(b) = cuda_bundle(slot) else {
                assert!(slot.is_seam(), "{slot} has no stock bundle");
                continue;
            };
            assert_eq!(b.slot, slot);
            let files = b.files();
            let m = Manifest::from_bundle(&files).unwrap();
            assert_eq!(m.backend, Backend::Cuda);
            assert_eq!(m.target.id, slot.as_str());
            assert_eq!(m.ops.len(), 1);
            assert_eq!(m.ops[0].entry, slot.spec().c_name);
            assert!(m.ops[0].launch.is_some());
            crate::cuda::screen::screen_bundle(&files).unwrap();
        }
    }

    fn check_folder(backend: &str, bundles: &[StockBundle]) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("stock")
            .join(backend);
        let mut dirs: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        dirs.sort();
        let mut names: Vec<&str> = bundles.iter().map(|b| b.name).collect();
        names.sort();
        assert_eq!(dirs, names);
        for b in bundles {
            let on_disk = crate::bundle::read_dir(&root.join(b.name)).unwrap();
            let mut embedded = b.files();
            embedded.sort();
            assert_eq!(on_disk, embedded, "{}", b.name);
        }
    }

    #[test]
    fn embedded_files_match_the_stock_folder() {
        check_folder("cpu", &CPU);
        check_folder("cuda", &CUDA);
    }
}
