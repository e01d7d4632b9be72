//! `position.*`: rotary position embedding.

/// Rotate-half RoPE of one head vector: pairs `(i, i + D/2)`,
/// `inv_freq = theta^(-2i/D)`, `angle = pos * inv_freq`.
fn rope_head(out: &mut [f32], x: &[f32], pos: i32, theta: f32) {
    let dim = x.len();
    let half = dim / 2;
    for i in 0..half {
        let inv_freq = (theta as f64).powf(-2.0 * i as f64 / dim as f64);
        let angle = pos as f64 * inv_freq;
        let (sin, cos) = angle.sin_cos();
        let x1 = x[i] as f64;
        let x2 = x[i + half] as f64;
        out[i] = (x1 * cos - x2 * sin) as f32;
        out[i + half] = (x2 * cos + x1 * sin) as f32;
    }
}

/// `position.rope`: rotate-half RoPE applied to every head of `q` and `k`.
#[allow(clippy::too_many_arguments)]
pub fn rope(
    q_out: &mut [f32],
    k_out: &mut [f32],
    q: &[f32],
    k: &[f32],
    positions: &[i32],
    theta: f32,
    tokens: usize,
    q_heads: usize,
    kv_heads: usize,
    head_dim: usize,
) {
    assert_eq!(head_dim % 2, 0, "rotate-half RoPE needs an even head_dim");
    assert_eq!(q.len(), tokens * q_heads * head_dim);
    assert_eq!(k.len(), tokens * kv_heads * head_dim);
    assert_eq!(q_out.len(), q.len());
    assert_eq!(k_out.len(), k.len());
    assert_eq!(positions.len(), tokens);
    for (src, dst, heads) in [(q, q_out, q_heads), (k, k_out, kv_heads)] {
        for (t, &pos) in positions.iter().enumerate() {
            for h in 0..heads {
                let at = (t * heads + h) * head_dim;
                let span = at..at + head_dim;
                rope_head(&mut dst[span.clone()], &src[span], pos, theta);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rope_at_position_zero_is_identity_and_preserves_norm() {
        let q: Vec<f32> = (0..8).map(|i| i as f32 - 3.5).collect();
        let k = q.clone();
        let (mut qo, mut ko) = (vec![0f32; 8], vec![0f32; 8]);
        rope(&mut qo, &mut ko, &q, &k, &[0], 10000.0, 1, 1, 1, 8);
        assert_eq!(qo, q);
        rope(&mut qo, &mut ko, &q, &k, &[37], 10000.0, 1, 1, 1, 8);
        let n = |v: &[f32]| v.iter().map(|&a| a as f64 * a as f64).sum::<f64>();
        assert!((n(&qo) - n(&q)).abs() < 1e-4);
        // Pair (0, 4) rotates by 37 rad exactly.
        let (s, c) = 37f64.sin_cos();
        assert!((qo[0] as f64 - (-3.5 * c - 0.5 * s)).abs() < 1e-6);
    }
}
