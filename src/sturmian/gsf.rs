//! A Generalized Sturmian basis for bound states (eq. 9), for tests, examples and callers that
//! have none: on the grid's interval [0, Rmax] the functions solve
//!
//! ```text
//! [-1/2 d²/dr² + l(l+1)/(2r²) - Z/r - E] S_n = -β_n 𝒱 S_n,     𝒱(r) = -v0 e^(-r/a) / r   (Yukawa),
//! ```
//!
//! (hartree, bohr) with S_n(0) = 0, normalised as ∫_0^Rmax S_n' (-𝒱) S_n dr = δ, and ending at
//! Rmax: the paper's basis lives on [0, Rmax] (§3: every integral stops there), and so do these
//! functions, either decayed there on their own (to 1e-6 of their size) or held to S_n(Rmax) = 0
//! by a wall. A function the wall cuts into (a high Coulomb Sturmian, a slowly decaying channel)
//! is the GSF of the box, as exact a basis for eq. 12 as any (the Hamiltonian stays a
//! Rayleigh-Ritz matrix of H in the span), with β_n above the open problem's (min-max: the box
//! is a smaller trial space).
//!
//! **Method.** A Galerkin solve in the span of Laguerre functions φ_k(r) = N_k r^(l+1) e^(-λr)
//! L_k^(2l+2)(2λr) (orthonormal on [0, ∞): the Laguerre orthogonality with weight x^(2l+2)
//! e^(-x); N_k² = (2λ)^(2l+3) k! / (k+2l+2)!) restricted to [0, Rmax], all integrals by a
//! 1024-point Gauss-Legendre rule on [0, b], b = min(Rmax, r_end), r_end = (4M + 4l + 80)/(2λ)
//! (beyond which every φ_k, k < M, is below e^-40 of its size):
//!
//! 1. the M φ_k, and the functions are kept when every one has decayed at Rmax to 1e-6 of its
//!    size (what the identity then misses beyond Rmax is measured below); else a wall: M + 1
//!    functions φ_0 … φ_M whose coefficient space is restricted to S(Rmax) = Σ c_k φ_k(Rmax) = 0
//!    (a Householder basis of the complement of φ(Rmax)), M dimensions again, whose functions
//!    end at Rmax, so that the by-parts kinetic energy on [0, Rmax] is theirs (a wall the
//!    functions do not need would only trade one parent direction for another: the helium
//!    example's numbers are those of the open solve);
//! 2. restricted to [0, Rmax] the parents are no longer orthonormal and, when many of them live
//!    mostly beyond Rmax, nearly dependent: the space is orthonormalised through the thin SVD
//!    of the parents' values at the rule's nodes, √w_j φ_k(r_j) = U Σ V^T, keeping σ > 1e-6
//!    max σ (the directions below hold functions absent from [0, Rmax] to that accuracy; the
//!    SVD rather than the overlap matrix, whose conditioning is the square, keeps the kept
//!    directions accurate to ~1e-16/1e-6);
//! 3. with K = <ψ|h - E|ψ> (kinetic part as 1/2 ∫ ψ' ψ', by parts) and B = <ψ|-𝒱|ψ> of the
//!    resulting orthonormal functions ψ, K c = β B c is solved as B c = μ K c (μ = 1/β) through
//!    the Cholesky factor of K (positive definite when E lies below the channel's lowest level,
//!    which is required) and faer's symmetric eigensolver; the N largest μ give the N smallest
//!    β > 0 (refused, naming `n`, when β_n exceeds 1e10 β_0: double precision no longer
//!    determines such a function's β and normalisation).
//!
//! The functions are exact combinations of the φ_k, evaluated at the grid points with no
//! interpolation, so that eq. 9's relation (which replaces the kinetic energy in eq. 12) holds in
//! the Galerkin sense on [0, Rmax], the interval of every integral of the family, to the accuracy
//! of the matrix elements: a Hamiltonian built from them is a Rayleigh-Ritz matrix in their span
//! (variational) up to the grid's quadrature error, whatever M. More parents converge the
//! functions towards eq. 9's exact solutions on [0, Rmax]. (The Galerkin error of a function
//! not yet converged is spread over the parents' whole extent, ~(4M + 4l)/(2λ): a generator that
//! let the functions run past Rmax and tested their size there refused exactly the parent counts
//! that converge them, as soon as that extent passed Rmax.)

