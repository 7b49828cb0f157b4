//! The Fermi nuclear charge distribution (the default of GRASP and DBSR_HF) and its attraction
//! integrals in radial Gaussians (hartree, bohr):
//!
//! ```text
//! ρ(r) = ρ_0 / (1 + e^{(r - c)/a}),     4π ∫ ρ r² dr = Z,     a = t / (4 ln 3)
//! ```
//!
//! with c the half-density radius and t the 90 %-10 % skin thickness (GRASP's default 2.30 fm).
//! **Closed forms.** With the complete Fermi-Dirac integrals F_s(x) = -Li_s(-e^x) (F_s' = F_{s-1},
//! F_0 the logistic function) and G_k(r) = a^k F_k((c - r)/a), repeated integration by parts
//! gives ∫_r^∞ ρ r'^n dr' = ρ_0 Σ_k n!/(n-k)! r^{n-k} G_{k+1}(r), hence
//!
//! ```text
//! V(r)      = -Z [(G_3(0) - G_3(r))/r - G_2(r)/2] / G_3(0)
//! V(r) + Z/r = Z [G_3(r)/r + G_2(r)/2] / G_3(0)          (>= 0, ~ e^{-(r-c)/a} beyond c)
//! <r²>      = 12 a² F_5(c/a) / F_3(c/a)
//! ```
//!
//! For x > 0 the inversion F_s(x) = 2 Σ_{k<=s/2} η(2k) x^{s-2k}/(s-2k)! + (-1)^{s+1} F_s(-x)
//! (η(0) = 1/2, η(2) = π²/12, η(4) = 7π⁴/720) leaves only exponentially small F_s(-x), which
//! are summed as alternating series (Cohen, Rodriguez Villegas and Zagier's acceleration, 24
//! terms: relative error below 5.8^{-24} ≈ 4e-19 for any x <= 0). Inside the nucleus (r < c,
//! u = (c - r)/a, w = c/a) the potential becomes, without cancellation as r → 0,
//!
//! ```text
//! V(r) = -Z [c²/2 - r²/6 + π²a²/6 + a² (F_2(-u) + 2 T)] / (2 G_3(0)),
//! T = (F_3(-w) - F_3(-u)) / (r/a) = -Σ_k F_{2-k}(-w) (r/a)^k / (k+1)!
//! ```
//!
//! (the series for r < a/20, the difference beyond), and <r²> = (3/5) c² + (7/5) π² a² up to the
//! exponentially small F_5(-w), F_3(-w), which are kept (as GRASP's `estrms` keeps them, after
//! Parpia and Mohanty, Phys. Rev. A 46, 3735 (1992)). c follows from r_rms by bisection.
//!
//! **Matrix elements.** A product of two basis functions is φ(r) = Σ_t C_t r^{n_t} e^{-p r²}
//! (r² dr included, n_t even, p = a + b). Beyond R = c + 40a the potential is -Z/r to
//! e^{-40} of itself. Two routes, each free of cancellation in its range, x = p R²:
//!
//! * x <= 1 (functions wider than the nucleus): the point-nucleus closed form plus
//!   Z ∫_0^R φ (V + Z/r)/Z dr, with e^{-p r²} expanded in powers of p r² (at most 1) against the
//!   nucleus's moments m_k = R^{-k} ∫_0^R r^k (V + Z/r)/Z dr (computed once per nucleus by graded
//!   Gauss-Legendre quadrature): 30 terms, below 1e-30 of the correction;
//! * x > 1 (tighter functions): -Z [∫_0^R φ (-V/Z) dr + Σ_t C_t Γ(n_t/2, x) / (2 p^{n_t/2})], the
//!   first by graded Gauss-Legendre quadrature (20 points a panel, panels graded about r = 0, the
//!   Gaussian's peak and c: [`crate::math::panels`]), the tail in closed form (Γ(m, x) =
//!   (m-1)! e^{-x} Σ_{k<m} x^k/k!).
//!
//! Every coefficient and power is carried in logarithms, as in [`super`], so no intermediate
//! leaves the double range for any exponents.

use crate::math::gauss_legendre::GaussLegendre;
use crate::math::panels::{graded_breakpoints, integrate_graded, Feature, MAX_BREAKPOINTS};
use once_cell::sync::Lazy;
use std::f64::consts::PI;

/// GRASP's default skin thickness t (fm): the 90 % to 10 % fall of the density.
pub const GRASP_SKIN_THICKNESS_FM: f64 = 2.30;

/// The largest nuclear length accepted (fm), r_rms or t: beyond any nucleus by four orders.
pub const MAX_NUCLEAR_LENGTH_FM: f64 = 1e4;

