//! Synthetic rovibrational bases and data for the line-strength tests and benchmark.
#![allow(dead_code)]

#[path = "rng.rs"]
mod rng;
pub use rng::Rng;

use atomgpu::linestrength::BlockSpec;

/// Labels of a primitive (J, Gamma) block, owned.
#[derive(Clone, Debug)]
pub struct Labels {
    pub j: u32,
    pub v: Vec<i64>,
    pub k: Vec<i32>,
    pub tau: Vec<i32>,
}

impl Labels {
    /// The spec of this block (g_ns = 1, primitive vectors).
    pub fn spec(&self) -> BlockSpec<'_> {
        BlockSpec { j: self.j, gamma: 0, gns: 1.0, v: &self.v, k: &self.k, tau: &self.tau, unfolding: None }
    }

    pub fn len(&self) -> usize {
        self.v.len()
    }
}

/// Wang functions of a full J block: K = 0 with tau = J mod 2 (TROVE), K = 1..J with tau = 0, 1.
pub fn wang_labels(j: u32) -> Vec<(i32, i32)> {
    let mut labels = vec![(0, (j % 2) as i32)];
    for k in 1..=j as i32 {
        labels.push((k, 0));
        labels.push((k, 1));
    }
    labels
}

/// The complete primitive block of J over `n_vib` vibrational functions: (2J+1) n_vib functions,
/// vibrational index fastest.
pub fn full_block(j: u32, n_vib: usize) -> Labels {
    let mut l = Labels { j, v: vec![], k: vec![], tau: vec![] };
    for (k, tau) in wang_labels(j) {
        for v in 0..n_vib {
            l.v.push(v as i64);
            l.k.push(k);
            l.tau.push(tau);
        }
    }
    l
}

/// Uniform random values in (-1, 1) (never zero).
pub fn random_values(rng: &mut Rng, len: usize) -> Vec<f64> {
    (0..len).map(|_| rng.uniform(-1.0, 1.0)).collect()
}

/// A random dipole matrix `n x n x 3` in Debye, x and z symmetric, y antisymmetric (real TROVE
/// storage of a Hermitian operator's components is not assumed by the code; this is just
/// physical-looking).
pub fn random_dipole(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut d = vec![0.0; n * n * 3];
    for m in 0..3 {
        for b in 0..n {
            for a in 0..=b {
                let x = rng.uniform(-1.0, 1.0);
                let sign = if m == 1 && a != b { -1.0 } else { 1.0 };
                d[a + n * (b + n * m)] = x;
                d[b + n * (a + n * m)] = sign * x;
            }
        }
    }
    d
}

/// `m` (`rows x cols`, packed) with a leading dimension of `ld`, the padding rows NaN
/// (which no call may read).
pub fn padded(m: &[f64], rows: usize, cols: usize, ld: usize) -> Vec<f64> {
    let mut out = vec![f64::NAN; ld * cols];
    for c in 0..cols {
        out[c * ld..c * ld + rows].copy_from_slice(&m[c * rows..(c + 1) * rows]);
    }
    out
}

/// The largest |x|.
pub fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// Largest |a - b| relative to the largest |b|.
pub fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = max_abs(b).max(f64::MIN_POSITIVE);
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
}
