//! Adaptive stiff integration of the CR system, for one system or many independent ones (the
//! cells of a hydrodynamic code) at once.
//!
//! Method: the four-stage Rosenbrock method ROS4 with the L-stable parameter set of Hairer &
//! Wanner (Solving Ordinary Differential Equations II, 2nd ed., 1996, §IV.7, Table 7.2,
//! gamma = 0.57282), order 4 with an embedded order-3 error estimate, written as
//!   G = I/(gamma h) - J,   G k_i = f(y + sum_j a_ij k_j) + sum_j (c_ij / h) k_j   (i = 1..4),
//!   y_new = y + sum_i m_i k_i,   error = sum_i e_i k_i,
//! with a_4j = a_3j, so stage 4 reuses stage 3's f: three right-hand sides and one LU per step.
//!
//! Jacobian from the structure of the CR system: f(y) = R(u, n_e) y for y = (N, u), with the
//! rates R depending on y only through n_e = z.N (z the level charges) and u. Hence
//!   J = R + (dR/dn_e y) z^T + (dR/du y) e_u^T,
//! with the two columns from the rates' analytic derivatives by T_e and mu, computed in the same
//! quadrature pass as the rates ([`super::rates_with_slopes_at`]) and chained to n_e and u
//! through the electron gas's (T_e, mu)(n_e, u) ([`StateRates::by_density_and_energy`]). A step
//! costs three rate evaluations (the state with its slopes, stages 2 and 3). The alternative
//! [`Jacobian::FiniteDifference`] takes the two columns as one-sided differences of R y at
//! n_e (1 - EPS) and u (1 + EPS) (five evaluations per step); it is kept for the comparison
//! of the two (tests/cr.rs, bench/rates_bench.rs). Every cell's evaluations of a stage go to the
//! backend in one call ([`super::rates_at`]): on a GPU one launch for all cells.
//!
//! Step control: the weighted RMS norm of the error with weights atol_j + rtol max(|y_j|,
//! |y_new_j|); h_next = h min(5, max(0.2, 0.9 err^{-1/4})) after acceptance, h max(0.1, min(0.5,
//! 0.9 err^{-1/4})) after rejection. A population pushed below zero by more than its error
//! allowance rejects the step (halved); within it, it is set to zero at acceptance.

use super::host::{apply, electron_state, rename_energy_error, system_matrix};
use super::state::{ElectronState, StateRates};
use super::{rates_at_near, sample, Cr, CrSample, CrSettings};
use crate::error::{Error, Result};
use crate::math::dense::Lu;
use crate::memory;
use crate::progress::Tracker;
use rayon::prelude::*;

/// Error control of [`super::run_stiff`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StiffTolerances {
    /// Relative tolerance per component.
    pub rtol: f64,
    /// Absolute tolerance as a fraction of the initial total population (for populations) and of
    /// the initial energy density (for u).
    pub atol_fraction: f64,
    /// First trial step [s].
    pub initial_step_s: f64,
    /// Step limit (accepted and rejected) of each system over the whole run.
    pub max_steps: u64,
    /// How the two electron columns of the Jacobian are made.
    pub jacobian: Jacobian,
}

impl Default for StiffTolerances {
    fn default() -> Self {
        StiffTolerances {
            rtol: 1e-6,
            atol_fraction: 1e-10,
            initial_step_s: 1e-18,
            max_steps: 1_000_000,
            jacobian: Jacobian::Analytic,
        }
    }
}

/// The columns dR/dn_e y and dR/du y of the stiff integrator's Jacobian (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jacobian {
    /// From the rates' derivatives (the default).
    Analytic,
    /// One-sided differences at n_e (1 - 1e-5) and u (1 + 1e-5): the integrator before the
    /// analytic derivatives, kept to compare the two.
    FiniteDifference,
}

/// What one system's run took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StiffCounts {
    /// Steps accepted and rejected.
    pub accepted: u64,
    pub rejected: u64,
    /// Rate evaluations (electron states whose rates were computed, slopes included).
    pub rate_evaluations: u64,
}

