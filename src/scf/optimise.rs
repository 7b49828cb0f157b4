//! Well-tempered basis-set optimisation (paper §2.4, `$contrl jobtype = 'bsopt'`, `$newuoa`):
//! minimise the SCF energy over the parameters of every WTBS group with Powell's derivative-free
//! trust-region method. DFRATOM uses NEWUOA; here its bound-constrained successor BOBYQA
//! (M. J. D. Powell, *The BOBYQA algorithm for bound constrained optimization without
//! derivatives*, DAMTP 2009/NA06), through the `bobyqa` crate (a port of PRIMA's reference
//! implementation), so that no trial point leaves the region where a pool is defined.
//!
//! **Variables.** Per group (ln α, ln β, γ, δ), with bounds ln α0 ± ln 10, β in [1.2, 4],
//! γ in [0, max(5, 2γ0)], δ in [0.5, max(20, 2δ0)] (γ0, δ0 the start). The trust-region radius
//! starts at `rho_begin` (DFRATOM default 0.1) and ends at `rho_end` (default 1e-4), in these
//! variables. Each evaluation builds the pools ([`super::basis::wtbs_basis`]) and runs the SCF
//! of the template with those exponents on the caller's backend; on the GPU the supermatrix is
//! recomputed there from the new exponents (a few kilobytes go up per evaluation: the exponents
//! and their primitive coefficients). An evaluation whose SCF fails for its basis (not converged,
//! linearly dependent, an exponent that overflows, a non-finite energy) counts as +∞, which
//! BOBYQA's extreme barrier handles; a cancellation, a memory or device failure stops the
//! optimisation with that error.
//!
//! **Progress.** [`optimise_wtbs`] is the long call `atomgpu_scf_optimise_wtbs` of the calling
//! thread ([`crate::progress`]): its progress callback hears `done` = the SCFs completed (the
//! start, BOBYQA's evaluations, the final one) of `total` = `max_evaluations` + 2, at every cycle
//! of every SCF, and it or the time limit stops the optimisation with [`Error::Cancelled`].

use super::basis::{wtbs_basis, WtbsGroup, WtbsLayout};
use super::solver::{converged, run, Basis, ScfResult, ScfSpec};
use super::{tracked, Spinor, Symmetry, Watch};
use crate::backend::Backend;
use crate::error::{Error, Result};

/// The optimisation's settings (the `$wtbs` and `$newuoa` groups).
#[derive(Clone, Debug, PartialEq)]
pub struct WtbsOptimisation {
    /// Starting parameters, one per group.
    pub groups: Vec<WtbsGroup>,
    /// Which pool positions each symmetry takes (one entry per symmetry of the template).
    pub layout: WtbsLayout,
    /// Initial trust-region radius (DFRATOM `rhobeg`, default 0.1).
    pub rho_begin: f64,
    /// Final trust-region radius (`rhoend`, default 1e-4; < rho_begin).
    pub rho_end: f64,
    /// Most SCF evaluations (`maxfun`, default 500), at most [`MAX_EVALUATIONS`].
    pub max_evaluations: usize,
}

/// The most evaluations of one minimisation (each an SCF): more than BOBYQA needs by orders of
/// magnitude for the few variables of a basis, and a bound on a call without a time limit.
pub const MAX_EVALUATIONS: usize = 1_000_000;

/// The optimised basis and its SCF.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimisedBasis {
    pub groups: Vec<WtbsGroup>,
    /// Exponents per symmetry (bohr⁻²).
    pub exponents: Vec<Vec<f64>>,
    /// The SCF at the optimum.
    pub result: ScfResult,
    /// SCF evaluations made (failed ones included).
    pub evaluations: usize,
    /// Whether the trust region reached rho_end (false: the evaluation budget ran out first).
    pub converged: bool,
}

