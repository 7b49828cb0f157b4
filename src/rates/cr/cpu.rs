//! Every rate of a CR model at many electron states in one call: the one evaluation the
//! integrators need. A state is the free-electron energy density u [eV cm^-3] and density n_e
//! [cm^-3]; each is inverted to (T_e, mu) ([`super::super::fermi::temperature_from_energy_density`])
//! and all transitions are integrated at it. The model's transitions were checked when the model
//! was made ([`CrModel::new`]), so nothing is checked or rebuilt here: on the CPU the integrals of
//! [`crate::rates::integrals`] run directly, (state, transition) pairs spread over the rayon pool;
//! on a GPU the model lives on the device from its first use and one launch serves every state
//! (`cuda.rs`).

use super::{CrModel, CrSettings};
use crate::backend::{self, Backend};
use crate::error::{require_finite_result, Result};
use crate::memory;
use crate::rates::fermi::temperature_from_energy_density;
use crate::rates::integrals::{self, Conditions};
use crate::rates::{check_temperature, PlasmaState};
use rayon::prelude::*;

/// The electron state at which rates are wanted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElectronState {
    /// Free-electron kinetic energy density u [eV cm^-3].
    pub energy_density: f64,
    /// Free-electron density n_e [cm^-3].
    pub ne_cm3: f64,
}

/// Every rate of a model at one electron state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateRates {
    /// Electron temperature T_e [eV], chemical potential mu [eV] and density n_e [cm^-3].
    pub te_ev: f64,
    pub mu_ev: f64,
    pub ne_cm3: f64,
    /// Per excitation: J_up [s^-1 per lower ion], J_down [s^-1 per upper ion] (eqs. 5-6, 9).
    pub excitation_up: Vec<f64>,
    pub excitation_down: Vec<f64>,
    /// Per ionization: K_up [s^-1 per lower ion], K_down (three-body recombination) [s^-1 per
    /// upper ion] (eqs. 7-8, 10).
    pub ionization_up: Vec<f64>,
    pub ionization_down: Vec<f64>,
    /// Per ionization: photoionization rate L [s^-1 per lower ion] and photoelectron heating H
    /// [eV s^-1 per lower ion] (eqs. 11-13).
    pub photo_rate: Vec<f64>,
    pub photo_heating: Vec<f64>,
    /// Inverse-bremsstrahlung heating per unit sum_Z Z^2 N_Z [eV s^-1] (eqs. 14-15).
    pub ib_per_z2n: f64,
}

impl StateRates {
    /// Rates of a model with `n_exc` excitations and `n_ion` ionizations at conditions `c`, all
    /// zero (filled by the backends).
    pub(super) fn zeroed(c: &Conditions, n_exc: usize, n_ion: usize) -> Result<Self> {
        let zeros = |n: usize| memory::filled("the rates of a state", n, 0.0);
        Ok(StateRates {
            te_ev: c.te,
            mu_ev: c.mu,
            ne_cm3: c.ne,
            excitation_up: zeros(n_exc)?,
            excitation_down: zeros(n_exc)?,
            ionization_up: zeros(n_ion)?,
            ionization_down: zeros(n_ion)?,
            photo_rate: zeros(n_ion)?,
            photo_heating: zeros(n_ion)?,
            ib_per_z2n: 0.0,
        })
    }

    /// Every rate finite (a rate that overflows is reported, never integrated).
    pub(super) fn check_finite(self) -> Result<Self> {
        let all = [
            ("excitation_up", &self.excitation_up),
            ("excitation_down", &self.excitation_down),
            ("ionization_up", &self.ionization_up),
            ("ionization_down", &self.ionization_down),
            ("photoionization_rate", &self.photo_rate),
            ("photoionization_heating", &self.photo_heating),
        ];
        for (name, values) in all {
            require_finite_result(name, values, |i| {
                format!("transition {i} at T_e = {} eV, n_e = {:e} cm^-3", self.te_ev, self.ne_cm3)
            })?;
        }
        require_finite_result("heating", &[self.ib_per_z2n], |_| "inverse bremsstrahlung per unit Z^2 N".into())?;
        Ok(self)
    }
}

/// Electron conditions of a state: (T_e, mu) from (u, n_e), T_e checked against the rates'
/// range; errors name `u_ev_cm3` or `ne_cm3` (the integrators turn them into shorter steps).
pub(super) fn conditions(settings: &CrSettings, state: ElectronState) -> Result<Conditions> {
    let (te, mu) = temperature_from_energy_density(settings.stats, state.energy_density, state.ne_cm3)?;
    check_temperature("te_ev", None, te)?;
    Ok(Conditions { stats: settings.stats, te, mu, ne: state.ne_cm3, tr: settings.tr_ev })
}

/// The rates of `model` at each of `states`, on the backend in force: one result per state (a
/// state outside the rates' domain fails alone). Errors of the call itself (device, memory) are
/// the outer error.
pub fn rates_at(model: &CrModel, settings: &CrSettings, states: &[ElectronState]) -> Result<Vec<Result<StateRates>>> {
    rates_at_near(model, settings, states, &vec![f64::NAN; states.len()])
}

