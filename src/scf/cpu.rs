//! The two-electron supermatrix of atomic Hartree-Fock-Roothaan and Dirac-Fock-Roothaan in
//! spherical Gaussians ([`Blocks`]: the Dirac case replaces (l k l'; 0 0 0)²/2 by Γ^k and
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

use super::cuda::DeviceSupermatrix;
use super::index_map::TriangularMap;
use super::radial::{check_kappa, check_speed_of_light, large_l, RadialFunction};
use super::slater::{charge_density, densities_slater};
use super::{tracked, Watch};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::math::wigner::{three_j, three_j_doubled};
use faer::{Mat, MatRef};
use rayon::prelude::*;

/// One non-relativistic symmetry of the basis: angular momentum l and its exponents (bohr⁻²).
#[derive(Clone, Debug, PartialEq)]
pub struct Symmetry {
    pub l: u32,
    pub exponents: Vec<f64>,
}

/// One Dirac symmetry: κ (s1/2: -1, p1/2: 1, p3/2: -2, d3/2: 2, d5/2: -3, …) and the exponents
/// (bohr⁻²) of its large components; the small components follow by kinetic balance.
#[derive(Clone, Debug, PartialEq)]
pub struct Spinor {
    pub kappa: i32,
    pub exponents: Vec<f64>,
}

/// The exchange weights (l k l'; 0 0 0)² of the allowed k, as (k, weight).
pub fn exchange_weights(l: u32, lp: u32) -> Vec<(u32, f64)> {
    (l.abs_diff(lp)..=l + lp).step_by(2).map(|k| (k, three_j(l as i32, k as i32, lp as i32, 0, 0, 0).powi(2))).collect()
}

/// The relativistic exchange weights Γ^k = (j k j'; ½ 0 -½)² of symmetries κ, κ', over the k
/// with |j - j'| <= k <= j + j' and l + l' + k even (Grant, *Relativistic Quantum Theory of
/// Atoms and Molecules*, §6.7, closed subshells), as (k, Γ^k).
pub fn dirac_exchange_weights(kappa: i32, kappa_p: i32) -> Vec<(u32, f64)> {
    let (tj, tjp) = (2 * kappa.abs() - 1, 2 * kappa_p.abs() - 1);
    let (l, lp) = (large_l(kappa), large_l(kappa_p));
    ((tj - tjp).unsigned_abs() / 2..=((tj + tjp) / 2) as u32)
        .filter(|k| (l + lp + k) % 2 == 0)
        .map(|k| (k, three_j_doubled(tj, 2 * k as i32, tjp, 1, 0, -1).powi(2)))
        .collect()
}

/// The functions and exchange factors of a supermatrix: block b (a symmetry) holds the radial
/// functions of its matrices in order, and G of blocks (a, b) takes
///
/// ```text
/// G[(a,pq), (b,rs)] = R^0(pq, rs) - Σ_k c_k(a, b) [R^k(pr, qs) + R^k(ps, qr)]
/// ```
///
/// with c_k = ¼ (l k l'; 0 0 0)² (non-relativistic) or ½ Γ^k (Dirac-Fock, functions large then
/// small; an R^k vanishes unless each electron's two functions share a component).
#[derive(Clone, Debug)]
pub struct Blocks {
    functions: Vec<Vec<RadialFunction>>,
    /// exchange[a][b]: (k, c_k).
    exchange: Vec<Vec<Vec<(u32, f64)>>>,
}

fn check_symmetry_exponents(i: usize, exponents: &[f64]) -> Result<()> {
    super::basis::check_exponents("exponents", exponents).map_err(|e| match e {
        Error::InvalidArgument { rule, .. } => Error::invalid_at("symmetries", i, format!("exponents: {rule}")),
        other => other,
    })
}

impl Blocks {
    /// The blocks of non-relativistic symmetries (each l at most once is the caller's choice;
    /// l <= 20).
    pub fn non_relativistic(symmetries: &[Symmetry]) -> Result<Self> {
        if symmetries.is_empty() {
            return Err(Error::invalid("symmetries", "must hold at least one symmetry"));
        }
        for (i, s) in symmetries.iter().enumerate() {
            check_symmetry_exponents(i, &s.exponents)?;
            if s.l > 20 {
                return Err(Error::invalid_at("symmetries", i, format!("l must be in [0, 20], got {}", s.l)));
            }
        }
        let functions =
            symmetries.iter().map(|s| s.exponents.iter().map(|&e| RadialFunction::large(s.l, e)).collect()).collect();
        let exchange = symmetries
            .iter()
            .map(|a| {
                symmetries
                    .iter()
                    .map(|b| exchange_weights(a.l, b.l).into_iter().map(|(k, w)| (k, 0.25 * w)).collect())
                    .collect()
            })
            .collect();
        Ok(Blocks { functions, exchange })
    }

