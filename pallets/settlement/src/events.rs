//! The pallet's events (a section of [`crate::pallet`]): past-tense structs with named fields,
//! one per state change a client may follow.

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod events {
    #[pallet::event]
    #[pallet::generate_deposit(pub(super) fn deposit_event)]
    pub enum Event<T: Config> {
        /// A catalog target was added or changed.
        TargetSet {
            target: TargetId,
            kind: TargetKind,
            status: Status,
        },
        /// An arena was added or its configuration changed.
        ArenaSet { arena: ArenaId, status: Status },
        /// A validator key was registered for an arena under an operator.
        ValidatorAdded {
            arena: ArenaId,
            validator: T::AccountId,
            operator: T::AccountId,
        },
        /// A validator was removed from an arena.
        ValidatorRemoved {
            arena: ArenaId,
            validator: T::AccountId,
        },
        /// A validator key published where it serves its evidence reports.
        EvidenceEndpointSet {
            validator: T::AccountId,
            endpoint: Endpoint,
        },
        /// A validator key withdrew its evidence endpoint.
        EvidenceEndpointCleared { validator: T::AccountId },
        /// The emissions policy was changed.
        EmissionsSet {
            epoch_blocks: BlockNumberFor<T>,
            emission_per_epoch: BalanceOf<T>,
        },
        /// A miner committed to a bundle.
        Committed {
            miner: T::AccountId,
            commitment: Commitment,
        },
        /// A miner cancelled an unrevealed commitment; its deposit was released.
        CommitCancelled {
            miner: T::AccountId,
            commitment: Commitment,
        },
        /// A bundle was revealed as a proposal: queued, unless `QueueWasFull` follows.
        Revealed {
            proposal: ProposalId,
            miner: T::AccountId,
            arena: ArenaId,
            target: TargetId,
            content_hash: ContentHash,
            bytes: u32,
        },
        /// A miner withdrew a queued proposal.
        Withdrawn { proposal: ProposalId },
        /// A validator leased one phase of a proposal.
        Leased {
            proposal: ProposalId,
            validator: T::AccountId,
            phase: Phase,
            generation: u32,
            expires_at: BlockNumberFor<T>,
        },
        /// A primary PASS was recorded; the proposal waits for its reproduction.
        PassRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            speedup_ppm: u32,
            evidence_digest: EvidenceDigest,
        },
        /// A disputable FAIL was recorded; it sticks only if another operator's attempt
        /// FAILs too. The proposal went back to its phase's queue.
        FailRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: FailReason,
            evidence_digest: EvidenceDigest,
        },
        /// The proposal failed; terminal.
        Failed {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: FailReason,
            evidence_digest: EvidenceDigest,
        },
        /// Two attempts of one proposal reached opposite verdicts (a PASS and a FAIL, in
        /// either order); both digests name the evidence.
        AttestationsDisagreed {
            proposal: ProposalId,
            pass_validator: T::AccountId,
            /// `None` while the PASS is sealed (a primary PASS before its reveal).
            pass_evidence: Option<EvidenceDigest>,
            fail_validator: T::AccountId,
            fail_evidence: EvidenceDigest,
            reason: FailReason,
        },
        /// No decision was reached; the proposal went back to its queue.
        NoDecisionRecorded {
            proposal: ProposalId,
            validator: T::AccountId,
            reason: NoDecisionReason,
            attempts: u32,
            evidence_digest: EvidenceDigest,
        },
        /// A lease ran out without an attestation; the proposal went back to its queue.
        LeaseExpired {
            proposal: ProposalId,
            validator: T::AccountId,
            attempts: u32,
        },
        /// An attestation measured an incumbent generation that is no longer current; the
        /// proposal went back to the queue to be measured again.
        AttestationStale {
            proposal: ProposalId,
            validator: T::AccountId,
            generation: u32,
            current: u32,
        },
        /// A recorded primary PASS was dropped because the incumbent advanced or its
        /// validator was removed.
        PassDropped {
            proposal: ProposalId,
            generation: u32,
        },
        /// An earlier commitment revealed the same ContentHash as an already revealed
        /// proposal: the content now belongs to `proposal`, and `previous` can never crown.
        ContentReclaimed {
            content_hash: ContentHash,
            proposal: ProposalId,
            previous: ProposalId,
        },
        /// A pending proposal was dropped because a crowned atomic target now displaces its
        /// target; its bundle deposit was returned.
        ProposalDropped {
            proposal: ProposalId,
            displaced_by: ProposalId,
        },
        /// The proposal ran out of attempts, or no operator is left to try it; its deposits
        /// were returned.
        Expired { proposal: ProposalId, attempts: u32 },
        /// No other operator leased the reproduction within `ReproductionTimeout` blocks of
        /// the primary PASS: the proposal expired, its deposits were returned.
        ReproductionTimedOut {
            proposal: ProposalId,
            primary_validator: T::AccountId,
        },
        /// A terminal proposal was deleted after `ProposalRetention` blocks.
        ProposalPruned { proposal: ProposalId },
        /// A proposal failed `Cheating` or `CopyOf`: its bundle deposit went to the reward
        /// pot instead of back to its miner.
        DepositSlashed {
            proposal: ProposalId,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// The proposal became part of its arena's incumbent stack.
        Crowned {
            proposal: ProposalId,
            miner: T::AccountId,
            arena: ArenaId,
            target: TargetId,
            speedup_ppm: u32,
            generation: u32,
            /// The evidence digests of the crowning PASSes (primary first).
            evidence: BoundedVec<EvidenceDigest, MaxPasses>,
        },
        /// A crowned proposal left the incumbent stack; its claim ended.
        Retired {
            proposal: ProposalId,
            cause: RetireCause,
        },
        /// The epoch's weight vector was computed.
        WeightsSet {
            epoch: u32,
            weights: WeightVectorOf<T>,
        },
        /// Emissions were paid from the reward pot.
        EmissionsPaid { epoch: u32, total: BalanceOf<T> },
        /// A miner's share of an epoch's emission could not be paid (for example below the
        /// existential deposit of a new account); it stays in the pot.
        EmissionUnpaid {
            epoch: u32,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// An operator bonded `amount` more in an arena; `total` is its bond there now.
        OperatorBonded {
            arena: ArenaId,
            operator: T::AccountId,
            amount: BalanceOf<T>,
            total: BalanceOf<T>,
        },
        /// An operator took `amount` out of its bond in an arena; `total` is what is left
        /// bonded. `withdraw_unbonded` releases `amount` from `release_at`; it can be slashed
        /// until then.
        OperatorUnbonded {
            arena: ArenaId,
            operator: T::AccountId,
            amount: BalanceOf<T>,
            total: BalanceOf<T>,
            release_at: BlockNumberFor<T>,
        },
        /// An operator withdrew `amount` of unbonded funds in an arena: released to it.
        UnbondedWithdrawn {
            arena: ArenaId,
            operator: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// The admin origin set what an operator must bond in an arena to lease there.
        RequiredBondSet {
            arena: ArenaId,
            amount: BalanceOf<T>,
        },
        /// A proposal was still pending `PendingLifetime` blocks after its reveal and expired
        /// (deposits returned).
        LifetimeEnded { proposal: ProposalId },
        /// A pending proposal's content was reclaimed by an earlier commitment: the proposal
        /// was a copy of `original` and FAILed `CopyOf` at once.
        CopyEnded {
            proposal: ProposalId,
            original: ProposalId,
        },
        /// The admin origin overturned a proposal's FAIL; `refunded` went back to the miner.
        FailOverturned {
            proposal: ProposalId,
            miner: T::AccountId,
            reason: FailReason,
            refunded: BalanceOf<T>,
        },
        /// `challenger` challenged a crown, holding `bond`; without two agreeing answers by
        /// `deadline` the challenge expires.
        ChallengeOpened {
            challenge: ChallengeId,
            proposal: ProposalId,
            challenger: T::AccountId,
            bond: BalanceOf<T>,
            deadline: BlockNumberFor<T>,
        },
        /// A validator key leased a challenge to re-qualify its crown.
        ChallengeLeased {
            challenge: ChallengeId,
            validator: T::AccountId,
            expires_at: BlockNumberFor<T>,
        },
        /// A validator key answered a challenge.
        ChallengeAnswered {
            challenge: ChallengeId,
            validator: T::AccountId,
            verdict: Verdict,
            evidence_digest: EvidenceDigest,
        },
        /// Two operators FAILed a challenged crown for what its bytes are: it left the
        /// incumbent stack (if it was still there), its claim ended, and the operators whose
        /// PASSes crowned it were slashed `slashed` in all, of which `challenger_reward` went
        /// to the challenger (the rest to the reward pot). The challenger's bond was returned.
        CrownRevoked {
            proposal: ProposalId,
            challenge: ChallengeId,
            reason: FailReason,
            slashed: BalanceOf<T>,
            challenger_reward: BalanceOf<T>,
        },
        /// An operator lost `amount` of its bond in `arena` to a revocation.
        OperatorSlashed {
            arena: ArenaId,
            operator: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// Two operators PASSed a challenged crown: the crown stands, and the challenger's bond
        /// went to them, `paid_each` each (a remainder to the reward pot).
        ChallengeRejected {
            challenge: ChallengeId,
            proposal: ProposalId,
            requalified_by: BoundedVec<T::AccountId, MaxPasses>,
            paid_each: BalanceOf<T>,
        },
        /// A challenge reached its deadline without two agreeing answers; its bond was
        /// returned.
        ChallengeExpired {
            challenge: ChallengeId,
            proposal: ProposalId,
        },
        /// A primary PASS was recorded as its seal only; the proposal waits for its
        /// reproduction, which cannot read the speedup or the evidence.
        PassSealed {
            proposal: ProposalId,
            validator: T::AccountId,
            seal: cacheon_primitives::Seal,
        },
        /// A sealed primary PASS was opened after the reproduction's PASS.
        PassRevealed {
            proposal: ProposalId,
            validator: T::AccountId,
            speedup_ppm: u32,
            evidence_digest: EvidenceDigest,
        },
        /// A sealed primary PASS was not revealed in time: void, its operator's stall; the
        /// reproduction's PASS became the primary (unless the generation moved on).
        RevealMissed {
            proposal: ProposalId,
            validator: T::AccountId,
        },
        /// A proposal was revealed while its arena's queue held `MaxQueueLen` proposals: not
        /// queued (`NotQueued`), its content owned by its commitment.
        QueueWasFull {
            proposal: ProposalId,
            arena: ArenaId,
        },
        /// The admin origin quoted what measuring a proposal costs in an arena.
        EvaluationFeeSet {
            arena: ArenaId,
            fee: EvaluationFeeOf<T>,
            per_verdict: BalanceOf<T>,
        },
        /// A reveal held its arena's evaluation fee from the miner until the proposal ends.
        EvaluationFeeHeld {
            proposal: ProposalId,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// A verdict the proposal's outcome confirmed (a crowning PASS, a FAIL that stuck)
        /// was paid to its operator from the miner's held evaluation fee.
        VerdictPaid {
            proposal: ProposalId,
            operator: T::AccountId,
            amount: BalanceOf<T>,
        },
        /// A proposal ended and what its evaluation fee had not paid went back to its miner:
        /// every attempt that ended on a validator's side (a stall, a lease run out, a
        /// NoDecision, a stale or unconfirmed verdict) costs the miner nothing.
        EvaluationFeeReturned {
            proposal: ProposalId,
            miner: T::AccountId,
            amount: BalanceOf<T>,
        },
    }
}
