//! The typed messages between the referee and a lane process, and their framing.
//!
//! A frame is one tag byte (`J` for a JSON message, `B` for a binary blob), a little-endian
//! `u32` length and the payload. Messages that carry tensors (a bundle's canonical bytes,
//! output buffers) say how many blobs follow them. Tensors travel as little-endian `f32`
//! bits, so NaN payloads (the poison) survive the trip.

use std::io::{self, Read, Write};

use cacheon_kernels::slots::args::Buffer;
use cacheon_kernels::slots::SlotId;
use serde::{Deserialize, Serialize};

/// The lane's file descriptor for replies.
pub const REPLY_FD: i32 = 3;

/// Largest frame accepted from the other side (a lane's outputs for the largest
/// verification shape are well under this).
pub const MAX_FRAME_BYTES: usize = 256 << 20;

/// Which special values a case uses (DESIGN 7 step 5), applied to the first
/// floating-point input (the activation, the query).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Special {
    /// The seeded inputs as generated.
    None,
    /// The input is all zeros.
    Zeros,
    /// The input scaled by 1e4.
    Large,
    /// The input scaled into the subnormal range (×1e-40).
    Denormal,
}

impl Special {
    pub const ALL: [Special; 4] = [
        Special::None,
        Special::Zeros,
        Special::Large,
        Special::Denormal,
    ];

    /// Applies the special values to a generated call's first float input.
    pub fn apply(self, args: &mut cacheon_kernels::slots::args::SlotArgs) {
        use cacheon_kernels::slots::args::Buffer;
        let Some(Buffer::F32(x)) = args.inputs.first_mut() else {
            return;
        };
        match self {
            Special::None => {}
            Special::Zeros => x.fill(0.0),
            Special::Large => x.iter_mut().for_each(|v| *v *= 1.0e4),
            Special::Denormal => x.iter_mut().for_each(|v| *v *= 1.0e-40),
        }
    }
}

/// What the referee asks of a lane. Messages are externally tagged JSON: an internally
/// tagged enum would buffer its fields, and with serde_json's `arbitrary_precision` (which
/// node crates switch on in a workspace build) buffered numbers no longer read as `f32`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Build a bundle (preprocessor screen, compile, artifact screen); one blob follows:
    /// its canonical bytes. A CPU bundle is loaded only once the lane is sealed.
    /// `unscreened_probe` skips the two screens: only the sandbox's own tests set it, to
    /// show what the seal alone stops in code no screen would let through.
    Build {
        origin: String,
        #[serde(default)]
        unscreened_probe: bool,
    },
    /// Run one verification case of `slot` at `shape`: the same buffers called once per
    /// seed (fresh input contents at the same addresses), outputs poisoned before every
    /// call and surrounded by `guard` elements of guard band. With `graph`, the calls are
    /// captured once in a CUDA graph and replayed (CUDA lanes only).
    Verify {
        slot: String,
        shape: Vec<i64>,
        seeds: Vec<u64>,
        special: Special,
        guard: usize,
        graph: bool,
        /// On CPU lanes, one more call after the seeded ones: the last call's inputs in
        /// the same buffers, its persistent inputs changed in place at positions drawn
        /// from this seed (`cacheon_kernels::slots::probe`).
        #[serde(default)]
        probe: Option<u64>,
    },
    /// Assemble the arena's engine: the genesis stock kernels, then `stack` incumbent
    /// bundles (that many blobs of canonical bytes follow, installed in order), on the
    /// named model shape with `weights`.
    LoadEngine {
        model: String,
        weights: EngineWeights,
        max_seq: usize,
        /// Sequences the engine holds at once (the workload's batched decode rows).
        #[serde(default = "one")]
        max_batch: usize,
        stack: usize,
        /// This lane process's place in a tensor-parallel engine (`None`: the whole
        /// engine in one process).
        #[serde(default)]
        group: Option<RankGroup>,
    },
    /// Install the kernels of the bundle built by `Build` into the loaded engine.
    InstallCandidate,
    /// Restrict the filesystem (Landlock) and install the seccomp filter now, then load
    /// the built bundle: no compiler runs after this, and no bundle code runs before it.
    /// Requests that run kernels seal the lane first if it is not sealed yet.
    Seal,
    /// One read of the timed workload ([`ReadSpec`]). With `keep_logits`, the next-token
    /// logits of every generated token follow, a blob a sequence (`[tokens, vocab]` each,
    /// in the order of [`ReadSpec::sequences`]). With `hold_logits`, the lane holds them
    /// (on the GPU for CUDA lanes) until its next read, for [`Request::LogitRows`].
    Run {
        read: ReadSpec,
        keep_logits: bool,
        #[serde(default)]
        hold_logits: bool,
    },
    /// Rows of the last read's held logits (indices in the order of the read's tokens);
    /// they follow as one blob (`[rows.len(), vocab]`).
    LogitRows { rows: Vec<usize> },
    /// An audit read: one read of the timed workload (same shapes, a fresh prompt, at a
    /// position among the timed reads the referee drew in secret) with the sampled calls
    /// recorded (inputs before the call, outputs after, inputs checked again after) and
    /// sent back for the referee's reference (audit A). A recorded call too large to send
    /// whole travels as the output features [`audit_features`] draws from `feature_seed`.
    ///
    /// On CPU lanes every sampled call is preceded by an in-place probe
    /// (`cacheon_kernels::slots::probe`): the same kernel on the same buffers, its persistent
    /// inputs changed at positions drawn from `probe_seed`, recorded as a call of its own
    /// (`AuditCall::probe`).
    Audit {
        read: ReadSpec,
        sample: Vec<AuditSample>,
        feature_seed: u64,
        #[serde(default)]
        probe_seed: u64,
    },
    /// Teacher forcing: one sequence fed `tokens` from empty; the next-token logits at
    /// positions `from..tokens.len()` follow as one blob (`[tokens.len() - from, vocab]`).
    TeacherForce { tokens: Vec<u32>, from: usize },
    /// Exit cleanly.
    Shutdown,
}

