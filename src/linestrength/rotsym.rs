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
//! factors of [`wang_factor`](super::rotation::wang_factor) for component m (`mat(m, :, :)` of TROVE, the 3j symbols cut
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
//! contraction table ([`Contraction`](super::rotation::Contraction)), with up to 3 (2J+1) lower entries per upper slot.
//!
//! The bases ([`RotationalBasis`]) and the factors W_m are computed in [`super::rotation`]; this
//! file holds the handle's calls of the route.
//!
//! A handle's blocks are all of one route (TROVE's `rotsym_do` holds for every J): a rotsym
//! block ([`LineStrength::add_rotsym_block`]) needs its J's basis first
//! ([`LineStrength::set_rotational_basis`]), and Wang blocks cannot be added beside rotsym ones.

pub use super::rotation::{RotationalBasis, ORTHOGONALITY_TOLERANCE, SMALL};

use super::rotation::{check_j, Slots};
use super::{LineStrength, Unfolding};
use crate::error::{Error, Result};
use crate::memory;
use std::collections::HashMap;
use std::sync::Arc;

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
