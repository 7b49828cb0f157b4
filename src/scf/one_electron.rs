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
//!
//! **Scaled forms.** Formed as written, a b, p^{l+1} and N_a N_b over- or underflow for exponents
//! far from 1 (a = 1e-200 makes ab = 0 and S = 0 instead of 0.915 for b = 2a) although every
//! matrix element is representable. Every element is therefore evaluated as exp of a sum of
//! logarithms of O(1)-conditioned factors, through g = 2√(ab)/p = 1/cosh(½ ln(a/b)) ∈ (0, 1]:
//!
//! ```text
//! S_ab = g^{l+3/2}
//! T_ab = (l + 3/2) √(ab) g^{l+5/2}
//! <a|1/r|b> = A_l (ab)^{1/4} g^{l+1},                    A_l = 2^{l+3/2} l! / ((2l+1)!! √π)
//! <a|erf(√ξ r)/r|b> = <a|1/r|b> √(1-u) Σ_{m=0}^{l} C(2m,m) 4^{-m} u^m,        u = p / (p + ξ)
//! ```
//!
//! (the last from the sum above with (2m-1)!!/(2^m m!) = C(2m,m)/4^m; its terms are positive and
//! form the partial sum of (1-u)^{-1/2}). ln cosh, ln(1 - u) = -ln(1 + p/ξ) and ln u are taken
//! from the logarithms of the exponents ([`softplus`]), so no intermediate leaves the double
//! range; the relative rounding is a few ulp times the largest logarithm summed (≤ 1e-12 even at
//! exponents of 1e±300). An element that itself overflows (T of two exponents near 1e308, or
//! V with Z near 1e308) is [`Error::NotFinite`] naming the matrix and the element.

pub mod fermi;

use super::basis::odd_double_factorial;
use crate::error::{Error, Result};
use fermi::{FermiPotential, Term};

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
    /// A Fermi charge distribution ρ ∝ 1/(1 + e^{(r - c)/a}) of half-density radius c and
    /// diffuseness a (bohr; [`fermi`]); [`Nucleus::fermi`] makes it from r_rms and the skin
    /// thickness as GRASP does.
    Fermi { half_density_radius: f64, diffuseness: f64 },
}

impl Nucleus {
    /// The Fermi nucleus of root-mean-square radius `rms_radius` and skin thickness
    /// `skin_thickness` (fm; GRASP's default [`fermi::GRASP_SKIN_THICKNESS_FM`]): a = t/(4 ln 3)
    /// and c from r_rms by the exact relation of [`fermi`] (its exponentially small terms kept, as
    /// GRASP's `getcpr`). Both lengths finite in (0, 1e4] fm, and r_rms above the c → 0 limit
    /// ≈ 3.597 a (about 1.88 fm for t = 2.30 fm: nuclei below A ≈ 4 by GRASP's r_rms formula
    /// have no Fermi shape of that skin; use a Gaussian nucleus or a thinner skin).
    pub fn fermi(rms_radius: f64, skin_thickness: f64) -> Result<Nucleus> {
        let (c, a) = fermi_parameters(rms_radius, skin_thickness)?;
        Ok(Nucleus::Fermi { half_density_radius: c / BOHR_FM, diffuseness: a / BOHR_FM })
    }
}

/// The half-density radius c and diffuseness a (fm) of the Fermi nucleus of [`Nucleus::fermi`].
pub fn fermi_parameters(rms_radius: f64, skin_thickness: f64) -> Result<(f64, f64)> {
    let max = fermi::MAX_NUCLEAR_LENGTH_FM;
    if !(skin_thickness.is_finite() && skin_thickness > 0.0 && skin_thickness <= max) {
        return Err(Error::invalid(
            "skin_thickness",
            format!("must be finite in (0, {max:e}] fm, got {skin_thickness}"),
        ));
    }
    let a = skin_thickness / (4.0 * 3f64.ln());
    let least = fermi::fermi_minimum_rms_radius(a);
    if !(rms_radius.is_finite() && rms_radius > least && rms_radius <= max) {
        return Err(Error::invalid(
            "rms_radius",
            format!(
                "must be finite, at most {max:e} fm and above {least:.6} fm (the smallest r_rms of a Fermi distribution of skin thickness {skin_thickness} fm, whose half-density radius tends to 0), got {rms_radius}"
            ),
        ));
    }
    Ok((fermi::fermi_half_density_radius(rms_radius, a), a))
}

