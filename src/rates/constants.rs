//! Physical constants (CODATA 2018) in the units of the rates family: energies and temperatures
//! in eV (temperatures times k_B), lengths in cm, time in s. The same values are written into
//! `kernels/rates.cu`; `tests/reference/FORMULAS.md` lists them for the reference script.

use std::f64::consts::PI;

/// Electron rest energy m_e c^2 [eV].
pub const ME_C2: f64 = 510_998.95;
/// Planck constant times the speed of light, h c [eV cm].
pub const HC: f64 = 1.239_841_984_332_002_6e-4;
/// hbar c [eV cm].
pub const HBARC: f64 = HC / (2.0 * PI);
/// Speed of light [cm s^-1].
pub const C_CM_S: f64 = 2.997_924_58e10;
/// Fine-structure constant.
pub const ALPHA: f64 = 7.297_352_569_3e-3;
/// Bohr radius [cm].
pub const A0_CM: f64 = 5.291_772_109_03e-9;
/// Rydberg energy [eV].
pub const RYDBERG_EV: f64 = 13.605_693_122_994;
/// BELI unit of the ionization coefficients C0..C4 (Bell et al. 1983) [cm^2 eV^2].
pub const BELI_UNIT_CM2_EV2: f64 = 1e-13;

/// G = 4 pi (2 m_e / h^2)^{3/2}, the free-electron density of states per sqrt(energy), paper eq. 2
/// [eV^-3/2 cm^-3].
pub fn free_electron_degeneracy() -> f64 {
    4.0 * PI * (2.0 * ME_C2 / (HC * HC)).powf(1.5)
}

/// sqrt(2/m_e): electron speed v = sqrt(2/m_e) sqrt(eps) [cm s^-1 eV^-1/2].
pub fn speed_factor() -> f64 {
    C_CM_S * (2.0 / ME_C2).sqrt()
}

/// N_Q = G Gamma(3/2) = 2 (2 pi m_e / h^2)^{3/2}: n_e = N_Q T^{3/2} F_{1/2}(mu/T), i.e.
/// N_Q T^{3/2} = 2 / lambda_th^3 [eV^-3/2 cm^-3].
pub fn quantum_density_factor() -> f64 {
    2.0 * (2.0 * PI * ME_C2 / (HC * HC)).powf(1.5)
}

/// Excitation prefactor G sqrt(2/m_e) pi a0^2 Ry (paper eq. 5 with sigma(eps) = pi a0^2 (Ry/eps)
/// Omega) [eV^-1 s^-1].
pub fn excitation_prefactor() -> f64 {
    free_electron_degeneracy() * speed_factor() * PI * A0_CM * A0_CM * RYDBERG_EV
}

/// Ionization prefactor G sqrt(2/m_e) x 1e-13 cm^2 eV^2 (paper eq. 7 with eq. 8 in BELI units)
/// [eV^-4 s^-1].
pub fn ionization_prefactor() -> f64 {
    free_electron_degeneracy() * speed_factor() * BELI_UNIT_CM2_EV2
}

/// Black-body photon flux constant 8 pi c / (h c)^3: flux per unit photon energy
/// Phi(eps) = PHI eps^2 / (exp(eps/Tr) - 1) (paper eq. 16 divided by eps, times c)
/// [cm^-2 s^-1 eV^-3].
pub fn photon_flux_factor() -> f64 {
    8.0 * PI * C_CM_S / (HC * HC * HC)
}

/// Kramers free-free coefficient (4/3) sqrt(2 pi/3) (alpha hbar c)^3 (h c)^2 / (m_e c^2)^{3/2}:
/// kappa = A_FF Z^2 n_e n_i T^{-1/2} eps^{-3} (1 - e^{-eps/T}) (Rybicki & Lightman 5.18a, g_ff = 1)
/// [eV^7/2 cm^5].
pub fn kramers_free_free() -> f64 {
    let e2 = ALPHA * HBARC;
    (4.0 / 3.0) * (2.0 * PI / 3.0).sqrt() * e2 * e2 * e2 * HC * HC / ME_C2.powf(1.5)
}

/// Photon energy at the electron plasma frequency, hbar omega_p = sqrt(4 pi n_e alpha (hbar c)^3
/// / m_e c^2): the lower limit of the inverse-bremsstrahlung integral (paper eq. 14) [eV];
/// `ne_cm3` in cm^-3.
pub fn plasma_photon_energy(ne_cm3: f64) -> f64 {
    (4.0 * PI * ne_cm3 * ALPHA * HBARC * HBARC * HBARC / ME_C2).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The aluminium demo data's folded constants (shared/data/aluminium-cr-model.md) were made
    /// with older constants: 4.831e14 (excitation), 4.036e16 (ionization), 3.94286e23 (photon
    /// flux). Ours agree to the 3 digits those carry, an independent check of the unit algebra.
    #[test]
    fn prefactors_match_the_demo_codes_folded_constants() {
        assert!((excitation_prefactor() / 4.831e14 - 1.0).abs() < 2e-3, "{}", excitation_prefactor());
        assert!((ionization_prefactor() / 4.036e16 - 1.0).abs() < 2e-3, "{}", ionization_prefactor());
        assert!((photon_flux_factor() / 3.94286e23 - 1.0).abs() < 4e-3, "{}", photon_flux_factor());
    }

    /// Rybicki & Lightman eq. 5.18a: alpha_ff = 3.7e8 T_K^{-1/2} Z^2 n_e n_i nu^{-3} (cgs, nu in Hz).
    #[test]
    fn kramers_coefficient_matches_rybicki_lightman() {
        let k_b: f64 = 8.617_333_262e-5; // eV/K
        let h: f64 = 4.135_667_696e-15; // eV s
        let cgs = kramers_free_free() * k_b.powf(-0.5) * h.powi(-3);
        assert!((cgs / 3.7e8 - 1.0).abs() < 5e-3, "{cgs}");
    }

    /// Paper eq. 15 as printed, evaluated in SI from CODATA 2018 (e, eps_0, h, c, m_e) and
    /// converted to eV and cm, is 4 A_FF: the factor the module docs of `integrals` state.
    #[test]
    fn printed_equation_15_is_four_kramers_coefficients() {
        let (e, eps0, h, c, me): (f64, f64, f64, f64, f64) =
            (1.602_176_634e-19, 8.854_187_812_8e-12, 6.626_070_15e-34, 2.997_924_58e8, 9.109_383_701_5e-31);
        let (hc, mc2) = (h * c, me * c * c);
        // [J^7/2 m^5] (e^6/eps0^3 is J^3 m^3); J^7/2 m^5 -> eV^7/2 cm^5.
        let c15 = e.powi(6) * hc * hc / (6.0 * 6f64.sqrt() * PI.powf(2.5) * eps0.powi(3) * mc2.powf(1.5));
        let c15 = c15 / e.powf(3.5) * 1e10;
        assert!((c15 / kramers_free_free() / 4.0 - 1.0).abs() < 1e-8, "{}", c15 / kramers_free_free());
    }

    /// hbar omega_p = 1.1745 eV at n_e = 1e21 cm^-3 (omega_p = 5.64e4 sqrt(n_e) rad/s).
    #[test]
    fn plasma_frequency() {
        let hbar = 6.582_119_569e-16; // eV s
        let expected = hbar * 5.641_460e4 * 1e21f64.sqrt();
        assert!((plasma_photon_energy(1e21) / expected - 1.0).abs() < 1e-5);
    }
}
