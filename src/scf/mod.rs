//! Atomic SCF in spherical Gaussian basis sets (paper: dfratom-cudaprophet-scf.txt, DFRATOM and
//! its CUDA port): basis sets ([`basis`]: well-tempered pools or read-in exponents per symmetry)
//! one-electron integrals ([`one_electron`]: overlap, kinetic energy, point and Gaussian nuclear
//! attraction, in closed form) and radial two-electron Slater integrals R^k ([`slater`], closed
//! form through the incomplete beta function).
//!
//! Built (issue 10): basis sets, non-relativistic one-electron integrals, Slater integrals, the
//! Dirac one-electron blocks with normalised restricted-kinetic-balance small components
//! ([`radial`]), the triangular map of integral sets (paper §2.3, [`index_map`]), the
//! two-electron supermatrix on that map, non-relativistic or Dirac-Fock ([`Supermatrix`]: CPU with
//! rayon, GPU one set per thread), the Fock build from densities as one packed symmetric product
//! ([`Supermatrix::two_electron`]), the SCF ([`solver`]: Hartree-Fock or Dirac-Fock,
//! closed shells and average-of-configuration open shells) and the WTBS optimisation
//! ([`optimise`]: BOBYQA). The C ABI is `src/ffi/scf.rs`, the Fortran module
//! `fortran/atomgpu_scf.f90`, the DFRATOM-style namelist driver `examples/fortran/scf_atom.f90`.
//! Not built: Fock extrapolation (DFRATOM's `ixtrp`), several configurations per SCF (`nconf`),
//! tiles for supermatrices beyond device memory (a basis whose supermatrix does not fit is
//! refused with ATOMGPU_ERR_OUT_OF_MEMORY naming the bytes).

use crate::error::Result;
use crate::progress::Tracker;
use std::ffi::CStr;

pub mod basis;
mod cpu;
mod cuda;
pub mod index_map;
pub mod one_electron;
pub mod optimise;
pub mod radial;
pub mod slater;
pub mod solver;

pub use cpu::{dirac_exchange_weights, element_scale, exchange_weights, Blocks, Spinor, Supermatrix, Symmetry};

/// How a long computation of the family reports how far it is (in the unit its caller chose)
/// and learns that it must stop: `None` when nobody watches (the calling thread has neither a
/// progress callback nor a time limit: a device computation then runs in one launch), else a
/// function called at each step, whose error stops the computation with that error.
pub(crate) type Watch<'a, 'f> = Option<&'a mut (dyn FnMut(f64) -> Result<()> + 'f)>;

/// Runs `body` as the long call `task` of the calling thread ([`Tracker`]): its watch reports
/// `done` of `total` (none when the thread watches nothing), then the final report.
pub(crate) fn tracked<T>(task: &'static CStr, total: f64, body: impl FnOnce(Watch<'_, '_>) -> Result<T>) -> Result<T> {
    let mut tracker = Tracker::start(task);
    let watched = tracker.is_watched();
    let mut report = |done: f64| tracker.update(done, total);
    let out = body(if watched { Some(&mut report) } else { None })?;
    tracker.finish(total)?;
    Ok(out)
}
