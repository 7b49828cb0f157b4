//! Arithmetic precision of the GPU rate kernels (the paper's Fig. 2 b-c runs its integrals in
//! single precision as well as double).
//!
//! [`Precision::Double`] (the default) is the reference: GPU = CPU to relative 1e-12.
//! [`Precision::Single`] evaluates the integrands (occupations and blocking factors, collision
//! strengths, the Mott-BELI cross-section) in FP32 and keeps FP64 for everything where rounding
//! would be amplified: breakpoints and abscissae, the arguments (eps - mu)/T_e, eps/E,
//! eps2 = eps0 - E - eps1 and the scale a of eq. 8 (formed in double, then rounded once), the
//! black-body flux, every quadrature sum and every prefactor. Its error is that of FP32 integrand
//! values summed in FP64: about 1e-7 relative per integrand, more where a fit's terms cancel.
//! The bound the library states and its tests assert is [`SINGLE_PRECISION_BOUND`] = 1e-6
//! relative to the double result, for every pair computed in FP32; the largest difference
//! measured is 6.2e-7 (bench/RESULTS.md: 1e4 ionizations x 64 states on an H200; 5.2e-7 over the
//! inputs of tests/rates_gpu.rs).
//!
//! Single precision applies to the CUDA path of the batched excitation, ionization and
//! photoionization routines ([`super::excitation_rates`], [`super::ionization_rates`],
//! [`super::photoionization_rates`]; the inverse-bremsstrahlung integrand is a difference of two
//! logarithms that FP32 would cancel, and one integral per state never limits a batch, so it stays
//! double), pair by pair inside its range ([`single_precision_fits`]): a (transition, state) pair
//! outside it runs in double, so asking for single precision never costs digits beyond FP32's.
//! The CPU reference and the collisional-radiative runs are always double: the stiff integrator
//! differentiates the rates by relative steps of 1e-5, which FP32 noise (1e-7) would spoil to 1e-2.
//!
//! C callers choose with `atomgpu_rates_set_precision` or the environment variable
//! `ATOMGPU_RATES_PRECISION=double|single` (read when a call builds its quadrature).

use super::integrals::Conditions;
use crate::error::{Error, Result};
use std::sync::Mutex;

/// Arithmetic of the rate integrands on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// FP64 throughout (the default and the CPU's).
    Double,
    /// FP32 integrand values, FP64 arguments, sums and prefactors (see the module docs).
    Single,
}

impl Precision {
    /// 0 = double, 1 = single (the C constants `ATOMGPU_PRECISION_*`); `name` is the argument's.
    pub fn from_code(name: &'static str, code: i32) -> Result<Self> {
        match code {
            0 => Ok(Precision::Double),
            1 => Ok(Precision::Single),
            _ => Err(Error::invalid(name, format!("must be 0 (double) or 1 (single), got {code}"))),
        }
    }

    /// Parses `double` or `single` (case-insensitive; also `fp64`, `fp32`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "double" | "fp64" | "" => Some(Precision::Double),
            "single" | "fp32" | "float" => Some(Precision::Single),
            _ => None,
        }
    }
}

static PROCESS_PRECISION: Mutex<Option<Precision>> = Mutex::new(None);

/// Sets the precision of the C interface's rate calls for the rest of the process
/// (C: `atomgpu_rates_set_precision`), overriding `ATOMGPU_RATES_PRECISION`.
pub fn set_process_precision(precision: Precision) {
    *PROCESS_PRECISION.lock().unwrap_or_else(|p| p.into_inner()) = Some(precision);
}

/// The precision of the C interface's rate calls: the [`set_process_precision`] choice, else
/// `ATOMGPU_RATES_PRECISION`, else double.
pub fn process_precision() -> Result<Precision> {
    if let Some(p) = *PROCESS_PRECISION.lock().unwrap_or_else(|p| p.into_inner()) {
        return Ok(p);
    }
    match std::env::var("ATOMGPU_RATES_PRECISION") {
        Ok(v) => Precision::parse(&v)
            .ok_or_else(|| Error::invalid("ATOMGPU_RATES_PRECISION", format!("must be double or single, got `{v}`"))),
        Err(_) => Ok(Precision::Double),
    }
}

