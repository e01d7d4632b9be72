//! Shared test helpers: the stock CPU kernels are built once per test binary; bundle
//! manifests are written by [`manifest::Manifest`].
#![allow(dead_code)] // each test binary uses a different subset

pub mod manifest;

use std::sync::OnceLock;

use cacheon_kernels::bundle::stock;
use cacheon_kernels::cpu::engine::{Engine, SlotTable};
use cacheon_kernels::model::{ModelConfig, Weights};
use cacheon_kernels::{build_cpu_bundle, CpuBuildOptions, CpuKernel};

pub fn stock_kernels() -> Vec<CpuKernel> {
    static KERNELS: OnceLock<Vec<CpuKernel>> = OnceLock::new();
    KERNELS
        .get_or_init(|| {
            let opts = CpuBuildOptions::default();
            stock::cpu_bundles()
                .iter()
                .flat_map(|b| {
                    let built = build_cpu_bundle(&b.files(), b.name, &opts).expect("stock builds");
                    built.kernels().to_vec()
                })
                .collect()
        })
        .clone()
}

pub fn genesis_table() -> SlotTable {
    SlotTable::new(stock_kernels()).expect("one stock kernel per slot")
}

pub fn tiny() -> (ModelConfig, Weights) {
    let cfg = ModelConfig::named("tiny").unwrap();
    let w = Weights::synthesize(&cfg, 42);
    (cfg, w)
}

pub fn tiny_engine(batch: usize, max_seq: usize) -> Engine {
    let (cfg, w) = tiny();
    Engine::new(cfg, w, genesis_table(), batch, max_seq).unwrap()
}

pub const PROMPT: [u32; 7] = [1, 17, 255, 3, 511, 42, 9];
