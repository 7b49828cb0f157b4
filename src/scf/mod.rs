//! Atomic SCF in spherical Gaussian basis sets (paper: dfratom-cudaprophet-scf.txt, DFRATOM and
//! its CUDA port): basis sets ([`basis`]: well-tempered pools or read-in exponents per symmetry)
//! one-electron integrals ([`one_electron`]: overlap, kinetic energy, point and Gaussian nuclear
//! attraction, in closed form) and radial two-electron Slater integrals R^k ([`slater`], closed
//! form through the incomplete beta function).
//!
//! Built so far (issue 10, first part): the CPU reference of the basis sets, the
//! non-relativistic one-electron integrals and single Slater integrals. Not yet: the Dirac
//! one-electron blocks with restricted kinetic balance, the J/K integral sets over symmetry pairs
//! (triangular thread map, GPU), the Fock build and SCF, the basis optimisation, the C ABI and
//! Fortran module.

pub mod basis;
pub mod index_map;
pub mod one_electron;
pub mod slater;
