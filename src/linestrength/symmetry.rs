//! Symmetry groups of a line list and TROVE's rule for which degenerate components are paired.
//!
//! A (J, Gamma) block belongs to a symmetry species Gamma of the molecule's group; a species of
//! degeneracy ndeg (E: 2, F: 3) has ndeg components per level, which TROVE unfolds one by one
//! (`repres(:, ideg, :)`). The groups named here are TROVE's (symmetry.f90, `sym%group`), with
//! their species in TROVE's order (`sym%label`, `sym%degen`), so that species index gamma here is
//! TROVE's `igamma - 1`:
//!
//! | group | species (gamma = 0, 1, ...) |
//! | --- | --- |
//! | C1 | A |
//! | Cs(M) | A', A" |
//! | C2v(M) | A1, A2, B1, B2 |
//! | C3v(M) | A1, A2, E |
//! | D3h(M) | A1', A2', E', A1", A2", E" |
//! | Td(M) | A1, A2, E, F1, F2 |
//!
//! TROVE's `degeneracy_filter(gammaI, gammaF, idegI, idegF)` (dipole.f90) keeps every component
//! pair unless both species are degenerate and the REDUCED option is on; then, for C3v(M) and
//! D3h(M) it keeps only (idegI, idegF) = (2, 1), for Td(M) only (2, 1) for E -> E, (2, 1) for
//! F1 -> F2 and (3, 1) for F2 -> F1 (1-based components), and for other groups every pair.

use crate::error::{Error, Result};

/// Largest degeneracy of a species (F/T species of Td: 3).
pub const MAX_DEGENERACY: usize = 3;

/// A molecular symmetry group: its species' labels and degeneracies, in TROVE's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymmetryGroup {
    /// TROVE's name of the group (`C3v(M)`, ...).
    pub name: &'static str,
    /// Species labels, gamma = 0, 1, ...
    pub labels: &'static [&'static str],
    /// Degeneracy (components per level) of each species.
    pub degeneracy: &'static [usize],
}

const GROUPS: &[SymmetryGroup] = &[
    SymmetryGroup { name: "C1", labels: &["A"], degeneracy: &[1] },
    SymmetryGroup { name: "Cs(M)", labels: &["A'", "A\""], degeneracy: &[1, 1] },
    SymmetryGroup { name: "C2v(M)", labels: &["A1", "A2", "B1", "B2"], degeneracy: &[1, 1, 1, 1] },
    SymmetryGroup { name: "C3v(M)", labels: &["A1", "A2", "E"], degeneracy: &[1, 1, 2] },
    SymmetryGroup {
        name: "D3h(M)",
        labels: &["A1'", "A2'", "E'", "A1\"", "A2\"", "E\""],
        degeneracy: &[1, 1, 2, 1, 1, 2],
    },
    SymmetryGroup { name: "Td(M)", labels: &["A1", "A2", "E", "F1", "F2"], degeneracy: &[1, 1, 2, 3, 3] },
];

impl SymmetryGroup {
    /// The group called `name` (case-insensitive; "(M)" may be left out, as TROVE allows).
    pub fn named(name: &str) -> Result<SymmetryGroup> {
        let wanted = name.trim().to_ascii_uppercase();
        GROUPS
            .iter()
            .find(|g| {
                let own = g.name.to_ascii_uppercase();
                own == wanted || own.trim_end_matches("(M)") == wanted
            })
            .cloned()
            .ok_or_else(|| {
                let known: Vec<&str> = GROUPS.iter().map(|g| g.name).collect();
                Error::invalid("group", format!("must be one of {}, got {name:?}", known.join(", ")))
            })
    }

    /// Number of species.
    pub fn n_species(&self) -> usize {
        self.degeneracy.len()
    }

