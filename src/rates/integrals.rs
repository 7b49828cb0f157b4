//! The rate integrals of paper §2.2 for one transition in one plasma state: integrands,
//! integration ranges (upper limits for accuracy 10^-p, §2.3) and graded composite Gauss-Legendre
//! quadrature. `kernels/rates.cu` transcribes this file's formulas and quadrature; keep them in
//! step. (Both form the factors that do not change from node to node once, 1/T_e in the slopes
//! and the ionization cross-section's constants at one incident energy, and F and 1 - F from one
//! exponential; the two paths agree to rounding, the GPU's fused multiply-adds included.)
//!
//! Where the authors' code loses accuracy, this one does not:
//! - the blocking factor 1 - F is evaluated as 1/(1 + e^{(mu - eps)/T}), never as a difference,
//!   so strongly degenerate plasma (mu >> T) keeps every digit;
//! - each range is cut into panels graded geometrically (factor 4) around every place the
//!   integrand changes on a short scale (Fermi edges of width ~T, the threshold, poles of the
//!   cross-section just outside the range), with `nodes` Gauss-Legendre points per panel, so a
//!   0.1 eV-wide edge inside a keV-wide photoionization range is resolved;
//! - the upper limits keep the paper's Table 1 structure (threshold + degeneracy shift + a
//!   multiple of the decay scale) but with margins that meet 10^-p over the whole
//!   (T_e, n_e) range, and the inverse-bremsstrahlung limit decays on the radiation scale T_r
//!   (the paper's (T_r/T_e)(y + z mu/T_e) is far too short above a few eV).
//!
//! Every rate has a `*_with_slopes` twin that also gives its derivatives by T_e and mu (and, for
//! the inverse bremsstrahlung, by n_e), integrated in the same pass from the slopes of the
//! integrand's occupation factors: the Jacobian of the CR stiff integrator (`cr/stiff.rs`).
//!
//! Inverse (downward) rates are integrated with the detailed-balance integrand
//! F(eps - E) (1 - F(eps)) = e^{E/T} F(eps) (1 - F(eps - E)) (eqs. 9-10), so they stay finite
//! where e^{E/T} would overflow and the upward rate underflows.

use super::constants::{
    excitation_prefactor, free_electron_degeneracy, ionization_prefactor, kramers_free_free, photon_flux_factor,
    plasma_photon_energy,
};
use super::fermi::occupation_from_exponent;
use super::{Excitation, Ionization, Photoionization, Quadrature, Statistics};
use crate::math::panels::{graded_breakpoints, integrate_graded_sums, Feature, MAX_BREAKPOINTS};

/// Electron conditions of one plasma state, as the integrals need them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditions {
    pub stats: Statistics,
    /// Electron temperature T_e [eV].
    pub te: f64,
    /// Chemical potential mu [eV] (from [`super::fermi::chemical_potential`] with `stats`).
    pub mu: f64,
    /// Electron density n_e [cm^-3].
    pub ne: f64,
    /// Black-body radiation temperature T_r [eV].
    pub tr: f64,
}

/// Number of T_e (or T_r) decay lengths past the last edge for relative truncation 10^-p:
/// p ln 10 plus a margin of 12 e-folds for the polynomial growth of the cross-sections.
pub fn thermal_tail(p: f64) -> f64 {
    p * std::f64::consts::LN_10 + 12.0
}

/// x solving 4 (1 + x) e^{-x} = 10^-(p+2) (paper eq. 18 with two digits of margin): the black-body
/// tail length, in units of T_r, of the photoionization and inverse-bremsstrahlung integrals.
pub fn radiation_tail(p: f64) -> f64 {
    // Newton on f(x) = ln(1 + x) - x - ln(10^-(p+2)/4), decreasing for x > 0.
    let target = (0.25 * 10f64.powf(-(p + 2.0))).ln();
    let mut x = -target + (1.0 - target).ln();
    for _ in 0..50 {
        let f = (1.0 + x).ln() - x - target;
        let df = 1.0 / (1.0 + x) - 1.0;
        let step = f / df;
        x -= step;
        if step.abs() < 1e-14 * x {
            break;
        }
    }
    x
}

