//! A Generalized Sturmian basis for bound states (eq. 9), for tests, examples and callers that
//! have none: the functions solve
//!
//! ```text
//! [-1/2 d²/dr² + l(l+1)/(2r²) - Z/r - E] S_n = -β_n 𝒱 S_n,     𝒱(r) = -v0 e^(-r/a) / r   (Yukawa),
//! ```
//!
//! (hartree, bohr) with S_n(0) = 0 and S_n → 0 at infinity, normalised as ∫ S_n' (-𝒱) S_n dr = δ.
//!
//! **Method.** A Galerkin solve in M Laguerre functions φ_k(r) = N_k r^(l+1) e^(-λr)
//! L_k^(2l+2)(2λr), which are orthonormal on [0, ∞) (the Laguerre orthogonality with weight
//! x^(2l+2) e^(-x); N_k² = (2λ)^(2l+3) k! / (k+2l+2)!). With K = <φ|h - E|φ> (kinetic part as
//! 1/2 ∫ φ_i' φ_j', by parts) and B = <φ|-𝒱|φ>, both by a 1024-point Gauss-Legendre rule on
//! [0, (4M + 4l + 80)/(2λ)], the problem K c = β B c is solved as B c = μ K c (μ = 1/β) through
//! the Cholesky factor of K (positive definite when E lies below the channel's lowest level, which is
//! required) and faer's symmetric eigensolver; the N largest μ give the N smallest β > 0. The
//! functions are then exact combinations of the φ_k, evaluated at the grid points with no
//! interpolation, so that eq. 9's relation (which replaces the kinetic energy in eq. 12) holds to
//! the accuracy of the matrix elements, and a Hamiltonian built from them is a Rayleigh-Ritz
//! matrix in their span (variational) up to the grid's quadrature error. Rmax must lie beyond the
//! functions' extent: a function larger than 1e-4 of its maximum at Rmax is refused (argument
//! `energy`, which sets the decay e^{-√(-2E) r} as far as the parents' e^{-λr} can follow).

use super::Grid;
use crate::error::{Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use faer::{Mat, Par, Side};

/// Parameters of [`generate`].
#[derive(Clone, Copy, Debug)]
pub struct GsfSpec {
    /// Angular momentum l.
    pub l: u32,
    /// Nuclear charge Z of the central potential -Z/r (>= 0).
    pub nuclear_charge: f64,
    /// Energy E (hartree), below the lowest level -Z²/(2 (l+1)²) of the channel.
    pub energy: f64,
    /// Yukawa strength v0 (hartree bohr, > 0) and range a (bohr, > 0).
    pub yukawa_strength: f64,
    pub yukawa_range: f64,
    /// Laguerre functions M (>= n, <= 400) and their exponent λ (1/bohr, > 0).
    pub n_parent: usize,
    pub lambda: f64,
    /// Number of functions N returned.
    pub n: usize,
}

/// A generated channel: values on the grid's points (`n_points x n`), β (n, ascending), and 𝒱 at
/// the abscissas (Nq).
#[derive(Clone, Debug)]
pub struct Gsf {
    pub values: Vec<f64>,
    pub beta: Vec<f64>,
    pub generating: Vec<f64>,
}

/// Laguerre polynomials L_k^(alpha)(x), k = 0 .. out.len() - 1, by the three-term recurrence
/// (k+1) L_(k+1) = (2k + 1 + alpha - x) L_k - (k + alpha) L_(k-1).
fn laguerre(alpha: f64, x: f64, out: &mut [f64]) {
    let (mut previous, mut current) = (0.0, 1.0);
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = current;
        let kf = k as f64;
        let next = ((2.0 * kf + 1.0 + alpha - x) * current - (kf + alpha) * previous) / (kf + 1.0);
        (previous, current) = (current, next);
    }
}

/// The φ_k (k < m) and their derivatives (1/bohr) at r (bohr), using
/// d/dx L_k^(α)(x) = -L_(k-1)^(α+1)(x).
fn laguerre_functions(l: u32, lambda: f64, r: f64, phi: &mut [f64], dphi: &mut [f64]) {
    let m = phi.len();
    let alpha = (2 * l + 2) as f64;
    let x = 2.0 * lambda * r;
    let (mut la, mut la1) = (vec![0.0; m], vec![0.0; m]);
    laguerre(alpha, x, &mut la);
    laguerre(alpha + 1.0, x, &mut la1);
    // ln N_0 = ((2l+3) ln 2λ - ln (2l+2)!) / 2; N_k = N_(k-1) sqrt(k / (k + 2l + 2)).
    let ln_fact: f64 = (1..=2 * l + 2).map(|i| (i as f64).ln()).sum();
    let base =
        (0.5 * ((2 * l + 3) as f64 * (2.0 * lambda).ln() - ln_fact) + (l + 1) as f64 * r.ln() - lambda * r).exp();
    let mut norm = 1.0;
    for k in 0..m {
        if k > 0 {
            norm *= (k as f64 / (k as f64 + alpha)).sqrt();
        }
        let derivative = if k > 0 { -la1[k - 1] } else { 0.0 };
        phi[k] = norm * base * la[k];
        // d/dr [r^(l+1) e^(-λr) L(2λr)] = r^(l+1) e^(-λr) [((l+1)/r - λ) L + 2λ L'].
        dphi[k] = norm * base * (((l + 1) as f64 / r - lambda) * la[k] + 2.0 * lambda * derivative);
    }
}

