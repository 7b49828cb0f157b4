//! The analytic Jacobian of the CR rate terms (src/rates/cr/stiff.rs): the slopes of every rate by
//! T_e and mu (and n_e for inverse bremsstrahlung) computed in the rates' own quadrature pass
//! (`integrals::*_with_slopes`), their chain to the state's (n_e, u), and the stiff runs made
//! with them. References:
//! - the excitation integrals' slopes against mpmath at 30 digits (tests/reference/
//!   cr_jacobian_mpmath.py: mpmath.diff of mpmath.quad of the integrals themselves, no derived
//!   integrand), numbers below;
//! - every process's slopes against Richardson-extrapolated central differences of the rates
//!   (error O(h^4)) at degenerate and classical states, both statistics;
//! - the chained slopes d/dn_e (u fixed) and d/du (n_e fixed) against the same differences of the
//!   rates at neighbouring electron states (the temperature inversion between);
//! - whole runs of the paper's aluminium case against the tight reference of bench/RESULTS.md
//!   ("Collisional-radiative runs (issue 12)": rtol 1e-10, atol 1e-14, the finite-difference
//!   Jacobian, on an H200; T_e and n_e at 0.5 ps).
//!
//! `cargo test --release --test cr_jacobian -- --nocapture` prints the worst differences.

#[path = "support/cr_models.rs"]
mod cr_models;

use atomgpu::rates::constants::excitation_prefactor;
use atomgpu::rates::cr::{self, Cr, CrSettings, ElectronState, Jacobian, Rates, StiffTolerances};
use atomgpu::rates::integrals::{self, Conditions};
use atomgpu::rates::{fermi, Excitation, Ionization, Photoionization, Quadrature, Statistics};
use cr_models::aluminium_subset;

const FD: Statistics = Statistics::FermiDirac;
const MB: Statistics = Statistics::MaxwellBoltzmann;

/// tests/reference/cr_jacobian_mpmath.py, as printed: (stats, T, mu) and, for J_up then J_down
/// without the prefactor K, (I, dI/dT, dI/dmu); E = 8.08 eV, B = (70.78345, 39.52529, 99.25136,
/// -28.71901) (the Al3+ 1 -> 2 excitation of the paper's data).
const MPMATH: [(Statistics, f64, f64, [[f64; 3]; 2]); 2] = [
    (
        FD,
        5.0,
        10.0,
        [[202.378869988844, 74.7829664047873, 11.16504678954], [1018.55632359731, 47.1791583176853, 56.1927685996701]],
    ),
    (
        MB,
        5.0,
        -20.0,
        [
            [2.2388201585053, 3.00211022428334, 0.447764031701059],
            [11.2677990047499, 11.4676229266559, 2.25355980094998],
        ],
    ),
];

fn al_excitation() -> Excitation {
    Excitation {
        energy_ev: 8.08,
        omega: [70.78345, 39.52529, 99.25136, -28.71901, 0.0, 0.0],
        g_lower: 1.0,
        g_upper: 1.0,
    }
}

#[test]
fn excitation_slopes_match_mpmath() {
    let q = Quadrature::new(10.0, 64).unwrap();
    let k = excitation_prefactor();
    let mut worst = 0.0f64;
    for (stats, te, mu, reference) in MPMATH {
        let c = Conditions { stats, te, mu, ne: 1e23, tr: 250.0 };
        let [value, by_te, by_mu] = integrals::excitation_with_slopes(&c, &al_excitation(), &q);
        for (d, [i, di_dt, di_dmu]) in reference.iter().enumerate() {
            for (got, want) in [(value[d], i), (by_te[d], di_dt), (by_mu[d], di_dmu)] {
                let rel = (got / k / want - 1.0).abs();
                worst = worst.max(rel);
                assert!(rel < 1e-9, "{stats:?} T = {te}, mu = {mu}: {} vs mpmath {want}", got / k);
            }
        }
    }
    println!("excitation slopes vs mpmath: worst relative difference {worst:.1e}");
}

