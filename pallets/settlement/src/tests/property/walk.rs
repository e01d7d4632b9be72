//! One seed's walk: choosing each step's action, dispatching it, advancing blocks and
//! checking every invariant after each.

use super::*;

impl Walk {
    pub(super) fn new(seed: u64, trace: bool) -> Self {
        Self {
            seed,
            setup: Setup::for_seed(seed),
            rng: Rng::new(seed),
            trace,
            commits: Vec::new(),
            planned: None,
            sealed: BTreeMap::new(),
            step: 0,
            issuance: 0,
        }
    }

    /// Runs the walk on a fresh chain.
    pub(super) fn run(mut self, steps: u32, tally: &mut Tally) {
        in_overlay(self.setup.builder().build()).execute_with(|| {
            if self.setup.fourth_operator {
                // A fourth operator, and every operator bonded: a revocation has stakes.
                assert_ok!(Cacheon::add_validator(root(), id(ARENA), V4, V4));
                for operator in OPERATORS {
                    assert_ok!(Cacheon::bond(signed(operator), id(ARENA), 400));
                }
            }
            self.issuance = Balances::total_issuance();
            self.check("genesis");
            for step in 0..steps {
                self.step = step;
                let action = self.next_action();
                let succeeded = self.apply(&action, tally);
                if self.trace {
                    let outcome = if succeeded { "ok" } else { "failed" };
                    println!(
                        "seed {} step {step} (block {}): {action:?} -> {outcome}",
                        self.seed,
                        now()
                    );
                }
                tally.record_call(action.name(), succeeded);
                tally.record_events();
                self.check(&format!("{action:?}"));
            }
        });
    }

    // ---- Choosing the next action ----

    fn next_action(&mut self) -> Action {
        if let Some(action) = self.planned.take() {
            return action;
        }
        if self.rng.chance(12) {
            return self.challenge_step();
        }
        if self.rng.chance(8) {
            if let Some(reveal) = self.reveal_pass() {
                return reveal;
            }
        }
        match self.rng.below(100) {
            0..=2 => self.bond(),
            3..=16 => self.commit(),
            17..=30 => self.reveal(),
            31..=33 => self.cancel_commit(),
            34..=36 => self.withdraw(),
            37..=56 => self.claim(),
            57..=79 => self.attest(),
            80..=91 => self.advance(),
            92..=95 => self.idle(),
            96 => Action::RemoveValidator {
                validator: self.rng.pick(&VALIDATOR_KEYS),
            },
            97 => self.add_validator(),
            98 => self.reconfigure(),
            _ => match self.rng.below(4) {
                0 => self.set_emissions(),
                1 => self.overturn(),
                2 => Action::SetRequiredBond {
                    amount: self.rng.pick(&[0, 0, 100, 300]),
                },
                _ => self.jump(),
            },
        }
    }

    /// Overturns a failed proposal's FAIL, usually from the admin origin.
    fn overturn(&mut self) -> Action {
        let failed: Vec<ProposalId> = Proposals::<Test>::iter()
            .filter(|(_, p)| matches!(p.status, ProposalStatus::Failed { .. }))
            .map(|(id, _)| id)
            .collect();
        let proposal = if !failed.is_empty() && self.rng.chance(85) {
            self.rng.pick(&failed)
        } else {
            self.some_proposal(20)
        };
        Action::OverturnFail {
            proposal,
            admin: self.rng.chance(90),
        }
    }

    /// Jumps to the end of the oldest pending proposal's lifetime (or one block on).
    fn jump(&mut self) -> Action {
        let oldest = Proposals::<Test>::iter_values()
            .filter(|p| p.status.is_pending())
            .map(|p| p.reveal_block)
            .min();
        Action::Jump {
            to: oldest.map_or(now() + 1, |r| (r + PENDING_LIFETIME).max(now() + 1)),
        }
    }

    fn commit(&mut self) -> Action {
        let miner = self.rng.pick(&MINERS);
        // A miner at its cap of pending commitments usually cancels one it can no longer
        // reveal first.
        let at_cap = PendingCommits::<Test>::get(miner)
            >= <<Test as Config>::MaxPendingCommits as Get<u32>>::get();
        let stale = self
            .pending_commits()
            .into_iter()
            .find(|c| c.miner == miner && !c.open());
        if let (true, Some(c)) = (at_cap, stale) {
            if self.rng.chance(80) {
                return c.cancel();
            }
        }
        Action::Commit {
            miner,
            target: self.rng.pick(&TARGETS),
            tag: self.tag_for(miner),
        }
    }

