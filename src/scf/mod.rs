//! Atomic SCF in spherical Gaussian basis sets (paper: dfratom-cudaprophet-scf.txt, DFRATOM and
//! its CUDA port): basis sets ([`basis`]: well-tempered pools or read-in exponents per symmetry)
//! one-electron integrals ([`one_electron`]: overlap, kinetic energy, point and Gaussian nuclear
//! attraction, in closed form) and radial two-electron Slater integrals R^k ([`slater`], closed
//! form through the incomplete beta function).
//!
//! Built so far (issue 10, first part), all on the CPU: basis sets, non-relativistic one-electron
//! integrals, Slater integrals, the triangular map of integral sets (paper §2.3,
//! [`index_map`]), the closed-shell two-electron supermatrix on that map ([`supermatrix`]) and
//! closed-shell Hartree-Fock ([`hf`]), which agrees with PySCF to 1e-12 hartree. Not yet: the
//! Dirac one-electron blocks with restricted kinetic balance and Dirac-Fock, open shells
//! (average of configuration), Fock extrapolation, the GPU path (one set per thread on the map,
//! the Fock build as one packed symmetric product), the basis optimisation, the C ABI and the
//! Fortran module.

pub mod basis;
mod cuda;
pub mod hf;
pub mod index_map;
pub mod one_electron;
pub mod slater;
pub mod supermatrix;
