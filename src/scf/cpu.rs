//! The two-electron supermatrix of atomic Hartree-Fock-Roothaan and Dirac-Fock-Roothaan in
//! spherical Gaussians ([`super::Blocks`]: the Dirac case replaces (l k l'; 0 0 0)²/2 by Γ^k and
//! carries large and small functions per symmetry), stored on the triangular map of [`super::index_map`] (one element per integral set
//! (L, P, Q, M, R, S), which is exactly the packed upper triangle of a symmetric T x T matrix).
//!
//! **Closed-shell energy and Fock matrix.** With orbitals φ_{ilm} = Σ_p c^l_{pi} R^l_p(r) Y_lm,
//! N_l = 2(2l+1) electrons per occupied radial orbital and the densities
//! D^l_{pq} = Σ_{i occ} N_l c^l_{pi} c^l_{qi}, summing the Coulomb and exchange integrals over m
//! and spin (Σ_{mm'} c^k(lm, l'm')² = (2l+1)(2l'+1) (l k l'; 0 0 0)²):
//!
//! ```text
//! E = Σ_l tr(D^l h^l) + ½ Σ_{l,l'} Σ_{pq,rs} D^l_pq D^l'_rs [R^0(pq, rs) - ½ Σ_k (l k l'; 0 0 0)² R^k(pr, qs)],
//! F^l_pq = ∂E/∂D^l_pq = h^l_pq + Σ_{l'} Σ_{rs} D^l'_rs [R^0(pq, rs) - ½ Σ_k (l k l'; 0 0 0)² R^k(pr, qs)],
//! ```
//!
//! (hartree; R^k the Slater integrals of [`super::slater`], electron 1 carrying the first two
//! functions). Folding the symmetric D onto pairs p >= q, r >= s (D'_rs = w_rs D_rs, w = 2 for
//! r > s, 1 for r = s) gives F_y = h_y + Σ_x G_{yx} D'_x and E = Σ_y w_y D_y h_y + ½ D'ᵀ G D' over
//! the pair indices x, y of the map, with the symmetric supermatrix
//!
//! ```text
//! G[(l,pq), (l',rs)] = R^0(pq, rs) - ¼ Σ_k (l k l'; 0 0 0)² [R^k(pr, qs) + R^k(ps, qr)],
//! ```
//!
//! k from |l - l'| to l + l' in steps of 2. Set i = n'(y) + x of the map holds G_{yx} (x <= y):
//! the packed upper-triangle layout that BLAS `dspmv` reads, so the Fock build is one packed
//! symmetric matrix-vector product.
//!
//! This file is the CPU reference of the family's supermatrix (rayon over the sets) and of its
//! contraction; `cuda.rs` computes the same on a GPU, [`super::ScfIntegrals`] chooses.

use super::groups::ComponentGroups;
use super::index_map::{triangle, TriangularMap};
use super::layout::Blocks;
use super::slater::{charge_density, densities_slater};
use super::Watch;
use crate::error::{Error, Result};
use rayon::prelude::*;

/// G_{yx} of one set (module docs).
fn element(blocks: &Blocks, map: &TriangularMap, i: u64) -> f64 {
    fold_terms(blocks, map, i, |coulomb| coulomb, |value, c, direct, swapped| value - c * (direct + swapped))
}

/// The scale of G_{yx}: |R^0(pq, rs)| + Σ_k c_k (|R^k(pr, qs)| + |R^k(ps, qr)|) (bohr⁻¹), the
/// magnitudes of the terms the element adds up. Where Coulomb and exchange cancel, G is known
/// only to about 1e-16 of this scale, so two evaluations of G (CPU and GPU) agree to a fraction
/// of it, not of |G|.
pub fn element_scale(blocks: &Blocks, i: u64) -> f64 {
    fold_terms(blocks, &blocks.map(), i, f64::abs, |value, c, direct, swapped| {
        value + c * (direct.abs() + swapped.abs())
    })
}

