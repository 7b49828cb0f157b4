//! TROVE's proper-rotational-symmetry route (`job%rotsym_do`), which TROVE calls the only way to
//! treat Td(M) spectra (dipole.f90: `contraced_rotational_dipole`,
//! `do_1st_half_linestrength_rotsym_symmvec`). TROVE's names are in brackets.
//!
//! On this route the rotational basis of each J is not the 2J+1 Wang functions |J, K, tau> but
//! symmetrised combinations of them: column c of a real orthogonal matrix E_J [`eigenvects`],
//! `(2J+1) x (2J+1)`, holds the coefficients of rotational function c on the Wang functions in
//! TROVE's order (row 0: K = 0, tau = J mod 2; then K = 1 tau = 0, K = 1 tau = 1, K = 2 tau = 0, ...;
//! row `2K - 1 + tau` for K >= 1). The functions are grouped into rotational *levels* of one
//! symmetry species each, with 1, 2 or 3 degenerate components: column c is component `deg(c)`
//! of level `level(c)` [`count_index(level, deg) = c`], both 0-based here (TROVE's are 1-based).
//! TROVE's `MLrotsymmetry_generate` (molecules.f90) returns exactly these for the molecule's group
//! (from the Wigner matrices of the group's equivalent rotations, [`sym%euler`]).
//!
//! A primitive rovibrational function of a rotsym block is |v> |J, level, deg>, labelled by
//! the vibrational index v [`iroot_correlat_j0`], the level [`bset_contr%ktau`] and the component
//! [`bset_contr%k`] (TROVE stores the rotsym labels in those arrays). With M_m the Wang-basis
//! factors of [`wang_factor`] for component m (`mat(m, :, :)` of TROVE, the 3j symbols cut
//! at TROVE's `small_` = 2.2e-16, not at THRESH_COEFF), the rotational factors of the route are
//!
//! ```text
//!   W_m(level, deg; level', deg') = [E_J^T M_m E_J']( count_index(level, deg), count_index'(level', deg') )
//!                                                                    [wigner(indI, dJ)%rot]
//!   h(v', level', deg')(i) = sum_(v, level, deg; |c| > THRESH_COEFF) c^i_(v,level,deg)
//!                               sum_m W_m(level, deg; level', deg') dipole(v, v', m)
//! ```
//! (`do_1st_half_linestrength_rotsym_symmvec`; Debye). Everything else (the unfolding of
//! degenerate rovibrational species, the completion a = c^f . h, L, S, A, I, the filters) is the
//! Wang route's: the labels (level, deg) become the block's rotational slots and W fills its
//! contraction table ([`Contraction`]), with up to 3 (2J+1) lower entries per upper slot.
//!
//! A handle's blocks are all of one route (TROVE's `rotsym_do` holds for every J): a rotsym
//! block ([`LineStrength::add_rotsym_block`]) needs its J's basis first
//! ([`LineStrength::set_rotational_basis`]), and Wang blocks cannot be added beside rotsym ones.

use super::rotation::{wang_factor, Contraction, Slots, COMPONENTS};
use super::{check_j, LineStrength, Unfolding, MAX_DEGENERACY};
use crate::error::{require_finite, Error, Result};
use crate::math::gemm::{dgemm, Strided};
use crate::memory;
use std::collections::HashMap;
use std::sync::Arc;

/// Largest |E^T E - 1| element accepted for a rotational basis E_J.
pub const ORTHOGONALITY_TOLERANCE: f64 = 1e-10;

/// TROVE's `small_` (accuracy.f90: `epsilon(1d0)`): the 3j symbols of the route below it in
/// magnitude are skipped.
pub const SMALL: f64 = f64::EPSILON;

/// The symmetrised rotational basis of one J (validated).
#[derive(Debug, PartialEq)]
pub struct RotationalBasis {
    j: u32,
    /// E_J, `(2J+1) x (2J+1)`, column-major.
    e: Vec<f64>,
    /// Column of E_J of component d of each level (`count_index`), entries beyond its
    /// degeneracy unused.
    columns: Vec<[u32; MAX_DEGENERACY]>,
    /// Degenerate components of each level.
    ndeg: Vec<u8>,
}

