//! The reads of one attempt after its screens: both resident lanes, the read counter
//! (every read gets a fresh secret prompt, the same for both lanes of a pair), and the
//! audit's secret positions among the timed reads, and the lanes' start order (where the
//! arena asks, both are started afresh, in the other order, every `Judging::order_block`
//! pairs). [`Reads::speed`] is step 7 with step 8's audit reads inside it;
//! [`Reads::remaining_audits`] runs those the decision came before; [`Reads::last_read`]
//! gives step 9 its read and shuts the lanes down.
//!
//! **The lane that read last reads first.** Pairs alternate their order (B C, C B, …), and
//! each pair starts with the lane that read last: the first read of a pair follows its own
//! lane's read, the second follows the other lane's, for both lanes alike. Untimed pairs
//! (the warm-up, the one after an audit read, the one after a restart) end with the lane
//! the next timed pair starts with, and a decision is taken at an even number of pairs
//! only (`speed::Rule::balanced`): each lane then started as many pairs as the other. (The
//! warm-up pair used to end with the candidate, which then started one pair more than the
//! baseline from a warm GPU at every even count: a head start for the candidate lane.)

use std::collections::BTreeSet;
use std::time::Instant;

use cacheon_kernels::SlotId;
use cacheon_primitives::FailReason;

use super::audit::{self, AuditSummary};
use super::findings::{fail, lane_outcome, Outcome, Progress, Stage};
use super::lanes::{self, Lanes};
use super::reads::{self, timed_pair, tokens_agree, Prompts, TimedPair};
use super::stage_times::StageTimes;
use super::{speed, AttemptOptions, SpeedRecord};
use crate::arena::Arena;
use crate::lane::protocol::ReadSpec;
use crate::lane::protocol::RunResult;
use crate::lane::{Lane, LaneError};

pub struct Reads<'a> {
    base: Lane,
    cand: Lane,
    arena: Arena,
    opts: &'a AttemptOptions,
    /// The candidate's canonical bundle bytes and slots.
    canonical: &'a [u8],
    slots: &'a [SlotId],
    /// Whether the baseline lane of the lanes now running started first.
    base_first: bool,
    /// Lane pairs started so far in this attempt.
    pub lane_starts: u32,
    pub vocab: usize,
    /// Where read prompts come from.
    prompt_source: Prompts,
    /// Reads so far (each with its own prompt).
    prompts: u64,
    /// Timed runs so far (the audit's positions count these).
    runs: u64,
    /// Whether timed reads send their logits (`Judging::read_kl_bound` without
    /// `read_kl_rows`), or hold them for the judged rows (with it).
    keep_logits: bool,
    hold_logits: bool,
    audit_at: BTreeSet<u64>,
    pub audit: AuditSummary,
    /// The warm read's dispatch counts, which size the audit samples.
    warm_dispatch: Vec<u64>,
    /// Where the time went (`lane_start`, `warm`, `speed_reads`, `read_judging`, `audit`).
    pub times: StageTimes,
}

