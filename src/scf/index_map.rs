//! The triangular map between integral sets (L, P, Q, M, R, S) and a flat index i (paper §2.3,
//! eqs. 2.1-2.5 and Algorithms 1, 3-5), so that one GPU thread (or one rayon task) computes one
//! set of J and K integrals, with no idle threads and no nested loops.
//!
//! L, M are symmetries and P >= Q functions of L, R >= S functions of M (here 0-based). With
//! n'(j) = j (j + 1)/2 (eq. 2.1), the pair (P, Q) of symmetry L has the column index
//!
//! ```text
//! y = Σ_{j<L} n'(nbs_j) + n'(P) + Q,      x = Σ_{j<M} n'(nbs_j) + n'(R) + S,
//! ```
//!
//! (eqs. 2.2-2.3, 0-based) and the sets are the pairs x <= y: M < L, or M = L with (R, S) <= (P,
//! Q), exactly the loops of Algorithm 1. The set's index is i = n'(y) + x (0-based; the paper's
//! eq. 2.4 writes n'(x) + y, which its Algorithm 3 does not follow: there, i runs over
//! [n'(y-1) + 1, n'(y)] for column y, as here), so Algorithm 1 visits i = 0, 1, 2, … in order, and
//! i < n'(T), T = Σ_j n'(nbs_j) (eq. 2.5). The inverse takes y from i by an integer square root
//! and L (or M) by a binary search over the prefix sums (Algorithms 3-5). Indices are 64-bit:
//! 7 symmetries of 400 functions give 1.6e11 sets.

/// n'(j) = j (j + 1) / 2.
pub fn triangle(j: u64) -> u64 {
    j * (j + 1) / 2
}

/// The largest y with n'(y) <= t.
pub fn triangle_root(t: u64) -> u64 {
    let mut y = ((((8 * t + 1) as f64).sqrt() - 1.0) / 2.0) as u64;
    while triangle(y) > t {
        y -= 1;
    }
    while triangle(y + 1) <= t {
        y += 1;
    }
    y
}

/// One set of J and K integrals: symmetries l, m, functions p >= q of l, r >= s of m (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntegralSet {
    pub l: usize,
    pub p: usize,
    pub q: usize,
    pub m: usize,
    pub r: usize,
    pub s: usize,
}

/// The map for a list of symmetry sizes `nbs`.
#[derive(Clone, Debug)]
pub struct TriangularMap {
    nbs: Vec<usize>,
    /// offsets[j] = Σ_{i<j} n'(nbs_i), j = 0 … nsym.
    offsets: Vec<u64>,
}

impl TriangularMap {
    pub fn new(nbs: &[usize]) -> Self {
        let mut offsets = vec![0u64];
        for &n in nbs {
            offsets.push(offsets.last().unwrap() + triangle(n as u64));
        }
        TriangularMap { nbs: nbs.to_vec(), offsets }
    }

    /// T: the number of (P >= Q) pairs over all symmetries.
    pub fn n_pairs(&self) -> u64 {
        *self.offsets.last().unwrap()
    }

    /// n'(T): the number of integral sets (eq. 2.5).
    pub fn n_sets(&self) -> u64 {
        triangle(self.n_pairs())
    }

    /// Column index of pair (p >= q) of symmetry l.
    pub fn pair_index(&self, l: usize, p: usize, q: usize) -> u64 {
        self.offsets[l] + triangle(p as u64) + q as u64
    }

    /// (l, p, q) of column index y.
    pub fn pair(&self, y: u64) -> (usize, usize, usize) {
        // The last symmetry whose offset is <= y (sizes of zero leave equal offsets: skip them).
        let l = self.offsets.partition_point(|&o| o <= y) - 1;
        let t = y - self.offsets[l];
        let p = triangle_root(t);
        (l, p as usize, (t - triangle(p)) as usize)
    }

    /// The flat index of a set.
    pub fn index(&self, set: IntegralSet) -> u64 {
        let y = self.pair_index(set.l, set.p, set.q);
        let x = self.pair_index(set.m, set.r, set.s);
        debug_assert!(x <= y, "not a set of the map: {set:?}");
        triangle(y) + x
    }

    /// The set of flat index i (< n_sets).
    pub fn set(&self, i: u64) -> IntegralSet {
        let y = triangle_root(i);
        let x = i - triangle(y);
        let (l, p, q) = self.pair(y);
        let (m, r, s) = self.pair(x);
        IntegralSet { l, p, q, m, r, s }
    }

    /// Symmetry sizes.
    pub fn nbs(&self) -> &[usize] {
        &self.nbs
    }
}