/// [`rates_at`] with a guess of each state's eta = mu/T_e (NaN: none) for the temperature
/// inversion (the GPU's Newton starts from it; the integrators pass the last state's value).
pub(super) fn rates_at_near(
    model: &CrModel,
    settings: &CrSettings,
    states: &[ElectronState],
    eta_guesses: &[f64],
) -> Result<Vec<Result<StateRates>>> {
    match backend::current()? {
        Backend::Cpu => cpu_rates_at(model, settings, states),
        Backend::Cuda(d) => super::cuda::rates_at(&d, model, settings, states, eta_guesses),
    }
}

/// The rates of `model` at conditions (T_e, n_e) (mu from them), on the backend in force: what
/// [`super::rate_matrices`] shows the caller.
pub fn rates_at_temperature(model: &CrModel, settings: &CrSettings, te_ev: f64, ne_cm3: f64) -> Result<StateRates> {
    let c = crate::rates::conditions(settings.stats, &[PlasmaState { te_ev, ne_cm3, tr_ev: settings.tr_ev }])?[0];
    let u = crate::rates::fermi::energy_density(settings.stats, te_ev, ne_cm3)?;
    let state = ElectronState { energy_density: u, ne_cm3 };
    match backend::current()? {
        Backend::Cpu => cpu_rates(model, settings, &c),
        Backend::Cuda(d) => super::cuda::rates_at_conditions(&d, model, settings, state, &c),
    }
}

/// One task of a state's rates: the integrals of one transition (or the inverse bremsstrahlung).
#[derive(Clone, Copy)]
enum Task {
    Excitation(usize),
    Ionization(usize),
    Photoionization(usize),
    InverseBremsstrahlung,
}

/// The (up, down) pair of one task at conditions `c` (inverse bremsstrahlung: (heating per unit
/// Z^2 N, 0)).
fn run_task(model: &CrModel, settings: &CrSettings, c: &Conditions, task: Task) -> (f64, f64) {
    let q = &settings.quadrature;
    match task {
        Task::Excitation(i) => integrals::excitation(c, &model.excitation_parameters()[i], q),
        Task::Ionization(i) => integrals::ionization(c, &model.ionization_parameters()[i], q),
        Task::Photoionization(i) => integrals::photoionization(c, &model.photoionization_parameters()[i], q),
        Task::InverseBremsstrahlung => (integrals::inverse_bremsstrahlung(c, 1.0, q), 0.0),
    }
}

/// The tasks of one state, double integrals first (the longest, so the pool starts them early).
fn tasks(model: &CrModel) -> Vec<Task> {
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let mut t: Vec<Task> = (0..n_ion).map(Task::Ionization).collect();
    t.extend((0..n_exc).map(Task::Excitation));
    t.extend((0..n_ion).map(Task::Photoionization));
    t.push(Task::InverseBremsstrahlung);
    t
}

fn store(rates: &mut StateRates, task: Task, (up, down): (f64, f64)) {
    match task {
        Task::Excitation(i) => (rates.excitation_up[i], rates.excitation_down[i]) = (up, down),
        Task::Ionization(i) => (rates.ionization_up[i], rates.ionization_down[i]) = (up, down),
        Task::Photoionization(i) => (rates.photo_rate[i], rates.photo_heating[i]) = (up, down),
        Task::InverseBremsstrahlung => rates.ib_per_z2n = up,
    }
}

/// The rates at one set of conditions on the CPU.
fn cpu_rates(model: &CrModel, settings: &CrSettings, c: &Conditions) -> Result<StateRates> {
    let tasks = tasks(model);
    let values: Vec<(f64, f64)> = tasks.par_iter().map(|&t| run_task(model, settings, c, t)).collect();
    let mut rates = StateRates::zeroed(c, model.excitations().len(), model.ionizations().len())?;
    for (&t, v) in tasks.iter().zip(values) {
        store(&mut rates, t, v);
    }
    rates.check_finite()
}

/// [`rates_at`] on the CPU: the temperature inversions, then every (state, task) pair in
/// parallel.
fn cpu_rates_at(model: &CrModel, settings: &CrSettings, states: &[ElectronState]) -> Result<Vec<Result<StateRates>>> {
    let conds: Vec<Result<Conditions>> = states.par_iter().map(|&s| conditions(settings, s)).collect();
    let tasks = tasks(model);
    let pairs: Vec<(usize, Task)> =
        (0..states.len()).filter(|&s| conds[s].is_ok()).flat_map(|s| tasks.iter().map(move |&t| (s, t))).collect();
    let values: Vec<(f64, f64)> =
        pairs.par_iter().map(|&(s, t)| run_task(model, settings, conds[s].as_ref().expect("filtered"), t)).collect();
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let mut out: Vec<Result<StateRates>> = memory::try_collect(
        "the rates of the states",
        conds.into_iter().map(|c| Ok(c.and_then(|c| StateRates::zeroed(&c, n_exc, n_ion)))),
    )?;
    for (&(s, t), v) in pairs.iter().zip(values) {
        if let Ok(r) = &mut out[s] {
            store(r, t, v);
        }
    }
    Ok(out.into_iter().map(|r| r.and_then(StateRates::check_finite)).collect())
}
