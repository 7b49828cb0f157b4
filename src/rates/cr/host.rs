//! Host-side CR rate matrices (paper eqs. 27-28), the right-hand side built from them, and the
//! fixed-step RK4 loop of the CPU backend.

use super::{sample, CrModel, CrSample, CrSettings};
use crate::error::Result;
use crate::rates::{
    excitation_rates, fermi, inverse_bremsstrahlung_heating, ionization_rates, photoionization_rates, PlasmaState,
};

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

/// M and M' at electron temperature `te_ev` [eV] and density `ne_cm3` [cm^-3] (radiation at the
/// settings' T_r), with the rates from the backend in force.
pub fn rate_matrices(model: &CrModel, settings: &CrSettings, te_ev: f64, ne_cm3: f64) -> Result<RateMatrices> {
    let n = model.n_levels();
    let state = [PlasmaState { te_ev, ne_cm3, tr_ev: settings.tr_ev }];
    let (stats, q) = (settings.stats, &settings.quadrature);
    let mut m = vec![0.0; n * n];
    let mut m_energy = vec![0.0; n];
    let mut transfer = |from: usize, to: usize, rate: f64| {
        m[to + n * from] += rate;
        m[from + n * from] -= rate;
    };
    if !model.excitations().is_empty() {
        let j = excitation_rates(stats, q, &state, &model.excitation_parameters())?;
        for (i, x) in model.excitations().iter().enumerate() {
            transfer(x.lower, x.upper, j.up[i]);
            transfer(x.upper, x.lower, j.down[i]);
            m_energy[x.lower] -= x.energy_ev * j.up[i];
            m_energy[x.upper] += x.energy_ev * j.down[i];
        }
    }
    if !model.ionizations().is_empty() {
        let k = ionization_rates(stats, q, &state, &model.ionization_parameters())?;
        let l = photoionization_rates(stats, q, &state, &model.photoionization_parameters())?;
        for (i, x) in model.ionizations().iter().enumerate() {
            transfer(x.lower, x.upper, k.up[i] + l.up[i]);
            transfer(x.upper, x.lower, k.down[i]);
            m_energy[x.lower] += l.down[i] - x.energy_ev * k.up[i];
            m_energy[x.upper] += x.energy_ev * k.down[i];
        }
    }
    // Heating per unit sum_Z Z^2 N_Z, spread over the levels by their Z^2.
    let ib_per_z2n = inverse_bremsstrahlung_heating(stats, q, &state, &[1.0])?[0];
    for (e, z) in m_energy.iter_mut().zip(model.charges()) {
        *e += ib_per_z2n * z * z;
    }
    Ok(RateMatrices { m, m_energy })
}

/// d(N, u)/dt at `y` = (N_1..N_n, u) = (M N, M' . N) at the (T_e, mu, n_e) that `y` implies, and
/// those conditions. Rates come from the backend in force.
pub(super) fn derivatives(model: &CrModel, settings: &CrSettings, y: &[f64]) -> Result<(Vec<f64>, [f64; 3])> {
    let n = model.n_levels();
    let (pops, u) = (&y[..n], y[n]);
    let ne = model.electron_density(pops);
    let (te, mu) = fermi::temperature_from_energy_density(settings.stats, u, ne)?;
    let r = rate_matrices(model, settings, te, ne)?;
    let mut dy = vec![0.0; n + 1];
    for (l, &population) in pops.iter().enumerate() {
        for (d, m) in dy.iter_mut().zip(&r.m[n * l..n * (l + 1)]) {
            *d += m * population;
        }
        dy[n] += r.m_energy[l] * population;
    }
    Ok((dy, [te, mu, ne]))
}

/// Classical RK4 with a fixed step on the host, every stage's rates from the CPU backend.
pub(super) fn run_rk4(
    model: &CrModel,
    settings: &CrSettings,
    y0: &[f64],
    dt: f64,
    n_steps: u64,
    sample_every: u64,
) -> Result<Vec<CrSample>> {
    let mut y = y0.to_vec();
    let mut samples = vec![sample(model, settings.stats, 0.0, &y)?];
    let stage = |base: &[f64], k: &[f64], h: f64| -> Vec<f64> { base.iter().zip(k).map(|(a, b)| a + h * b).collect() };
    for step in 1..=n_steps {
        let (k1, _) = derivatives(model, settings, &y)?;
        let (k2, _) = derivatives(model, settings, &stage(&y, &k1, 0.5 * dt))?;
        let (k3, _) = derivatives(model, settings, &stage(&y, &k2, 0.5 * dt))?;
        let (k4, _) = derivatives(model, settings, &stage(&y, &k3, dt))?;
        for i in 0..y.len() {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        if step % sample_every == 0 || step == n_steps {
            samples.push(sample(model, settings.stats, step as f64 * dt, &y)?);
        }
    }
    Ok(samples)
}
