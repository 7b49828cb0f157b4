//! CPU reference of the Sturmian integrals: rayon over pairs of functions and output columns,
//! the outer Gauss sums of a block as one product through faer's GEMM (module docs of
//! [`super`]).

use super::{pair_index, BlockJob, Channel, Kronecker, OneElectron, Order, Scalar, Target};
use crate::error::{Error, Result};
use crate::memory;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

use super::Grid;

/// Elements of C computed per tile (bounds the scratch memory: 2^26 complex values = 1 GiB).
const TILE_ELEMENTS: usize = 1 << 26;

/// The one-electron matrices of eq. 19 for a channel: (n', n) = Σ_j w_j S_n'(r_j) f(r_j) S_n(r_j)
/// with f = 1, 𝒱, 1/r and U.
pub(super) fn one_electron<T: Scalar>(
    grid: &Grid,
    values: &[T],
    n: usize,
    generating: &[f64],
    central: Option<&[f64]>,
) -> Result<OneElectron<T>> {
    let n_points = grid.n_points();
    let nq = grid.nq();
    let len = memory::elements::<T>("a one-electron matrix", n, n)?;
    let fs: Vec<Vec<f64>> = {
        let w = grid.weights();
        let r = grid.abscissas();
        let mut fs =
            vec![w.to_vec(), (0..nq).map(|j| w[j] * generating[j]).collect(), (0..nq).map(|j| w[j] / r[j]).collect()];
        if let Some(u) = central {
            fs.push((0..nq).map(|j| w[j] * u[j]).collect());
        }
        fs
    };
    let mut out: Vec<Vec<T>> =
        fs.iter().map(|_| memory::filled("a one-electron matrix", len, T::default())).collect::<Result<_>>()?;
    let gauss: Vec<usize> = (0..nq).map(|j| grid.gauss_row(j)).collect();
    for (f, m) in fs.iter().zip(out.iter_mut()) {
        m.par_chunks_mut(n).enumerate().for_each(|(col, column)| {
            let ket = &values[col * n_points..(col + 1) * n_points];
            for (row, x) in column.iter_mut().enumerate() {
                let bra = &values[row * n_points..(row + 1) * n_points];
                let mut sum = T::default();
                for (j, &p) in gauss.iter().enumerate() {
                    sum += bra[p] * ket[p] * f[j];
                }
                *x = sum;
            }
        });
    }
    let central = if central.is_some() { out.pop() } else { None };
    let inverse_r = out.pop().unwrap();
    let generating = out.pop().unwrap();
    let overlap = out.pop().unwrap();
    Ok(OneElectron { overlap, generating, inverse_r, central })
}

/// Rows (n', n) of [Ĝ | Q] (or [Q | Ĝ] when `q_first`) for the channel pair (bra, ket): row
/// n' + N' n holds Σ_l c_l g^l(r_j) (j = 0..Nq) and w_j S_n'(r_j) S_n(r_j), row-major M x 2 Nq.
pub(super) fn operand<T: Scalar>(
    grid: &Grid,
    bra: &Channel<T>,
    ket: &Channel<T>,
    couplings: &[(u32, f64)],
    q_first: bool,
) -> Result<Vec<T>> {
    let (nq, ns, n_points) = (grid.nq(), grid.ns(), grid.n_points());
    let m = memory::elements::<T>("an inner-integral matrix", bra.n, ket.n)?;
    let width = 2 * nq;
    let mut out = memory::filled(
        "an inner-integral matrix",
        memory::elements::<T>("an inner-integral matrix", m, width)?,
        T::default(),
    )?;
    let weights: Vec<(f64, Vec<f64>, Vec<f64>)> = couplings
        .iter()
        .map(|&(l, c)| {
            let (w, ratio) = grid.inner_weights(l);
            (c, w, ratio)
        })
        .collect();
    let (g_at, q_at) = if q_first { (nq, 0) } else { (0, nq) };
    out.par_chunks_mut(width).enumerate().for_each(|(pair, row)| {
        let (ip, i) = (pair % bra.n, pair / bra.n);
        let s1 = &bra.values[ip * n_points..(ip + 1) * n_points];
        let s2 = &ket.values[i * n_points..(i + 1) * n_points];
        for (c, w, ratio) in &weights {
            let mut g = T::default();
            for j in (0..nq).rev() {
                let first = grid.gauss_row(j);
                let mut h = T::default();
                for s in 0..ns + 2 {
                    h += s1[first + s] * s2[first + s] * w[j * (ns + 2) + s];
                }
                g = h + g * ratio[j];
                row[g_at + j] += g * *c;
            }
        }
        for (j, (&w, x)) in grid.weights().iter().zip(&mut row[q_at..q_at + nq]).enumerate() {
            let p = grid.gauss_row(j);
            *x = s1[p] * s2[p] * w;
        }
    });
    Ok(out)
}