/// An occupation factor and its slopes at one energy eps: F(eps), the blocking 1 - F(eps), their
/// derivatives with respect to mu at fixed T, and x = (eps - mu)/T. With F = 1/(1 + e^x):
/// dF/dmu = F (1 - F)/T and d(1 - F)/dmu = -F (1 - F)/T; since F depends on (T, mu) only
/// through x, d/dT = x d/dmu for both. Maxwell-Boltzmann: F = e^{-x}, dF/dmu = F/T, the
/// blocking is 1 and constant.
#[derive(Clone, Copy)]
struct Occupation {
    f: f64,
    blocking: f64,
    df_dmu: f64,
    dblocking_dmu: f64,
    x: f64,
}

/// The electrons of [`Conditions`] as the integrands meet them: what an [`Occupation`] needs,
/// with 1/T formed once per integral for the slopes. x = (eps - mu)/T itself stays a quotient:
/// e^{-x} at |x| up to ~700 carries x's rounding times |x|, and the quotient's is the smallest.
#[derive(Clone, Copy)]
struct Electrons {
    stats: Statistics,
    mu: f64,
    te: f64,
    inverse_te: f64,
}

impl Electrons {
    fn of(c: &Conditions) -> Self {
        Electrons { stats: c.stats, mu: c.mu, te: c.te, inverse_te: 1.0 / c.te }
    }

    /// The [`Occupation`] at eps. Fermi-Dirac: F and 1 - F from the one exponential
    /// e^{-|x|} (F = 1/(1 + e^x) = e^{-x}/(1 + e^{-x}), each form free of overflow on its side of
    /// x = 0, as [`occupation_from_exponent`] takes them).
    #[inline]
    fn at(&self, eps: f64) -> Occupation {
        let x = (eps - self.mu) / self.te;
        match self.stats {
            Statistics::FermiDirac => {
                let e = (-x.abs()).exp();
                let r = 1.0 / (1.0 + e);
                let (f, blocking) = if x > 0.0 { (e * r, r) } else { (r, e * r) };
                let s = f * blocking * self.inverse_te;
                Occupation { f, blocking, df_dmu: s, dblocking_dmu: -s, x }
            }
            Statistics::MaxwellBoltzmann => {
                let f = (-x).exp();
                Occupation { f, blocking: 1.0, df_dmu: f * self.inverse_te, dblocking_dmu: 0.0, x }
            }
        }
    }
}

/// One occupation factor, F or 1 - F, as (value, d/dmu, x).
type Factor = (f64, f64, f64);

impl Occupation {
    /// F as a [`Factor`].
    fn occupied(&self) -> Factor {
        (self.f, self.df_dmu, self.x)
    }

    /// 1 - F as a [`Factor`].
    fn blocked(&self) -> Factor {
        (self.blocking, self.dblocking_dmu, self.x)
    }
}

/// The slopes of a product a(eps_a) b(eps_b) of two occupation factors: [d/dT, d/dmu] by the
/// product rule, d/dT = x d/dmu for each factor.
#[inline]
fn product_slopes(a: Factor, b: Factor) -> [f64; 2] {
    let (by_mu_a, by_mu_b) = (a.1 * b.0, a.0 * b.1);
    [a.2 * by_mu_a + b.2 * by_mu_b, by_mu_a + by_mu_b]
}

/// The integrand pair w a_up b_up (upward), w a_down b_down (downward), with its slopes when
/// K = 6 (layout of [`with_slopes`]).
#[inline]
fn weighted_products<const K: usize>(w: f64, up: [Factor; 2], down: [Factor; 2]) -> [f64; K] {
    with_slopes([w * up[0].0 * up[1].0, w * down[0].0 * down[1].0], || {
        let (u, d) = (product_slopes(up[0], up[1]), product_slopes(down[0], down[1]));
        [[w * u[0], w * d[0]], [w * u[1], w * d[1]]]
    })
}

