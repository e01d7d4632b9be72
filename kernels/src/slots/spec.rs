//! The slot registry's vocabulary: which slots there are ([`SlotId`]), what a slot's ABI
//! parameters are ([`Param`]), how its outputs are judged ([`Check`], [`Tolerance`]) and
//! everything the registry knows about one slot ([`SlotSpec`]). The table of every slot's
//! spec is in `table.rs`.

/// One of the engine's typed kernel boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SlotId {
    SiluAndMul,
    RmsNorm,
    FusedAddRmsNorm,
    Rope,
    AttentionDecode,
    LinearMatmul,
    AttentionPrefill,
    GateUpSilu,
    AllReduce,
    ArResidualRmsNorm,
    MoeFusedExperts,
}

/// How many slots the registry has.
pub const SLOT_COUNT: usize = 11;

impl SlotId {
    /// All slots, in registry order (`index()` is the position here).
    pub const ALL: [SlotId; SLOT_COUNT] = [
        SlotId::SiluAndMul,
        SlotId::RmsNorm,
        SlotId::FusedAddRmsNorm,
        SlotId::Rope,
        SlotId::AttentionDecode,
        SlotId::LinearMatmul,
        SlotId::AttentionPrefill,
        SlotId::GateUpSilu,
        SlotId::AllReduce,
        SlotId::ArResidualRmsNorm,
        SlotId::MoeFusedExperts,
    ];

    /// Position in [`SlotId::ALL`]; handy for per-slot arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which side of the call a parameter is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A tensor the kernel writes (allocated by the validator).
    Output,
    /// A tensor the kernel reads and must not change.
    Input,
    /// A `float` scalar.
    ScalarF32,
    /// An `int64_t` shape symbol.
    Shape,
}

/// Element type of a tensor parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// The arena's element type (`float` on CPU, `__nv_bfloat16` on CUDA).
    T,
    /// `int32_t`.
    I32,
}

/// One dimension of a tensor parameter: `factor * symbol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    pub factor: i64,
    pub symbol: &'static str,
}

/// One ABI parameter, in ABI order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    /// Element type for tensors; `None` for scalars and shape symbols.
    pub elem: Option<Elem>,
    /// Tensor dimensions (row-major, contiguous); empty for scalars and shape symbols.
    pub dims: &'static [Dim],
}

/// Element types a slot can be instantiated with (`bf16`, `f16`, `f32` in manifests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Bf16,
    F16,
    F32,
}

impl Dtype {
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::Bf16 => "bf16",
            Dtype::F16 => "f16",
            Dtype::F32 => "f32",
        }
    }

    /// The slot tolerance for this element type (DESIGN 5).
    pub fn tolerance(self) -> Tolerance {
        match self {
            Dtype::Bf16 => Tolerance {
                atol: 2e-2,
                rtol: 2e-2,
            },
            Dtype::F16 => Tolerance {
                atol: 1e-2,
                rtol: 1e-2,
            },
            Dtype::F32 => Tolerance {
                atol: 1e-5,
                rtol: 1e-5,
            },
        }
    }
}

/// `|actual - expected| <= atol + rtol * |expected|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

/// How a slot's outputs are judged against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Every element within tolerance.
    AllClose,
    /// At least `min_ppm` parts per million of the elements within tolerance.
    MatchedRatio { min_ppm: u32 },
}

/// Everything the registry knows about one slot.
#[derive(Debug)]
pub struct SlotSpec {
    pub slot: SlotId,
    /// Catalog id, e.g. `norm.rmsnorm`.
    pub id: &'static str,
    /// Function name used when rendering prototypes and by the stock kernels.
    pub c_name: &'static str,
    /// ABI parameters: outputs, inputs, scalars, shape symbols (DESIGN 5.1).
    pub params: &'static [Param],
    pub check: Check,
    /// Fixed verification shapes; each row gives a value per shape symbol, in ABI order.
    pub verification_shapes: &'static [&'static [i64]],
    /// For a fused seam, the slots whose calls it stands for, in the order the engine makes
    /// them. A seam has no stock kernel: where no kernel's domain takes a call, the engine
    /// makes the member calls instead (the seam's validator-owned builtin). Empty for a
    /// plain slot, which always has a stock kernel.
    pub seam_of: &'static [SlotId],
}

impl SlotSpec {
    /// The shape symbols, in ABI order.
    pub fn shape_symbols(&self) -> Vec<&'static str> {
        self.params_of(ParamKind::Shape).map(|p| p.name).collect()
    }

    /// Parameters of one kind, in ABI order.
    pub fn params_of(&self, kind: ParamKind) -> impl Iterator<Item = &'static Param> {
        self.params.iter().filter(move |p| p.kind == kind)
    }

    /// Element count of a tensor parameter under a shape (values in shape-symbol order).
    /// A count that overflows (shape values reported by a lane are not trusted) is
    /// `usize::MAX`, a length no buffer has.
    pub fn tensor_len(&self, param: &Param, shape: &[i64]) -> usize {
        param
            .dims
            .iter()
            .try_fold(1usize, |n, dim| {
                let at = self
                    .symbol_index(dim.symbol)
                    .expect("registry dims use the slot's own symbols");
                let d = dim.factor.checked_mul(shape[at])?.max(0);
                n.checked_mul(usize::try_from(d).ok()?)
            })
            .unwrap_or(usize::MAX)
    }

    /// The value of a shape symbol in `shape` (ABI order); panics on a symbol the slot
    /// does not have.
    pub fn shape_value(&self, shape: &[i64], symbol: &str) -> i64 {
        let at = self.symbol_index(symbol);
        shape[at.unwrap_or_else(|| panic!("{} has no shape symbol {symbol}", self.id))]
    }

    /// Where a shape symbol stands among the shape values (ABI order).
    pub fn symbol_index(&self, symbol: &str) -> Option<usize> {
        self.params_of(ParamKind::Shape)
            .position(|p| p.name == symbol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances() {
        assert_eq!(Dtype::Bf16.tolerance().atol, 2e-2);
        assert_eq!(Dtype::F16.tolerance().rtol, 1e-2);
        assert_eq!(Dtype::F32.tolerance().atol, 1e-5);
    }
}