/// Minimises f over the box [lower, upper] by BOBYQA from x (overwritten by the best point):
/// (f at the best point, evaluations, whether rho reached rho_end). Needs upper - lower >=
/// 2 rho_begin in every variable and more than 2n + 1 evaluations. An error of f stops the
/// minimisation at once and is returned (x then holds a point BOBYQA tried).
pub fn minimise_in_box(
    mut f: impl FnMut(&[f64]) -> Result<f64>,
    x: &mut [f64],
    lower: &[f64],
    upper: &[f64],
    rho: (f64, f64),
    max_evaluations: usize,
) -> Result<(f64, usize, bool)> {
    let n = x.len();
    let (rho_begin, rho_end) = rho;
    check_trust_region(n, rho, max_evaluations)?;
    for i in 0..n {
        if upper[i] - lower[i] < 2.0 * rho_begin || upper[i].is_nan() || lower[i].is_nan() {
            return Err(Error::invalid_at(
                "rho_begin",
                i,
                format!("is more than half the width of variable {i}'s box"),
            ));
        }
        x[i] = x[i].clamp(lower[i], upper[i]);
    }
    let mut config = bobyqa::Config::new(n);
    config.rho_begin = rho_begin;
    config.rho_end = rho_end;
    config.max_fun = max_evaluations;
    // An evaluation that fails returns -∞, which BOBYQA moderates to -f64::MAX: that target ends
    // the solve after the evaluation (no real value reaches it).
    config.f_target = f64::MIN;
    let mut solver = bobyqa::Bobyqa::new(n, config).map_err(|s| Error::invalid("max_evaluations", s.to_string()))?;
    let mut failure = None;
    let outcome = solver.minimize(
        |x| match failure.is_none().then(|| f(x)) {
            Some(Ok(value)) => value,
            Some(Err(e)) => {
                failure = Some(e);
                f64::NEG_INFINITY
            }
            None => f64::NEG_INFINITY,
        },
        x,
        lower,
        upper,
    );
    if let Some(e) = failure {
        return Err(e);
    }
    match outcome.status {
        bobyqa::Status::Converged | bobyqa::Status::FtolReached | bobyqa::Status::TargetReached => {
            Ok((outcome.f, outcome.n_eval, true))
        }
        bobyqa::Status::MaxFunReached => Ok((outcome.f, outcome.n_eval, false)),
        other => Err(Error::NotConverged(format!("BOBYQA stopped: {other}"))),
    }
}

/// The template's basis with new exponents per symmetry.
fn with_exponents(template: &Basis, exponents: &[Vec<f64>]) -> Basis {
    match template {
        Basis::NonRelativistic(s) => Basis::NonRelativistic(
            s.iter().zip(exponents).map(|(s, e)| Symmetry { l: s.l, exponents: e.clone() }).collect(),
        ),
        Basis::Dirac { speed_of_light, spinors } => Basis::Dirac {
            speed_of_light: *speed_of_light,
            spinors: spinors
                .iter()
                .zip(exponents)
                .map(|(s, e)| Spinor { kappa: s.kappa, exponents: e.clone() })
                .collect(),
        },
    }
}

fn groups_of(x: &[f64]) -> Vec<WtbsGroup> {
    x.chunks(4).map(|v| WtbsGroup { alpha: v[0].exp(), beta: v[1].exp(), gamma: v[2], delta: v[3] }).collect()
}

/// The trust-region settings of a minimisation over n variables: 0 < rho_end < rho_begin (finite)
/// and more than 2n + 1 evaluations (BOBYQA's interpolation set), at most [`MAX_EVALUATIONS`].
fn check_trust_region(n: usize, (rho_begin, rho_end): (f64, f64), max_evaluations: usize) -> Result<()> {
    if !(rho_begin.is_finite() && rho_begin > 0.0) {
        return Err(Error::invalid("rho_begin", format!("must be finite and > 0, got {rho_begin}")));
    }
    if !(rho_end.is_finite() && rho_end > 0.0 && rho_end < rho_begin) {
        return Err(Error::invalid("rho_end", format!("must be in (0, rho_begin), got {rho_end}")));
    }
    if max_evaluations <= 2 * n + 1 || max_evaluations > MAX_EVALUATIONS {
        return Err(Error::invalid(
            "max_evaluations",
            format!(
                "must be in [2n + 2, {MAX_EVALUATIONS}] = [{}, {MAX_EVALUATIONS}], got {max_evaluations}",
                2 * n + 2
            ),
        ));
    }
    Ok(())
}

