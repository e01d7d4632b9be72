//! Tensor parallelism's split of the model over `world` ranks (Megatron style): rank `r`
//! keeps the `r`-th contiguous block of the query heads, of the KV heads and of the MLP's
//! intermediate features, so each rank's attention and MLP are a smaller model's, and the
//! o and down projections, which take those blocks as inputs, give per-rank partial sums
//! that an all-reduce adds up. Norms, embeddings and the LM head are replicated.
//!
//! A shard is the weights of the rank's local model, whose config [`local_config`]
//! describes (same hidden size, layers and vocabulary; `heads / world` query and KV heads
//! of the full head size; `intermediate / world` features), so the engine runs it as it
//! runs any model and adds the two all-reduces.

use super::config::ModelConfig;
use super::weights::{LayerWeights, Weights};
use super::EngineError;

/// The config of rank-local model of a `world`-way split, or why `cfg` cannot be split.
pub fn local_config(cfg: &ModelConfig, world: usize) -> Result<ModelConfig, EngineError> {
    cfg.validate()?;
    let bad = |what: &str, n: usize| {
        Err(EngineError::Config(format!(
            "{what} ({n}) must be a multiple of the world size {world}"
        )))
    };
    if world == 0 {
        return Err(EngineError::Config("world size must be positive".into()));
    }
    if !cfg.num_attention_heads.is_multiple_of(world) {
        return bad("num_attention_heads", cfg.num_attention_heads);
    }
    if !cfg.kv_heads().is_multiple_of(world) {
        return bad("num_key_value_heads", cfg.kv_heads());
    }
    if !cfg.intermediate_size.is_multiple_of(world) {
        return bad("intermediate_size", cfg.intermediate_size);
    }
    Ok(ModelConfig {
        num_attention_heads: cfg.num_attention_heads / world,
        num_key_value_heads: Some(cfg.kv_heads() / world),
        intermediate_size: cfg.intermediate_size / world,
        head_dim: Some(cfg.head_dim()),
        ..cfg.clone()
    })
}

/// Rows `[r * rows / world, (r + 1) * rows / world)` of a row-major `[rows, cols]` matrix.
fn row_block(m: &[f32], rows: usize, cols: usize, rank: usize, world: usize) -> Vec<f32> {
    let per = rows / world;
    m[rank * per * cols..(rank + 1) * per * cols].to_vec()
}

/// Columns `[r * cols / world, (r + 1) * cols / world)` of a row-major `[rows, cols]` matrix.
fn col_block(m: &[f32], rows: usize, cols: usize, rank: usize, world: usize) -> Vec<f32> {
    let per = cols / world;
    (0..rows)
        .flat_map(|i| &m[i * cols + rank * per..i * cols + (rank + 1) * per])
        .copied()
        .collect()
}

/// Rank `rank`'s shard of `w` (weights of `cfg`) in a `world`-way split, with the config
/// of the model it is.
pub fn shard(
    cfg: &ModelConfig,
    w: &Weights,
    rank: usize,
    world: usize,
) -> Result<(ModelConfig, Weights), EngineError> {
    let local = local_config(cfg, world)?;
    if rank >= world {
        return Err(EngineError::Config(format!(
            "rank {rank} is outside the world size {world}"
        )));
    }
    w.check_shapes(cfg).map_err(EngineError::Weights)?;
    let (h, inter) = (cfg.hidden_size, cfg.intermediate_size);
    let (q_dim, kv_dim) = (cfg.q_dim(), cfg.kv_dim());
    let layers = w
        .layers
        .iter()
        .map(|l| LayerWeights {
            input_layernorm: l.input_layernorm.clone(),
            q_proj: row_block(&l.q_proj, q_dim, h, rank, world),
            k_proj: row_block(&l.k_proj, kv_dim, h, rank, world),
            v_proj: row_block(&l.v_proj, kv_dim, h, rank, world),
            o_proj: col_block(&l.o_proj, h, q_dim, rank, world),
            post_attention_layernorm: l.post_attention_layernorm.clone(),
            gate_proj: row_block(&l.gate_proj, inter, h, rank, world),
            up_proj: row_block(&l.up_proj, inter, h, rank, world),
            down_proj: col_block(&l.down_proj, h, inter, rank, world),
        })
        .collect();
    let shard = Weights {
        embed_tokens: w.embed_tokens.clone(),
        layers,
        norm: w.norm.clone(),
        lm_head: w.lm_head.clone(),
    };
    shard.check_shapes(&local).map_err(EngineError::Weights)?;
    Ok((local, shard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_every_split_tensor_exactly_once() {
        let cfg = ModelConfig::named("tiny").unwrap();
        let w = Weights::synthesize(&cfg, 3);
        let (l0, s0) = shard(&cfg, &w, 0, 2).unwrap();
        let (_, s1) = shard(&cfg, &w, 1, 2).unwrap();
        assert_eq!(l0.num_attention_heads, 2);
        assert_eq!(l0.kv_heads(), 1);
        assert_eq!(l0.head_dim(), cfg.head_dim());
        assert_eq!(l0.intermediate_size, cfg.intermediate_size / 2);
        let (a, b, full) = (&s0.layers[1], &s1.layers[1], &w.layers[1]);
        // Row blocks stack back to the full matrix.
        assert_eq!([a.q_proj.clone(), b.q_proj.clone()].concat(), full.q_proj);
        assert_eq!(
            [a.gate_proj.clone(), b.gate_proj.clone()].concat(),
            full.gate_proj
        );
        // Column blocks sit side by side in every row.
        let qd = cfg.q_dim();
        for i in 0..cfg.hidden_size {
            let row = &full.o_proj[i * qd..(i + 1) * qd];
            assert_eq!(&row[..qd / 2], &a.o_proj[i * qd / 2..(i + 1) * qd / 2]);
            assert_eq!(&row[qd / 2..], &b.o_proj[i * qd / 2..(i + 1) * qd / 2]);
        }
        assert_eq!(s0.lm_head, w.lm_head);
    }

    #[test]
    fn splits_that_do_not_divide_are_refused() {
        let cfg = ModelConfig::named("tiny").unwrap(); // 4 heads, 2 KV heads
        let w = Weights::synthesize(&cfg, 3);
        for world in [0, 3, 4] {
            assert!(shard(&cfg, &w, 0, world).is_err(), "world {world}");
        }
        assert!(shard(&cfg, &w, 2, 2).is_err());
    }
}
