//! The lowest eigenpairs of the real symmetric-definite problem H c = E S c assembled by
//! [`super::Basis::hamiltonian`]: on the CPU by faer (Cholesky S = L L^T, the standard problem
//! L^-1 H L^-T y = E y by faer's symmetric eigensolver, c = L^-T y), on the GPU by cuSOLVER's
//! `cusolverDnDsygvd` (the same reduction). Only the lower triangles of H and S are read (the
//! assembled H is symmetric up to the quadrature error of the GSF orthogonality, eq. 14).
//! Eigenvectors are S-normalised (c^T S c = 1), energies ascending in hartree.

use crate::backend::Backend;
use crate::error::{Error, Result};
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
    if k == 0 || k > n {
        return Err(Error::invalid("k", format!("must be in [1, n = {n}], got {k}")));
    }
    for (name, m, ld) in [("h", h, ldh), ("s", s, lds)] {
        let span = ld.checked_mul(n - 1).and_then(|x| x.checked_add(n));
        if ld < n || span.is_none_or(|span| m.len() < span) {
            return Err(Error::invalid(name, format!("must hold an {n} x {n} matrix with leading dimension >= {n}")));
        }
        for j in 0..n {
            if let Some(i) = (j..n).find(|&i| !m[i + ld * j].is_finite()) {
                return Err(Error::invalid_at(name, i + ld * j, "must be finite (lower triangle)"));
            }
        }
    }
    match backend {
        Backend::Cpu => cpu(n, h, ldh, s, lds, k),
        Backend::Cuda(device) => super::cuda::generalized_eigen(device, n, h, ldh, s, lds, k),
    }
}

fn symmetric_from_lower(n: usize, m: &[f64], ld: usize) -> Result<Mat<f64>> {
    memory::elements::<f64>("a copy of the matrix", n, n)?;
    let lower = MatRef::from_column_major_slice_with_stride(m, n, n, ld);
    Ok(Mat::from_fn(n, n, |i, j| if i >= j { lower[(i, j)] } else { lower[(j, i)] }))
}

fn cpu(n: usize, h: &[f64], ldh: usize, s: &[f64], lds: usize, k: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let hm = symmetric_from_lower(n, h, ldh)?;
    let sm = symmetric_from_lower(n, s, lds)?;
    let llt = sm.llt(Side::Lower).map_err(|_| Error::invalid("s", "is not positive definite (Cholesky failed)"))?;
    let l = llt.L();
    // X = L^-1 H, then C = L^-1 X^T = L^-1 H L^-T (H symmetric).
    let mut x = hm;
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, x.as_mut(), Par::rayon(0));
    let mut c = x.transpose().to_owned();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, c.as_mut(), Par::rayon(0));
    let c = Mat::from_fn(n, n, |i, j| 0.5 * (c[(i, j)] + c[(j, i)]));
    let eig =
        c.self_adjoint_eigen(Side::Lower).map_err(|e| Error::NotConverged(format!("symmetric eigensolver: {e:?}")))?;
    let values = eig.S().column_vector();
    let mut y = Mat::from_fn(n, k, |i, j| eig.U()[(i, j)]);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(l.transpose(), y.as_mut(), Par::rayon(0));
    let energies = (0..k).map(|i| values[i]).collect();
    let mut vectors = memory::with_capacity("the eigenvectors", n * k)?;
    for j in 0..k {
        vectors.extend((0..n).map(|i| y[(i, j)]));
    }
    Ok((energies, vectors))
}
