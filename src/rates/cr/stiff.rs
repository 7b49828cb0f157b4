//! Adaptive stiff integration of the CR system: the two-stage Rosenbrock-W method ROS2
//! (Verwer, Spee, Blom & Hundsdorfer, SIAM J. Sci. Comput. 20, 1456 (1999)), L-stable and of
//! order 2 for any approximation J of the Jacobian:
//!   (I - gamma h J) k1 = f(y_n),
//!   (I - gamma h J) k2 = f(y_n + h k1) - 2 k1,
//!   y_{n+1} = y_n + (3/2) h k1 + (1/2) h k2,     gamma = 1 + 1/sqrt(2),
//! with the embedded first-order y_n + h k1 giving the error estimate h (k1 + k2)/2. J is a
//! forward-difference Jacobian, refreshed every few accepted steps and after a rejection.

use super::host::derivatives;
use super::{sample, CrModel, CrSample, CrSettings};
use crate::error::{Error, Result};
use crate::math::dense::Lu;
use crate::memory;
use crate::progress::Tracker;

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
    /// Step limit for the whole run.
    pub max_steps: u64,
}

impl Default for StiffTolerances {
    fn default() -> Self {
        StiffTolerances { rtol: 1e-6, atol_fraction: 1e-10, initial_step_s: 1e-18, max_steps: 1_000_000 }
    }
}

const GAMMA: f64 = 1.0 + std::f64::consts::FRAC_1_SQRT_2;
const JACOBIAN_REUSE: u32 = 20;

/// Forward-difference Jacobian; component j is perturbed by 1e-7 max(|y_j|, 1e-3 typical_j), so
/// an empty level is moved by a step that stands above the rounding noise of f.
fn jacobian(model: &CrModel, settings: &CrSettings, y: &[f64], f0: &[f64], typical: &[f64]) -> Result<Vec<f64>> {
    let m = y.len();
    let mut jac = memory::filled("the ROS2 Jacobian", memory::elements::<f64>("the ROS2 Jacobian", m, m)?, 0.0)?;
    let mut yp = y.to_vec();
    for j in 0..m {
        let delta = 1e-7 * y[j].abs().max(1e-3 * typical[j]);
        yp[j] = y[j] + delta;
        let (fp, _) = derivatives(model, settings, "y", &yp)?;
        yp[j] = y[j];
        for i in 0..m {
            jac[i * m + j] = (fp[i] - f0[i]) / delta;
        }
    }
    Ok(jac)
}

/// Error weights of a step: absolute tolerance per component and the relative tolerance.
struct ErrorControl<'a> {
    atol: &'a [f64],
    rtol: f64,
}

