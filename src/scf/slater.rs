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
//! ½ B_{sin²Θ}((β+1)/2, (α+1)/2), sin²Θ = q/(p+q)). Both terms are positive (no cancellation).
//! In every integral of a supermatrix the second argument of B_x, (m - k)/2 or (n - k)/2, is an
//! integer: m = n_a + n_b + 2 has the parity of l_a + l_b (of l̃_a + l̃_b for small components,
//! the same parity), which is that of k by the triangle rule, so B_x is a finite sum of positive
//! terms ([`beta_integer_b`]); for other k (allowed by [`slater`]) it is evaluated by its
//! continued fraction (Lentz's method), on the side of x where it converges fast. α >= 0 needs k <= l_a + l_b + 1 and
//! k <= l_c + l_d + 1, which every multipole of an atomic two-electron integral satisfies
//! (k <= l_a + l_b by the triangle rule).
//!
//! **Scaled form.** The normalisations and the powers of p and q each over- or underflow for
//! exponents far from 1 (N⁴ p^{-21} q^{-21.5} at l = 20 and ζ = 1e-8 is ∞ · 0) although R^k is
//! of the order of √ζ. With the coefficients of [`RadialFunction`] (c = ĉ ζ^{(n+3/2)/2}), a
//! density term is ρ r² = ĉ_a ĉ_b e^w p^{(m+1)/2} r^m e^{-p r²} with the dimensionless
//! w = (n_a + 3/2)/2 ln(a/p) + (n_b + 3/2)/2 ln(b/p) <= 0, and each term of R^k is
//!
//! ```text
//! ĉ_a ĉ_b ĉ_c ĉ_d exp[w_ab + w_cd + ln Γ((m+n+1)/2) - ln 4 + (k+1)/2 ln p - k/2 ln q + ln B_x((n+k+1)/2, (m-k)/2)]
//! (where B_x = x^A times a finite sum of size 1 (integer B) or x^A (1-x)^B / A times a
//! continued fraction of size 1: ln B_x is the logarithm of the front factor and the sum or the
//! fraction multiplies the exponential)
//! ```
//!
//! (and the same with (m, p) and (n, q) exchanged, x = p/(p+q)), where ln x = -ln(1 + p/q),
//! ln(1 - x) = -ln(1 + q/p) and ln(a/p) come from the logarithms of the exponents: no
//! intermediate leaves the double range for any exponents, and every representable R^k is formed.

use super::one_electron::Pair;
use super::radial::RadialFunction;
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::sync::LazyLock;

/// Γ(x) for x a positive integer or half-integer, exactly as a product (√π for half-integers).
fn gamma_half(x2: u32) -> f64 {
    // x = x2 / 2.
    if x2.is_multiple_of(2) {
        (1..x2 / 2).map(f64::from).product()
    } else {
        // Γ(j + 1/2) = (2j-1)!! / 2^j √π, j = (x2 - 1) / 2.
        let j = (x2 - 1) / 2;
        (1..=j).map(|i| (2 * i - 1) as f64 / 2.0).product::<f64>() * std::f64::consts::PI.sqrt()
    }
}

/// The half-integer arguments x2/2 the integrals meet: x2 <= m + n + 1 <= 2 (21 + 21 + 2) + 1 = 89
/// (powers n_t <= l + 1 <= 21 in a function).
const HALVES: usize = 90;

/// Γ(x2/2), ln Γ(x2/2) and ln(x2/2) for x2 < [`HALVES`] (index x2; x2 = 0 unused), computed once.
pub(crate) struct HalfTables {
    gamma: [f64; HALVES],
    pub ln_gamma: [f64; HALVES],
    ln: [f64; HALVES],
}

pub(crate) static HALF_TABLES: LazyLock<HalfTables> = LazyLock::new(|| {
    let mut t = HalfTables { gamma: [0.0; HALVES], ln_gamma: [0.0; HALVES], ln: [0.0; HALVES] };
    for x2 in 1..HALVES {
        t.gamma[x2] = gamma_half(x2 as u32);
        t.ln_gamma[x2] = t.gamma[x2].ln();
        t.ln[x2] = (x2 as f64 / 2.0).ln();
    }
    t
});

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