/// ROS4, L-stable set (Hairer & Wanner Table 7.2), in the G = I/(gamma h) - J form.
const GAMMA: f64 = 0.57282;
const A21: f64 = 2.0;
const A31: f64 = 1.867943637803922;
const A32: f64 = 0.2344449711399156;
const C21: f64 = -7.13761503641231;
const C31: f64 = 2.580708087951457;
const C32: f64 = 0.6515950076447975;
const C41: f64 = -2.137148994382534;
const C42: f64 = -0.3214669691237626;
const C43: f64 = -0.6949742501781779;
const M: [f64; 4] = [2.255570073418735, 0.2870493262186792, 0.435317943184018, 1.093502252409163];
const E: [f64; 4] = [-0.2815431932141155, -0.0727619912493892, -0.1082196201495311, -1.093502252409163];

/// Relative step of the two difference columns of J: large enough that a change in the
/// quadrature's panel count between the two states (a jump of the order of the quadrature error,
/// ~1e-8 relative) moves a column by < 1e-3 of itself, small enough that the one-sided
/// difference is within ~EPS of the derivative.
const EPS: f64 = 1e-5;

/// The linearisation of a system at its current state: f(y) and J.
struct Linearization {
    f0: Vec<f64>,
    jac: Vec<f64>,
}

/// One system being integrated.
struct Cell {
    y: Vec<f64>,
    t: f64,
    h: f64,
    next_sample: usize,
    steps: u64,
    counts: StiffCounts,
    atol: Vec<f64>,
    linear: Option<Linearization>,
    /// eta = mu/T_e at the last linearisation (NaN before the first): the inversions' start.
    eta: f64,
    /// (time, state) of each sample taken.
    samples: Vec<(f64, Vec<f64>)>,
}

/// A step being tried: its size, the LU of G, the stages so far.
struct Trial {
    cell: usize,
    h: f64,
    last: bool,
    lu: Lu,
    k: Vec<Vec<f64>>,
}

fn check_tolerances(tol: &StiffTolerances, times: &[f64]) -> Result<()> {
    if !(tol.rtol > 0.0 && tol.rtol < 1.0) {
        return Err(Error::invalid("rtol", format!("must be in (0, 1), got {}", tol.rtol)));
    }
    if !(tol.atol_fraction > 0.0 && tol.atol_fraction.is_finite()) {
        return Err(Error::invalid("atol_fraction", format!("must be > 0, got {}", tol.atol_fraction)));
    }
    if !(tol.initial_step_s > 0.0 && tol.initial_step_s.is_finite()) {
        return Err(Error::invalid("initial_step_s", format!("must be > 0 s, got {}", tol.initial_step_s)));
    }
    let mut previous = 0.0;
    for (i, &t) in times.iter().enumerate() {
        if !(t.is_finite() && t > previous) {
            return Err(Error::invalid_at("sample_times_s", i, "must be finite, > 0 and ascending"));
        }
        previous = t;
    }
    Ok(())
}

/// `e` about system `cell` of `n_cells` (prefixed with the system's index when there are several).
fn about_cell(n_cells: usize, cell: usize, e: Error) -> Error {
    match e {
        Error::NotConverged(m) if n_cells > 1 => Error::NotConverged(format!("system {cell}: {m}")),
        other => other,
    }
}

/// Whether a failed stage evaluation means "step too long" (the stage left the rates' domain)
/// rather than a failure of the call.
fn stage_left_domain(e: &Error) -> bool {
    matches!(e, Error::InvalidArgument { .. } | Error::NotConverged(_))
}

/// Sets to zero the populations of an accepted step that fell below zero by no more than the
/// step's error allowance (atol_j + rtol |y_j|, the accuracy the run was asked for), so that
/// every sample is a valid state to continue from (`atomgpu_cr_run_stiff` refuses negative
/// populations). Returns false, leaving `new` as it is, when one fell further: the step is then
/// rejected.
fn clip_populations(new: &mut [f64], old: &[f64], atol: &[f64], rtol: f64) -> bool {
    if new.iter().zip(old).zip(atol).any(|((&p, &q), &a)| p < -(a + rtol * q.abs())) {
        return false;
    }
    for p in new.iter_mut() {
        *p = p.max(0.0);
    }
    true
}

/// J = R + by_ne z^T + by_u e_u^T for the system matrix R at y (row-major, `jac` on entry) and
/// the columns by_ne = dR/dn_e y, by_u = dR/du y (module docs).
fn with_electron_columns(model: &Cr, mut jac: Vec<f64>, by_ne: &[f64], by_u: &[f64]) -> Vec<f64> {
    let n = model.n_levels();
    let dim = n + 1;
    for i in 0..dim {
        for (j, z) in model.charges().iter().enumerate() {
            jac[i * dim + j] += by_ne[i] * z;
        }
        jac[i * dim + n] += by_u[i];
    }
    jac
}

