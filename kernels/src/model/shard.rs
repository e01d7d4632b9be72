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
    if let Some(m) = &cfg.moe {
        if m.held.is_some() {
            return Err(EngineError::Config("the model is a shard already".into()));
        }
        if !m.num_local_experts.is_multiple_of(world) {
            return bad("num_local_experts", m.num_local_experts);
        }
    }
    Ok(ModelConfig {
        num_attention_heads: cfg.num_attention_heads / world,
        num_key_value_heads: Some(cfg.kv_heads() / world),
        intermediate_size: cfg.intermediate_size / world,
        head_dim: Some(cfg.head_dim()),
        ..cfg.clone()
    })
}

/// Rank `rank`'s config of a `world`-way split: [`local_config`], holding the `rank`-th
/// block of the experts (the router stays whole: every rank scores every expert).
fn rank_config(cfg: &ModelConfig, rank: usize, world: usize) -> Result<ModelConfig, EngineError> {
    let mut local = local_config(cfg, world)?;
    if let Some(m) = local.moe.as_mut() {
        let per = m.num_local_experts / world;
        m.held = Some((rank * per, per));
    }
    Ok(local)
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
    if rank >= world {
        return Err(EngineError::Config(format!(
            "rank {rank} is outside the world size {world}"
        )));
    }
    let local = rank_config(cfg, rank, world)?;
    w.check_shapes(cfg).map_err(EngineError::Weights)?;
    let (h, inter) = (cfg.hidden_size, cfg.intermediate_size);
    let (q_dim, kv_dim) = (cfg.q_dim(), cfg.kv_dim());
    let layers = w
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let attention = LayerWeights {
                input_layernorm: l.input_layernorm.clone(),
                q_proj: row_block(&l.q_proj, q_dim, h, rank, world),
                k_proj: row_block(&l.k_proj, kv_dim, h, rank, world),
                v_proj: row_block(&l.v_proj, kv_dim, h, rank, world),
                o_proj: col_block(&l.o_proj, h, q_dim, rank, world),
                post_attention_layernorm: l.post_attention_layernorm.clone(),
                router: l.router.clone(),
                gate_proj: vec![],
                up_proj: vec![],
                down_proj: vec![],
            };
            match &cfg.moe {
                // Experts are stacked expert by expert: a row block is a block of experts,
                // each whole (its MLP output is then a partial sum over the ranks, like a
                // dense MLP's down projection).
                Some(m) if cfg.is_moe_layer(i) => {
                    let (e, f) = (m.num_local_experts, m.moe_intermediate_size);
                    LayerWeights {
                        gate_proj: row_block(&l.gate_proj, e * f, h, rank, world),
                        up_proj: row_block(&l.up_proj, e * f, h, rank, world),
                        down_proj: row_block(&l.down_proj, e * h, f, rank, world),
                        ..attention
                    }
                }
                _ => LayerWeights {
                    gate_proj: row_block(&l.gate_proj, inter, h, rank, world),
                    up_proj: row_block(&l.up_proj, inter, h, rank, world),
                    down_proj: col_block(&l.down_proj, h, inter, rank, world),
                    ..attention
                },
            }
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
    fn expert_layers_split_by_whole_experts() {
        let cfg = ModelConfig::named("tiny-moe").unwrap();
        let w = Weights::synthesize(&cfg, 5);
        let (l1, s1) = shard(&cfg, &w, 1, 2).unwrap();
        let m = l1.moe.as_ref().unwrap();
        assert_eq!(m.held(), (4, 4));
        assert!(l1.is_moe_layer(1) && !l1.is_moe_layer(0));
        let (full, part) = (&w.layers[1], &s1.layers[1]);
        // The router is whole; experts 4..8 are the second half of every stack.
        assert_eq!(part.router, full.router);
        let half = full.gate_proj.len() / 2;
        assert_eq!(part.gate_proj, full.gate_proj[half..]);
        assert_eq!(part.down_proj, full.down_proj[full.down_proj.len() / 2..]);
        // The dense layer splits by features as in `tiny`.
        assert_eq!(
            s1.layers[0].gate_proj.len(),
            w.layers[0].gate_proj.len() / 2
        );
        assert!(shard(&l1, &s1, 0, 2).is_err(), "a shard is not split again");
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