/// The single-precision bound: a (transition, state) pair computed in FP32 agrees with the double
/// result within this relative difference (measured at most 6.2e-7; see the module docs).
pub const SINGLE_PRECISION_BOUND: f64 = 1e-6;

/// Largest |mu|/T_e of a pair computed in single precision (see [`single_precision_fits`]).
pub const SINGLE_ETA_LIMIT: f64 = 30.0;

/// Largest (E + |mu|)/T_e of a pair computed in single precision (see [`single_precision_fits`]).
pub const SINGLE_THRESHOLD_LIMIT: f64 = 60.0;

/// Range of the magnitude of a nonzero fit coefficient (B0..B5, C0..C4) computed in single
/// precision: well inside FP32's [1.2e-38, 3.4e38], so the cross-sections built from them are.
pub const SINGLE_COEFFICIENT_RANGE: (f64, f64) = (1e-30, 1e30);

/// True when FP32 holds the integrands of a transition of energy `energy_ev` [eV] with fit
/// `coefficients` in state `c`, so that a single-precision call computes this pair in FP32 (the
/// kernels evaluate the same rule, rates.cu `fits_single`, pair by pair; other pairs run in FP64):
/// - |mu|/T_e <= [`SINGLE_ETA_LIMIT`]: three-body recombination's F(eps1) F(eps2) ~ e^{2 mu/T_e}
///   and the blocking factors of a degenerate gas, >= e^{-|mu|/T_e} each, stay normal floats;
/// - (E + |mu|)/T_e <= [`SINGLE_THRESHOLD_LIMIT`]: the upward integrands peak at
///   e^{-(E + |mu|)/T_e} (the Boltzmann factor of the threshold, with both outgoing electrons
///   above the Fermi sea) and decay by e^{-26} over the range at p = 5, so they stay above FP32's
///   smallest normal number e^{-87.3};
/// - every coefficient is 0 or of magnitude inside [`SINGLE_COEFFICIENT_RANGE`].
///
/// Outside this rule FP32 would flush a rate to zero or infinity; inside it the only loss is
/// FP32's rounding.
pub fn single_precision_fits(c: &Conditions, energy_ev: f64, coefficients: &[f64]) -> bool {
    let (low, high) = SINGLE_COEFFICIENT_RANGE;
    c.mu.abs() / c.te <= SINGLE_ETA_LIMIT
        && (energy_ev + c.mu.abs()) / c.te <= SINGLE_THRESHOLD_LIMIT
        && coefficients.iter().all(|&x| x == 0.0 || (low..=high).contains(&x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rates::Statistics;

    fn state(te: f64, mu: f64) -> Conditions {
        Conditions { stats: Statistics::FermiDirac, te, mu, ne: 1e22, tr: 100.0 }
    }

    #[test]
    fn range_of_single_precision() {
        assert!(single_precision_fits(&state(10.0, -299.0), 300.0, &[0.0, 1.5, -1e-29]));
        assert!(single_precision_fits(&state(1.0, 30.0), 30.0, &[]));
        assert!(!single_precision_fits(&state(10.0, -301.0), 1.0, &[1.0]));
        assert!(!single_precision_fits(&state(10.0, 10.0), 591.0, &[1.0]));
        assert!(!single_precision_fits(&state(10.0, 1.0), 5.0, &[1e31]));
        assert!(!single_precision_fits(&state(10.0, 1.0), 5.0, &[1e-31]));
    }

    #[test]
    fn codes_and_names() {
        assert_eq!(Precision::from_code("precision", 1).unwrap(), Precision::Single);
        assert!(Precision::from_code("precision", 2).unwrap_err().to_string().contains("precision"));
        assert_eq!(Precision::parse(" FP32 "), Some(Precision::Single));
        assert_eq!(Precision::parse("half"), None);
    }
}
