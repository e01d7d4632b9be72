//! The speedup cap per arena: part of the arena's policy, set (and checked) by `set_arena`.

use super::*;

/// Colluders PASS a kernel at 9× in an arena whose engine cannot honestly gain more than
/// 2× from one kernel boundary. Under the one chain-wide cap (10×) the claim was accepted and
/// its speedup took nearly every epoch's weight. The arena's own cap now refuses it, in an
/// attestation and in a challenge's answer alike; a PASS at the cap still crowns.
#[test]
fn a_speedup_above_the_arena_cap_is_refused_below_the_chains() {
    ExtBuilder::default().build_and_execute(|| {
        let cap = 2_000_000;
        let mut config = arena_config(2);
        config.policy.max_speedup_ppm = cap;
        assert_ok!(Cacheon::set_arena(root(), config));
        let p = submit(ALICE, SILU, "claims-9x");
        assert_ok!(Cacheon::claim(signed(V1), p));
        const { assert!(9_000_000 <= MAX_SPEEDUP_PPM) };
        // (The sealed primary's speedup is checked at its reveal, by the same rule.)
        assert_ok!(attest_as(V1, p, pass(cap, 1)));
        assert_ok!(Cacheon::claim(signed(V2), p));
        assert_noop!(
            attest_as(V2, p, pass(9_000_000, 2)),
            Error::<Test>::SpeedupImplausible
        );
        assert_noop!(
            attest_as(V2, p, pass(cap + 1, 2)),
            Error::<Test>::SpeedupImplausible
        );
        assert_ok!(attest_as(V2, p, pass(cap, 2)));
        assert_eq!(Claims::<Test>::get(p).unwrap().speedup_ppm, cap);

        assert_ok!(Cacheon::challenge(signed(OUTSIDER), p));
        assert_ok!(Cacheon::claim_challenge(signed(V3), 0));
        assert_noop!(
            Cacheon::answer_challenge(
                signed(V3),
                0,
                Verdict::Pass {
                    speedup_ppm: cap + 1
                },
                [30; 32]
            ),
            Error::<Test>::SpeedupImplausible
        );
    });
}

/// An arena's cap must admit a PASS at its margin and stay within the chain's
/// `MaxSpeedupPpm`; both ends are allowed.
#[test]
fn set_arena_refuses_a_speedup_cap_out_of_range() {
    ExtBuilder::default().build_and_execute(|| {
        let mut config = arena_config(2);
        let floor = PPM_ONE + MARGIN_PPM;
        for cap in [floor - 1, MAX_SPEEDUP_PPM + 1, 0, u32::MAX] {
            config.policy.max_speedup_ppm = cap;
            assert_noop!(
                Cacheon::set_arena(root(), config.clone()),
                Error::<Test>::SpeedupCapOutOfRange
            );
        }
        for cap in [floor, MAX_SPEEDUP_PPM] {
            config.policy.max_speedup_ppm = cap;
            assert_ok!(Cacheon::set_arena(root(), config.clone()));
            assert_eq!(
                Arenas::<Test>::get(id(ARENA))
                    .unwrap()
                    .config
                    .policy
                    .max_speedup_ppm,
                cap
            );
        }
    });
}
