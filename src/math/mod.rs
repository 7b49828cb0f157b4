//! Shared numerics used by several routine families.

pub mod dense;
pub mod gauss_legendre;
pub mod gemm;
pub mod panels;
pub mod wigner;