fn one() -> usize {
    1
}

/// What one read of the workload runs (DESIGN 7 step 7): a single sequence (`prompt`
/// prefilled, then `decode_steps` greedy decode steps), then, where the arena's workload
/// has a batched part, the `batch` prompts prefilled as sequences `0..batch.len()` of an
/// emptied cache and `batch_steps` greedy decode steps of all of them at once (one
/// `batch.len()`-row pass a step). A read's tokens come back sequence by sequence
/// ([`ReadSpec::sequences`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSpec {
    pub prompt: Vec<u32>,
    pub decode_steps: usize,
    #[serde(default)]
    pub batch: Vec<Vec<u32>>,
    #[serde(default)]
    pub batch_steps: usize,
}

impl ReadSpec {
    /// The read's sequences in the order their tokens (and logits) come back: each prompt
    /// with the number of tokens it generates (its prefill's, then one a decode step).
    pub fn sequences(&self) -> Vec<(&[u32], usize)> {
        let mut out = vec![(self.prompt.as_slice(), self.decode_steps + 1)];
        out.extend(
            self.batch
                .iter()
                .map(|p| (p.as_slice(), self.batch_steps + 1)),
        );
        out
    }

    /// Tokens the whole read generates.
    pub fn generated(&self) -> usize {
        self.sequences().iter().map(|(_, n)| n).sum()
    }
}

/// Where a lane's engine takes its weights from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineWeights {
    /// Synthesized for the model shape from a seed (secret per attempt).
    Synthesized { seed: u64 },
    /// A GGUF file, read (and its SHA-256 checked) before the lane is sealed.
    File { path: String, sha256: String },
}

/// One rank of a lane split over `world` rank processes: the shard it holds and the
/// group file (made by the referee, [`cacheon_kernels::collective::ShmGroup`]) the ranks
/// exchange their partial sums through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankGroup {
    pub path: String,
    pub rank: usize,
    pub world: usize,
}

/// Which calls of one slot an audit read records: the `calls`-th calls (0-based, counted
/// over the calls the slot's top kernel serves in the read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSample {
    pub slot: String,
    pub calls: Vec<u64>,
}

/// Which calls of each slot an audit read records, typed: the referee draws it, the
/// request carries it as [`AuditSample`]s.
pub type CallSample = Vec<(SlotId, Vec<u64>)>;