impl RotationalBasis {
    /// Checks and keeps the basis of J = `j`: `e` holds E_J (`(2J+1)^2` values, column-major),
    /// `level_of_column[c]`, `deg_of_column[c]` (0-based) the level and component of column c.
    /// Rules: E_J finite and orthogonal (|E^T E - 1| <= [`ORTHOGONALITY_TOLERANCE`] elementwise);
    /// every level in [0, 2J+1) and component in [0, 3); each (level, component) once; the levels
    /// used are 0..L-1 and the components of each level are 0..ndeg-1 (TROVE's `count_index`).
    pub fn new(j: u32, e: &[f64], level_of_column: &[i32], deg_of_column: &[i32]) -> Result<Self> {
        check_j(j)?;
        let n = 2 * j as usize + 1;
        let size = memory::elements::<f64>("the rotational basis", n, n)?;
        if e.len() != size {
            return Err(Error::invalid(
                "e",
                format!("must hold (2J+1)^2 = {size} values for J = {j}, got {}", e.len()),
            ));
        }
        for (name, labels) in [("level_of_column", level_of_column), ("deg_of_column", deg_of_column)] {
            if labels.len() != n {
                return Err(Error::invalid(
                    name,
                    format!("must hold 2J+1 = {n} labels (one per column of E_J), got {}", labels.len()),
                ));
            }
        }
        for (i, &x) in e.iter().enumerate() {
            require_finite("e", Some(i), x)?;
        }
        check_orthogonal(e, n)?;
        let mut columns = memory::filled("the rotational basis", n, [u32::MAX; MAX_DEGENERACY])?;
        for c in 0..n {
            let (level, deg) = (level_of_column[c], deg_of_column[c]);
            if level < 0 || level as usize >= n {
                return Err(Error::invalid_at(
                    "level_of_column",
                    c,
                    format!("must be in [0, 2J+1 = {n}), got {level}"),
                ));
            }
            if !(0..MAX_DEGENERACY as i32).contains(&deg) {
                return Err(Error::invalid_at(
                    "deg_of_column",
                    c,
                    format!("must be in [0, {MAX_DEGENERACY}) (a component of a level), got {deg}"),
                ));
            }
            let slot = &mut columns[level as usize][deg as usize];
            if *slot != u32::MAX {
                return Err(Error::invalid_at(
                    "deg_of_column",
                    c,
                    format!("(level {level}, component {deg}) was given to column {} already", *slot),
                ));
            }
            *slot = c as u32;
        }
        let n_levels = columns.iter().rposition(|l| l.iter().any(|&c| c != u32::MAX)).map_or(0, |l| l + 1);
        columns.truncate(n_levels);
        let mut ndeg = memory::with_capacity("the rotational basis", n_levels)?;
        for (level, cols) in columns.iter().enumerate() {
            let count = cols.iter().take_while(|&&c| c != u32::MAX).count();
            if count == 0 || cols[count..].iter().any(|&c| c != u32::MAX) {
                return Err(Error::invalid(
                    "deg_of_column",
                    format!(
                        "level {level} must have components 0..ndeg-1 (the levels used are 0..L-1, each with its \
                         components numbered from 0), got columns {cols:?} (u32::MAX: none)"
                    ),
                ));
            }
            ndeg.push(count as u8);
        }
        Ok(RotationalBasis { j, e: memory::copy_of("the rotational basis", e)?, columns, ndeg })
    }

    /// J of the basis.
    pub fn j(&self) -> u32 {
        self.j
    }

    /// Number of rotational levels.
    pub fn n_levels(&self) -> usize {
        self.ndeg.len()
    }

    /// Degenerate components of `level`.
    pub fn ndeg(&self, level: usize) -> usize {
        self.ndeg[level] as usize
    }

    /// Column of E_J of component `deg` of `level` (`count_index`).
    fn column(&self, level: u32, deg: u8) -> usize {
        self.columns[level as usize][deg as usize] as usize
    }

    /// 2J+1.
    fn dimension(&self) -> usize {
        2 * self.j as usize + 1
    }
}

