//! The pallet's calls (a section of [`crate::pallet`]): miners', validators', operators' and
//! challengers' calls, then the admin origin's. Each checks its origin and hands over to the
//! rule that implements it (`settle/`).

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod calls {
    #[pallet::call]
    impl<T: Config> Pallet<T> {
        /// Commit to a bundle without showing it: `commitment` is
        /// [`cacheon_primitives::commitment`] of the miner, arena, target, ContentHash and a
        /// secret salt. Holds `CommitDeposit` until the reveal or [`Self::cancel_commit`].
        #[pallet::call_index(0)]
        #[pallet::weight(T::WeightInfo::commit())]
        pub fn commit(origin: OriginFor<T>, commitment: Commitment) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            ensure!(
                !Commits::<T>::contains_key(&miner, commitment),
                Error::<T>::AlreadyCommitted
            );
            let pending = PendingCommits::<T>::get(&miner);
            ensure!(
                pending < T::MaxPendingCommits::get(),
                Error::<T>::TooManyCommits
            );

            let deposit = T::CommitDeposit::get();
            T::Currency::hold(&HoldReason::CommitDeposit.into(), &miner, deposit)?;
            Commits::<T>::insert(
                &miner,
                commitment,
                CommitRecord {
                    at: frame_system::Pallet::<T>::block_number(),
                    deposit,
                },
            );
            PendingCommits::<T>::insert(&miner, pending + 1);
            Self::deposit_event(Event::Committed { miner, commitment });
            Ok(())
        }

        /// Reveal a committed bundle: its canonical bytes, the arena and target it competes
        /// for and the salt. The chain recomputes the ContentHash and the commitment, checks the
        /// bundle's canonical form, charges `RevealFee`, holds the per-byte bundle deposit and
        /// the arena's evaluation fee (one verdict's worth per operator the arena needs) and
        /// queues the proposal. Into a full queue the reveal still records the proposal and
        /// its content's ownership, with the same reveal fee and deposit, but holds no
        /// evaluation fee and queues nothing (`NotQueued`): the miner commits and reveals the
        /// bytes again to be measured.
        #[pallet::call_index(1)]
        #[pallet::weight(T::WeightInfo::reveal(bundle.len() as u32))]
        pub fn reveal(
            origin: OriginFor<T>,
            arena: ArenaId,
            target: TargetId,
            salt: [u8; 32],
            bundle: BoundedVec<u8, T::MaxBundleBytes>,
        ) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            Self::do_reveal(miner, arena, target, salt, bundle)
        }

        /// Withdraw a queued proposal that no validator holds a lease on and no FAIL on which
        /// waits for a second opinion. The bundle deposit and the evaluation fee are
        /// returned; the reveal fee is not.
        #[pallet::call_index(2)]
        #[pallet::weight(T::WeightInfo::withdraw())]
        pub fn withdraw(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            Self::do_withdraw(miner, proposal)
        }

        /// Cancel a pending commitment (revealed or not in time) and release its deposit.
        #[pallet::call_index(3)]
        #[pallet::weight(T::WeightInfo::cancel_commit())]
        pub fn cancel_commit(origin: OriginFor<T>, commitment: Commitment) -> DispatchResult {
            let miner = ensure_signed(origin)?;
            ensure!(
                Commits::<T>::contains_key(&miner, commitment),
                Error::<T>::UnknownCommitment
            );
            Self::remove_commit(&miner, commitment);
            Self::deposit_event(Event::CommitCancelled { miner, commitment });
            Ok(())
        }

        /// Lease the next phase of a proposal: the primary attempt of a queued proposal, or the
        /// reproduction of one with a recorded primary PASS. Only the arena's validators may
        /// claim, in reveal order, and never the reproduction of their own PASS when the arena
        /// requires two distinct validators.
        ///
        /// Weighed for a full queue ahead, then for the entries actually passed over. A lease
        /// taken is free: the chain pays its referees' work; a refused claim pays its fee.
        #[pallet::call_index(10)]
        #[pallet::weight((Pallet::<T>::claim_weight(T::MaxQueueLen::get()), DispatchClass::Operational))]
        pub fn claim(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let ahead = Self::do_claim(validator, proposal)?;
            Ok((Some(Self::claim_weight(ahead)), Pays::No).into())
        }

        /// Attest the leased attempt's verdict. A second PASS crowns the proposal in this call
        /// (against a sealed primary PASS, once that is revealed). A primary PASS in an arena
        /// where two operators must agree is refused here: it is [`Self::attest_sealed`].
        ///
        /// Weighed for the heaviest branch (a crown displacing `MAX_MEMBERS` entries over a
        /// full queue), then for the branch taken. An accepted attestation is free (only the
        /// lease holder can make one); a refused one pays its fee.
        #[pallet::call_index(11)]
        #[pallet::weight((Pallet::<T>::attest_worst_weight(), DispatchClass::Operational))]
        pub fn attest(
            origin: OriginFor<T>,
            proposal: ProposalId,
            attestation: Attestation,
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let used = Self::do_attest(validator, proposal, attestation)?;
            Ok((Some(used), Pays::No).into())
        }

        /// Attest a leased primary attempt's PASS as its seal only: in an arena where two
        /// operators must agree, the primary PASS is sealed so that the reproduction cannot
        /// read its speedup or evidence. `seal` is [`cacheon_primitives::pass_seal`] of the
        /// proposal, this key, `incumbent_generation` (the lease's), the speedup, both digests
        /// and a secret salt; [`Self::reveal_pass`] opens it after the reproduction's PASS.
        /// FAILs and NoDecisions stay [`Self::attest`]. An accepted attestation is free.
        #[pallet::call_index(19)]
        #[pallet::weight((T::WeightInfo::attest_sealed(), DispatchClass::Operational))]
        pub fn attest_sealed(
            origin: OriginFor<T>,
            proposal: ProposalId,
            incumbent_generation: u32,
            seal: cacheon_primitives::Seal,
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let used = Self::do_attest_sealed(validator, proposal, incumbent_generation, seal)?;
            Ok((Some(used), Pays::No).into())
        }

        /// Open the caller's sealed primary PASS once the reproduction has PASSed
        /// (`AwaitingReveal`), within `RevealTimeout` blocks: the values must hash to the seal,
        /// and the speedup clear the margin and the arena's cap. The proposal is crowned with
        /// the lower speedup in this call. Weighed for a crown over a full queue, then for the
        /// branch taken; an accepted reveal is free.
        #[pallet::call_index(27)]
        #[pallet::weight((Pallet::<T>::reveal_worst_weight(), DispatchClass::Operational))]
        pub fn reveal_pass(
            origin: OriginFor<T>,
            proposal: ProposalId,
            speedup_ppm: u32,
            evidence_digest: EvidenceDigest,
            attempt_digest: [u8; 32],
            salt: [u8; 32],
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let used = Self::do_reveal_pass(
                validator,
                proposal,
                speedup_ppm,
                evidence_digest,
                attempt_digest,
                salt,
            )?;
            Ok((Some(used), Pays::No).into())
        }

        /// Publish (or, with an empty `endpoint`, withdraw) where this validator key serves
        /// its evidence reports: miners fetch `<endpoint>/evidence/<digest>.json` for the
        /// digests the verdict events name. Only a registered validator key may publish.
        #[pallet::call_index(12)]
        #[pallet::weight(T::WeightInfo::set_evidence_endpoint())]
        pub fn set_evidence_endpoint(origin: OriginFor<T>, endpoint: Endpoint) -> DispatchResult {
            let validator = ensure_signed(origin)?;
            ensure!(
                KeyOperators::<T>::contains_key(&validator),
                Error::<T>::NotValidator
            );
            if endpoint.is_empty() {
                EvidenceEndpoints::<T>::remove(&validator);
                Self::deposit_event(Event::EvidenceEndpointCleared { validator });
                return Ok(());
            }
            ensure!(is_valid_endpoint(&endpoint), Error::<T>::BadEndpoint);
            EvidenceEndpoints::<T>::insert(&validator, &endpoint);
            Self::deposit_event(Event::EvidenceEndpointSet {
                validator,
                endpoint,
            });
            Ok(())
        }

        /// Bond `amount` more in `arena` as an operator (signed by the operator's own account):
        /// held until `unbond`. Its validator keys lease in the arena only while its bond
        /// covers the arena's required bond.
        #[pallet::call_index(13)]
        #[pallet::weight(T::WeightInfo::bond())]
        pub fn bond(origin: OriginFor<T>, arena: ArenaId, amount: BalanceOf<T>) -> DispatchResult {
            let operator = ensure_signed(origin)?;
            Self::do_bond(operator, arena, amount)
        }

        /// Take `amount` out of the operator's bond in `arena` (not while the operator holds
        /// a lease): it stops counting towards the arena's required bond at once, and
        /// [`Self::withdraw_unbonded`] releases it `UnbondingPeriod` blocks later; it can be
        /// slashed until then.
        #[pallet::call_index(14)]
        #[pallet::weight(T::WeightInfo::unbond())]
        pub fn unbond(
            origin: OriginFor<T>,
            arena: ArenaId,
            amount: BalanceOf<T>,
        ) -> DispatchResult {
            let operator = ensure_signed(origin)?;
            Self::do_unbond(operator, arena, amount)
        }

        /// Release the operator's unbonding chunks in `arena` whose `UnbondingPeriod` has
        /// passed; not while a challenge of a crown its PASS made is open there.
        #[pallet::call_index(18)]
        #[pallet::weight(T::WeightInfo::withdraw_unbonded())]
        pub fn withdraw_unbonded(origin: OriginFor<T>, arena: ArenaId) -> DispatchResult {
            let operator = ensure_signed(origin)?;
            Self::do_withdraw_unbonded(operator, arena)
        }

        /// Challenge a standing crown (anyone, validator or not): holds `ChallengeBond` until
        /// the outcome. Operators other than those whose PASSes crowned it re-qualify it
        /// ([`Self::claim_challenge`], [`Self::answer_challenge`]) within `ChallengeWindow`
        /// blocks. At most one open challenge per crown, `MaxOpenChallenges` per arena.
        #[pallet::call_index(15)]
        #[pallet::weight(T::WeightInfo::challenge())]
        pub fn challenge(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResult {
            let challenger = ensure_signed(origin)?;
            Self::do_challenge(challenger, proposal)
        }

        /// Lease a challenge to re-qualify its crown, for the arena's `lease_blocks`: a key
        /// of an operator that did not crown the proposal, reveal it or open the challenge,
        /// has not answered it yet, and has its arena bond. A lease taken is free; a refused
        /// claim pays its fee.
        #[pallet::call_index(16)]
        #[pallet::weight((T::WeightInfo::claim_challenge(), DispatchClass::Operational))]
        pub fn claim_challenge(
            origin: OriginFor<T>,
            challenge: ChallengeId,
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            Self::do_claim_challenge(validator, challenge)?;
            Ok(Pays::No.into())
        }

        /// Answer a leased challenge: `PASS` (the crown is right), a `FAIL` (with its reason)
        /// or a NoDecision, with the digest of the evidence. Two agreeing answers end it:
        /// two PASSes reject the challenge, two FAILs for what the bytes are (`Build`, `Abi`,
        /// `Policy`, `Cheating`) revoke the crown. Weighed for a revocation over a full
        /// queue, then for the branch taken; an accepted answer is free.
        #[pallet::call_index(17)]
        #[pallet::weight((Pallet::<T>::answer_worst_weight(), DispatchClass::Operational))]
        pub fn answer_challenge(
            origin: OriginFor<T>,
            challenge: ChallengeId,
            verdict: Verdict,
            evidence_digest: EvidenceDigest,
        ) -> DispatchResultWithPostInfo {
            let validator = ensure_signed(origin)?;
            let used = Self::do_answer_challenge(validator, challenge, verdict, evidence_digest)?;
            Ok((Some(used), Pays::No).into())
        }

        /// Add or change a catalog target (the admin origin).
        #[pallet::call_index(20)]
        #[pallet::weight(T::WeightInfo::set_target(T::MaxTargets::get()))]
        pub fn set_target(origin: OriginFor<T>, spec: TargetSpec) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_set_target(spec)
        }

        /// Add an arena or change its configuration; its generation is kept (the admin origin).
        #[pallet::call_index(21)]
        #[pallet::weight(T::WeightInfo::set_arena())]
        pub fn set_arena(origin: OriginFor<T>, config: ArenaConfigOf<T>) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_set_arena(config)
        }

        /// Register a validator key for an arena under an operator identity (the admin origin). Rules that
        /// need independent opinions count operators: one operator with several keys is one.
        #[pallet::call_index(22)]
        #[pallet::weight(T::WeightInfo::add_validator())]
        pub fn add_validator(
            origin: OriginFor<T>,
            arena: ArenaId,
            validator: T::AccountId,
            operator: T::AccountId,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_add_validator(arena, validator, operator)
        }

        /// Remove a validator from an arena (the admin origin). Its open leases can no longer be attested
        /// and expire into the queue; its recorded PASSes and disputed FAILs stop counting. A key
        /// removed from its last arena loses its evidence endpoint.
        #[pallet::call_index(23)]
        #[pallet::weight(T::WeightInfo::remove_validator())]
        pub fn remove_validator(
            origin: OriginFor<T>,
            arena: ArenaId,
            validator: T::AccountId,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_remove_validator(arena, validator)
        }

        /// Set the emissions policy (the admin origin).
        #[pallet::call_index(24)]
        #[pallet::weight(T::WeightInfo::set_emissions())]
        pub fn set_emissions(origin: OriginFor<T>, policy: EmissionsPolicyOf<T>) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::check_emissions(&policy)?;
            Self::deposit_event(Event::EmissionsSet {
                epoch_blocks: policy.epoch_blocks,
                emission_per_epoch: policy.emission_per_epoch,
            });
            Emissions::<T>::put(policy);
            Ok(())
        }

        /// Set what an operator must have bonded in `arena` before its keys may lease there
        /// (the admin origin).
        #[pallet::call_index(26)]
        #[pallet::weight(T::WeightInfo::set_required_bond())]
        pub fn set_required_bond(
            origin: OriginFor<T>,
            arena: ArenaId,
            amount: BalanceOf<T>,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            ensure!(Arenas::<T>::contains_key(&arena), Error::<T>::UnknownArena);
            RequiredBonds::<T>::insert(&arena, amount);
            Self::deposit_event(Event::RequiredBondSet { arena, amount });
            Ok(())
        }

        /// Quote what measuring a proposal costs in `arena` (the admin origin): the machine
        /// time of the arena's median attempt and the price of a second of it. Reveals from
        /// the next block on hold the new fee; pending proposals keep what they hold.
        /// (Weighed as `set_required_bond`: the same origin check, arena read and one write.)
        #[pallet::call_index(28)]
        #[pallet::weight(T::WeightInfo::set_required_bond())]
        pub fn set_evaluation_fee(
            origin: OriginFor<T>,
            arena: ArenaId,
            fee: EvaluationFeeOf<T>,
        ) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_set_evaluation_fee(arena, fee)
        }

        /// Overturn a failed proposal's FAIL (the admin origin): the proposal ends
        /// `Overturned`, a forfeited bundle deposit goes back from the reward pot to the
        /// miner, the recorded FAIL is removed and the bytes may be revealed again.
        #[pallet::call_index(25)]
        #[pallet::weight(T::WeightInfo::overturn_fail())]
        pub fn overturn_fail(origin: OriginFor<T>, proposal: ProposalId) -> DispatchResult {
            T::AdminOrigin::ensure_origin(origin)?;
            Self::do_overturn_fail(proposal)
        }
    }
}