use super::{Central, ChannelSpec, Electron, Grid};
use crate::error::{Error, Result};
use crate::math::gauss_legendre::GaussLegendre;
use faer::{Mat, Par, Side};
use once_cell::sync::Lazy;

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

/// A generated channel: values on the grid's points (`n_points x n`), β (n, ascending), 𝒱 at
/// the abscissas (Nq), and the spec it was generated from (its central potential -Z/r and
/// energy E, which the assembly needs: [`Gsf::channel`]).
#[derive(Clone, Debug)]
pub struct Gsf {
    pub values: Vec<f64>,
    pub beta: Vec<f64>,
    pub generating: Vec<f64>,
    pub spec: GsfSpec,
}

impl Gsf {
    /// The channel (`electron`, l) of these functions, carrying what they were generated with:
    /// U = -Z/r ([`Central::Coulomb`]) and the energy E, so that an assembly for any nuclear
    /// charge adds I[-Z/r - U] and uses this channel's own energy.
    pub fn channel(&self, electron: Electron) -> ChannelSpec<'_, f64> {
        ChannelSpec {
            electron,
            l: self.spec.l,
            n: self.spec.n,
            values: &self.values,
            ld: self.values.len() / self.spec.n,
            beta: &self.beta,
            generating: &self.generating,
            central: Central::Coulomb(self.spec.nuclear_charge),
            energy: Some(self.spec.energy),
        }
    }
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

/// Singular values of the restricted parents below this fraction of the largest are dropped
/// (method, step 2).
const DEPENDENCE: f64 = 1e-6;

/// Checks `spec` (argument names are the fields').
fn check_spec(spec: &GsfSpec) -> Result<()> {
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
    Ok(())
}

/// The parents on the 1024-point Gauss-Legendre rule of [0, b] (method): `a` = √w_j φ_k(r_j),
/// `d` = √w_j φ_k'(r_j) (nodes x M), and the potentials h - E (without the kinetic part) and
/// -𝒱 at the nodes.
struct Nodes {
    a: Mat<f64>,
    d: Mat<f64>,
    potential: Vec<f64>,
    yukawa: Vec<f64>,
}

/// The 1024-node Gauss-Legendre rule of the Galerkin integrals, made once per process (its
/// Golub-Welsch eigen-solve costs more than a small channel's whole solve).
static RULE: Lazy<GaussLegendre> = Lazy::new(|| GaussLegendre::new(1024).expect("1024 nodes is valid"));

fn nodes(spec: &GsfSpec, m: usize, b: f64) -> Result<Nodes> {
    let GsfSpec { l, nuclear_charge: z, energy, yukawa_strength: v0, yukawa_range: a, lambda, .. } = *spec;
    let (r, w) = RULE.on_interval(0.0, b);
    let centrifugal = (l * (l + 1)) as f64 / 2.0;
    let (mut values, mut derivatives) = (Mat::<f64>::zeros(r.len(), m), Mat::<f64>::zeros(r.len(), m));
    let (mut phi, mut dphi) = (vec![0.0; m], vec![0.0; m]);
    for j in 0..r.len() {
        laguerre_functions(l, lambda, r[j], &mut phi, &mut dphi);
        let sw = w[j].sqrt();
        for k in 0..m {
            values[(j, k)] = sw * phi[k];
            derivatives[(j, k)] = sw * dphi[k];
        }
    }
    Ok(Nodes {
        a: values,
        d: derivatives,
        potential: r.iter().map(|&x| centrifugal / (x * x) - z / x - energy).collect(),
        yukawa: r.iter().map(|&x| v0 * (-x / a).exp() / x).collect(),
    })
}

