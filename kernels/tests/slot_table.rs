//! The slot table: swapping one slot's kernel changes only that slot (its kernel and its
//! dispatch count); calls outside a kernel's `when` domain go to the kernel below it; an
//! atomic bundle swaps its member slots together; the observer sees every call with
//! inputs the reference can re-run (the audit hook).

mod common;

use std::sync::{Arc, Mutex};

use cacheon_kernels::bundle::stock;
use cacheon_kernels::cpu::engine::{CallPhase, SlotObserver, SlotTable};
use cacheon_kernels::model::Logits;
use cacheon_kernels::slots::call::SlotCall;
use cacheon_kernels::slots::reference;
use cacheon_kernels::slots::{Dtype, SlotId};
use cacheon_kernels::{build_cpu_bundle, BundleFile, CpuBuildOptions};
use common::manifest::Manifest;
use common::{genesis_table, stock_kernels, tiny_engine, PROMPT};

/// A candidate silu_and_mul that is deliberately off by a factor of two, so its effect on
/// the model's output proves it ran.
fn doubled_silu_bundle() -> Vec<BundleFile> {
    doubled_silu_manifest().bundle(&[("kernels/silu2.c", DOUBLED_SILU)])
}

fn doubled_silu_manifest() -> Manifest {
    Manifest::cpu(SlotId::SiluAndMul, "kernels/silu2.c", "silu2")
}

const DOUBLED_SILU: &str = r#"
#include <math.h>
#include <stdint.h>
void silu2(float* out, const float* x, int64_t tokens, int64_t d) {
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t i = 0; i < d; i++) {
            float g = x[t * 2 * d + i];
            out[t * d + i] = 2.0f * g / (1.0f + expf(-g)) * x[t * 2 * d + d + i];
        }
}
"#;

/// `doubled_silu_bundle` limited to calls of `tokens` in `[min, max]`.
fn doubled_silu_for_tokens(min: i64, max: i64) -> Vec<BundleFile> {
    doubled_silu_manifest()
        .line(format!(
            "when = {{ tokens = {{ min = {min}, max = {max} }} }}"
        ))
        .bundle(&[("kernels/silu2.c", DOUBLED_SILU)])
}

/// Records the token count of every silu_and_mul call it is shown.
#[derive(Default)]
struct SeenSilu {
    tokens: Mutex<Vec<usize>>,
}

impl SlotObserver for SeenSilu {
    fn observe(&self, _phase: CallPhase, call: &SlotCall<'_>, _outputs: &[&[f32]]) {
        if call.slot == SlotId::SiluAndMul {
            self.tokens
                .lock()
                .unwrap()
                .push(call.shape_value("tokens") as usize);
        }
    }
}

#[test]
fn calls_outside_a_kernels_domain_go_to_the_kernel_below() {
    // The tiny prefill calls silu_and_mul with tokens = the prompt's length; decode with 1.
    let mut e = tiny_engine(1, 32);
    let genesis_prefill = e.prefill(0, &PROMPT, Logits::All).unwrap();
    let genesis_decode = e.decode(&[7]).unwrap();

    let n = PROMPT.len() as i64;
    let prefill_only = build_cpu_bundle(
        &doubled_silu_for_tokens(2, 4096),
        "prefill only",
        &CpuBuildOptions::default(),
    )
    .unwrap();
    e.slots_mut().install_bundle(&prefill_only);
    e.reset();
    let prefill = e.prefill(0, &PROMPT, Logits::All).unwrap();
    let layers = e.config().num_hidden_layers as u64;
    assert_eq!(
        e.slots().dispatch_count(SlotId::SiluAndMul),
        layers,
        "the candidate served the {n}-token prefill"
    );
    assert_ne!(prefill, genesis_prefill, "and changed it");
    let decode = e.decode(&[7]).unwrap();
    assert_eq!(
        e.slots().dispatch_count(SlotId::SiluAndMul),
        layers,
        "one-token calls are outside its domain: not counted"
    );
    assert_ne!(
        decode, genesis_decode,
        "the cache holds the candidate's prefill"
    );

    // The audit hook sees only the calls the top kernel serves: the prefill's.
    let seen = Arc::new(SeenSilu::default());
    e.slots_mut().set_observer(Some(seen.clone()));
    e.reset();
    e.prefill(0, &PROMPT, Logits::All).unwrap();
    e.decode(&[7]).unwrap();
    e.slots_mut().set_observer(None);
    assert_eq!(
        *seen.tokens.lock().unwrap(),
        vec![PROMPT.len(); 2 * layers as usize],
        "before and after each prefill call, no decode call"
    );

    // A kernel over it that takes no shape the engine uses: every call falls through it.
    let never = build_cpu_bundle(
        &doubled_silu_for_tokens(100_000, 100_001),
        "never",
        &CpuBuildOptions::default(),
    )
    .unwrap();
    e.slots_mut().install_bundle(&never);
    e.reset();
    assert_eq!(e.prefill(0, &PROMPT, Logits::All).unwrap(), prefill);
    assert_eq!(e.slots().dispatch_count(SlotId::SiluAndMul), 0);
}