/// One workload read as the referee receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// The generated tokens, sequence by sequence ([`ReadSpec::sequences`]): each one's
    /// prefill's next token, then one a decode step.
    pub tokens: Vec<u32>,
    /// Each slot's dispatch count during the read (indexed like `SlotId::ALL`).
    pub dispatch_counts: Vec<u64>,
    /// The next-token logits of every generated token (`[ReadSpec::generated, vocab]`, in
    /// the order of `tokens`), if they were asked for.
    pub logits: Option<Vec<f32>>,
}

/// One recorded slot call of an audit read, as the referee receives it.
#[derive(Clone, Debug)]
pub struct RecordedCall {
    pub call: AuditCall,
    /// Inputs as they were before the call (ABI order).
    pub inputs: Vec<Buffer>,
    /// Outputs after the call (ABI order).
    pub outputs: Vec<Vec<f32>>,
}

/// One recorded slot call of an audit read; its buffers follow as blobs: every input (f32
/// or i32 little-endian, per `int_inputs`), then every output (f32).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditCall {
    /// The rank process that made the call (0 in a lane of one process); set by the
    /// referee from which process sent it, never taken from the lane.
    #[serde(default)]
    pub rank: usize,
    pub slot: String,
    /// Which call of its slot this was in the read (0-based).
    pub index: u64,
    /// Input parameter indices (ABI order) whose contents the call changed.
    pub inputs_changed: Vec<usize>,
    pub shape: Vec<i64>,
    pub scalars: Vec<f32>,
    /// Which inputs are int32 (the rest are f32).
    pub int_inputs: Vec<bool>,
    pub outputs: usize,
    /// The output features that travel (`linear.matmul`: those rows of `w`, those columns
    /// of `y`; `mlp.gate_up_silu`: those gate rows and the up rows they pair with, those
    /// columns of `out`; the call is then judged at `out_features` or `inter` = their
    /// count), where the whole
    /// call would be too large ([`audit_features`]); `None`: the whole call.
    #[serde(default)]
    pub kept_features: Option<Vec<usize>>,
    /// The in-place probe made just before call `index` (its inputs as the probe changed
    /// them), not the call itself.
    #[serde(default)]
    pub probe: bool,
}

/// Bytes of a recorded call's weight matrix (as f32) above which only a sample of its
/// output features travels back: the GPU arena's LM head is 2.1 GB as f32, gate|up 470 MB,
/// past any frame ([`MAX_FRAME_BYTES`]).
pub const AUDIT_WHOLE_BYTES: usize = 32 << 20;
/// Output features a sliced call keeps.
pub const AUDIT_FEATURES: usize = 256;

/// Which output features of recorded call `index` (of `slot`, at `shape`) travel back, drawn
/// from the referee's secret `seed` once the read is over; `None` where the whole call fits
/// (every slot but the products, `linear.matmul` and `mlp.gate_up_silu`, and theirs up to
/// [`AUDIT_WHOLE_BYTES`] of weights).
pub fn audit_features(seed: u64, slot: SlotId, index: u64, shape: &[i64]) -> Option<Vec<usize>> {
    // Weight rows per output feature: the seam's feature reads a gate row and an up row.
    let rows_per_feature = match slot {
        SlotId::LinearMatmul => 1,
        SlotId::GateUpSilu => 2,
        _ => return None,
    };
    if shape.len() != 3 {
        return None;
    }
    let (out_f, in_f) = (shape[1].max(0) as usize, shape[2].max(0) as usize);
    let weight_bytes = (rows_per_feature * out_f)
        .saturating_mul(in_f)
        .saturating_mul(4);
    if weight_bytes <= AUDIT_WHOLE_BYTES || out_f <= AUDIT_FEATURES {
        return None;
    }
    let mut rng = cacheon_kernels::rng::Rng::secret(seed, &format!("audit-features/{index}"));
    let mut picked = std::collections::BTreeSet::new();
    while picked.len() < AUDIT_FEATURES {
        picked.insert(rng.below(out_f as u64) as usize);
    }
    Some(picked.into_iter().collect())
}

