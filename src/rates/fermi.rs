//! The free-electron gas: complete Fermi-Dirac integrals, the chemical potential mu(T_e, n_e)
//! (normalisation of paper eq. 2), the kinetic energy density (paper eq. 4, times n_e) and its
//! inversion T_e(u, n_e). Fermi-Dirac statistics, with the Maxwell-Boltzmann counterparts.
//!
//! With eta = mu/T and F_j(eta) = (1/Gamma(j+1)) int_0^inf x^j / (1 + e^{x - eta}) dx:
//! - n_e = N_Q T^{3/2} F_{1/2}(eta), N_Q = 2 (2 pi m_e / h^2)^{3/2} (= 2/lambda^3 at T = 1 eV);
//! - u = n_e C_V = (3/2) N_Q T^{5/2} F_{3/2}(eta) [eV cm^-3];
//! - Maxwell-Boltzmann: F_j(eta) = e^eta, so mu = T ln(n_e / (N_Q T^{3/2})) and u = (3/2) n_e T.
//!
//! Everything is solved to full double precision (Newton steps safeguarded by bisection on the
//! exact integrals; the integrals by graded 64-point Gauss-Legendre in t = sqrt(x), ~1e-16).

use super::constants::quantum_density_factor;
use super::{check_density, check_temperature, Statistics, TEMPERATURE_RANGE_EV};
use crate::error::{require_positive, Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use crate::math::panels::{graded_breakpoints, integrate_graded_sums, Feature, MAX_BREAKPOINTS};
use once_cell::sync::Lazy;

static RULE64: Lazy<GaussLegendre> = Lazy::new(|| GaussLegendre::new(64).expect("64 nodes is valid"));

/// Unnormalised Fermi-Dirac integrals I_j(eta) = int_0^inf x^j/(1+e^{x-eta}) dx for
/// j = -1/2, 1/2, 3/2, returned as [I_{-1/2}, I_{1/2}, I_{3/2}]. Computed as
/// int_0^inf 2 t^{2j+1} / (1 + e^{t^2 - eta}) dt, with a graded panel set around the Fermi edge
/// t = sqrt(eta); the tail beyond x = max(eta, 0) + 60 is below 1e-24 of the integral.
fn fermi_integrals_unnormalised(eta: f64) -> [f64; 3] {
    let x_max = eta.max(0.0) + 60.0;
    let t_max = x_max.sqrt();
    let mut features = [Feature { at: 0.0, scale: 1.0 }, Feature { at: 0.0, scale: 0.0 }];
    if eta > 0.0 {
        let t0 = eta.sqrt();
        // Width of the edge in t: dx = 1 <-> dt = 1/(2 t0); two widths per side.
        features[1] = Feature { at: t0, scale: (1.0 / t0).min(1.0) };
    }
    let mut breaks = [0.0; MAX_BREAKPOINTS];
    let count = graded_breakpoints(0.0, t_max, &features, &mut breaks);
    // The three integrands share their occupation factor: one pass.
    integrate_graded_sums(&RULE64, &breaks[..count], |t| {
        let t2 = t * t;
        let occupation = 2.0 * occupation_from_exponent(t2 - eta);
        [occupation, t2 * occupation, t2 * t2 * occupation]
    })
}

/// 1/(1 + e^x) without overflow.
pub(crate) fn occupation_from_exponent(x: f64) -> f64 {
    if x > 0.0 {
        let e = (-x).exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + x.exp())
    }
}

const GAMMA_1_2: f64 = 1.772_453_850_905_516; // Gamma(1/2) = sqrt(pi)
const GAMMA_3_2: f64 = 0.886_226_925_452_758; // Gamma(3/2)
const GAMMA_5_2: f64 = 1.329_340_388_179_137; // Gamma(5/2)

/// Normalised complete Fermi-Dirac integrals [F_{-1/2}, F_{1/2}, F_{3/2}](eta)
/// (dF_j/deta = F_{j-1}).
pub fn fermi_dirac_integrals(eta: f64) -> [f64; 3] {
    let [a, b, c] = fermi_integrals_unnormalised(eta);
    [a / GAMMA_1_2, b / GAMMA_3_2, c / GAMMA_5_2]
}

/// Solves for eta = mu/T in F_{1/2}(eta) = y (y > 0), to full double precision.
fn eta_from_f_half(y: f64) -> Result<f64> {
    // Initial guess: non-degenerate series ln y + y/2^{3/2}, or the Sommerfeld leading term
    // F_{1/2} ~ eta^{3/2}/Gamma(5/2).
    let eta = if y < 1.0 { y.ln() + y / 8f64.sqrt() } else { (GAMMA_5_2 * y).powf(2.0 / 3.0) };
    let target = y.ln();
    let log_f_half = |eta: f64| {
        let [fm, f0, _] = fermi_dirac_integrals(eta);
        (f0.ln() - target, fm / f0)
    };
    monotone_root(eta, true, 200, log_f_half)
        .ok_or_else(|| Error::NotConverged(format!("chemical potential for F_1/2(eta) = {y:e}")))
}