/// A prompt's prefill and one decode step (prompt rows attend through attention.prefill,
/// the decode row through attention.decode): their logits, end to end.
fn prefill_and_step(e: &mut cacheon_kernels::cpu::engine::Engine) -> Vec<f32> {
    let mut logits = e.prefill(0, &PROMPT, Logits::All).unwrap();
    logits.extend(e.decode(&[7]).unwrap());
    logits
}

#[test]
fn swapping_one_slot_changes_only_that_slot() {
    let mut e = tiny_engine(1, 16);
    let genesis_logits = prefill_and_step(&mut e);
    let before = e.slots().dispatch_counts();
    assert!(
        SlotId::ALL
            .iter()
            .all(|&s| (before[s.index()] > 0)
                != (s.is_seam() || s.is_collective() || s == SlotId::MoeFusedExperts)),
        "every slot but the seams, the collective and the experts (tiny is dense) runs in a prefill and a decode step: {before:?}"
    );
    let origins: Vec<Option<String>> = SlotId::ALL
        .iter()
        .map(|&s| e.slots().kernel(s).map(|k| k.origin().to_string()))
        .collect();

    let built = build_cpu_bundle(
        &doubled_silu_bundle(),
        "candidate",
        &CpuBuildOptions::default(),
    )
    .unwrap();
    let old = e
        .slots_mut()
        .install(built.kernel(SlotId::SiluAndMul).unwrap().clone())
        .unwrap();
    assert_eq!(old.origin(), "silu_and_mul");
    let after_install = e.slots().dispatch_counts();
    for slot in SlotId::ALL {
        let (b, a) = (before[slot.index()], after_install[slot.index()]);
        if slot == SlotId::SiluAndMul {
            assert_eq!(a, 0, "the new kernel has not run yet");
            assert_eq!(e.slots().kernel(slot).unwrap().origin(), "candidate");
        } else {
            assert_eq!(a, b, "{slot} count changed");
            let origin = e.slots().kernel(slot).map(|k| k.origin().to_string());
            assert_eq!(origin, origins[slot.index()]);
        }
    }

    e.reset();
    let candidate_logits = prefill_and_step(&mut e);
    let after_run = e.slots().dispatch_counts();
    assert_eq!(
        after_run[SlotId::SiluAndMul.index()],
        before[SlotId::SiluAndMul.index()]
    );
    for slot in SlotId::ALL.into_iter().filter(|&s| s != SlotId::SiluAndMul) {
        assert_eq!(after_run[slot.index()], 2 * before[slot.index()], "{slot}");
    }
    assert_ne!(
        candidate_logits, genesis_logits,
        "the candidate kernel must have run"
    );

    // Putting the stock kernel back restores the genesis behaviour bitwise.
    e.slots_mut().install(old);
    e.reset();
    assert_eq!(prefill_and_step(&mut e), genesis_logits);
}