/// GRASP's and DBSR's default root-mean-square nuclear radius (fm) of mass number A (finite, at
/// least 1), after Johnson and Soff, At. Data Nucl. Data Tables 33, 405 (1985):
/// r_rms = 0.836 A^{1/3} + 0.570 fm (GRASP2018's `rnucleus` takes it where Angeli and Marinova's
/// table has no value; a caller with a tabulated radius gives it to [`Nucleus::fermi`]).
pub fn default_rms_radius(mass_number: f64) -> Result<f64> {
    if !(mass_number.is_finite() && mass_number >= 1.0) {
        return Err(Error::invalid("mass_number", format!("must be finite and >= 1, got {mass_number}")));
    }
    Ok(0.836 * mass_number.cbrt() + 0.570)
}

/// The exponent ξ (bohr⁻²) of the Gaussian nuclear model of mass number `mass_number`, after
/// Visscher & Dyall, At. Data Nucl. Data Tables 67, 207 (1997): ξ = 3 / (2 <r²>), with the root
/// mean square radius r_rms = (0.836 A^{1/3} + 0.570) fm.
pub fn gaussian_nucleus_exponent(mass_number: f64) -> Result<f64> {
    let r_rms = default_rms_radius(mass_number)? / BOHR_FM;
    Ok(1.5 / (r_rms * r_rms))
}

/// The one-electron matrices of a symmetry, n x n column-major (n = number of exponents).
#[derive(Clone, Debug, PartialEq)]
pub struct OneElectron {
    /// S (dimensionless).
    pub overlap: Vec<f64>,
    /// T (hartree).
    pub kinetic: Vec<f64>,
    /// V = -Z <1/r>, -Z <erf(√ξ r)/r> or the Fermi nucleus's <V> (hartree).
    pub nuclear: Vec<f64>,
}

/// ln(1 + e^x), for any x without overflow.
pub(crate) fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// ln n!.
pub(crate) fn ln_factorial(n: u32) -> f64 {
    (1..=n).map(|k| (k as f64).ln()).sum()
}

/// The logarithms of the combinations of two exponents a, b (bohr⁻²) that the closed forms need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair {
    pub ln_a: f64,
    pub ln_b: f64,
    /// ln p, p = a + b.
    pub ln_p: f64,
    /// ln g, g = 2√(ab)/p = 1/cosh(½ ln(a/b)).
    pub ln_g: f64,
    /// ln(1 + e^{-|ln a - ln b|}), which all of them share.
    t: f64,
}

impl Pair {
    pub fn new(a: f64, b: f64) -> Self {
        Self::with_logs((a, a.ln()), (b, b.ln()))
    }

    /// The pair of exponents a, b given with their logarithms.
    pub fn with_logs((a, ln_a): (f64, f64), (b, ln_b): (f64, f64)) -> Self {
        // t = ln(1 + e^{-|ln a - ln b|}) = ln(1 + min/max).
        let t = (a.min(b) / a.max(b)).ln_1p();
        // ln cosh x = x + ln(1 + e^{-2x}) - ln 2 (x = ½|ln a - ln b|): 0 exactly for a = b.
        let ln_g = -(0.5 * (ln_a - ln_b).abs() + t - std::f64::consts::LN_2);
        Pair { ln_a, ln_b, ln_p: ln_a.max(ln_b) + t, ln_g, t }
    }

    /// ln(a/p) = -ln(1 + b/a) and ln(b/p) = -ln(1 + a/b), each <= 0 (-ln 2 exactly for a = b).
    pub fn ln_shares(&self) -> (f64, f64) {
        (-((self.ln_b - self.ln_a).max(0.0) + self.t), -((self.ln_a - self.ln_b).max(0.0) + self.t))
    }

