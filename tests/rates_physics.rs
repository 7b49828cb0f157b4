//! Limits and identities of the rates family, each against a closed form:
//! Sommerfeld and non-degenerate expansions of mu and of the energy density, the energy-density
//! inversion, detailed balance (eqs. 9-10), the Maxwell-Boltzmann limit of every Fermi-Dirac rate
//! at low density, a closed-form Maxwell-Boltzmann excitation rate, and eq. 18's x(p) values
//! printed in the paper.

use atomgpu::rates::constants::{excitation_prefactor, quantum_density_factor};
use atomgpu::rates::integrals::radiation_tail;
use atomgpu::rates::{cpu, fermi, Excitation, Ionization, Photoionization, PlasmaState, Quadrature, Statistics};
use std::f64::consts::PI;

const FD: Statistics = Statistics::FermiDirac;
const MB: Statistics = Statistics::MaxwellBoltzmann;

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// Degenerate limit: mu = E_F [1 - (pi^2/12) t^2 - (pi^4/80) t^4 - (247 pi^6/25920) t^6],
/// t = T/E_F (Sommerfeld expansion; the next term is O(t^8) < 1e-16 here).
#[test]
fn chemical_potential_degenerate_limit() {
    for (te, ne) in [(0.1, 1e24), (0.05, 1e23), (0.3, 1e24)] {
        let ef = fermi::fermi_energy(ne);
        let t = te / ef;
        let sommerfeld = ef
            * (1.0 - PI * PI / 12.0 * t * t - PI.powi(4) / 80.0 * t.powi(4) - 247.0 * PI.powi(6) / 25920.0 * t.powi(6));
        let mu = fermi::chemical_potential(FD, te, ne).unwrap();
        assert!(rel(mu, sommerfeld) < 1e-14, "Te={te} ne={ne:e}: mu={mu} sommerfeld={sommerfeld}");
    }
}

/// Non-degenerate limit: eta = ln y + y/sqrt(8) + (3/16 - 1/sqrt(27)) y^2 + O(y^3),
/// y = n_e/(N_Q T^{3/2}) (inverting F_{1/2}(eta) = e^eta - e^{2 eta}/2^{3/2} + e^{3 eta}/3^{3/2} - ...);
/// the O(y^3) remainder is below 0.01 y^3 at these y (<= 5.3e-4); mpmath gives eta = -7.554206887286334
/// at (10 eV, 1e20 cm^-3), 2e-14 from the truncated series.
#[test]
fn chemical_potential_nondegenerate_limit() {
    for (te, ne) in [(30.0, 1e18), (10.0, 1e20), (3.0, 1e19)] {
        let y = ne / (quantum_density_factor() * f64::powf(te, 1.5));
        let eta = y.ln() + y / 8f64.sqrt() + (3.0 / 16.0 - 1.0 / 27f64.sqrt()) * y * y;
        let mu = fermi::chemical_potential(FD, te, ne).unwrap();
        assert!((mu / te - eta).abs() < 0.01 * y.powi(3) + 1e-14, "Te={te} ne={ne:e}: eta={} expected {eta}", mu / te);
        let mu_mb = fermi::chemical_potential(MB, te, ne).unwrap();
        assert!((mu_mb / te - y.ln()).abs() < 1e-14);
    }
}

/// u = (3/5) n E_F [1 + (5 pi^2/12) t^2 - (pi^4/16) t^4] (Sommerfeld) and u = (3/2) n T (1 + y/2^{5/2})
/// at low degeneracy.
#[test]
fn energy_density_limits() {
    let (te, ne) = (0.1, 1e24);
    let ef = fermi::fermi_energy(ne);
    let t = te / ef;
    let expected = 0.6 * ne * ef * (1.0 + 5.0 * PI * PI / 12.0 * t * t - PI.powi(4) / 16.0 * t.powi(4));
    assert!(rel(fermi::energy_density(FD, te, ne).unwrap(), expected) < 1e-10);
    let (te, ne) = (30.0, 1e18);
    let y = ne / (quantum_density_factor() * f64::powf(te, 1.5));
    let expected = 1.5 * ne * te * (1.0 + y / 32f64.sqrt());
    assert!(rel(fermi::energy_density(FD, te, ne).unwrap(), expected) < 1e-13);
    assert_eq!(fermi::energy_density(MB, te, ne).unwrap(), 1.5 * ne * te);
}