/// Checks |E^T E - 1| <= [`ORTHOGONALITY_TOLERANCE`] for the `n x n` matrix `e`.
fn check_orthogonal(e: &[f64], n: usize) -> Result<()> {
    let mut gram = memory::filled("the rotational basis", n * n, 0.0)?;
    dgemm(n, n, n, Strided::transposed(e, n), Strided::col_major(e, n), &mut gram, n);
    for a in 0..n {
        for b in 0..n {
            let deviation = (gram[a + n * b] - f64::from(a == b)).abs();
            if deviation > ORTHOGONALITY_TOLERANCE {
                return Err(Error::invalid(
                    "e",
                    format!(
                        "must be orthogonal (|E^T E - 1| <= {ORTHOGONALITY_TOLERANCE:e}): (E^T E)({a}, {b}) is off \
                         by {deviation:e}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The rotational bases of a handle, by J.
#[derive(Default)]
pub(crate) struct Bases {
    by_j: HashMap<u32, Arc<RotationalBasis>>,
}

/// The primitive basis of one (J, Gamma) block of the rotsym route: as [`super::BlockSpec`], with
/// the rotational labels of its J's basis in place of (K, tau).
#[derive(Clone, Copy, Debug)]
pub struct RotsymBlockSpec<'a> {
    /// J of the block; its basis must be set ([`LineStrength::set_rotational_basis`]).
    pub j: u32,
    /// Symmetry species (as [`super::BlockSpec::gamma`]).
    pub gamma: u32,
    /// Nuclear-spin statistical weight g_ns, >= 0.
    pub gns: f64,
    /// Vibrational index of each function, in [0, Nvib) [`iroot_correlat_j0` - 1].
    pub v: &'a [i64],
    /// Rotational level of each function, in [0, L) of the J's basis [`bset_contr%ktau` - 1].
    pub level: &'a [i32],
    /// Component of that level, in [0, ndeg(level)) [`bset_contr%k` - 1].
    pub deg: &'a [i32],
    /// Symmetrised-to-primitive unfolding, as for Wang blocks.
    pub unfolding: Option<Unfolding<'a>>,
}

/// (K, tau) of Wang function `a` of J in TROVE's order: a = 0 is K = 0, tau = J mod 2; a = 2K - 1
/// + tau for K >= 1.
fn wang_label(j: u32, a: usize) -> (u32, u8) {
    if a == 0 {
        (0, (j % 2) as u8)
    } else {
        (a.div_ceil(2) as u32, ((a + 1) % 2) as u8)
    }
}

/// The contraction table of a rotsym pair: for each upper slot (level', deg') of `upper_labels`,
/// every lower slot (level, deg) of `lower_labels` and component m with a non-zero
/// W_m(level, deg; level', deg') = [E^T M_m E'](c, c') (module documentation). Each column of
/// M_m E' is formed once (M_m has at most six entries per column) and dotted with the lower
/// columns of E.
pub(crate) fn contraction(
    lower: &RotationalBasis,
    lower_labels: &[(u32, u8)],
    upper: &RotationalBasis,
    upper_labels: &[(u32, u8)],
) -> Contraction {
    let (n, np) = (lower.dimension(), upper.dimension());
    // M_m column by column: (row a, component m, factor) of each upper Wang function b.
    let wang: Vec<Vec<(usize, usize, f64)>> = (0..np)
        .map(|b| {
            let (kp, taup) = wang_label(upper.j, b);
            (0..n)
                .filter_map(|a| {
                    let (k, tau) = wang_label(lower.j, a);
                    wang_factor(lower.j, k, tau, upper.j, kp, taup, SMALL).map(|(m, f)| (a, m, f))
                })
                .collect()
        })
        .collect();
    let mut table = Contraction { start: vec![0], lower_slot: vec![], component: vec![], factor: vec![] };
    let mut column = vec![0.0; COMPONENTS * n];
    for &(level_p, deg_p) in upper_labels {
        let cp = upper.column(level_p, deg_p);
        let e_upper = &upper.e[cp * np..(cp + 1) * np];
        column.fill(0.0);
        for (b, entries) in wang.iter().enumerate() {
            for &(a, m, f) in entries {
                column[a + n * m] += f * e_upper[b];
            }
        }
        for (slot, &(level, deg)) in lower_labels.iter().enumerate() {
            let c = lower.column(level, deg);
            let e_lower = &lower.e[c * n..(c + 1) * n];
            for m in 0..COMPONENTS {
                let w: f64 = e_lower.iter().zip(&column[m * n..(m + 1) * n]).map(|(x, y)| x * y).sum();
                if w != 0.0 {
                    table.lower_slot.push(slot as u32);
                    table.component.push(m as u32);
                    table.factor.push(w);
                }
            }
        }
        table.start.push(table.lower_slot.len() as u32);
    }
    table
}

impl LineStrength {
    /// Sets the symmetrised rotational basis of J = `j` for the rotsym route (TROVE's
    /// `MLrotsymmetry_generate(j, ..., count_index, eigenvects, ...)`): `e` is E_J
    /// (`(2J+1)^2` values, column-major, rows the Wang functions in TROVE's order, column c a
    /// symmetrised rotational function [`eigenvects`]) and column c is component
    /// `deg_of_column[c]` of level `level_of_column[c]` (0-based; `count_index(level + 1, deg + 1)
    /// = c + 1`). Checked as [`RotationalBasis::new`] says. A J's basis may be replaced only while
    /// no block of that J is registered.
    pub fn set_rotational_basis(
        &mut self,
        j: u32,
        e: &[f64],
        level_of_column: &[i32],
        deg_of_column: &[i32],
    ) -> Result<()> {
        let basis = RotationalBasis::new(j, e, level_of_column, deg_of_column)?;
        if let Some(b) = self.blocks.iter().position(|b| b.j == j && b.slots.basis.is_some()) {
            return Err(Error::invalid(
                "j",
                format!("J = {j} already has its rotational basis in use by block {b}; it cannot change under it"),
            ));
        }
        self.rotational_bases.by_j.insert(j, Arc::new(basis));
        Ok(())
    }

    /// The rotational basis of J = `j`, when set.
    pub fn rotational_basis(&self, j: u32) -> Option<&RotationalBasis> {
        self.rotational_bases.by_j.get(&j).map(|b| &**b)
    }

    /// Registers a block of the rotsym route (module documentation); returns its index. Its J's
    /// basis must be set, every `level` must be one of the basis's and `deg` one of that level's
    /// components, and no (v, level, deg) may repeat; the rest is checked as
    /// [`LineStrength::add_block`] checks it.
    pub fn add_rotsym_block(&mut self, spec: &RotsymBlockSpec<'_>) -> Result<usize> {
        check_j(spec.j)?;
        self.refuse_mixed_routes(true)?;
        let Some(basis) = self.rotational_bases.by_j.get(&spec.j).cloned() else {
            return Err(Error::invalid(
                "j",
                format!("J = {} has no rotational basis (set_rotational_basis first)", spec.j),
            ));
        };
        let n = spec.v.len();
        if n == 0 {
            return Err(Error::invalid("n_primitive", "must be >= 1"));
        }
        if spec.level.len() != n || spec.deg.len() != n {
            return Err(Error::invalid("level", "v, level and deg must have one entry per primitive function"));
        }
        let mut level = memory::with_capacity("the block's labels", n)?;
        let mut deg = memory::with_capacity("the block's labels", n)?;
        for p in 0..n {
            let l = spec.level[p];
            if l < 0 || l as usize >= basis.n_levels() {
                return Err(Error::invalid_at(
                    "level",
                    p,
                    format!("must be a level of J = {}'s basis, in [0, {}), got {l}", spec.j, basis.n_levels()),
                ));
            }
            let d = spec.deg[p];
            if d < 0 || d as usize >= basis.ndeg(l as usize) {
                return Err(Error::invalid_at(
                    "deg",
                    p,
                    format!("must be a component of level {l}, in [0, {}), got {d}", basis.ndeg(l as usize)),
                ));
            }
            level.push(l as u32);
            deg.push(d as u8);
        }
        let slots = Slots::grouped(&level, &deg, Some(basis))?;
        let block = self.finish_block(spec.j, spec.gamma, spec.gns, spec.v, slots, spec.unfolding.as_ref())?;
        self.push_block(block)
    }

    /// Refuses a block of one route (`rotsym` or Wang) in a handle that holds blocks of the other.
    pub(crate) fn refuse_mixed_routes(&self, rotsym: bool) -> Result<()> {
        match self.blocks.iter().position(|b| b.slots.basis.is_some() != rotsym) {
            None => Ok(()),
            Some(b) => Err(Error::invalid(
                "handle",
                format!(
                    "holds {} (block {b}): TROVE's rotsym_do holds for every J, so a handle's blocks are all of \
                     the rotsym route (add_rotsym_block) or all Wang blocks (add_block)",
                    if rotsym { "Wang blocks" } else { "blocks of the rotsym route" }
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wang_labels_follow_trove_order() {
        assert_eq!(wang_label(3, 0), (0, 1));
        assert_eq!(wang_label(2, 0), (0, 0));
        assert_eq!(wang_label(3, 1), (1, 0));
        assert_eq!(wang_label(3, 2), (1, 1));
        assert_eq!(wang_label(3, 5), (3, 0));
        assert_eq!(wang_label(3, 6), (3, 1));
    }

    #[test]
    fn bases_with_gaps_or_repeats_are_refused() {
        let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(RotationalBasis::new(1, &identity, &[0, 0, 0], &[0, 1, 2]).is_ok());
        let repeat = RotationalBasis::new(1, &identity, &[0, 0, 1], &[0, 0, 0]).unwrap_err();
        assert!(repeat.to_string().contains("deg_of_column"), "{repeat}");
        let gap = RotationalBasis::new(1, &identity, &[0, 2, 2], &[0, 0, 1]).unwrap_err();
        assert!(gap.to_string().contains("level 1"), "{gap}");
        let skew = [1.0, 0.0, 0.0, 0.0, 1.0, 1e-9, 0.0, 0.0, 1.0];
        assert!(RotationalBasis::new(1, &skew, &[0, 1, 2], &[0, 0, 0]).unwrap_err().to_string().contains("orthogonal"));
    }
}