/// The coefficient space of the functions (method, steps 1-2): `M x r` coefficients of r
/// functions orthonormal on [0, b] (in the rule of `a`), orthogonal to `wall` (the parents at
/// Rmax) when it is given, from the thin SVD of the parents' node values (not their overlap
/// matrix, whose conditioning is the square).
fn trial_space(a: &Mat<f64>, wall: Option<Vec<f64>>) -> Result<Mat<f64>> {
    let m = a.ncols();
    let p = match wall.filter(|v| v.iter().any(|&x| x != 0.0)) {
        Some(mut u) => {
            // Householder H = I - 2 u u^T / u^T u with H v ∝ e_1: its columns 1.. span v⊥.
            let norm = u.iter().map(|x| x * x).sum::<f64>().sqrt();
            u[0] += norm.copysign(u[0]);
            let uu: f64 = u.iter().map(|x| x * x).sum();
            Mat::from_fn(m, m - 1, |i, j| f64::from(i == j + 1) - 2.0 * u[i] * u[j + 1] / uu)
        }
        None => Mat::identity(m, m),
    };
    let svd = (a * &p).thin_svd().map_err(|e| Error::NotConverged(format!("GSF parents' SVD: {e:?}")))?;
    let sigma = svd.S().column_vector();
    let largest = (0..sigma.nrows()).map(|i| sigma[i]).fold(0.0f64, f64::max);
    let kept: Vec<usize> = (0..sigma.nrows()).filter(|&i| sigma[i] > DEPENDENCE * largest).collect();
    let v = svd.V();
    let x = Mat::from_fn(p.ncols(), kept.len(), |i, c| v[(i, kept[c])] / sigma[kept[c]]);
    Ok(&p * &x)
}

/// Σ_j f_j x_(j,i) y_(j,k) (x^T diag(f) y).
fn weighted(x: &Mat<f64>, f: &[f64], y: &Mat<f64>) -> Mat<f64> {
    let fy = Mat::from_fn(y.nrows(), y.ncols(), |j, k| f[j] * y[(j, k)]);
    x.transpose() * fy
}

/// Generates the channel of `spec` on `grid` (module docs): without a wall when the functions
/// have decayed at Rmax on their own, else with one (whose refusal, if any, is reported).
pub fn generate(grid: &Grid, spec: &GsfSpec) -> Result<Gsf> {
    check_spec(spec)?;
    match solve(grid, spec, false) {
        Ok(open) if ends_at_rmax(grid, &open.values, spec.n) => Ok(open),
        _ => solve(grid, spec, true),
    }
}

/// Largest β_n / β_0 accepted: μ_n = 1/β_n comes out of the eigensolver to ~1e-16 μ_0
/// absolutely, so beyond this ratio a function's β and 𝒱-normalisation (eq. 14), which eq. 12
/// multiplies together, are known to worse than 1e-6.
const MAX_BETA_RATIO: f64 = 1e10;

/// Largest |S_n(Rmax)| / max |S_n| of functions that need no wall. The identity of eq. 9 on
/// [0, Rmax] then misses the boundary term S_m S_n'(Rmax)/2 and the (Galerkin) tails beyond
/// Rmax: measured, the helium example's N = 14 bases (tails up to 2.4e-7 at Rmax = 40 bohr) give
/// ground-state energies that move by 3e-10 hartree when the grid reaches 60 bohr and takes the
/// tails in. Above this the wall is cheaper than the tails.
const DECAYED_AT_RMAX: f64 = 1e-6;

/// Whether every function (`n_points x n`) has decayed at Rmax to [`DECAYED_AT_RMAX`].
fn ends_at_rmax(grid: &Grid, values: &[f64], n: usize) -> bool {
    let np = grid.n_points();
    values.chunks(np).take(n).all(|column| {
        let peak = column.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        column[np - 1].abs() <= DECAYED_AT_RMAX * peak
    })
}