/// Richardson-extrapolated central difference of f at x with step h: (4 D(h/2) - D(h))/3,
/// D(h) = (f(x + h) - f(x - h))/(2h).
fn richardson(f: impl Fn(f64) -> Vec<f64>, x: f64, h: f64) -> Vec<f64> {
    let central = |h: f64| -> Vec<f64> { f(x + h).iter().zip(f(x - h)).map(|(a, b)| (a - b) / (2.0 * h)).collect() };
    let (wide, narrow) = (central(h), central(0.5 * h));
    narrow.iter().zip(wide).map(|(n, w)| (4.0 * n - w) / 3.0).collect()
}

/// Largest |analytic - difference| / (|difference| + |value|/scale) over the entries: the slope
/// relative to itself or, where it is small, to the value over the variable's scale.
fn worst_slope_error(analytic: &[f64], difference: &[f64], values: &[f64], scale: f64) -> f64 {
    analytic
        .iter()
        .zip(difference)
        .zip(values)
        .map(|((a, d), v)| (a - d).abs() / (d.abs() + v.abs() / scale).max(1e-300))
        .fold(0.0, f64::max)
}

/// The four processes at one state: [excitation up, down, ionization up, down, photoionization
/// rate, heating, inverse-bremsstrahlung heating], and their slopes [d/dT, d/dmu] (and d/dn_e of
/// the heating).
fn all_rates(c: &Conditions, q: &Quadrature) -> Vec<f64> {
    let (eu, ed) = integrals::excitation(c, &al_excitation(), q);
    let (iu, id) = integrals::ionization(c, &al_ionization(), q);
    let (pr, ph) = integrals::photoionization(c, &al_photoionization(), q);
    vec![eu, ed, iu, id, pr, ph, integrals::inverse_bremsstrahlung(c, 1.0, q)]
}

fn all_slopes(c: &Conditions, q: &Quadrature) -> ([Vec<f64>; 3], f64) {
    let e = integrals::excitation_with_slopes(c, &al_excitation(), q);
    let i = integrals::ionization_with_slopes(c, &al_ionization(), q);
    let p = integrals::photoionization_with_slopes(c, &al_photoionization(), q);
    let h = integrals::inverse_bremsstrahlung_with_slopes(c, 1.0, q);
    let of = |k: usize| vec![e[k][0], e[k][1], i[k][0], i[k][1], p[k][0], p[k][1], h[k]];
    ([of(0), of(1), of(2)], h[3])
}

/// Al3+ 2p5 3s (level 4, 20.926 eV below Al4+) of the paper's data.
fn al_ionization() -> Ionization {
    Ionization { energy_ev: 20.926, beli: [3.71, -0.236, 2.35, -0.66, 0.0], g_lower: 1.0, g_upper: 2.0 }
}

fn al_photoionization() -> Photoionization {
    Photoionization { energy_ev: 20.926, d0_cm2: 5.682286e-18, d1_cm2: 3.941713e-19 }
}

