//! What heats the electrons of the paper's aluminium case (degenerate-rates-quadrature-gpu,
//! section 4; `make demo`): 9e22 cm^-3 ions in level 0 (the Al3+ ground state), n_e =
//! 2.7e23 cm^-3, T_e = 1 eV at t = 0, Fermi-Dirac electrons, a black body at T_r = 250 eV.
//!
//! The energy budget of the electrons, du/dt = sum M' N + (du/dt)_IB (eq. 28), split by process
//! at t = 0 and integrated over the first 30 fs of the library's run, and the run with
//! photoionization switched off; the numbers it is compared with come from an independent
//! computation (tests/reference/cr_aluminium_budget.py: scipy's CODATA constants in cgs units,
//! Rybicki & Lightman's free-free coefficient written out, mpmath's Fermi-Dirac integrals and
//! quadrature, its own RK4):
//!
//! ```text
//! Fermi energy at n_e = 2.700e+23 cm^-3: 15.2328 eV
//! t = 0: T_e = 1 eV, mu = 15.1784 eV, u = 2.511160e+24 eV cm^-3, eps_c = 19.2948 eV
//!   inverse bremsstrahlung   4.624133e+36 eV cm^-3 s^-1
//!   photoionization heating  1.399338e+38 eV cm^-3 s^-1
//!   inverse bremsstrahlung's share of du/dt: 0.03199
//! photoionization off: t =  22.0 fs: u = 2.612435e+24 eV cm^-3, T_e = 1.84133 eV
//! ```
//!
//! `cargo test --release --test cr_aluminium -- --nocapture` prints the shares.

use atomgpu::rates::cr::{
    self, rates_at_temperature, Cr, CrIonization, CrSample, CrSettings, StateRates, StiffTolerances,
};
use atomgpu::rates::{fermi, Quadrature, Statistics};

/// The independent reference (tests/reference/cr_aluminium_budget.py), as printed above.
const FERMI_ENERGY_EV: f64 = 15.2328;
const IB_AT_ZERO: f64 = 4.624133e36;
const PHOTO_HEATING_AT_ZERO: f64 = 1.399338e38;
const TE_22FS_NO_PHOTOIONIZATION: f64 = 1.84133;

/// The paper's model from examples/data, with photoionization or with D0 = D1 = 0.
fn aluminium(photoionization: bool) -> Cr {
    let read = |name: &str| std::fs::read_to_string(format!("examples/data/aluminium-cr-{name}.csv")).unwrap();
    let model = Cr::from_csv(&read("levels"), &read("excitations"), &read("ionizations")).unwrap();
    if photoionization {
        return model;
    }
    let dark: Vec<CrIonization> =
        model.ionizations().iter().map(|&i| CrIonization { d0_cm2: 0.0, d1_cm2: 0.0, ..i }).collect();
    Cr::new(model.charges().to_vec(), model.weights().to_vec(), model.excitations().to_vec(), dark).unwrap()
}

/// The demo's settings: Fermi-Dirac, p = 5 with 8 nodes per panel, T_r = 250 eV.
fn settings() -> CrSettings {
    CrSettings { stats: Statistics::FermiDirac, quadrature: Quadrature::new(5.0, 8).unwrap(), tr_ev: 250.0 }
}

/// The paper's initial state: every ion in level 0, T_e = 1 eV.
fn initial_state(model: &Cr) -> Vec<f64> {
    let mut populations = vec![0.0; model.n_levels()];
    populations[0] = 9e22;
    cr::initial_state(model, Statistics::FermiDirac, &populations, 1.0).unwrap()
}

/// du/dt of a sample split by process [eV cm^-3 s^-1], from the rates at its (T_e, n_e):
/// inverse bremsstrahlung, photoelectron heating, collisional ionization (minus the binding energy
/// E K_up N_lower), three-body recombination (plus E K_down N_upper: the binding energy goes to the
/// third electron), and excitation with de-excitation (E (J_down N_upper - J_up N_lower)).
#[derive(Clone, Copy, Debug, Default)]
struct Budget {
    inverse_bremsstrahlung: f64,
    photoionization: f64,
    collisional_ionization: f64,
    three_body_recombination: f64,
    excitation: f64,
}