/// Restricts a recorded product call to `features`: those rows of `w` (input 1; for
/// `mlp.gate_up_silu` those gate rows, then the same up rows, so that the restricted call
/// is the seam's own ABI again) and those columns of every row of the output (output 0).
pub fn keep_features(
    slot: SlotId,
    shape: &[i64],
    inputs: &mut [Buffer],
    outputs: &mut [Vec<f32>],
    features: &[usize],
) {
    let (tokens, out_f, in_f) = (shape[0] as usize, shape[1] as usize, shape[2] as usize);
    let halves: &[usize] = match slot {
        SlotId::GateUpSilu => &[0, out_f],
        _ => &[0],
    };
    if let Some(Buffer::F32(w)) = inputs.get_mut(1) {
        let rows: Vec<f32> = halves
            .iter()
            .flat_map(|&base| features.iter().map(move |&o| base + o))
            .flat_map(|o| w[o * in_f..(o + 1) * in_f].iter().copied())
            .collect();
        *w = rows;
    }
    if let Some(y) = outputs.get_mut(0) {
        let cols: Vec<f32> = (0..tokens)
            .flat_map(|t| features.iter().map(move |&o| t * out_f + o))
            .map(|i| y[i])
            .collect();
        *y = cols;
    }
}

/// Which step a build failed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildStage {
    /// The bundle or its manifest (the static screen should have caught it).
    Bundle,
    /// The preprocessed source or the built artifact broke a policy rule.
    Policy,
    /// The preprocessed source reads a timer (a policy rule whose reason is `Cheating`).
    Cheating,
    Build,
    Abi,
}

/// How long each part of something took, by name, in milliseconds.
pub type PartTimes = Vec<(String, f64)>;

/// NVRTC builds a lane read back from the build cache (`cached`) and compiled
/// (`compiled`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildCounts {
    pub cached: u64,
    pub compiled: u64,
}

/// A guard-band element found overwritten after a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardHit {
    /// Output parameter index (ABI order).
    pub output: usize,
    /// Element offset from the start of the output (negative: before it).
    pub offset: i64,
}

/// What the lane's harness saw around one call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallCheck {
    /// Guard-band elements overwritten (at most one per side of each output).
    pub guard_hits: Vec<GuardHit>,
    /// Input parameter indices (ABI order) whose contents changed.
    pub inputs_changed: Vec<usize>,
    /// Output elements still holding the poison after the call (never written).
    pub unwritten: u64,
}

/// What a lane answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// First message after start: the isolation that is in force.
    Ready {
        pid: u32,
        /// The lane runs in its own (empty) network namespace.
        network_namespace: bool,
    },
    /// The bundle built and loaded; `log` is the compiler's output.
    Built {
        log: String,
        /// Device name for CUDA lanes, CPU model for CPU lanes.
        machine: String,
    },
    /// The lane is sealed; `seccomp` and `landlock` say whether each is in force.
    Sealed {
        seccomp: bool,
        landlock: bool,
    },
    BuildFailed {
        stage: BuildStage,
        log: String,
    },
    /// The lane is about to run candidate code: if it dies or hangs now, the candidate is
    /// responsible.
    Entering {
        what: String,
    },
    /// A verification case ran; one blob per call and output follows (call-major).
    Called {
        checks: Vec<CallCheck>,
        outputs: usize,
    },
    /// The engine is assembled.
    EngineReady {
        vocab: usize,
        /// Bytes of weights one forward pass reads (for the physical floor).
        weight_bytes: u64,
        /// How long assembling it took, part by part, as the lane measured it (ms).
        #[serde(default)]
        load_ms: PartTimes,
        /// NVRTC builds the lane read back from the build cache and compiled, so far.
        #[serde(default)]
        builds: BuildCounts,
    },
    /// A workload read finished: the generated tokens and each slot's dispatch count
    /// during it (indexed like `SlotId::ALL`); logits follow as a blob if asked for.
    Ran {
        tokens: Vec<u32>,
        dispatch: Vec<u64>,
    },
    /// An audit read finished: its tokens and dispatch counts as for `Ran`, then the
    /// recorded calls; each call's blobs follow in order.
    Audited {
        tokens: Vec<u32>,
        dispatch: Vec<u64>,
        calls: Vec<AuditCall>,
    },
    /// Teacher forcing finished; the logits follow as one blob.
    Forced {
        positions: usize,
    },
    /// Held logit rows; they follow as one blob.
    LogitRows {
        rows: usize,
    },
    /// The lane could not do what was asked for reasons that are not the candidate's.
    Fault {
        message: String,
    },
}

