//! One call's arguments for any slot, laid out by the slot's ABI: output tensors, input
//! tensors, f32 scalars and shape values. Used to drive a kernel and the reference with
//! the same inputs.

use std::cell::Cell;

pub use crate::slots::call::ArgsError;
use crate::slots::call::{SlotCall, Tensor};
use crate::slots::{Dtype, ParamKind, SlotId};

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

    /// Whether two buffers hold the same bits (NaN payloads included).
    pub fn same_bits(&self, other: &Buffer) -> bool {
        match (self, other) {
            (Buffer::F32(x), Buffer::F32(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
            }
            (Buffer::I32(x), Buffer::I32(y)) => x == y,
            _ => false,
        }
    }
}

/// Indices of the inputs whose bits differ between `before` and `after` a call (ABI
/// order): a kernel may not write its inputs.
pub fn changed_inputs(before: &[Buffer], after: &[Buffer]) -> Vec<usize> {
    before
        .iter()
        .zip(after)
        .enumerate()
        .filter(|(_, (a, b))| !a.same_bits(b))
        .map(|(i, _)| i)
        .collect()
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

impl SlotArgs {
    /// Checks inputs against the ABI ([`SlotCall::check_inputs`]) and allocates
    /// NaN-poisoned outputs.
    pub fn new(
        slot: SlotId,
        shape: Vec<i64>,
        inputs: Vec<Buffer>,
        scalars: Vec<f32>,
    ) -> Result<SlotArgs, ArgsError> {
        let tensors: Vec<Tensor> = inputs.iter().map(Buffer::as_tensor).collect();
        SlotCall {
            slot,
            inputs: &tensors,
            scalars: &scalars,
            shape: &shape,
        }
        .check_inputs()?;
        let mut args = SlotArgs {
            slot,
            shape,
            outputs: Vec::new(),
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

    /// Runs `f` on the call these arguments make (inputs, scalars and shape; the
    /// outputs stay here).
    pub fn with_call<R>(&self, f: impl FnOnce(&SlotCall<'_>) -> R) -> R {
        let tensors: Vec<Tensor> = self.inputs.iter().map(Buffer::as_tensor).collect();
        f(&SlotCall {
            slot: self.slot,
            inputs: &tensors,
            scalars: &self.scalars,
            shape: &self.shape,
        })
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
        self.slot.spec().shape_value(&self.shape, symbol)
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

    /// Rounds every float input to `dtype` (round to nearest even) in place: the values a
    /// kernel of that element type actually receives. Running the reference on the rounded
    /// inputs then compares the kernel with the exact function of what it saw.
    pub fn round_inputs(&mut self, dtype: Dtype) {
        for b in &mut self.inputs {
            if let Buffer::F32(v) = b {
                round_slice(v, dtype);
            }
        }
    }

    /// The call restricted to some rows of its leading shape symbol (`tokens` or `batch`):
    /// every tensor whose first dimension is that symbol keeps only those rows (in the
    /// given order); the others (weights) are kept whole. Outputs are fresh and poisoned.
    /// Used to check a sub-sample of a large call against the reference.
    pub fn select_rows(&self, rows: &[usize]) -> SlotArgs {
        let spec = self.slot.spec();
        let mut shape = self.shape.clone();
        shape[0] = rows.len() as i64;
        let inputs = spec
            .params_of(ParamKind::Input)
            .zip(&self.inputs)
            .map(|(p, buf)| {
                let len = buf.len();
                match buf {
                    Buffer::F32(v) => Buffer::F32(self.take_rows(p, v, len, rows)),
                    Buffer::I32(v) => Buffer::I32(self.take_rows(p, v, len, rows)),
                }
            })
            .collect();
        SlotArgs::new(self.slot, shape, inputs, self.scalars.clone())
            .expect("a row selection of valid arguments is valid")
    }

    /// Rows `rows` of output `index` (ABI order among outputs), taken from `flat`, a whole
    /// output of this call: the part [`SlotArgs::select_rows`] would compute.
    pub fn output_rows(&self, index: usize, flat: &[f32], rows: &[usize]) -> Vec<f32> {
        let spec = self.slot.spec();
        let p = spec
            .params_of(ParamKind::Output)
            .nth(index)
            .expect("output index within the ABI");
        self.take_rows(p, flat, flat.len(), rows)
    }

    fn take_rows<T: Copy>(
        &self,
        p: &crate::slots::Param,
        v: &[T],
        len: usize,
        rows: &[usize],
    ) -> Vec<T> {
        let leading = self.slot.spec().shape_symbols()[0];
        let lead = self.shape[0].max(0) as usize;
        if p.dims
            .first()
            .is_none_or(|d| d.symbol != leading || d.factor != 1)
            || lead == 0
        {
            return v.to_vec();
        }
        let row = len / lead;
        rows.iter()
            .flat_map(|&r| v[r * row..(r + 1) * row].iter().copied())
            .collect()
    }

    /// Fills every output with NaN, so an element the kernel does not write is caught.
    pub fn poison_outputs(&mut self) {
        for o in &mut self.outputs {
            o.fill(f32::NAN);
        }
    }
}

/// Rounds values to `dtype` in place (round to nearest even; NaN stays NaN).
pub fn round_slice(v: &mut [f32], dtype: Dtype) {
    match dtype {
        Dtype::Bf16 => v
            .iter_mut()
            .for_each(|x| *x = half::bf16::from_f32(*x).to_f32()),
        Dtype::F16 => v
            .iter_mut()
            .for_each(|x| *x = half::f16::from_f32(*x).to_f32()),
        Dtype::F32 => {}
    }
}

impl Buffer {
    /// The buffer as a call argument.
    pub fn as_tensor(&self) -> Tensor<'_> {
        match self {
            Buffer::F32(v) => Tensor::F32(v),
            Buffer::I32(v) => Tensor::I32(v),
        }
    }
}

impl Tensor<'_> {
    /// An owned copy.
    pub fn to_buffer(&self) -> Buffer {
        match self {
            Tensor::F32(v) => Buffer::F32(v.to_vec()),
            Tensor::F32InPlace(v) => Buffer::F32(v.iter().map(Cell::get).collect()),
            Tensor::I32(v) => Buffer::I32(v.to_vec()),
        }
    }
}

impl SlotCall<'_> {
    /// An owned copy of the call with fresh NaN-poisoned outputs, for the reference.
    pub fn to_args(&self) -> Result<SlotArgs, ArgsError> {
        let inputs = self.inputs.iter().map(Tensor::to_buffer).collect();
        SlotArgs::new(
            self.slot,
            self.shape.to_vec(),
            inputs,
            self.scalars.to_vec(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::cases;

    #[test]
    fn round_inputs_rounds_floats_only() {
        let mut a = cases::generate(SlotId::Rope, &[3, 2, 1, 8], 7);
        let before = a.inputs.clone();
        a.round_inputs(Dtype::Bf16);
        assert_eq!(a.inputs[2], before[2], "positions are integers");
        let q = a.input_f32(0);
        assert!(q.iter().all(|&x| half::bf16::from_f32(x).to_f32() == x));
        assert_ne!(a.inputs[0], before[0]);
    }

    #[test]
    fn select_rows_keeps_weights_and_slices_rows() {
        let a = cases::generate(SlotId::RmsNorm, &[5, 3], 1);
        let s = a.select_rows(&[4, 0]);
        assert_eq!(s.shape, vec![2, 3]);
        assert_eq!(&s.input_f32(0)[..3], &a.input_f32(0)[12..15]);
        assert_eq!(&s.input_f32(0)[3..], &a.input_f32(0)[..3]);
        assert_eq!(s.input_f32(1), a.input_f32(1), "w is kept whole");
        let expected_full = crate::slots::reference::compute(&a);
        let expected_sub = crate::slots::reference::compute(&s);
        assert_eq!(
            a.output_rows(0, &expected_full[0], &[4, 0]),
            expected_sub[0]
        );

        let b = cases::generate(SlotId::AttentionDecode, &[3, 4, 2, 8, 5], 2);
        let s = b.select_rows(&[2]);
        assert_eq!(s.input_i32(3), &b.input_i32(3)[2..3]);
        assert_eq!(s.input_f32(1).len(), 5 * 2 * 8);
        let full = crate::slots::reference::compute(&b);
        let sub = crate::slots::reference::compute(&s);
        assert_eq!(b.output_rows(0, &full[0], &[2]), sub[0]);

        let c = cases::generate(SlotId::AttentionPrefill, &[6, 4, 2, 8, 9], 3);
        let s = c.select_rows(&[5, 1]);
        let pos = c.input_i32(3);
        assert_eq!(s.input_i32(3), &[pos[5], pos[1]]);
        assert_eq!(s.input_f32(1), c.input_f32(1), "the caches are kept whole");
        let full = crate::slots::reference::compute(&c);
        let sub = crate::slots::reference::compute(&s);
        assert_eq!(c.output_rows(0, &full[0], &[5, 1]), sub[0]);
    }
}
