//! Radial two-electron (Slater) integrals of normalised radial Gaussians, in closed form:
//!
//! ```text
//! R^k(ab, cd) = ∫∫ R_a(r1) R_b(r1) (r<^k / r>^(k+1)) R_c(r2) R_d(r2) r1² r2² dr1 dr2     (bohr⁻¹)
//! ```
//!
//! with R_a = N_a r^{l_a} e^{-a r²} ([`super::one_electron`]). With p = a + b, q = c + d,
//! m = l_a + l_b + 2, n = l_c + l_d + 2, splitting at r2 < r1 and r2 > r1,
//!
//! ```text
//! R^k = N_a N_b N_c N_d [F(m-k-1, n+k; p, q) + F(n-k-1, m+k; q, p)],
//! F(α, β; p, q) = ∫_0^∞ x^α e^{-p x²} ∫_0^x y^β e^{-q y²} dy dx
//!              = Γ((α+β+2)/2) / 4 · p^{-(α+1)/2} q^{-(β+1)/2} · B_x((β+1)/2, (α+1)/2),   x = q/(p+q),
//! ```
//!
//! (y = x t, then t = √(p/q) tan θ, which turns the t integral into ∫_0^Θ sin^β θ cos^α θ dθ =
//! ½ B_{sin²Θ}((β+1)/2, (α+1)/2), sin²Θ = q/(p+q)). Both terms are positive (no cancellation);
//! the incomplete beta function B_x is evaluated by its continued fraction (Lentz's method), on
//! the side of x where it converges fast, with 1 - x = p/(p+q) formed directly. α >= 0 needs
//! k <= l_a + l_b + 1 and k <= l_c + l_d + 1, which every multipole of an atomic two-electron
//! integral satisfies (k <= l_a + l_b by the triangle rule).

use super::radial::RadialFunction;
use crate::error::{Error, Result};

/// Γ(x) for x a positive integer or half-integer, exactly as a product (√π for half-integers).
fn gamma_half(x2: u32) -> f64 {
    // x = x2 / 2.
    if x2 % 2 == 0 {
        (1..x2 / 2).map(f64::from).product()
    } else {
        // Γ(j + 1/2) = (2j-1)!! / 2^j √π, j = (x2 - 1) / 2.
        let j = (x2 - 1) / 2;
        (1..=j).map(|i| (2 * i - 1) as f64 / 2.0).product::<f64>() * std::f64::consts::PI.sqrt()
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz), valid and fast for
/// x < (a + 1) / (a + b + 2).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    // One Lentz step with coefficient aa: updates c and d, returns the factor of h.
    let mut step = |aa: f64| {
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        d * c
    };
    for m in 1..=400 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let delta = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The (non-regularised) incomplete beta function B_x(a, b) = ∫_0^x t^{a-1} (1-t)^{b-1} dt for
/// a = a2/2, b = b2/2 (positive integers or half-integers), given x and y = 1 - x.
fn incomplete_beta(a2: u32, b2: u32, x: f64, y: f64) -> f64 {
    let (a, b) = (a2 as f64 / 2.0, b2 as f64 / 2.0);
    let complete = gamma_half(a2) * gamma_half(b2) / gamma_half(a2 + b2);
    if x <= 0.0 {
        return 0.0;
    }
    if y <= 0.0 {
        return complete;
    }
    // x^a y^b / a times the continued fraction, or its mirror.
    if x < (a + 1.0) / (a + b + 2.0) {
        (a * x.ln() + b * y.ln()).exp() / a * beta_continued_fraction(a, b, x)
    } else {
        complete - (a * x.ln() + b * y.ln()).exp() / b * beta_continued_fraction(b, a, y)
    }
}

/// F(α, β; p, q) of the module docs.
fn split_integral(alpha: u32, beta: u32, p: f64, q: f64) -> f64 {
    let (x, y) = (q / (p + q), p / (p + q));
    let prefactor = gamma_half(alpha + beta + 2) / 4.0;
    let powers = (-(alpha as f64 + 1.0) / 2.0 * p.ln() - (beta as f64 + 1.0) / 2.0 * q.ln()).exp();
    prefactor * powers * incomplete_beta(beta + 1, alpha + 1, x, y)
}

/// A radial Gaussian: angular momentum l and exponent ζ (bohr⁻²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    pub l: u32,
    pub exponent: f64,
}

