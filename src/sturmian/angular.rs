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
//! Eq. 18 writes A as a double sum over m'a and m of products of four Clebsch-Gordan
//! coefficients. That sum alternates and cancels massively at large l (terms of order 1e-3 for a
//! value of 1e-46 at l ≈ 200), and has ~l² terms of ~l operations each, so it is neither accurate
//! nor fast there. Its closed form is used instead: by the addition theorem
//! (4π/(2l+1)) Σ_m Y*_lm(r̂1) Y_lm(r̂2) = P_l(cos θ12) = C^l(1)·C^l(2), the scalar product of the
//! two electrons' unnormalised harmonics C^l_q = sqrt(4π/(2l+1)) Y_lq, so
//! `4π/(2l+1) A = <(l'a l'b) L M | C^l(1)·C^l(2) | (la lb) L M>`, which Racah reduced to one 6j
//! symbol (Edmonds 1957, eq. 7.1.6; reduced matrix elements eq. 5.4.5):
//!
//! ```text
//! 4π/(2l+1) A = (-1)^(la + l'b + L) {l'a l'b L; lb la l} <l'a||C^l||la> <l'b||C^l||lb>,
//! <l'||C^l||l> = (-1)^l' sqrt((2l'+1)(2l+1)) (l' l l; 0 0 0),
//! ```
//!
//! independent of M (Wigner-Eckart). The 3j and 6j symbols are exact integer sums
//! ([`crate::math::wigner`]) kept to ~106 bits with their square-root prefactors and multiplied
//! before one rounding, so every coefficient is the exact value correctly rounded (signs and tiny
//! values included), in well under a millisecond at l = 200. A is dimensionless and real, and
//! zero unless l satisfies the triangle and parity rules of [`multipoles`] and both pairs couple
//! to L; the Hamiltonian (eq. 12) uses `4π/(2l+1) A` ([`legendre_coupling`]).

use crate::math::wigner::{six_j_precise, three_j_precise, Precise};

/// The multipoles l with a nonzero coefficient between (l'a, l'b) and (la, lb): the triangle
/// rules |l'a - la| ≤ l ≤ l'a + la, |l'b - lb| ≤ l ≤ l'b + lb and even l'a + la + l, l'b + lb + l.
pub fn multipoles(lpa: u32, lpb: u32, la: u32, lb: u32) -> impl Iterator<Item = u32> {
    let low = lpa.abs_diff(la).max(lpb.abs_diff(lb));
    let high = (lpa + la).min(lpb + lb);
    (low..=high).filter(move |l| (lpa + la + l).is_multiple_of(2) && (lpb + lb + l).is_multiple_of(2))
}

/// A^{LM}_{l'a l'b la lb l} of eq. 16 (dimensionless), correctly rounded; 0 when a selection rule
/// fails (including |M| > L or a pair that cannot couple to L). Angular momenta up to a few
/// thousand (the exact sums grow like l²).
pub fn angular_coefficient(l_total: u32, m: i32, lpa: u32, lpb: u32, la: u32, lb: u32, l: u32) -> f64 {
    // A = (2l+1)/(4π) · 4π/(2l+1) A; (2l+1)/4 is exact in double precision.
    let factor = Precise::from_f64((2 * l + 1) as f64 / 4.0) * Precise::inverse_pi();
    (factor * coupling(l_total, m, lpa, lpb, la, lb, l)).to_f64()
}

/// `4π/(2l+1) A^{LM}_{l'a l'b la lb l}`: the factor that multiplies the radial repulsion
/// integral R^l in eq. 12 (= <(l'a l'b) L M | P_l(cos θ12) | (la lb) L M>), dimensionless,
/// correctly rounded.
pub fn legendre_coupling(l_total: u32, m: i32, lpa: u32, lpb: u32, la: u32, lb: u32, l: u32) -> f64 {
    coupling(l_total, m, lpa, lpb, la, lb, l).to_f64()
}

/// The closed form of the module docs before its rounding.
fn coupling(l_total: u32, m: i32, lpa: u32, lpb: u32, la: u32, lb: u32, l: u32) -> Precise {
    if m.unsigned_abs() > l_total || !multipoles(lpa, lpb, la, lb).any(|x| x == l) {
        return Precise::ZERO;
    }
    let [lt, lpa, lpb, la, lb, l] = [l_total, lpa, lpb, la, lb, l].map(|x| x as i32);
    // sqrt((2l'a+1)(2la+1)) sqrt((2l'b+1)(2lb+1)) of the reduced elements; the product is an
    // integer below 2^53 (exact in double precision) for l up to ~2000.
    let degeneracies = [lpa, la, lpb, lb].iter().map(|&x| (2 * x + 1) as f64).product::<f64>();
    let magnitude = Precise::from_f64(degeneracies).sqrt()
        * three_j_precise(lpa, l, la, 0, 0, 0)
        * three_j_precise(lpb, l, lb, 0, 0, 0)
        * six_j_precise(lpa, lpb, lt, lb, la, l);
    // (-1)^(la + l'b + L) of eq. 7.1.6 and (-1)^(l'a + l'b) of the reduced matrix elements.
    if (la + lpb + lt + lpa + lpb) % 2 == 0 {
        magnitude
    } else {
        -magnitude
    }
}
