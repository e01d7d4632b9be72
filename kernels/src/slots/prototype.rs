//! A slot's ABI rendered as a C or CUDA prototype (DESIGN 5.1).

use super::spec::{Elem, ParamKind, SlotId, SlotSpec};

/// Renders the C prototype of a slot for the CPU arena (`T = float`), e.g.
/// `void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d)`.
/// `name` overrides the function name (a bundle's entry).
pub fn c_prototype(slot: SlotId, name: Option<&str>) -> String {
    let spec = slot.spec();
    let name = name.unwrap_or(spec.c_name);
    format!("void {name}({})", render_params(spec, "float"))
}

/// Renders the CUDA prototype of a slot for the CUDA arena (`T = __nv_bfloat16`).
pub fn cuda_prototype(slot: SlotId, name: Option<&str>) -> String {
    let spec = slot.spec();
    let name = name.unwrap_or(spec.c_name);
    format!(
        "extern \"C\" __global__ void {name}({})",
        render_params(spec, "__nv_bfloat16")
    )
}

fn render_params(spec: &SlotSpec, t: &str) -> String {
    let rendered: Vec<String> = spec
        .params
        .iter()
        .map(|p| {
            let elem = match p.elem {
                Some(Elem::T) => t,
                Some(Elem::I32) => "int32_t",
                None => "",
            };
            match p.kind {
                ParamKind::Output => format!("{elem}* {}", p.name),
                ParamKind::Input => format!("const {elem}* {}", p.name),
                ParamKind::ScalarF32 => format!("float {}", p.name),
                ParamKind::Shape => format!("int64_t {}", p.name),
            }
        })
        .collect();
    rendered.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prototypes_match_design_5_1() {
        assert_eq!(
            c_prototype(SlotId::SiluAndMul, None),
            "void silu_and_mul(float* out, const float* x, int64_t tokens, int64_t d)"
        );
        assert_eq!(
            c_prototype(SlotId::FusedAddRmsNorm, Some("f")),
            "void f(float* out_norm, float* out_residual, const float* x, \
             const float* residual, const float* w, float eps, int64_t tokens, int64_t hidden)"
        );
        assert_eq!(
            c_prototype(SlotId::Rope, None),
            "void rope(float* q_out, float* k_out, const float* q, const float* k, \
             const int32_t* positions, float theta, int64_t tokens, int64_t q_heads, \
             int64_t kv_heads, int64_t head_dim)"
        );
        assert_eq!(
            cuda_prototype(SlotId::AttentionDecode, None),
            "extern \"C\" __global__ void attention_decode(__nv_bfloat16* out, \
             const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, \
             const int32_t* seq_lens, float scale, int64_t batch, int64_t q_heads, \
             int64_t kv_heads, int64_t head_dim, int64_t max_seq)"
        );
    }
}
