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
//! recomputing every rate at every stage); and [`run_stiff`] / [`run_stiff_systems`], the adaptive
//! L-stable Rosenbrock method ROS4 with the Jacobian that the CR structure gives, its electron
//! columns from the rates' analytic derivatives ([`rates_with_slopes_at`], [`stiff`]), for the
//! stiff systems CR models are, one or many at once.

mod cpu;
mod cuda;
mod host;
pub mod model;
mod state;
mod stiff;

pub use host::{rate_matrices, RateMatrices};
pub use model::{Cr, CrExcitation, CrIonization};
pub use state::{ElectronState, RateSlopes, Rates, StateRates};
pub use stiff::{Jacobian, StiffCounts, StiffTolerances};

use super::{PlasmaState, Quadrature, Statistics};
use crate::backend::{self, Backend};
use crate::error::{require_positive, Error, Result};
use crate::memory;
use crate::progress::Tracker;

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

/// Most steps of one fixed-step run (2^53): step counts and the times step x dt stay exact in
/// double precision. A shorter run that still takes too long is stopped by the calling
/// thread's progress callback or time limit ([`crate::progress`]).
pub const MAX_RK4_STEPS: u64 = 1 << 53;

/// Initial CR state from populations [cm^-3] and an electron temperature [eV]: u is the energy
/// density of the electron gas at that temperature and n_e = sum Z N.
pub fn initial_state(model: &Cr, stats: Statistics, populations: &[f64], te_ev: f64) -> Result<Vec<f64>> {
    model.check_populations("populations", populations)?;
    super::check_temperature("te_ev", None, te_ev)?;
    let ne = model.checked_electron_density("populations", populations)?;
    let u = super::fermi::energy_density(stats, te_ev, ne)?;
    let mut y = memory::with_capacity("the state y", populations.len() + 1)?;
    y.extend_from_slice(populations);
    y.push(u);
    Ok(y)
}