    /// The blocks of Dirac symmetries for speed of light c (checked here; the two-electron
    /// integrals do not depend on it): per symmetry its n large functions, then their n
    /// normalised kinetically balanced small functions ([`super::radial`]).
    pub fn dirac(spinors: &[Spinor], speed_of_light: f64) -> Result<Self> {
        if spinors.is_empty() {
            return Err(Error::invalid("symmetries", "must hold at least one symmetry"));
        }
        check_speed_of_light(speed_of_light)?;
        for (i, s) in spinors.iter().enumerate() {
            check_symmetry_exponents(i, &s.exponents)?;
            check_kappa(s.kappa).map_err(|_| {
                Error::invalid_at("symmetries", i, format!("κ must be nonzero, l(κ) in [0, 20], got {}", s.kappa))
            })?;
        }
        let functions = spinors
            .iter()
            .map(|s| {
                let large = s.exponents.iter().map(|&e| RadialFunction::large(large_l(s.kappa), e));
                let small = s.exponents.iter().map(|&e| RadialFunction::small(s.kappa, e));
                large.chain(small).collect()
            })
            .collect();
        let exchange = spinors
            .iter()
            .map(|a| {
                spinors
                    .iter()
                    .map(|b| dirac_exchange_weights(a.kappa, b.kappa).into_iter().map(|(k, w)| (k, 0.5 * w)).collect())
                    .collect()
            })
            .collect();
        Ok(Blocks { functions, exchange })
    }

    /// The functions of every block.
    pub fn functions(&self) -> &[Vec<RadialFunction>] {
        &self.functions
    }

    /// (k, c_k) of blocks a, b.
    pub fn exchange(&self, a: usize, b: usize) -> &[(u32, f64)] {
        &self.exchange[a][b]
    }

    fn map(&self) -> TriangularMap {
        TriangularMap::new(&self.functions.iter().map(Vec::len).collect::<Vec<_>>())
    }
}

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
    let (fl, fm) = (&blocks.functions[set.l], &blocks.functions[set.m]);
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

/// The packed supermatrix of `blocks` (module docs) on the CPU, index i of the map holding
/// G_{yx}; rayon over the sets. A watch hears the fraction of the sets done after every
/// [`HOST_SETS_PER_REPORT`] of them.
fn host_supermatrix(blocks: &Blocks, mut watch: Watch<'_, '_>) -> Result<(TriangularMap, Vec<f64>)> {
    let map = blocks.map();
    let n = usize::try_from(map.n_sets()).map_err(|_| Error::invalid("symmetries", "give too many integral sets"))?;
    let mut packed = crate::memory::filled("the two-electron supermatrix", n, 0.0)?;
    let piece = if watch.is_some() { HOST_SETS_PER_REPORT } else { n.max(1) };
    for (c, sets) in packed.chunks_mut(piece).enumerate() {
        let first = c * piece;
        sets.par_iter_mut().enumerate().for_each(|(j, g)| *g = element(blocks, &map, (first + j) as u64));
        if let Some(w) = watch.as_deref_mut() {
            w((first + sets.len()) as f64 / n as f64)?;
        }
    }
    Ok((map, packed))
}

/// F_y = h_y + Σ_x G_{yx} D'_x over the pairs of the map (packed G, module docs): `folded` holds
/// D'_x = w_x D_x, `out` receives G D' (length T).
pub fn contract(map: &TriangularMap, packed: &[f64], folded: &[f64], out: &mut [f64]) {
    let t = map.n_pairs() as usize;
    out[..t].iter_mut().for_each(|x| *x = 0.0);
    for y in 0..t {
        let column = &packed[y * (y + 1) / 2..y * (y + 1) / 2 + y + 1];
        let mut sum = 0.0;
        for (x, &g) in column.iter().enumerate() {
            sum += g * folded[x];
            if x < y {
                out[x] += g * folded[y];
            }
        }
        out[y] += sum;
    }
}

/// The supermatrix on a backend: host memory (CPU reference) or device memory (one set per GPU
/// thread, contracted by cuBLAS `dspmv`).
pub struct Supermatrix {
    map: TriangularMap,
    storage: Storage,
}

