//! Angular coefficients of the electron-electron repulsion between bipolar harmonics (eqs. 16-18).
//!
//! With the basis of eq. 10, the multipole expansion of 1/r12 (eq. 17) leaves one angular
//! integral per (L, M, l'a, l'b, la, lb, l), eq. 16:
//!
//! ```text
//! A^{LM}_{l'a l'b la lb l} = Σ_m ∫dΩ1 ∫dΩ2 Y^{LM*}_{l'a l'b}(r̂1, r̂2) Y*_{lm}(r̂1) Y_{lm}(r̂2) Y^{LM}_{la lb}(r̂1, r̂2),
//! Y^{LM}_{la lb} = Σ_{ma} <la ma lb M-ma | L M> Y_{la ma}(r̂1) Y_{lb M-ma}(r̂2).
//! ```
//!
//! Expanding both bipolar harmonics (Clebsch-Gordan coefficients) and doing each sphere's
//! integral of three spherical harmonics (Gaunt coefficients, with Y*_{lm} = (-1)^m Y_{l,-m})
//! gives the double sum evaluated here, which is eq. 18 with the Gaunt coefficients written out:
//!
//! ```text
//! A = Σ_{m'a, m} <l'a m'a l'b m'b|LM> <la ma lb mb|LM> (-1)^(m'a + m + m'b)
//!       G(l'a -m'a; l -m; la ma) G(l'b -m'b; l m; lb mb),   ma = m'a + m, m'b = M - m'a, mb = M - ma,
//! ```
//!
//! G the Gaunt coefficient ([`crate::math::wigner::gaunt`], exact 3j symbols, so stable for l well
//! beyond 20). The Hamiltonian (eq. 12) uses `4π/(2l+1) A`, which is the matrix element of the
//! Legendre polynomial P_l(cos θ12) between the two coupled angular states ([`legendre_coupling`]).
//! A is dimensionless, real, independent of M (Wigner-Eckart), and zero unless l satisfies the
//! triangle and parity rules of [`multipoles`].

use crate::math::wigner::{clebsch_gordan, gaunt};
use std::f64::consts::PI;

/// The multipoles l with a nonzero coefficient between (l'a, l'b) and (la, lb): the triangle
/// rules |l'a - la| ≤ l ≤ l'a + la, |l'b - lb| ≤ l ≤ l'b + lb and even l'a + la + l, l'b + lb + l.
pub fn multipoles(lpa: u32, lpb: u32, la: u32, lb: u32) -> impl Iterator<Item = u32> {
    let low = lpa.abs_diff(la).max(lpb.abs_diff(lb));
    let high = (lpa + la).min(lpb + lb);
    (low..=high).filter(move |l| (lpa + la + l) % 2 == 0 && (lpb + lb + l) % 2 == 0)
}

/// A^{LM}_{l'a l'b la lb l} of eq. 16 (dimensionless); 0 when a selection rule fails
/// (including |M| > L or a pair that cannot couple to L).
pub fn angular_coefficient(l_total: u32, m: i32, lpa: u32, lpb: u32, la: u32, lb: u32, l: u32) -> f64 {
    let (lt, lpa_i, lpb_i, la_i, lb_i, l_i) = (l_total as i32, lpa as i32, lpb as i32, la as i32, lb as i32, l as i32);
    if m.abs() > lt || !multipoles(lpa, lpb, la, lb).any(|x| x == l) {
        return 0.0;
    }
    let mut sum = 0.0;
    for mpa in -lpa_i..=lpa_i {
        let mpb = m - mpa;
        if mpb.abs() > lpb_i {
            continue;
        }
        let bra = clebsch_gordan(lpa_i, mpa, lpb_i, mpb, lt, m);
        if bra == 0.0 {
            continue;
        }
        for q in -l_i..=l_i {
            let ma = mpa + q;
            let mb = m - ma;
            if ma.abs() > la_i || mb.abs() > lb_i {
                continue;
            }
            let ket = clebsch_gordan(la_i, ma, lb_i, mb, lt, m);
            if ket == 0.0 {
                continue;
            }
            let sign = if (mpa + q + mpb).rem_euclid(2) == 0 { 1.0 } else { -1.0 };
            sum += sign * bra * ket * gaunt(lpa_i, -mpa, l_i, -q, la_i, ma) * gaunt(lpb_i, -mpb, l_i, q, lb_i, mb);
        }
    }
    sum
}

/// `4π/(2l+1) A^{LM}_{l'a l'b la lb l}`: the factor that multiplies the radial repulsion
/// integral R^l in eq. 12 (= <(l'a l'b) L M | P_l(cos θ12) | (la lb) L M>), dimensionless.
pub fn legendre_coupling(l_total: u32, m: i32, lpa: u32, lpb: u32, la: u32, lb: u32, l: u32) -> f64 {
    4.0 * PI / (2 * l + 1) as f64 * angular_coefficient(l_total, m, lpa, lpb, la, lb, l)
}