/// R = c + CUT_WIDTHS a: beyond it V = -Z/r to e^{-40} of itself.
const CUT_WIDTHS: f64 = 40.0;

/// Terms of the accelerated alternating series.
const CVZ_TERMS: usize = 24;

/// Terms of T's series in r/a (used for r/a < [`SERIES_LIMIT`]).
const T_TERMS: usize = 9;
const SERIES_LIMIT: f64 = 0.05;

/// Terms of the moment expansion (x <= 1): the remainder is below 1/30! of the correction.
const MOMENT_TERMS: usize = 30;

/// Highest moment: n_t <= 2 l + 4 with l <= 20 (the small functions of l = 20 reach r^{2l+4}).
const MAX_MOMENT: usize = 2 * 21 + 4 + 2 * MOMENT_TERMS;

static RULE: Lazy<GaussLegendre> = Lazy::new(|| GaussLegendre::new(20).expect("20 nodes"));

/// Σ_{m>=1} (-1)^{m+1} e^{-m y}/m^s = F_s(-y) for y >= 0 and s = 2, 3, 5 at once (module docs).
fn fermi_dirac_tails(y: f64) -> [f64; 3] {
    // Cohen, Rodriguez Villegas, Zagier, Exp. Math. 9, 3 (2000), algorithm 1: Σ (-1)^k a_k with
    // a_k = e^{-(k+1) y}/(k+1)^s, a totally monotone sequence.
    let n = CVZ_TERMS as f64;
    let d = (3.0 + 8f64.sqrt()).powf(n);
    let d = 0.5 * (d + 1.0 / d);
    let (mut b, mut c) = (-1.0, -d);
    let mut sums = [0.0; 3];
    let q = (-y).exp();
    let mut power = 1.0;
    for k in 0..CVZ_TERMS {
        power *= q;
        c = b - c;
        let m = (k + 1) as f64;
        let m2 = m * m;
        sums[0] += c * power / m2;
        sums[1] += c * power / (m2 * m);
        sums[2] += c * power / (m2 * m2 * m);
        let kf = k as f64;
        b *= (kf + n) * (kf - n) / ((kf + 0.5) * (kf + 1.0));
    }
    sums.map(|s| s / d)
}

/// F_{-j}(x) = F_0^{(j)}(x), j = 0 … N-1: the derivatives of the logistic function
/// σ(x) = 1/(1 + e^{-x}), as polynomials in σ (σ' = σ - σ²).
fn logistic_derivatives<const N: usize>(x: f64) -> [f64; N] {
    let sigma = 1.0 / (1.0 + (-x).exp());
    let mut poly = vec![0.0, 1.0]; // σ
    let mut out = [0.0; N];
    for slot in out.iter_mut() {
        *slot = poly.iter().rev().fold(0.0, |acc, &c| acc * sigma + c);
        // d/dx P(σ) = P'(σ) (σ - σ²).
        let mut next = vec![0.0; poly.len() + 1];
        for (k, &c) in poly.iter().enumerate().skip(1) {
            next[k] += k as f64 * c;
            next[k + 1] -= k as f64 * c;
        }
        poly = next;
    }
    out
}

/// A Fermi nucleus prepared for the attraction integrals: its potential per unit charge and the
/// moments of V + Z/r (module docs).
#[derive(Clone, Debug)]
pub struct FermiPotential {
    c: f64,
    a: f64,
    /// G_3(0) (bohr³).
    g3_origin: f64,
    /// F_3(-c/a).
    f3_w: f64,
    /// T's series coefficients: -F_{2-k}(-w)/(k+1)!.
    t_series: [f64; T_TERMS],
    /// R = c + 40 a (bohr) and ln R.
    cut: f64,
    ln_cut: f64,
    /// m_k = R^{-k} ∫_0^R r^k (V + Z/r)/Z dr (dimensionless), k = 1 … MAX_MOMENT at k - 1.
    moments: Vec<f64>,
}

/// F_3(w)/w³ for w = c/a > 0, from F_3(-w) (w³ never formed).
fn f3_scaled(w: f64, tail3: f64) -> f64 {
    1.0 / 6.0 + PI * PI / (6.0 * w * w) + tail3 / (w * w * w)
}

/// <r²> of a Fermi distribution: 12 a² F_5(w)/F_3(w), w = c/a (module docs); for w > 1 in the
/// form 12 c² (F_5/w⁵)/(F_3/w³), so that no power of w overflows.
fn mean_square_radius(c: f64, a: f64) -> f64 {
    let w = c / a;
    let [_, t3, t5] = fermi_dirac_tails(w);
    let (pi2, pi4) = (PI * PI, PI.powi(4));
    if w <= 1.0 {
        let f5 = w.powi(5) / 120.0 + pi2 * w.powi(3) / 36.0 + 7.0 * pi4 * w / 360.0 + t5;
        let f3 = w.powi(3) / 6.0 + pi2 * w / 6.0 + t3;
        12.0 * a * a * f5 / f3
    } else {
        let w2 = w * w;
        let f5 = 1.0 / 120.0 + pi2 / (36.0 * w2) + 7.0 * pi4 / (360.0 * w2 * w2) + t5 / (w2 * w2 * w);
        12.0 * c * c * f5 / f3_scaled(w, t3)
    }
}

