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
use super::index_map::{triangle, IntegralSet};
use super::layout::Blocks;
use super::slater::{charge_density, densities_slater, ChargePair, PairDensities, PairDensity};
use super::Watch;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::borrow::Cow;

/// G_{yx} of one set (module docs), its charge densities from `densities`.
fn element(blocks: &Blocks, densities: &PairDensities, set: IntegralSet) -> f64 {
    fold_terms(
        blocks,
        set,
        |a, b| densities.get(a, b),
        |coulomb| coulomb,
        |value, c, direct, swapped| value - c * (direct + swapped),
    )
}

/// The scale of G_{yx}: |R^0(pq, rs)| + Σ_k c_k (|R^k(pr, qs)| + |R^k(ps, qr)|) (bohr⁻¹), the
/// magnitudes of the terms the element adds up. Where Coulomb and exchange cancel, G is known
/// only to about 1e-16 of this scale, so two evaluations of G (CPU and GPU) agree to a fraction
/// of it, not of |G|.
pub fn element_scale(blocks: &Blocks, i: u64) -> f64 {
    let f = blocks.functions();
    let density = |a: usize, b: usize| Cow::Owned(charge_density(&f[a], &f[b]));
    fold_terms(blocks, blocks.map().set(i), density, f64::abs, |value, c, direct, swapped| {
        value + c * (direct.abs() + swapped.abs())
    })
}

/// Folds the terms of a set: `start(R^0(pq, rs))`, then `step(value, c_k, R^k(pr, qs),
/// R^k(ps, qr))` over the exchange multipoles k; `density(a, b)` is the charge density of
/// functions a and b (indices into [`Blocks::functions`]).
fn fold_terms<'d>(
    blocks: &Blocks,
    set: IntegralSet,
    density: impl Fn(usize, usize) -> Cow<'d, Option<PairDensity>>,
    start: impl Fn(f64) -> f64,
    step: impl Fn(f64, f64, f64, f64) -> f64,
) -> f64 {
    let (fl, fm) = (blocks.first()[set.l], blocks.first()[set.m]);
    let (p, q, r, s) = (fl + set.p, fl + set.q, fm + set.r, fm + set.s);
    let mut value = start(densities_slater(0, &density(p, q), &density(r, s)));
    let exchange = blocks.exchange(set.l, set.m);
    if !exchange.is_empty() {
        let (pr, qs, ps, qr) = (density(p, r), density(q, s), density(p, s), density(q, r));
        let (direct, swapped) = (ChargePair::new(&pr, &qs), ChargePair::new(&ps, &qr));
        for &(k, c) in exchange {
            value = step(value, c, direct.slater(k), swapped.slater(k));
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
    let densities = PairDensities::new(groups.blocks().functions())?;
    let same_pairs: Vec<_> = (0..same_map.n_pairs()).map(|y| same_map.pair(y)).collect();
    let mixed_pairs: Vec<_> = (0..n_mixed).map(|y| groups.mixed_pair(y)).collect();
    let same_element = |y: usize, x: usize| {
        let ((l, p, q), (m, r, s)) = (same_pairs[y], same_pairs[x]);
        element(groups.same(), &densities, IntegralSet { l, p, q, m, r, s })
    };
    fill(&mut same, piece, same_element, &mut report)?;
    let mixed_element = |y: usize, x: usize| groups.mixed_element(&densities, mixed_pairs[y], mixed_pairs[x]);
    fill(&mut mixed, piece, mixed_element, |done| report(n_same_sets + done))?;
    Ok((same, mixed))
}

/// packed[n'(y) + x] = value(y, x) over the packed triangle (x <= y), column by column, in
/// pieces of about `piece` sets (rayon over the columns of a piece), calling `report(sets done)`
/// after each.
fn fill(
    packed: &mut [f64],
    piece: usize,
    value: impl Fn(usize, usize) -> f64 + Sync,
    mut report: impl FnMut(usize) -> Result<()>,
) -> Result<()> {
    let mut rest = packed;
    let (mut y, mut done) = (0, 0);
    while !rest.is_empty() {
        let mut columns = Vec::new();
        let mut taken = 0;
        while taken < piece.max(1) && !rest.is_empty() {
            let (column, tail) = std::mem::take(&mut rest).split_at_mut(y + 1);
            columns.push((y, column));
            (rest, taken, y) = (tail, taken + y + 1, y + 1);
        }
        columns
            .into_par_iter()
            .for_each(|(y, column)| column.iter_mut().enumerate().for_each(|(x, g)| *g = value(y, x)));
        done += taken;
        report(done)?;
    }
    Ok(())
}

/// Column ranges of a packed triangle with about equal element counts, for [`contract`]'s tasks.
const CONTRACT_PIECES: usize = 64;

/// out = G x for the symmetric n x n matrix G of `packed` (upper triangle, column y at n'(y))
/// and x of length n: one group's part of F_y = h_y + Σ_x G_{yx} D'_x (module docs). Rayon over
/// [`CONTRACT_PIECES`] column ranges, each adding into its own vector, summed in order (the
/// same sums in the same order on every run).
pub(super) fn contract(packed: &[f64], x: &[f64], out: &mut [f64]) {
    let n = x.len();
    let total = triangle(n as u64) as f64;
    // Column y starts at element n'(y): the pieces cut at equal fractions of the elements.
    let cuts: Vec<usize> = (0..=CONTRACT_PIECES)
        .map(|i| {
            if i == CONTRACT_PIECES {
                n
            } else {
                ((2.0 * total * i as f64 / CONTRACT_PIECES as f64).sqrt() as usize).min(n)
            }
        })
        .collect();
    let parts: Vec<Vec<f64>> = cuts
        .par_windows(2)
        .map(|w| {
            let mut part = vec![0.0; n];
            for y in w[0]..w[1] {
                let column = &packed[y * (y + 1) / 2..y * (y + 1) / 2 + y + 1];
                let mut sum = 0.0;
                for (i, &g) in column[..y].iter().enumerate() {
                    sum += g * x[i];
                    part[i] += g * x[y];
                }
                part[y] += sum + column[y] * x[y];
            }
            part
        })
        .collect();
    out[..n].iter_mut().for_each(|v| *v = 0.0);
    for part in &parts {
        out[..n].iter_mut().zip(part).for_each(|(o, p)| *o += p);
    }
}
