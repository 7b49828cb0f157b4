//! Host-side CR assembly: the flows between levels of one electron state's rates, gathered into
//! the rate matrices of paper eqs. 27-28, the system matrix of the stiff integrator, or, without
//! any n x n matrix, straight into the right-hand side. The rates come from the backend in force
//! ([`super::rates_at`]).

use super::state::{ElectronState, Rates};
use super::{rates_at, rates_at_temperature, Cr, CrSettings};
use crate::error::{require_finite_result, Error, Result};
use crate::memory;
use crate::rates::fermi;

/// The rate matrices of one plasma state: dN/dt = M N (eq. 27) and du/dt = M' . N (eq. 28, with
/// the inverse-bremsstrahlung heating, proportional to sum_l Z_l^2 N_l, folded into M').
#[derive(Clone, Debug, PartialEq)]
pub struct RateMatrices {
    /// M, `n x n` column-major [s^-1]: M[k + n l] is the rate from level l into level k (k != l),
    /// M[l + n l] = -(total rate out of l).
    pub m: Vec<f64>,
    /// M', one entry per level [eV s^-1]: energy given to the free electrons per ion in level l.
    pub m_energy: Vec<f64>,
}

/// The flows of `rates` (every rate of `model` at one electron state): `transfer(from, to, rate)`
/// for each population flow [s^-1 per ion of `from`], and `energy(level, rate)` for each gain of
/// the free electrons' energy [eV s^-1 per ion of `level`]:
/// - excitation l -> k: l to k at J_up, k to l at J_down; energy E (J_down on k, -J_up on l);
/// - ionization l -> k: l to k at K_up + L, k to l at K_down; energy E K_down on k, H_L - E K_up
///   on l (photoelectron heating H_L);
/// - inverse bremsstrahlung: heating per unit sum_Z Z^2 N_Z times Z_l^2 on every level l.
fn flows(model: &Cr, rates: &Rates, mut transfer: impl FnMut(usize, usize, f64), mut energy: impl FnMut(usize, f64)) {
    for (i, x) in model.excitations().iter().enumerate() {
        let (up, down) = (rates.excitation_up[i], rates.excitation_down[i]);
        transfer(x.lower, x.upper, up);
        transfer(x.upper, x.lower, down);
        energy(x.lower, -x.energy_ev * up);
        energy(x.upper, x.energy_ev * down);
    }
    for (i, x) in model.ionizations().iter().enumerate() {
        let (up, down) = (rates.ionization_up[i], rates.ionization_down[i]);
        transfer(x.lower, x.upper, up + rates.photo_rate[i]);
        transfer(x.upper, x.lower, down);
        energy(x.lower, rates.photo_heating[i] - x.energy_ev * up);
        energy(x.upper, x.energy_ev * down);
    }
    for (level, z) in model.charges().iter().enumerate() {
        energy(level, rates.ib_per_z2n * z * z);
    }
}

/// M and M' at electron temperature `te_ev` [eV] and density `ne_cm3` [cm^-3] (radiation at the
/// settings' T_r), with the rates from the backend in force.
pub fn rate_matrices(model: &Cr, settings: &CrSettings, te_ev: f64, ne_cm3: f64) -> Result<RateMatrices> {
    let rates = rates_at_temperature(model, settings, te_ev, ne_cm3)?;
    let n = model.n_levels();
    let mut m = memory::filled("the rate matrix m", memory::elements::<f64>("the rate matrix m", n, n)?, 0.0)?;
    let mut m_energy = memory::filled("the energy rates m_energy", n, 0.0)?;
    flows(
        model,
        &rates.rates,
        |from, to, rate| {
            m[to + n * from] += rate;
            m[from + n * from] -= rate;
        },
        |level, rate| m_energy[level] += rate,
    );
    let at = |i: usize| format!("row {}, column {}", i % n, i / n);
    require_finite_result("m", &m, at)?;
    require_finite_result("m_energy", &m_energy, |l| format!("level {l}"))?;
    Ok(RateMatrices { m, m_energy })
}