/// A rate integrand of `K` values: its `values` (K = the number of values, no slopes) or its
/// values followed by their slopes (K = 3 x the values: the values, then each value's
/// d/dT, then each value's d/dmu), the slopes computed only when asked for.
#[inline]
fn with_slopes<const V: usize, const K: usize>(values: [f64; V], slopes: impl FnOnce() -> [[f64; V]; 2]) -> [f64; K] {
    let mut out = [0.0; K];
    out[..V].copy_from_slice(&values);
    if K > V {
        let [by_te, by_mu] = slopes();
        out[V..2 * V].copy_from_slice(&by_te);
        out[2 * V..].copy_from_slice(&by_mu);
    }
    out
}

/// Fermi-edge features (at `edges`, width 2 T) only under Fermi-Dirac statistics.
fn push_edges(c: &Conditions, edges: &[f64], features: &mut Vec<Feature>) {
    if c.stats == Statistics::FermiDirac {
        features.extend(edges.iter().map(|&at| Feature { at, scale: 2.0 * c.te }));
    }
}

fn breakpoints(lo: f64, hi: f64, features: &[Feature]) -> ([f64; MAX_BREAKPOINTS], usize) {
    let mut breaks = [0.0; MAX_BREAKPOINTS];
    let n = graded_breakpoints(lo, hi, features, &mut breaks);
    (breaks, n)
}

/// Collision strength of an optically allowed transition, paper eq. 6:
/// Omega(x) = B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4 (dimensionless).
#[inline]
pub fn collision_strength(b: &[f64; 6], x: f64) -> f64 {
    let r = 1.0 / x;
    b[0] * x.ln() + b[1] + r * (b[2] + r * (b[3] + r * (b[4] + r * b[5])))
}

/// Upper limit of the excitation integral: E + max(mu, 0) + T (p ln 10 + 12) [eV]
/// (Table 1's 2E + 2mu + T(7.5 + p ln 10) shifted so a negative mu cannot pull it below E).
pub fn excitation_upper_limit(c: &Conditions, e: f64, q: &Quadrature) -> f64 {
    e + c.mu.max(0.0) + c.te * q.thermal_tail()
}

/// Collisional excitation and de-excitation rates (J_up per lower-level ion, J_down per
/// upper-level ion) [s^-1], paper eqs. 5, 6 and 9:
/// J_up = K int_E^inf Omega(eps/E) F(eps) (1 - F(eps - E)) d eps,
/// J_down = (g_l/g_u) K int_E^inf Omega(eps/E) F(eps - E) (1 - F(eps)) d eps,
/// K = G sqrt(2/m_e) pi a0^2 Ry ([`excitation_prefactor`]).
pub fn excitation(c: &Conditions, t: &Excitation, q: &Quadrature) -> (f64, f64) {
    let [up, down] = excitation_sums(c, t, q);
    (up, down)
}

/// [`excitation`] and its slopes, in the same quadrature pass: [[J_up, J_down], [d/dT_e],
/// [d/dmu]] (at fixed mu, resp. T_e) [s^-1, s^-1 eV^-1]. The integrands' slopes are those of
/// their occupation factors (F(eps) (1 - F(eps - E)) and F(eps - E) (1 - F(eps)), eqs. 5, 9), by
/// the product rule with dF/dmu = F (1 - F)/T_e and dF/dT_e = ((eps - mu)/T_e) dF/dmu; the
/// range [E, hi] is fixed but for its truncation point, whose contribution is of the order of
/// the truncation error 10^-p.
pub fn excitation_with_slopes(c: &Conditions, t: &Excitation, q: &Quadrature) -> [[f64; 2]; 3] {
    split_slopes(excitation_sums(c, t, q))
}

