//! CPU reference of the batched rates: every (transition, state) pair evaluated by
//! [`super::integrals`], in parallel over pairs with rayon.

use super::integrals::{self, Conditions};
use super::{
    check_excitations, check_ionizations, check_photoionizations, check_z2n, conditions, Excitation, Ionization,
    Photoionization, PlasmaState, Quadrature, RatePairs, Statistics,
};
use crate::error::Result;
use crate::memory;
use rayon::prelude::*;

/// Evaluates `pair(condition, transition)` for every pair, transitions fastest.
fn batch<T: Sync>(
    conds: &[Conditions],
    t: &[T],
    pair: impl Fn(&Conditions, &T) -> (f64, f64) + Sync,
) -> Result<RatePairs> {
    let nt = t.len();
    let n = memory::elements::<f64>("the rates of the batch", nt, conds.len())?;
    let mut up = memory::filled("the upward rates of the batch", n, 0.0)?;
    let mut down = memory::filled("the downward rates of the batch", n, 0.0)?;
    up.par_iter_mut().zip(down.par_iter_mut()).enumerate().for_each(|(k, (u, d))| {
        (*u, *d) = pair(&conds[k / nt], &t[k % nt]);
    });
    Ok(RatePairs { up, down })
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
    batch(&conds, t, |c, x| integrals::excitation(c, x, q))
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
    batch(&conds, t, |c, x| integrals::ionization(c, x, q))
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
    batch(&conds, t, |c, x| integrals::photoionization(c, x, q))
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
    let mut heating = memory::filled("the heating of the batch", conds.len(), 0.0)?;
    heating
        .par_iter_mut()
        .zip(&conds)
        .zip(z2n)
        .for_each(|((h, c), &z)| *h = integrals::inverse_bremsstrahlung(c, z, q));
    Ok(heating)
}