#[test]
fn slopes_match_richardson_differences() {
    let q = Quadrature::new(10.0, 32).unwrap();
    // (stats, T [eV], n_e [cm^-3]): the paper's degenerate start, warm dense, hot classical.
    let states = [(FD, 1.0, 2.7e23), (FD, 5.0, 4e23), (FD, 40.0, 1e22), (MB, 3.0, 1e21), (MB, 75.0, 4e23)];
    for (stats, te, ne) in states {
        let mu = fermi::chemical_potential(stats, te, ne).unwrap();
        let c = Conditions { stats, te, mu, ne, tr: 250.0 };
        let values = all_rates(&c, &q);
        let ([_, by_te, by_mu], ib_by_ne) = all_slopes(&c, &q);
        let h = 1e-4 * te;
        let d_te = richardson(|t| all_rates(&Conditions { te: t, ..c }, &q), te, h);
        let d_mu = richardson(|m| all_rates(&Conditions { mu: m, ..c }, &q), mu, h);
        let d_ne = richardson(|n| all_rates(&Conditions { ne: n, ..c }, &q), ne, 1e-4 * ne);
        let e_te = worst_slope_error(&by_te, &d_te, &values, te);
        let e_mu = worst_slope_error(&by_mu, &d_mu, &values, te);
        let e_ne = worst_slope_error(&[ib_by_ne], &d_ne[6..], &values[6..], ne);
        println!("{stats:?} T = {te} eV, mu = {mu:.4} eV: worst d/dT {e_te:.1e}, d/dmu {e_mu:.1e}, d/dn_e {e_ne:.1e}");
        assert!(e_te < 1e-6, "{stats:?} T = {te}: d/dT {by_te:?} vs differences {d_te:?}");
        assert!(e_mu < 1e-6, "{stats:?} T = {te}: d/dmu {by_mu:?} vs differences {d_mu:?}");
        assert!(e_ne < 1e-6, "{stats:?} T = {te}: d/dn_e {ib_by_ne:e} vs difference {:e}", d_ne[6]);
        // Only the inverse bremsstrahlung depends on n_e at fixed (T, mu).
        assert!(d_ne[..6].iter().all(|&d| d == 0.0), "{d_ne:?}");
    }
}

/// Every rate of a state, flattened in one order.
fn flat(r: &Rates) -> Vec<f64> {
    [&r.excitation_up, &r.excitation_down, &r.ionization_up, &r.ionization_down, &r.photo_rate, &r.photo_heating]
        .iter()
        .flat_map(|v| v.iter().copied())
        .chain([r.ib_per_z2n])
        .collect()
}

#[test]
fn chained_slopes_match_differences_in_density_and_energy() {
    let model = aluminium_subset();
    for (stats, te, ne) in [(FD, 1.0, 2.7e23), (FD, 12.0, 3e23), (MB, 20.0, 4e23)] {
        let settings = CrSettings { stats, quadrature: Quadrature::new(10.0, 32).unwrap(), tr_ev: 250.0 };
        let u = fermi::energy_density(stats, te, ne).unwrap();
        let at = |u: f64, ne: f64| -> Vec<f64> {
            let state = ElectronState { energy_density: u, ne_cm3: ne };
            flat(&cr::rates_at(&model, &settings, &[state]).unwrap().pop().unwrap().unwrap().rates)
        };
        let state = ElectronState { energy_density: u, ne_cm3: ne };
        let rates = cr::rates_with_slopes_at(&model, &settings, &[state]).unwrap().pop().unwrap().unwrap();
        let (by_ne, by_u) = rates.by_density_and_energy().expect("asked with slopes");
        let values = flat(&rates.rates);
        // Small steps: at 1 eV the degenerate gas's thermal energy is 2% of u, and T_e moves 50
        // times faster than u.
        let d_ne = richardson(|n| at(u, n), ne, 1e-6 * ne);
        let d_u = richardson(|v| at(v, ne), u, 1e-6 * u);
        let e_ne = worst_slope_error(&flat(&by_ne), &d_ne, &values, ne);
        let e_u = worst_slope_error(&flat(&by_u), &d_u, &values, u);
        println!("{stats:?} T = {te} eV, n_e = {ne:e}: worst d/dn_e {e_ne:.1e}, d/du {e_u:.1e}");
        assert!(e_ne < 1e-6 && e_u < 1e-6, "{stats:?} T = {te}: d/dn_e {e_ne:e}, d/du {e_u:e}");
    }
}

/// The paper's aluminium case (examples/data), as bench/rates_bench.rs runs it.
fn aluminium() -> (Cr, Vec<f64>) {
    let read = |name: &str| std::fs::read_to_string(format!("examples/data/aluminium-cr-{name}.csv")).unwrap();
    let model = Cr::from_csv(&read("levels"), &read("excitations"), &read("ionizations")).unwrap();
    let mut populations = vec![0.0; model.n_levels()];
    populations[0] = 9e22;
    (model, populations)
}