/// The whole system at one electron state as a matrix: d(N, u)/dt = R y for y = (N, u) at that
/// state's rates, R row-major `(n + 1) x (n + 1)` (its last column, the u column, is zero: the
/// rates depend on u only through (T_e, mu)). R[i (n+1) + j] [s^-1, or eV s^-1 per ion in row n].
pub(super) fn system_matrix(model: &Cr, rates: &Rates) -> Result<Vec<f64>> {
    let n = model.n_levels();
    let dim = n + 1;
    let mut r = memory::filled(
        "the stiff integrator's Jacobian",
        memory::elements::<f64>("the stiff integrator's Jacobian", dim, dim)?,
        0.0,
    )?;
    let (populations, energy) = r.split_at_mut(n * dim);
    flows(
        model,
        rates,
        |from, to, rate| {
            populations[to * dim + from] += rate;
            populations[from * dim + from] -= rate;
        },
        |level, rate| energy[level] += rate,
    );
    Ok(r)
}

/// R y for the row-major square `r` ([`system_matrix`]).
pub(super) fn apply(r: &[f64], y: &[f64]) -> Vec<f64> {
    r.chunks_exact(y.len()).map(|row| row.iter().zip(y).map(|(a, b)| a * b).sum()).collect()
}

/// The electron state of `y` = (N_1..N_n, u) (the argument `name`): n_e = sum_l Z_l N_l, checked
/// to lie in the rates' domain.
pub(super) fn electron_state(model: &Cr, name: &'static str, y: &[f64]) -> Result<ElectronState> {
    let n = model.n_levels();
    let ne_cm3 = model.checked_electron_density(name, &y[..n])?;
    Ok(ElectronState { energy_density: y[n], ne_cm3 })
}

/// An error of the temperature inversion at the state `y` (the argument `name`, n levels)
/// renamed to name the energy density's element of `y`.
pub(super) fn rename_energy_error(name: &'static str, n: usize, ne: f64, e: Error) -> Error {
    match e {
        Error::InvalidArgument { rule, .. } => Error::InvalidArgument {
            name,
            index: Some(n),
            rule: format!("the electron energy density (at n_e = {ne:e} cm^-3): {rule}"),
        },
        other => other,
    }
}

/// The electron conditions (T_e, mu, n_e) that the state `y` (the argument `name`) implies:
/// n_e = sum_l Z_l N_l, then (T_e, mu) from the energy density; errors name `name`.
pub(super) fn electron_conditions(
    model: &Cr,
    settings: &CrSettings,
    name: &'static str,
    y: &[f64],
) -> Result<[f64; 3]> {
    let n = model.n_levels();
    let state = electron_state(model, name, y)?;
    let ne = state.ne_cm3;
    let (te, mu) = fermi::temperature_from_energy_density(settings.stats, y[n], ne)
        .map_err(|e| rename_energy_error(name, n, ne, e))?;
    Ok([te, mu, ne])
}

/// d(N, u)/dt at `y` = (N_1..N_n, u) (the argument `name`): sum over the flows of each transition
/// at the (T_e, mu, n_e) that `y` implies, in O(n + transitions) memory (no rate matrix); and
/// those conditions. Rates come from the backend in force.
pub(super) fn derivatives(
    model: &Cr,
    settings: &CrSettings,
    name: &'static str,
    y: &[f64],
) -> Result<(Vec<f64>, [f64; 3])> {
    let n = model.n_levels();
    let state = electron_state(model, name, y)?;
    let rates = rates_at(model, settings, &[state])?
        .pop()
        .expect("one state")
        .map_err(|e| rename_energy_error(name, n, state.ne_cm3, e))?;
    let mut dy = memory::filled("dydt", n + 1, 0.0)?;
    let mut du = 0.0;
    flows(
        model,
        &rates.rates,
        |from, to, rate| {
            let flow = rate * y[from];
            dy[to] += flow;
            dy[from] -= flow;
        },
        |level, rate| du += rate * y[level],
    );
    dy[n] = du;
    require_finite_result("dydt", &dy, |i| if i < n { format!("level {i}") } else { "the energy density".into() })?;
    Ok((dy, [rates.te_ev, rates.mu_ev, rates.ne_cm3]))
}