/// The excitation integrals with the prefactors, and with their slopes when K = 6
/// (layout of [`with_slopes`]).
fn excitation_sums<const K: usize>(c: &Conditions, t: &Excitation, q: &Quadrature) -> [f64; K] {
    let e = t.energy_ev;
    let hi = excitation_upper_limit(c, e, q);
    let mut features = vec![Feature { at: e, scale: e }, Feature { at: e, scale: c.te }];
    push_edges(c, &[c.mu, e + c.mu], &mut features);
    let (breaks, n) = breakpoints(e, hi, &features);
    let electrons = Electrons::of(c);
    let sums = integrate_graded_sums(q.rule(), &breaks[..n], |eps| {
        let omega = collision_strength(&t.omega, eps / e);
        let a = electrons.at(eps);
        let o = electrons.at(eps - e);
        weighted_products(omega, [a.occupied(), o.blocked()], [o.occupied(), a.blocked()])
    });
    let k = excitation_prefactor();
    with_weights(sums, k, t.g_lower, t.g_upper)
}

/// `sums` (upward, downward, and their slopes) times the prefactor `k`, the downward ones also by
/// the weights' ratio g_l/g_u (detailed balance, eqs. 9-10).
fn with_weights<const K: usize>(mut sums: [f64; K], k: f64, g_lower: f64, g_upper: f64) -> [f64; K] {
    for (i, s) in sums.iter_mut().enumerate() {
        *s = if i % 2 == 0 { k * *s } else { k * *s * g_lower / g_upper };
    }
    sums
}

/// The 6 sums of a pair of integrals with slopes ([`with_slopes`]) as [values, d/dT_e, d/dmu].
fn split_slopes(s: [f64; 6]) -> [[f64; 2]; 3] {
    [[s[0], s[1]], [s[2], s[3]], [s[4], s[5]]]
}

/// Mott-BELI differential ionization cross-section of paper eq. 8, in units of
/// 1e-13 cm^2 eV^2 per eV^3: dsigma/d eps1 / (1e-13 cm^2 eV^2), for incident energy `e0`,
/// one outgoing energy `e1`, ionization energy `ei` and BELI coefficients `c` (C0 = A, C1..C4 =
/// B1..B4). It integrates over 0 <= e1 <= e0 - ei to the BELI total cross-section.
pub fn differential_ionization(c: &[f64; 5], ei: f64, e0: f64, e1: f64) -> f64 {
    CrossSection::at_incident(c, ei, e0).at(e1)
}

/// The cross-section of [`differential_ionization`] at one incident energy e0, with every factor
/// that does not depend on the outgoing energy e1 formed once (the inner integral's constants):
/// with e2 = e0 - ei - e1, a = (sqrt(e0^2 + 4 ei^2) - e0)/2 and b = a + ei,
/// dsigma/d eps1 = A/(2 e0) [1/((e1 + a)(e1 + b)) + 1/((e2 + a)(e2 + b))]
///   + sum_{k=1..4} k B_k (e1^{k-1} + e2^{k-1}) / (2 ei e0^{k+1}).
#[derive(Clone, Copy)]
struct CrossSection {
    /// e0 - ei: e2 = this - e1.
    shared: f64,
    a: f64,
    b: f64,
    /// A/(2 e0).
    mott: f64,
    /// k B_k / (2 ei e0^{k+1}), k = 1..4.
    powers: [f64; 4],
}

impl CrossSection {
    fn at_incident(c: &[f64; 5], ei: f64, e0: f64) -> Self {
        let a = 0.5 * ((e0 * e0 + 4.0 * ei * ei).sqrt() - e0);
        let scale = 1.0 / (2.0 * ei * e0);
        let mut powers = [0.0; 4];
        let mut pe0 = e0;
        for (k, (p, ck)) in powers.iter_mut().zip(&c[1..]).enumerate() {
            *p = (k + 1) as f64 * ck / pe0 * scale;
            pe0 *= e0;
        }
        CrossSection { shared: e0 - ei, a, b: a + ei, mott: c[0] * ei * scale, powers }
    }

    /// The outgoing energy e2 = e0 - ei - e1 of the second electron.
    #[inline]
    fn partner(&self, e1: f64) -> f64 {
        self.shared - e1
    }

