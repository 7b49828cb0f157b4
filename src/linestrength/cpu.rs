//! CPU reference of the line strengths: the GEMM formulation of eqs. 14-15 (multithreaded), and
//! [`direct_half_linestrength`], a line-by-line transcription of TROVE's eq. 14 loop against
//! which the GEMM path (CPU and GPU) is tested.
//!
//! Layouts (column-major, 0-based):
//! - dipole `M`: `Nvib x 3 Nvib`, column `v' + Nvib m` holds `dipole(:, v', m)`;
//! - lower batch `X`: `Nvib x (R n')`, column `r + R i'` holds the primitive coefficients of
//!   lower column i' on the functions of rotational slot r (R slots), indexed by v; the batch's
//!   columns are the components of its levels, i' = d + ndeg i for component d of level i;
//! - products `Y = M^T X`: `3 Nvib x (R n')`, row `v' + Nvib m`;
//! - half-linestrengths: `n_primitive(upper) x n'`;
//! - amplitudes: `n_states(upper) x (n' ndeg_F)`, column `i' + n' d_F`.

use super::rotation::{wang_factor, Contraction, COMPONENTS};
use super::{Block, BlockSpec, Csr, LowerVectors};
use crate::error::Result;
use crate::math::gemm::{dgemm, Strided};
use crate::memory;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// The CPU engine of a handle: the dipole matrix, the stored states and the products of the
/// last lower batch.
pub(crate) struct Engine {
    n_vib: usize,
    dipole: Vec<f64>,
    /// Stored eigenvectors per block, `n_coefficients x n_states` packed.
    states: HashMap<usize, Vec<f64>>,
    /// `Y` of the loaded lower batch, its slot count R and its columns n' (components x levels).
    products: Vec<f64>,
    lower_slots: usize,
    lower_columns: usize,
}

impl Engine {
    pub fn new(n_vib: usize, dipole: Vec<f64>) -> Self {
        Engine { n_vib, dipole, states: HashMap::new(), products: Vec::new(), lower_slots: 0, lower_columns: 0 }
    }

    pub fn set_states(&mut self, id: usize, packed: Vec<f64>) {
        self.states.insert(id, packed);
    }

    pub fn load_lower(&mut self, id: usize, block: &Block, vectors: LowerVectors<'_>, thresh_coeff: f64) -> Result<()> {
        let rows = block.n_coefficients();
        let (coefficients, n) = match vectors {
            LowerVectors::Given { data, ld, n } => {
                (packed_columns("the lower batch", data, rows, ld, (0..n).map(|i| i * ld))?, n)
            }
            LowerVectors::Stored(states) => {
                let stored = &self.states[&id];
                (packed_columns("the lower batch", stored, rows, rows, states.iter().map(|&s| s * rows))?, states.len())
            }
        };
        let primitive = unfold(block, &coefficients, n)?;
        let columns = block.columns(n);
        let x = scatter_lower(block, &primitive, columns, self.n_vib, thresh_coeff)?;
        let cols = memory::elements::<f64>("the lower batch", block.slots.len(), columns)?;
        // The last batch's products go first, so that old and new never take memory together.
        self.products = Vec::new();
        self.products = dipole_products(&self.dipole, self.n_vib, &x, cols)?;
        self.lower_slots = block.slots.len();
        self.lower_columns = columns;
        Ok(())
    }

    /// Half-linestrengths of the loaded batch into `upper` (`n_primitive x n'`, packed).
    pub fn half(&self, upper: &Block, table: &Contraction) -> Result<Vec<f64>> {
        contract(&self.products, self.n_vib, self.lower_slots, self.lower_columns, upper, table)
    }

