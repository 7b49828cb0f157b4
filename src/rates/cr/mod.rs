//! Collisional-radiative (CR) driver, paper §4: level populations N (cm^-3) and the free-electron
//! kinetic energy density u (eV cm^-3) advanced in time under the rates of this family,
//! dN/dt = M N (eq. 27) and du/dt = sum M' N + (du/dt)_IB (eq. 28).
//!
//! At every evaluation of the right-hand side: n_e = sum_l Z_l N_l; (T_e, mu) from (u, n_e) by
//! inverting the energy density ([`super::fermi::temperature_from_energy_density`]); then every
//! rate at (T_e, n_e, T_r), assembled into M and M' ([`rate_matrices`]):
//! - excitation l -> k: N_l loses J_up N_l to N_k and N_k loses J_down N_k to N_l; u changes by
//!   E (J_down N_k - J_up N_l);
//! - ionization l -> k (k in the next ion): N_l loses (K_up + L) N_l to N_k, N_k loses K_down N_k to
//!   N_l; u changes by E (K_down N_k - K_up N_l) + H_L N_l (photoelectron heating);
//! - u gains the inverse-bremsstrahlung heating with sum_Z Z^2 N_Z = sum_l Z_l^2 N_l.
//!
//! Two integrators: [`run_rk4`], classical fourth-order Runge-Kutta with a fixed step as in the
//! paper (on a CUDA backend the whole run stays on the device: one kernel advances many steps,
//! recomputing every rate at every stage); and [`run_stiff`], the adaptive L-stable
//! Rosenbrock-W method ROS2 (Verwer, Spee, Blom & Hundsdorfer 1999) with a finite-difference
//! Jacobian, for the stiff systems CR models are.

mod cuda;
mod host;
pub mod model;
mod stiff;

pub use host::{rate_matrices, RateMatrices};
pub use model::{CrExcitation, CrIonization, CrModel};
pub use stiff::StiffTolerances;

use super::{Quadrature, Statistics};
use crate::backend::{self, Backend};
use crate::error::{require_positive, Error, Result};

/// Physics settings of a CR run.
#[derive(Clone, Debug)]
pub struct CrSettings {
    /// Electron statistics of every rate and of the energy density.
    pub stats: Statistics,
    /// Quadrature of every rate integral.
    pub quadrature: Quadrature,
    /// Black-body radiation temperature T_r [eV].
    pub tr_ev: f64,
}

/// The state of a CR system at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct CrSample {
    /// Time [s].
    pub time_s: f64,
    /// Electron temperature [eV] and chemical potential [eV], from (u, n_e).
    pub te_ev: f64,
    pub mu_ev: f64,
    /// Free-electron density [cm^-3] = sum_l Z_l N_l.
    pub ne_cm3: f64,
    /// Free-electron kinetic energy density [eV cm^-3].
    pub energy_density: f64,
    /// Level populations [cm^-3].
    pub populations: Vec<f64>,
}

/// Initial CR state from populations [cm^-3] and an electron temperature [eV]: u is the energy
/// density of the electron gas at that temperature and n_e = sum Z N.
pub fn initial_state(model: &CrModel, stats: Statistics, populations: &[f64], te_ev: f64) -> Result<Vec<f64>> {
    model.check_populations(populations)?;
    require_positive("te_ev", None, te_ev, "eV")?;
    let ne = model.electron_density(populations);
    if ne.is_nan() || ne <= 0.0 {
        return Err(Error::invalid("populations", "give no free electrons (sum Z_l N_l must be > 0)"));
    }
    let u = super::fermi::energy_density(stats, te_ev, ne)?;
    let mut y = populations.to_vec();
    y.push(u);
    Ok(y)
}

/// Advances `y0` = (N_1..N_n, u) by `n_steps` fixed RK4 steps of `dt_s` seconds, returning the
/// state every `sample_every` steps and after the last step (and the initial state first), on
/// the backend in force.
pub fn run_rk4(
    model: &CrModel,
    settings: &CrSettings,
    y0: &[f64],
    dt_s: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<CrSample>> {
    let mut runs = run_rk4_systems(model, settings, &[y0.to_vec()], dt_s, n_steps, sample_every)?;
    Ok(runs.pop().expect("one system"))
}

/// [`run_rk4`] for many independent systems of one model (the cells of a hydrodynamic code, say),
/// each from its own initial state: on a CUDA backend one block per system, all in one launch.
pub fn run_rk4_systems(
    model: &CrModel,
    settings: &CrSettings,
    y0s: &[Vec<f64>],
    dt_s: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<Vec<CrSample>>> {
    if y0s.is_empty() {
        return Err(Error::invalid("n_systems", "must be >= 1, got 0"));
    }
    for y0 in y0s {
        check_run(model, settings, y0)?;
    }
    require_positive("dt_s", None, dt_s, "s")?;
    if n_steps == 0 {
        return Err(Error::invalid("n_steps", "must be >= 1"));
    }
    if sample_every == 0 {
        return Err(Error::invalid("sample_every", "must be >= 1"));
    }
    match backend::current()? {
        Backend::Cpu => y0s.iter().map(|y0| host::run_rk4(model, settings, y0, dt_s, n_steps, sample_every)).collect(),
        Backend::Cuda(d) => cuda::run_rk4(&d, model, settings, y0s, dt_s, n_steps, sample_every),
    }
}

/// Advances `y0` to each time of `sample_times_s` (ascending, > 0, measured from `y0`, which is
/// at t = 0) with the adaptive stiff integrator, returning the state at t = 0 and at each of those times. The rates of each
/// right-hand side are computed on the backend in force.
pub fn run_stiff(
    model: &CrModel,
    settings: &CrSettings,
    y0: &[f64],
    sample_times_s: &[f64],
    tolerances: &StiffTolerances,
) -> Result<Vec<CrSample>> {
    check_run(model, settings, y0)?;
    stiff::run(model, settings, y0, sample_times_s, tolerances)
}

fn check_run(model: &CrModel, settings: &CrSettings, y0: &[f64]) -> Result<()> {
    require_positive("tr_ev", None, settings.tr_ev, "eV")?;
    if y0.len() != model.n_levels() + 1 {
        return Err(Error::invalid(
            "y0",
            format!("must hold {} populations and the energy density, got {} values", model.n_levels(), y0.len()),
        ));
    }
    model.check_populations(&y0[..model.n_levels()])?;
    require_positive("y0", Some(model.n_levels()), y0[model.n_levels()], "eV cm^-3 (energy density)")
}

/// The right-hand side d(N, u)/dt at `y`, with the rates from the backend in force, and the
/// electron conditions (T_e, mu, n_e) it used.
pub fn derivatives(model: &CrModel, settings: &CrSettings, y: &[f64]) -> Result<(Vec<f64>, [f64; 3])> {
    host::derivatives(model, settings, y)
}

/// A sample of state `y` at time `t`.
pub(crate) fn sample(model: &CrModel, stats: Statistics, t: f64, y: &[f64]) -> Result<CrSample> {
    let n = model.n_levels();
    let ne = model.electron_density(&y[..n]);
    let (te, mu) = super::fermi::temperature_from_energy_density(stats, y[n], ne)?;
    Ok(CrSample { time_s: t, te_ev: te, mu_ev: mu, ne_cm3: ne, energy_density: y[n], populations: y[..n].to_vec() })
}
