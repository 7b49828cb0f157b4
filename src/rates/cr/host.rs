//! Host-side CR right-hand side and the fixed-step RK4 loop of the CPU backend.

use super::{sample, CrModel, CrSample, CrSettings};
use crate::error::Result;
use crate::rates::{
    excitation_rates, fermi, inverse_bremsstrahlung_heating, ionization_rates, photoionization_rates, PlasmaState,
};

/// d(N, u)/dt at `y` = (N_1..N_n, u) (module doc of [`super`] for the terms), and the
/// (T_e, mu, n_e) it was evaluated at. Rates come from the backend in force.
pub(super) fn derivatives(model: &CrModel, settings: &CrSettings, y: &[f64]) -> Result<(Vec<f64>, [f64; 3])> {
    let n = model.n_levels();
    let (pops, u) = (&y[..n], y[n]);
    let ne = model.electron_density(pops);
    let (te, mu) = fermi::temperature_from_energy_density(settings.stats, u, ne)?;
    let state = [PlasmaState { te_ev: te, ne_cm3: ne, tr_ev: settings.tr_ev }];
    let (stats, q) = (settings.stats, &settings.quadrature);
    let mut dy = vec![0.0; n + 1];
    if !model.excitations().is_empty() {
        let j = excitation_rates(stats, q, &state, &model.excitation_parameters())?;
        for (i, x) in model.excitations().iter().enumerate() {
            let up = j.up[i] * pops[x.lower];
            let down = j.down[i] * pops[x.upper];
            dy[x.lower] += down - up;
            dy[x.upper] += up - down;
            dy[n] += x.energy_ev * (down - up);
        }
    }
    if !model.ionizations().is_empty() {
        let k = ionization_rates(stats, q, &state, &model.ionization_parameters())?;
        let l = photoionization_rates(stats, q, &state, &model.photoionization_parameters())?;
        for (i, x) in model.ionizations().iter().enumerate() {
            let up = (k.up[i] + l.up[i]) * pops[x.lower];
            let down = k.down[i] * pops[x.upper];
            dy[x.lower] += down - up;
            dy[x.upper] += up - down;
            dy[n] += x.energy_ev * (k.down[i] * pops[x.upper] - k.up[i] * pops[x.lower]) + l.down[i] * pops[x.lower];
        }
    }
    dy[n] += inverse_bremsstrahlung_heating(stats, q, &state, &[model.z2_density(pops)])?[0];
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