    /// ln(ab)/4 + k ln g: the logarithm of (ab)^{1/4} g^k, the ζ-scaling of the attraction.
    pub fn ln_attraction(&self, k: f64) -> f64 {
        0.25 * (self.ln_a + self.ln_b) + k * self.ln_g
    }
}

/// ln(N/ζ^{(l+3/2)/2}) of the normalised Gaussian N r^l e^{-ζ r²}:
/// ½ [(2l + 7/2) ln 2 - ln (2l+1)!! - ½ ln π] (module docs).
pub(crate) fn ln_norm_coefficient(l: u32) -> f64 {
    let ln2 = std::f64::consts::LN_2;
    0.5 * ((2 * l) as f64 * ln2 + 3.5 * ln2 - odd_double_factorial(l + 1).ln() - 0.5 * std::f64::consts::PI.ln())
}

/// ln A_l, A_l = 2^{l+3/2} l! / ((2l+1)!! √π): <a|1/r|a> = A_l √a.
fn ln_attraction_constant(l: u32) -> f64 {
    (l as f64 + 1.5) * std::f64::consts::LN_2 + ln_factorial(l)
        - odd_double_factorial(l + 1).ln()
        - 0.5 * std::f64::consts::PI.ln()
}

/// The screening of a Gaussian nucleus: the logarithm of √(1-u) and u itself, u = p/(p + ξ),
/// for ln p and the nucleus (0 and 0 for a point nucleus: u = 0; also for a Fermi nucleus, whose
/// elements start from the point nucleus's: [`NuclearAttraction`]).
pub(crate) fn screening(ln_p: f64, nucleus: Nucleus) -> (f64, f64) {
    match nucleus {
        Nucleus::Point | Nucleus::Fermi { .. } => (0.0, 0.0),
        Nucleus::Gaussian { exponent } => {
            let d = ln_p - exponent.ln();
            (-0.5 * softplus(d), (-softplus(-d)).exp())
        }
    }
}

/// Σ_{m=0}^{j} C(2m,m) 4^{-m} u^m (module docs), in [1, (1-u)^{-1/2}].
pub(crate) fn screening_sum(j: u32, u: f64) -> f64 {
    let (mut term, mut sum) = (1.0, 1.0);
    for m in 1..=j {
        term *= u * (2 * m - 1) as f64 / (2 * m) as f64;
        sum += term;
    }
    sum
}

/// -Z <a|v|b> of symmetry l in closed form (module docs): V_ab of a point or Gaussian nucleus
/// (of a point nucleus for a Fermi one).
fn closed_attraction(l: u32, pair: &Pair, z: f64, nucleus: Nucleus) -> f64 {
    let (ln_screen, u) = screening(pair.ln_p, nucleus);
    let ln = z.ln() + ln_attraction_constant(l) + pair.ln_attraction(l as f64 + 1.0) + ln_screen;
    -ln.exp() * screening_sum(l, u)
}

/// The nuclear attraction of charge Z and a nucleus, prepared once for the elements of a matrix
/// (a Fermi nucleus's potential and moments: [`fermi`]).
pub(crate) struct NuclearAttraction {
    z: f64,
    nucleus: Nucleus,
    fermi: Option<FermiPotential>,
}

impl NuclearAttraction {
    pub fn new(z: f64, nucleus: Nucleus) -> Self {
        let fermi = match nucleus {
            Nucleus::Fermi { half_density_radius, diffuseness } => {
                Some(FermiPotential::new(half_density_radius, diffuseness))
            }
            _ => None,
        };
        NuclearAttraction { z, nucleus, fermi }
    }

    pub fn nucleus(&self) -> Nucleus {
        self.nucleus
    }

    pub fn charge(&self) -> f64 {
        self.z
    }

    /// V_ab of symmetry l between normalised Gaussians (module docs; a Fermi nucleus by [`fermi`]
    /// on the product N_a N_b r^{2l+2} e^{-p r²}).
    pub fn large(&self, l: u32, pair: &Pair) -> f64 {
        let closed = closed_attraction(l, pair, self.z, self.nucleus);
        let term = Term {
            n: 2 * l + 2,
            ln_abs: 2.0 * ln_norm_coefficient(l) + 0.5 * (l as f64 + 1.5) * (pair.ln_a + pair.ln_b),
            negative: false,
        };
        self.finite_nucleus(closed, &[term], pair)
    }

