//! The layout of a two-electron supermatrix: its blocks (one per symmetry of the basis), the radial
//! functions of each block, and the exchange factors c_k of each pair of blocks
//! ([`Blocks`]). The CPU reference (`cpu.rs`) and the device (`cuda.rs`) both compute the
//! supermatrix of a [`Blocks`] on its triangular map ([`super::index_map`]).

use super::index_map::TriangularMap;
use super::radial::{check_kappa, check_speed_of_light, large_l, RadialFunction};
use crate::error::{Error, Result};
use crate::math::wigner::{three_j, three_j_doubled};

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
///
/// The functions lie flat, block after block, with the offset of each block's first function:
/// the one layout that the CPU reference reads (through [`Blocks::block`]) and the device takes
/// as it is (`cuda.rs`: one array per field, indexed by the same offsets).
#[derive(Clone, Debug)]
pub struct Blocks {
    /// The radial functions of every block, block after block.
    functions: Vec<RadialFunction>,
    /// first[b]: the index in `functions` of block b's first function; first[n_blocks] = the
    /// number of functions.
    first: Vec<usize>,
    /// exchange[a][b]: (k, c_k).
    exchange: Vec<Vec<Vec<(u32, f64)>>>,
}

/// The offsets of blocks of `sizes` functions laid one after another: 0, then the running sums.
fn offsets(sizes: impl Iterator<Item = usize>) -> Vec<usize> {
    std::iter::once(0)
        .chain(sizes.scan(0, |end, n| {
            *end += n;
            Some(*end)
        }))
        .collect()
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
            symmetries.iter().flat_map(|s| s.exponents.iter().map(|&e| RadialFunction::large(s.l, e))).collect();
        let first = offsets(symmetries.iter().map(|s| s.exponents.len()));
        let exchange = symmetries
            .iter()
            .map(|a| {
                symmetries
                    .iter()
                    .map(|b| exchange_weights(a.l, b.l).into_iter().map(|(k, w)| (k, 0.25 * w)).collect())
                    .collect()
            })
            .collect();
        Ok(Blocks { functions, first, exchange })
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
            .flat_map(|s| {
                let large = s.exponents.iter().map(|&e| RadialFunction::large(large_l(s.kappa), e));
                let small = s.exponents.iter().map(|&e| RadialFunction::small(s.kappa, e));
                large.chain(small)
            })
            .collect();
        let first = offsets(spinors.iter().map(|s| 2 * s.exponents.len()));
        let exchange = spinors
            .iter()
            .map(|a| {
                spinors
                    .iter()
                    .map(|b| dirac_exchange_weights(a.kappa, b.kappa).into_iter().map(|(k, w)| (k, 0.5 * w)).collect())
                    .collect()
            })
            .collect();
        Ok(Blocks { functions, first, exchange })
    }

    /// Blocks of `functions` (block b: functions[first[b]..first[b+1]]) with exchange factors
    /// exchange[a][b] = (k, c_k) ([`super::groups`] splits a basis into such blocks).
    pub(super) fn from_parts(
        functions: Vec<RadialFunction>,
        first: Vec<usize>,
        exchange: Vec<Vec<Vec<(u32, f64)>>>,
    ) -> Self {
        Blocks { functions, first, exchange }
    }

    /// The number of blocks (symmetries).
    pub fn n_blocks(&self) -> usize {
        self.first.len() - 1
    }

    /// The functions of every block, block after block.
    pub fn functions(&self) -> &[RadialFunction] {
        &self.functions
    }

    /// The offset of each block's first function in [`Blocks::functions`], and the number of
    /// functions last (n_blocks + 1 values).
    pub fn first(&self) -> &[usize] {
        &self.first
    }

    /// The functions of block b.
    pub fn block(&self, b: usize) -> &[RadialFunction] {
        &self.functions[self.first[b]..self.first[b + 1]]
    }

    /// (k, c_k) of blocks a, b.
    pub fn exchange(&self, a: usize, b: usize) -> &[(u32, f64)] {
        &self.exchange[a][b]
    }

    /// The triangular map of the integral sets of these blocks.
    pub(super) fn map(&self) -> TriangularMap {
        TriangularMap::new(&self.first.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>())
    }
}
