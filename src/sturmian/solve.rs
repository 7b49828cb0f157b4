//! The lowest eigenpairs of the real symmetric-definite problem H c = E S c assembled by
//! [`super::Sturmian::hamiltonian`]: on the CPU by faer (Cholesky S = L L^T, the standard problem
//! L^-1 H L^-T y = E y by faer's symmetric eigensolver, c = L^-T y), on the GPU by cuSOLVER's
//! `cusolverDnDsygvd` (the same reduction). Only the lower triangles of H and S are read (the
//! assembled H is symmetric up to the quadrature error of the GSF orthogonality, eq. 14).
//! Eigenvectors are S-normalised (c^T S c = 1), energies ascending in hartree.
//!
//! **Scaling.** Any finite H and S are taken, however large or small (H near DBL_MAX, S
//! subnormal): both are first scaled by powers of two, H' = 2^-eh H with its largest |element| in
//! [1, 2) and S' = 2^-es S (es even) with its largest in [1, 4), which is exact (but for elements
//! far below the largest, which may round into the subnormal range: a relative change below 1e-300
//! of the matrix norm). The solve of H' c' = E' S' c' then sees no overflow or subnormal loss,
//! and the pairs scale back exactly: E = 2^(eh - es) E', c = 2^(-es/2) c'. Where a true
//! eigenvalue (or vector element) lies beyond double precision, the result is
//! `ATOMGPU_ERR_NOT_FINITE` ([`Error::NotFinite`], naming `energies` or `vectors`), never Inf or NaN.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::math::times_pow2;
use crate::memory;
use faer::{Mat, MatRef, Par, Side};

/// The `k` lowest eigenpairs: (energies[k], vectors n x k column-major).
pub fn lowest_eigenpairs(
    backend: &Backend,
    n: usize,
    h: &[f64],
    ldh: usize,
    s: &[f64],
    lds: usize,
    k: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (energies, vectors) = solve(backend, n, h, ldh, s, lds, k, true)?;
    Ok((energies, vectors.unwrap_or_default()))
}

/// The `k` lowest eigenvalues alone, as [`lowest_eigenpairs`] gives them (no eigenvector is
/// formed: faer's eigenvalue-only solver, cuSOLVER's `CUSOLVER_EIG_MODE_NOVECTOR`).
pub fn lowest_eigenvalues(
    backend: &Backend,
    n: usize,
    h: &[f64],
    ldh: usize,
    s: &[f64],
    lds: usize,
    k: usize,
) -> Result<Vec<f64>> {
    Ok(solve(backend, n, h, ldh, s, lds, k, false)?.0)
}

/// Checks the arguments, scales, solves on `backend` and scales back (module docs).
#[allow(clippy::too_many_arguments)]
fn solve(
    backend: &Backend,
    n: usize,
    h: &[f64],
    ldh: usize,
    s: &[f64],
    lds: usize,
    k: usize,
    vectors: bool,
) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
    if k == 0 || k > n {
        return Err(Error::invalid("k", format!("must be in [1, n = {n}], got {k}")));
    }
    let mut largest = [0.0f64; 2];
    for ((name, m, ld), largest) in [("h", h, ldh), ("s", s, lds)].into_iter().zip(&mut largest) {
        let span = ld.checked_mul(n - 1).and_then(|x| x.checked_add(n));
        if ld < n || span.is_none_or(|span| m.len() < span) {
            return Err(Error::invalid(name, format!("must hold an {n} x {n} matrix with leading dimension >= {n}")));
        }
        for j in 0..n {
            for (i, &x) in m[j * ld + j..j * ld + n].iter().enumerate() {
                if !x.is_finite() {
                    return Err(Error::invalid_at(name, j * ld + j + i, "must be finite (lower triangle)"));
                }
                *largest = largest.max(x.abs());
            }
        }
    }
    let scaling = Scaling::new(largest[0], largest[1]);
    let (mut energies, mut vecs) = match backend {
        Backend::Cpu => cpu(n, h, ldh, s, lds, k, scaling, vectors)?,
        Backend::Cuda(device) => {
            super::cuda::generalized_eigen(device, n, h, ldh, s, lds, k, (scaling.h, scaling.s), vectors)?
        }
    };
    scaling.unscale("energies", &mut energies, scaling.h - scaling.s)?;
    if let Some(v) = &mut vecs {
        scaling.unscale("vectors", v, -scaling.s / 2)?;
    }
    Ok((energies, vecs))
}

