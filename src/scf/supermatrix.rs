//! The two-electron supermatrix of non-relativistic atomic Hartree-Fock-Roothaan in spherical
//! Gaussians, stored on the triangular map of [`super::index_map`] (one element per integral set
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
use super::slater::{slater, Gaussian};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::math::wigner::three_j;
use rayon::prelude::*;

/// One symmetry of the basis: angular momentum l and its exponents (bohr⁻²).
#[derive(Clone, Debug, PartialEq)]
pub struct Symmetry {
    pub l: u32,
    pub exponents: Vec<f64>,
}

/// The exchange weights (l k l'; 0 0 0)² of the allowed k, as (k, weight).
pub fn exchange_weights(l: u32, lp: u32) -> Vec<(u32, f64)> {
    (l.abs_diff(lp)..=l + lp).step_by(2).map(|k| (k, three_j(l as i32, k as i32, lp as i32, 0, 0, 0).powi(2))).collect()
}

/// G_{yx} of one set (module docs).
fn element(symmetries: &[Symmetry], map: &TriangularMap, i: u64) -> Result<f64> {
    let set = map.set(i);
    let (sl, sm) = (&symmetries[set.l], &symmetries[set.m]);
    let g = |s: &Symmetry, n: usize| Gaussian { l: s.l, exponent: s.exponents[n] };
    let (p, q, r, s) = (g(sl, set.p), g(sl, set.q), g(sm, set.r), g(sm, set.s));
    let mut value = slater(0, p, q, r, s)?;
    for (k, weight) in exchange_weights(sl.l, sm.l) {
        value -= 0.25 * weight * (slater(k, p, r, q, s)? + slater(k, p, s, q, r)?);
    }
    Ok(value)
}

/// Checks the symmetries of a supermatrix.
fn check(symmetries: &[Symmetry]) -> Result<()> {
    if symmetries.is_empty() {
        return Err(Error::invalid("symmetries", "must hold at least one symmetry"));
    }
    for (i, s) in symmetries.iter().enumerate() {
        super::basis::check_exponents("exponents", &s.exponents).map_err(|e| match e {
            Error::InvalidArgument { rule, .. } => Error::invalid_at("symmetries", i, format!("exponents: {rule}")),
            other => other,
        })?;
        if s.l > 20 {
            return Err(Error::invalid_at("symmetries", i, format!("l must be in [0, 20], got {}", s.l)));
        }
    }
    Ok(())
}

fn map_of(symmetries: &[Symmetry]) -> TriangularMap {
    TriangularMap::new(&symmetries.iter().map(|s| s.exponents.len()).collect::<Vec<_>>())
}

/// The packed supermatrix of `symmetries` (module docs) on the CPU, index i of the map holding
/// G_{yx}; rayon over the sets.
pub fn supermatrix(symmetries: &[Symmetry]) -> Result<(TriangularMap, Vec<f64>)> {
    check(symmetries)?;
    let map = map_of(symmetries);
    let n = usize::try_from(map.n_sets()).map_err(|_| Error::invalid("symmetries", "give too many integral sets"))?;
    let mut packed = crate::memory::filled("the two-electron supermatrix", n, 0.0)?;
    packed.par_iter_mut().enumerate().try_for_each(|(i, g)| element(symmetries, &map, i as u64).map(|v| *g = v))?;
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
    /// Computes the supermatrix of `symmetries` on `backend`.
    pub fn new(backend: &Backend, symmetries: &[Symmetry]) -> Result<Self> {
        match backend {
            Backend::Cpu => {
                let (map, packed) = supermatrix(symmetries)?;
                Ok(Supermatrix { map, storage: Storage::Host(packed) })
            }
            Backend::Cuda(device) => {
                check(symmetries)?;
                let map = map_of(symmetries);
                let dev = DeviceSupermatrix::new(device.clone(), symmetries, &map)?;
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