/// T -> u -> T round trip over the whole (T_e, n_e) range, both statistics. In a degenerate gas
/// u barely depends on T (u ~ (3/5) n E_F (1 + (5 pi^2/12) (T/E_F)^2)), so a rounding error in u
/// becomes an error in T amplified by u / (T du/dT); the tolerance carries that factor, measured
/// here by a central difference.
#[test]
fn temperature_inversion_round_trip() {
    for stats in [FD, MB] {
        for te in [0.1, 0.37, 1.0, 3.3, 10.0, 30.0] {
            for ne in [1e18, 1e20, 1e22, 2.7e23, 1e24] {
                let u = fermi::energy_density(stats, te, ne).unwrap();
                let du = fermi::energy_density(stats, te * 1.001, ne).unwrap()
                    - fermi::energy_density(stats, te * 0.999, ne).unwrap();
                let amplification = u / (te * du / (0.002 * te));
                let (t2, mu2) = fermi::temperature_from_energy_density(stats, u, ne).unwrap();
                assert!(
                    rel(t2, te) < 5e-14 * amplification.max(1.0),
                    "{stats:?} Te={te} ne={ne:e}: {t2} (amplification {amplification:.1})"
                );
                let mu = fermi::chemical_potential(stats, te, ne).unwrap();
                assert!(
                    (mu2 - mu).abs() < 1e-13 * amplification.max(1.0) * te.max(mu.abs()),
                    "{stats:?} Te={te} ne={ne:e}: mu {mu2} vs {mu}"
                );
            }
        }
    }
}

#[test]
fn energy_below_ground_state_is_rejected() {
    let ne = 1e23;
    let ground = fermi::ground_state_energy_density(ne);
    assert!(fermi::temperature_from_energy_density(FD, 0.99 * ground, ne).is_err());
}

fn sample_transitions() -> (Vec<Excitation>, Vec<Ionization>, Vec<Photoionization>) {
    let exc = vec![
        Excitation { energy_ev: 8.08, omega: [70.8, 39.5, 99.3, -28.7, 0.0, 0.0], g_lower: 2.0, g_upper: 6.0 },
        Excitation { energy_ev: 44.3, omega: [1.012, 0.9015, 1.081, -0.2239, 0.0, 0.0], g_lower: 1.0, g_upper: 3.0 },
    ];
    let ion =
        vec![Ionization { energy_ev: 20.926, beli: [3.71, -0.236, 2.35, -0.66, 0.0], g_lower: 2.0, g_upper: 1.0 }];
    let pi = vec![Photoionization { energy_ev: 20.926, d0_cm2: 5.682286e-18, d1_cm2: 3.941713e-19 }];
    (exc, ion, pi)
}

/// Eqs. 9-10: J_down = (g_l/g_u) e^{E/T} J_up and K_down = (g_l/g_u) e^{(E+mu)/T} K_up, in
/// degenerate and classical plasma.
#[test]
fn detailed_balance() {
    let (exc, ion, _) = sample_transitions();
    let q = Quadrature::paper_default();
    for stats in [FD, MB] {
        for (te, ne) in [(1.0, 2.7e23), (5.0, 1e22), (20.0, 1e24)] {
            let states = [PlasmaState { te_ev: te, ne_cm3: ne, tr_ev: 250.0 }];
            let mu = fermi::chemical_potential(stats, te, ne).unwrap();
            let j = cpu::excitation_rates(stats, &q, &states, &exc).unwrap();
            for (i, x) in exc.iter().enumerate() {
                let expected = x.g_lower / x.g_upper * (x.energy_ev / te).exp() * j.up[i];
                assert!(rel(j.down[i], expected) < 1e-12, "{stats:?} Te={te}: {} vs {expected}", j.down[i]);
            }
            let k = cpu::ionization_rates(stats, &q, &states, &ion).unwrap();
            let expected = ion[0].g_lower / ion[0].g_upper * ((ion[0].energy_ev + mu) / te).exp() * k.up[0];
            assert!(rel(k.down[0], expected) < 1e-12, "{stats:?} Te={te}: {} vs {expected}", k.down[0]);
        }
    }
}

