//! The bookkeeping both engines' slot tables share: per slot, a stack of kernels (the
//! genesis or stock kernel at the bottom, each installed kernel over the ones before it) and
//! the number of calls the top kernel served. A call goes to the topmost kernel whose `when`
//! domain takes its shape (DESIGN 6: "calls outside it use the incumbent"); genesis and stock
//! kernels take every shape. A fused seam ([`super::SlotSpec::seam_of`]) starts empty: until a
//! kernel is installed for it, the engine makes its member calls instead. The validator reads the counts to see that a candidate's
//! kernel ran at all, so they count only the top kernel's calls and restart at an install.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{SlotId, SLOT_COUNT};

/// Per-slot dispatch counts, indexed by [`SlotId::index`].
pub type DispatchCounts = [u64; SLOT_COUNT];

/// A loaded kernel of either backend, as far as a stack needs to know it.
pub trait StackedKernel {
    fn slot(&self) -> SlotId;
    /// Whether its `when` domain takes `shape` (ABI order).
    fn accepts(&self, shape: &[i64]) -> bool;
}

/// Why a set of kernels cannot start a table.
#[derive(Clone, Copy, Debug, thiserror::Error, PartialEq, Eq)]
pub enum StackError {
    #[error("no kernel for slot {0}")]
    Missing(SlotId),
    #[error("two kernels for slot {0}")]
    Duplicate(SlotId),
    #[error("a stock kernel for the fused seam {0} (its member slots serve it)")]
    SeamHasNoStock(SlotId),
}

/// The kernels serving each slot and the calls each slot's top kernel served.
#[derive(Debug)]
pub struct KernelStacks<K> {
    stacks: [Vec<K>; SLOT_COUNT],
    counts: [AtomicU64; SLOT_COUNT],
}

/// The kernel picked for one call.
pub struct Pick<'a, K> {
    pub kernel: &'a K,
    /// Whether it is the slot's top kernel (the one installed last: a candidate's).
    pub top: bool,
}

impl<K: StackedKernel> KernelStacks<K> {
    /// Stacks of exactly one kernel per slot, none for a fused seam.
    pub fn new(kernels: Vec<K>) -> Result<KernelStacks<K>, StackError> {
        let mut slots: [Option<K>; SLOT_COUNT] = Default::default();
        for k in kernels {
            let at = &mut slots[k.slot().index()];
            if at.is_some() {
                return Err(StackError::Duplicate(k.slot()));
            }
            *at = Some(k);
        }
        let mut stacks: [Vec<K>; SLOT_COUNT] = Default::default();
        for ((slot, k), stack) in SlotId::ALL.into_iter().zip(slots).zip(&mut stacks) {
            match (k, !slot.is_seam()) {
                (Some(k), true) => stack.push(k),
                (None, true) => return Err(StackError::Missing(slot)),
                (Some(_), false) => return Err(StackError::SeamHasNoStock(slot)),
                (None, false) => {}
            }
        }
        Ok(KernelStacks {
            stacks,
            counts: Default::default(),
        })
    }

    /// Puts `kernel` over its slot's current one (which keeps serving the calls outside the
    /// new one's domain) and restarts that slot's count; returns the covered kernel (none
    /// over an empty seam).
    pub fn install(&mut self, kernel: K) -> Option<&K> {
        let at = kernel.slot().index();
        self.counts[at].store(0, Ordering::Relaxed);
        self.stacks[at].push(kernel);
        let stack = &self.stacks[at];
        stack.len().checked_sub(2).map(|i| &stack[i])
    }

    /// The kernel installed last in a slot (none in a seam nothing was installed for).
    pub fn top(&self, slot: SlotId) -> Option<&K> {
        self.stacks[slot.index()].last()
    }