    /// dsigma/d eps1 at outgoing energy e1 [1e-13 cm^2 eV^2 per eV^3].
    #[inline]
    fn at(&self, e1: f64) -> f64 {
        let e2 = self.partner(e1);
        let (a, b) = (self.a, self.b);
        // 1/q1 + 1/q2 as one quotient: q1 q2 lies within 1e-60..1e40 over the rates' domain.
        let (q1, q2) = ((e1 + a) * (e1 + b), (e2 + a) * (e2 + b));
        let mott = self.mott * ((q1 + q2) / (q1 * q2));
        let [p1, p2, p3, p4] = self.powers;
        mott + 2.0 * p1 + p2 * (e1 + e2) + p3 * (e1 * e1 + e2 * e2) + p4 * (e1 * e1 * e1 + e2 * e2 * e2)
    }
}

/// Upper limit of the outer ionization integral: E + 2 max(mu, 0) + T (p ln 10 + 15) [eV]
/// (both outgoing electrons must clear the Fermi sea; Table 1's E + mu + 50 + T(13.74 + p ln 10)
/// has a fixed 50 eV that is too short at n_e ~ 1e24 and wasteful at low density).
pub fn ionization_upper_limit(c: &Conditions, e: f64, q: &Quadrature) -> f64 {
    e + 2.0 * c.mu.max(0.0) + c.te * (q.thermal_tail() + 3.0)
}

/// Collisional ionization and three-body recombination rates (K_up per ion of the lower
/// stage, K_down per ion of the upper stage) [s^-1], paper eqs. 7, 8 and 10:
/// K_up = K int_E^inf d eps0 int_0^{eps0-E} d eps1 eps0 dsigma/d eps1 F(eps0) (1-F(eps1)) (1-F(eps2)),
/// eps2 = eps0 - E - eps1, K = G sqrt(2/m_e) 1e-13 cm^2 eV^2; the inner integral is symmetric in
/// eps1 <-> eps2 and taken over [0, (eps0-E)/2], doubled.
/// K_down = (g_l/g_u) e^{(E + mu)/T} K_up, integrated as F(eps1) F(eps2) (1 - F(eps0)).
pub fn ionization(c: &Conditions, t: &Ionization, q: &Quadrature) -> (f64, f64) {
    let [up, down] = ionization_sums(c, t, q);
    (up, down)
}

/// [`ionization`] and its slopes, in the same quadrature pass: [[K_up, K_down], [d/dT_e],
/// [d/dmu]] [s^-1, s^-1 eV^-1]. The outer integrand is 2 eps0 F(eps0) I(eps0) (up; 1 - F(eps0)
/// down), so its slope is 2 eps0 (F' I + F I'), with I' the inner integral of the slope of
/// (1 - F(eps1)) (1 - F(eps2)) (up; F(eps1) F(eps2) down), taken in the same inner pass (the
/// occupation slopes as in [`excitation_with_slopes`]).
pub fn ionization_with_slopes(c: &Conditions, t: &Ionization, q: &Quadrature) -> [[f64; 2]; 3] {
    split_slopes(ionization_sums(c, t, q))
}

/// The ionization integrals with the prefactors, and with their slopes when K = 6.
fn ionization_sums<const K: usize>(c: &Conditions, t: &Ionization, q: &Quadrature) -> [f64; K] {
    let e = t.energy_ev;
    let hi = ionization_upper_limit(c, e, q);
    let mut features = vec![Feature { at: e, scale: e }, Feature { at: e, scale: c.te }];
    push_edges(c, &[c.mu, e + c.mu, e + 2.0 * c.mu], &mut features);
    let (breaks, n) = breakpoints(e, hi, &features);
    let electrons = Electrons::of(c);
    let mut inner_features = Vec::with_capacity(3);
    let mut inner_breaks = [0.0; MAX_BREAKPOINTS];
    let sums = integrate_graded_sums(q.rule(), &breaks[..n], |e0| {
        let half = 0.5 * (e0 - e);
        if half <= 0.0 {
            return [0.0; K];
        }
        let sigma = CrossSection::at_incident(&t.beli, e, e0);
        inner_features.clear();
        inner_features.push(Feature { at: 0.0, scale: sigma.a });
        push_edges(c, &[c.mu, 2.0 * half - c.mu], &mut inner_features);
        let m = graded_breakpoints(0.0, half, &inner_features, &mut inner_breaks);
        let inner: [f64; K] = integrate_graded_sums(q.rule(), &inner_breaks[..m], |e1| {
            let o1 = electrons.at(e1);
            let o2 = electrons.at(sigma.partner(e1));
            weighted_products(sigma.at(e1), [o1.blocked(), o2.blocked()], [o1.occupied(), o2.occupied()])
        });
        let o0 = electrons.at(e0);
        let w = 2.0 * e0;
        with_slopes([w * o0.f * inner[0], w * o0.blocking * inner[1]], || {
            let up = |theta: usize, slope: f64| w * (slope * o0.df_dmu * inner[0] + o0.f * inner[2 + 2 * theta]);
            let down = |theta: usize, slope: f64| {
                w * (slope * o0.dblocking_dmu * inner[1] + o0.blocking * inner[3 + 2 * theta])
            };
            [[up(0, o0.x), down(0, o0.x)], [up(1, 1.0), down(1, 1.0)]]
        })
    });
    with_weights(sums, ionization_prefactor(), t.g_lower, t.g_upper)
}