    /// Amplitudes of the stored states of block `id` (`n_states x (n' ndeg_F)`, packed).
    pub fn amplitudes(&self, id: usize, upper: &Block, table: &Contraction) -> Result<Vec<f64>> {
        let half = self.half(upper, table)?;
        let n = self.lower_columns;
        // P h: `ndeg_F n_coefficients x n'`, component d_F in rows d_F n_coefficients ..
        let projected = match &upper.unfolding {
            Some((_, projection)) => csr_times(projection, &half, n)?,
            None => half,
        };
        let rows = upper.n_coefficients();
        let n_states = upper.energies.len();
        let per_component = memory::elements::<f64>("the amplitudes", n_states, n)?;
        let mut out = memory::filled(
            "the amplitudes",
            memory::elements::<f64>("the amplitudes", per_component, upper.ndeg)?,
            0.0,
        )?;
        for (d, out) in out.chunks_mut(per_component.max(1)).enumerate() {
            dgemm(
                n_states,
                rows,
                n,
                Strided::transposed(&self.states[&id], rows),
                Strided::col_major(&projected[d * rows..], upper.ndeg * rows),
                out,
                n_states,
            );
        }
        Ok(out)
    }
}

/// The columns of length `rows` that start at `starts` in `data`, packed one after another into a
/// new vector, on all cores: the new pages are first touched (zeroed) and then filled in parallel,
/// since for the many GB of a handle's stored states one core's page faults and copy take far
/// longer than the rest of their checks.
pub(crate) fn packed_columns(
    what: &str,
    data: &[f64],
    rows: usize,
    ld: usize,
    starts: impl ExactSizeIterator<Item = usize>,
) -> Result<Vec<f64>> {
    debug_assert!(ld >= rows);
    let starts = memory::collect(what, starts)?;
    let len = memory::elements::<f64>(what, rows, starts.len())?;
    let mut packed = memory::with_capacity(what, len)?;
    packed.par_extend(rayon::iter::repeat_n(0.0, len));
    packed.par_chunks_mut(rows.max(1)).zip(&starts).for_each(|(column, &start)| {
        column.copy_from_slice(&data[start..start + rows]);
    });
    Ok(packed)
}

/// The `rows x cols` column-major matrix `data` (leading dimension `ld`) with its columns packed:
/// `data` itself when they already are (`ld = rows`, or one column), else a packed copy.
pub(crate) fn packed_matrix<'a>(
    what: &str,
    data: &'a [f64],
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<Cow<'a, [f64]>> {
    if ld == rows || cols == 1 {
        return Ok(Cow::Borrowed(&data[..rows * cols]));
    }
    Ok(Cow::Owned(packed_columns(what, data, rows, ld, (0..cols).map(|c| c * ld))?))
}

/// Primitive coefficients (`n_primitive x (ndeg n)`, column `d + ndeg i`) of the components of
/// `n` vectors of `block` given as packed columns of length `n_coefficients`: `T_d c` when the
/// block has an unfolding (the stacked T's product, read column-major as `n_primitive x ndeg n`),
/// `c` otherwise.
pub(crate) fn unfold<'a>(block: &Block, coefficients: &'a [f64], n: usize) -> Result<Cow<'a, [f64]>> {
    Ok(match &block.unfolding {
        Some((t, _)) => Cow::Owned(csr_times(t, coefficients, n)?),
        None => Cow::Borrowed(coefficients),
    })
}

/// `A B` for a CSR matrix A (`rows x cols`) and a packed `cols x n` matrix B.
pub(crate) fn csr_times(a: &Csr, b: &[f64], n: usize) -> Result<Vec<f64>> {
    let mut out = memory::filled("a sparse product", memory::elements::<f64>("a sparse product", a.rows, n)?, 0.0)?;
    out.par_chunks_mut(a.rows).enumerate().for_each(|(i, column)| {
        let b = &b[i * a.cols..(i + 1) * a.cols];
        for (row, value) in column.iter_mut().enumerate() {
            *value =
                (a.start[row] as usize..a.start[row + 1] as usize).map(|e| a.value[e] * b[a.col[e] as usize]).sum();
        }
    });
    Ok(out)
}