/// Chemical potential mu(T_e, n_e) [eV] that normalises the electron distribution (paper eq. 2):
/// n_e = N_Q T^{3/2} F_{1/2}(mu/T). `te_ev` in eV, `ne_cm3` in cm^-3.
pub fn chemical_potential(stats: Statistics, te_ev: f64, ne_cm3: f64) -> Result<f64> {
    check_temperature("te_ev", None, te_ev)?;
    check_density("ne_cm3", None, ne_cm3)?;
    let y = ne_cm3 / (quantum_density_factor() * te_ev.powf(1.5));
    Ok(match stats {
        Statistics::MaxwellBoltzmann => te_ev * y.ln(),
        Statistics::FermiDirac => te_ev * eta_from_f_half(y)?,
    })
}

/// Electron kinetic energy density u = n_e C_V (paper eq. 4) [eV cm^-3] at temperature `te_ev`
/// [eV] and density `ne_cm3` [cm^-3].
pub fn energy_density(stats: Statistics, te_ev: f64, ne_cm3: f64) -> Result<f64> {
    let mu = chemical_potential(stats, te_ev, ne_cm3)?;
    Ok(match stats {
        Statistics::MaxwellBoltzmann => 1.5 * ne_cm3 * te_ev,
        Statistics::FermiDirac => {
            1.5 * quantum_density_factor() * te_ev.powf(2.5) * fermi_dirac_integrals(mu / te_ev)[2]
        }
    })
}

/// The derivatives of the density and the energy density of the electron gas with respect to
/// its temperature and chemical potential at (T, mu) [eV]: [[dn_e/dT, dn_e/dmu], [du/dT,
/// du/dmu]] [cm^-3 eV^-1, cm^-3]. From n_e = N_Q T^{3/2} F_{1/2}(eta), u = (3/2) N_Q T^{5/2}
/// F_{3/2}(eta), eta = mu/T and dF_j/deta = F_{j-1}:
/// dn_e/dT = N_Q T^{1/2} ((3/2) F_{1/2} - eta F_{-1/2}), dn_e/dmu = N_Q T^{1/2} F_{-1/2},
/// du/dT = (3/2) N_Q T^{3/2} ((5/2) F_{3/2} - eta F_{1/2}), du/dmu = (3/2) N_Q T^{3/2} F_{1/2};
/// Maxwell-Boltzmann: every F_j(eta) = e^eta.
pub fn density_and_energy_slopes(stats: Statistics, te_ev: f64, mu_ev: f64) -> [[f64; 2]; 2] {
    let eta = mu_ev / te_ev;
    let integrals = match stats {
        Statistics::FermiDirac => fermi_dirac_integrals(eta),
        Statistics::MaxwellBoltzmann => [eta.exp(); 3],
    };
    density_and_energy_slopes_from(te_ev, mu_ev, integrals)
}

/// [`density_and_energy_slopes`] from the normalised integrals [F_{-1/2}, F_{1/2}, F_{3/2}] at
/// eta = mu/T_e (e^eta each under Maxwell-Boltzmann), as a backend that has just used them to
/// invert (u, n_e) gives them.
pub fn density_and_energy_slopes_from(te_ev: f64, mu_ev: f64, integrals: [f64; 3]) -> [[f64; 2]; 2] {
    let eta = mu_ev / te_ev;
    let [f_minus, f_half, f_three_halves] = integrals;
    let n_scale = quantum_density_factor() * te_ev.sqrt();
    let u_scale = 1.5 * n_scale * te_ev;
    [
        [n_scale * (1.5 * f_half - eta * f_minus), n_scale * f_minus],
        [u_scale * (2.5 * f_three_halves - eta * f_half), u_scale * f_half],
    ]
}

/// The lowest energy density a Fermi gas of density `ne_cm3` can have, (3/5) n_e E_F [eV cm^-3].
pub fn ground_state_energy_density(ne_cm3: f64) -> f64 {
    0.6 * ne_cm3 * fermi_energy(ne_cm3)
}

/// Fermi energy E_F = (h^2 / 2 m_e) (3 n_e / 8 pi)^{2/3} [eV], `ne_cm3` in cm^-3.
pub fn fermi_energy(ne_cm3: f64) -> f64 {
    use super::constants::{HC, ME_C2};
    HC * HC / (2.0 * ME_C2) * (3.0 * ne_cm3 / (8.0 * std::f64::consts::PI)).powf(2.0 / 3.0)
}