/// The linearisation at y from its rates with their slopes ([`Jacobian::Analytic`]).
fn linearize(model: &Cr, y: &[f64], rates: &StateRates) -> Result<Linearization> {
    let jac = system_matrix(model, &rates.rates)?;
    let f0 = apply(&jac, y);
    let (by_ne, by_u) = rates.by_density_and_energy().expect("the rates were asked with their slopes");
    let by_ne = apply(&system_matrix(model, &by_ne)?, y);
    let by_u = apply(&system_matrix(model, &by_u)?, y);
    Ok(Linearization { jac: with_electron_columns(model, jac, &by_ne, &by_u), f0 })
}

/// The linearisation at y from the rates at y and at its two neighbours
/// ([`Jacobian::FiniteDifference`]).
fn linearize_by_differences(
    model: &Cr,
    y: &[f64],
    rates: [&StateRates; 3],
    states: [ElectronState; 3],
) -> Result<Linearization> {
    let jac = system_matrix(model, &rates[0].rates)?;
    let f0 = apply(&jac, y);
    let f_ne = apply(&system_matrix(model, &rates[1].rates)?, y);
    let f_u = apply(&system_matrix(model, &rates[2].rates)?, y);
    let d_ne = states[1].ne_cm3 - states[0].ne_cm3;
    let d_u = states[2].energy_density - states[0].energy_density;
    let by_ne: Vec<f64> = f_ne.iter().zip(&f0).map(|(a, b)| (a - b) / d_ne).collect();
    let by_u: Vec<f64> = f_u.iter().zip(&f0).map(|(a, b)| (a - b) / d_u).collect();
    Ok(Linearization { jac: with_electron_columns(model, jac, &by_ne, &by_u), f0 })
}

impl Jacobian {
    /// The electron states at which a linearisation at `state` needs rates: the state alone (with
    /// the slopes), or the state and its two neighbours (n_e (1 - EPS), u (1 + EPS)).
    fn states(self, state: ElectronState) -> impl Iterator<Item = ElectronState> {
        let neighbourhood = [
            state,
            ElectronState { ne_cm3: state.ne_cm3 * (1.0 - EPS), ..state },
            ElectronState { energy_density: state.energy_density * (1.0 + EPS), ..state },
        ];
        neighbourhood.into_iter().take(self.states_per_linearisation())
    }

    /// How many states [`Jacobian::states`] gives.
    fn states_per_linearisation(self) -> usize {
        match self {
            Jacobian::Analytic => 1,
            Jacobian::FiniteDifference => 3,
        }
    }
}

/// x = y + sum_j a_j k_j.
fn combine(y: &[f64], terms: &[(f64, &[f64])]) -> Vec<f64> {
    (0..y.len()).map(|i| y[i] + terms.iter().map(|(a, k)| a * k[i]).sum::<f64>()).collect()
}

/// Solves G k = f + sum_j (c_j / h) k_j for one stage.
fn stage(lu: &Lu, f: &[f64], h: f64, terms: &[(f64, &[f64])]) -> Vec<f64> {
    let mut k = combine(f, &terms.iter().map(|&(c, k)| (c / h, k)).collect::<Vec<_>>());
    lu.solve(&mut k);
    k
}

