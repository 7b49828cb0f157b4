//! Random (J, Gamma) blocks of degenerate species for the line-strength tests: full Wang sets of
//! primitive functions, one random sparse unfolding matrix T_d per component, random levels.
#![allow(dead_code)]

use super::molecule::{full_block, Labels, Rng};
use atomgpu::linestrength::{BlockSpec, Unfolding};

/// A block with its per-component unfoldings (dense and as the stacked CSR) and its levels.
pub struct DegenerateBlock {
    pub labels: Labels,
    pub gamma: u32,
    pub gns: f64,
    pub ndeg: usize,
    pub n_sym: usize,
    /// T_d, `n_primitive x n_sym` column-major, d = 0..ndeg.
    pub dense: Vec<Vec<f64>>,
    pub row_start: Vec<i64>,
    pub col: Vec<i64>,
    pub value: Vec<f64>,
    /// Levels: `n_sym x n_states` column-major, and their energies (cm^-1).
    pub vectors: Vec<f64>,
    pub energies: Vec<f64>,
}

impl DegenerateBlock {
    pub fn spec(&self) -> BlockSpec<'_> {
        BlockSpec { gamma: self.gamma, gns: self.gns, unfolding: Some(self.unfolding()), ..self.labels.spec() }
    }

    pub fn unfolding(&self) -> Unfolding<'_> {
        Unfolding { ndeg: self.ndeg, n_sym: self.n_sym, row_start: &self.row_start, col: &self.col, value: &self.value }
    }

    pub fn n_states(&self) -> usize {
        self.energies.len()
    }

    /// Level s's symmetrised vector.
    pub fn level(&self, s: usize) -> &[f64] {
        &self.vectors[s * self.n_sym..(s + 1) * self.n_sym]
    }

    /// Component d's unfolding alone, as a CSR matrix (for the same block split by hand).
    pub fn component_csr(&self, d: usize) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
        csr_of(&self.dense[d], self.labels.len(), self.n_sym)
    }
}

/// CSR (row_start, col, value) of a dense column-major `rows x cols` matrix, zeros left out.
pub fn csr_of(dense: &[f64], rows: usize, cols: usize) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let (mut start, mut col, mut value) = (vec![0i64], vec![], vec![]);
    for r in 0..rows {
        for c in 0..cols {
            let x = dense[r + rows * c];
            if x != 0.0 {
                col.push(c as i64);
                value.push(x);
            }
        }
        start.push(col.len() as i64);
    }
    (start, col, value)
}

/// A block of J over `n_vib` vibrational functions with `ndeg` components: each T_d has one or two
/// random entries in about half of its rows; `n_states` random levels (orthonormal and complete,
/// n_states = n_sym, when `orthonormal`) with energies uniform in [e_min, e_max).
#[allow(clippy::too_many_arguments)]
pub fn random_block(
    rng: &mut Rng,
    j: u32,
    n_vib: usize,
    gamma: u32,
    ndeg: usize,
    n_states: usize,
    energies: [f64; 2],
    orthonormal: bool,
) -> DegenerateBlock {
    let labels = full_block(j, n_vib);
    let p_count = labels.len();
    let n_sym = (p_count / ndeg).max(1);
    let mut dense = vec![vec![0.0; p_count * n_sym]; ndeg];
    for t in dense.iter_mut() {
        for p in 0..p_count {
            if rng.unit() < 0.5 {
                for _ in 0..1 + (rng.unit() < 0.4) as usize {
                    let s = ((rng.unit() * n_sym as f64) as usize).min(n_sym - 1);
                    t[p + p_count * s] = rng.uniform(-1.0, 1.0);
                }
            }
        }
    }
    let (mut row_start, mut col, mut value) = (vec![0i64], vec![], vec![]);
    for t in &dense {
        let (s, c, v) = csr_of(t, p_count, n_sym);
        let base = *row_start.last().unwrap();
        row_start.extend(s[1..].iter().map(|x| x + base));
        col.extend(c);
        value.extend(v);
    }
    let n_states = if orthonormal { n_sym } else { n_states };
    let mut vectors: Vec<f64> = (0..n_sym * n_states).map(|_| rng.uniform(-1.0, 1.0)).collect();
    if orthonormal {
        gram_schmidt(&mut vectors, n_sym);
    }
    let energies = (0..n_states).map(|_| rng.uniform(energies[0], energies[1])).collect();
    DegenerateBlock {
        labels,
        gamma,
        gns: rng.uniform(0.5, 3.0),
        ndeg,
        n_sym,
        dense,
        row_start,
        col,
        value,
        vectors,
        energies,
    }
}

/// Orthonormalises the columns of a square `n x n` matrix in place (modified Gram-Schmidt).
fn gram_schmidt(a: &mut [f64], n: usize) {
    for c in 0..n {
        for prev in 0..c {
            let dot: f64 = (0..n).map(|r| a[r + n * c] * a[r + n * prev]).sum();
            for r in 0..n {
                a[r + n * c] -= dot * a[r + n * prev];
            }
        }
        let norm = (0..n).map(|r| a[r + n * c].powi(2)).sum::<f64>().sqrt();
        for r in 0..n {
            a[r + n * c] /= norm;
        }
    }
}
