//! `attention.*`: a prompt's causal attention (prefill) and one query per sequence
//! (decode).

/// `attention.prefill`: causal attention of a prompt's `tokens` rows over one sequence's
/// caches `[kv_len, kv_heads, head_dim]`; row t is the one-row [`attention_decode`] over
/// the first `positions[t] + 1` cache rows (clamped to `[0, kv_len]`).
pub fn attention_prefill(
    out: &mut [f32],
    q: &[f32],
    k_cache: &[f32],
    v_cache: &[f32],
    positions: &[i32],
    scale: f32,
    [tokens, q_heads, kv_heads, head_dim, kv_len]: [usize; 5],
) {
    assert_eq!(positions.len(), tokens);
    let row = q_heads * head_dim;
    for (t, &pos) in positions.iter().enumerate() {
        let len = (pos.max(-1) as i64 + 1).min(kv_len as i64) as i32;
        attention_decode(
            &mut out[t * row..][..row],
            &q[t * row..][..row],
            k_cache,
            v_cache,
            &[len],
            scale,
            1,
            q_heads,
            kv_heads,
            head_dim,
            kv_len,
        );
    }
}

/// `attention.decode`: one query per sequence against its KV cache.
/// Cache layout `[batch, max_seq, kv_heads, head_dim]`; query head `h` reads KV head
/// `h / (q_heads / kv_heads)`; softmax over the first `seq_lens[b]` positions (clamped to
/// `[0, max_seq]`; an empty sequence gives zeros).
#[allow(clippy::too_many_arguments)]
pub fn attention_decode(
    out: &mut [f32],
    q: &[f32],
    k_cache: &[f32],
    v_cache: &[f32],
    seq_lens: &[i32],
    scale: f32,
    batch: usize,
    q_heads: usize,
    kv_heads: usize,
    head_dim: usize,
    max_seq: usize,
) {
    assert!(
        kv_heads > 0 && q_heads.is_multiple_of(kv_heads),
        "GQA needs q_heads.is_multiple_of(kv_heads)"
    );
    assert_eq!(out.len(), batch * q_heads * head_dim);
    assert_eq!(q.len(), out.len());
    assert_eq!(k_cache.len(), batch * max_seq * kv_heads * head_dim);
    assert_eq!(v_cache.len(), k_cache.len());
    assert_eq!(seq_lens.len(), batch);
    let group = q_heads / kv_heads;
    let mut scores = vec![0f64; max_seq];
    let mut acc = vec![0f64; head_dim];
    for b in 0..batch {
        let len = (seq_lens[b].max(0) as usize).min(max_seq);
        for h in 0..q_heads {
            let kvh = h / group;
            let qv = &q[(b * q_heads + h) * head_dim..][..head_dim];
            let at = |s: usize| ((b * max_seq + s) * kv_heads + kvh) * head_dim;
            for (s, score) in scores.iter_mut().enumerate().take(len) {
                let kv = &k_cache[at(s)..][..head_dim];
                let dot: f64 = qv.iter().zip(kv).map(|(&a, &c)| a as f64 * c as f64).sum();
                *score = dot * scale as f64;
            }
            let max = scores[..len]
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, f64::max);
            acc.fill(0.0);
            let mut denom = 0.0;
            for (s, &score) in scores.iter().enumerate().take(len) {
                let p = (score - max).exp();
                denom += p;
                let vv = &v_cache[at(s)..][..head_dim];
                for (a, &v) in acc.iter_mut().zip(vv) {
                    *a += p * v as f64;
                }
            }
            let o = &mut out[(b * q_heads + h) * head_dim..][..head_dim];
            for (o, &a) in o.iter_mut().zip(&acc) {
                *o = if len == 0 { 0.0 } else { (a / denom) as f32 };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_prefill_at_position_zero_returns_the_first_value_row() {
        // tokens 3, q_heads 4, kv_heads 2, head_dim 2, kv_len 3: every row sees key 0 only.
        let q: Vec<f32> = (0..3 * 4 * 2).map(|i| i as f32 * 0.37 - 2.0).collect();
        let k: Vec<f32> = (0..3 * 2 * 2).map(|i| i as f32).collect();
        let v: Vec<f32> = (0..3 * 2 * 2).map(|i| 10.0 + i as f32).collect();
        let mut out = vec![f32::NAN; q.len()];
        attention_prefill(&mut out, &q, &k, &v, &[0, 0, 0], 0.5, [3, 4, 2, 2, 3]);
        for t in 0..3 {
            for h in 0..4 {
                let kvh = h / 2;
                assert_eq!(
                    &out[(t * 4 + h) * 2..][..2],
                    &v[kvh * 2..][..2],
                    "t {t} h {h}"
                );
            }
        }
        // Row 1 at position 1 averages the first two value rows by their softmax weights.
        attention_prefill(&mut out, &q, &k, &v, &[0, 1, 0], 0.5, [3, 4, 2, 2, 3]);
        let (qv, k0, k1) = (&q[8..10], &k[0..2], &k[4..6]);
        let s = |kk: &[f32]| 0.5 * (qv[0] * kk[0] + qv[1] * kk[1]) as f64;
        let (a, b) = (s(k0).exp(), s(k1).exp());
        let want = (a * v[0] as f64 + b * v[4] as f64) / (a + b);
        assert!((out[8] as f64 - want).abs() < 1e-4, "{} vs {want}", out[8]);
    }

    #[test]
    fn attention_single_position_returns_value_and_respects_gqa() {
        // batch 1, q_heads 2, kv_heads 1, head_dim 2, max_seq 2, seq_len 1.
        let q = [1.0, 0.0, 0.0, 1.0];
        let k = [0.5, 0.5, 9.0, 9.0];
        let v = [2.0, -1.0, 100.0, 100.0];
        let mut out = [0f32; 4];
        attention_decode(&mut out, &q, &k, &v, &[1], 1.0, 1, 2, 1, 2, 2);
        assert_eq!(out, [2.0, -1.0, 2.0, -1.0]);
        // Two equal scores average the values.
        let k = [1.0, 1.0, 1.0, 1.0];
        attention_decode(&mut out, &q, &k, &v, &[2], 1.0, 1, 2, 1, 2, 2);
        assert_eq!(out, [51.0, 49.5, 51.0, 49.5]);
    }
}
