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
use crate::cpu::static_image::StaticImage;
use crate::slots::args::SlotArgs;
use crate::slots::call::SlotCall;
use crate::slots::SlotId;

/// A kernel resolved from a loaded shared library; keeps the library alive.
#[derive(Clone)]
pub struct CpuKernel {
    slot: SlotId,
    entry: String,
    origin: String,
    /// The op's `when` domain (empty: every shape).
    when: BTreeMap<String, Domain>,
    addr: *const c_void,
    /// The library's writable static storage as loaded, written back before every call
    /// (`None` only where the loader knows no object at `addr`).
    image: Option<Arc<StaticImage>>,
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
            image: StaticImage::shared(addr),
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

    /// Calls the kernel on a whole argument set, writing `args.outputs`.
    pub fn call(&self, args: &mut SlotArgs) {
        let mut outputs = std::mem::take(&mut args.outputs);
        let mut views: Vec<&mut [f32]> = outputs.iter_mut().map(|o| o.as_mut_slice()).collect();
        args.with_call(|call| self.call_into(call, &mut views));
        args.outputs = outputs;
    }

    /// Calls the kernel, writing into `outputs` (one slice per output parameter, ABI order,
    /// exact lengths; they may live inside larger buffers, as the verifier's guard bands
    /// do). Panics when the call does not fit the slot's ABI ([`SlotCall::check`]): the
    /// callers (the engine, the referee's cases) make every call from the registry.
    pub fn call_into(&self, call: &SlotCall<'_>, outputs: &mut [&mut [f32]]) {
        assert_eq!(
            self.slot, call.slot,
            "kernel `{}` is for {}, called as {}",
            self.entry, self.slot, call.slot
        );
        let mut lens = [0usize; MAX_POINTERS];
        let Some(lens) = lens.get_mut(..outputs.len()) else {
            panic!("{}: more outputs than any C entry takes", call.slot)
        };
        lens.iter_mut()
            .zip(outputs.iter())
            .for_each(|(l, o)| *l = o.len());
        if let Err(e) = call.check(lens) {
            panic!("{e}");
        }
        let mut pointers = [std::ptr::null_mut::<c_void>(); MAX_POINTERS];
        let n = outputs.len() + call.inputs.len();
        let ptrs = outputs
            .iter_mut()
            .map(|o| o.as_mut_ptr().cast::<c_void>())
            .chain(call.inputs.iter().map(|t| t.as_ptr().cast_mut()));
        pointers.iter_mut().zip(ptrs).for_each(|(p, v)| *p = v);
        // SAFETY: the call fits the slot's ABI (checked above: every buffer has exactly
        // the length its shape implies) and the symbol is the slot's entry, whose C
        // parameters are its outputs and inputs (pointers), then its f32 scalars, then its
        // int64 shape values (`slots::tests::abi_order_is_outputs_inputs_scalars_shapes`).
        let run = || unsafe { c_entry::call(self.addr, &pointers[..n], call.scalars, call.shape) };
        match &self.image {
            Some(image) => image.fresh_for(run),
            None => run(),
        }
    }

    /// Bytes of the library's static storage written back before each call.
    pub fn static_bytes(&self) -> usize {
        self.image.as_ref().map_or(0, |i| i.bytes())
    }
}

/// The most pointer parameters (outputs and inputs) a slot's C entry has.
const MAX_POINTERS: usize = 8;

/// Calls a C entry of signature `(pointers…, float scalars…, int64_t shape…)` with exactly
/// the parameter counts it was declared with: one arm per count triple a registered slot
/// has (`stock_cpu` calls every slot's stock kernel through it).
mod c_entry {
    use std::ffi::c_void;

    type P = *mut c_void;

    macro_rules! entry {
        ($addr:expr, [$($p:ident),+], [$($f:ident),*], [$($s:ident),+]) => {{
            let entry: unsafe extern "C" fn($(entry!(@P $p),)+ $(entry!(@F $f),)* $(entry!(@S $s),)+) =
                std::mem::transmute($addr);
            entry($($p,)+ $($f,)* $($s,)+)
        }};
        (@P $x:ident) => { P };
        (@F $x:ident) => { f32 };
        (@S $x:ident) => { i64 };
    }

    /// # Safety
    /// `addr` is a C function whose parameters are exactly `pointers.len()` pointers,
    /// `scalars.len()` floats and `shape.len()` int64 values, in that order, and the
    /// pointers are valid for what it does with them.
    pub unsafe fn call(addr: *const c_void, pointers: &[P], scalars: &[f32], shape: &[i64]) {
        unsafe {
            match (pointers, scalars, shape) {
                (&[a, b], &[], &[s0, s1]) => entry!(addr, [a, b], [], [s0, s1]),
                (&[a, b, c], &[f0], &[s0, s1]) => entry!(addr, [a, b, c], [f0], [s0, s1]),
                (&[a, b, c], &[], &[s0, s1, s2]) => entry!(addr, [a, b, c], [], [s0, s1, s2]),
                (&[a, b], &[], &[s0, s1, s2, s3]) => entry!(addr, [a, b], [], [s0, s1, s2, s3]),
                (&[a, b, c, d, e], &[f0], &[s0, s1]) => {
                    entry!(addr, [a, b, c, d, e], [f0], [s0, s1])
                }
                (&[a, b, c, d, e], &[f0], &[s0, s1, s2, s3]) => {
                    entry!(addr, [a, b, c, d, e], [f0], [s0, s1, s2, s3])
                }
                (&[a, b, c, d, e], &[f0], &[s0, s1, s2, s3, s4]) => {
                    entry!(addr, [a, b, c, d, e], [f0], [s0, s1, s2, s3, s4])
                }
                (&[a, b, c, d, e, f], &[], &[s0, s1, s2, s3, s4, s5]) => {
                    entry!(addr, [a, b, c, d, e, f], [], [s0, s1, s2, s3, s4, s5])
                }
                _ => panic!(
                    "no C call for {} pointers, {} scalars and {} shape values: add an arm",
                    pointers.len(),
                    scalars.len(),
                    shape.len()
                ),
            }
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