/// Generates the channel of `spec` on `grid` (module docs).
pub fn generate(grid: &Grid, spec: &GsfSpec) -> Result<Gsf> {
    let GsfSpec { l, nuclear_charge: z, energy, yukawa_strength: v0, yukawa_range: a, n_parent: m, lambda, n } = *spec;
    if l > 40 {
        return Err(Error::invalid("l", format!("must be in [0, 40], got {l}")));
    }
    for (name, v) in [("yukawa_strength", v0), ("yukawa_range", a), ("lambda", lambda)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::invalid(name, format!("must be finite and > 0, got {v}")));
        }
    }
    if !(z.is_finite() && z >= 0.0) {
        return Err(Error::invalid("nuclear_charge", format!("must be finite and >= 0, got {z}")));
    }
    let lowest = -z * z / (2.0 * ((l + 1) * (l + 1)) as f64);
    if !(energy.is_finite() && energy < lowest) {
        return Err(Error::invalid(
            "energy",
            format!("must lie below the channel's lowest level {lowest} hartree, got {energy}"),
        ));
    }
    if m == 0 || m > 400 {
        return Err(Error::invalid("n_parent", format!("must be in [1, 400], got {m}")));
    }
    if n == 0 || n > m {
        return Err(Error::invalid("n", format!("must be in [1, n_parent = {m}], got {n}")));
    }
    let rule = GaussLegendre::new(1024).map_err(|e| Error::Internal(e.to_string()))?;
    let r_end = (4 * m + 4 * l as usize + 80) as f64 / (2.0 * lambda);
    let (nodes, weights) = rule.on_interval(0.0, r_end);
    let centrifugal = (l * (l + 1)) as f64 / 2.0;
    let mut k_mat = Mat::<f64>::zeros(m, m);
    let mut b_mat = Mat::<f64>::zeros(m, m);
    let (mut phi, mut dphi) = (vec![0.0; m], vec![0.0; m]);
    for (&r, &w) in nodes.iter().zip(&weights) {
        laguerre_functions(l, lambda, r, &mut phi, &mut dphi);
        let potential = centrifugal / (r * r) - z / r - energy;
        let yukawa = v0 * (-r / a).exp() / r;
        for j in 0..m {
            for i in j..m {
                k_mat[(i, j)] += w * (0.5 * dphi[i] * dphi[j] + potential * phi[i] * phi[j]);
                b_mat[(i, j)] += w * yukawa * phi[i] * phi[j];
            }
        }
    }
    let llt = k_mat
        .llt(Side::Lower)
        .map_err(|_| Error::invalid("energy", "leaves h - E not positive definite in the parent basis"))?;
    let lk = llt.L();
    let b_full = Mat::from_fn(m, m, |i, j| if i >= j { b_mat[(i, j)] } else { b_mat[(j, i)] });
    let mut x = b_full;
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, x.as_mut(), Par::Seq);
    let mut c = x.transpose().to_owned();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, c.as_mut(), Par::Seq);
    let c = Mat::from_fn(m, m, |i, j| 0.5 * (c[(i, j)] + c[(j, i)]));
    let eig = c.self_adjoint_eigen(Side::Lower).map_err(|e| Error::NotConverged(format!("GSF eigensolver: {e:?}")))?;
    let mu = eig.S().column_vector();
    // Largest μ last: take the n last columns, reversed (β ascending).
    let mut y = Mat::from_fn(m, n, |i, j| eig.U()[(i, m - 1 - j)]);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(lk.transpose(), y.as_mut(), Par::Seq);
    let mut beta = Vec::with_capacity(n);
    for j in 0..n {
        let muj = mu[m - 1 - j];
        if muj <= 0.0 {
            return Err(Error::NotConverged(format!("GSF {j} has a non-positive eigenvalue 1/β = {muj}")));
        }
        beta.push(1.0 / muj);
        let scale = 1.0 / muj.sqrt();
        for i in 0..m {
            y[(i, j)] *= scale;
        }
    }
    let points = grid.points();
    let mut values = vec![0.0; points.len() * n];
    for (p, &r) in points.iter().enumerate() {
        laguerre_functions(l, lambda, r, &mut phi, &mut dphi);
        for j in 0..n {
            values[p + points.len() * j] = (0..m).map(|k| y[(k, j)] * phi[k]).sum();
        }
    }
    check_decayed(grid, &values, n, energy)?;
    let generating = grid.abscissas().iter().map(|&r| -v0 * (-r / a).exp() / r).collect();
    Ok(Gsf { values, beta, generating })
}

/// Largest |S_n(Rmax)| / max_r |S_n(r)| accepted: the functions must have decayed at the grid's
/// end, since every integral of the family stops there (the tail beyond Rmax then weighs
/// ~1e-8 of a norm; Galerkin tails of ~4e-5 beyond the parents' extent are tolerated).
const MAX_VALUE_AT_RMAX: f64 = 1e-4;

/// Refuses functions (`n_points x n`) that have not decayed at Rmax, naming the energy (which
/// sets their decay e^{-√(-2E) r}, as far as the parent functions' e^{-λr} can follow) and the
/// remedies.
fn check_decayed(grid: &Grid, values: &[f64], n: usize, energy: f64) -> Result<()> {
    let np = grid.n_points();
    for j in 0..n {
        let column = &values[j * np..(j + 1) * np];
        let peak = column.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let end = column[np - 1].abs();
        if end > MAX_VALUE_AT_RMAX * peak {
            return Err(Error::invalid(
                "energy",
                format!(
                    "{energy} hartree gives function {j} that has not decayed at the grid's Rmax = {} bohr \
                     (|S(Rmax)| = {:.1e} of its maximum, above {MAX_VALUE_AT_RMAX:.0e}): lower the energy \
                     (or raise lambda, which bounds the decay), or use a grid with a larger Rmax",
                    grid.rmax(),
                    end / peak
                ),
            ));
        }
    }
    Ok(())
}