impl<'a> Reads<'a> {
    /// Takes both lanes (started in the order `base_first` says) and warms them with one
    /// untimed pair, which ends with the baseline: the first timed pair starts with it.
    pub fn warm(
        lanes: Lanes,
        base_first: bool,
        arena: Arena,
        opts: &'a AttemptOptions,
        canonical: &'a [u8],
        slots: &'a [SlotId],
    ) -> Result<Reads<'a>, Outcome> {
        let mut reads = Reads {
            base: lanes.base,
            cand: lanes.cand,
            arena,
            opts,
            canonical,
            slots,
            base_first,
            lane_starts: 1,
            vocab: lanes.vocab,
            prompt_source: Prompts::for_arena(arena, lanes.vocab)
                .map_err(|e| lane_outcome(Stage::Speed, LaneError::Infrastructure(e)))?,
            prompts: 0,
            runs: 0,
            keep_logits: arena.judging.read_kl_bound.is_some()
                && arena.judging.read_kl_rows.is_none(),
            hold_logits: arena.judging.read_kl_bound.is_some()
                && arena.judging.read_kl_rows.is_some(),
            audit_at: audit::draw_reads(opts.seed, &arena.workload, &arena.judging),
            audit: AuditSummary::default(),
            warm_dispatch: Vec::new(),
            times: StageTimes::default(),
        };
        let started = Instant::now();
        let warm = reads.untimed_pair_before(1);
        reads.times.add("warm", started.elapsed());
        reads.warm_dispatch = warm?.dispatch;
        Ok(reads)
    }

    /// Whether timed run `run` (1-based) reads the candidate first: B C, C B, … (each pair
    /// starts with the lane the pair before ended with).
    fn cand_first(run: u64) -> bool {
        run.is_multiple_of(2)
    }

    /// One untimed pair that ends with the lane timed run `next_run` starts with, so that
    /// the lane that read last reads first there too.
    fn untimed_pair_before(&mut self, next_run: u64) -> Result<TimedPair, Outcome> {
        let (_, pair) = self.pair(!Self::cand_first(next_run))?;
        Ok(pair)
    }

    /// Both lanes shut down and started afresh in the other order, then warmed with one
    /// untimed pair.
    fn restart_lanes(&mut self) -> Result<(), Outcome> {
        self.base.shutdown();
        self.cand.shutdown();
        self.base_first = !self.base_first;
        let lanes = lanes::start(
            self.canonical,
            self.slots,
            self.arena,
            self.opts,
            self.base_first,
            &mut self.times,
        )?;
        self.base = lanes.base;
        self.cand = lanes.cand;
        self.lane_starts += 1;
        let started = Instant::now();
        let warm = self.untimed_pair_before(self.runs + 1);
        self.times.add("warm", started.elapsed());
        warm.map(|_| ())
    }

    /// The next read's fresh prompts.
    fn read(&mut self) -> ReadSpec {
        self.prompts += 1;
        let w = self.arena.workload;
        self.prompt_source.read(self.opts.seed, self.prompts, &w)
    }

    /// One read of each lane on fresh prompts, timed by the referee.
    fn pair(&mut self, cand_first: bool) -> Result<(ReadSpec, TimedPair), Outcome> {
        let read = self.read();
        let (base, cand) = (&mut self.base, &mut self.cand);
        let logits = (self.keep_logits, self.hold_logits);
        let pair = timed_pair(base, cand, &read, cand_first, logits)?;
        Ok((read, pair))
    }

    /// An audit read at timed position `at` (`audit.rs`), its calls checked into
    /// `self.audit`.
    fn audit_read(&mut self, at: u64) -> Result<(), Outcome> {
        let (seed, w) = (self.opts.seed, self.arena.workload);
        let sample = audit::draw_sample(seed, at, self.slots, &self.warm_dispatch, &w);
        let read = self.read();
        let (base, cand) = (&mut self.base, &mut self.cand);
        audit::audit_read(
            base,
            cand,
            &read,
            &sample,
            self.arena,
            &mut self.audit,
            &mut audit::Secrets::of(seed, at),
        )
    }

    /// Checks a timed pair (read in the order `cand_first` says): the candidate's tokens
    /// against the baseline's and, where the arena judges distributions, its next-token
    /// distributions (every row the reads sent, or the rows drawn in secret from those the
    /// lanes held); records each judged read's largest KL in `rec`.
    fn judge(
        &mut self,
        read: &ReadSpec,
        pair: &TimedPair,
        cand_first: bool,
        rec: &mut SpeedRecord,
    ) -> Result<(), Outcome> {
        let backend = self.arena.backend;
        match tokens_agree(
            &mut self.base,
            read,
            &pair.base_tokens,
            &pair.cand_tokens,
            backend,
        ) {
            Ok(()) => {}
            Err(Ok(detail)) => {
                return Err(Outcome::Fail(fail(
                    Stage::Speed,
                    FailReason::BehaviourChanged,
                    detail,
                )))
            }
            Err(Err(e)) => {
                return Err(lane_outcome(
                    Stage::Speed,
                    LaneError::Infrastructure(e.to_string()),
                ))
            }
        }
        let j = self.arena.judging;
        let Some(bound) = j.read_kl_bound else {
            return Ok(());
        };
        let behaviour =
            |detail| Outcome::Fail(fail(Stage::Speed, FailReason::BehaviourChanged, detail));
        let kl = match j.read_kl_rows {
            None => reads::distributions_agree(pair, read, self.vocab, bound).map_err(behaviour)?,
            Some(n) => {
                let tokens = (
                    read,
                    pair.base_tokens.as_slice(),
                    pair.cand_tokens.as_slice(),
                );
                let same = reads::same_context_rows(read, tokens.1, tokens.2);
                let rows = reads::judged_rows(self.opts.seed, self.prompts, tokens, &same, n);
                let (b, c) = reads::held_rows(&mut self.base, &mut self.cand, &rows, cand_first)?;
                reads::kl_within(read, &rows, (&b, &c), self.vocab, bound).map_err(behaviour)?
            }
        };
        rec.max_read_kl = Some(rec.max_read_kl.unwrap_or(0.0).max(kl.max));
        rec.read_kl.push(kl.max);
        Ok(())
    }

    /// Step 7: pairs of reads in alternating order (B C, C B, …: each lane is as often
    /// first as second, so whatever the order costs falls on both), each read the fastest
    /// of `runs_per_read` runs, every run judged, until the speed is decided. An audit
    /// read, when its secret position comes, runs in place of a timed run, followed by one
    /// untimed pair that puts both lanes back as a timed read finds them (ending with the
    /// lane the timed run starts with). Every `order_block` pairs (where the arena sets
    /// one) both lanes start afresh in the other order.
    pub fn speed(
        &mut self,
        rec: &mut SpeedRecord,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<speed::Decision, Outcome> {
        let j = self.arena.judging;
        loop {
            progress(Progress::Cases {
                done: rec.baseline_ms.len(),
                total: j.max_pairs,
            });
            let (mut b_ms, mut c_ms) = (f64::INFINITY, f64::INFINITY);
            let mut dispatch = Vec::new();
            for _ in 0..j.runs_per_read.max(1) {
                self.runs += 1;
                if self.audit_at.remove(&self.runs) {
                    let started = Instant::now();
                    let audited = self
                        .audit_read(self.runs)
                        .and_then(|()| self.untimed_pair_before(self.runs));
                    self.times.add("audit", started.elapsed());
                    audited?;
                }
                let cand_first = Self::cand_first(self.runs);
                let started = Instant::now();
                let timed = self.pair(cand_first);
                self.times.add("speed_reads", started.elapsed());
                let (read, pair) = timed?;
                b_ms = b_ms.min(pair.base_ms);
                c_ms = c_ms.min(pair.cand_ms);
                let started = Instant::now();
                let judged = self.judge(&read, &pair, cand_first, rec);
                self.times.add("read_judging", started.elapsed());
                judged?;
                dispatch = pair.dispatch;
            }
            rec.baseline_ms.push(b_ms);
            rec.candidate_ms.push(c_ms);
            rec.candidate_dispatch = SlotId::ALL
                .iter()
                .zip(&dispatch)
                .map(|(s, &n)| (s.as_str().to_string(), n))
                .collect();
            if c_ms < rec.floor_ms {
                return Err(Outcome::Fail(fail(
                    Stage::Speed,
                    FailReason::Cheating,
                    format!(
                        "a read took {c_ms:.3} ms, below the physical floor of {:.3} ms",
                        rec.floor_ms
                    ),
                )));
            }
            if let Some(s) = self
                .slots
                .iter()
                .find(|s| dispatch.get(s.index()).copied().unwrap_or(0) == 0)
            {
                return Err(Outcome::Fail(fail(
                    Stage::Speed,
                    FailReason::NotFaster,
                    format!(
                        "the candidate's {s} kernel never ran in the workload (dispatch count 0)"
                    ),
                )));
            }
            let rule = speed::Rule::of(&j);
            let d = speed::decide(&rec.baseline_ms, &rec.candidate_ms, rule);
            if d != speed::Decision::Continue {
                return Ok(d);
            }
            let pairs = rec.baseline_ms.len();
            if rule.block.is_some_and(|b| pairs.is_multiple_of(b.max(1))) {
                self.restart_lanes()?;
            }
        }
    }

    /// The audit reads whose positions the decision came before, now, where a timed read
    /// would be.
    pub fn remaining_audits(&mut self) -> Result<(), Outcome> {
        let started = Instant::now();
        let audited = std::mem::take(&mut self.audit_at)
            .into_iter()
            .try_for_each(|at| self.audit_read(at));
        self.times.add("audit", started.elapsed());
        audited
    }

    /// One more read of both engines with their logits (for the pristine reference),
    /// then both lanes shut down: the read's prompts and the two reads.
    pub fn last_read(mut self) -> Result<(ReadSpec, RunResult, RunResult), Outcome> {
        let read = self.read();
        let runs = (
            self.base.run(&read, true, false),
            self.cand.run(&read, true, false),
        );
        self.base.shutdown();
        self.cand.shutdown();
        match runs {
            (Ok(b), Ok(c)) => Ok((read, b, c)),
            (Err(e), _) => Err(lane_outcome(
                Stage::Pristine,
                LaneError::Infrastructure(e.to_string()),
            )),
            (_, Err(e)) => Err(lane_outcome(Stage::Pristine, e)),
        }
    }
}
