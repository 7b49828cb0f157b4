//! Shared numerics used by several routine families.

pub mod gauss_legendre;
pub mod panels;
pub mod dense;
pub mod gemm;
pub mod wigner;
