//! The model both engines run (DESIGN 7.2): a Llama-family decoder's shape
//! ([`ModelConfig`]: RMSNorm, RoPE, grouped-query attention, SwiGLU), its weights
//! (synthesized from a seed for a named shape, or read from safetensors with a Hugging Face
//! style `config.json`, or from a GGUF file with its tokenizer), greedy and seeded
//! sampling, what a prefill returns, and the routing of mixture-of-experts layers. The CPU
//! engine is [`crate::cpu::engine`], the CUDA one [`crate::cuda::engine`].

pub mod checkpoint;
pub mod config;
pub mod gguf;
pub mod llama_gguf;
pub mod moe;
pub mod sampler;
pub mod shard;
pub mod tokenizer;
pub mod weights;

pub use config::ModelConfig;
pub use sampler::Sampler;
pub use weights::{LayerWeights, Weights};

/// Which logits a prefill returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logits {
    /// Only the last token's: `[vocab]`.
    Last,
    /// Every token's: `[tokens, vocab]` (teacher forcing).
    All,
}

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
    #[error("a decode step takes 1 to {batch} tokens (one a sequence), got {got}")]
    BatchMismatch { batch: usize, got: usize },
    #[error("no tokens to run")]
    Empty,
    /// A tensor-parallel rank's exchange with the other ranks failed (one of them died,
    /// hung or failed first); the group is unusable after this.
    #[error("rank group: {0}")]
    Collective(String),
}