/// The powers of two of the module docs: H' = 2^-h H, S' = 2^-s S (s even).
#[derive(Clone, Copy, Debug)]
struct Scaling {
    pub h: i32,
    pub s: i32,
}

impl Scaling {
    /// From the largest |element| of H's and S's lower triangles (a zero matrix is not scaled).
    fn new(largest_h: f64, largest_s: f64) -> Self {
        let exponent = |x: f64| if x > 0.0 { binary_exponent(x) } else { 0 };
        Scaling { h: exponent(largest_h), s: 2 * exponent(largest_s).div_euclid(2) }
    }

    /// Multiplies `values` (the solution of the scaled problem) by 2^`e`; an element that leaves
    /// double precision (or was not finite) is [`Error::NotFinite`] at `name`.
    fn unscale(self, name: &'static str, values: &mut [f64], e: i32) -> Result<()> {
        for (i, x) in values.iter_mut().enumerate() {
            *x = times_pow2(*x, e.into());
            if !x.is_finite() {
                let detail = format!(
                    "the true value lies beyond double precision (H's largest element is about 2^{}, S's 2^{})",
                    self.h, self.s
                );
                return Err(Error::NotFinite { name, index: Some(i), detail });
            }
        }
        Ok(())
    }
}

/// floor(log2 |x|) for a finite nonzero x (subnormals included).
fn binary_exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased > 0 {
        biased - 1023
    } else {
        -1074 + 63 - bits.leading_zeros() as i32
    }
}

/// The full symmetric matrix 2^-`e` M from M's lower triangle.
fn symmetric_from_lower(n: usize, m: &[f64], ld: usize, e: i32) -> Result<Mat<f64>> {
    memory::elements::<f64>("a copy of the matrix", n, n)?;
    let lower = MatRef::from_column_major_slice_with_stride(m, n, n, ld);
    Ok(Mat::from_fn(n, n, |i, j| times_pow2(if i >= j { lower[(i, j)] } else { lower[(j, i)] }, (-e).into())))
}

/// The scaled problem on the CPU: the k lowest eigenvalues of H' c' = E' S' c' and, if asked
/// for, their S'-normalised vectors.
#[allow(clippy::too_many_arguments)]
fn cpu(
    n: usize,
    h: &[f64],
    ldh: usize,
    s: &[f64],
    lds: usize,
    k: usize,
    scaling: Scaling,
    vectors: bool,
) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
    let hm = symmetric_from_lower(n, h, ldh, scaling.h)?;
    let sm = symmetric_from_lower(n, s, lds, scaling.s)?;
    let llt = sm.llt(Side::Lower).map_err(|_| Error::invalid("s", "is not positive definite (Cholesky failed)"))?;
    let l = llt.L();
    // X = L^-1 H, then C = L^-1 X^T = L^-1 H L^-T (H symmetric).
    let mut x = hm;
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, x.as_mut(), Par::rayon(0));
    let mut c = x.transpose().to_owned();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, c.as_mut(), Par::rayon(0));
    let c = Mat::from_fn(n, n, |i, j| 0.5 * (c[(i, j)] + c[(j, i)]));
    let failed = |e| Error::NotConverged(format!("symmetric eigensolver: {e:?}"));
    if !vectors {
        let values = c.self_adjoint_eigenvalues(Side::Lower).map_err(failed)?;
        return Ok((values[..k].to_vec(), None));
    }
    let eig = c.self_adjoint_eigen(Side::Lower).map_err(failed)?;
    let values = eig.S().column_vector();
    let mut y = Mat::from_fn(n, k, |i, j| eig.U()[(i, j)]);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(l.transpose(), y.as_mut(), Par::rayon(0));
    let energies = (0..k).map(|i| values[i]).collect();
    let mut out = memory::with_capacity("the eigenvectors", n * k)?;
    for j in 0..k {
        out.extend((0..n).map(|i| y[(i, j)]));
    }
    Ok((energies, Some(out)))
}