    /// TROVE's `degeneracy_filter` for species `gamma_i` -> `gamma_f` and components `d_i`, `d_f`
    /// (all 0-based here), with the REDUCED option `reduced`.
    pub fn keeps_component_pair(&self, reduced: bool, gamma_i: usize, gamma_f: usize, d_i: usize, d_f: usize) -> bool {
        if !reduced || self.degeneracy[gamma_i] == 1 || self.degeneracy[gamma_f] == 1 {
            return true;
        }
        let pair = (d_i + 1, d_f + 1);
        match self.name {
            "C3v(M)" | "D3h(M)" => pair == (2, 1),
            // E = 2, F1 = 3, F2 = 4 (0-based species).
            "Td(M)" => match (gamma_i, gamma_f) {
                (3, 4) | (2, 2) => pair == (2, 1),
                (4, 3) => pair == (3, 1),
                _ => false,
            },
            _ => true,
        }
    }
}

/// Which component amplitudes a(d_I, d_F) of a pair of levels enter the line strength, and the
/// factor in front of their sum of squares: TROVE's ABSORPTION completion
///
/// ```text
///   L = w sum_(d_I, d_F kept) a(d_I, d_F)^2,    w = 1/ndegI, or 1 with REDUCED
/// ```
/// where a pair is kept when the filter keeps it and keeps (d_I, 0) (TROVE computes the lower
/// component's half-linestrength only when `degeneracy_filter(gammaI, gammaF, idegI, 1)` passes),
/// and, with REDUCED, only d_F = 0 is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComponentRule {
    pub ndeg_lower: usize,
    pub ndeg_upper: usize,
    /// `kept[d_i + MAX_DEGENERACY d_f]`.
    pub kept: [bool; MAX_DEGENERACY * MAX_DEGENERACY],
    /// w above.
    pub weight: f64,
}

impl ComponentRule {
    /// The rule for a lower block of `ndeg_lower` components and species `gamma_lower` and an upper
    /// block of `ndeg_upper` and `gamma_upper`. `filter` is the group whose degeneracy filter
    /// applies (None: every pair kept, as TROVE does for groups it has no rule for).
    pub fn new(
        ndeg_lower: usize,
        gamma_lower: usize,
        ndeg_upper: usize,
        gamma_upper: usize,
        reduced: bool,
        filter: Option<&SymmetryGroup>,
    ) -> Self {
        let keeps =
            |d_i, d_f| filter.is_none_or(|g| g.keeps_component_pair(reduced, gamma_lower, gamma_upper, d_i, d_f));
        let mut kept = [false; MAX_DEGENERACY * MAX_DEGENERACY];
        for d_f in 0..ndeg_upper {
            for d_i in 0..ndeg_lower {
                kept[d_i + MAX_DEGENERACY * d_f] = (!reduced || d_f == 0) && keeps(d_i, 0) && keeps(d_i, d_f);
            }
        }
        let weight = if reduced { 1.0 } else { 1.0 / ndeg_lower as f64 };
        ComponentRule { ndeg_lower, ndeg_upper, kept, weight }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_found_by_troves_names() {
        assert_eq!(SymmetryGroup::named("C3V(M)").unwrap().degeneracy, &[1, 1, 2]);
        assert_eq!(SymmetryGroup::named("td").unwrap().labels[4], "F2");
        assert!(SymmetryGroup::named("D6h").is_err());
    }

    #[test]
    fn the_reduced_filter_keeps_troves_pairs() {
        let td = SymmetryGroup::named("Td(M)").unwrap();
        let rule = ComponentRule::new(3, 4, 3, 3, true, Some(&td));
        let kept: Vec<usize> = (0..9).filter(|&e| rule.kept[e]).collect();
        assert_eq!(kept, vec![2], "F2 -> F1 keeps (idegI, idegF) = (3, 1) only");
        let all = ComponentRule::new(2, 2, 2, 2, false, Some(&td));
        assert_eq!(all.kept.iter().filter(|&&k| k).count(), 4);
        assert_eq!(all.weight, 0.5);
    }
}