/// Black-body photon flux per unit photon energy, PHI eps^2 / (e^{eps/T_r} - 1)
/// [cm^-2 s^-1 eV^-1] (paper eq. 16 divided by eps and multiplied by c).
#[inline]
pub fn black_body_flux(eps: f64, tr: f64) -> f64 {
    photon_flux_factor() * eps * eps / (eps / tr).exp_m1()
}

/// Upper limit of the photoionization integrals: E + max(mu, 0) + max(x T_r, T_e (p ln 10 + 12))
/// with x from [`radiation_tail`] (Table 1 and eq. 18) [eV].
pub fn photoionization_upper_limit(c: &Conditions, e: f64, q: &Quadrature) -> f64 {
    e + c.mu.max(0.0) + (c.tr * q.radiation_tail()).max(c.te * q.thermal_tail())
}

/// Photoionization rate per ion [s^-1] and photoelectron heating per ion [eV s^-1] in a black-body
/// field at T_r, paper eqs. 11-13 and 16:
/// L = int_E^inf sigma(eps) Phi(eps) (1 - F(eps - E)) d eps, H = int_E^inf (eps - E) sigma Phi (1-F) d eps,
/// sigma = D0 (E/eps)^2 + D1 (E/eps)^3 [cm^2] (eq. 12).
pub fn photoionization(c: &Conditions, t: &Photoionization, q: &Quadrature) -> (f64, f64) {
    let [rate, heating] = photoionization_sums(c, t, q);
    (rate, heating)
}

/// [`photoionization`] and its slopes, in the same quadrature pass: [[L, H], [d/dT_e], [d/dmu]]
/// [s^-1, eV s^-1; per eV]: only the blocking factor 1 - F(eps - E) depends on (T_e, mu).
pub fn photoionization_with_slopes(c: &Conditions, t: &Photoionization, q: &Quadrature) -> [[f64; 2]; 3] {
    split_slopes(photoionization_sums(c, t, q))
}

/// The photoionization integrals, and with their slopes when K = 6.
fn photoionization_sums<const K: usize>(c: &Conditions, t: &Photoionization, q: &Quadrature) -> [f64; K] {
    let e = t.energy_ev;
    let hi = photoionization_upper_limit(c, e, q);
    let mut features =
        vec![Feature { at: e, scale: e }, Feature { at: e, scale: c.tr }, Feature { at: e, scale: c.te }];
    push_edges(c, &[e + c.mu], &mut features);
    let (breaks, n) = breakpoints(e, hi, &features);
    let electrons = Electrons::of(c);
    integrate_graded_sums(q.rule(), &breaks[..n], |eps| {
        let r = e / eps;
        let sigma = r * r * (t.d0_cm2 + t.d1_cm2 * r);
        let o = electrons.at(eps - e);
        let absorbed = sigma * black_body_flux(eps, c.tr);
        let rate = absorbed * o.blocking;
        with_slopes([rate, (eps - e) * rate], || {
            let by_mu = absorbed * o.dblocking_dmu;
            [[o.x * by_mu, (eps - e) * (o.x * by_mu)], [by_mu, (eps - e) * by_mu]]
        })
    })
}