impl Budget {
    fn of(model: &Cr, sample: &CrSample) -> Budget {
        let r: StateRates = rates_at_temperature(model, &settings(), sample.te_ev, sample.ne_cm3).unwrap();
        let r = &r.rates;
        let n = &sample.populations;
        let mut b = Budget { inverse_bremsstrahlung: r.ib_per_z2n * model.z2_density(n), ..Budget::default() };
        for (i, x) in model.ionizations().iter().enumerate() {
            b.photoionization += r.photo_heating[i] * n[x.lower];
            b.collisional_ionization -= x.energy_ev * r.ionization_up[i] * n[x.lower];
            b.three_body_recombination += x.energy_ev * r.ionization_down[i] * n[x.upper];
        }
        for (i, x) in model.excitations().iter().enumerate() {
            b.excitation += x.energy_ev * (r.excitation_down[i] * n[x.upper] - r.excitation_up[i] * n[x.lower]);
        }
        b
    }

    fn terms(&self) -> [(&'static str, f64); 5] {
        [
            ("inverse bremsstrahlung", self.inverse_bremsstrahlung),
            ("photoionization heating", self.photoionization),
            ("collisional ionization", self.collisional_ionization),
            ("three-body recombination", self.three_body_recombination),
            ("excitation - de-excitation", self.excitation),
        ]
    }

    fn total(&self) -> f64 {
        self.terms().iter().map(|(_, v)| v).sum()
    }

    /// `self + w (other)`, term by term.
    fn add(&mut self, other: &Budget, w: f64) {
        self.inverse_bremsstrahlung += w * other.inverse_bremsstrahlung;
        self.photoionization += w * other.photoionization;
        self.collisional_ionization += w * other.collisional_ionization;
        self.three_body_recombination += w * other.three_body_recombination;
        self.excitation += w * other.excitation;
    }
}

fn print_budget(title: &str, b: &Budget, unit: &str) {
    println!("{title}");
    let gains: f64 = b.terms().iter().map(|(_, v)| v.max(0.0)).sum();
    for (name, value) in b.terms() {
        println!("  {name:<28} {value:>12.4e} {unit}  ({:>6.1}% of the gains)", 100.0 * value / gains);
    }
    println!("  {:<28} {:>12.4e} {unit}", "net", b.total());
}

/// At t = 0 the electrons gain energy from two processes only: inverse bremsstrahlung and the
/// photoelectrons of level 0. Both agree with the independent computation to 1e-4 (the
/// quadrature is p = 5), and inverse bremsstrahlung is 3.2% of du/dt: photoionization heats.
#[test]
fn at_t0_photoionization_heats_and_inverse_bremsstrahlung_is_three_percent() {
    let model = aluminium(true);
    let y = initial_state(&model);
    let start = cr::run_stiff(&model, &settings(), &y, &[1e-18], &StiffTolerances::default()).unwrap().remove(0);
    let b = Budget::of(&model, &start);
    print_budget("t = 0 (eV cm^-3 s^-1):", &b, "eV cm^-3 s^-1");
    let rel = |a: f64, b: f64| (a / b - 1.0).abs();
    assert!(rel(b.inverse_bremsstrahlung, IB_AT_ZERO) < 1e-4, "{:e}", b.inverse_bremsstrahlung);
    assert!(rel(b.photoionization, PHOTO_HEATING_AT_ZERO) < 1e-4, "{:e}", b.photoionization);
    let others = b.collisional_ionization.abs() + b.three_body_recombination.abs() + b.excitation.abs();
    assert!(others < 1e-20 * b.total(), "collisional terms at t = 0: {b:?}");
    let share = b.inverse_bremsstrahlung / b.total();
    assert!((share - 0.032).abs() < 5e-4, "inverse bremsstrahlung's share {share}");
    // The derivatives the integrators use say the same.
    let (dydt, _) = cr::derivatives(&model, &settings(), &y).unwrap();
    assert!(rel(dydt[model.n_levels()], b.total()) < 1e-12, "du/dt {:e} against {:e}", dydt[15], b.total());
}

/// Over the first 30 fs (300 samples of the stiff run, trapezoids), the energy the electrons gain
/// comes from the photoelectrons and from the binding energy of the ions photoionization made,
/// handed back by three-body recombination into Al3+ levels and by the collisional de-excitation
/// of those levels (measured: 44%, 41% and 14% of the gains); inverse bremsstrahlung brings 1.1%.
/// Collisional ionization takes back an amount equal to 35% of the gains. The terms add up to the
/// change of u (a check of the split), and T_e passes the Fermi energy before 22 fs.
#[test]
fn over_the_first_30_fs_photoionization_and_recombination_heat() {
    let model = aluminium(true);
    let y = initial_state(&model);
    let times: Vec<f64> = (1..=300).map(|i| i as f64 * 1e-16).collect();
    let tol = StiffTolerances { rtol: 1e-7, ..StiffTolerances::default() };
    let run = cr::run_stiff(&model, &settings(), &y, &times, &tol).unwrap();
    let budgets: Vec<Budget> = run.iter().map(|s| Budget::of(&model, s)).collect();
    let mut delivered = Budget::default();
    for k in 1..run.len() {
        let h = run[k].time_s - run[k - 1].time_s;
        delivered.add(&budgets[k - 1], h / 2.0);
        delivered.add(&budgets[k], h / 2.0);
    }
    let gained = run.last().unwrap().energy_density - run[0].energy_density;
    print_budget("energy delivered over 0-30 fs (eV cm^-3):", &delivered, "eV cm^-3");
    let ef = fermi::fermi_energy(run[0].ne_cm3);
    for fs in [10, 20, 22, 30] {
        let s = &run[fs * 10];
        println!(
            "t = {fs} fs: T_e = {:.3} eV (E_F at this n_e {:.2} eV), n_e = {:.4e} cm^-3",
            s.te_ev,
            fermi::fermi_energy(s.ne_cm3),
            s.ne_cm3
        );
    }
    println!("u(30 fs) - u(0) = {gained:.4e} eV cm^-3 (Fermi energy at t = 0: {ef:.2} eV)");
    assert!((delivered.total() / gained - 1.0).abs() < 1e-3, "{:e} against {gained:e}", delivered.total());
    let d = &delivered;
    assert!(d.excitation > 0.0 && d.three_body_recombination > 0.0 && d.collisional_ionization < 0.0, "{d:?}");
    let gains = d.inverse_bremsstrahlung + d.photoionization + d.three_body_recombination + d.excitation;
    assert!(d.inverse_bremsstrahlung < 0.02 * gains, "{d:?}");
    assert!(d.photoionization > 0.4 * gains && d.three_body_recombination > 0.35 * gains, "{d:?}");
    // Photoionization brings the gas past the Fermi energy by 22 fs.
    assert!(run[220].te_ev > fermi::fermi_energy(run[220].ne_cm3), "{:?}", run[220]);
}

/// With photoionization switched off (D0 = D1 = 0) nothing but inverse bremsstrahlung heats, and
/// at 22 fs T_e is 1.84 eV, far below the Fermi energy (15.23 eV): the gas stays degenerate. The
/// library's run agrees with the independent RK4 of du/dt = H_IB(T(u)) to 1e-4.
#[test]
fn without_photoionization_the_gas_stays_degenerate() {
    let model = aluminium(false);
    let y = initial_state(&model);
    let run = cr::run_stiff(&model, &settings(), &y, &[22e-15], &StiffTolerances::default()).unwrap();
    let (start, end) = (&run[0], &run[1]);
    println!(
        "photoionization off: t = 22 fs: T_e = {:.5} eV, n_e = {:.6e} cm^-3 (Fermi energy {:.4} eV)",
        end.te_ev,
        end.ne_cm3,
        fermi::fermi_energy(end.ne_cm3)
    );
    assert!((fermi::fermi_energy(start.ne_cm3) / FERMI_ENERGY_EV - 1.0).abs() < 1e-5);
    assert!((end.ne_cm3 / start.ne_cm3 - 1.0).abs() < 1e-9, "n_e changed: {:e}", end.ne_cm3);
    assert!((end.te_ev / TE_22FS_NO_PHOTOIONIZATION - 1.0).abs() < 1e-4, "T_e(22 fs) = {}", end.te_ev);
    assert!(end.te_ev < 0.2 * FERMI_ENERGY_EV);
}
