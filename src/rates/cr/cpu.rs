//! The CPU reference of the CR sub-family: every rate of a model at many electron states (the
//! temperature inversions, then every (state, transition) pair of integrals of
//! [`crate::rates::integrals`] spread over the rayon pool), and the fixed-step RK4 run of the CPU
//! backend. The model's transitions were checked when the model was made ([`Cr::new`]), so
//! nothing is checked or rebuilt here. `cuda.rs` computes the same on a GPU; [`super::rates_at`]
//! and [`super::run_rk4`] choose between them.

use super::host::derivatives;
use super::state::{ElectronState, Rates, StateRates};
use super::{sample, Cr, CrSample, CrSettings};
use crate::error::{Error, Result};
use crate::memory;
use crate::progress::Tracker;
use crate::rates::check_temperature;
use crate::rates::fermi::{density_and_energy_slopes, temperature_from_energy_density};
use crate::rates::integrals::{self, Conditions};
use rayon::prelude::*;

/// Electron conditions of a state: (T_e, mu) from (u, n_e), T_e checked against the rates'
/// range; errors name `u_ev_cm3` or `ne_cm3` (the integrators turn them into shorter steps).
fn conditions(settings: &CrSettings, state: ElectronState) -> Result<Conditions> {
    let (te, mu) = temperature_from_energy_density(settings.stats, state.energy_density, state.ne_cm3)?;
    check_temperature("te_ev", None, te)?;
    Ok(Conditions { stats: settings.stats, te, mu, ne: state.ne_cm3, tr: settings.tr_ev })
}

/// One task of a state's rates: the integrals of one transition (or the inverse bremsstrahlung).
#[derive(Clone, Copy)]
enum Task {
    Excitation(usize),
    Ionization(usize),
    Photoionization(usize),
    InverseBremsstrahlung,
}

/// The values of one task: its (up, down) pair (inverse bremsstrahlung: (heating per unit
/// Z^2 N, 0)), then, when slopes were asked for, the pair's d/dT_e and d/dmu (else zero), and
/// d/dn_e of the inverse bremsstrahlung.
struct TaskValues {
    pairs: [[f64; 2]; 3],
    ib_by_ne: f64,
}

/// One task at conditions `c`, with its slopes when `slopes`.
fn run_task(model: &Cr, settings: &CrSettings, c: &Conditions, task: Task, slopes: bool) -> TaskValues {
    let q = &settings.quadrature;
    let plain = |(up, down): (f64, f64)| TaskValues { pairs: [[up, down], [0.0; 2], [0.0; 2]], ib_by_ne: 0.0 };
    let sloped = |pairs: [[f64; 2]; 3]| TaskValues { pairs, ib_by_ne: 0.0 };
    match (task, slopes) {
        (Task::Excitation(i), false) => plain(integrals::excitation(c, &model.excitation_parameters()[i], q)),
        (Task::Excitation(i), true) => {
            sloped(integrals::excitation_with_slopes(c, &model.excitation_parameters()[i], q))
        }
        (Task::Ionization(i), false) => plain(integrals::ionization(c, &model.ionization_parameters()[i], q)),
        (Task::Ionization(i), true) => {
            sloped(integrals::ionization_with_slopes(c, &model.ionization_parameters()[i], q))
        }
        (Task::Photoionization(i), false) => {
            plain(integrals::photoionization(c, &model.photoionization_parameters()[i], q))
        }
        (Task::Photoionization(i), true) => {
            sloped(integrals::photoionization_with_slopes(c, &model.photoionization_parameters()[i], q))
        }
        (Task::InverseBremsstrahlung, false) => plain((integrals::inverse_bremsstrahlung(c, 1.0, q), 0.0)),
        (Task::InverseBremsstrahlung, true) => {
            let [h, by_te, by_mu, by_ne] = integrals::inverse_bremsstrahlung_with_slopes(c, 1.0, q);
            TaskValues { pairs: [[h, 0.0], [by_te, 0.0], [by_mu, 0.0]], ib_by_ne: by_ne }
        }
    }
}

/// The tasks of one state, double integrals first (the longest, so the pool starts them early).
fn tasks(model: &Cr) -> Vec<Task> {
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let mut t: Vec<Task> = (0..n_ion).map(Task::Ionization).collect();
    t.extend((0..n_exc).map(Task::Excitation));
    t.extend((0..n_ion).map(Task::Photoionization));
    t.push(Task::InverseBremsstrahlung);
    t
}

/// Stores the pair `(up, down)` of `task` in `rates`.
fn store_pair(rates: &mut Rates, task: Task, [up, down]: [f64; 2]) {
    match task {
        Task::Excitation(i) => (rates.excitation_up[i], rates.excitation_down[i]) = (up, down),
        Task::Ionization(i) => (rates.ionization_up[i], rates.ionization_down[i]) = (up, down),
        Task::Photoionization(i) => (rates.photo_rate[i], rates.photo_heating[i]) = (up, down),
        Task::InverseBremsstrahlung => rates.ib_per_z2n = up,
    }
}

