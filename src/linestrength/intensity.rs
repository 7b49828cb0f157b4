//! Einstein A coefficients and absorption intensities (paper eqs. 1-2) in TROVE's CGS units and
//! constants, and the filters of a line list.
//!
//! For a line of wavenumber nu (cm^-1) from a lower state of energy E'' (cm^-1) and rotational
//! quantum number J'':
//!
//! ```text
//!   A = 3.1361892e-7 (2J''+1) L nu^3                                                 s^-1
//!   S = g_ns (2J'+1)(2J''+1) L                                                       Debye^2
//!   I = 4.1623797e-19 S nu e^(-beta (E''-ZPE)) (1 - e^(-beta nu)) / Q                cm/molecule
//! ```
//! with L = a^2 the squared amplitude (Debye^2). The two prefactors are TROVE's `A_coef_s_1` =
//! 64 pi^4 1e-36 / (3h) and `intens_cm_molecule` = 8 pi^3 1e-36 / (3hc) (1 D = 1e-18 esu cm, hence
//! the 1e-36) as the issue fixes them (they correspond to h = 6.626069e-27 erg s); beta = hc/(kT)
//! in cm, with TROVE's accuracy.f90 constants (NIST 2012: h = 6.62606957e-27 erg s,
//! c = 2.99792458e10 cm s^-1, k = 1.3806488e-16 erg K^-1), as `dm_intensity_symmvec` computes it.
//! The thresholds compare S with THRESH_LINE and I with THRESH_INTES.

use super::{IntensityParams, MAX_ENERGY_CM, TEMPERATURE_RANGE_K};
use crate::error::{require_in_range, require_positive, Error, Result};

/// Planck constant h in erg s (TROVE's `planck`).
pub const PLANCK: f64 = 6.62606957e-27;
/// Speed of light c in cm s^-1 (TROVE's `vellgt`).
pub const LIGHT_SPEED: f64 = 2.99792458e10;
/// Boltzmann constant k in erg K^-1 (TROVE's `boltz`).
pub const BOLTZMANN: f64 = 1.3806488e-16;

/// 64 pi^4 1e-36 / (3h) in s^-1 D^-2 cm^3: A from L in Debye^2 and nu in cm^-1 (TROVE's `A_coef_s_1`).
pub const EINSTEIN_A_COEFFICIENT: f64 = 3.1361892e-7;

/// 8 pi^3 1e-36 / (3hc) in cm/molecule per D^2 cm^-1 (TROVE's `intens_cm_molecule`).
pub const INTENSITY_COEFFICIENT: f64 = 4.1623797e-19;

/// Einstein A (s^-1) of a line: L (Debye^2) the squared amplitude, nu in cm^-1, J'' of the lower state.
pub fn einstein_a(j_lower: u32, squared_amplitude: f64, wavenumber: f64) -> f64 {
    EINSTEIN_A_COEFFICIENT * (2 * j_lower + 1) as f64 * squared_amplitude * wavenumber.abs().powi(3)
}

/// Absorption intensity (cm/molecule) of a line of strength S (Debye^2) and wavenumber nu (cm^-1)
/// from a lower state at `lower_energy` = E'' - ZPE (cm^-1), at temperature T (K) with partition
/// function Q.
pub fn absorption_intensity(
    linestrength: f64,
    wavenumber: f64,
    lower_energy: f64,
    temperature: f64,
    partition_function: f64,
) -> f64 {
    absorption_intensity_at(linestrength, wavenumber, lower_energy, beta(temperature), partition_function)
}

/// beta = hc/(kT) in cm, T in K.
pub fn beta(temperature: f64) -> f64 {
    PLANCK * LIGHT_SPEED / (BOLTZMANN * temperature)
}

/// [`absorption_intensity`] with beta = hc/(kT) (cm) given.
pub(crate) fn absorption_intensity_at(
    linestrength: f64,
    wavenumber: f64,
    lower_energy: f64,
    beta: f64,
    partition_function: f64,
) -> f64 {
    let nu = wavenumber.abs();
    let boltzmann = nu * (-lower_energy * beta).exp() * (1.0 - (-nu * beta).exp()) / partition_function;
    linestrength * INTENSITY_COEFFICIENT * boltzmann
}

fn check_window(name: &'static str, w: [f64; 2]) -> Result<()> {
    if w[0].is_nan() || w[1].is_nan() || w[0] > w[1] {
        return Err(Error::invalid(name, format!("must be an interval [min, max] with min <= max, got {w:?}")));
    }
    Ok(())
}

/// Checks the parameters of a line list.
pub fn check_params(p: &IntensityParams) -> Result<()> {
    require_in_range("temperature", None, p.temperature, TEMPERATURE_RANGE_K.0, TEMPERATURE_RANGE_K.1, "K")?;
    require_positive("partition_function", None, p.partition_function, "")?;
    require_in_range("zpe", None, p.zpe, -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
    check_window("freq_window", p.freq_window)?;
    check_window("lower_energy", p.lower_energy)?;
    check_window("upper_energy", p.upper_energy)?;
    for (name, value) in
        [("thresh_coeff", p.thresh_coeff), ("thresh_line", p.thresh_line), ("thresh_intens", p.thresh_intens)]
    {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::invalid(name, format!("must be finite and >= 0, got {value}")));
        }
    }
    if p.batch == 0 {
        return Err(Error::invalid("batch", "must be >= 1"));
    }
    Ok(())
}
