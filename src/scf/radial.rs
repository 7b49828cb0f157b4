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
//! Every coefficient is N times a power of ζ, and N ∝ ζ^{(l+3/2)/2}: a term c r^n e^{-ζ r²} of
//! either component has c = ĉ ζ^{(n+3/2)/2} with ĉ depending on l and κ only. [`RadialFunction`]
//! keeps ĉ, so that the integrals can take every power of ζ in logarithmic form
//! ([`super::slater`]) and no coefficient over- or underflows.
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
//!
//! **Scaled forms** (as in [`super::one_electron`], g = 2√(ab)/(a + b), a the exponent of p and b
//! of q): with T_pq = (l + 3/2) √(ab) g^{l+5/2},
//!
//! ```text
//! S^SS_pq = g^{l+5/2},     Π_pq = c √((2l+3) a) g^{l+5/2},
//! V^SS_pq = V_{l+1}(a, b)                                                       (κ < 0: σ = -R_{l+1})
//! V^SS_pq = -Z B_l (ab)^{1/4} g^l √(1-u) [(2l+1)(1-u) E_l(u) + l(l+1) g² Σ_{m=0}^{l+1} C(2m,m) 4^{-m} u^m]   (κ > 0)
//! ```
//!
//! with V_{l+1} the attraction of [`super::one_electron`] for l + 1, B_l = 2^{l+5/2} (l-1)! /
//! ((2l+3)!! √π), u = p/(p + ξ) (0 for a point nucleus) and E_l(u) = Σ_{m<l} C(2m,m) 4^{-m} u^m
//! Σ_{j<l-m} u^j: the three primitive terms of σ_p σ_q, of which the cross term is negative,
//! regrouped so that every term is positive ((1-u) E_l collects the cross term with part of the
//! first, exactly). Each is checked against quadrature of the primitive functions.

use super::basis::odd_double_factorial;
use super::one_electron::fermi::Term;
use super::one_electron::{
    finite_matrix, ln_factorial, ln_norm_coefficient, screening, screening_sum, NuclearAttraction, Nucleus, Pair,
};
use crate::error::{Error, Result};

/// The largest speed of light accepted (au): beyond it the -2c² small-small block's rounding
/// (about 1e-16 x 2c² hartree in every Dirac orbital energy) exceeds the relativistic effect it
/// is meant to show (about Z⁴/c²): He at c = 1e5 already has its shift E_DF - E_HF 0.5% off the
/// 1/c² law, and at 1e6 its SCF no longer meets density thresholds of 1e-6. For the
/// non-relativistic limit use Hartree-Fock.
pub const MAX_SPEED_OF_LIGHT: f64 = 1e5;

/// The component a basis function belongs to (non-relativistic functions are `Large`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    Large,
    Small,
}

/// R(r) = Σ_t ĉ_t ζ^{(n_t+3/2)/2} r^{n_t} e^{-ζ r²} (module docs); a second term with ĉ = 0 is
/// unused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadialFunction {
    /// ζ (bohr⁻²).
    pub exponent: f64,
    /// ln ζ, which the integrals use.
    pub ln_exponent: f64,
    /// (n_t, ĉ_t), ĉ_t dimensionless: the coefficient of r^{n_t} e^{-ζ r²} is ĉ_t ζ^{(n_t+3/2)/2}
    /// (bohr^{-n_t - 3/2}).
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

/// N / ζ^{(l+3/2)/2} of the normalised Gaussian N r^l e^{-ζ r²}: √(2^{2l+7/2} / ((2l+1)!! √π)).
fn norm_coefficient(l: u32) -> f64 {
    ln_norm_coefficient(l).exp()
}

impl RadialFunction {
    /// The normalised Gaussian N r^l e^{-ζ r²} (non-relativistic, or a large component).
    pub fn large(l: u32, exponent: f64) -> Self {
        let terms = [(l, norm_coefficient(l)), (l + 2, 0.0)];
        RadialFunction { exponent, ln_exponent: exponent.ln(), terms, component: Component::Large }
    }

