//! TROVE's degenerate-species line strength, transcribed loop by loop from `dm_intensity_symmvec`
//! (TROVE dipole.f90, ABSORPTION branch) and its `degeneracy_filter`: the independent reference
//! of the batched degenerate path. Read from TROVE's source (github.com/Trovemaster/TROVE); the
//! code is written anew, with TROVE's names in the comments.
//!
//! For one lower level I and one upper level F of the species gammaI, gammaF:
//!
//! ```text
//!   do idegI = 1, ndegI                                  ! half-linestrength per lower component
//!     if (.not. degeneracy_filter(gammaI, gammaF, idegI, 1)) cycle      (half_linestr stays 0)
//!     vec(irootI) = sum_ielem vecI(isrootI) repres(isrootI, idegI, ib)   ! unfold
//!     half_linestr(:, idegI) = do_1st_half_linestrength(vec)             ! |vec| > THRESH_COEFF
//!   do idegF = 1, ndegF
//!     if (reduced .and. idegF /= 1) cycle
//!     vec_(irootF) = sum_ielem vecF(isrootF) repres(isrootF, idegF, ib)
//!     do idegI = 1, ndegI
//!       if (.not. degeneracy_filter(gammaI, gammaF, idegI, idegF)) cycle
//!       linestr_deg(idegI, idegF) = ddot(half_linestr(:, idegI), vec_)
//!   linestr = sum(linestr_deg**2);  if (.not. reduced) linestr = linestr / ndegI
//! ```
#![allow(dead_code)]

use atomgpu::linestrength::cpu::direct_half_linestrength;
use atomgpu::linestrength::BlockSpec;

/// TROVE's `degeneracy_filter(gammaI, gammaF, idegI, idegF)`: species and components 1-based, as
/// TROVE numbers them; `degen` the degeneracies of the group's species (1-based by species).
pub fn degeneracy_filter(
    group: &str,
    degen: &[usize],
    reduced: bool,
    gamma_i: usize,
    gamma_f: usize,
    ideg_i: usize,
    ideg_f: usize,
) -> bool {
    if degen[gamma_i - 1] == 1 || degen[gamma_f - 1] == 1 {
        return true;
    }
    if !reduced {
        return true;
    }
    match group {
        "C3V(M)" | "C3V" | "D3H(M)" | "D3H" => ideg_i == 2 && ideg_f == 1,
        "TD(M)" | "TD" => {
            (gamma_i == 4 && gamma_f == 5 && ideg_i == 2 && ideg_f == 1)
                || (gamma_i == 5 && gamma_f == 4 && ideg_i == 3 && ideg_f == 1)
                || (gamma_i == 3 && gamma_f == 3 && ideg_i == 2 && ideg_f == 1)
        }
        _ => true,
    }
}

/// One level in TROVE's representation: its block's labels, the dense unfolding of each component
/// (`repres(:, ideg, :)` as `n_primitive x n_sym` column-major matrices) and its symmetrised
/// eigenvector `vec` (length n_sym).
pub struct Level<'a> {
    pub spec: BlockSpec<'a>,
    pub repres: &'a [Vec<f64>],
    pub vec: &'a [f64],
}

impl Level<'_> {
    fn n_primitive(&self) -> usize {
        self.spec.v.len()
    }

    /// `sum_ielem vec(isroot) repres(isroot, ideg, ib)` for every primitive function (ideg 1-based).
    fn unfold(&self, ideg: usize) -> Vec<f64> {
        let p_count = self.n_primitive();
        let t = &self.repres[ideg - 1];
        (0..p_count).map(|p| self.vec.iter().enumerate().map(|(s, &c)| c * t[p + p_count * s]).sum()).collect()
    }
}

/// `linestr_deg(1:ndegI, 1:ndegF)` (column-major, Debye) and `linestr` (Debye^2, before g_ns and
/// the (2J+1) factors) of the line I -> F, as TROVE computes them; `filter(idegI, idegF)` is the
/// degeneracy filter of the pair (1-based components).
pub fn trove_linestrength(
    dipole: &[f64],
    n_vib: usize,
    lower: &Level<'_>,
    upper: &Level<'_>,
    thresh_coeff: f64,
    reduced: bool,
    filter: impl Fn(usize, usize) -> bool,
) -> (Vec<f64>, f64) {
    let (ndeg_i, ndeg_f) = (lower.repres.len(), upper.repres.len());
    let dimen_f = upper.n_primitive();
    let mut half_linestr = vec![vec![0.0; dimen_f]; ndeg_i];
    for ideg_i in 1..=ndeg_i {
        if !filter(ideg_i, 1) {
            continue;
        }
        let vec = lower.unfold(ideg_i);
        half_linestr[ideg_i - 1] =
            direct_half_linestrength(dipole, n_vib, &lower.spec, &vec, &upper.spec, thresh_coeff);
    }
    let mut linestr_deg = vec![0.0; ndeg_i * ndeg_f];
    for ideg_f in 1..=ndeg_f {
        if reduced && ideg_f != 1 {
            continue;
        }
        let vec_ = upper.unfold(ideg_f);
        for ideg_i in 1..=ndeg_i {
            if !filter(ideg_i, ideg_f) {
                continue;
            }
            linestr_deg[(ideg_i - 1) + ndeg_i * (ideg_f - 1)] =
                half_linestr[ideg_i - 1].iter().zip(&vec_).map(|(h, v)| h * v).sum();
        }
    }
    let mut linestr: f64 = linestr_deg.iter().map(|a| a * a).sum();
    if !reduced {
        linestr /= ndeg_i as f64;
    }
    (linestr_deg, linestr)
}
