//! One call's arguments for any slot, laid out by the slot's ABI: output tensors, input
//! tensors, f32 scalars and shape values. Used to drive a kernel and the reference with
//! the same inputs.

use crate::slots::{Elem, ParamKind, SlotId};

/// An input tensor's contents.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    F32(Vec<f32>),
    I32(Vec<i32>),
}

impl Buffer {
    pub fn len(&self) -> usize {
        match self {
            Buffer::F32(v) => v.len(),
            Buffer::I32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Arguments of one slot call (CPU arena: `T = f32`).
#[derive(Clone, Debug)]
pub struct SlotArgs {
    pub slot: SlotId,
    /// One value per shape symbol, in ABI order.
    pub shape: Vec<i64>,
    /// One buffer per output parameter, in ABI order.
    pub outputs: Vec<Vec<f32>>,
    /// One buffer per input parameter, in ABI order.
    pub inputs: Vec<Buffer>,
    /// One value per f32 scalar parameter, in ABI order.
    pub scalars: Vec<f32>,
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
}

impl SlotArgs {
    /// Checks inputs against the ABI and allocates NaN-poisoned outputs.
    pub fn new(
        slot: SlotId,
        shape: Vec<i64>,
        inputs: Vec<Buffer>,
        scalars: Vec<f32>,
    ) -> Result<SlotArgs, ArgsError> {
        let spec = slot.spec();
        let symbols = spec.shape_symbols();
        let count = |what, expected, got| ArgsError::Count {
            slot,
            what,
            expected,
            got,
        };
        if shape.len() != symbols.len() {
            return Err(count("shape values", symbols.len(), shape.len()));
        }
        if let Some(i) = shape.iter().position(|&v| v < 0) {
            return Err(ArgsError::NegativeShape {
                slot,
                symbol: symbols[i],
            });
        }
        let n_scalars = spec.params_of(ParamKind::ScalarF32).count();
        if scalars.len() != n_scalars {
            return Err(count("scalars", n_scalars, scalars.len()));
        }
        let in_params: Vec<_> = spec.params_of(ParamKind::Input).collect();
        if inputs.len() != in_params.len() {
            return Err(count("inputs", in_params.len(), inputs.len()));
        }
        for (p, buf) in in_params.iter().zip(&inputs) {
            let expected = spec.tensor_len(p, &shape);
            if buf.len() != expected {
                let got = buf.len();
                return Err(ArgsError::Len {
                    slot,
                    param: p.name,
                    expected,
                    got,
                });
            }
            let elem_ok = matches!(
                (p.elem, buf),
                (Some(Elem::T), Buffer::F32(_)) | (Some(Elem::I32), Buffer::I32(_))
            );
            if !elem_ok {
                return Err(ArgsError::Elem {
                    slot,
                    param: p.name,
                });
            }
        }
        let mut args = SlotArgs {
            slot,
            shape,
            outputs: vec![],
            inputs,
            scalars,
        };
        args.outputs = args
            .output_lens()
            .into_iter()
            .map(|n| vec![f32::NAN; n])
            .collect();
        Ok(args)
    }

    /// Element counts of the output parameters, in ABI order.
    pub fn output_lens(&self) -> Vec<usize> {
        let spec = self.slot.spec();
        spec.params_of(ParamKind::Output)
            .map(|p| spec.tensor_len(p, &self.shape))
            .collect()
    }

    /// The value of a shape symbol; panics on a symbol the slot does not have.
    pub fn shape_value(&self, symbol: &str) -> i64 {
        let symbols = self.slot.spec().shape_symbols();
        let at = symbols.iter().position(|s| *s == symbol);
        self.shape[at.unwrap_or_else(|| panic!("{} has no shape symbol {symbol}", self.slot))]
    }

    /// Input `i` (ABI order among inputs) as f32; panics if it is an int32 tensor.
    pub fn input_f32(&self, i: usize) -> &[f32] {
        match &self.inputs[i] {
            Buffer::F32(v) => v,
            Buffer::I32(_) => panic!("input {i} of {} is int32", self.slot),
        }
    }

    /// Input `i` (ABI order among inputs) as int32; panics if it is a float tensor.
    pub fn input_i32(&self, i: usize) -> &[i32] {
        match &self.inputs[i] {
            Buffer::I32(v) => v,
            Buffer::F32(_) => panic!("input {i} of {} is float", self.slot),
        }
    }

    /// Fills every output with NaN, so an element the kernel does not write is caught.
    pub fn poison_outputs(&mut self) {
        for o in &mut self.outputs {
            o.fill(f32::NAN);
        }
    }
}