/// The repulsion block of `job` into `out` (module docs of [`super`]): C = [Ĝa | Qa] [Qb | Ĝb]^T
/// tile by tile over the slower ket index, each tile permuted into the block's order.
pub(super) fn block<T: Scalar>(
    grid: &Grid,
    channels: &[Channel<T>],
    job: &BlockJob,
    order: Order,
    out: Target<'_, T>,
) -> Result<()> {
    let Target::Host { data, ld } = out else {
        return Err(Error::Internal(
            "a device target reached the CPU backend (Sturmian::check_target refuses it)".into(),
        ));
    };
    let width = 2 * grid.nq();
    let a = operand(grid, &channels[job.bra_a], &channels[job.ket_a], &job.couplings, false)?;
    let b = operand(grid, &channels[job.bra_b], &channels[job.ket_b], &job.couplings, true)?;
    let [npa, na, npb, nb] = job.n;
    let slow = job.slow_count(order);
    // Ket functions of the slow index per tile.
    let per_tile = (TILE_ELEMENTS / (job.m() * job.n() / slow).max(1)).clamp(1, slow);
    let mut tile = memory::filled(
        "a repulsion tile",
        memory::elements::<T>("a repulsion tile", job.m() * job.n() / slow, per_tile)?,
        T::default(),
    )?;
    let a_all = MatRef::from_row_major_slice(&a, job.m(), width);
    let b_all = MatRef::from_row_major_slice(&b, job.n(), width);
    for t0 in (0..slow).step_by(per_tile) {
        let t1 = (t0 + per_tile).min(slow);
        // Tile of C: AFastest: all rows x columns (n'b, nb in t0..t1); BFastest: rows (n'a, na in t0..t1) x all columns.
        let (rows, cols, a_t, b_t) = match order {
            Order::AFastest => (job.m(), npb * (t1 - t0), a_all, b_all.subrows(npb * t0, npb * (t1 - t0))),
            Order::BFastest => (npa * (t1 - t0), job.n(), a_all.subrows(npa * t0, npa * (t1 - t0)), b_all),
        };
        let mut c = MatMut::from_column_major_slice_mut(&mut tile[..rows * cols], rows, cols);
        faer::linalg::matmul::matmul(c.as_mut(), Accum::Replace, a_t, b_t.transpose(), T::real(1.0), Par::rayon(0));
        // Output columns (na, nb) of this tile are contiguous: [t0, t1) times the fast ket count.
        let fast = match order {
            Order::AFastest => na,
            Order::BFastest => nb,
        };
        let c = &tile[..rows * cols];
        let col0 = t0 * fast;
        data[col0 * ld..].par_chunks_mut(ld).take((t1 - t0) * fast).enumerate().for_each(|(k, column)| {
            let col = col0 + k;
            let (ia, ib) = match order {
                Order::AFastest => (col % na, col / na),
                Order::BFastest => (col / nb, col % nb),
            };
            for ibp in 0..npb {
                for iap in 0..npa {
                    // C row (n'a, na), column (n'b, nb), relative to the tile.
                    let (cr, cc) = match order {
                        Order::AFastest => (iap + npa * ia, ibp + npb * (ib - t0)),
                        Order::BFastest => (iap + npa * (ia - t0), ibp + npb * ib),
                    };
                    column[pair_index(order, iap, ibp, npa, npb)] = c[cr + rows * cc];
                }
            }
        });
    }
    Ok(())
}

/// Writes (or adds, with `accumulate`) Σ_t A_t ⊗ B_t into `out` in `order` (zeros when the
/// product has no terms).
pub(super) fn kronecker<T: Scalar>(k: &Kronecker<T>, order: Order, out: Target<'_, T>, accumulate: bool) -> Result<()> {
    let Target::Host { data, ld } = out else {
        return Err(Error::Internal(
            "a device target reached the CPU backend (Sturmian::check_target refuses it)".into(),
        ));
    };
    let (rows, cols, na, nb) = (k.rows(), k.cols(), k.na, k.nb);
    data.par_chunks_mut(ld).take(cols).enumerate().for_each(|(col, column)| {
        if k.terms.is_empty() {
            if !accumulate {
                column[..rows].iter_mut().for_each(|x| *x = T::default());
            }
            return;
        }
        let (ia, ib) = match order {
            Order::AFastest => (col % na, col / na),
            Order::BFastest => (col / nb, col % nb),
        };
        for ibp in 0..nb {
            for iap in 0..na {
                let mut v = T::default();
                for (a, b) in &k.terms {
                    v += a[iap + na * ia] * b[ibp + nb * ib];
                }
                let x = &mut column[pair_index(order, iap, ibp, na, nb)];
                *x = if accumulate { *x + v } else { v };
            }
        }
    });
    Ok(())
}