/// Upper limit of the inverse-bremsstrahlung integral: max(eps_c, mu) + max(x T_r, T_e (p ln 10 + 12)) [eV].
pub fn inverse_bremsstrahlung_upper_limit(c: &Conditions, eps_c: f64, q: &Quadrature) -> f64 {
    eps_c.max(c.mu) + (c.tr * q.radiation_tail()).max(c.te * q.thermal_tail())
}

/// The constant in front of the inverse-bremsstrahlung integral,
/// A_FF Z2N (sqrt(pi)/2) G T PHI [eV^-1 cm^-3 s^-1] for `z2n` = sum_Z Z^2 N_Z [cm^-3].
pub fn inverse_bremsstrahlung_factor(c: &Conditions, z2n: f64) -> f64 {
    kramers_free_free()
        * z2n
        * 0.5
        * std::f64::consts::PI.sqrt()
        * free_electron_degeneracy()
        * c.te
        * photon_flux_factor()
}

/// Inverse-bremsstrahlung heating per unit volume [eV cm^-3 s^-1], paper eqs. 14-15, with the
/// electron-energy integral done analytically:
/// int_0^inf F(eps0) (1 - F(eps0 + w)) d eps0 (1 - e^{-w/T}) = T ln[(1 + e^{mu/T}) / (1 + e^{(mu-w)/T})],
/// H = A_FF Z2N (sqrt(pi)/2) G T PHI int_{eps_c}^inf ln[...] / (e^{w/T_r} - 1) dw,
/// with `z2n` = sum_Z Z^2 N_Z [cm^-3] and eps_c = hbar omega_p. The prefactor is fixed so that
/// the Maxwell-Boltzmann limit (ln[...] -> e^{mu/T}(1 - e^{-w/T})) is the Kramers absorption
/// coefficient (Rybicki & Lightman 5.18a, g_ff = 1) times the black-body energy flux.
///
/// Against eq. 15 as printed. With e^2/eps_0 = 4 pi alpha hbar c, eq. 15's coefficient is
/// C_15 = (4 pi)^3 (alpha hbar c)^3 (hc)^2 / (6 sqrt 6 pi^{5/2} (m_e c^2)^{3/2}) = 4 A_FF exactly
/// (A_FF = (4/3) sqrt(2 pi/3) (alpha hbar c)^3 (hc)^2/(m_e c^2)^{3/2}, [`kramers_free_free`]).
/// In the Maxwell-Boltzmann limit the electron integral of eq. 14 is
/// int F(eps0) d eps0 = T e^{mu/T}, so eqs. 14-15 as printed give C_15 Z2N T e^{mu/T} w^-3 (...),
/// while Kramers needs A_FF Z2N n_e T^{-1/2} w^-3 (...) = A_FF Z2N (sqrt(pi)/2) G T e^{mu/T} w^-3 (...)
/// (eq. 2: n_e = G T^{3/2} int_0^inf x^{1/2} F dx -> G T^{3/2} (sqrt(pi)/2) e^{mu/T}). The library's
/// coefficient is therefore C_15 times sqrt(pi) G / 8 [eV^-3/2 cm^-3]: the printed formula lacks
/// the free-electron density of states G (it is not even dimensionally a rate per volume without
/// it: F is a dimensionless occupation) and carries an extra factor 4. We keep the Kramers
/// normalisation because it is the one physical limit eq. 15 must reproduce; the C and Fortran
/// tests check the Maxwell-Boltzmann heating against the Kramers closed form to 1e-8.
pub fn inverse_bremsstrahlung(c: &Conditions, z2n: f64, q: &Quadrature) -> f64 {
    let [sum] = inverse_bremsstrahlung_sums(c, q).1;
    inverse_bremsstrahlung_factor(c, z2n) * sum
}