/// `X` of a lower batch: primitive coefficient p of state i, when |c| > `thresh_coeff`, at row
/// `v_p`, column `slot_p + R i`; zero elsewhere.
pub(crate) fn scatter_lower(
    block: &Block,
    primitive: &[f64],
    n: usize,
    n_vib: usize,
    thresh_coeff: f64,
) -> Result<Vec<f64>> {
    let slots = block.slots.len();
    let n_primitive = block.n_primitive();
    let per_state = memory::elements::<f64>("the lower batch X", n_vib, slots)?;
    let mut x = memory::filled("the lower batch X", memory::elements::<f64>("the lower batch X", per_state, n)?, 0.0)?;
    x.par_chunks_mut(n_vib * slots).enumerate().for_each(|(i, state)| {
        for p in 0..n_primitive {
            let c = primitive[p + n_primitive * i];
            if c.abs() > thresh_coeff {
                state[block.v[p] as usize + n_vib * block.slots.of_function[p] as usize] = c;
            }
        }
    });
    Ok(x)
}

/// `Y = M^T X` (`3 Nvib x cols`): the three dipole components applied to every column of X.
pub(crate) fn dipole_products(dipole: &[f64], n_vib: usize, x: &[f64], cols: usize) -> Result<Vec<f64>> {
    let rows = COMPONENTS * n_vib;
    let mut y =
        memory::filled("the dipole products Y", memory::elements::<f64>("the dipole products Y", rows, cols)?, 0.0)?;
    dgemm(rows, n_vib, cols, Strided::transposed(dipole, n_vib), Strided::col_major(x, n_vib), &mut y, rows);
    Ok(y)
}

/// The rotational contraction: `h[q + P i] = sum_e factor_e Y[v_q + Nvib m_e, r_e + R i]` over the
/// entries e of the upper function's slot in `table` (P = n_primitive(upper), R = `lower_slots`).
pub(crate) fn contract(
    y: &[f64],
    n_vib: usize,
    lower_slots: usize,
    n: usize,
    upper: &Block,
    table: &Contraction,
) -> Result<Vec<f64>> {
    let p_count = upper.n_primitive();
    let rows = COMPONENTS * n_vib;
    let mut half =
        memory::filled("the half-linestrengths", memory::elements::<f64>("the half-linestrengths", p_count, n)?, 0.0)?;
    half.par_chunks_mut(p_count).enumerate().for_each(|(i, column)| {
        for (q, h) in column.iter_mut().enumerate() {
            let slot = upper.slots.of_function[q] as usize;
            let v = upper.v[q] as usize;
            let mut sum = 0.0;
            for e in table.start[slot] as usize..table.start[slot + 1] as usize {
                let row = v + n_vib * table.component[e] as usize;
                let col = table.lower_slot[e] as usize + lower_slots * i;
                sum += table.factor[e] * y[row + rows * col];
            }
            *h = sum;
        }
    });
    Ok(half)
}

/// Eq. 14 as TROVE's `do_1st_half_linestrength_III_symmvec` loops it, for one lower vector of
/// primitive coefficients `c` of the block `lower`: for every upper function (v', K', tau') of
/// `upper`, the sum over lower functions with |K - K'| <= 1 and |c| > `thresh_coeff` of
/// `f(K, tau; K', tau') dipole(v, v', m) c`. `dipole` is packed `Nvib x Nvib x 3` (Debye); the
/// result is in Debye. O(N^2) and unbatched: the reference the GEMM path is checked against.
/// The specs are taken as valid (the handle validates them).
pub fn direct_half_linestrength(
    dipole: &[f64],
    n_vib: usize,
    lower: &BlockSpec<'_>,
    c: &[f64],
    upper: &BlockSpec<'_>,
    thresh_coeff: f64,
) -> Vec<f64> {
    (0..upper.v.len())
        .into_par_iter()
        .map(|q| {
            let (vp, kp, taup) = (upper.v[q] as usize, upper.k[q] as u32, upper.tau[q] as u8);
            let mut sum = 0.0;
            for (p, &coefficient) in c.iter().enumerate() {
                if coefficient.abs() <= thresh_coeff {
                    continue;
                }
                let (k, tau) = (lower.k[p] as u32, lower.tau[p] as u8);
                if let Some((m, f)) = wang_factor(lower.j, k, tau, upper.j, kp, taup, thresh_coeff) {
                    sum += f * dipole[lower.v[p] as usize + n_vib * (vp + n_vib * m)] * coefficient;
                }
            }
            sum
        })
        .collect()
}