/// x = q/(p + q) and 1 - x of two densities' exponents, with their logarithms: with r the smaller
/// of p, q over the larger (e^{-|ln p - ln q|} where a sum of exponents overflowed), x = r/(1 + r)
/// or 1/(1 + r) and ln x = -ln(1 + p/q) (one log1p serves all four).
#[derive(Clone, Copy, Debug)]
struct Split {
    ln_x: f64,
    ln_y: f64,
    x: f64,
    y: f64,
}

impl Split {
    fn new(first: &PairDensity, second: &PairDensity) -> Self {
        let (p, q, d) = (first.exponent, second.exponent, first.ln_exponent - second.ln_exponent);
        let r = if p.is_finite() && q.is_finite() { p.min(q) / p.max(q) } else { (-d.abs()).exp() };
        let t = r.ln_1p();
        let (small, large) = (r / (1.0 + r), 1.0 / (1.0 + r));
        let (x, y) = if d >= 0.0 { (small, large) } else { (large, small) };
        Split { ln_x: -(d.max(0.0) + t), ln_y: -((-d).max(0.0) + t), x, y }
    }

    /// The split with p and q exchanged.
    fn mirrored(self) -> Self {
        Split { ln_x: self.ln_y, ln_y: self.ln_x, x: self.y, y: self.x }
    }
}

/// The (non-regularised) incomplete beta function B_x(a, b) = ∫_0^x t^{a-1} (1-t)^{b-1} dt for
/// a = a2/2, b = b2/2 (positive integers or half-integers) as (L, f), B = e^L f, so that the
/// caller folds L into its own exponent. For integer b (every integral of an atomic
/// supermatrix: module docs) the finite sum [`beta_integer_b`]; else L = ln(x^a y^b / a) and f
/// the continued fraction, or its mirror (L = 0, f = B, between a fair fraction of the complete
/// B(a, b) and all of it).
fn incomplete_beta(a2: u32, b2: u32, s: &Split) -> (f64, f64) {
    let t = &*HALF_TABLES;
    let (a, b) = (a2 as f64 / 2.0, b2 as f64 / 2.0);
    if b2.is_multiple_of(2) {
        return (a * s.ln_x, beta_integer_b(a, b2 / 2, s.y));
    }
    let ln_front = a * s.ln_x + b * s.ln_y;
    if s.x < (a + 1.0) / (a + b + 2.0) {
        (ln_front - t.ln[a2 as usize], beta_continued_fraction(a, b, s.x))
    } else {
        let complete = t.gamma[a2 as usize] * t.gamma[b2 as usize] / t.gamma[(a2 + b2) as usize];
        (0.0, complete - ln_front.exp() / b * beta_continued_fraction(b, a, s.y))
    }
}

/// B_x(a, n) / x^a for a positive integer n, y = 1 - x: integrating (1-t)^{n-1} by parts n - 1
/// times,
///
/// ```text
/// B_x(a, n) = x^a Σ_{j=0}^{n-1} c_j y^j,   c_{n-1} = 1/(a + n - 1),   c_j = c_{j+1} (j + 1)/(a + j),
/// ```
///
/// (c_j = (n-1)! / (j! (a+j)(a+j+1)…(a+n-1))): n positive terms, summed by Horner's rule, so the
/// value is good to a few ulps for every x, where the continued fraction needs tens of steps.
fn beta_integer_b(a: f64, n: u32, y: f64) -> f64 {
    let mut c = 1.0 / (a + (n - 1) as f64);
    let mut sum = c;
    for j in (0..n - 1).rev() {
        c *= (j + 1) as f64 / (a + j as f64);
        sum = c + y * sum;
    }
    sum
}

