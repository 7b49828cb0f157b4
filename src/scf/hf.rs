//! Closed-shell non-relativistic atomic Hartree-Fock-Roothaan (CPU reference): per symmetry l the
//! generalised eigenproblem F^l C = S^l C ε, with F from the densities through the supermatrix of
//! [`super::supermatrix`] (module docs there for E and F).
//!
//! **Iteration.** Core-Hamiltonian start; each cycle builds F from the current D, damps it
//! (F ← (1 - d) F + d F_previous, DFRATOM's `dfctr`, default 0.3), diagonalises it in the
//! canonically orthogonalised basis X = U s^{-1/2} of S = U s Uᵀ, dropping eigenvectors with
//! s < 1e-10 max(s) (near-linear dependence), and occupies the `closed[l]` lowest orbitals of each
//! symmetry. It stops when max |D_new - D_old| over all symmetries falls below the threshold
//! (DFRATOM's `thdll`, default 1e-5), or after `max_iterations` (refused as not converged, with
//! the last energy in the message). The energy is evaluated from the converged D with the
//! undamped F of that D: E = ½ Σ_l tr D^l (h^l + F^l).

use super::one_electron::{one_electron, Nucleus};
use super::supermatrix::{Supermatrix, Symmetry};
use crate::backend::Backend;
use crate::error::{Error, Result};
use faer::{Mat, Side};

/// A closed-shell Hartree-Fock calculation.
#[derive(Clone, Debug)]
pub struct HfSpec {
    pub symmetries: Vec<Symmetry>,
    /// Nuclear charge Z (> 0).
    pub nuclear_charge: f64,
    pub nucleus: Nucleus,
    /// Doubly occupied radial orbitals per symmetry (each holding 2(2l+1) electrons).
    pub closed: Vec<usize>,
    /// Fock damping d in [0, 1) (DFRATOM default 0.3).
    pub damping: f64,
    /// Convergence threshold on max |ΔD| (DFRATOM `thdll`, default 1e-5).
    pub threshold: f64,
    pub max_iterations: usize,
}

/// The result (hartree).
#[derive(Clone, Debug)]
pub struct HfResult {
    pub energy: f64,
    /// Σ tr(D T) and Σ tr(D V).
    pub kinetic: f64,
    pub nuclear: f64,
    /// ½ Σ tr(D G(D)).
    pub two_electron: f64,
    /// Occupied orbital energies per symmetry, ascending.
    pub orbital_energies: Vec<Vec<f64>>,
    pub iterations: usize,
}

/// One matrix or vector per symmetry.
type PerSymmetry = Vec<Vec<f64>>;

/// Per symmetry: S, h = T + V, T (n x n column-major).
struct OneBody {
    s: Vec<f64>,
    h: Vec<f64>,
    t: Vec<f64>,
}

