//! The supermatrix by component group: the pairs of a Dirac-Fock basis split into those whose
//! two functions share a component (large-large, small-small) and the mixed ones (small-large),
//! so that no integral set that vanishes by component is computed or stored.
//!
//! A two-electron integral R^k(ab, cd) needs a and b to share a component and c and d too
//! ([`super::slater::charge_density`]). In G[(a,pq), (b,rs)] = R^0(pq, rs) - Σ_k c_k [R^k(pr, qs)
//! + R^k(ps, qr)] ([`super::layout::Blocks`]):
//!
//! * pq same-component, rs mixed (or the reverse): R^0 has a mixed density; of pr, qs (and ps, qr)
//!   one pair is mixed, so both exchange terms vanish: G = 0. With the same-component pairs first
//!   and the mixed ones after, G is block diagonal, G = diag(G_same, G_mixed), and these sets
//!   (half of a Dirac-Fock supermatrix) are neither computed nor stored;
//! * pq and rs same-component: G over the sub-blocks "the large (or small) functions of one
//!   symmetry", which is the supermatrix of the sub-blocks as blocks of their own, with c_k = 0
//!   between sub-blocks of different components (their exchange densities are mixed): [`ComponentGroups::same`];
//! * pq = (p small, q large) and rs = (r small, s large), both mixed: R^0 = 0 and R^k(ps, qr) = 0,
//!   so G = -Σ_k c_k(a, b) R^k(pr, qs), one small-small and one large-large density
//!   ([`mixed_element`]).
//!
//! Non-relativistic blocks have only large functions: the same-component group is the whole
//! supermatrix and the mixed group is empty. Each group is stored as the packed upper triangle of
//! its own symmetric matrix (BLAS `dspmv` layout), the same-component pairs on the triangular map
//! of the sub-blocks ([`TriangularMap`]), the mixed ones as pair y = offset(a) + i n_a + j (i the
//! small, j the large function of symmetry a with n_a large functions) and set n'(y) + x, x <= y.

use super::index_map::TriangularMap;
use super::layout::Blocks;
use super::radial::Component;
use super::slater::{ChargePair, PairDensities};

/// Where the pairs of one symmetry lie in the two groups.
#[derive(Clone, Debug)]
struct SymmetryPairs {
    /// Its large functions (its first ones) and small functions (after them; 0 when
    /// non-relativistic).
    large: usize,
    small: usize,
    /// The sub-block of its large functions in [`ComponentGroups::same`] (the small ones are the
    /// next sub-block).
    sub_block: usize,
}

/// The two groups of a supermatrix's pairs (module docs).
#[derive(Clone, Debug)]
pub(crate) struct ComponentGroups {
    /// The blocks as given (the paper's layout, of which the groups are a reordering).
    blocks: Blocks,
    /// The sub-blocks of the same-component pairs, as blocks of their own.
    same: Blocks,
    same_map: TriangularMap,
    symmetries: Vec<SymmetryPairs>,
    /// mixed_offsets[a]: the first mixed pair of symmetry a; the last entry the mixed pair count.
    mixed_offsets: Vec<u64>,
}