/// e^w p^{(m+1)/2} q^{(n+1)/2} F(m-k-1, n+k; p, q) (module docs) from ln p, ln q and their split
/// (x = q/(p + q)).
fn split_integral(m: u32, n: u32, k: u32, w: f64, (ln_p, ln_q): (f64, f64), split: &Split) -> f64 {
    let (ln_beta, beta) = incomplete_beta(n + k + 1, m - k, split);
    let ln = w + HALF_TABLES.ln_gamma[(m + n + 1) as usize] - 2.0 * std::f64::consts::LN_2
        + 0.5 * (k + 1) as f64 * ln_p
        - 0.5 * k as f64 * ln_q
        + ln_beta;
    ln.exp() * beta
}

/// A radial Gaussian: angular momentum l and exponent ζ (bohr⁻²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    pub l: u32,
    pub exponent: f64,
}

/// One term of a radial density ρ(r): ρ r² = ĉ e^w p^{(m+1)/2} r^m e^{-p r²} (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DensityTerm {
    /// ĉ (dimensionless).
    pub coefficient: f64,
    /// w (dimensionless, <= 0).
    pub ln_weight: f64,
    pub m: u32,
}

/// R^k between two densities (module docs, summed term by term): every term needs m >= k + 1.
pub(crate) fn density_slater(k: u32, first: &PairDensity, second: &PairDensity) -> f64 {
    split_slater(k, first, second, &Split::new(first, second))
}

/// [`density_slater`] with the split of the two densities given.
fn split_slater(k: u32, first: &PairDensity, second: &PairDensity, split: &Split) -> f64 {
    let (ln_p, ln_q) = (first.ln_exponent, second.ln_exponent);
    let mut sum = 0.0;
    for a in first.terms() {
        for b in second.terms() {
            let (m, n) = (a.m, b.m);
            let w = a.ln_weight + b.ln_weight;
            sum += a.coefficient
                * b.coefficient
                * (split_integral(m, n, k, w, (ln_p, ln_q), split)
                    + split_integral(n, m, k, w, (ln_q, ln_p), &split.mirrored()));
        }
    }
    sum
}

/// Two charge densities ([`charge_density`]; none when either is) and their split, formed once
/// for the several multipoles k of an exchange term.
pub(crate) struct ChargePair<'a> {
    densities: Option<(&'a PairDensity, &'a PairDensity, Split)>,
}

impl<'a> ChargePair<'a> {
    pub(crate) fn new(ab: &'a Option<PairDensity>, cd: &'a Option<PairDensity>) -> Self {
        ChargePair { densities: ab.as_ref().zip(cd.as_ref()).map(|(ab, cd)| (ab, cd, Split::new(ab, cd))) }
    }

    /// R^k between the two densities (0 when either is none).
    pub(crate) fn slater(&self, k: u32) -> f64 {
        self.densities.as_ref().map_or(0.0, |(ab, cd, split)| split_slater(k, ab, cd, split))
    }
}

/// The density R_a R_b of two radial functions: its exponent p = ζ_a + ζ_b (∞ when the sum
/// overflows) and ln p, and its terms (at most three, one per power), held inline: this runs for every Slater
/// integral of the supermatrix and must not allocate.
#[derive(Clone, Debug)]
pub(crate) struct PairDensity {
    exponent: f64,
    ln_exponent: f64,
    terms: [DensityTerm; 3],
    len: usize,
}

impl PairDensity {
    pub(crate) fn of(a: &RadialFunction, b: &RadialFunction) -> Self {
        let empty = DensityTerm { coefficient: 0.0, ln_weight: 0.0, m: 0 };
        let pair = Pair::with_logs((a.exponent, a.ln_exponent), (b.exponent, b.ln_exponent));
        let mut density =
            PairDensity { exponent: a.exponent + b.exponent, ln_exponent: pair.ln_p, terms: [empty; 3], len: 0 };
        let (ln_a_share, ln_b_share) = pair.ln_shares();
        for &(na, ca) in &a.terms {
            for &(nb, cb) in &b.terms {
                if ca != 0.0 && cb != 0.0 {
                    let w = 0.5 * (na as f64 + 1.5) * ln_a_share + 0.5 * (nb as f64 + 1.5) * ln_b_share;
                    density.add(ca * cb, w, na + nb + 2);
                }
            }
        }
        density
    }

