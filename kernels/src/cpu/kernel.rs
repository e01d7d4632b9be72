//! A loaded CPU kernel: the entry symbol of a built bundle, typed by its slot.
//!
//! Each call checks the slot and every buffer length against the ABI before crossing into
//! C, so the kernel is only ever handed buffers of exactly the sizes its shape implies.
//! Beyond that, safety rests on the kernel honouring its ABI (write only its outputs,
//! return); candidate kernels therefore run only in lane-runner processes (DESIGN 7.1).

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Arc;

use libloading::os::unix::Library;

use crate::bundle::manifest::Domain;
use crate::slots::args::{Buffer, SlotArgs};
use crate::slots::SlotId;

pub type SiluAndMulFn = unsafe extern "C" fn(*mut f32, *const f32, i64, i64);
pub type RmsNormFn = unsafe extern "C" fn(*mut f32, *const f32, *const f32, f32, i64, i64);
pub type FusedAddRmsNormFn =
    unsafe extern "C" fn(*mut f32, *mut f32, *const f32, *const f32, *const f32, f32, i64, i64);
pub type RopeFn = unsafe extern "C" fn(
    *mut f32,
    *mut f32,
    *const f32,
    *const f32,
    *const i32,
    f32,
    i64,
    i64,
    i64,
    i64,
);
pub type AttentionDecodeFn = unsafe extern "C" fn(
    *mut f32,
    *const f32,
    *const f32,
    *const f32,
    *const i32,
    f32,
    i64,
    i64,
    i64,
    i64,
    i64,
);

/// A kernel resolved from a loaded shared library; keeps the library alive.
#[derive(Clone)]
pub struct CpuKernel {
    slot: SlotId,
    entry: String,
    origin: String,
    /// The op's `when` domain (empty: every shape).
    when: BTreeMap<String, Domain>,
    addr: *const c_void,
    _lib: Arc<Library>,
}

// SAFETY: the address is immutable code in a library kept alive by the Arc; the stock and
// candidate kernels are plain functions with no thread affinity.
unsafe impl Send for CpuKernel {}
unsafe impl Sync for CpuKernel {}

impl std::fmt::Debug for CpuKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuKernel")
            .field("slot", &self.slot)
            .field("entry", &self.entry)
            .field("origin", &self.origin)
            .finish()
    }
}

fn len_ok(slot: SlotId, name: &str, got: usize, expected: usize) {
    assert_eq!(
        got, expected,
        "{slot}: `{name}` has {got} elements, the shape needs {expected}"
    );
}

/// Product of dimensions; a shape whose element count overflows is a caller bug.
fn n(dims: &[usize]) -> usize {
    dims.iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b))
        .expect("shape element count overflows usize")
}

fn i(v: usize) -> i64 {
    i64::try_from(v).expect("shape fits in int64_t")
}

impl CpuKernel {
    /// Wraps a resolved symbol. The caller promises `addr` is `entry` in `lib` and that the
    /// bundle's manifest declares it as `slot`'s kernel.
    pub(crate) fn new(
        slot: SlotId,
        entry: String,
        origin: String,
        when: BTreeMap<String, Domain>,
        addr: *const c_void,
        lib: Arc<Library>,
    ) -> Self {
        CpuKernel {
            slot,
            entry,
            origin,
            when,
            addr,
            _lib: lib,
        }
    }

    pub fn slot(&self) -> SlotId {
        self.slot
    }

    /// The entry symbol's name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// Where the kernel came from (a stock bundle's name, a proposal, a folder).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether a call with these shape values (ABI order) is inside the op's `when` domain.
    pub fn accepts(&self, shape: &[i64]) -> bool {
        crate::bundle::manifest::in_domain(self.slot, &self.when, shape)
    }

    fn expect_slot(&self, slot: SlotId) {
        assert_eq!(
            self.slot, slot,
            "kernel `{}` is for {}, called as {slot}",
            self.entry, self.slot
        );
    }

