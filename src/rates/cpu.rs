//! CPU reference of the batched rates: every (transition, state) pair evaluated by
//! [`super::integrals`], in parallel over pairs with rayon.

use super::integrals::{self, Conditions};
use super::{
    check_excitations, check_ionizations, check_photoionizations, check_z2n, conditions, Excitation, Ionization,
    Photoionization, PlasmaState, Quadrature, RatePairs, Statistics,
};
use crate::error::Result;
use rayon::prelude::*;

/// Evaluates `pair(condition, transition)` for every pair, transitions fastest.
fn batch<T: Sync>(conds: &[Conditions], t: &[T], pair: impl Fn(&Conditions, &T) -> (f64, f64) + Sync) -> RatePairs {
    let nt = t.len();
    let values: Vec<(f64, f64)> =
        (0..nt * conds.len()).into_par_iter().map(|k| pair(&conds[k / nt], &t[k % nt])).collect();
    let (up, down) = values.into_iter().unzip();
    RatePairs { up, down }
}

/// CPU collisional excitation / de-excitation rates, see [`super::excitation_rates`].
pub fn excitation_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Excitation],
) -> Result<RatePairs> {
    check_excitations(t)?;
    let conds = conditions(stats, states)?;
    Ok(batch(&conds, t, |c, x| integrals::excitation(c, x, q)))
}

/// CPU collisional ionization / three-body recombination rates, see [`super::ionization_rates`].
pub fn ionization_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Ionization],
) -> Result<RatePairs> {
    check_ionizations(t)?;
    let conds = conditions(stats, states)?;
    Ok(batch(&conds, t, |c, x| integrals::ionization(c, x, q)))
}

/// CPU photoionization rates and heating, see [`super::photoionization_rates`].
pub fn photoionization_rates(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    t: &[Photoionization],
) -> Result<RatePairs> {
    check_photoionizations(t)?;
    let conds = conditions(stats, states)?;
    Ok(batch(&conds, t, |c, x| integrals::photoionization(c, x, q)))
}

/// CPU inverse-bremsstrahlung heating, see [`super::inverse_bremsstrahlung_heating`].
pub fn inverse_bremsstrahlung_heating(
    stats: Statistics,
    q: &Quadrature,
    states: &[PlasmaState],
    z2n: &[f64],
) -> Result<Vec<f64>> {
    let conds = conditions(stats, states)?;
    check_z2n(states, z2n)?;
    Ok(conds.par_iter().zip(z2n).map(|(c, &z)| integrals::inverse_bremsstrahlung(c, z, q)).collect())
}