/// Advances `y` = (N_1..N_n, u) by `n_steps` fixed RK4 steps of `dt_s` seconds, returning the
/// state every `sample_every` steps and after the last step (and the initial state first), on
/// the backend in force. Progress (steps done of `n_steps`) goes to the calling thread's
/// callback as task `atomgpu_cr_run_rk4`.
pub fn run_rk4(
    model: &Cr,
    settings: &CrSettings,
    y: &[f64],
    dt_s: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<CrSample>> {
    let mut runs = run_rk4_systems(model, settings, std::slice::from_ref(&y.to_vec()), dt_s, n_steps, sample_every)?;
    Ok(runs.pop().expect("one system"))
}

/// [`run_rk4`] for many independent systems of one model (the cells of a hydrodynamic code, say),
/// each from its own initial state: on a CUDA backend one block per system, all in one launch.
pub fn run_rk4_systems(
    model: &Cr,
    settings: &CrSettings,
    ys: &[Vec<f64>],
    dt_s: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<Vec<CrSample>>> {
    if ys.is_empty() {
        return Err(Error::invalid("n_systems", "must be >= 1, got 0"));
    }
    for y in ys {
        check_run(model, settings, y)?;
    }
    require_positive("dt_s", None, dt_s, "s")?;
    if !(1..=MAX_RK4_STEPS).contains(&n_steps) {
        return Err(Error::invalid("n_steps", format!("must be in [1, 2^53], got {n_steps}")));
    }
    if sample_every == 0 {
        return Err(Error::invalid("sample_every", "must be >= 1"));
    }
    let mut tracker = Tracker::start(c"atomgpu_cr_run_rk4");
    let runs = match backend::current()? {
        Backend::Cpu => memory::try_collect(
            "the runs",
            ys.iter().map(|y| cpu::run_rk4(model, settings, y, dt_s, n_steps, sample_every, &mut tracker)),
        )?,
        Backend::Cuda(d) => cuda::run_rk4(&d, model, settings, ys, dt_s, n_steps, sample_every, &mut tracker)?,
    };
    tracker.finish(n_steps as f64)?;
    Ok(runs)
}

/// Advances `y` to each time of `sample_times_s` (ascending, > 0, measured from `y`, which is at
/// t = 0) with the adaptive stiff integrator ([`stiff`]: ROS4 with the CR system's structural
/// Jacobian), returning the state at t = 0 and at each of those times. The rates of every stage
/// come from the backend in force. Progress (simulated seconds of the last sample time) goes to
/// the calling thread's callback as task `atomgpu_cr_run_stiff`.
pub fn run_stiff(
    model: &Cr,
    settings: &CrSettings,
    y: &[f64],
    sample_times_s: &[f64],
    tolerances: &StiffTolerances,
) -> Result<Vec<CrSample>> {
    let mut runs = run_stiff_systems(model, settings, std::slice::from_ref(&y.to_vec()), sample_times_s, tolerances)?;
    Ok(runs.pop().expect("one system"))
}

/// [`run_stiff`] for many independent systems of one model (the cells of a hydrodynamic code),
/// each from its own state and with its own step sizes, to the same sample times: each stage's
/// rates of all systems go to the backend in one call (on a GPU, one launch), so a GPU is filled
/// by many systems. Errors of one system name it ("system i: ..."); with several systems, a
/// refused state names its cell and its element of the C array `y`, the states side by side
/// (`in_cell`).
pub fn run_stiff_systems(
    model: &Cr,
    settings: &CrSettings,
    ys: &[Vec<f64>],
    sample_times_s: &[f64],
    tolerances: &StiffTolerances,
) -> Result<Vec<Vec<CrSample>>> {
    let runs = run_stiff_systems_counted(model, settings, ys, sample_times_s, tolerances)?;
    Ok(runs.into_iter().map(|(samples, _)| samples).collect())
}

/// [`run_stiff_systems`] with what each system's run took (steps accepted and rejected, rate
/// evaluations).
pub fn run_stiff_systems_counted(
    model: &Cr,
    settings: &CrSettings,
    ys: &[Vec<f64>],
    sample_times_s: &[f64],
    tolerances: &StiffTolerances,
) -> Result<Vec<(Vec<CrSample>, StiffCounts)>> {
    if ys.is_empty() {
        return Err(Error::invalid("n_systems", "must be >= 1, got 0"));
    }
    for (cell, y) in ys.iter().enumerate() {
        check_run(model, settings, y).map_err(|e| if ys.len() > 1 { in_cell(e, cell, y.len()) } else { e })?;
    }
    let mut tracker = Tracker::start(c"atomgpu_cr_run_stiff");
    let runs = stiff::run(model, settings, ys, sample_times_s, tolerances, &mut tracker)?;
    tracker.finish(sample_times_s.last().copied().unwrap_or(0.0))?;
    Ok(runs)
}

/// An error about `y`, the state of cell `cell` (`len` values each, side by side in the C array
/// `y`), made to name the cell: element i of its state is element `cell * len + i` of `y`, e.g.
/// "argument `y`[29]: cell 7 (y[7*4 + 1]): population of level 1 must be >= 0 cm^-3, got -1".
fn in_cell(e: Error, cell: usize, len: usize) -> Error {
    match e {
        Error::InvalidArgument { name: "y", index: Some(i), rule } => Error::InvalidArgument {
            name: "y",
            index: Some(cell * len + i),
            rule: format!("cell {cell} (y[{cell}*{len} + {i}]): {rule}"),
        },
        Error::InvalidArgument { name: "y", index: None, rule } => {
            Error::InvalidArgument { name: "y", index: None, rule: format!("cell {cell}: {rule}") }
        }
        other => other,
    }
}

fn check_run(model: &Cr, settings: &CrSettings, y: &[f64]) -> Result<()> {
    super::check_temperature("tr_ev", None, settings.tr_ev)?;
    model.check_state("y", y)?;
    host::electron_conditions(model, settings, "y", y).map(|_| ())
}

/// The right-hand side d(N, u)/dt at `y`, with the rates from the backend in force, and the
/// electron conditions (T_e, mu, n_e) it used.
pub fn derivatives(model: &Cr, settings: &CrSettings, y: &[f64]) -> Result<(Vec<f64>, [f64; 3])> {
    model.check_state("y", y)?;
    host::derivatives(model, settings, "y", y)
}

/// The rates of `model` at each of `states`, on the backend in force: one result per state (a
/// state outside the rates' domain fails alone). Errors of the call itself (device, memory) are
/// the outer error.
pub fn rates_at(model: &Cr, settings: &CrSettings, states: &[ElectronState]) -> Result<Vec<Result<StateRates>>> {
    rates_at_near(model, settings, states, &vec![f64::NAN; states.len()], false)
}

/// [`rates_at`] with every rate's derivatives by T_e, mu and n_e ([`StateRates::slopes`],
/// computed in the same quadrature pass; [`StateRates::by_density_and_energy`] turns them into
/// derivatives by the state's n_e and u): what the stiff integrator's Jacobian is made of.
pub fn rates_with_slopes_at(
    model: &Cr,
    settings: &CrSettings,
    states: &[ElectronState],
) -> Result<Vec<Result<StateRates>>> {
    rates_at_near(model, settings, states, &vec![f64::NAN; states.len()], true)
}

/// [`rates_at`] (with the slopes when `slopes`) with a guess of each state's eta = mu/T_e (NaN:
/// none) for the temperature inversion (the GPU's Newton starts from it; the integrators pass the
/// last state's value).
pub(super) fn rates_at_near(
    model: &Cr,
    settings: &CrSettings,
    states: &[ElectronState],
    eta_guesses: &[f64],
    slopes: bool,
) -> Result<Vec<Result<StateRates>>> {
    match backend::current()? {
        Backend::Cpu => cpu::rates_at(model, settings, states, slopes),
        Backend::Cuda(d) => cuda::rates_at(&d, model, settings, states, eta_guesses, slopes),
    }
}

/// The rates of `model` at conditions (T_e, n_e) (mu from them), on the backend in force: what
/// [`rate_matrices`] shows the caller.
pub fn rates_at_temperature(model: &Cr, settings: &CrSettings, te_ev: f64, ne_cm3: f64) -> Result<StateRates> {
    let c = super::conditions(settings.stats, &[PlasmaState { te_ev, ne_cm3, tr_ev: settings.tr_ev }])?[0];
    let u = super::fermi::energy_density(settings.stats, te_ev, ne_cm3)?;
    let state = ElectronState { energy_density: u, ne_cm3 };
    match backend::current()? {
        Backend::Cpu => cpu::rates_at_conditions(model, settings, &c),
        Backend::Cuda(d) => cuda::rates_at_conditions(&d, model, settings, state, &c),
    }
}

/// A sample of state `y` at time `t`.
pub(crate) fn sample(model: &Cr, stats: Statistics, t: f64, y: &[f64]) -> Result<CrSample> {
    let n = model.n_levels();
    let ne = model.electron_density(&y[..n]);
    let (te, mu) = super::fermi::temperature_from_energy_density(stats, y[n], ne)?;
    Ok(CrSample {
        time_s: t,
        te_ev: te,
        mu_ev: mu,
        ne_cm3: ne,
        energy_density: y[n],
        populations: memory::copy_of("a sample's populations", &y[..n])?,
    })
}