/// The lowest `k` eigenpairs of F c = ε S c by canonical orthogonalisation (module docs):
/// (ε[k], C n x k column-major).
fn solve(n: usize, f: &[f64], s: &[f64], k: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let s_mat = Mat::from_fn(n, n, |i, j| s[i + n * j]);
    let se = s_mat
        .self_adjoint_eigen(Side::Lower)
        .map_err(|e| Error::NotConverged(format!("overlap eigensolver: {e:?}")))?;
    let sv = se.S().column_vector();
    let largest = (0..n).map(|i| sv[i]).fold(0.0f64, f64::max);
    let kept: Vec<usize> = (0..n).filter(|&i| sv[i] > 1e-10 * largest).collect();
    if kept.len() < k {
        return Err(Error::invalid(
            "exponents",
            format!("are linearly dependent: {} independent functions, {k} orbitals asked", kept.len()),
        ));
    }
    let x = Mat::from_fn(n, kept.len(), |i, j| se.U()[(i, kept[j])] / sv[kept[j]].sqrt());
    let f_mat = Mat::from_fn(n, n, |i, j| f[i + n * j]);
    // Sequential products: the matrices are small, and a parallel faer product here was measured
    // to leave later rayon work (the supermatrix of the next SCF) 12x slower on 2 cores.
    let product = |a: faer::MatRef<'_, f64>, b: faer::MatRef<'_, f64>| {
        let mut c = Mat::<f64>::zeros(a.nrows(), b.ncols());
        faer::linalg::matmul::matmul(c.as_mut(), faer::Accum::Replace, a, b, 1.0, faer::Par::Seq);
        c
    };
    let fp = product(x.transpose(), product(f_mat.as_ref(), x.as_ref()).as_ref());
    let fp = Mat::from_fn(kept.len(), kept.len(), |i, j| 0.5 * (fp[(i, j)] + fp[(j, i)]));
    let fe = fp.self_adjoint_eigen(Side::Lower).map_err(|e| Error::NotConverged(format!("Fock eigensolver: {e:?}")))?;
    let c = product(x.as_ref(), fe.U());
    let energies = (0..k).map(|i| fe.S().column_vector()[i]).collect();
    let vectors = (0..k).flat_map(|j| (0..n).map(move |i| (i, j))).map(|(i, j)| c[(i, j)]).collect();
    Ok((energies, vectors))
}

fn check(spec: &HfSpec) -> Result<()> {
    if spec.closed.len() != spec.symmetries.len() {
        return Err(Error::invalid(
            "closed",
            format!("must hold one count per symmetry ({}), got {}", spec.symmetries.len(), spec.closed.len()),
        ));
    }
    for (i, (s, &c)) in spec.symmetries.iter().zip(&spec.closed).enumerate() {
        if c > s.exponents.len() {
            return Err(Error::invalid_at(
                "closed",
                i,
                format!("{c} orbitals do not fit in {} functions", s.exponents.len()),
            ));
        }
    }
    if spec.closed.iter().all(|&c| c == 0) {
        return Err(Error::invalid("closed", "occupies no orbital"));
    }
    if !(0.0..1.0).contains(&spec.damping) {
        return Err(Error::invalid("damping", format!("must be in [0, 1), got {}", spec.damping)));
    }
    if !(spec.threshold.is_finite() && spec.threshold > 0.0) {
        return Err(Error::invalid("threshold", format!("must be finite and > 0, got {}", spec.threshold)));
    }
    if spec.max_iterations == 0 {
        return Err(Error::invalid("max_iterations", "must be >= 1"));
    }
    Ok(())
}

/// The density D^l_pq = Σ_{i < closed} 2(2l+1) c_pi c_qi of orbitals C (n x k).
fn density(l: u32, n: usize, c: &[f64], closed: usize) -> Vec<f64> {
    let occupation = 2.0 * (2 * l + 1) as f64;
    let mut d = vec![0.0; n * n];
    for i in 0..closed {
        let ci = &c[i * n..(i + 1) * n];
        for q in 0..n {
            for p in 0..n {
                d[p + n * q] += occupation * ci[p] * ci[q];
            }
        }
    }
    d
}

/// Fock matrices of densities `d` (per symmetry): h + G D'.
fn fock(g_matrix: &mut Supermatrix, one: &[OneBody], d: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
    let map = g_matrix.map().clone();
    let nbs = map.nbs();
    let mut folded = vec![0.0; map.n_pairs() as usize];
    for (l, dl) in d.iter().enumerate() {
        let n = nbs[l];
        for p in 0..n {
            for q in 0..=p {
                folded[map.pair_index(l, p, q) as usize] = if p == q { dl[p + n * q] } else { 2.0 * dl[p + n * q] };
            }
        }
    }
    let mut g = vec![0.0; folded.len()];
    g_matrix.contract(&folded, &mut g)?;
    Ok(one
        .iter()
        .enumerate()
        .map(|(l, o)| {
            let n = nbs[l];
            let mut f = o.h.clone();
            for p in 0..n {
                for q in 0..n {
                    let (a, b) = if p >= q { (p, q) } else { (q, p) };
                    f[p + n * q] += g[map.pair_index(l, a, b) as usize];
                }
            }
            f
        })
        .collect())
}