/// A frame read from the other side.
#[derive(Debug)]
pub enum Frame {
    Json(Vec<u8>),
    Blob(Vec<u8>),
}

fn write_frame(w: &mut impl Write, tag: u8, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|&l| l as usize <= MAX_FRAME_BYTES)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    w.write_all(&[tag])?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(payload)
}

/// Writes a message.
pub fn send<T: Serialize>(w: &mut impl Write, msg: &T) -> io::Result<()> {
    let json = serde_json::to_vec(msg).map_err(io::Error::other)?;
    write_frame(w, b'J', &json)
}

/// Writes a blob.
pub fn send_blob(w: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    write_frame(w, b'B', bytes)
}

/// Writes `f32`s as a blob of their little-endian bits.
pub fn send_f32s(w: &mut impl Write, values: &[f32]) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(values.len() * 4);
    for v in values {
        bytes.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    send_blob(w, &bytes)
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    r.read_exact(&mut head[1..])?;
    let len = u32::from_le_bytes(head[1..].try_into().expect("4 bytes")) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes is over the limit"),
        ));
    }
    // Grown as bytes arrive: a length prefix alone allocates nothing.
    let mut payload = Vec::new();
    r.take(len as u64).read_to_end(&mut payload)?;
    if payload.len() != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "frame cut short",
        ));
    }
    match head[0] {
        b'J' => Ok(Some(Frame::Json(payload))),
        b'B' => Ok(Some(Frame::Blob(payload))),
        t => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unknown frame tag {t:#04x}"),
        )),
    }
}

/// Writes `i32`s as a blob of little-endian bytes.
pub fn send_i32s(w: &mut impl Write, values: &[i32]) -> io::Result<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    send_blob(w, &bytes)
}

/// Decodes a blob of little-endian `i32`s.
pub fn i32s(blob: &[u8]) -> io::Result<Vec<i32>> {
    if !blob.len().is_multiple_of(4) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "i32 blob length is not a multiple of 4",
        ));
    }
    Ok(blob
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect())
}

/// Decodes a blob of `f32` bits.
pub fn f32s(blob: &[u8]) -> io::Result<Vec<f32>> {
    if !blob.len().is_multiple_of(4) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "f32 blob length is not a multiple of 4",
        ));
    }
    Ok(blob
        .chunks_exact(4)
        .map(|c| f32::from_bits(u32::from_le_bytes(c.try_into().expect("4 bytes"))))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_nan_payloads_survive() {
        let mut buf = Vec::new();
        send(&mut buf, &Request::Shutdown).unwrap();
        let poison = f32::from_bits(0x7fc5_a5a5);
        send_f32s(&mut buf, &[1.5, poison]).unwrap();
        let mut r = &buf[..];
        let Some(Frame::Json(j)) = read_frame(&mut r).unwrap() else {
            panic!("json first")
        };
        assert!(matches!(
            serde_json::from_slice(&j).unwrap(),
            Request::Shutdown
        ));
        let Some(Frame::Blob(b)) = read_frame(&mut r).unwrap() else {
            panic!("blob second")
        };
        let v = f32s(&b).unwrap();
        assert_eq!(v[0], 1.5);
        assert_eq!(v[1].to_bits(), 0x7fc5_a5a5);
        assert!(read_frame(&mut r).unwrap().is_none());
    }

    #[test]
    fn hostile_frames_are_refused() {
        let mut big = vec![b'J'];
        big.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_frame(&mut &big[..]).is_err());
        let bad = [b'X', 0, 0, 0, 0];
        assert!(read_frame(&mut &bad[..]).is_err());
        let short = [b'J', 9, 0, 0, 0, b'{'];
        assert!(read_frame(&mut &short[..]).is_err());
    }
}
