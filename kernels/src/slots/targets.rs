//! The catalog's targets (DESIGN 4.1): one singleton per slot, and the atomic groups of
//! slots crowned together.

use cacheon_primitives::catalog::{slot, MOE_EPILOGUE, ROPE_DECODE};

use super::spec::SlotId;

/// Whether a catalog target is one slot or an atomic group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Slot,
    Atomic,
}

/// A catalog target (DESIGN 4.1): a singleton slot or an atomic group of slots.
#[derive(Debug, PartialEq, Eq)]
pub struct TargetSpec {
    pub id: &'static str,
    pub kind: TargetKind,
    pub members: &'static [SlotId],
    /// Targets whose incumbents this target replaces when crowned.
    pub displaces: &'static [&'static str],
}

static TARGETS: [TargetSpec; 13] = [
    singleton(SlotId::SiluAndMul, slot::SILU_AND_MUL),
    singleton(SlotId::RmsNorm, slot::RMSNORM),
    singleton(SlotId::FusedAddRmsNorm, slot::FUSED_ADD_RMSNORM),
    singleton(SlotId::Rope, slot::ROPE),
    singleton(SlotId::AttentionDecode, slot::ATTENTION_DECODE),
    singleton(SlotId::LinearMatmul, slot::LINEAR_MATMUL),
    singleton(SlotId::AttentionPrefill, slot::ATTENTION_PREFILL),
    // A fused seam displaces nothing: its members serve what its domain leaves them.
    singleton(SlotId::GateUpSilu, slot::GATE_UP_SILU),
    singleton(SlotId::AllReduce, slot::ALL_REDUCE),
    singleton(SlotId::ArResidualRmsNorm, slot::AR_RESIDUAL_RMSNORM),
    singleton(SlotId::MoeFusedExperts, slot::MOE_FUSED_EXPERTS),
    TargetSpec {
        id: ROPE_DECODE,
        kind: TargetKind::Atomic,
        members: &[SlotId::Rope, SlotId::AttentionDecode],
        displaces: &[slot::ROPE, slot::ATTENTION_DECODE],
    },
    // A mixture-of-experts layer's epilogue on a rank: its experts, then the all-reduce
    // of their partial sums fused with the residual add and the next norm.
    TargetSpec {
        id: MOE_EPILOGUE,
        kind: TargetKind::Atomic,
        members: &[SlotId::MoeFusedExperts, SlotId::ArResidualRmsNorm],
        displaces: &[slot::MOE_FUSED_EXPERTS, slot::AR_RESIDUAL_RMSNORM],
    },
];

const fn singleton(slot: SlotId, id: &'static str) -> TargetSpec {
    let members: &'static [SlotId] = match slot {
        SlotId::SiluAndMul => &[SlotId::SiluAndMul],
        SlotId::RmsNorm => &[SlotId::RmsNorm],
        SlotId::FusedAddRmsNorm => &[SlotId::FusedAddRmsNorm],
        SlotId::Rope => &[SlotId::Rope],
        SlotId::AttentionDecode => &[SlotId::AttentionDecode],
        SlotId::LinearMatmul => &[SlotId::LinearMatmul],
        SlotId::AttentionPrefill => &[SlotId::AttentionPrefill],
        SlotId::GateUpSilu => &[SlotId::GateUpSilu],
        SlotId::AllReduce => &[SlotId::AllReduce],
        SlotId::ArResidualRmsNorm => &[SlotId::ArResidualRmsNorm],
        SlotId::MoeFusedExperts => &[SlotId::MoeFusedExperts],
    };
    TargetSpec {
        id,
        kind: TargetKind::Slot,
        members,
        displaces: &[],
    }
}

/// Every registered target: one singleton per slot, then the atomic groups.
pub fn targets() -> &'static [TargetSpec] {
    &TARGETS
}

/// Looks up a target by id.
pub fn target(id: &str) -> Option<&'static TargetSpec> {
    TARGETS.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_targets_displace_their_members() {
        let t = target("attention.rope_decode.v1").unwrap();
        assert_eq!(t.kind, TargetKind::Atomic);
        assert_eq!(t.members, &[SlotId::Rope, SlotId::AttentionDecode]);
        let moe = target("collective.moe_epilogue.v1").unwrap();
        assert_eq!(
            moe.members,
            &[SlotId::MoeFusedExperts, SlotId::ArResidualRmsNorm]
        );
        for t in [t, moe] {
            for m in t.members {
                assert!(t.displaces.contains(&m.as_str()));
            }
        }
    }

    #[test]
    fn the_registry_is_the_catalog_in_the_same_order() {
        use cacheon_primitives::catalog;
        let ids: Vec<&str> = SlotId::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(ids, catalog::SLOTS);
        assert_eq!(targets().len(), catalog::TARGETS.len());
        for (ours, theirs) in targets().iter().zip(catalog::TARGETS) {
            assert_eq!(ours.id, theirs.id);
            let members: Vec<&str> = ours.members.iter().map(|m| m.as_str()).collect();
            assert_eq!(members, theirs.members, "{}", ours.id);
            assert_eq!(ours.displaces, theirs.displaces, "{}", ours.id);
            let atomic = cacheon_primitives::TargetKind::Atomic;
            assert_eq!(ours.kind == TargetKind::Atomic, theirs.kind == atomic);
        }
    }
}