    /// Adds the term ĉ e^w r^m; one of the same power m already there absorbs it: ĉ_1 e^{w_1} +
    /// ĉ_2 e^{w_2} = (ĉ_1 e^{w_1 - w} + ĉ_2 e^{w_2 - w}) e^w with w = max(w_1, w_2), exact and
    /// in range (the two cross terms of two-term small components share m and their sign, so a
    /// small-small density has three terms, not four, and a set of two of them 9 term pairs, not 16).
    fn add(&mut self, coefficient: f64, ln_weight: f64, m: u32) {
        if let Some(t) = self.terms[..self.len].iter_mut().find(|t| t.m == m) {
            let w = t.ln_weight.max(ln_weight);
            t.coefficient = t.coefficient * (t.ln_weight - w).exp() + coefficient * (ln_weight - w).exp();
            t.ln_weight = w;
        } else {
            self.terms[self.len] = DensityTerm { coefficient, ln_weight, m };
            self.len += 1;
        }
    }

    pub(crate) fn terms(&self) -> &[DensityTerm] {
        &self.terms[..self.len]
    }
}

/// The largest basis (functions over all symmetries) whose pair densities are tabulated: F²
/// entries of about 100 bytes, 100 MiB at this size; a larger one forms them set by set.
const MAX_TABULATED_FUNCTIONS: usize = 1024;

/// The charge densities of the ordered pairs (a, b) of a basis's functions ([`charge_density`]),
/// tabulated once per supermatrix: a set reads six, and forming them (logarithms, and
/// exponentials where terms merge) cost a third of the CPU supermatrix when done per set.
pub(crate) struct PairDensities<'a> {
    functions: &'a [RadialFunction],
    table: Option<Vec<Option<PairDensity>>>,
}

impl<'a> PairDensities<'a> {
    pub(crate) fn new(functions: &'a [RadialFunction]) -> Result<Self> {
        let n = functions.len();
        let table = if n <= MAX_TABULATED_FUNCTIONS {
            let pairs = (0..n * n).map(|ab| charge_density(&functions[ab / n], &functions[ab % n]));
            Some(crate::memory::collect("the pair densities", pairs)?)
        } else {
            None
        };
        Ok(PairDensities { functions, table })
    }

    /// The charge density of functions a and b.
    pub(crate) fn get(&self, a: usize, b: usize) -> Cow<'_, Option<PairDensity>> {
        match &self.table {
            Some(t) => Cow::Borrowed(&t[a * self.functions.len() + b]),
            None => Cow::Owned(charge_density(&self.functions[a], &self.functions[b])),
        }
    }
}

/// The density R_a R_b that enters a two-electron integral: none (no charge) unless a and b share
/// a component (a Dirac-Fock density is P_a P_b + Q_a Q_b: large-small products carry none).
pub(crate) fn charge_density(a: &RadialFunction, b: &RadialFunction) -> Option<PairDensity> {
    (a.component == b.component).then(|| PairDensity::of(a, b))
}

/// R^k between two charge densities ([`charge_density`]; 0 when either is none). Needs k <= n_a +
/// n_b + 1 and k <= n_c + n_d + 1 for every term's power.
pub(crate) fn densities_slater(k: u32, ab: &Option<PairDensity>, cd: &Option<PairDensity>) -> f64 {
    match (ab, cd) {
        (Some(ab), Some(cd)) => density_slater(k, ab, cd),
        _ => 0.0,
    }
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
    Ok(densities_slater(k, &charge_density(&f(a), &f(b)), &charge_density(&f(c), &f(d))))
}