/// The run of [`super::run_stiff_systems`] (states checked), reporting the mean simulated time of
/// the systems to `tracker`: each system's samples and counts.
pub(super) fn run(
    model: &Cr,
    settings: &CrSettings,
    y0s: &[Vec<f64>],
    times: &[f64],
    tol: &StiffTolerances,
    tracker: &mut Tracker,
) -> Result<Vec<(Vec<CrSample>, StiffCounts)>> {
    check_tolerances(tol, times)?;
    let n = model.n_levels();
    let dim = n + 1;
    let n_cells = y0s.len();
    let t_end = times.last().copied().unwrap_or(0.0);
    let mut cells: Vec<Cell> = memory::try_collect(
        "the systems",
        y0s.iter().map(|y0| {
            let total: f64 = y0[..n].iter().sum();
            let mut atol = vec![tol.atol_fraction * total; dim];
            atol[n] = tol.atol_fraction * y0[n];
            Ok(Cell {
                y: y0.clone(),
                t: 0.0,
                h: tol.initial_step_s,
                next_sample: 0,
                steps: 0,
                counts: StiffCounts::default(),
                atol,
                linear: None,
                eta: f64::NAN,
                samples: memory::with_capacity("the samples", times.len())?,
            })
        }),
    )?;
    loop {
        let active: Vec<usize> = (0..n_cells).filter(|&c| cells[c].next_sample < times.len()).collect();
        if active.is_empty() {
            break;
        }
        // 1. Linearise the systems that moved: each state (and its neighbours) in one call.
        let moved: Vec<usize> = active.iter().copied().filter(|&c| cells[c].linear.is_none()).collect();
        if !moved.is_empty() {
            let per_cell = tol.jacobian.states_per_linearisation();
            let mut states = memory::with_capacity("the electron states", per_cell * moved.len())?;
            let mut guesses = memory::with_capacity("the electron states", per_cell * moved.len())?;
            for &c in &moved {
                let state = electron_state(model, "y", &cells[c].y).map_err(|e| about_cell(n_cells, c, e))?;
                states.extend(tol.jacobian.states(state));
                guesses.extend(std::iter::repeat_n(cells[c].eta, per_cell));
                cells[c].counts.rate_evaluations += per_cell as u64;
            }
            let analytic = tol.jacobian == Jacobian::Analytic;
            let rates = rates_at_near(model, settings, &states, &guesses, analytic)?;
            let linears: Vec<Result<Linearization>> = moved
                .par_iter()
                .enumerate()
                .map(|(i, &c)| {
                    let r = |k: usize| rates[per_cell * i + k].as_ref().map_err(|e| e.clone());
                    let s = &states[per_cell * i..per_cell * (i + 1)];
                    let rename = |e: Error| about_cell(n_cells, c, rename_energy_error("y", n, s[0].ne_cm3, e));
                    if analytic {
                        linearize(model, &cells[c].y, r(0).map_err(rename)?)
                    } else {
                        linearize_by_differences(
                            model,
                            &cells[c].y,
                            [r(0).map_err(rename)?, r(1).map_err(rename)?, r(2).map_err(rename)?],
                            [s[0], s[1], s[2]],
                        )
                    }
                })
                .collect();
            for (i, (&c, l)) in moved.iter().zip(linears).enumerate() {
                cells[c].linear = Some(l?);
                if let Ok(r) = &rates[per_cell * i] {
                    cells[c].eta = r.mu_ev / r.te_ev;
                }
            }
        }
        // 2. Stage 1 of every active system (in parallel): the LU of G and k1.
        let started: Vec<Result<Option<Trial>>> = cells
            .par_iter_mut()
            .enumerate()
            .filter(|(_, cell)| cell.next_sample < times.len())
            .map(|(c, cell)| {
                cell.steps += 1;
                let target = times[cell.next_sample];
                if cell.steps > tol.max_steps {
                    return Err(about_cell(
                        n_cells,
                        c,
                        Error::NotConverged(format!(
                            "ROS4 needed more than {} steps to reach t = {target:e} s",
                            tol.max_steps
                        )),
                    ));
                }
                let h = cell.h.min(target - cell.t);
                let linear = cell.linear.as_ref().expect("linearised above");
                let mut g = memory::collect("the ROS4 iteration matrix", linear.jac.iter().map(|j| -j))?;
                for i in 0..dim {
                    g[i * dim + i] += 1.0 / (GAMMA * h);
                }
                Ok(match Lu::new(dim, g) {
                    Some(lu) => {
                        let k1 = stage(&lu, &linear.f0, h, &[]);
                        Some(Trial { cell: c, h, last: h == target - cell.t, lu, k: vec![k1] })
                    }
                    None => {
                        cell.h = 0.25 * h;
                        cell.counts.rejected += 1;
                        None
                    }
                })
            })
            .collect();
        let mut trials = memory::with_capacity("the trial steps", started.len())?;
        for t in started {
            trials.extend(t?);
        }
        // 3. Stages 2 and 3 (stage 4 reuses stage 3's right-hand side).
        for stage_index in [1, 2] {
            let points: Vec<Vec<f64>> = trials
                .par_iter()
                .map(|tr| {
                    let y = &cells[tr.cell].y;
                    if stage_index == 1 {
                        combine(y, &[(A21, &tr.k[0])])
                    } else {
                        combine(y, &[(A31, &tr.k[0]), (A32, &tr.k[1])])
                    }
                })
                .collect();
            let guesses: Vec<f64> = trials.iter().map(|tr| cells[tr.cell].eta).collect();
            for tr in &trials {
                cells[tr.cell].counts.rate_evaluations += 1;
            }
            let evaluated = evaluate(model, settings, &points, &guesses)?;
            // Each trial's next stages, in parallel: Ok(trial) goes on, Err(Ok((cell, h))) left the
            // domain (shorter step), Err(Err(e)) fails the call.
            let advanced: Vec<std::result::Result<Trial, Result<(usize, f64)>>> = trials
                .into_par_iter()
                .zip(points)
                .zip(evaluated)
                .map(|((mut tr, point), f)| {
                    let f = match f {
                        Ok(rates) => match system_matrix(model, &rates.rates) {
                            Ok(r) => apply(&r, &point),
                            Err(e) => return Err(Err(e)),
                        },
                        Err(e) if stage_left_domain(&e) => return Err(Ok((tr.cell, tr.h))),
                        Err(e) => return Err(Err(about_cell(n_cells, tr.cell, e))),
                    };
                    let h = tr.h;
                    if stage_index == 1 {
                        let k2 = stage(&tr.lu, &f, h, &[(C21, &tr.k[0])]);
                        tr.k.push(k2);
                    } else {
                        let k3 = stage(&tr.lu, &f, h, &[(C31, &tr.k[0]), (C32, &tr.k[1])]);
                        let k4 = stage(&tr.lu, &f, h, &[(C41, &tr.k[0]), (C42, &tr.k[1]), (C43, &k3)]);
                        tr.k.push(k3);
                        tr.k.push(k4);
                    }
                    Ok(tr)
                })
                .collect();
            let mut kept = memory::with_capacity("the trial steps", advanced.len())?;
            for a in advanced {
                match a {
                    Ok(tr) => kept.push(tr),
                    Err(Ok((c, h))) => {
                        cells[c].h = 0.25 * h;
                        cells[c].counts.rejected += 1;
                    }
                    Err(Err(e)) => return Err(e),
                }
            }
            trials = kept;
        }
        // 4. Accept or reject, every system in parallel.
        let mut finished: Vec<Option<Trial>> = memory::with_capacity("the trial steps", n_cells)?;
        finished.extend((0..n_cells).map(|_| None));
        for tr in trials {
            let c = tr.cell;
            finished[c] = Some(tr);
        }
        cells.par_iter_mut().zip(finished).for_each(|(cell, tr)| {
            if let Some(tr) = tr {
                accept_or_reject(cell, tr, times, tol.rtol);
            }
        });
        for &c in &active {
            let cell = &cells[c];
            if cell.next_sample < times.len() && cell.h < 1e-15 * times[cell.next_sample] {
                return Err(about_cell(
                    n_cells,
                    c,
                    Error::NotConverged(format!("ROS4 step fell below {:e} s at t = {:e} s", cell.h, cell.t)),
                ));
            }
        }
        let progress = cells.iter().map(|c| c.t).sum::<f64>() / n_cells as f64;
        tracker.update(progress, t_end)?;
    }
    // The samples (T_e and mu from each state), every system in parallel.
    cells
        .par_iter()
        .zip(y0s)
        .enumerate()
        .map(|(c, (cell, y0))| {
            let mut out = memory::with_capacity("the samples", times.len() + 1)?;
            out.push(sample(model, settings.stats, 0.0, y0)?);
            for (t, y) in &cell.samples {
                out.push(sample(model, settings.stats, *t, y).map_err(|e| about_cell(n_cells, c, e))?);
            }
            Ok((out, cell.counts))
        })
        .collect()
}