/// Stores the values of `task` in `rates` (and its slopes when `rates` holds slopes).
fn store(rates: &mut StateRates, task: Task, v: &TaskValues) {
    store_pair(&mut rates.rates, task, v.pairs[0]);
    if let Some(s) = &mut rates.slopes {
        store_pair(&mut s.by_te, task, v.pairs[1]);
        store_pair(&mut s.by_mu, task, v.pairs[2]);
        if let Task::InverseBremsstrahlung = task {
            s.ib_by_ne = v.ib_by_ne;
        }
    }
}

/// The rates at one set of conditions (T_e, mu, n_e) on the CPU.
pub(super) fn rates_at_conditions(model: &Cr, settings: &CrSettings, c: &Conditions) -> Result<StateRates> {
    let tasks = tasks(model);
    let values: Vec<TaskValues> = tasks.par_iter().map(|&t| run_task(model, settings, c, t, false)).collect();
    let mut rates = StateRates::zeroed(c, model.excitations().len(), model.ionizations().len(), None)?;
    for (&t, v) in tasks.iter().zip(&values) {
        store(&mut rates, t, v);
    }
    rates.check_finite()
}

/// [`super::rates_at`] on the CPU (with the slopes when `slopes`): the temperature inversions,
/// then every (state, task) pair in parallel.
pub(super) fn rates_at(
    model: &Cr,
    settings: &CrSettings,
    states: &[ElectronState],
    slopes: bool,
) -> Result<Vec<Result<StateRates>>> {
    let conds: Vec<Result<Conditions>> = states.par_iter().map(|&s| conditions(settings, s)).collect();
    let tasks = tasks(model);
    let pairs: Vec<(usize, Task)> =
        (0..states.len()).filter(|&s| conds[s].is_ok()).flat_map(|s| tasks.iter().map(move |&t| (s, t))).collect();
    let values: Vec<TaskValues> = pairs
        .par_iter()
        .map(|&(s, t)| run_task(model, settings, conds[s].as_ref().expect("filtered"), t, slopes))
        .collect();
    let (n_exc, n_ion) = (model.excitations().len(), model.ionizations().len());
    let mut out: Vec<Result<StateRates>> = memory::try_collect(
        "the rates of the states",
        conds.into_iter().map(|c| {
            Ok(c.and_then(|c| {
                let gas = slopes.then(|| density_and_energy_slopes(c.stats, c.te, c.mu));
                StateRates::zeroed(&c, n_exc, n_ion, gas)
            }))
        }),
    )?;
    for (&(s, t), v) in pairs.iter().zip(&values) {
        if let Ok(r) = &mut out[s] {
            store(r, t, v);
        }
    }
    Ok(out.into_iter().map(|r| r.and_then(StateRates::check_finite)).collect())
}

/// Classical RK4 with a fixed step on the host, every stage's rates from the CPU backend. A stage
/// that leaves the physical domain stops the run (`dt_s` too large for the stiffest rate).
pub(super) fn run_rk4(
    model: &Cr,
    settings: &CrSettings,
    y0: &[f64],
    dt: f64,
    n_steps: u64,
    sample_every: u64,
    tracker: &mut Tracker,
) -> Result<Vec<CrSample>> {
    let mut y = memory::copy_of("the RK4 state", y0)?;
    let n_samples = 1 + n_steps.div_ceil(sample_every) as usize;
    let mut samples = memory::with_capacity("the RK4 samples", n_samples)?;
    samples.push(sample(model, settings.stats, 0.0, &y)?);
    let stage = |base: &[f64], k: &[f64], h: f64| -> Vec<f64> { base.iter().zip(k).map(|(a, b)| a + h * b).collect() };
    for step in 1..=n_steps {
        let diverged = |e: Error| diverged(step, e);
        let (k1, _) = derivatives(model, settings, "y", &y).map_err(diverged)?;
        let (k2, _) = derivatives(model, settings, "y", &stage(&y, &k1, 0.5 * dt)).map_err(diverged)?;
        let (k3, _) = derivatives(model, settings, "y", &stage(&y, &k2, 0.5 * dt)).map_err(diverged)?;
        let (k4, _) = derivatives(model, settings, "y", &stage(&y, &k3, dt)).map_err(diverged)?;
        for i in 0..y.len() {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        if step % sample_every == 0 || step == n_steps {
            samples.push(sample(model, settings.stats, step as f64 * dt, &y).map_err(diverged)?);
        }
        tracker.update(step as f64, n_steps as f64)?;
    }
    Ok(samples)
}

/// The error of an RK4 step `step` whose stage left the domain of the rates: not converged,
/// naming `dt_s`.
fn diverged(step: u64, e: Error) -> Error {
    match e {
        Error::InvalidArgument { .. } | Error::NotConverged(_) | Error::NotFinite { .. } => {
            Error::NotConverged(format!("RK4 step {step} left the physical domain ({e}); use a smaller `dt_s`"))
        }
        other => other,
    }
}