/// [`inverse_bremsstrahlung`] and its slopes, in the same quadrature pass: [H, dH/dT_e (mu, n_e
/// fixed), dH/dmu (T_e, n_e fixed), dH/dn_e (T_e, mu fixed)] [eV cm^-3 s^-1, per eV, per eV,
/// eV s^-1]. With A(w) = ln[(1 + e^eta)/(1 + e^{eta - w/T})] (eta = mu/T) the integrand's slopes
/// are dA/dmu = s(eta) s(w/T - eta) (1 - e^{-w/T}) / T (s(x) = 1/(1 + e^{-x}), written so
/// that no difference cancels) and dA/dT = -eta dA/dmu - (w/T^2) s(eta - w/T); Maxwell-Boltzmann
/// (A = e^eta (1 - e^{-w/T})): dA/dmu = A/T and dA/dT = -eta dA/dmu - (w/T^2) e^{eta - w/T}. The
/// factor is proportional to T. n_e enters only through the cut-off eps_c = hbar omega_p ~
/// n_e^{1/2}: dH/dn_e = -factor A(eps_c)/(e^{eps_c/T_r} - 1) eps_c/(2 n_e).
pub fn inverse_bremsstrahlung_with_slopes(c: &Conditions, z2n: f64, q: &Quadrature) -> [f64; 4] {
    let (eps_c, [sum, by_te, by_mu]) = inverse_bremsstrahlung_sums(c, q);
    let factor = inverse_bremsstrahlung_factor(c, z2n);
    let (absorbed, _) = absorption_slopes(c, eps_c);
    let at_cut = absorbed / (eps_c / c.tr).exp_m1();
    [factor * sum, factor * (sum / c.te + by_te), factor * by_mu, -factor * at_cut * eps_c / (2.0 * c.ne)]
}

/// The absorption factor A(w) of [`inverse_bremsstrahlung_with_slopes`] and the pair
/// (dA/dT, dA/dmu) when `SLOPES`.
#[inline]
fn absorption_slopes(c: &Conditions, w: f64) -> (f64, impl FnOnce() -> [f64; 2]) {
    let eta = c.mu / c.te;
    let (te, stats) = (c.te, c.stats);
    let absorbed = match stats {
        // ln(1 + e^eta) - ln(1 + e^{eta - w/T}), each term evaluated without overflow.
        Statistics::FermiDirac => softplus(eta) - softplus(eta - w / te),
        Statistics::MaxwellBoltzmann => eta.exp() * -(-w / te).exp_m1(),
    };
    let slopes = move || {
        let (by_mu, edge) = match stats {
            Statistics::FermiDirac => (
                occupation_from_exponent(-eta) * occupation_from_exponent(eta - w / te) * -(-w / te).exp_m1() / te,
                occupation_from_exponent(w / te - eta),
            ),
            Statistics::MaxwellBoltzmann => (absorbed / te, (eta - w / te).exp()),
        };
        [-eta * by_mu - w / (te * te) * edge, by_mu]
    };
    (absorbed, slopes)
}

/// The cut-off eps_c and the inverse-bremsstrahlung integral without its factor, with its slopes
/// (d/dT, d/dmu of the integral alone) when K = 3.
fn inverse_bremsstrahlung_sums<const K: usize>(c: &Conditions, q: &Quadrature) -> (f64, [f64; K]) {
    let eps_c = plasma_photon_energy(c.ne);
    let hi = inverse_bremsstrahlung_upper_limit(c, eps_c, q);
    let mut features = vec![
        Feature { at: eps_c, scale: eps_c },
        Feature { at: eps_c, scale: c.tr },
        Feature { at: eps_c, scale: c.te },
    ];
    push_edges(c, &[c.mu], &mut features);
    let (breaks, n) = breakpoints(eps_c, hi, &features);
    let sums = integrate_graded_sums(q.rule(), &breaks[..n], |w| {
        let (absorbed, slopes) = absorption_slopes(c, w);
        let photons = (w / c.tr).exp_m1();
        with_slopes([absorbed / photons], || {
            let [by_te, by_mu] = slopes();
            [[by_te / photons], [by_mu / photons]]
        })
    });
    (eps_c, sums)
}

/// ln(1 + e^x) without overflow or loss of digits.
#[inline]
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}