    /// The element of the product density `terms` (r² dr included) of `pair`: `closed`, the
    /// closed form of a point or Gaussian nucleus, as it is, or the Fermi nucleus's element from
    /// `closed` (then the point nucleus's).
    pub fn finite_nucleus(&self, closed: f64, terms: &[Term], pair: &Pair) -> f64 {
        match &self.fermi {
            None => closed,
            Some(fermi) => fermi.attraction(terms, pair.ln_p, self.z, closed),
        }
    }
}

/// Checks a finished matrix: a non-finite element (one that overflowed) is [`Error::NotFinite`]
/// naming the matrix `name` and the element.
pub(crate) fn finite_matrix(name: &'static str, values: &[f64], m: usize) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(k) => Err(Error::NotFinite {
            name,
            index: Some(k),
            detail: format!(
                "element ({}, {}) of the {m} x {m} matrix overflows double precision for these exponents and charge",
                k % m,
                k / m
            ),
        }),
    }
}

fn check_inputs(l: u32, exponents: &[f64], z: f64, nucleus: Nucleus) -> Result<()> {
    if l > 20 {
        return Err(Error::invalid("l", format!("must be in [0, 20], got {l}")));
    }
    super::basis::check_exponents("exponents", exponents)?;
    if !(z.is_finite() && z > 0.0) {
        return Err(Error::invalid("nuclear_charge", format!("must be finite and > 0, got {z}")));
    }
    match nucleus {
        Nucleus::Point => {}
        Nucleus::Gaussian { exponent } => {
            if !(exponent.is_finite() && exponent > 0.0) {
                return Err(Error::invalid(
                    "nucleus",
                    format!("the Gaussian exponent must be finite and > 0, got {exponent}"),
                ));
            }
        }
        Nucleus::Fermi { half_density_radius: c, diffuseness: a } => {
            // Lengths of Nucleus::fermi's range (1e4 fm = 0.19 bohr).
            let max = fermi::MAX_NUCLEAR_LENGTH_FM / BOHR_FM;
            if !(c.is_finite() && a.is_finite() && c > 0.0 && a > 0.0 && c <= max && a <= max) {
                return Err(Error::invalid(
                    "nucleus",
                    format!("the Fermi half-density radius and diffuseness must be finite in (0, {max:e}] bohr, got {c} and {a}"),
                ));
            }
        }
    }
    Ok(())
}

/// S, T and V of symmetry l for `exponents` (bohr⁻²), nuclear charge Z and `nucleus` (module
/// docs); an element that overflows is [`Error::NotFinite`] naming `overlap`, `kinetic` or
/// `nuclear` and the element.
pub fn one_electron(l: u32, exponents: &[f64], z: f64, nucleus: Nucleus) -> Result<OneElectron> {
    check_inputs(l, exponents, z, nucleus)?;
    let n = exponents.len();
    let lf = l as f64;
    let mut out = OneElectron { overlap: vec![0.0; n * n], kinetic: vec![0.0; n * n], nuclear: vec![0.0; n * n] };
    let ln_t = (lf + 1.5).ln();
    let attraction = NuclearAttraction::new(z, nucleus);
    // Every matrix is symmetric (Pair is symmetric in its exponents): the upper triangle, mirrored.
    for j in 0..n {
        for i in 0..=j {
            let pair = Pair::new(exponents[i], exponents[j]);
            let (ij, ji) = (i + n * j, j + n * i);
            out.overlap[ij] = ((lf + 1.5) * pair.ln_g).exp();
            out.kinetic[ij] = (ln_t + 0.5 * (pair.ln_a + pair.ln_b) + (lf + 2.5) * pair.ln_g).exp();
            out.nuclear[ij] = attraction.large(l, &pair);
            (out.overlap[ji], out.kinetic[ji], out.nuclear[ji]) = (out.overlap[ij], out.kinetic[ij], out.nuclear[ij]);
        }
    }
    finite_matrix("kinetic", &out.kinetic, n)?;
    finite_matrix("nuclear", &out.nuclear, n)?;
    Ok(out)
}