/// Ends the trial step `tr` of `cell`: accepts it (moves the cell, which then needs a new
/// linearisation, and takes its sample when the step lands on the sample time) when the error
/// norm is <= 1 and no population fell below zero by more than its allowance, else rejects it;
/// either way sets the next step size (module docs).
fn accept_or_reject(cell: &mut Cell, tr: Trial, times: &[f64], rtol: f64) {
    let dim = cell.y.len();
    let n = dim - 1;
    let k: Vec<(f64, &[f64])> = (0..4).map(|i| (M[i], tr.k[i].as_slice())).collect();
    let mut y_new = combine(&cell.y, &k);
    let err = ((0..dim)
        .map(|i| {
            let e: f64 = (0..4).map(|s| E[s] * tr.k[s][i]).sum();
            let scale = cell.atol[i] + rtol * cell.y[i].abs().max(y_new[i].abs());
            (e / scale).powi(2)
        })
        .sum::<f64>()
        / dim as f64)
        .sqrt();
    let factor = if err > 0.0 { 0.9 * err.powf(-0.25) } else { 5.0 };
    if err <= 1.0 && clip_populations(&mut y_new[..n], &cell.y[..n], &cell.atol, rtol) {
        let target = times[cell.next_sample];
        cell.t = if tr.last { target } else { cell.t + tr.h };
        cell.y = y_new;
        cell.linear = None;
        cell.h = tr.h * factor.clamp(0.2, 5.0);
        cell.counts.accepted += 1;
        if tr.last {
            cell.samples.push((cell.t, cell.y.clone()));
            cell.next_sample += 1;
            // A step shortened to land on the sample time does not shrink the next one.
            cell.h = cell.h.max(tr.h);
        }
    } else {
        // Too large an error (factor < 0.9), or a population driven below zero by more than its
        // error allowance (then halve).
        cell.h = tr.h * if err > 1.0 { factor.clamp(0.1, 0.5) } else { 0.5 };
        cell.counts.rejected += 1;
    }
}