/// One ROS2 step of size h from y with Jacobian `jac`: (new y, scaled error norm).
fn step(
    model: &CrModel,
    settings: &CrSettings,
    y: &[f64],
    f0: &[f64],
    jac: &[f64],
    h: f64,
    control: &ErrorControl,
) -> Result<(Vec<f64>, f64)> {
    let (atol, rtol) = (control.atol, control.rtol);
    let m = y.len();
    let mut w = memory::collect("the ROS2 iteration matrix", jac.iter().map(|j| -GAMMA * h * j))?;
    for i in 0..m {
        w[i * m + i] += 1.0;
    }
    let lu = Lu::new(m, w).ok_or_else(|| Error::NotConverged("singular ROS2 iteration matrix".into()))?;
    let mut k1 = f0.to_vec();
    lu.solve(&mut k1);
    let y1: Vec<f64> = y.iter().zip(&k1).map(|(a, k)| a + h * k).collect();
    let (f1, _) = derivatives(model, settings, "y", &y1)?;
    let mut k2: Vec<f64> = f1.iter().zip(&k1).map(|(f, k)| f - 2.0 * k).collect();
    lu.solve(&mut k2);
    let y_new: Vec<f64> = (0..m).map(|i| y[i] + h * (1.5 * k1[i] + 0.5 * k2[i])).collect();
    let err = ((0..m)
        .map(|i| {
            let e = 0.5 * h * (k1[i] + k2[i]);
            let sc = atol[i] + rtol * y[i].abs().max(y_new[i].abs());
            (e / sc).powi(2)
        })
        .sum::<f64>()
        / m as f64)
        .sqrt();
    Ok((y_new, err))
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

/// The run of [`super::run_stiff`] (`y0` checked), reporting the simulated time to `tracker`.
pub(super) fn run(
    model: &CrModel,
    settings: &CrSettings,
    y0: &[f64],
    times: &[f64],
    tol: &StiffTolerances,
    tracker: &mut Tracker,
) -> Result<Vec<CrSample>> {
    let n = model.n_levels();
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
    let total: f64 = y0[..n].iter().sum();
    let mut typical = vec![total; n + 1];
    typical[n] = y0[n];
    let atol: Vec<f64> = typical.iter().map(|x| tol.atol_fraction * x).collect();
    let mut y = y0.to_vec();
    let mut t = 0.0;
    let mut h = tol.initial_step_s;
    let mut samples = memory::with_capacity("the samples", times.len() + 1)?;
    samples.push(sample(model, settings.stats, 0.0, &y)?);
    let (mut f0, _) = derivatives(model, settings, "y", &y)?;
    let t_end = times.last().copied().unwrap_or(0.0);
    let mut jac = jacobian(model, settings, &y, &f0, &typical)?;
    let mut jac_age = 0;
    let mut steps = 0u64;
    for &target in times {
        while t < target {
            steps += 1;
            if steps > tol.max_steps {
                return Err(Error::NotConverged(format!(
                    "ROS2 needed more than {} steps to reach t = {target:e} s",
                    tol.max_steps
                )));
            }
            let h_try = h.min(target - t);
            let last = h_try == target - t;
            let trial = step(model, settings, &y, &f0, &jac, h_try, &ErrorControl { atol: &atol, rtol: tol.rtol }).map(
                |(mut y_new, err)| {
                    let accepted = err <= 1.0 && clip_populations(&mut y_new[..n], &y[..n], &atol, tol.rtol);
                    (y_new, err, accepted)
                },
            );
            match trial {
                Ok((y_new, err, true)) => {
                    t = if last { target } else { t + h_try };
                    y = y_new;
                    f0 = derivatives(model, settings, "y", &y)?.0;
                    tracker.update(t, t_end)?;
                    jac_age += 1;
                    if jac_age >= JACOBIAN_REUSE {
                        jac = jacobian(model, settings, &y, &f0, &typical)?;
                        jac_age = 0;
                    }
                    let grow = if err > 0.0 { 0.9 / err.sqrt() } else { 5.0 };
                    h = h_try * grow.clamp(0.2, 5.0);
                    if last {
                        h = h.max(h_try);
                    }
                }
                Ok((_, err, false)) => {
                    // Too large an error, or a population driven below zero by more than its
                    // error allowance (err <= 1 then: halve the step).
                    h = h_try * if err > 1.0 { (0.9 / err.sqrt()).clamp(0.1, 0.5) } else { 0.5 };
                    if jac_age > 0 {
                        jac = jacobian(model, settings, &y, &f0, &typical)?;
                        jac_age = 0;
                    }
                }
                // A trial stage left the physical domain (e.g. energy below the Fermi ground
                // state): shorten the step.
                Err(Error::InvalidArgument { .. }) | Err(Error::NotConverged(_)) => h = h_try * 0.25,
                Err(e) => return Err(e),
            }
            if h < 1e-15 * target {
                return Err(Error::NotConverged(format!("ROS2 step fell below {h:e} s at t = {t:e} s")));
            }
        }
        samples.push(sample(model, settings.stats, t, &y)?);
    }
    Ok(samples)
}
