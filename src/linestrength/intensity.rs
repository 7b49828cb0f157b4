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

use super::{Block, IntensityParams, Line, LineStrength, MAX_ENERGY_CM, TEMPERATURE_RANGE_K};
use crate::error::{require_in_range, require_positive, Error, Result};
use crate::memory;

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
    let beta = PLANCK * LIGHT_SPEED / (BOLTZMANN * temperature);
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

fn inside(w: [f64; 2], x: f64) -> bool {
    x >= w[0] && x <= w[1]
}

/// True when the pair passes TROVE's energy and frequency filters (and nu > 0: absorption).
fn passes(p: &IntensityParams, lower_energy: f64, upper_energy: f64) -> bool {
    let nu = upper_energy - lower_energy;
    nu > 0.0 && inside(p.freq_window, nu) && inside(p.upper_energy, upper_energy - p.zpe)
}

/// States of block `lower` inside the lower-energy window with at least one upper state of
/// `uppers` passing the filters.
pub(crate) fn lower_candidates(
    blocks: &[Block],
    lower: usize,
    uppers: &[usize],
    p: &IntensityParams,
) -> Result<Vec<usize>> {
    let mut candidates = Vec::new();
    for (i, &e) in blocks[lower].energies.iter().enumerate() {
        if inside(p.lower_energy, e - p.zpe)
            && uppers.iter().any(|&u| blocks[u].energies.iter().any(|&eu| passes(p, e, eu)))
        {
            memory::reserve("the lower states of the line list", &mut candidates, 1)?;
            candidates.push(i);
        }
    }
    Ok(candidates)
}

/// Appends the lines from the lower states `batch` of block `lower` to the states of block
/// `upper`, given their amplitudes (`n_states(upper) x batch.len()`), that pass the filters and
/// thresholds. A line whose strength, Einstein A or intensity is not finite (absurd but finite
/// inputs: a partition function of 1e-300, say) is an error naming that output, never a line
/// dropped by a comparison with NaN.
pub(crate) fn collect_lines(
    handle: &LineStrength,
    lower: usize,
    batch: &[usize],
    upper: usize,
    amplitudes: &[f64],
    p: &IntensityParams,
    lines: &mut Vec<Line>,
) -> Result<()> {
    let blocks = handle.blocks();
    let (lb, ub) = (&blocks[lower], &blocks[upper]);
    let n_upper = ub.energies.len();
    let degeneracy = lb.gns * ((2 * lb.j + 1) * (2 * ub.j + 1)) as f64;
    let (upper_id, lower_id) = (handle.state_id(upper, 0), handle.state_id(lower, 0));
    for (i, &state) in batch.iter().enumerate() {
        let e_lower = lb.energies[state];
        for (f, &e_upper) in ub.energies.iter().enumerate() {
            if !passes(p, e_lower, e_upper) {
                continue;
            }
            let nu = e_upper - e_lower;
            let squared = amplitudes[f + n_upper * i].powi(2);
            let linestrength = degeneracy * squared;
            let intensity =
                absorption_intensity(linestrength, nu, e_lower - p.zpe, p.temperature, p.partition_function);
            let einstein_a = einstein_a(lb.j, squared, nu);
            for (name, value) in [("linestrength", linestrength), ("einstein_a", einstein_a), ("intensity", intensity)]
            {
                if !value.is_finite() {
                    return Err(Error::NotFinite {
                        name,
                        index: None,
                        detail: format!(
                            "{value} for the line from state {state} of block {lower} to state {f} of block {upper}"
                        ),
                    });
                }
            }
            if intensity >= p.thresh_intens && linestrength >= p.thresh_line {
                memory::reserve("the line list", lines, 1)?;
                lines.push(Line {
                    upper_id: upper_id + f as i64,
                    lower_id: lower_id + state as i64,
                    upper_block: upper,
                    upper_state: f,
                    lower_block: lower,
                    lower_state: state,
                    wavenumber: nu,
                    linestrength,
                    einstein_a,
                    intensity,
                });
            }
        }
    }
    Ok(())
}
