//! The pallet's storage about crown challenges (a section of [`crate::pallet`]): the open
//! challenges, the one per crown, the ones per arena and their deadlines.

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod challenges {
    /// The next challenge id.
    #[pallet::storage]
    pub type NextChallengeId<T: Config> = StorageValue<_, ChallengeId, ValueQuery>;

    /// Open challenges; removed at their outcome. `Twox64Concat`: ids come from a counter.
    #[pallet::storage]
    pub type Challenges<T: Config> = StorageMap<_, Twox64Concat, ChallengeId, ChallengeOf<T>>;

    /// The open challenge of each challenged crown: at most one per crown. `Twox64Concat`:
    /// proposal ids come from a counter.
    #[pallet::storage]
    pub type CrownChallenges<T: Config> = StorageMap<_, Twox64Concat, ProposalId, ChallengeId>;

    /// Open challenges per arena, oldest first (at most `MaxOpenChallenges`).
    /// `Blake2_128Concat`: admin-chosen ids.
    #[pallet::storage]
    pub type OpenChallenges<T: Config> = StorageMap<
        _,
        Blake2_128Concat,
        ArenaId,
        BoundedVec<ChallengeId, T::MaxOpenChallenges>,
        ValueQuery,
    >;

    /// Challenges by the block at which they expire. `Twox64Concat`: block numbers are not
    /// chosen by users.
    #[pallet::storage]
    pub type ChallengeDeadlines<T: Config> = StorageMap<
        _,
        Twox64Concat,
        BlockNumberFor<T>,
        BoundedVec<ChallengeId, T::MaxOpenChallenges>,
        ValueQuery,
    >;
}
