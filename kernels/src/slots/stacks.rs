//! The bookkeeping both engines' slot tables share: per slot, a stack of kernels (the
//! genesis or stock kernel at the bottom, each installed kernel over the ones before it) and
//! the number of calls the top kernel served. A call goes to the topmost kernel whose `when`
//! domain takes its shape (DESIGN 6: "calls outside it use the incumbent"); genesis and stock
//! kernels take every shape. The validator reads the counts to see that a candidate's
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
    /// Stacks of exactly one kernel per slot.
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
            stack.push(k.ok_or(StackError::Missing(slot))?);
        }
        Ok(KernelStacks {
            stacks,
            counts: Default::default(),
        })
    }

    /// Puts `kernel` over its slot's current one (which keeps serving the calls outside the
    /// new one's domain) and restarts that slot's count; returns the covered kernel.
    pub fn install(&mut self, kernel: K) -> &K {
        let at = kernel.slot().index();
        self.counts[at].store(0, Ordering::Relaxed);
        self.stacks[at].push(kernel);
        let stack = &self.stacks[at];
        &stack[stack.len() - 2]
    }

    /// The kernel installed last in a slot.
    pub fn top(&self, slot: SlotId) -> &K {
        self.stacks[slot.index()]
            .last()
            .expect("every stack starts with one kernel")
    }

    /// The topmost kernel of `slot` whose domain takes `shape`, if any.
    pub fn pick(&self, slot: SlotId, shape: &[i64]) -> Option<Pick<'_, K>> {
        let stack = &self.stacks[slot.index()];
        let top = stack.len() - 1;
        (0..=top)
            .rev()
            .find(|&i| stack[i].accepts(shape))
            .map(|i| Pick {
                kernel: &stack[i],
                top: i == top,
            })
    }

    /// The slot's bottom kernel (genesis or stock: it takes every shape).
    pub fn bottom(&self, slot: SlotId) -> Pick<'_, K> {
        let stack = &self.stacks[slot.index()];
        Pick {
            kernel: &stack[0],
            top: stack.len() == 1,
        }
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

    fn genesis() -> KernelStacks<K> {
        KernelStacks::new(
            SlotId::ALL
                .iter()
                .map(|&slot| K {
                    slot,
                    max: i64::MAX,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn one_kernel_per_slot_or_a_named_error() {
        let mut ks: Vec<K> = SlotId::ALL.iter().map(|&slot| K { slot, max: 1 }).collect();
        ks.pop();
        assert_eq!(
            KernelStacks::new(ks).err(),
            Some(StackError::Missing(SlotId::AttentionPrefill))
        );
        let mut ks: Vec<K> = SlotId::ALL.iter().map(|&slot| K { slot, max: 1 }).collect();
        ks.push(K {
            slot: SlotId::Rope,
            max: 1,
        });
        assert_eq!(
            KernelStacks::new(ks).err(),
            Some(StackError::Duplicate(SlotId::Rope))
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
        assert_eq!(covered.max, i64::MAX);
        assert_eq!(
            s.dispatch_count(SlotId::Rope),
            0,
            "an install restarts the count"
        );
        assert_eq!(s.top(SlotId::Rope).max, 8);

        let small = s.pick(SlotId::Rope, &[4]).unwrap();
        assert!(small.top && small.kernel.max == 8);
        let large = s.pick(SlotId::Rope, &[9]).unwrap();
        assert!(!large.top && large.kernel.max == i64::MAX);
        assert!(s.bottom(SlotId::Rope).kernel.max == i64::MAX && !s.bottom(SlotId::Rope).top);
        assert!(
            s.bottom(SlotId::RmsNorm).top,
            "a lone genesis kernel is its slot's top"
        );

        s.count_call(SlotId::Rope);
        s.add_counts(&[1, 0, 0, 2, 0, 0, 0]);
        assert_eq!(s.dispatch_counts(), [1, 0, 0, 3, 0, 0, 0]);
        s.set_counts(&[0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(s.dispatch_count(SlotId::Rope), 1);
        s.reset_counts();
        assert_eq!(s.dispatch_counts(), [0; SLOT_COUNT]);
    }
}