/// At n_e = 1e16 cm^-3 the electrons are far from degenerate (e^{mu/T} ~ 1e-7): every
/// Fermi-Dirac rate equals its Maxwell-Boltzmann counterpart to that order.
#[test]
fn fermi_dirac_tends_to_maxwell_boltzmann_at_low_density() {
    let (exc, ion, pi) = sample_transitions();
    let q = Quadrature::new(10.0, 32).unwrap();
    let states = [PlasmaState { te_ev: 10.0, ne_cm3: 1e16, tr_ev: 100.0 }];
    let pairs = [
        (
            cpu::excitation_rates(FD, &q, &states, &exc).unwrap().up,
            cpu::excitation_rates(MB, &q, &states, &exc).unwrap().up,
        ),
        (
            cpu::ionization_rates(FD, &q, &states, &ion).unwrap().up,
            cpu::ionization_rates(MB, &q, &states, &ion).unwrap().up,
        ),
        (
            cpu::photoionization_rates(FD, &q, &states, &pi).unwrap().up,
            cpu::photoionization_rates(MB, &q, &states, &pi).unwrap().up,
        ),
        (
            cpu::inverse_bremsstrahlung_heating(FD, &q, &states, &[1e17]).unwrap(),
            cpu::inverse_bremsstrahlung_heating(MB, &q, &states, &[1e17]).unwrap(),
        ),
    ];
    for (fd, mb) in pairs {
        for (a, b) in fd.iter().zip(&mb) {
            assert!(rel(*a, *b) < 1e-6, "FD {a:e} vs MB {b:e}");
        }
    }
}

/// Maxwell-Boltzmann excitation with a constant collision strength Omega = B1 has the closed form
/// J = K B1 e^{mu/T} T e^{-E/T}.
#[test]
fn maxwell_boltzmann_excitation_closed_form() {
    let q = Quadrature::new(10.0, 64).unwrap();
    for (te, ne, e) in [(1.0, 1e20, 8.0), (30.0, 1e22, 100.0), (0.1, 1e18, 2.0)] {
        let x = Excitation { energy_ev: e, omega: [0.0, 2.5, 0.0, 0.0, 0.0, 0.0], g_lower: 1.0, g_upper: 1.0 };
        let states = [PlasmaState { te_ev: te, ne_cm3: ne, tr_ev: 1.0 }];
        let got = cpu::excitation_rates(MB, &q, &states, &[x]).unwrap().up[0];
        let mu = te * (ne / (quantum_density_factor() * f64::powf(te, 1.5))).ln();
        let expected = excitation_prefactor() * 2.5 * ((mu - e) / te).exp() * te;
        assert!(rel(got, expected) < 1e-10, "Te={te}: {got:e} vs {expected:e}");
    }
}

/// Eq. 18 solved as the paper prints it: x(p=5) = 15.7, x(p=6) = 18.2 (our tail adds two decades
/// of margin, so radiation_tail(p - 2) is the paper's x(p)).
#[test]
fn radiation_tail_matches_eq_18() {
    assert!((radiation_tail(3.0) - 15.7).abs() < 0.05, "{}", radiation_tail(3.0));
    assert!((radiation_tail(4.0) - 18.2).abs() < 0.05, "{}", radiation_tail(4.0));
}

/// Invalid states are refused with the argument named.
#[test]
fn invalid_states_name_the_argument() {
    let (exc, _, _) = sample_transitions();
    let q = Quadrature::paper_default();
    let bad = [PlasmaState { te_ev: f64::NAN, ne_cm3: 1e20, tr_ev: 1.0 }];
    let e = cpu::excitation_rates(FD, &q, &bad, &exc).unwrap_err();
    assert!(e.to_string().contains("te_ev"), "{e}");
    let bad = [PlasmaState { te_ev: 1.0, ne_cm3: -1e20, tr_ev: 1.0 }];
    let e = cpu::excitation_rates(FD, &q, &bad, &exc).unwrap_err();
    assert!(e.to_string().contains("ne_cm3"), "{e}");
    assert!(Quadrature::new(5.0, 1).is_err());
    assert!(Quadrature::new(0.5, 32).is_err());
}

/// The domain of the family (T in [1e-4, 1e6] eV, n_e in [1e-10, 1e30] cm^-3, E in [1e-6, 1e6]
/// eV): finite but absurd inputs are refused by name instead of giving NaN or Inf.
#[test]
fn inputs_outside_the_domain_are_refused() {
    let (exc, _, _) = sample_transitions();
    let q = Quadrature::paper_default();
    for (te, ne, name) in
        [(1.0, 1e300, "ne_cm3"), (1.0, 5e-324, "ne_cm3"), (1e300, 1e20, "te_ev"), (5e-324, 1e20, "te_ev")]
    {
        let state = [PlasmaState { te_ev: te, ne_cm3: ne, tr_ev: 1.0 }];
        let e = cpu::excitation_rates(FD, &q, &state, &exc).unwrap_err();
        assert!(e.to_string().contains(name), "T_e = {te:e}, n_e = {ne:e}: {e}");
        assert!(fermi::chemical_potential(MB, te, ne).is_err());
    }
    let state = [PlasmaState { te_ev: 3.0, ne_cm3: 1e21, tr_ev: 1.0 }];
    for energy in [f64::MAX, 5e-324] {
        let t = [Excitation { energy_ev: energy, ..exc[0] }];
        let e = cpu::excitation_rates(FD, &q, &state, &t).unwrap_err();
        assert!(e.to_string().contains("energy_ev"), "E = {energy:e}: {e}");
    }
}

