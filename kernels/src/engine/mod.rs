//! The engine the slots plug into (DESIGN 7.2): a Llama-family decoder (RMSNorm, RoPE,
//! grouped-query attention with a KV cache, SwiGLU MLP), f32 on CPU. It loads safetensors
//! weights with a Hugging Face style `config.json` or synthesizes them from a seed for a
//! named shape, and calls every slot through a [`SlotTable`] whose genesis contents are
//! the stock CPU bundles.

pub mod checkpoint;
pub mod config;
pub mod matmul;
pub mod model;
pub mod sampler;
pub mod slot_table;
pub mod weights;

pub use config::ModelConfig;
pub use model::{Engine, Logits};
pub use sampler::Sampler;
pub use slot_table::{CallPhase, DispatchCounts, SlotObserver, SlotTable, SlotTableError};
pub use weights::{LayerWeights, Weights};

/// Why the engine refused or failed a request.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EngineError {
    #[error("config: {0}")]
    Config(String),
    #[error("weights: {0}")]
    Weights(String),
    #[error("io: {0}")]
    Io(String),
    #[error("token {token} is outside the vocabulary of {vocab}")]
    TokenOutOfRange { token: u32, vocab: usize },
    #[error("sequence {seq} does not exist (batch {batch})")]
    NoSuchSequence { seq: usize, batch: usize },
    #[error("sequence {seq} would reach {len} positions, more than max_seq {max_seq}")]
    SequenceFull {
        seq: usize,
        len: usize,
        max_seq: usize,
    },
    #[error("decode needs one token per sequence ({batch}), got {got}")]
    BatchMismatch { batch: usize, got: usize },
    #[error("no tokens to run")]
    Empty,
}