/// The rates at each of `points` (states y; `guesses` of their eta = mu/T_e), all in one call to
/// the backend; a point whose n_e leaves the rates' domain fails alone.
fn evaluate(
    model: &Cr,
    settings: &CrSettings,
    points: &[Vec<f64>],
    guesses: &[f64],
) -> Result<Vec<Result<StateRates>>> {
    let states: Vec<Result<ElectronState>> = points.iter().map(|p| electron_state(model, "y", p)).collect();
    let valid: Vec<ElectronState> = states.iter().filter_map(|s| s.as_ref().ok().copied()).collect();
    let valid_guesses: Vec<f64> = states.iter().zip(guesses).filter(|(s, _)| s.is_ok()).map(|(_, &g)| g).collect();
    let mut rates = rates_at_near(model, settings, &valid, &valid_guesses, false)?.into_iter();
    Ok(states.into_iter().map(|s| s.and_then(|_| rates.next().expect("one result per valid state"))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One ROS4 step of y' = lambda y from y = 1 with step h, through the same stage and combine
    /// functions as the run: (y_new, error estimate).
    fn scalar_step(z: f64) -> (f64, f64) {
        let (h, lambda) = (1.0, z);
        let lu = Lu::new(1, vec![1.0 / (GAMMA * h) - lambda]).unwrap();
        let y = [1.0];
        let f = |p: &[f64]| vec![lambda * p[0]];
        let k1 = stage(&lu, &f(&y), h, &[]);
        let k2 = stage(&lu, &f(&combine(&y, &[(A21, &k1)])), h, &[(C21, &k1)]);
        let f3 = f(&combine(&y, &[(A31, &k1), (A32, &k2)]));
        let k3 = stage(&lu, &f3, h, &[(C31, &k1), (C32, &k2)]);
        let k4 = stage(&lu, &f3, h, &[(C41, &k1), (C42, &k2), (C43, &k3)]);
        let k = [&k1, &k2, &k3, &k4];
        let y_new = combine(&y, &(0..4).map(|i| (M[i], k[i].as_slice())).collect::<Vec<_>>())[0];
        let err = (0..4).map(|i| E[i] * k[i][0]).sum();
        (y_new, err)
    }

    /// Against the closed form e^z: the local error falls as z^5 (order 4: halving z divides it by
    /// ~32), the embedded estimate as z^4 (order 3), and the stiff limit z -> -inf gives ~0
    /// (L-stability), which is what the tableau promises.
    #[test]
    fn ros4_has_order_four_and_is_l_stable() {
        let error = |z: f64| (scalar_step(z).0 - z.exp()).abs();
        for z in [-0.1, -0.05] {
            let ratio = error(z) / error(0.5 * z);
            assert!((25.0..40.0).contains(&ratio), "local error ratio {ratio} at z = {z}");
            let estimate_ratio = scalar_step(z).1.abs() / scalar_step(0.5 * z).1.abs();
            assert!((12.0..20.0).contains(&estimate_ratio), "estimate ratio {estimate_ratio} at z = {z}");
        }
        for z in [-1e6, -1e10] {
            assert!(scalar_step(z).0.abs() < 1e-4, "R({z}) = {}", scalar_step(z).0);
        }
    }
}