#[test]
fn an_atomic_bundle_swaps_its_member_slots_together() {
    // rope + attention in one source, built from the stock code with new entry names.
    let rope = stock::cpu_bundle(SlotId::Rope).unwrap().files[1]
        .1
        .replace("void rope(", "void my_rope(");
    let attn = stock::cpu_bundle(SlotId::AttentionDecode).unwrap().files[1]
        .1
        .replace("void attention_decode(", "void my_attention(");
    let files = Manifest::atomic("attention.rope_decode.v1")
        .cpu_op(SlotId::Rope, "kernels/rope.c", "my_rope")
        .cpu_op(SlotId::AttentionDecode, "kernels/attn.c", "my_attention")
        .bundle(&[("kernels/rope.c", &rope), ("kernels/attn.c", &attn)]);
    let built = build_cpu_bundle(&files, "atomic", &CpuBuildOptions::default()).unwrap();
    let mut e = tiny_engine(1, 16);
    let genesis_logits = e.prefill(0, &PROMPT, Logits::All).unwrap();
    let replaced = e.slots_mut().install_bundle(&built);
    assert_eq!(
        replaced.iter().map(|k| k.slot()).collect::<Vec<_>>(),
        [SlotId::Rope, SlotId::AttentionDecode]
    );
    let counts = e.slots().dispatch_counts();
    assert_eq!(
        (
            counts[SlotId::Rope.index()],
            counts[SlotId::AttentionDecode.index()]
        ),
        (0, 0)
    );
    assert!(counts[SlotId::SiluAndMul.index()] > 0);
    e.reset();
    // Same C code, same flags: bitwise the same model output.
    assert_eq!(e.prefill(0, &PROMPT, Logits::All).unwrap(), genesis_logits);
    assert_eq!(e.slots().kernel(SlotId::Rope).unwrap().entry(), "my_rope");
    e.decode(&[7]).unwrap();
    assert!(e.slots().dispatch_count(SlotId::AttentionDecode) > 0);
}

/// Records each call's outputs against the reference run on a private copy of its inputs.
#[derive(Default)]
struct Audit {
    seen: Mutex<Vec<(SlotId, bool)>>,
    before: Mutex<usize>,
}

impl SlotObserver for Audit {
    fn observe(&self, phase: CallPhase, call: &SlotCall<'_>, outputs: &[&[f32]]) {
        if phase == CallPhase::Before {
            *self.before.lock().unwrap() += 1;
            return;
        }
        let args = call.to_args().unwrap();
        let expected = reference::compute(&args);
        let got: Vec<Vec<f32>> = outputs.iter().map(|o| o.to_vec()).collect();
        let tol = Dtype::F32.tolerance();
        let ok = reference::judge(&args, &got, &expected, tol)
            .iter()
            .all(|r| r.passed);
        self.seen.lock().unwrap().push((call.slot, ok));
    }
}

#[test]
fn the_observer_sees_every_call_and_can_audit_it() {
    let mut e = tiny_engine(2, 16);
    let audit = Arc::new(Audit::default());
    e.slots_mut().set_observer(Some(audit.clone()));
    e.prefill(0, &PROMPT, Logits::Last).unwrap();
    e.prefill(1, &[3, 4], Logits::Last).unwrap();
    e.decode(&[5, 6]).unwrap();
    let seen = audit.seen.lock().unwrap();
    let counts = e.slots().dispatch_counts();
    for slot in SlotId::ALL {
        let n = seen.iter().filter(|(s, _)| *s == slot).count() as u64;
        assert_eq!(n, counts[slot.index()], "{slot}");
    }
    assert_eq!(*audit.before.lock().unwrap(), seen.len());
    assert!(
        seen.iter().all(|(_, ok)| *ok),
        "a stock kernel failed the audit"
    );
}