/// The root-mean-square radius (units of c and a) of a Fermi distribution.
pub fn fermi_rms_radius(c: f64, a: f64) -> f64 {
    mean_square_radius(c, a).sqrt()
}

/// The smallest r_rms of a Fermi distribution of diffuseness a with c >= 0: its c → 0 limit
/// a √(12 η(5)/η(3)) ≈ 3.597 a.
pub fn fermi_minimum_rms_radius(a: f64) -> f64 {
    let [_, t3, t5] = fermi_dirac_tails(0.0);
    a * (12.0 * t5 / t3).sqrt()
}

/// The half-density radius c of the Fermi distribution of diffuseness a and root-mean-square
/// radius r_rms > [`fermi_minimum_rms_radius`] (same units): bisection on the exact relation
/// (module docs) to the last bit.
pub fn fermi_half_density_radius(r_rms: f64, a: f64) -> f64 {
    // r_rms² >= (3/5) c² bounds c from above.
    let (mut lo, mut hi) = (0.0, r_rms * (5.0f64 / 3.0).sqrt());
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if fermi_rms_radius(mid, a) > r_rms {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// ln Γ(m, x) for integer m >= 1 from ln x (any x > 0): ln Σ_{k<m} ((m-1)!/k!) x^k - x, the
/// sum taken relative to its largest term.
fn ln_upper_gamma(m: u32, ln_x: f64) -> f64 {
    let ln_factorial_m1 = super::ln_factorial(m - 1);
    let terms: Vec<f64> = (0..m).map(|k| ln_factorial_m1 - super::ln_factorial(k) + k as f64 * ln_x).collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln() - ln_x.exp()
}

/// One term C r^n e^{-p r²} of a product density, C = ±e^{ln_abs} (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Term {
    pub n: u32,
    pub ln_abs: f64,
    pub negative: bool,
}

impl FermiPotential {
    /// The nucleus of half-density radius c and diffuseness a (bohr, finite, > 0).
    pub fn new(c: f64, a: f64) -> Self {
        let w = c / a;
        let [_, f3_w, _] = fermi_dirac_tails(w);
        let g3_origin = a * a * a * w * w * w * f3_scaled(w, f3_w);
        let derivatives: [f64; T_TERMS] = {
            // F_2(-w), F_1(-w), then F_0 … F_{2-T_TERMS+1}.
            let [f2, _, _] = fermi_dirac_tails(w);
            let f1 = (-w).exp().ln_1p();
            let logistic: [f64; T_TERMS] = logistic_derivatives(-w);
            let mut d = [0.0; T_TERMS];
            d[0] = f2;
            d[1] = f1;
            d[2..].copy_from_slice(&logistic[..T_TERMS - 2]);
            d
        };
        let mut t_series = [0.0; T_TERMS];
        let mut factorial = 1.0;
        for k in 0..T_TERMS {
            factorial *= (k + 1) as f64;
            t_series[k] = -derivatives[k] / factorial;
        }
        let cut = c + CUT_WIDTHS * a;
        let mut out = FermiPotential { c, a, g3_origin, f3_w, t_series, cut, ln_cut: cut.ln(), moments: Vec::new() };
        out.moments = out.compute_moments();
        out
    }

    /// (G_2(r), G_3(r)) (bohr², bohr³; module docs).
    fn g2_g3(&self, r: f64) -> (f64, f64) {
        let (c, a) = (self.c, self.a);
        if r >= c {
            let [t2, t3, _] = fermi_dirac_tails((r - c) / a);
            (a * a * t2, a * a * a * t3)
        } else {
            let d = c - r;
            let [t2, t3, _] = fermi_dirac_tails(d / a);
            let pi2 = PI * PI;
            (0.5 * d * d + pi2 * a * a / 6.0 - a * a * t2, d * d * d / 6.0 + pi2 * a * a * d / 6.0 + a * a * a * t3)
        }
    }

    /// -V(r)/Z (bohr⁻¹, > 0; module docs).
    pub fn potential(&self, r: f64) -> f64 {
        let (c, a) = (self.c, self.a);
        if r >= c {
            let (g2, g3) = self.g2_g3(r);
            ((self.g3_origin - g3) / r - 0.5 * g2) / self.g3_origin
        } else {
            let delta = r / a;
            let [f2_u, f3_u, _] = fermi_dirac_tails((c - r) / a);
            let t = if delta < SERIES_LIMIT {
                self.t_series.iter().rev().fold(0.0, |acc, &s| acc * delta + s)
            } else {
                (self.f3_w - f3_u) / delta
            };
            (0.5 * c * c - r * r / 6.0 + PI * PI * a * a / 6.0 + a * a * (f2_u + 2.0 * t)) / (2.0 * self.g3_origin)
        }
    }

    /// (V(r) + Z/r)/Z (bohr⁻¹, >= 0), from its positive form (module docs).
    pub fn excess(&self, r: f64) -> f64 {
        let (g2, g3) = self.g2_g3(r);
        (g3 / r + 0.5 * g2) / self.g3_origin
    }

    /// Graded breakpoints of [0, hi] about 0, the extra features and c.
    fn breakpoints(&self, hi: f64, extra: &[Feature]) -> Vec<f64> {
        let mut features = vec![Feature { at: self.c, scale: self.a }];
        features.extend_from_slice(extra);
        let mut out = [0.0; MAX_BREAKPOINTS];
        let count = graded_breakpoints(0.0, hi, &features, &mut out);
        out[..count].to_vec()
    }

    /// m_k, k = 1 … MAX_MOMENT, at index k - 1, in one pass over the nodes (graded about c and
    /// about R, where the high powers of r/R gather).
    fn compute_moments(&self) -> Vec<f64> {
        let near_cut = Feature { at: self.cut, scale: self.cut / MAX_MOMENT as f64 };
        let breaks = self.breakpoints(self.cut, &[near_cut]);
        let mut moments = vec![0.0; MAX_MOMENT];
        for panel in breaks.windows(2) {
            let (nodes, weights) = RULE.on_interval(panel[0], panel[1]);
            for (&r, &weight) in nodes.iter().zip(&weights) {
                let (s, mut term) = (r / self.cut, weight * self.excess(r));
                for m in moments.iter_mut() {
                    term *= s;
                    *m += term;
                }
            }
        }
        moments
    }

    /// ∫_0^∞ φ(r) V(r) dr: the attraction element of the product density `terms` (exponent sum
    /// p, given as ln p) for nuclear charge z, from the same element of a point nucleus, `point`
    /// (module docs).
    pub(crate) fn attraction(&self, terms: &[Term], ln_p: f64, z: f64, point: f64) -> f64 {
        let ln_x = ln_p + 2.0 * self.ln_cut;
        if ln_x <= 0.0 {
            // Z Σ_t C_t R^{n_t} Σ_j (-x)^j/j! m_{n_t + 2j}, each term's sum in [e^{-x} m, m].
            let x = ln_x.exp();
            let correction: f64 = terms
                .iter()
                .map(|t| {
                    let (mut sum, mut coefficient) = (0.0, 1.0);
                    for j in 0..MOMENT_TERMS {
                        sum += coefficient * self.moments[t.n as usize + 2 * j - 1];
                        coefficient *= -x / (j + 1) as f64;
                    }
                    let magnitude = (z.ln() + t.ln_abs + t.n as f64 * self.ln_cut).exp() * sum;
                    if t.negative {
                        -magnitude
                    } else {
                        magnitude
                    }
                })
                .sum();
            return point + correction;
        }
        // The tight route: quadrature of φ (-V/Z) over [0, min(R, r_hi)] and the point tail.
        let scale = (-0.5 * ln_p).exp();
        let n_max = terms.iter().map(|t| t.n).max().unwrap_or(0) as f64;
        let peak = scale * (0.5 * n_max).sqrt();
        let hi = self.cut.min(peak + 9.0 * scale);
        let breaks = self.breakpoints(hi, &[Feature { at: 0.0, scale }, Feature { at: peak, scale }]);
        let density = |r: f64| -> f64 {
            let ln_r = r.ln();
            let gaussian = (ln_p + 2.0 * ln_r).exp();
            terms
                .iter()
                .map(|t| {
                    let v = (t.ln_abs + t.n as f64 * ln_r - gaussian).exp();
                    if t.negative {
                        -v
                    } else {
                        v
                    }
                })
                .sum()
        };
        let inner = integrate_graded(&RULE, &breaks, |r| if r > 0.0 { density(r) * self.potential(r) } else { 0.0 });
        let tail: f64 = terms
            .iter()
            .map(|t| {
                let m = t.n / 2;
                let v = (t.ln_abs + ln_upper_gamma(m, ln_x) - std::f64::consts::LN_2 - m as f64 * ln_p).exp();
                if t.negative {
                    -v
                } else {
                    v
                }
            })
            .sum();
        -z * (inner + tail)
    }
}