/// Optimises the WTBS parameters of `settings` for the SCF `template` (its basis gives the
/// symmetries and the Hamiltonian; its exponents are replaced) on `backend` (module docs).
pub fn optimise_wtbs(backend: &Backend, template: &ScfSpec, settings: &WtbsOptimisation) -> Result<OptimisedBasis> {
    let start = wtbs_basis(&settings.groups, &settings.layout)?;
    let n_sym = template.basis.n_symmetries();
    if start.len() != n_sym {
        return Err(Error::invalid(
            "nbs",
            format!("must hold one entry per symmetry of the SCF ({n_sym}), got {}", start.len()),
        ));
    }
    check_trust_region(4 * settings.groups.len(), (settings.rho_begin, settings.rho_end), settings.max_evaluations)?;
    let total = (settings.max_evaluations + 2) as f64;
    tracked(c"atomgpu_scf_optimise_wtbs", total, |watch| optimise(backend, template, settings, start, watch))
}

/// One SCF of the optimisation, after `done` others, that must converge; `watch` hears `done` at
/// each of its cycles.
fn evaluate(backend: &Backend, spec: &ScfSpec, watch: &mut Watch<'_, '_>, done: usize) -> Result<ScfResult> {
    let watched = watch.is_some();
    let mut report = |_: f64| watch.as_deref_mut().map_or(Ok(()), |w| w(done as f64));
    converged(spec, run(backend, spec, if watched { Some(&mut report) } else { None })?)
}

/// Whether an evaluation's error ends the optimisation (a cancellation, a memory or device
/// failure) rather than marking its point as infeasible.
fn is_fatal(e: &Error) -> bool {
    !matches!(e, Error::NotConverged(_) | Error::InvalidArgument { .. } | Error::NotFinite { .. })
}

/// [`optimise_wtbs`] from the exponents `start` of the starting parameters, under `watch`.
fn optimise(
    backend: &Backend,
    template: &ScfSpec,
    settings: &WtbsOptimisation,
    start: Vec<Vec<f64>>,
    mut watch: Watch<'_, '_>,
) -> Result<OptimisedBasis> {
    let spec_for =
        |exponents: &[Vec<f64>]| ScfSpec { basis: with_exponents(&template.basis, exponents), ..template.clone() };
    // The start must run: a failure there is the caller's to see, not a barrier value.
    evaluate(backend, &spec_for(&start), &mut watch, 0)?;
    let mut runs = 1;
    let mut x = Vec::new();
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for g in &settings.groups {
        x.extend([g.alpha.ln(), g.beta.ln(), g.gamma, g.delta]);
        lower.extend([g.alpha.ln() - std::f64::consts::LN_10, 1.2f64.ln(), 0.0, 0.5]);
        upper.extend([
            g.alpha.ln() + std::f64::consts::LN_10,
            4f64.ln(),
            (2.0 * g.gamma).max(5.0),
            (2.0 * g.delta).max(20.0),
        ]);
    }
    let energy = |x: &[f64]| {
        let result = wtbs_basis(&groups_of(x), &settings.layout)
            .and_then(|e| evaluate(backend, &spec_for(&e), &mut watch, runs));
        runs += 1;
        match result {
            Ok(r) => Ok(r.energy),
            Err(e) if is_fatal(&e) => Err(e),
            Err(_) => Ok(f64::INFINITY),
        }
    };
    let (_, evaluations, converged) = minimise_in_box(
        energy,
        &mut x,
        &lower,
        &upper,
        (settings.rho_begin, settings.rho_end),
        settings.max_evaluations,
    )?;
    let groups = groups_of(&x);
    let exponents = wtbs_basis(&groups, &settings.layout)?;
    let result = evaluate(backend, &spec_for(&exponents), &mut watch, evaluations + 1)?;
    Ok(OptimisedBasis { groups, exponents, result, evaluations, converged })
}