    /// Mostly one of the miner's own bundles, sometimes another miner's (a copy).
    fn tag_for(&mut self, miner: AccountId) -> &'static str {
        let own = MINERS.iter().position(|m| *m == miner).unwrap_or(0) as u64;
        if self.rng.chance(80) {
            TAGS[(2 * own + self.rng.below(2)) as usize]
        } else {
            self.rng.pick(&TAGS)
        }
    }

    /// The walk's pending commitments; forgets those revealed or cancelled.
    fn pending_commits(&mut self) -> Vec<Committed> {
        self.commits.retain(|c| c.committed_at().is_some());
        self.commits.clone()
    }

    fn reveal(&mut self) -> Action {
        let now = now();
        let pending = self.pending_commits();
        let open: Vec<Committed> = pending.iter().filter(|c| c.open()).copied().collect();
        // Usually one that can still be revealed; with none, usually a new commitment.
        let c = match (open.is_empty(), pending.is_empty()) {
            (false, _) if self.rng.chance(95) => self.rng.pick(&open),
            (_, false) if self.rng.chance(15) => self.rng.pick(&pending),
            _ => return self.commit(),
        };
        let tag = if self.rng.chance(5) {
            self.rng.pick(&TAGS)
        } else {
            c.tag
        };
        let reveal = Action::Reveal {
            miner: c.miner,
            target: c.target,
            tag,
        };
        // Too early: usually wait for the first block it may be revealed at, then reveal.
        let due = c.committed_at().unwrap_or(now) + REVEAL_DELAY;
        if self.rng.chance(85) {
            return self.wait_until(due, reveal);
        }
        reveal
    }

    fn cancel_commit(&mut self) -> Action {
        let pending = self.pending_commits();
        let stale: Vec<Committed> = pending.iter().filter(|c| !c.open()).copied().collect();
        let c = if !stale.is_empty() && self.rng.chance(70) {
            self.rng.pick(&stale)
        } else if !pending.is_empty() && self.rng.chance(90) {
            self.rng.pick(&pending)
        } else {
            // Most likely never committed: refused.
            let miner = self.rng.pick(&MINERS);
            Committed::new(miner, self.rng.pick(&TARGETS), self.rng.pick(&TAGS))
        };
        c.cancel()
    }

    /// A proposal id: mostly one in the arena's queue, else any id up to two past the last.
    pub(super) fn some_proposal(&mut self, queued_percent: u64) -> ProposalId {
        let queued = queue();
        if !queued.is_empty() && self.rng.chance(queued_percent) {
            self.rng.pick(&queued)
        } else {
            self.rng.below(NextProposalId::<Test>::get() + 2)
        }
    }

    fn withdraw(&mut self) -> Action {
        let proposal = self.some_proposal(80);
        // Mostly by its own miner.
        let miner = match Proposals::<Test>::get(proposal) {
            Some(p) if self.rng.chance(80) => p.miner,
            _ => self.rng.pick(&MINERS),
        };
        Action::Withdraw { miner, proposal }
    }

    fn claim(&mut self) -> Action {
        let queued = queue();
        // Nothing to lease: usually reveal (or commit) instead.
        if queued.is_empty() && self.rng.chance(80) {
            return self.reveal();
        }
        let registered: Vec<AccountId> = Validators::<Test>::iter_key_prefix(id(ARENA)).collect();
        let validator = match self.rng.below(100) {
            _ if registered.is_empty() => self.rng.pick(&VALIDATOR_KEYS),
            0..=84 => self.rng.pick(&registered),
            85..=96 => self.rng.pick(&VALIDATOR_KEYS),
            _ => OUTSIDER,
        };
        // Leases follow reveal order: the first proposal waiting for a lease is the one most
        // often claimable.
        // With the block its wait for a reproduction times out at, if it waits for one.
        let first_waiting = queued.iter().copied().find_map(|p| {
            Proposals::<Test>::get(p).and_then(|proposal| match proposal.status {
                ProposalStatus::Queued => Some((p, None)),
                ProposalStatus::ReproductionQueued { until, .. } => Some((p, Some(until))),
                _ => None,
            })
        });
        let proposal = match first_waiting {
            Some((p, _)) if self.rng.chance(50) => p,
            _ => self.some_proposal(85),
        };
        let claim = Action::Claim {
            validator,
            proposal,
        };
        // Sometimes a reproduction is claimed late in its wait, so that its lease ends at (or
        // near) the block at which the wait would have timed out.
        if let Some((_, Some(until))) = first_waiting.filter(|(p, _)| *p == proposal) {
            if self.rng.chance(25) {
                let lease_blocks = Arenas::<Test>::get(id(ARENA))
                    .map_or(LEASE_BLOCKS, |a| a.config.policy.lease_blocks);
                let at = match self.rng.below(3) {
                    0 => until.saturating_sub(lease_blocks),
                    1 => until - 1,
                    _ => self.rng.between(now(), until - 1),
                };
                return self.wait_until(at, claim);
            }
        }
        claim
    }

    /// `action` now, or, when `at` is later, an advance to `at` with `action` planned next.
    fn wait_until(&mut self, at: u64, action: Action) -> Action {
        let now = now();
        if at <= now {
            return action;
        }
        self.planned = Some(action);
        Action::Advance { blocks: at - now }
    }

    pub(super) fn attest(&mut self) -> Action {
        let current = generation();
        let leased: Vec<(ProposalId, LeaseOf<Test>)> = Proposals::<Test>::iter()
            .filter_map(|(id, p)| match p.status {
                ProposalStatus::Primary { lease } | ProposalStatus::Reproduction { lease, .. } => {
                    Some((id, lease))
                }
                _ => None,
            })
            .collect();
        // No lease to attest: usually claim one instead.
        if leased.is_empty() && self.rng.chance(85) {
            return self.claim();
        }
        let (validator, proposal, lease) = if !leased.is_empty() && self.rng.chance(95) {
            let (id, lease) = leased[self.rng.below(leased.len() as u64) as usize].clone();
            let validator = if self.rng.chance(92) {
                lease.validator
            } else {
                self.rng.pick(&VALIDATOR_KEYS)
            };
            (validator, id, Some(lease))
        } else {
            (self.rng.pick(&VALIDATOR_KEYS), self.some_proposal(50), None)
        };
        let lease_generation = lease.as_ref().map_or(current, |l| l.generation);
        // Mostly the lease's generation; sometimes the next one (never right) or the
        // current one (wrong when the incumbent moved during the lease).
        let generation = match self.rng.below(100) {
            0..=87 => lease_generation,
            88..=93 => current + 1,
            _ => current,
        };
        let verdict = match self.rng.below(100) {
            0..=54 => Verdict::Pass {
                speedup_ppm: self.speedup(),
            },
            55..=79 => Verdict::Fail {
                reason: if self.rng.chance(12) {
                    FailReason::CopyOf(self.rng.below(NextProposalId::<Test>::get() + 1))
                } else {
                    self.rng.pick(&FAIL_REASONS)
                },
            },
            _ => Verdict::NoDecision {
                reason: self.rng.pick(&NO_DECISION_REASONS),
            },
        };
        // Few distinct digests, so that a reproduction sometimes repeats its primary's.
        let evidence = self.rng.below(12) as u8;
        let attempt = 100 + self.rng.below(12) as u8;
        // A primary PASS where two operators must agree is usually sealed (a plain one is
        // refused).
        let sealed_phase = Proposals::<Test>::get(proposal)
            .is_some_and(|p| matches!(p.status, ProposalStatus::Primary { .. }))
            && Arenas::<Test>::get(id(ARENA))
                .is_some_and(|a| a.config.policy.required_distinct_validators > 1);
        let attest = match verdict {
            Verdict::Pass { speedup_ppm } if sealed_phase && self.rng.chance(92) => {
                Action::AttestSealed {
                    validator,
                    proposal,
                    generation,
                    speedup_ppm,
                    evidence,
                    attempt,
                }
            }
            verdict => Action::Attest {
                validator,
                proposal,
                verdict,
                generation,
                evidence,
                attempt,
            },
        };
        // Sometimes in the lease's last block.
        match lease {
            Some(lease) if self.rng.chance(15) => self.wait_until(lease.expires_at - 1, attest),
            _ => attest,
        }
    }

    /// The reveal of a sealed PASS awaiting it: usually by its sealer with what it sealed,
    /// sometimes another key or a speedup that does not open the seal. `None` when no
    /// proposal awaits a reveal (unrevealed seals run into their deadline).
    fn reveal_pass(&mut self) -> Option<Action> {
        let awaiting: Vec<(ProposalId, AccountId)> = Proposals::<Test>::iter()
            .filter_map(|(id, p)| match p.status {
                ProposalStatus::AwaitingReveal { primary, .. } => Some((id, primary.validator)),
                _ => None,
            })
            .collect();
        if awaiting.is_empty() {
            return None;
        }
        let (proposal, sealer) = awaiting[self.rng.below(awaiting.len() as u64) as usize];
        let (speedup_ppm, evidence, attempt) = self
            .sealed
            .get(&(proposal, sealer))
            .copied()
            .unwrap_or((PPM_ONE + MARGIN_PPM, 0, 100));
        let validator = if self.rng.chance(92) {
            sealer
        } else {
            self.rng.pick(&VALIDATOR_KEYS)
        };
        let speedup_ppm = if self.rng.chance(8) {
            speedup_ppm.wrapping_add(1)
        } else {
            speedup_ppm
        };
        Some(Action::RevealPass {
            validator,
            proposal,
            speedup_ppm,
            evidence,
            attempt,
        })
    }

    /// A reported speedup: mostly above the margin, sometimes just below or at it, sometimes
    /// above `MaxSpeedupPpm` (and above a lower arena cap more often).
    pub(super) fn speedup(&mut self) -> u32 {
        let floor = PPM_ONE as u64 + MARGIN_PPM as u64;
        let ppm = match self.rng.below(100) {
            0..=7 => self.rng.between(PPM_ONE as u64, floor - 1),
            8..=29 => self.rng.between(floor, floor + 2_000),
            30..=91 => self.rng.between(floor, 3 * PPM_ONE as u64),
            92..=95 => MAX_SPEEDUP_PPM as u64,
            _ => self
                .rng
                .between(MAX_SPEEDUP_PPM as u64 + 1, u32::MAX as u64),
        };
        ppm as u32
    }

    fn advance(&mut self) -> Action {
        let blocks = match self.rng.below(100) {
            0..=54 => 1,
            55..=84 => self.rng.between(2, LEASE_BLOCKS + 1),
            _ => self.rng.between(LEASE_BLOCKS + 2, REPRODUCTION_TIMEOUT + 5),
        };
        Action::Advance { blocks }
    }

    fn idle(&mut self) -> Action {
        let weights = <() as WeightInfo>::prune_proposals;
        let weight = match self.rng.below(100) {
            0..=49 => Weight::MAX,
            50..=59 => Weight::zero(),
            60..=84 => weights(self.rng.below(4) as u32),
            _ => weights(self.rng.below(4) as u32)
                .saturating_add(<() as WeightInfo>::clear_reveal_period(64)),
        };
        Action::Idle { weight }
    }

    fn add_validator(&mut self) -> Action {
        let validator = self.rng.pick(&VALIDATOR_KEYS);
        // Usually its own operator; sometimes another's, so that operators share keys.
        let operator = if self.rng.chance(60) {
            validator
        } else {
            self.rng.pick(&OPERATORS)
        };
        Action::AddValidator {
            validator,
            operator,
        }
    }

    /// Changes the arena's policy or pauses or resumes a target (the admin origin).
    fn reconfigure(&mut self) -> Action {
        if self.rng.chance(50) {
            let base = if self.setup.single_validator { 1 } else { 2 };
            Action::SetArena {
                required_distinct_validators: if self.rng.chance(75) { base } else { 3 - base },
                lease_blocks: self.rng.between(1, LEASE_BLOCKS + 2),
                max_attempts: self.rng.between(1, MAX_ATTEMPTS as u64 + 1) as u32,
                // Mostly the chain's cap, sometimes one that refuses some PASSes, or one
                // below the margin (refused).
                max_speedup_ppm: self.rng.pick(&[
                    MAX_SPEEDUP_PPM,
                    MAX_SPEEDUP_PPM,
                    3_000_000,
                    1_500_000,
                    PPM_ONE + MARGIN_PPM - 1,
                ]),
                paused: self.rng.chance(10),
            }
        } else {
            Action::SetTargetStatus {
                target: self.rng.pick(&TARGETS),
                paused: self.rng.chance(30),
            }
        }
    }

    fn set_emissions(&mut self) -> Action {
        Action::SetEmissions {
            // 1 is refused: an epoch must be longer than a payout run.
            epoch_blocks: self.rng.pick(&[1, 2, 5, EPOCH_BLOCKS, 2 * EPOCH_BLOCKS]),
            emission_per_epoch: self.rng.pick(&[0, EMISSION, 100 * EMISSION]),
        }
    }

    // ---- Applying an action ----

    /// Applies `action`; returns whether its call succeeded (hooks always do).
    fn apply(&mut self, action: &Action, tally: &mut Tally) -> bool {
        use crate::Call as C;
        let call: (RuntimeOrigin, C<Test>) = match *action {
            Action::Commit { miner, target, tag } => (
                signed(miner),
                C::commit {
                    commitment: Committed::new(miner, target, tag).commitment,
                },
            ),
            Action::Reveal { miner, target, tag } => (
                signed(miner),
                C::reveal {
                    arena: id(ARENA),
                    target: id(target.0),
                    salt: SALT,
                    bundle: bundle(tag),
                },
            ),
            Action::CancelCommit { miner, target, tag } => (
                signed(miner),
                C::cancel_commit {
                    commitment: Committed::new(miner, target, tag).commitment,
                },
            ),
            Action::Withdraw { miner, proposal } => (signed(miner), C::withdraw { proposal }),
            Action::Claim {
                validator,
                proposal,
            } => (signed(validator), C::claim { proposal }),
            Action::Attest {
                validator,
                proposal,
                verdict,
                generation,
                evidence,
                attempt,
            } => (
                signed(validator),
                C::attest {
                    proposal,
                    attestation: att(verdict, generation, evidence, attempt),
                },
            ),
            Action::AttestSealed {
                validator,
                proposal,
                generation,
                speedup_ppm,
                evidence,
                attempt,
            } => (
                signed(validator),
                C::attest_sealed {
                    proposal,
                    incumbent_generation: generation,
                    seal: cacheon_primitives::pass_seal(
                        proposal,
                        &validator,
                        generation,
                        speedup_ppm,
                        &[evidence; 32],
                        &[attempt; 32],
                        &SEAL_SALT,
                    ),
                },
            ),
            Action::RevealPass {
                validator,
                proposal,
                speedup_ppm,
                evidence,
                attempt,
            } => (
                signed(validator),
                C::reveal_pass {
                    proposal,
                    speedup_ppm,
                    evidence_digest: [evidence; 32],
                    attempt_digest: [attempt; 32],
                    salt: SEAL_SALT,
                },
            ),
            Action::Advance { blocks } => {
                // Block by block: every block's events are counted and its state checked.
                for _ in 0..blocks {
                    run_to_block(now() + 1);
                    tally.record_events();
                    self.check(&format!("{action:?}"));
                }
                return true;
            }
            Action::Idle { weight } => {
                Cacheon::on_idle(now(), weight);
                return true;
            }
            Action::Jump { to } => {
                run_to_block(to);
                return true;
            }
            Action::Bond { .. }
            | Action::WithdrawUnbonded { .. }
            | Action::Challenge { .. }
            | Action::ClaimChallenge { .. }
            | Action::AnswerChallenge { .. } => Self::stake_call(action),
            Action::SetRequiredBond { amount } => (
                root(),
                C::set_required_bond {
                    arena: id(ARENA),
                    amount,
                },
            ),
            Action::OverturnFail { proposal, admin } => (
                if admin { root() } else { signed(OUTSIDER) },
                C::overturn_fail { proposal },
            ),
            Action::RemoveValidator { validator } => (
                root(),
                C::remove_validator {
                    arena: id(ARENA),
                    validator,
                },
            ),
            Action::AddValidator {
                validator,
                operator,
            } => (
                root(),
                C::add_validator {
                    arena: id(ARENA),
                    validator,
                    operator,
                },
            ),
            Action::SetArena {
                required_distinct_validators,
                lease_blocks,
                max_attempts,
                max_speedup_ppm,
                paused,
            } => {
                let mut config = arena_config(required_distinct_validators);
                config.policy.lease_blocks = lease_blocks;
                config.policy.max_attempts = max_attempts;
                config.policy.max_speedup_ppm = max_speedup_ppm;
                if paused {
                    config.status = Status::Paused;
                }
                (root(), C::set_arena { config })
            }
            Action::SetTargetStatus { target, paused } => {
                let mut spec = if target.0 == ROPE_DECODE {
                    atomic_target()
                } else {
                    slot_target(target.0)
                };
                if paused {
                    spec.status = Status::Paused;
                }
                (root(), C::set_target { spec })
            }
            Action::SetEmissions {
                epoch_blocks,
                emission_per_epoch,
            } => {
                let mut policy = emissions(emission_per_epoch);
                policy.epoch_blocks = epoch_blocks;
                (root(), C::set_emissions { policy })
            }
        };
        let (origin, call) = call;
        let succeeded = RuntimeCall::from(call).dispatch(origin).is_ok();
        match (succeeded, action) {
            (true, Action::Commit { miner, target, tag }) => {
                self.commits.push(Committed::new(*miner, *target, tag));
            }
            (
                true,
                Action::AttestSealed {
                    validator,
                    proposal,
                    speedup_ppm,
                    evidence,
                    attempt,
                    ..
                },
            ) => {
                self.sealed
                    .insert((*proposal, *validator), (*speedup_ppm, *evidence, *attempt));
            }
            _ => {}
        }
        succeeded
    }
}