    /// `activation.silu_and_mul`.
    pub fn silu_and_mul(&self, out: &mut [f32], x: &[f32], tokens: usize, d: usize) {
        let slot = SlotId::SiluAndMul;
        self.expect_slot(slot);
        len_ok(slot, "out", out.len(), n(&[tokens, d]));
        len_ok(slot, "x", x.len(), n(&[tokens, 2, d]));
        // SAFETY: slot and lengths checked; the symbol has this slot's ABI.
        unsafe {
            let f: SiluAndMulFn = std::mem::transmute(self.addr);
            f(out.as_mut_ptr(), x.as_ptr(), i(tokens), i(d));
        }
    }

    /// `norm.rmsnorm`.
    pub fn rmsnorm(
        &self,
        out: &mut [f32],
        x: &[f32],
        w: &[f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    ) {
        let slot = SlotId::RmsNorm;
        self.expect_slot(slot);
        len_ok(slot, "out", out.len(), n(&[tokens, hidden]));
        len_ok(slot, "x", x.len(), n(&[tokens, hidden]));
        len_ok(slot, "w", w.len(), hidden);
        // SAFETY: slot and lengths checked; the symbol has this slot's ABI.
        unsafe {
            let f: RmsNormFn = std::mem::transmute(self.addr);
            f(
                out.as_mut_ptr(),
                x.as_ptr(),
                w.as_ptr(),
                eps,
                i(tokens),
                i(hidden),
            );
        }
    }

    /// `norm.fused_add_rmsnorm`.
    #[allow(clippy::too_many_arguments)]
    pub fn fused_add_rmsnorm(
        &self,
        out_norm: &mut [f32],
        out_residual: &mut [f32],
        x: &[f32],
        residual: &[f32],
        w: &[f32],
        eps: f32,
        tokens: usize,
        hidden: usize,
    ) {
        let slot = SlotId::FusedAddRmsNorm;
        self.expect_slot(slot);
        for (name, len) in [
            ("out_norm", out_norm.len()),
            ("out_residual", out_residual.len()),
        ] {
            len_ok(slot, name, len, n(&[tokens, hidden]));
        }
        len_ok(slot, "x", x.len(), n(&[tokens, hidden]));
        len_ok(slot, "residual", residual.len(), n(&[tokens, hidden]));
        len_ok(slot, "w", w.len(), hidden);
        // SAFETY: slot and lengths checked; the symbol has this slot's ABI.
        unsafe {
            let f: FusedAddRmsNormFn = std::mem::transmute(self.addr);
            f(
                out_norm.as_mut_ptr(),
                out_residual.as_mut_ptr(),
                x.as_ptr(),
                residual.as_ptr(),
                w.as_ptr(),
                eps,
                i(tokens),
                i(hidden),
            );
        }
    }

    /// `position.rope`.
    #[allow(clippy::too_many_arguments)]
    pub fn rope(
        &self,
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
        let slot = SlotId::Rope;
        self.expect_slot(slot);
        len_ok(slot, "q_out", q_out.len(), n(&[tokens, q_heads, head_dim]));
        len_ok(slot, "k_out", k_out.len(), n(&[tokens, kv_heads, head_dim]));
        len_ok(slot, "q", q.len(), n(&[tokens, q_heads, head_dim]));
        len_ok(slot, "k", k.len(), n(&[tokens, kv_heads, head_dim]));
        len_ok(slot, "positions", positions.len(), tokens);
        assert!(head_dim.is_multiple_of(2), "{slot}: head_dim must be even");
        // SAFETY: slot and lengths checked; the symbol has this slot's ABI.
        unsafe {
            let f: RopeFn = std::mem::transmute(self.addr);
            f(
                q_out.as_mut_ptr(),
                k_out.as_mut_ptr(),
                q.as_ptr(),
                k.as_ptr(),
                positions.as_ptr(),
                theta,
                i(tokens),
                i(q_heads),
                i(kv_heads),
                i(head_dim),
            );
        }
    }

    /// `attention.decode`.
    #[allow(clippy::too_many_arguments)]
    pub fn attention_decode(
        &self,
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
        let slot = SlotId::AttentionDecode;
        self.expect_slot(slot);
        assert!(
            kv_heads > 0 && q_heads.is_multiple_of(kv_heads),
            "{slot}: q_heads % kv_heads != 0"
        );
        len_ok(slot, "out", out.len(), n(&[batch, q_heads, head_dim]));
        len_ok(slot, "q", q.len(), n(&[batch, q_heads, head_dim]));
        len_ok(
            slot,
            "k_cache",
            k_cache.len(),
            n(&[batch, max_seq, kv_heads, head_dim]),
        );
        len_ok(
            slot,
            "v_cache",
            v_cache.len(),
            n(&[batch, max_seq, kv_heads, head_dim]),
        );
        len_ok(slot, "seq_lens", seq_lens.len(), batch);
        assert!(
            seq_lens.iter().all(|&l| l >= 0 && l as usize <= max_seq),
            "{slot}: seq_lens must lie in [0, max_seq]"
        );
        // SAFETY: slot and lengths checked; the symbol has this slot's ABI.
        unsafe {
            let f: AttentionDecodeFn = std::mem::transmute(self.addr);
            f(
                out.as_mut_ptr(),
                q.as_ptr(),
                k_cache.as_ptr(),
                v_cache.as_ptr(),
                seq_lens.as_ptr(),
                scale,
                i(batch),
                i(q_heads),
                i(kv_heads),
                i(head_dim),
                i(max_seq),
            );
        }
    }

    /// Calls the kernel on a whole argument set, writing `args.outputs`.
    pub fn call(&self, args: &mut SlotArgs) {
        let mut outputs = std::mem::take(&mut args.outputs);
        {
            let mut views: Vec<&mut [f32]> = outputs.iter_mut().map(|o| o.as_mut_slice()).collect();
            self.call_into(args, &mut views);
        }
        args.outputs = outputs;
    }

    /// Calls the kernel with `args`' inputs, scalars and shape, writing into `outputs` (one
    /// slice per output parameter, ABI order, exact lengths). The slices may live inside
    /// larger buffers: the verifier surrounds them with guard bands.
    pub fn call_into(&self, args: &SlotArgs, outputs: &mut [&mut [f32]]) {
        self.expect_slot(args.slot);
        let SlotArgs {
            shape,
            inputs,
            scalars,
            ..
        } = args;
        let s: Vec<usize> = shape
            .iter()
            .map(|&v| usize::try_from(v).expect("shape values are non-negative"))
            .collect();
        let sc = &scalars[..];
        let f = |i: usize| match &inputs[i] {
            Buffer::F32(v) => v.as_slice(),
            Buffer::I32(_) => panic!("input {i} is int32"),
        };
        let n = |i: usize| match &inputs[i] {
            Buffer::I32(v) => v.as_slice(),
            Buffer::F32(_) => panic!("input {i} is float"),
        };
        match (self.slot, outputs) {
            (SlotId::SiluAndMul, [out]) => self.silu_and_mul(out, f(0), s[0], s[1]),
            (SlotId::RmsNorm, [out]) => self.rmsnorm(out, f(0), f(1), sc[0], s[0], s[1]),
            (SlotId::FusedAddRmsNorm, [a, b]) => {
                self.fused_add_rmsnorm(a, b, f(0), f(1), f(2), sc[0], s[0], s[1])
            }
            (SlotId::Rope, [a, b]) => {
                self.rope(a, b, f(0), f(1), n(2), sc[0], s[0], s[1], s[2], s[3])
            }
            (SlotId::AttentionDecode, [out]) => {
                let (q, kc, vc, lens) = (f(0), f(1), f(2), n(3));
                self.attention_decode(out, q, kc, vc, lens, sc[0], s[0], s[1], s[2], s[3], s[4])
            }
            _ => panic!("{}: output count does not match the ABI", self.slot),
        }
    }
}

impl crate::slots::stacks::StackedKernel for CpuKernel {
    fn slot(&self) -> SlotId {
        CpuKernel::slot(self)
    }
    fn accepts(&self, shape: &[i64]) -> bool {
        CpuKernel::accepts(self, shape)
    }
}