    /// The normalised kinetically balanced small component of the large function of symmetry κ
    /// and exponent ζ (module docs): N/√((2l+3)ζ) times -2ζ r^{l+1} (κ < 0), or times
    /// (2l+1) r^{l-1} - 2ζ r^{l+1} (κ > 0).
    pub fn small(kappa: i32, exponent: f64) -> Self {
        let l = large_l(kappa);
        let n = norm_coefficient(l) / ((2 * l + 3) as f64).sqrt();
        let terms = if kappa < 0 {
            [(l + 1, -2.0 * n), (l + 3, 0.0)]
        } else {
            [(l - 1, n * (2 * l + 1) as f64), (l + 1, -2.0 * n)]
        };
        RadialFunction { exponent, ln_exponent: exponent.ln(), terms, component: Component::Small }
    }

    /// The terms C r^n e^{-p r²} of the product R_self(r) R_other(r) r² (ĉ = 0 terms left out),
    /// with C in logarithmic form: n = n_s + n_o + 2, C = ĉ_s ĉ_o ζ_s^{(n_s+3/2)/2} ζ_o^{(n_o+3/2)/2}.
    pub(crate) fn product_terms(&self, other: &RadialFunction) -> Vec<Term> {
        let mut out = Vec::with_capacity(4);
        for &(n_s, c_s) in self.terms.iter().filter(|t| t.1 != 0.0) {
            for &(n_o, c_o) in other.terms.iter().filter(|t| t.1 != 0.0) {
                out.push(Term {
                    n: n_s + n_o + 2,
                    ln_abs: (c_s * c_o).abs().ln()
                        + 0.5 * (n_s as f64 + 1.5) * self.ln_exponent
                        + 0.5 * (n_o as f64 + 1.5) * other.ln_exponent,
                    negative: c_s * c_o < 0.0,
                });
            }
        }
        out
    }
}

/// V^SS_pq of symmetry κ > 0 (module docs; a Fermi nucleus: [`super::one_electron::fermi`] on
/// the small functions' product, from the point nucleus's closed form).
fn small_attraction_positive_kappa(kappa: i32, (a, b): (f64, f64), pair: &Pair, attraction: &NuclearAttraction) -> f64 {
    let (l, nucleus) = (large_l(kappa), attraction.nucleus());
    let (ln_screen, u) = screening(pair.ln_p, nucleus);
    // B_l = 2^{l+5/2} (l-1)! / ((2l+3)!! √π).
    let ln_b = (l as f64 + 2.5) * std::f64::consts::LN_2 + ln_factorial(l - 1)
        - odd_double_factorial(l + 2).ln()
        - 0.5 * std::f64::consts::PI.ln();
    let ln_common = attraction.charge().ln() + ln_b + pair.ln_attraction(l as f64) + ln_screen;
    // E_l(u) = Σ_{m<l} C(2m,m) 4^{-m} u^m Σ_{j<l-m} u^j.
    let (mut e, mut c_m) = (0.0, 1.0);
    for m in 0..l {
        if m > 0 {
            c_m *= u * (2 * m - 1) as f64 / (2 * m) as f64;
        }
        e += c_m * (0..l - m).fold((0.0, 1.0), |(s, p), _| (s + p, p * u)).0;
    }
    let lf = l as f64;
    let direct = (2.0 * lf + 1.0) * e * (ln_common + 2.0 * ln_screen).exp();
    let across = lf * (lf + 1.0) * screening_sum(l + 1, u) * (ln_common + 2.0 * pair.ln_g).exp();
    let closed = -(direct + across);
    let terms = RadialFunction::small(kappa, a).product_terms(&RadialFunction::small(kappa, b));
    attraction.finite_nucleus(closed, &terms, pair)
}

/// The Dirac one-electron matrices of symmetry κ, 2n x 2n column-major over (large; small)
/// (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct DiracOneElectron {
    /// diag(S^LL, S^SS) (dimensionless).
    pub overlap: Vec<f64>,
    /// [[0, Π], [Πᵀ, -2c² S^SS]]: the free-particle Dirac operator less the rest energy,
    /// c α·p + (β - 1)c² (hartree); not a kinetic-energy matrix (its small-small block is -2c² S^SS).
    pub free_hamiltonian: Vec<f64>,
    /// diag(V^LL, V^SS) (hartree).
    pub nuclear: Vec<f64>,
}