#[test]
fn a_table_needs_exactly_one_kernel_per_slot() {
    let mut kernels = stock_kernels();
    let extra = kernels[0].clone();
    kernels.push(extra);
    assert!(SlotTable::new(kernels).is_err());
    let mut kernels = stock_kernels();
    kernels.pop();
    assert!(SlotTable::new(kernels).is_err());
    let t = genesis_table();
    assert_eq!(t.dispatch_counts(), [0; cacheon_kernels::slots::SLOT_COUNT]);
    let built = SlotTable::genesis_cpu(&CpuBuildOptions::default()).unwrap();
    assert_eq!(built.kernel(SlotId::RmsNorm).unwrap().origin(), "rmsnorm");
}

/// A `mlp.gate_up_silu` kernel written with the stock kernels' own arithmetic (their dot
/// product, then `g / (1 + expf(-g)) * u`), taking calls of `tokens` in `[1, max]`.
fn stock_math_seam(max: i64) -> Vec<BundleFile> {
    let manifest = Manifest::cpu(SlotId::GateUpSilu, "kernels/seam.c", "seam")
        .line(format!("when = {{ tokens = {{ max = {max} }} }}"));
    let src = r#"
#include <math.h>
#include <stdint.h>
static float dot(const float* a, const float* b, int64_t n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int l = 0; l < 8; l++) acc[l] += a[i + l] * b[i + l];
    }
    float tail = 0.0f;
    for (; i < n; i++) tail += a[i] * b[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) +
           tail;
}
void seam(float* out, const float* x, const float* w, int64_t tokens, int64_t inter,
          int64_t hidden) {
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t o = 0; o < inter; o++) {
            float g = dot(x + t * hidden, w + o * hidden, hidden);
            float u = dot(x + t * hidden, w + (inter + o) * hidden, hidden);
            out[t * inter + o] = g / (1.0f + expf(-g)) * u;
        }
}
"#;
    manifest.bundle(&[("kernels/seam.c", src)])
}

#[test]
fn a_seam_kernel_takes_its_members_calls_inside_its_domain_only() {
    let mut e = tiny_engine(1, 32);
    let layers = e.config().num_hidden_layers as u64;
    let genesis_prefill = e.prefill(0, &PROMPT, Logits::All).unwrap();
    let genesis_decode = e.decode(&[7]).unwrap();
    let genesis = e.slots().dispatch_counts();
    assert_eq!(
        genesis[SlotId::GateUpSilu.index()],
        0,
        "no seam kernel: its members"
    );

    let built = build_cpu_bundle(&stock_math_seam(1), "seam", &CpuBuildOptions::default()).unwrap();
    let covered = e.slots_mut().install_bundle(&built);
    assert!(covered.is_empty(), "an empty seam covers no kernel");
    e.slots().reset_counts();
    e.reset();
    // The prompt's rows are outside the domain: gate|up and SwiGLU as before.
    assert_eq!(e.prefill(0, &PROMPT, Logits::All).unwrap(), genesis_prefill);
    let after_prefill = e.slots().dispatch_counts();
    assert_eq!(after_prefill[SlotId::GateUpSilu.index()], 0);
    assert_eq!(after_prefill[SlotId::SiluAndMul.index()], layers);
    // The decode row is the seam's: one call a layer, no SwiGLU and one product fewer,
    // and the same arithmetic gives the same logits.
    assert_eq!(e.decode(&[7]).unwrap(), genesis_decode);
    let after_decode = e.slots().dispatch_counts();
    assert_eq!(after_decode[SlotId::GateUpSilu.index()], layers);
    assert_eq!(after_decode[SlotId::SiluAndMul.index()], layers);
    let products = |c: &[u64]| c[SlotId::LinearMatmul.index()];
    let decode_products = products(&genesis) - products(&after_prefill);
    assert_eq!(
        products(&after_decode) - products(&after_prefill),
        decode_products - layers
    );
}