/// bench/RESULTS.md, "Collisional-radiative runs (issue 12)": the reference runs at rtol 1e-10,
/// atol_fraction 1e-14 (finite-difference Jacobian, H200): (stats, T_e [eV], n_e [cm^-3]) at 0.5 ps.
const TIGHT_REFERENCE: [(Statistics, f64, f64); 2] =
    [(FD, 74.807457794, 4.008365066e23), (MB, 74.787143197, 4.031015577e23)];

#[test]
fn aluminium_runs_agree_with_the_tight_reference() {
    let (model, populations) = aluminium();
    for (stats, te_ref, ne_ref) in TIGHT_REFERENCE {
        let settings = CrSettings { stats, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
        let y0 = cr::initial_state(&model, stats, &populations, 1.0).unwrap();
        let tol = StiffTolerances { rtol: 1e-6, ..StiffTolerances::default() };
        let times = [1e-15, 1e-14, 1e-13, 5e-13];
        let (run, counts) = cr::run_stiff_systems_counted(&model, &settings, &[y0], &times, &tol).unwrap().remove(0);
        let last = run.last().unwrap();
        let (te, ne) = ((last.te_ev / te_ref - 1.0).abs(), (last.ne_cm3 / ne_ref - 1.0).abs());
        println!("{stats:?} rtol 1e-6: {counts:?}; vs the tight reference: T_e {te:.1e}, n_e {ne:.1e}");
        assert!(te < 1e-6 && ne < 1e-6, "{stats:?}: T_e {} (reference {te_ref}), n_e {:e}", last.te_ev, last.ne_cm3);
        assert_eq!(counts.rate_evaluations, evaluations(counts, 1));
    }
}

/// The rate evaluations of a run that linearises with `per_linearisation` of them: once per
/// accepted step (a rejected step keeps its linearisation), and stages 2 and 3 of every step.
fn evaluations(c: cr::StiffCounts, per_linearisation: u64) -> u64 {
    per_linearisation * c.accepted + 2 * (c.accepted + c.rejected)
}

/// The analytic columns against the finite-difference ones (kept as `Jacobian::FiniteDifference`
/// for this comparison and the benchmark): the same answers to the run's tolerance and at most 2%
/// more steps at rtol 1e-7, for 3 rate evaluations per step instead of 5. (The step counts are
/// about equal: a relative error of 1e-5 in two columns of J does not change ROS4's steps.)
#[test]
fn analytic_and_difference_jacobians_take_the_same_steps() {
    let model = aluminium_subset();
    let settings = CrSettings { stats: FD, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 };
    let y0 = cr::initial_state(&model, FD, &[9e22, 0.0, 0.0, 0.0, 0.0, 1e20], 1.0).unwrap();
    let times = [1e-16, 1e-15, 1e-14, 5e-14];
    let run = |jacobian: Jacobian| {
        let tol = StiffTolerances { rtol: 1e-7, jacobian, ..StiffTolerances::default() };
        cr::run_stiff_systems_counted(&model, &settings, std::slice::from_ref(&y0), &times, &tol).unwrap().remove(0)
    };
    let (analytic, a) = run(Jacobian::Analytic);
    let (difference, d) = run(Jacobian::FiniteDifference);
    println!("rtol 1e-7: analytic {a:?}, finite differences {d:?}");
    let steps = |c: cr::StiffCounts| c.accepted + c.rejected;
    assert!(steps(a) as f64 <= 1.02 * steps(d) as f64, "analytic {a:?}, differences {d:?}");
    assert_eq!(a.rate_evaluations, evaluations(a, 1));
    assert_eq!(d.rate_evaluations, evaluations(d, 3));
    for (x, y) in analytic.iter().zip(&difference) {
        assert!((x.te_ev / y.te_ev - 1.0).abs() < 1e-6, "T_e {} vs {} at {:e} s", x.te_ev, y.te_ev, x.time_s);
    }
}