/// Temperature and chemical potential (T_e, mu) [eV] of an electron gas of energy density
/// `u_ev_cm3` [eV cm^-3] and density `ne_cm3` [cm^-3]: the inversion of [`energy_density`].
/// Fermi-Dirac: u / n_e^{5/3} = (3/2) N_Q^{-2/3} F_{3/2}(eta) / F_{1/2}(eta)^{5/3} depends on eta
/// alone; it is solved for eta, then T = (n_e / (N_Q F_{1/2}(eta)))^{2/3}. Fails, under either
/// statistics, when u implies a temperature outside [`TEMPERATURE_RANGE_EV`] (and, Fermi-Dirac,
/// when u is not above the ground-state value (3/5) n_e E_F).
pub fn temperature_from_energy_density(stats: Statistics, u_ev_cm3: f64, ne_cm3: f64) -> Result<(f64, f64)> {
    require_positive("u_ev_cm3", None, u_ev_cm3, "eV cm^-3")?;
    check_density("ne_cm3", None, ne_cm3)?;
    let nq = quantum_density_factor();
    let implied = |t: f64| -> Result<f64> {
        let (low, high) = TEMPERATURE_RANGE_EV;
        if t >= low && t <= high {
            return Ok(t);
        }
        Err(Error::invalid(
            "u_ev_cm3",
            format!("{u_ev_cm3:e} eV cm^-3 at n_e = {ne_cm3:e} cm^-3 implies T_e = {t:e} eV, outside [{low:e}, {high:e}] eV"),
        ))
    };
    if stats == Statistics::MaxwellBoltzmann {
        let t = implied(u_ev_cm3 / (1.5 * ne_cm3))?;
        return Ok((t, t * (ne_cm3 / (nq * t.powf(1.5))).ln()));
    }
    let ground = ground_state_energy_density(ne_cm3);
    if u_ev_cm3 <= ground * (1.0 + 1e-13) {
        return Err(Error::invalid(
            "u_ev_cm3",
            format!(
                "energy density {u_ev_cm3:e} eV cm^-3 is not above the Fermi ground state (3/5) n_e E_F = {ground:e}"
            ),
        ));
    }
    let target = (u_ev_cm3 / ne_cm3.powf(5.0 / 3.0) / (1.5 * nq.powf(-2.0 / 3.0))).ln();
    // g(eta) = ln F_{3/2} - (5/3) ln F_{1/2} decreases from +inf (eta -> -inf) to its T = 0 limit.
    let log_ratio = |eta: f64| {
        let f = fermi_dirac_integrals(eta);
        (f[2].ln() - 5.0 / 3.0 * f[1].ln() - target, f[1] / f[2] - 5.0 / 3.0 * f[0] / f[1])
    };
    // Maxwell-Boltzmann guess.
    let t_mb = u_ev_cm3 / (1.5 * ne_cm3);
    let guess = (ne_cm3 / (nq * t_mb.powf(1.5))).ln().min(50.0);
    let eta = monotone_root(guess, false, 300, log_ratio).ok_or_else(|| {
        Error::NotConverged(format!("temperature for u = {u_ev_cm3:e} eV cm^-3, n_e = {ne_cm3:e} cm^-3"))
    })?;
    let t = implied((ne_cm3 / (nq * fermi_dirac_integrals(eta)[1])).powf(2.0 / 3.0))?;
    Ok((t, eta * t))
}

/// Root of a monotone function g (increasing when `increasing`) to full double precision:
/// Newton steps from `x`, kept inside the bracket the iterates establish (bisection when a step
/// leaves it, outward steps while one side is still open). `g(x)` returns (g, dg/dx); `None`
/// after `max_iterations` steps.
fn monotone_root(mut x: f64, increasing: bool, max_iterations: usize, g: impl Fn(f64) -> (f64, f64)) -> Option<f64> {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for _ in 0..max_iterations {
        let (value, slope) = g(x);
        if (value > 0.0) == increasing {
            hi = hi.min(x);
        } else {
            lo = lo.max(x);
        }
        let mut next = x - value / slope;
        if !(next > lo && next < hi) {
            next = if lo.is_finite() && hi.is_finite() {
                0.5 * (lo + hi)
            } else if lo.is_finite() {
                lo + 2.0 * (1.0 + lo.abs())
            } else {
                hi - 2.0 * (1.0 + hi.abs())
            };
        }
        let step = (next - x).abs();
        x = next;
        if step <= 4.0 * f64::EPSILON * x.abs().max(1.0) {
            return Some(x);
        }
    }
    None
}
