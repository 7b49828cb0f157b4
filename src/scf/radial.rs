//! Radial basis functions as sums of Gaussian primitives, for the two-electron supermatrix and
//! the Dirac one-electron blocks (hartree, bohr):
//!
//! ```text
//! R(r) = Σ_t c_t r^{n_t} e^{-ζ r²}       (one or two terms, one exponent ζ)
//! ```
//!
//! * non-relativistic functions and large components: R^L = N r^l e^{-ζ r²}, N of
//!   [`super::one_electron`];
//! * small components by restricted kinetic balance: with P = r R^L and Q = r R^S, Q ∝ (d/dr + κ/r) P,
//!   normalised (∫ (d/dr + κ/r)P_a (d/dr + κ/r)P_a dr = 2 T_aa = (2l + 3) ζ):
//!
//! ```text
//! κ < 0 (l = -κ - 1, l_S = l + 1):   R^S = -2ζ N / √((2l+3)ζ) · r^{l+1} e^{-ζ r²}
//! κ > 0 (l = κ,      l_S = l - 1):   R^S = N / √((2l+3)ζ) · [(2l + 1) r^{l-1} - 2ζ r^{l+1}] e^{-ζ r²}
//! ```
//!
//! Normalised small functions keep the small-component metric well conditioned for any c and make
//! the small-component density elements O(1/c) (small-large) and O(1/c²) (small-small), the
//! scales of DFRATOM's convergence thresholds.
//!
//! **Dirac one-electron block** of symmetry κ (energies relative to the rest energy c², radial
//! equations V P + c(-d/dr + κ/r) Q = E P, c(d/dr + κ/r) P + (V - 2c²) Q = E Q, as in Johnson,
//! *Atomic Structure Theory*, eq. 2.175 with E excluding mc²), in the basis (large; small):
//!
//! ```text
//! h = [ V^LL   Π             ]      S = [ S^LL  0    ]      Π_pq = c √2 T_pq / √T_qq
//!     [ Πᵀ     V^SS - 2c² S^SS ]          [ 0     S^SS ]      S^SS_pq = T_pq / √(T_pp T_qq)
//! ```
//!
//! with T the non-relativistic kinetic matrix of l: c<g_p|(-d/dr + κ/r)|σ_q> = c<(d/dr + κ/r)g_p|σ_q>
//! by parts, and ∫ [(d/dr + κ/r)P_p][(d/dr + κ/r)P_q] dr = 2T_pq (κ(κ+1) = l(l+1)). Both identities
//! are tested against the primitive integrals; eliminating the small block as c → ∞ gives
//! h^LL → V + Π (2c² S^SS)^{-1} Πᵀ = V + T: the Schrödinger matrix.

use super::basis::ln_norm;
use super::one_electron::{erf_moment, Nucleus};
use crate::error::{Error, Result};

/// The component a basis function belongs to (non-relativistic functions are `Large`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    Large,
    Small,
}

/// R(r) = Σ_t c_t r^{n_t} e^{-ζ r²} (module docs); a second term with c = 0 is unused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadialFunction {
    /// ζ (bohr⁻²).
    pub exponent: f64,
    /// (n_t, c_t) (c_t in bohr^{-n_t - 3/2}).
    pub terms: [(u32, f64); 2],
    pub component: Component,
}

/// The angular momentum l of the large component of symmetry κ (κ ≠ 0): l = κ for κ > 0,
/// -κ - 1 for κ < 0.
pub fn large_l(kappa: i32) -> u32 {
    if kappa > 0 {
        kappa as u32
    } else {
        (-kappa - 1) as u32
    }
}

impl RadialFunction {
    /// The normalised Gaussian N r^l e^{-ζ r²} (non-relativistic, or a large component).
    pub fn large(l: u32, exponent: f64) -> Self {
        let n = ln_norm(l, exponent).exp();
        RadialFunction { exponent, terms: [(l, n), (l + 2, 0.0)], component: Component::Large }
    }

    /// The normalised kinetically balanced small component of the large function of symmetry κ
    /// and exponent ζ (module docs).
    pub fn small(kappa: i32, exponent: f64) -> Self {
        let l = large_l(kappa);
        let n = ln_norm(l, exponent).exp() / ((2 * l + 3) as f64 * exponent).sqrt();
        let terms = if kappa < 0 {
            [(l + 1, -2.0 * n * exponent), (l + 3, 0.0)]
        } else {
            [(l - 1, n * (2 * l + 1) as f64), (l + 1, -2.0 * n * exponent)]
        };
        RadialFunction { exponent, terms, component: Component::Small }
    }
}

/// ∫_0^∞ r^{2j+1} e^{-p r²} dr = j! / (2 p^{j+1}) (2j+1 = the odd power).
fn odd_moment(j: u32, p: f64) -> f64 {
    (1..=j).map(f64::from).product::<f64>() / (2.0 * p.powi(j as i32 + 1))
}