enum Storage {
    Host(Vec<f64>),
    Device(Box<DeviceSupermatrix>),
}

impl Supermatrix {
    /// Computes the supermatrix of `blocks` on `backend`: the long call
    /// `atomgpu_scf_integrals_create` of the calling thread, which its progress callback and time
    /// limit can stop ([`crate::progress`]; `done` = the fraction of the integral sets computed,
    /// `total` = 1).
    pub fn new(backend: &Backend, blocks: &Blocks) -> Result<Self> {
        tracked(c"atomgpu_scf_integrals_create", 1.0, |watch| Self::build(backend, blocks, watch))
    }

    /// Computes the supermatrix of `blocks` on `backend`, telling `watch` the fraction of the
    /// integral sets done (on the device, the launches of a watched call are synchronised).
    pub(crate) fn build(backend: &Backend, blocks: &Blocks, watch: Watch<'_, '_>) -> Result<Self> {
        match backend {
            Backend::Cpu => {
                let (map, packed) = host_supermatrix(blocks, watch)?;
                Ok(Supermatrix { map, storage: Storage::Host(packed) })
            }
            Backend::Cuda(device) => {
                let map = blocks.map();
                let dev = DeviceSupermatrix::new(device.clone(), blocks, &map, watch)?;
                Ok(Supermatrix { map, storage: Storage::Device(Box::new(dev)) })
            }
        }
    }

    /// The triangular map of the sets.
    pub fn map(&self) -> &TriangularMap {
        &self.map
    }

    /// The packed supermatrix in host memory (a download on the GPU).
    pub fn packed(&self) -> Result<Vec<f64>> {
        match &self.storage {
            Storage::Host(p) => crate::memory::copy_of("the supermatrix", p),
            Storage::Device(d) => d.download(),
        }
    }

    /// The two-electron matrices G(D) of every block for densities D^b (symmetric m_b x m_b,
    /// bohr⁰; `None` for a block without electrons):
    ///
    /// ```text
    /// G(D)^a_pq = Σ_b Σ_rs G[(a,pq), (b,rs)] D^b_rs      (hartree),
    /// ```
    ///
    /// the two-electron part of the closed-shell Fock matrix F^a = h^a + G(D)^a, with
    /// E_2 = ½ Σ_a tr(D^a G(D)^a) (module docs). A density is read as its symmetric part
    /// ½ (D + Dᵀ). One contraction on the backend (a `dspmv` on the GPU).
    pub fn two_electron(&mut self, densities: &[Option<MatRef<'_, f64>>]) -> Result<Vec<Mat<f64>>> {
        let nbs = self.map.nbs().to_vec();
        if densities.len() != nbs.len() {
            return Err(Error::invalid(
                "densities",
                format!("must hold one matrix per symmetry ({}), got {}", nbs.len(), densities.len()),
            ));
        }
        let n_pairs = self.map.n_pairs() as usize;
        let mut folded = crate::memory::filled("the folded densities", n_pairs, 0.0)?;
        for (a, d) in densities.iter().enumerate() {
            let Some(d) = d else { continue };
            if d.nrows() != nbs[a] || d.ncols() != nbs[a] {
                return Err(Error::invalid_at("densities", a, format!("must be {0} x {0}", nbs[a])));
            }
            for p in 0..nbs[a] {
                for q in 0..=p {
                    // D'_x = w_x D_x with w = 2 off the diagonal: D_pq + D_qp.
                    folded[self.map.pair_index(a, p, q) as usize] =
                        if p == q { d[(p, q)] } else { d[(p, q)] + d[(q, p)] };
                }
            }
        }
        let mut product = crate::memory::filled("the contracted densities", n_pairs, 0.0)?;
        self.contract(&folded, &mut product)?;
        Ok(nbs
            .iter()
            .enumerate()
            .map(|(a, &m)| Mat::from_fn(m, m, |p, q| product[self.map.pair_index(a, p.max(q), p.min(q)) as usize]))
            .collect())
    }

    /// out = G folded (length T, the map's pair count).
    pub fn contract(&mut self, folded: &[f64], out: &mut [f64]) -> Result<()> {
        match &mut self.storage {
            Storage::Host(p) => {
                contract(&self.map, p, folded, out);
                Ok(())
            }
            Storage::Device(d) => d.contract(folded, out),
        }
    }
}
