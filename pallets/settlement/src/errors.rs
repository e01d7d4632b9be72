//! The pallet's errors (a section of [`crate::pallet`]): one per way a call can be refused.

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod errors {
    #[pallet::error]
    pub enum Error<T> {
        /// An id is empty, too long or has characters outside `[a-z0-9._-]`.
        InvalidId,
        /// A singleton target must have exactly one member: its own id.
        SingletonMembers,
        /// An atomic target needs at least two distinct member slots.
        AtomicMembers,
        /// An atomic target must displace every member's singleton target.
        AtomicMustDisplaceMembers,
        /// A target names a displaced target that is not in the catalog.
        UnknownDisplaced,
        /// The change would make displacement cyclic.
        DisplacementCycle,
        /// The target is crowned in an arena where a target it would displace is crowned too;
        /// the change would leave one incumbent entry displacing another.
        DisplacesCrowned,
        /// The catalog is full.
        TooManyTargets,
        /// No such target.
        UnknownTarget,
        /// An arena names a target that is not in the catalog.
        ArenaTargetUnknown,
        /// An arena's policy is out of range (lease, attempts or validator count).
        InvalidPolicy,
        /// No such arena.
        UnknownArena,
        /// There are already `MaxArenas` arenas.
        TooManyArenas,
        /// The account is already a validator of this arena.
        AlreadyValidator,
        /// The account is not a validator of this arena.
        NotValidator,
        /// The key is registered (in another arena) under another operator.
        OperatorMismatch,
        /// An evidence endpoint must be an `http://` URL of printable ASCII without spaces
        /// or `?`, `#`, `%`, `@`.
        BadEndpoint,
        /// The arena has `MaxValidators` validators.
        TooManyValidators,
        /// The emissions policy needs non-zero `half_life_blocks` and an epoch longer than
        /// the payout of `MaxClaims` shares takes (`PAYOUTS_PER_BLOCK` a block).
        InvalidEmissions,
        /// The same commitment is already pending for this miner.
        AlreadyCommitted,
        /// The miner has `MaxPendingCommits` pending commitments.
        TooManyCommits,
        /// No pending commitment of this miner matches the revealed data.
        UnknownCommitment,
        /// The reveal comes before `RevealDelay` blocks have passed since the commit.
        RevealTooEarly,
        /// The reveal comes after `RevealWindow` blocks since the commit.
        RevealTooLate,
        /// The arena is paused.
        ArenaPaused,
        /// The target is paused.
        TargetPaused,
        /// The arena does not allow this target.
        TargetNotInArena,
        /// An active atomic incumbent displaces this target in this arena.
        TargetDisplaced,
        /// The miner has made `MaxRevealsPerPeriod` reveals in this reveal period.
        RevealCapReached,
        /// Another account revealed a bundle with this ContentHash from an earlier (or the
        /// same) commitment block.
        CopyOfOtherMiner,
        /// The bundle is larger than `MaxBundleBytes`.
        BundleTooLarge,
        /// The bundle has more files than allowed.
        BundleTooManyFiles,
        /// The bundle has no files.
        BundleEmpty,
        /// The bundle bytes are not a SCALE file list, or bytes follow it.
        BundleMalformed,
        /// A bundle path breaks the path rules (relative, `[A-Za-z0-9._-]` components, ≤ 255 bytes).
        BundleBadPath,
        /// Bundle files are not sorted by path or a path repeats or conflicts with a directory.
        BundleNotCanonical,
        /// A bundle file is a binary (extension, ELF magic or NUL byte).
        BundleBinary,
        /// No such proposal.
        UnknownProposal,
        /// Only the proposal's miner may do this.
        NotMiner,
        /// Only a proposal no validator holds a lease on (queued, or waiting for its
        /// reproduction) can be withdrawn.
        NotWithdrawable,
        /// The proposal is not waiting for a lease.
        NotClaimable,
        /// An earlier proposal of this arena's queue is claimable by the caller: leases follow
        /// reveal order.
        OutOfTurn,
        /// The reproduction (or the second opinion on a FAIL) must come from an operator other
        /// than the first attempt's.
        SameOperator,
        /// The caller's operator already gave this proposal a NoDecision, a lease expiry or the
        /// FAIL that waits for a second opinion.
        OperatorExcluded,
        /// The operator holds `MaxLeasesPerOperator` open leases.
        TooManyLeases,
        /// The attempt that would crown this proposal waits until every commitment older than
        /// its own is past its reveal window (until then an earlier commitment of the same
        /// content could still be revealed).
        PriorityNotFinal,
        /// An earlier proposal of the arena's queue for an overlapping target is still pending;
        /// crowns follow reveal order.
        EarlierOverlapPending,
        /// Too many leases expire in the same block; claim again in the next block.
        LeaseScheduleFull,
        /// The caller does not hold the proposal's lease.
        NotLeaseHolder,
        /// The lease has expired.
        LeaseExpired,
        /// The attestation names a generation other than the lease's.
        GenerationMismatch,
        /// A PASS must clear the arena's margin.
        BelowMargin,
        /// A PASS reports a speedup above its arena's `max_speedup_ppm`.
        SpeedupImplausible,
        /// The reproduction repeats the primary's attempt or evidence digest (or a revealed
        /// primary PASS the reproduction's).
        DuplicateEvidence,
        /// The arena's generation counter would overflow.
        GenerationOverflow,
        /// A counter or balance computation overflowed.
        Overflow,
        /// There are `MaxClaims` active reward claims.
        TooManyClaims,
        /// A validator may not lease a proposal revealed by itself, its operator or another key
        /// of its operator.
        OwnProposal,
        /// The arena's stalls could outlast `PendingLifetime`: its `max_attempts` and
        /// `lease_blocks` are too large for the chain's proposal lifetime.
        LifetimeTooShort,
        /// A target names the same displaced target twice.
        DuplicateDisplaced,
        /// A FAIL on the proposal waits for a second operator's opinion.
        VerdictDisputed,
        /// The proposal has not failed (only a FAIL can be overturned).
        NotFailed,
        /// The reward pot cannot refund the forfeited deposit now.
        PotCannotRefund,
        /// The operator's bond in this arena is below the arena's required bond.
        BondTooLow,
        /// A bond or unbond of nothing.
        ZeroAmount,
        /// More than the operator has bonded in this arena.
        UnbondTooLarge,
        /// The operator holds a lease: its bond stays until the lease ends.
        LeaseOpen,
        /// These bytes FAILed in this arena for what they are, or against the incumbent that
        /// is still current: revealing them again cannot change the verdict.
        FailReplay,
        /// Only a standing crown can be challenged: the proposal is not crowned, or no longer
        /// in its slot's incumbent stack (superseded or displaced).
        NotCrowned,
        /// The crown already has an open challenge.
        AlreadyChallenged,
        /// The arena has `MaxOpenChallenges` open challenges.
        TooManyChallenges,
        /// No such open challenge (it never was, or it has ended).
        UnknownChallenge,
        /// The caller's operator gave one of the PASSes that crowned this proposal: it may not
        /// re-qualify its own verdict.
        PassedByOperator,
        /// The caller's operator opened this challenge: it may not judge it.
        OwnChallenge,
        /// The caller's operator has already answered this challenge (one verdict per
        /// operator).
        AlreadyAnswered,
        /// The caller's operator already holds a lease on this challenge that has not expired.
        ChallengeLeaseHeld,
        /// `MAX_CHALLENGE_TURNS` operators hold a lease on this challenge or have answered it.
        ChallengeFull,
        /// The caller holds no lease on this challenge.
        NotChallengeLeaseHolder,
        /// Too many challenges expire in the same block; challenge again in the next block.
        ChallengeScheduleFull,
        /// The operator has `MAX_UNBONDING_CHUNKS` unbonding chunks waiting in this arena:
        /// withdraw the released ones first.
        TooManyUnbondingChunks,
        /// None of the operator's unbonding chunks in this arena is released yet.
        NothingToWithdraw,
        /// A challenge of a crown this operator's PASS made is open in the arena: its
        /// unbonded funds stay held (and slashable) until the challenge ends.
        CrownUnderChallenge,
        /// An arena's `max_speedup_ppm` must admit a PASS at its margin and stay within the
        /// chain's `MaxSpeedupPpm`.
        SpeedupCapOutOfRange,
        /// A primary PASS in an arena where two operators must agree is attested sealed
        /// (`attest_sealed`), so that the reproduction cannot read it.
        PassMustBeSealed,
        /// No seal is expected here: a reproduction's PASS, or any PASS in a one-validator
        /// arena, is attested in the open (`attest`).
        SealNotExpected,
        /// The proposal is not waiting for the reveal of a sealed PASS.
        NotAwaitingReveal,
        /// Only the validator that sealed the PASS may reveal it.
        NotSealer,
        /// The revealed PASS does not open the seal: another speedup, digest, generation or
        /// salt than the sealed ones.
        SealMismatch,
    }
}