    /// The topmost kernel of `slot` whose domain takes `shape`, if any.
    pub fn pick(&self, slot: SlotId, shape: &[i64]) -> Option<Pick<'_, K>> {
        let stack = &self.stacks[slot.index()];
        let top = stack.len().checked_sub(1)?;
        (0..=top)
            .rev()
            .find(|&i| stack[i].accepts(shape))
            .map(|i| Pick {
                kernel: &stack[i],
                top: i == top,
            })
    }

    /// The slot's bottom kernel (genesis or stock: it takes every shape); none for a seam.
    pub fn bottom(&self, slot: SlotId) -> Option<Pick<'_, K>> {
        let stack = &self.stacks[slot.index()];
        stack.first().map(|kernel| Pick {
            kernel,
            top: stack.len() == 1,
        })
    }

    /// Counts one call served by the slot's top kernel.
    pub fn count_call(&self, slot: SlotId) {
        self.counts[slot.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// How many calls each slot's top kernel served (since it was installed or the last
    /// reset); calls outside its domain, served by a kernel below it, do not count.
    pub fn dispatch_counts(&self) -> DispatchCounts {
        std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed))
    }

    pub fn dispatch_count(&self, slot: SlotId) -> u64 {
        self.counts[slot.index()].load(Ordering::Relaxed)
    }

    pub fn reset_counts(&self) {
        self.counts
            .iter()
            .for_each(|c| c.store(0, Ordering::Relaxed));
    }

    /// Puts the counts back to `counts` (a graph capture records launches it does not run).
    pub fn set_counts(&self, counts: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(counts) {
            c.store(v, Ordering::Relaxed);
        }
    }

    /// Adds `delta` (the slot launches one graph replay makes).
    pub fn add_counts(&self, delta: &DispatchCounts) {
        for (c, &v) in self.counts.iter().zip(delta) {
            c.fetch_add(v, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel taking shapes whose first value is at most `max`.
    #[derive(Debug, PartialEq)]
    struct K {
        slot: SlotId,
        max: i64,
    }

    impl StackedKernel for K {
        fn slot(&self) -> SlotId {
            self.slot
        }
        fn accepts(&self, shape: &[i64]) -> bool {
            shape[0] <= self.max
        }
    }

    /// One kernel per plain slot, taking `max` (none for the seams).
    fn stock(max: i64) -> Vec<K> {
        SlotId::ALL
            .iter()
            .filter(|s| !s.is_seam())
            .map(|&slot| K { slot, max })
            .collect()
    }

    fn genesis() -> KernelStacks<K> {
        KernelStacks::new(stock(i64::MAX)).unwrap()
    }

    #[test]
    fn one_kernel_per_slot_none_per_seam_or_a_named_error() {
        let mut ks = stock(1);
        ks.retain(|k| k.slot != SlotId::AttentionPrefill);
        assert_eq!(
            KernelStacks::new(ks).err(),
            Some(StackError::Missing(SlotId::AttentionPrefill))
        );
        let mut ks = stock(1);
        ks.push(K {
            slot: SlotId::Rope,
            max: 1,
        });
        assert_eq!(
            KernelStacks::new(ks).err(),
            Some(StackError::Duplicate(SlotId::Rope))
        );
        let mut ks = stock(1);
        ks.push(K {
            slot: SlotId::GateUpSilu,
            max: 1,
        });
        assert_eq!(
            KernelStacks::new(ks).err(),
            Some(StackError::SeamHasNoStock(SlotId::GateUpSilu))
        );
    }

    #[test]
    fn a_seam_serves_nothing_until_a_kernel_is_installed_for_it() {
        let mut s = genesis();
        let seam = SlotId::GateUpSilu;
        assert!(s.top(seam).is_none() && s.bottom(seam).is_none());
        assert!(s.pick(seam, &[1]).is_none());
        assert!(
            s.install(K { slot: seam, max: 8 }).is_none(),
            "nothing is covered"
        );
        assert!(s.pick(seam, &[8]).is_some_and(|p| p.top));
        assert!(
            s.pick(seam, &[9]).is_none(),
            "outside its domain: the members again"
        );
    }

    #[test]
    fn calls_go_to_the_topmost_kernel_taking_the_shape_and_only_its_calls_count() {
        let mut s = genesis();
        s.count_call(SlotId::Rope);
        let covered = s.install(K {
            slot: SlotId::Rope,
            max: 8,
        });
        assert_eq!(covered.map(|k| k.max), Some(i64::MAX));
        assert_eq!(
            s.dispatch_count(SlotId::Rope),
            0,
            "an install restarts the count"
        );
        assert_eq!(s.top(SlotId::Rope).unwrap().max, 8);

        let small = s.pick(SlotId::Rope, &[4]).unwrap();
        assert!(small.top && small.kernel.max == 8);
        let large = s.pick(SlotId::Rope, &[9]).unwrap();
        assert!(!large.top && large.kernel.max == i64::MAX);
        let bottom = s.bottom(SlotId::Rope).unwrap();
        assert!(bottom.kernel.max == i64::MAX && !bottom.top);
        assert!(
            s.bottom(SlotId::RmsNorm).unwrap().top,
            "a lone genesis kernel is its slot's top"
        );

        // Counts indexed like SlotId::ALL: silu and rope set, the rest 0.
        let counts = |silu: u64, rope: u64| {
            let mut c = [0u64; SLOT_COUNT];
            c[SlotId::SiluAndMul.index()] = silu;
            c[SlotId::Rope.index()] = rope;
            c
        };
        s.count_call(SlotId::Rope);
        s.add_counts(&counts(1, 2));
        assert_eq!(s.dispatch_counts(), counts(1, 3));
        s.set_counts(&counts(0, 1));
        assert_eq!(s.dispatch_count(SlotId::Rope), 1);
        s.reset_counts();
        assert_eq!(s.dispatch_counts(), [0; SLOT_COUNT]);
    }
}