/// The Galerkin solve of the module docs, with (`walled`) or without the wall at Rmax.
fn solve(grid: &Grid, spec: &GsfSpec, walled: bool) -> Result<Gsf> {
    let GsfSpec { l, yukawa_strength: v0, yukawa_range: a, n_parent, lambda, n, .. } = *spec;
    let rmax = grid.rmax();
    let extent = |m: usize| (4 * m + 4 * l as usize + 80) as f64 / (2.0 * lambda);
    // At the wall, M + 1 Laguerre functions less the direction that does not vanish there: M.
    let m = n_parent + usize::from(walled);
    let nodes = nodes(spec, m, rmax.min(extent(m)))?;
    let (mut phi, mut dphi) = (vec![0.0; m], vec![0.0; m]);
    let wall = walled.then(|| {
        laguerre_functions(l, lambda, rmax, &mut phi, &mut dphi);
        phi.clone()
    });
    let q = trial_space(&nodes.a, wall)?;
    let r = q.ncols();
    if r < n {
        return Err(Error::invalid(
            "n",
            format!(
                "must be <= the {r} independent functions the {n_parent} parents leave on [0, Rmax = {rmax}] bohr, got {n}: \
                 raise lambda (the parents then fit the interval) or lower n"
            ),
        ));
    }
    // K and B of the r functions from their node values (kinetic part 1/2 ∫ ψ' ψ', by parts).
    let (psi, dpsi) = (&nodes.a * &q, &nodes.d * &q);
    let half = vec![0.5; dpsi.nrows()];
    let kq = weighted(&dpsi, &half, &dpsi) + weighted(&psi, &nodes.potential, &psi);
    let bq = weighted(&psi, &nodes.yukawa, &psi);
    let kq = Mat::from_fn(r, r, |i, j| 0.5 * (kq[(i, j)] + kq[(j, i)]));
    let llt = kq
        .llt(Side::Lower)
        .map_err(|_| Error::invalid("energy", "leaves h - E not positive definite in the parent basis"))?;
    let lk = llt.L();
    let mut x = bq;
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, x.as_mut(), Par::Seq);
    let mut c = x.transpose().to_owned();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, c.as_mut(), Par::Seq);
    let c = Mat::from_fn(r, r, |i, j| 0.5 * (c[(i, j)] + c[(j, i)]));
    let eig = c.self_adjoint_eigen(Side::Lower).map_err(|e| Error::NotConverged(format!("GSF eigensolver: {e:?}")))?;
    let mu = eig.S().column_vector();
    // Largest μ last: take the n last columns, reversed (β ascending).
    let mut y = Mat::from_fn(r, n, |i, j| eig.U()[(i, r - 1 - j)]);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(lk.transpose(), y.as_mut(), Par::Seq);
    let mut beta = Vec::with_capacity(n);
    for j in 0..n {
        let muj = mu[r - 1 - j];
        if muj <= 0.0 {
            return Err(Error::NotConverged(format!("GSF {j} has a non-positive eigenvalue 1/β = {muj}")));
        }
        if muj * MAX_BETA_RATIO < mu[r - 1] {
            return Err(Error::invalid(
                "n",
                format!(
                    "asks for function {j}, whose β = {:.3e} is {:.1e} times β_0: its normalisation (eq. 14) is \
                     beyond double precision (the generating potential hardly reaches it), got n = {n}: lower n, or \
                     widen the generating potential (yukawa_range)",
                    1.0 / muj,
                    mu[r - 1] / muj
                ),
            ));
        }
        beta.push(1.0 / muj);
        let scale = 1.0 / muj.sqrt();
        for i in 0..r {
            y[(i, j)] *= scale;
        }
    }
    let coefficients = &q * &y;
    let points = grid.points();
    let mut values = vec![0.0; points.len() * n];
    for (p, &r) in points.iter().enumerate() {
        laguerre_functions(l, lambda, r, &mut phi, &mut dphi);
        for j in 0..n {
            values[p + points.len() * j] = (0..m).map(|k| coefficients[(k, j)] * phi[k]).sum();
        }
    }
    let generating = grid.abscissas().iter().map(|&r| -v0 * (-r / a).exp() / r).collect();
    Ok(Gsf { values, beta, generating, spec: *spec })
}