/// Folds the terms of set i: `start(R^0(pq, rs))`, then `step(value, c_k, R^k(pr, qs),
/// R^k(ps, qr))` over the exchange multipoles k.
fn fold_terms(
    blocks: &Blocks,
    map: &TriangularMap,
    i: u64,
    start: impl Fn(f64) -> f64,
    step: impl Fn(f64, f64, f64, f64) -> f64,
) -> f64 {
    let set = map.set(i);
    let (fl, fm) = (blocks.block(set.l), blocks.block(set.m));
    let (p, q, r, s) = (&fl[set.p], &fl[set.q], &fm[set.r], &fm[set.s]);
    let density = charge_density;
    let mut value = start(densities_slater(0, &density(p, q), &density(r, s)));
    let exchange = blocks.exchange(set.l, set.m);
    if !exchange.is_empty() {
        let (pr, qs, ps, qr) = (density(p, r), density(q, s), density(p, s), density(q, r));
        for &(k, c) in exchange {
            value = step(value, c, densities_slater(k, &pr, &qs), densities_slater(k, &ps, &qr));
        }
    }
    value
}

/// Integral sets the CPU computes between two reports of a watched call (about 0.1 s of two
/// cores for Dirac-Fock sets).
const HOST_SETS_PER_REPORT: usize = 1 << 18;

/// The two packed groups of the supermatrix of `groups` on the CPU ([`super::groups`]): the
/// same-component sets (index i of the sub-blocks' map holding G_{yx}) and the mixed ones; rayon
/// over the sets. A watch hears the fraction of all sets done after every
/// [`HOST_SETS_PER_REPORT`] of them.
pub(super) fn supermatrix(groups: &ComponentGroups, mut watch: Watch<'_, '_>) -> Result<(Vec<f64>, Vec<f64>)> {
    let (same_map, n_mixed) = (groups.same_map(), groups.n_mixed() as u64);
    let sets = |n: u64| usize::try_from(n).map_err(|_| Error::invalid("symmetries", "give too many integral sets"));
    let (n_same_sets, n_mixed_sets) = (sets(same_map.n_sets())?, sets(triangle(n_mixed))?);
    let total = (n_same_sets + n_mixed_sets) as f64;
    let mut same = crate::memory::filled("the two-electron supermatrix", n_same_sets, 0.0)?;
    let mut mixed = crate::memory::filled("the two-electron supermatrix (mixed pairs)", n_mixed_sets, 0.0)?;
    let piece = if watch.is_some() { HOST_SETS_PER_REPORT } else { usize::MAX };
    let mut report = |done: usize| watch.as_deref_mut().map_or(Ok(()), |w| w(done as f64 / total));
    fill(&mut same, piece, |i| element(groups.same(), same_map, i), &mut report)?;
    fill(&mut mixed, piece, |i| groups.mixed_element(i), |done| report(n_same_sets + done))?;
    Ok((same, mixed))
}

/// packed[i] = value(i) over all i, in pieces of `piece` sets (rayon within a piece), calling
/// `report(sets done)` after each.
fn fill(
    packed: &mut [f64],
    piece: usize,
    value: impl Fn(u64) -> f64 + Sync,
    mut report: impl FnMut(usize) -> Result<()>,
) -> Result<()> {
    let piece = piece.min(packed.len()).max(1);
    for (c, sets) in packed.chunks_mut(piece).enumerate() {
        let first = c * piece;
        sets.par_iter_mut().enumerate().for_each(|(j, g)| *g = value((first + j) as u64));
        report(first + sets.len())?;
    }
    Ok(())
}

/// out = G x for the symmetric n x n matrix G of `packed` (upper triangle, column y at n'(y))
/// and x of length n: one group's part of F_y = h_y + Σ_x G_{yx} D'_x (module docs).
pub(super) fn contract(packed: &[f64], x: &[f64], out: &mut [f64]) {
    let n = x.len();
    out[..n].iter_mut().for_each(|v| *v = 0.0);
    for y in 0..n {
        let column = &packed[y * (y + 1) / 2..y * (y + 1) / 2 + y + 1];
        let mut sum = 0.0;
        for (i, &g) in column.iter().enumerate() {
            sum += g * x[i];
            if i < y {
                out[i] += g * x[y];
            }
        }
        out[y] += sum;
    }
}
