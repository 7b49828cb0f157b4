//! Random symmetrised rotational bases and rotsym blocks for the rotsym-route tests.
#![allow(dead_code)]

use super::molecule::Rng;
use atomgpu::linestrength::rotsym::RotsymBlockSpec;

/// A rotational basis of J: E_J (`n x n`, column-major, n = 2J+1) and the (level, deg) of each
/// column (0-based).
#[derive(Clone, Debug)]
pub struct Basis {
    pub j: u32,
    pub e: Vec<f64>,
    pub level: Vec<i32>,
    pub deg: Vec<i32>,
}

impl Basis {
    pub fn n(&self) -> usize {
        2 * self.j as usize + 1
    }

    /// TROVE's count_index(level, deg), 0-based: the column of (level, deg).
    pub fn count_index(&self, level: i32, deg: i32) -> usize {
        (0..self.n()).find(|&c| self.level[c] == level && self.deg[c] == deg).expect("label of the basis")
    }

    /// The identity basis with one level per Wang function (level c = Wang function c).
    pub fn identity(j: u32) -> Basis {
        let n = 2 * j as usize + 1;
        let mut e = vec![0.0; n * n];
        for c in 0..n {
            e[c + n * c] = 1.0;
        }
        Basis { j, e, level: (0..n as i32).collect(), deg: vec![0; n] }
    }

    /// A random orthogonal E_J with random levels of 1 to 3 components, given to the columns in a
    /// random order.
    pub fn random(rng: &mut Rng, j: u32) -> Basis {
        let n = 2 * j as usize + 1;
        let (mut level, mut deg) = (vec![], vec![]);
        let mut l = 0;
        while level.len() < n {
            let size = (1 + (rng.unit() * 3.0) as usize).min(n - level.len());
            for d in 0..size {
                level.push(l);
                deg.push(d as i32);
            }
            l += 1;
        }
        let order = permutation(rng, n);
        let level = order.iter().map(|&c| level[c]).collect();
        let deg = order.iter().map(|&c| deg[c]).collect();
        Basis { j, e: random_orthogonal(rng, n), level, deg }
    }
}

/// A random permutation of 0..n (Fisher-Yates).
pub fn permutation(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let k = ((rng.unit() * (i + 1) as f64) as usize).min(i);
        p.swap(i, k);
    }
    p
}

/// A random orthogonal `n x n` matrix: modified Gram-Schmidt, applied twice, of random columns.
pub fn random_orthogonal(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut q: Vec<f64> = (0..n * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    for _ in 0..2 {
        for c in 0..n {
            for p in 0..c {
                let dot: f64 = (0..n).map(|r| q[r + n * p] * q[r + n * c]).sum();
                for r in 0..n {
                    q[r + n * c] -= dot * q[r + n * p];
                }
            }
            let norm = (0..n).map(|r| q[r + n * c].powi(2)).sum::<f64>().sqrt();
            for r in 0..n {
                q[r + n * c] /= norm;
            }
        }
    }
    q
}

/// Labels of a rotsym block, owned.
#[derive(Clone, Debug)]
pub struct RotsymLabels {
    pub j: u32,
    pub v: Vec<i64>,
    pub level: Vec<i32>,
    pub deg: Vec<i32>,
}

impl RotsymLabels {
    pub fn spec(&self) -> RotsymBlockSpec<'_> {
        RotsymBlockSpec {
            j: self.j,
            gamma: 0,
            gns: 1.0,
            v: &self.v,
            level: &self.level,
            deg: &self.deg,
            unfolding: None,
        }
    }

    pub fn len(&self) -> usize {
        self.v.len()
    }

    /// Every (v, column of `basis`): column-major order, v fastest (function v + n_vib c).
    pub fn full(basis: &Basis, n_vib: usize) -> RotsymLabels {
        let mut l = RotsymLabels { j: basis.j, v: vec![], level: vec![], deg: vec![] };
        for c in 0..basis.n() {
            for v in 0..n_vib {
                l.v.push(v as i64);
                l.level.push(basis.level[c]);
                l.deg.push(basis.deg[c]);
            }
        }
        l
    }

    /// A random part (about `keep` of the functions, at least one) of [`RotsymLabels::full`], in
    /// a random order.
    pub fn random_part(rng: &mut Rng, basis: &Basis, n_vib: usize, keep: f64) -> RotsymLabels {
        let full = RotsymLabels::full(basis, n_vib);
        let mut l = RotsymLabels { j: basis.j, v: vec![], level: vec![], deg: vec![] };
        for p in permutation(rng, full.len()) {
            if rng.unit() < keep || (l.v.is_empty() && p == 0) {
                l.v.push(full.v[p]);
                l.level.push(full.level[p]);
                l.deg.push(full.deg[p]);
            }
        }
        if l.v.is_empty() {
            l.v.push(full.v[0]);
            l.level.push(full.level[0]);
            l.deg.push(full.deg[0]);
        }
        l
    }
}