/// The energy-density inversion treats both statistics alike: an energy density that implies a
/// temperature below the domain (u = 1e-300 eV cm^-3 at n_e = 1e21 cm^-3: T = 6.7e-322 eV
/// classically, and below the Fermi ground state) is refused under either, naming `u_ev_cm3`.
#[test]
fn the_temperature_inversion_refuses_alike_under_both_statistics() {
    for stats in [FD, MB] {
        let e = fermi::temperature_from_energy_density(stats, 1e-300, 1e21).unwrap_err();
        assert!(e.to_string().contains("u_ev_cm3"), "{stats:?}: {e}");
    }
    // Inside the domain both succeed and agree in the classical limit (u = 3/2 n_e T).
    for stats in [FD, MB] {
        let (t, _) = fermi::temperature_from_energy_density(stats, 1.5 * 1e15 * 10.0, 1e15).unwrap();
        assert!(rel(t, 10.0) < 1e-9, "{stats:?}: T = {t}");
    }
}

/// The Mott-BELI differential cross-section (eq. 8) integrates over 0 <= e1 <= e0 - E to the BELI
/// total cross-section of Bell et al. (1983) in closed form,
/// sigma = 1e-13/(E e0) [A ln(e0/E) + sum_k B_k (1 - E/e0)^k] cm^2 (the Mott term's integral is
/// (2/E) ln(e0/E) because a (a + e0) = E^2), to 1e-12 (the cancellation in a far above threshold
/// allowed for), for the aluminium-like coefficients and others of both signs, from just above
/// threshold to 1e4 times it. The quadrature: 32-point
/// Gauss-Legendre on panels graded (factor 4) towards both ends of the range, where the Mott
/// terms vary on the scale a = (sqrt(e0^2 + 4 E^2) - e0)/2.
#[test]
fn differential_ionization_integrates_to_the_bell_total_cross_section() {
    use atomgpu::math::gauss_legendre::GaussLegendre;
    use atomgpu::math::panels::{graded_breakpoints, integrate_graded, Feature, MAX_BREAKPOINTS};
    use atomgpu::rates::integrals::differential_ionization;
    let rule = GaussLegendre::new(32).unwrap();
    for beli in [[3.71, -0.236, 2.35, -0.66, 0.0], [1.0, 0.5, -2.0, 0.3, 0.7], [0.0, 0.0, 0.0, 0.0, 2.5]] {
        for (ei, ratio) in [(20.926, 1.001), (20.926, 1.7), (5.986, 12.0), (120.0, 300.0), (0.5, 1e4)] {
            let e0: f64 = ei * ratio;
            let width = e0 - ei;
            let a = 0.5 * ((e0 * e0 + 4.0 * ei * ei).sqrt() - e0);
            let features = [Feature { at: 0.0, scale: a }, Feature { at: width, scale: a }];
            let mut breaks = [0.0; MAX_BREAKPOINTS];
            let n = graded_breakpoints(0.0, width, &features, &mut breaks);
            let integral = integrate_graded(&rule, &breaks[..n], |e1| differential_ionization(&beli, ei, e0, e1));
            let x = 1.0 - ei / e0;
            let powers: f64 = (1..5).map(|k| beli[k] * x.powi(k as i32)).sum();
            let bell = (beli[0] * (e0 / ei).ln() + powers) / (ei * e0);
            // a as eq. 8's code forms it (a difference) carries a relative rounding of up to
            // ~eps (e0/E)^2: 1e-10 at e0 = 1e4 E (measured 9.8e-11), beside the 1e-12 allowed
            // for the quadrature and for the closed form's 1 - E/e0 just above threshold.
            let tolerance = 1e-12 + 2e-18 * ratio * ratio;
            let error = rel(integral, bell);
            assert!(error < tolerance, "BELI {beli:?}, E = {ei}, e0 = {e0}: {integral:e} vs {bell:e} ({error:e})");
        }
    }
}
