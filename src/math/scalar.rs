//! Real (`f64`) or complex (`Complex64`) doubles, and their view as plain doubles (the layout of
//! device buffers and of the C ABI): the element type of a Sturmian basis, and the complex wave
//! function of the TDSE as its kernels read it.
//!
//! Bound-state Generalized Sturmian Functions (negative energies, real generating potentials)
//! are real; scattering ones (outgoing conditions, E > 0) are complex with complex β. Every
//! integral of that family is a *bilinear* form (no complex conjugation, as the paper's eqs. 13-15
//! are written for GSFs), so the same code serves both types.

use num_complex::Complex64;
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// A real or complex double.
pub trait Scalar:
    Copy
    + Send
    + Sync
    + Debug
    + Default
    + PartialEq
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Mul<f64, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + faer::traits::ComplexField
{
    /// True for `Complex64`.
    const COMPLEX: bool;
    /// `x` as this type.
    fn real(x: f64) -> Self;
    /// True when every component is finite.
    fn finite(self) -> bool;
    /// The modulus.
    fn modulus(self) -> f64;
}

impl Scalar for f64 {
    const COMPLEX: bool = false;
    fn real(x: f64) -> Self {
        x
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn modulus(self) -> f64 {
        self.abs()
    }
}

impl Scalar for Complex64 {
    const COMPLEX: bool = true;
    fn real(x: f64) -> Self {
        Complex64::new(x, 0.0)
    }
    fn finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
    fn modulus(self) -> f64 {
        self.norm()
    }
}

/// The doubles of a slice of scalars (1 per real, 2 per complex value: `Complex64` is `repr(C)`
/// {re, im}), as device buffers and the C ABI hold them.
pub fn as_doubles<T: Scalar>(values: &[T]) -> &[f64] {
    let width = if T::COMPLEX { 2 } else { 1 };
    // SAFETY: T is f64 or Complex64 (repr(C) pair of f64): same alignment, `width` doubles each.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const f64, values.len() * width) }
}

/// Mutable form of [`as_doubles`].
pub fn as_doubles_mut<T: Scalar>(values: &mut [T]) -> &mut [f64] {
    let width = if T::COMPLEX { 2 } else { 1 };
    // SAFETY: as in as_doubles.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut f64, values.len() * width) }
}

/// Doubles per element: 1 (real) or 2 (complex).
pub fn width<T: Scalar>() -> usize {
    if T::COMPLEX {
        2
    } else {
        1
    }
}

/// The index in `data` of the first element that is not finite in the `cols` columns of `rows`
/// elements of a column-major matrix with leading dimension `ld`, or `None` when all are finite.
/// Padding rows between `rows` and `ld` are the caller's and are not read. The columns are scanned
/// on all cores (a handle's dipole matrix, states or Hamiltonian take gigabytes).
pub fn first_non_finite<T: Scalar>(data: &[T], rows: usize, cols: usize, ld: usize) -> Option<usize> {
    use rayon::prelude::*;
    (0..cols)
        .into_par_iter()
        .find_map_first(|c| data[c * ld..c * ld + rows].iter().position(|v| !v.finite()).map(|r| r + c * ld))
}
