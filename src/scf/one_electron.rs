//! Non-relativistic one-electron integrals of one symmetry (angular momentum l) in normalised
//! radial Gaussians, in closed form (hartree, bohr):
//!
//! ```text
//! R_a(r) = N_a r^l e^{-a r²},   N_a² = 2^{l+2} (2a)^{l+3/2} / ((2l+1)!! √π)      (∫ R_a² r² dr = 1)
//! S_ab = ∫ R_a R_b r² dr = (2 √(ab) / p)^{l+3/2},                                 p = a + b
//! T_ab = ½ ∫ [R_a' R_b' + l(l+1) R_a R_b / r²] r² dr = (2l + 3) (ab / p) S_ab
//! <a|1/r|b> = N_a N_b l! / (2 p^{l+1})
//! <a|erf(c r)/r|b> = N_a N_b (c/2) Σ_{k=0}^{l} C(l,k) k! p^{-k-1} (2(l-k)-1)!! 2^{-(l-k)} (p + c²)^{-(l-k)-1/2}
//! ```
//!
//! The last is the potential of a Gaussian nuclear charge ρ(r) ∝ e^{-ξ r²} (V = -Z erf(√ξ r)/r,
//! c = √ξ): from ∫_0^∞ r e^{-p r²} erf(c r) dr = c / (2 p √(p + c²)) by l derivatives -d/dp
//! (Leibniz's rule); as c → ∞ it becomes the point-nucleus <1/r>. The nuclear attraction is
//! V_ab = -Z <a|1/r|b> (point nucleus) or -Z <a|erf(√ξ r)/r|b> (Gaussian nucleus,
//! [`gaussian_nucleus_exponent`]).

use super::basis::{ln_norm, odd_double_factorial};
use crate::error::{Error, Result};

/// Speed of light in atomic units used by DFRATOM (its default `c`).
pub const DFRATOM_SPEED_OF_LIGHT: f64 = 137.03599976;

/// One bohr in femtometres (CODATA 2018: a0 = 52917.721090 fm).
const BOHR_FM: f64 = 52_917.721_090_3;

/// The nuclear model of the attraction integrals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nucleus {
    /// A point charge Z: V = -Z/r.
    Point,
    /// A Gaussian charge distribution of exponent ξ (bohr⁻²): V = -Z erf(√ξ r)/r.
    Gaussian { exponent: f64 },
}

/// The exponent ξ (bohr⁻²) of the Gaussian nuclear model of mass number `mass_number`, after
/// Visscher & Dyall, At. Data Nucl. Data Tables 67, 207 (1997): ξ = 3 / (2 <r²>), with the root
/// mean square radius r_rms = (0.836 A^{1/3} + 0.570) fm.
pub fn gaussian_nucleus_exponent(mass_number: f64) -> Result<f64> {
    if !(mass_number.is_finite() && mass_number >= 1.0) {
        return Err(Error::invalid("mass_number", format!("must be finite and >= 1, got {mass_number}")));
    }
    let r_rms = (0.836 * mass_number.cbrt() + 0.570) / BOHR_FM;
    Ok(1.5 / (r_rms * r_rms))
}

/// The one-electron matrices of a symmetry, n x n column-major (n = number of exponents).
#[derive(Clone, Debug, PartialEq)]
pub struct OneElectron {
    /// S (dimensionless).
    pub overlap: Vec<f64>,
    /// T (hartree).
    pub kinetic: Vec<f64>,
    /// V = -Z <1/r> or -Z <erf(√ξ r)/r> (hartree).
    pub nuclear: Vec<f64>,
}

fn check_inputs(l: u32, exponents: &[f64], z: f64, nucleus: Nucleus) -> Result<()> {
    if l > 20 {
        return Err(Error::invalid("l", format!("must be in [0, 20], got {l}")));
    }
    super::basis::check_exponents("exponents", exponents)?;
    if !(z.is_finite() && z > 0.0) {
        return Err(Error::invalid("nuclear_charge", format!("must be finite and > 0, got {z}")));
    }
    if let Nucleus::Gaussian { exponent } = nucleus {
        if !(exponent.is_finite() && exponent > 0.0) {
            return Err(Error::invalid(
                "nucleus",
                format!("the Gaussian exponent must be finite and > 0, got {exponent}"),
            ));
        }
    }
    Ok(())
}

/// S, T and V of symmetry l for `exponents` (bohr⁻²), nuclear charge Z and `nucleus` (module docs).
pub fn one_electron(l: u32, exponents: &[f64], z: f64, nucleus: Nucleus) -> Result<OneElectron> {
    check_inputs(l, exponents, z, nucleus)?;
    let n = exponents.len();
    let lf = l as f64;
    let ln_n: Vec<f64> = exponents.iter().map(|&a| ln_norm(l, a)).collect();
    let mut out = OneElectron { overlap: vec![0.0; n * n], kinetic: vec![0.0; n * n], nuclear: vec![0.0; n * n] };
    let l_factorial: f64 = (1..=l).map(f64::from).product();
    for j in 0..n {
        for i in 0..n {
            let (a, b) = (exponents[i], exponents[j]);
            let p = a + b;
            let s = (2.0 * (a * b).sqrt() / p).powf(lf + 1.5);
            let norms = (ln_n[i] + ln_n[j]).exp();
            let attraction = match nucleus {
                Nucleus::Point => norms * l_factorial / (2.0 * p.powi(l as i32 + 1)),
                Nucleus::Gaussian { exponent } => norms * erf_moment(l, p, exponent.sqrt()),
            };
            out.overlap[i + n * j] = s;
            out.kinetic[i + n * j] = (2.0 * lf + 3.0) * (a * b / p) * s;
            out.nuclear[i + n * j] = -z * attraction;
        }
    }
    Ok(out)
}

/// ∫_0^∞ r^{2l+1} e^{-p r²} erf(c r) dr (module docs).
pub(crate) fn erf_moment(l: u32, p: f64, c: f64) -> f64 {
    let q = p + c * c;
    let mut sum = 0.0;
    let mut binomial = 1.0;
    let mut k_factorial = 1.0;
    for k in 0..=l {
        if k > 0 {
            binomial *= (l - k + 1) as f64 / k as f64;
            k_factorial *= k as f64;
        }
        let m = l - k;
        sum += binomial * k_factorial / p.powi(k as i32 + 1) * odd_double_factorial(m)
            / 2f64.powi(m as i32)
            / q.powf(m as f64 + 0.5);
    }
    0.5 * c * sum
}
