//! Exchange-symmetrised two-electron basis for identical particles (issue item 4's option).
//!
//! Electron exchange P12 maps a product function of pair (la, lb) onto one of pair (lb, la):
//! Y^{LM}_{la lb}(r̂2, r̂1) = (-1)^{la+lb-L} Y^{LM}_{lb la}(r̂1, r̂2) (Clebsch-Gordan symmetry
//! <la ma lb mb|LM> = (-1)^{la+lb-L} <lb mb la ma|LM>), so, when both electrons have the same
//! radial functions for every l,
//!
//! ```text
//! P12 Φ_{(la,lb),(na,nb)} = σ Φ_{(lb,la),(nb,na)},        σ = (-1)^{la+lb-L}.
//! ```
//!
//! The symmetrised functions are Φ^s_k = N_k (1 + s P12) Φ_k with s = +1 (spatially symmetric:
//! spin singlet for two electrons) or s = -1 (antisymmetric: triplet), for the pairs la <= lb
//! only; for la = lb the functions with na <= nb are kept (na < nb when sσ = -1, since then
//! Φ^s_{nn} = 0), because Φ^s_{(nb,na)} = sσ Φ^s_{(na,nb)}. N_k = 1/√2, and 1/2 for la = lb,
//! na = nb (where (1 + s P12) Φ = 2 Φ), so that an orthonormal product basis stays orthonormal.
//! Since H commutes with P12 and P12² = 1,
//!
//! ```text
//! <Φ^s_k'|H|Φ^s_k> = 2 N_k' N_k [ H_d(p', p)[k', k] + s σ_k H_d(p', p̄)[k', k̄] ]
//!                  = φ_k' ( φ_k H_d(p', p)[k', k] + φ_k s σ_k H_d(p', p̄)[k', k̄] ),
//! ```
//!
//! with H_d the direct blocks of eq. 12, p̄ = (lb, la), k̄ = (nb, na) and φ_k = √2 N_k (1, or
//! 1/√2 for la = lb, na = nb); the same holds for S. A block is thus gathered from at most two
//! direct blocks (one when la = lb, where p̄ = p) by the index maps of this module.

use super::{pair_index, Order};

/// σ = (-1)^{la+lb-L} of P12 Φ_{(la,lb)} = σ Φ_{(lb,la)}.
fn sigma(la: u32, lb: u32, l_total: u32) -> f64 {
    if (la + lb + l_total).is_multiple_of(2) {
        1.0
    } else {
        -1.0
    }
}

/// Whether a pair (l, l) keeps its functions with na = nb: Φ^s_{nn} ∝ (1 + sσ) Φ_{nn} vanishes
/// when sσ = -1.
fn keeps_diagonal(l: u32, l_total: u32, s: f64) -> bool {
    s * sigma(l, l, l_total) > 0.0
}

/// Which functions of a pair's direct block a symmetrised block keeps, and with what weights:
/// symmetrised function i is `factor[i]` times direct function `index[i]` plus
/// `partner_factor[i]` times function `partner[i]` of the swapped pair's direct block.
#[derive(Clone, Debug, Default)]
pub(crate) struct IndexMap {
    pub index: Vec<usize>,
    pub partner: Vec<usize>,
    pub factor: Vec<f64>,
    pub partner_factor: Vec<f64>,
}

impl IndexMap {
    /// The symmetrised functions of pair (la, lb) (la <= lb) with `n_la`, `n_lb` radial functions,
    /// for total angular momentum `l_total` and exchange sign `s` (±1), in the order of the
    /// direct block (`order`).
    pub fn new(la: u32, lb: u32, n_la: usize, n_lb: usize, l_total: u32, s: f64, order: Order) -> Self {
        let sigma = sigma(la, lb, l_total);
        let mut map = IndexMap::default();
        for k in 0..n_la * n_lb {
            let (na, nb) = match order {
                Order::AFastest => (k % n_la, k / n_la),
                Order::BFastest => (k / n_lb, k % n_lb),
            };
            let factor = if la == lb {
                if na > nb || (na == nb && !keeps_diagonal(la, l_total, s)) {
                    continue;
                }
                if na == nb {
                    std::f64::consts::FRAC_1_SQRT_2
                } else {
                    1.0
                }
            } else {
                1.0
            };
            map.index.push(k);
            // Function (nb, na) of pair (lb, la): electron a on l = lb (n_lb functions).
            map.partner.push(pair_index(order, nb, na, n_lb, n_la));
            map.factor.push(factor);
            map.partner_factor.push(factor * s * sigma);
        }
        map
    }

    /// Number of symmetrised functions.
    pub fn len(&self) -> usize {
        self.index.len()
    }
}

/// Number of symmetrised functions of pair (la, lb) with `n` radial functions per l (module
/// docs): N_la N_lb for la < lb, N(N+1)/2 or N(N-1)/2 for la = lb.
pub(crate) fn pair_count(la: u32, lb: u32, n_la: usize, n_lb: usize, l_total: u32, s: f64) -> usize {
    if la != lb {
        return n_la * n_lb;
    }
    if keeps_diagonal(la, l_total, s) {
        n_la * (n_la + 1) / 2
    } else {
        n_la * (n_la - 1) / 2
    }
}

/// Host gather of a symmetrised block (module docs): `out[r + ld_out c] = rows.factor[r]
/// (cols.factor[c] d1[i_r + ld j_c] + cols.partner_factor[c] d2[i_r + ld j̄_c])`, with i, j, j̄
/// the maps' indices into the direct blocks `d1` (pair p) and `d2` (pair p̄; `None`: zero), both
/// with leading dimension `ld`.
pub(crate) fn gather_host<T: super::Scalar>(
    d1: &[T],
    d2: Option<&[T]>,
    ld: usize,
    rows: &IndexMap,
    cols: &IndexMap,
    out: &mut [T],
    ld_out: usize,
) {
    use rayon::prelude::*;
    out.par_chunks_mut(ld_out).take(cols.len()).enumerate().for_each(|(c, column)| {
        let (j, f) = (cols.index[c] * ld, cols.factor[c]);
        let (jp, fp) = (cols.partner[c] * ld, cols.partner_factor[c]);
        for (r, x) in column[..rows.len()].iter_mut().enumerate() {
            let i = rows.index[r];
            let mut v = d1[i + j] * f;
            if let Some(d2) = d2 {
                v += d2[i + jp] * fp;
            }
            *x = v * rows.factor[r];
        }
    });
}