/// The Dirac one-electron matrices of symmetry κ for `exponents` (bohr⁻²), nuclear charge Z,
/// `nucleus` and speed of light c (module docs): c in [1, [`MAX_SPEED_OF_LIGHT`]], and Z < c for a
/// point nucleus ([`check_dirac_nucleus`]). An element that overflows (V with a huge Z and a
/// Gaussian nucleus) is [`Error::NotFinite`] naming `nuclear` and the element.
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
    check_dirac_nucleus(z, nucleus, speed_of_light)?;
    let n = exponents.len();
    let m = 2 * n;
    let mut out =
        DiracOneElectron { overlap: vec![0.0; m * m], free_hamiltonian: vec![0.0; m * m], nuclear: vec![0.0; m * m] };
    let c = speed_of_light;
    let lf = l as f64;
    let ln_pi = c.ln() + 0.5 * (2.0 * lf + 3.0).ln();
    let ln_rest = std::f64::consts::LN_2 + 2.0 * c.ln();
    let attraction = NuclearAttraction::new(z, nucleus);
    for j in 0..n {
        for i in 0..n {
            let pair = Pair::new(exponents[i], exponents[j]);
            let (ll, ss) = (i + m * j, (n + i) + m * (n + j));
            let ln_small = (lf + 2.5) * pair.ln_g;
            out.overlap[ll] = nr.overlap[i + n * j];
            out.overlap[ss] = ln_small.exp();
            out.nuclear[ll] = nr.nuclear[i + n * j];
            // V^SS is symmetric: the upper triangle, mirrored.
            if i <= j {
                out.nuclear[ss] = if kappa < 0 {
                    attraction.large(l + 1, &pair)
                } else {
                    small_attraction_positive_kappa(kappa, (exponents[i], exponents[j]), &pair, &attraction)
                };
                out.nuclear[(n + j) + m * (n + i)] = out.nuclear[ss];
            }
            // Π_ij (large i, small j) and its transpose.
            out.free_hamiltonian[i + m * (n + j)] = (ln_pi + 0.5 * pair.ln_a + ln_small).exp();
            out.free_hamiltonian[(n + j) + m * i] = out.free_hamiltonian[i + m * (n + j)];
            out.free_hamiltonian[ss] = -(ln_rest + ln_small).exp();
        }
    }
    finite_matrix("nuclear", &out.nuclear, m)?;
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

/// c must lie in [1, [`MAX_SPEED_OF_LIGHT`]] au (the physical value is 137.036; larger values
/// approach the non-relativistic limit).
pub fn check_speed_of_light(c: f64) -> Result<()> {
    if !(1.0..=MAX_SPEED_OF_LIGHT).contains(&c) {
        return Err(Error::invalid("speed_of_light", format!("must be in [1, {MAX_SPEED_OF_LIGHT:e}] au, got {c}")));
    }
    Ok(())
}

/// The rule of the nuclear charge in Dirac-Fock: a point nucleus needs Z < c. Its 1s1/2 (and
/// 2p1/2) radial functions behave as r^{γ-1}, γ = √(κ² - (Z/c)²), and the Dirac-Coulomb
/// Hamiltonian has no distinguished self-adjoint form beyond Z = c (the ground-state energy
/// c² (γ - 1) reaches -c² there, and γ turns imaginary). A Gaussian nucleus bounds the potential
/// at the origin: the Hamiltonian is well defined for any Z, and 1s1/2 stays above the
/// negative-energy continuum (-2c²) up to the critical charge Z_cr ≈ 170 for c = 137.036 (the
/// exact value depends on the nuclear radius; Pieper & Greiner, Z. Phys. 218, 327 (1969);
/// Zeldovich & Popov, Sov. Phys. Usp. 14, 673 (1972)); the SCF refuses a charge whose lowest
/// electronic orbital lies below -2c² ([`super::solver`]).
pub fn check_dirac_nucleus(z: f64, nucleus: Nucleus, speed_of_light: f64) -> Result<()> {
    if nucleus == Nucleus::Point && z >= speed_of_light {
        return Err(Error::invalid(
            "nuclear_charge",
            format!(
                "must be < the speed of light c = {speed_of_light} au for a point nucleus (the Dirac-Coulomb ground state needs Z < c), got {z}; a Gaussian nucleus allows Z up to the critical charge (about 170 for c = 137.036)"
            ),
        ));
    }
    Ok(())
}