fn trace_product(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Runs the closed-shell SCF of `spec` (module docs) on `backend` (the supermatrix and the Fock
/// builds on the GPU when it is CUDA; the small per-symmetry eigenproblems stay on the CPU).
pub fn hartree_fock(backend: &Backend, spec: &HfSpec) -> Result<HfResult> {
    check(spec)?;
    let mut g_matrix = Supermatrix::new(backend, &spec.symmetries)?;
    let one = spec
        .symmetries
        .iter()
        .map(|s| {
            let m = one_electron(s.l, &s.exponents, spec.nuclear_charge, spec.nucleus)?;
            let h = m.kinetic.iter().zip(&m.nuclear).map(|(t, v)| t + v).collect();
            Ok(OneBody { s: m.overlap, h, t: m.kinetic })
        })
        .collect::<Result<Vec<_>>>()?;
    // Densities and occupied orbital energies per symmetry from Fock matrices `f`.
    let occupied = |f: &[Vec<f64>]| -> Result<(PerSymmetry, PerSymmetry)> {
        let mut densities = Vec::new();
        let mut energies = Vec::new();
        for (l, sym) in spec.symmetries.iter().enumerate() {
            let (n, k) = (sym.exponents.len(), spec.closed[l]);
            if k == 0 {
                densities.push(vec![0.0; n * n]);
                energies.push(Vec::new());
                continue;
            }
            let (e, c) = solve(n, &f[l], &one[l].s, k)?;
            densities.push(density(sym.l, n, &c, k));
            energies.push(e);
        }
        Ok((densities, energies))
    };
    let core: Vec<Vec<f64>> = one.iter().map(|o| o.h.clone()).collect();
    let (mut d, _) = occupied(&core)?;
    let mut previous: Option<Vec<Vec<f64>>> = None;
    for iteration in 1..=spec.max_iterations {
        let mut f = fock(&mut g_matrix, &one, &d)?;
        if let Some(old) = &previous {
            for (fl, ol) in f.iter_mut().zip(old) {
                for (x, y) in fl.iter_mut().zip(ol) {
                    *x = (1.0 - spec.damping) * *x + spec.damping * y;
                }
            }
        }
        let (d_new, energies) = occupied(&f)?;
        let change =
            d_new.iter().zip(&d).flat_map(|(a, b)| a.iter().zip(b)).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        previous = Some(f);
        d = d_new;
        if change < spec.threshold {
            return Ok(HfResult {
                orbital_energies: energies,
                iterations: iteration,
                ..energy_of(&mut g_matrix, &one, &d)?
            });
        }
    }
    let last = energy_of(&mut g_matrix, &one, &d)?.energy;
    Err(Error::NotConverged(format!(
        "the SCF did not reach max |ΔD| < {} in {} iterations; last energy {last:.10} hartree",
        spec.threshold, spec.max_iterations
    )))
}

/// E and its parts for densities `d` (module docs), orbital energies and iterations left empty.
fn energy_of(g_matrix: &mut Supermatrix, one: &[OneBody], d: &[Vec<f64>]) -> Result<HfResult> {
    let f = fock(g_matrix, one, d)?;
    let (mut e1, mut t, mut e2) = (0.0, 0.0, 0.0);
    for l in 0..d.len() {
        e1 += trace_product(&d[l], &one[l].h);
        t += trace_product(&d[l], &one[l].t);
        e2 += 0.5 * (trace_product(&d[l], &f[l]) - trace_product(&d[l], &one[l].h));
    }
    Ok(HfResult {
        energy: e1 + e2,
        kinetic: t,
        nuclear: e1 - t,
        two_electron: e2,
        orbital_energies: Vec::new(),
        iterations: 0,
    })
}