/// One term c r^{m-2} e^{-p r²} of a radial density ρ(r), so that ρ r² = c r^m e^{-p r²}.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DensityTerm {
    pub coefficient: f64,
    pub m: u32,
    pub exponent: f64,
}

/// R^k between two densities given as terms (module docs, summed term by term): every term needs
/// m >= k + 1.
pub(crate) fn density_slater(k: u32, first: &[DensityTerm], second: &[DensityTerm]) -> f64 {
    let mut sum = 0.0;
    for a in first {
        for b in second {
            let (m, n, p, q) = (a.m, b.m, a.exponent, b.exponent);
            sum += a.coefficient
                * b.coefficient
                * (split_integral(m - k - 1, n + k, p, q) + split_integral(n - k - 1, m + k, q, p));
        }
    }
    sum
}

/// The terms of the density R_a R_b of two radial functions (at most four), held inline: this
/// runs for every Slater integral of the supermatrix and must not allocate.
pub(crate) struct PairDensity {
    terms: [DensityTerm; 4],
    len: usize,
}

impl PairDensity {
    pub(crate) fn of(a: &RadialFunction, b: &RadialFunction) -> Self {
        let empty = DensityTerm { coefficient: 0.0, m: 0, exponent: 0.0 };
        let mut density = PairDensity { terms: [empty; 4], len: 0 };
        for &(na, ca) in &a.terms {
            for &(nb, cb) in &b.terms {
                if ca != 0.0 && cb != 0.0 {
                    density.terms[density.len] =
                        DensityTerm { coefficient: ca * cb, m: na + nb + 2, exponent: a.exponent + b.exponent };
                    density.len += 1;
                }
            }
        }
        density
    }

    pub(crate) fn terms(&self) -> &[DensityTerm] {
        &self.terms[..self.len]
    }
}

/// R^k(ab, cd) of radial functions (a, b on electron 1): zero unless a, b share a component and
/// c, d share one (a Dirac-Fock density is P_a P_b + Q_a Q_b: large-small products carry no
/// charge). Needs k <= n_a + n_b + 1 and k <= n_c + n_d + 1 for every term's power.
pub(crate) fn radial_slater(
    k: u32,
    a: &RadialFunction,
    b: &RadialFunction,
    c: &RadialFunction,
    d: &RadialFunction,
) -> f64 {
    if a.component != b.component || c.component != d.component {
        return 0.0;
    }
    density_slater(k, PairDensity::of(a, b).terms(), PairDensity::of(c, d).terms())
}

/// R^k(ab, cd) of the module docs (bohr⁻¹): a, b on electron 1, c, d on electron 2.
pub fn slater(k: u32, a: Gaussian, b: Gaussian, c: Gaussian, d: Gaussian) -> Result<f64> {
    for (name, g) in [("a", a), ("b", b), ("c", c), ("d", d)] {
        if g.l > 20 || !(g.exponent.is_finite() && g.exponent > 0.0) {
            return Err(Error::invalid(name, format!("needs l in [0, 20] and a finite exponent > 0, got {g:?}")));
        }
    }
    if k > a.l + b.l + 1 || k > c.l + d.l + 1 {
        return Err(Error::invalid("k", format!("must be <= min(l_a + l_b, l_c + l_d) + 1, got {k}")));
    }
    let f = |g: Gaussian| RadialFunction::large(g.l, g.exponent);
    Ok(radial_slater(k, &f(a), &f(b), &f(c), &f(d)))
}