/// ∫_0^∞ r^{2j} e^{-p r²} dr = (2j-1)!! √π / (2^{j+1} p^{j+1/2}).
fn even_moment(j: u32, p: f64) -> f64 {
    super::basis::odd_double_factorial(j) * std::f64::consts::PI.sqrt()
        / (2f64.powi(j as i32 + 1) * p.powf(j as f64 + 0.5))
}

/// Σ_{s,t} c_s c_t f(n_s + n_t, ζ_a + ζ_b) over the terms of a and b.
fn term_sum(a: &RadialFunction, b: &RadialFunction, f: impl Fn(u32, f64) -> f64) -> f64 {
    let p = a.exponent + b.exponent;
    let mut sum = 0.0;
    for &(na, ca) in &a.terms {
        for &(nb, cb) in &b.terms {
            if ca != 0.0 && cb != 0.0 {
                sum += ca * cb * f(na + nb, p);
            }
        }
    }
    sum
}

/// <a|b> = ∫ R_a R_b r² dr. Powers n_a + n_b are even within one symmetry.
pub fn overlap(a: &RadialFunction, b: &RadialFunction) -> f64 {
    term_sum(a, b, |n, p| even_moment(n / 2 + 1, p))
}

/// <a|V|b> of the nuclear potential V = -Z/r or -Z erf(√ξ r)/r (hartree).
pub fn nuclear(a: &RadialFunction, b: &RadialFunction, z: f64, nucleus: Nucleus) -> f64 {
    -z * term_sum(a, b, |n, p| match nucleus {
        Nucleus::Point => odd_moment(n / 2, p),
        Nucleus::Gaussian { exponent } => erf_moment(n / 2, p, exponent.sqrt()),
    })
}

/// The Dirac one-electron matrices of symmetry κ, 2n x 2n column-major over (large; small)
/// (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct DiracOneElectron {
    /// diag(S^LL, S^SS) (dimensionless).
    pub overlap: Vec<f64>,
    /// [[0, Π], [Πᵀ, -2c² S^SS]]: the kinetic and rest-energy terms c α·p + (β - 1)c² (hartree).
    pub kinetic: Vec<f64>,
    /// diag(V^LL, V^SS) (hartree).
    pub nuclear: Vec<f64>,
}

/// The Dirac one-electron matrices of symmetry κ for `exponents` (bohr⁻²), nuclear charge Z,
/// `nucleus` and speed of light c (module docs).
pub fn dirac_one_electron(
    kappa: i32,
    exponents: &[f64],
    z: f64,
    nucleus: Nucleus,
    speed_of_light: f64,
) -> Result<DiracOneElectron> {
    check_kappa(kappa)?;
    check_speed_of_light(speed_of_light)?;
    let l = large_l(kappa);
    let nr = super::one_electron::one_electron(l, exponents, z, nucleus)?;
    let n = exponents.len();
    let m = 2 * n;
    let small: Vec<RadialFunction> = exponents.iter().map(|&e| RadialFunction::small(kappa, e)).collect();
    let mut out = DiracOneElectron { overlap: vec![0.0; m * m], kinetic: vec![0.0; m * m], nuclear: vec![0.0; m * m] };
    let c = speed_of_light;
    let t = |i: usize, j: usize| nr.kinetic[i + n * j];
    for j in 0..n {
        for i in 0..n {
            let (ll, ss) = (i + m * j, (n + i) + m * (n + j));
            let s_ss = overlap(&small[i], &small[j]);
            out.overlap[ll] = nr.overlap[i + n * j];
            out.overlap[ss] = s_ss;
            out.nuclear[ll] = nr.nuclear[i + n * j];
            out.nuclear[ss] = nuclear(&small[i], &small[j], z, nucleus);
            // Π_ij (large i, small j) and its transpose.
            out.kinetic[i + m * (n + j)] = c * std::f64::consts::SQRT_2 * t(i, j) / t(j, j).sqrt();
            out.kinetic[(n + j) + m * i] = out.kinetic[i + m * (n + j)];
            out.kinetic[ss] = -2.0 * c * c * s_ss;
        }
    }
    Ok(out)
}

/// κ must be a nonzero integer with l = l(κ) <= 20.
pub fn check_kappa(kappa: i32) -> Result<()> {
    if kappa == 0 || !(-21..=20).contains(&kappa) {
        return Err(Error::invalid(
            "kappa",
            format!("must be nonzero with l(κ) in [0, 20] (κ in [-21, 20]), got {kappa}"),
        ));
    }
    Ok(())
}

/// c must be finite and at least 1 au (the physical value is 137.036; larger values approach the
/// non-relativistic limit).
pub fn check_speed_of_light(c: f64) -> Result<()> {
    if !(c.is_finite() && c >= 1.0) {
        return Err(Error::invalid("speed_of_light", format!("must be finite and >= 1 au, got {c}")));
    }
    Ok(())
}
