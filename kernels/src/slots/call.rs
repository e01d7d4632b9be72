//! One slot call as a kernel receives it, borrowed from whoever owns the buffers (the
//! engine's activations and weights, a verification case): input tensors, f32 scalars and
//! shape values, each in ABI order. Outputs travel beside it as `&mut [&mut [f32]]`, one
//! slice per output parameter. The engine, the CPU kernels and the audit's observer all
//! take this one type, so a slot's parameter list is written once, in the registry.

use std::cell::Cell;

use crate::slots::{Elem, Param, ParamKind, SlotId};

/// An input tensor, borrowed.
#[derive(Clone, Copy, Debug)]
pub enum Tensor<'a> {
    F32(&'a [f32]),
    /// An f32 input its owner lends in place: the kernel reads it as `const float *` like
    /// any other, and the referee may change a few of its elements for one probe call
    /// (`crate::slots::probe`) and puts them back before the real call. Cells, so writing
    /// through the shared borrow is Rust's own shared mutability, not a cast.
    F32InPlace(&'a [Cell<f32>]),
    I32(&'a [i32]),
}

/// `v` lent in place (see [`Tensor::F32InPlace`]): the engine's weights, caches and every
/// other f32 input after a call's first.
pub fn in_place(v: &mut [f32]) -> Tensor<'_> {
    Tensor::F32InPlace(Cell::from_mut(v).as_slice_of_cells())
}

impl Tensor<'_> {
    pub fn len(&self) -> usize {
        match self {
            Tensor::F32(v) => v.len(),
            Tensor::F32InPlace(v) => v.len(),
            Tensor::I32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of the first element (for the C call).
    pub fn as_ptr(&self) -> *const std::ffi::c_void {
        match self {
            Tensor::F32(v) => v.as_ptr().cast(),
            Tensor::F32InPlace(v) => v.as_ptr().cast(),
            Tensor::I32(v) => v.as_ptr().cast(),
        }
    }
}

/// Why a set of arguments does not fit its slot's ABI.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ArgsError {
    #[error("{slot}: expected {expected} {what}, got {got}")]
    Count {
        slot: SlotId,
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{slot}: parameter `{param}` needs {expected} elements, got {got}")]
    Len {
        slot: SlotId,
        param: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{slot}: parameter `{param}` has the wrong element type")]
    Elem { slot: SlotId, param: &'static str },
    #[error("{slot}: shape symbol `{symbol}` is negative")]
    NegativeShape { slot: SlotId, symbol: &'static str },
    #[error("{slot}: {reason}")]
    Invalid { slot: SlotId, reason: &'static str },
}

/// One call's inputs, scalars and shape values (ABI order).
#[derive(Clone, Copy, Debug)]
pub struct SlotCall<'a> {
    pub slot: SlotId,
    pub inputs: &'a [Tensor<'a>],
    pub scalars: &'a [f32],
    /// One value per shape symbol.
    pub shape: &'a [i64],
}

impl SlotCall<'_> {
    /// Checks the call against its slot's ABI: [`SlotCall::check_inputs`], and each
    /// output's length (`outputs`, in ABI order). A kernel is only ever handed buffers of
    /// exactly the sizes its shape implies.
    pub fn check(&self, outputs: &[usize]) -> Result<(), ArgsError> {
        self.check_inputs()?;
        let spec = self.slot.spec();
        let n_outputs = spec.params_of(ParamKind::Output).count();
        if outputs.len() != n_outputs {
            return Err(ArgsError::Count {
                slot: self.slot,
                what: "outputs",
                expected: n_outputs,
                got: outputs.len(),
            });
        }
        for (p, &got) in spec.params_of(ParamKind::Output).zip(outputs) {
            self.check_len(p, got)?;
        }
        Ok(())
    }

    /// Checks everything but the outputs: the number of shape values, scalars and inputs,
    /// each input's element type and length, and what the slot's math needs of its shape
    /// and index inputs.
    pub fn check_inputs(&self) -> Result<(), ArgsError> {
        let slot = self.slot;
        let spec = slot.spec();
        let count = |what, expected, got| ArgsError::Count {
            slot,
            what,
            expected,
            got,
        };
        let n_symbols = spec.params_of(ParamKind::Shape).count();
        if self.shape.len() != n_symbols {
            return Err(count("shape values", n_symbols, self.shape.len()));
        }
        if let Some(p) = spec
            .params_of(ParamKind::Shape)
            .zip(self.shape)
            .find_map(|(p, &v)| (v < 0).then_some(p))
        {
            return Err(ArgsError::NegativeShape {
                slot,
                symbol: p.name,
            });
        }
        let n_scalars = spec.params_of(ParamKind::ScalarF32).count();
        if self.scalars.len() != n_scalars {
            return Err(count("scalars", n_scalars, self.scalars.len()));
        }
        let n_inputs = spec.params_of(ParamKind::Input).count();
        if self.inputs.len() != n_inputs {
            return Err(count("inputs", n_inputs, self.inputs.len()));
        }
        for (p, t) in spec.params_of(ParamKind::Input).zip(self.inputs) {
            self.check_len(p, t.len())?;
            let elem_ok = matches!(
                (p.elem, t),
                (Some(Elem::T), Tensor::F32(_) | Tensor::F32InPlace(_))
                    | (Some(Elem::I32), Tensor::I32(_))
            );
            if !elem_ok {
                return Err(ArgsError::Elem {
                    slot,
                    param: p.name,
                });
            }
        }
        self.check_math()
    }

    fn check_len(&self, p: &Param, got: usize) -> Result<(), ArgsError> {
        let expected = self.slot.spec().tensor_len(p, self.shape);
        if got != expected {
            return Err(ArgsError::Len {
                slot: self.slot,
                param: p.name,
                expected,
                got,
            });
        }
        Ok(())
    }

    /// What a slot's math needs beyond buffer sizes: an even head dimension for rotate-half
    /// RoPE, whole query-head groups and cache lengths (or positions) within the cache for
    /// attention.
    fn check_math(&self) -> Result<(), ArgsError> {
        let invalid = |reason: &'static str| {
            Err(ArgsError::Invalid {
                slot: self.slot,
                reason,
            })
        };
        match self.slot {
            SlotId::Rope if self.shape_value("head_dim") % 2 != 0 => {
                invalid("head_dim must be even (rotate-half)")
            }
            SlotId::AttentionDecode => {
                let (q_heads, kv_heads) =
                    (self.shape_value("q_heads"), self.shape_value("kv_heads"));
                if kv_heads == 0 || q_heads % kv_heads != 0 {
                    return invalid("q_heads must be a multiple of kv_heads > 0");
                }
                let max_seq = self.shape_value("max_seq");
                let Some(Tensor::I32(lens)) = self.input("seq_lens") else {
                    unreachable!("element types checked above")
                };
                if lens.iter().any(|&l| l < 0 || l as i64 > max_seq) {
                    return invalid("seq_lens must lie in [0, max_seq]");
                }
                Ok(())
            }
            SlotId::AttentionPrefill => {
                let (q_heads, kv_heads) =
                    (self.shape_value("q_heads"), self.shape_value("kv_heads"));
                if kv_heads == 0 || q_heads % kv_heads != 0 {
                    return invalid("q_heads must be a multiple of kv_heads > 0");
                }
                let kv_len = self.shape_value("kv_len");
                let Some(Tensor::I32(pos)) = self.input("positions") else {
                    unreachable!("element types checked above")
                };
                if pos.iter().any(|&p| p < 0 || p as i64 >= kv_len) {
                    return invalid("positions must lie in [0, kv_len)");
                }
                Ok(())
            }
            SlotId::AllReduce | SlotId::ArResidualRmsNorm => {
                let (world, rank) = (self.shape_value("world"), self.shape_value("rank"));
                if world < 1 || rank < 0 || rank >= world {
                    return invalid("rank must lie in [0, world), world at least 1");
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The value of a shape symbol; panics on a symbol the slot does not have.
    pub fn shape_value(&self, symbol: &str) -> i64 {
        self.slot.spec().shape_value(self.shape, symbol)
    }

    /// The input parameter called `name`.
    pub fn input(&self, name: &str) -> Option<Tensor<'_>> {
        let at = self
            .slot
            .spec()
            .params_of(ParamKind::Input)
            .position(|p| p.name == name)?;
        self.inputs.get(at).copied()
    }
}