impl ComponentGroups {
    pub fn new(blocks: &Blocks) -> Self {
        let mut symmetries = Vec::with_capacity(blocks.n_blocks());
        let mut sub_first = vec![0usize];
        let mut sub_parent = Vec::new();
        for a in 0..blocks.n_blocks() {
            let functions = blocks.block(a);
            let large = functions.iter().take_while(|f| f.component == Component::Large).count();
            let small = functions.len() - large;
            debug_assert!(functions[large..].iter().all(|f| f.component == Component::Small));
            symmetries.push(SymmetryPairs { large, small, sub_block: sub_parent.len() });
            let start = blocks.first()[a];
            sub_first.push(start + large);
            sub_parent.push(a);
            if small > 0 {
                sub_first.push(start + large + small);
                sub_parent.push(a);
            }
        }
        let component = |j: usize| blocks.functions()[sub_first[j]].component;
        let exchange = (0..sub_parent.len())
            .map(|i| {
                (0..sub_parent.len())
                    .map(|j| {
                        if component(i) == component(j) {
                            blocks.exchange(sub_parent[i], sub_parent[j]).to_vec()
                        } else {
                            Vec::new()
                        }
                    })
                    .collect()
            })
            .collect();
        let same = Blocks::from_parts(blocks.functions().to_vec(), sub_first, exchange);
        let same_map = same.map();
        let mut mixed_offsets = vec![0u64];
        for s in &symmetries {
            mixed_offsets.push(mixed_offsets.last().unwrap() + (s.small * s.large) as u64);
        }
        ComponentGroups { blocks: blocks.clone(), same, same_map, symmetries, mixed_offsets }
    }

    /// The blocks as given.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The same-component sub-blocks, as blocks of their own.
    pub fn same(&self) -> &Blocks {
        &self.same
    }

    /// The triangular map of the same-component pairs.
    pub fn same_map(&self) -> &TriangularMap {
        &self.same_map
    }

    /// The number of same-component pairs S (the first S entries of a pair vector).
    pub fn n_same(&self) -> usize {
        self.same_map.n_pairs() as usize
    }

    /// The number of mixed pairs M (the entries after the same-component ones).
    pub fn n_mixed(&self) -> usize {
        *self.mixed_offsets.last().unwrap() as usize
    }

    /// The first mixed pair of each symmetry and the mixed pair count last.
    pub fn mixed_offsets(&self) -> &[u64] {
        &self.mixed_offsets
    }

    /// The large-function count of each symmetry.
    pub fn large_counts(&self) -> Vec<u64> {
        self.symmetries.iter().map(|s| s.large as u64).collect()
    }

    /// The position in the grouped pair vector (same-component pairs, then mixed ones) of the
    /// pair (p >= q) of symmetry a, p and q counting the symmetry's functions (large, then small).
    pub fn position(&self, a: usize, p: usize, q: usize) -> usize {
        let s = &self.symmetries[a];
        match (p >= s.large, q >= s.large) {
            (false, false) => self.same_map.pair_index(s.sub_block, p, q) as usize,
            (true, true) => self.same_map.pair_index(s.sub_block + 1, p - s.large, q - s.large) as usize,
            _ => self.n_same() + (self.mixed_offsets[a] as usize) + (p - s.large) * s.large + q,
        }
    }

    /// (a, i, j) of mixed pair y: symmetry a, its small function i and large function j.
    pub fn mixed_pair(&self, y: u64) -> (usize, usize, usize) {
        let a = self.mixed_offsets.partition_point(|&o| o <= y) - 1;
        let t = (y - self.mixed_offsets[a]) as usize;
        let large = self.symmetries[a].large;
        (a, t / large, t % large)
    }

    /// G of the mixed set of pairs y = (a, p small, q large) >= x = (b, r small, s large)
    /// ([`Self::mixed_pair`]; module docs): -Σ_k c_k(a, b) R^k(pr, qs), the charge densities
    /// from `densities` (of the functions of [`Self::blocks`]).
    pub fn mixed_element(
        &self,
        densities: &PairDensities,
        (a, p, q): (usize, usize, usize),
        (b, r, s): (usize, usize, usize),
    ) -> f64 {
        let (fa, fb) = (self.blocks.first()[a], self.blocks.first()[b]);
        let (la, lb) = (self.symmetries[a].large, self.symmetries[b].large);
        let (small_pr, large_qs) = (densities.get(fa + la + p, fb + lb + r), densities.get(fa + q, fb + s));
        let pair = ChargePair::new(&small_pr, &large_qs);
        -self.blocks.exchange(a, b).iter().map(|&(k, c)| c * pair.slater(k)).sum::<f64>()
    }
}
