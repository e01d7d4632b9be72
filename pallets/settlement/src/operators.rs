//! The pallet's storage about operators (a section of [`crate::pallet`]): validator keys per
//! arena and their operators, evidence endpoints, open leases, operator bonds and their
//! unbonding chunks.

use polkadot_sdk::polkadot_sdk_frame::pallet_macros::pallet_section;

#[pallet_section]
mod operators {
    /// Registered validator keys per arena, each with the operator it belongs to: rules that
    /// need two independent opinions count operators, not keys. `Blake2_128Concat` on both
    /// keys: account ids are chosen by their owners, so they must be hashed.
    #[pallet::storage]
    pub type Validators<T: Config> = StorageDoubleMap<
        _,
        Blake2_128Concat,
        ArenaId,
        Blake2_128Concat,
        T::AccountId,
        T::AccountId,
        OptionQuery,
    >;

    /// The operator of every registered validator key, over all arenas, and in how many
    /// arenas the key is registered: a key belongs to one operator everywhere, so "the
    /// operator's own proposal" holds across arenas. `Blake2_128Concat`: user-chosen key.
    #[pallet::storage]
    pub type KeyOperators<T: Config> =
        StorageMap<_, Blake2_128Concat, T::AccountId, (T::AccountId, u32)>;

    /// Where each validator key serves its evidence reports (`/evidence/<digest>.json`
    /// under it), as published by the key itself; gone when the key leaves its last arena.
    /// `Blake2_128Concat`: user-chosen key.
    #[pallet::storage]
    pub type EvidenceEndpoints<T: Config> = StorageMap<_, Blake2_128Concat, T::AccountId, Endpoint>;

    /// What an operator must have bonded in an arena before its keys may lease there (the
    /// admin origin sets it; zero by default). `Blake2_128Concat`: admin-chosen id.
    #[pallet::storage]
    pub type RequiredBonds<T: Config> =
        StorageMap<_, Blake2_128Concat, ArenaId, BalanceOf<T>, ValueQuery>;

    /// Each operator's bond per arena, held from the operator's own account
    /// (`HoldReason::OperatorBond`). `Blake2_128Concat` on both keys: the arena id is chosen by
    /// the admin, the operator account by its owner.
    #[pallet::storage]
    pub type OperatorBonds<T: Config> = StorageDoubleMap<
        _,
        Blake2_128Concat,
        ArenaId,
        Blake2_128Concat,
        T::AccountId,
        BalanceOf<T>,
        ValueQuery,
    >;

    /// Parts of each operator's bond per arena that `unbond` took out of the bond and
    /// `withdraw_unbonded` releases after `UnbondingPeriod`, in release order; still held
    /// (`HoldReason::OperatorBond`) and slashable. `Blake2_128Concat` on both keys, as for
    /// [`OperatorBonds`].
    #[pallet::storage]
    pub type Unbonding<T: Config> = StorageDoubleMap<
        _,
        Blake2_128Concat,
        ArenaId,
        Blake2_128Concat,
        T::AccountId,
        UnbondingOf<T>,
        ValueQuery,
    >;

    /// Open leases per operator (capped by `MaxLeasesPerOperator`). `Blake2_128Concat`:
    /// user-chosen key.
    #[pallet::storage]
    pub type OpenLeases<T: Config> = StorageMap<_, Blake2_128Concat, T::AccountId, u32, ValueQuery>;
}
