//! Where the slices of |ψ|² and of U for pictures come from ([`SliceAxis`]); the CUDA kernels
//! (`slice_source`, `density_slice` and `potential_slice` in `kernels/tdse.cu`) follow the same map.

use super::engine::SliceAxis;
use super::grid::{Geometry, Grid};
use crate::error::{Error, Result};

/// Number of values of a slice on this handle's slab.
pub fn slice_len(grid: &Grid, axis: SliceAxis) -> usize {
    match (axis, grid.geometry) {
        (SliceAxis::X, _) => grid.plane_len(),
        (SliceAxis::Second, Geometry::Cylindrical) => 2 * grid.n2 * grid.nx_local,
        (SliceAxis::Second, Geometry::Cartesian) | (SliceAxis::Third, Geometry::Cylindrical) => grid.n3 * grid.nx_local,
        (SliceAxis::Third, Geometry::Cartesian) => grid.n2 * grid.nx_local,
    }
}

/// Checks the slice's `index`: a global x plane owned here, or an index of the second or third
/// coordinate.
pub fn check_slice_index(grid: &Grid, axis: SliceAxis, index: usize) -> Result<()> {
    let (range, what) = match (axis, grid.geometry) {
        (SliceAxis::X, _) => (grid.x_offset..grid.x_offset + grid.nx_local, "an x plane owned by this handle"),
        (SliceAxis::Second, Geometry::Cylindrical) => (0..grid.n3, "a θ index"),
        (SliceAxis::Second, Geometry::Cartesian) => (0..grid.n2, "a y index"),
        (SliceAxis::Third, Geometry::Cylindrical) => (0..grid.n2, "a ρ index"),
        (SliceAxis::Third, Geometry::Cartesian) => (0..grid.n3, "a z index"),
    };
    if range.contains(&index) {
        Ok(())
    } else {
        Err(Error::invalid("index", format!("must be {what}, in {}..{}, got {index}", range.start, range.end)))
    }
}

/// Index among the owned points (plane-major, eq. 17) of value `i` of a slice.
pub fn slice_source(grid: &Grid, axis: SliceAxis, index: usize, i: usize) -> usize {
    let (n2, n3, plane) = (grid.n2, grid.n3, grid.plane_len());
    let point = |k: usize, l: usize, m: usize| k * plane + l * n3 + m;
    match (axis, grid.geometry) {
        (SliceAxis::X, _) => (index - grid.x_offset) * plane + i,
        (SliceAxis::Second, Geometry::Cylindrical) => {
            let (k, j) = (i / (2 * n2), i % (2 * n2));
            // j < Nρ: the mirror half, ρ = −ρ_{Nρ−1−j} at θ_m + π (§2.1); then ρ_{j−Nρ} at θ_m.
            if j < n2 {
                point(k, n2 - 1 - j, (index + n3 / 2) % n3)
            } else {
                point(k, j - n2, index)
            }
        }
        (SliceAxis::Second, Geometry::Cartesian) => point(i / n3, index, i % n3),
        (SliceAxis::Third, Geometry::Cylindrical) => point(i / n3, index, i % n3),
        (SliceAxis::Third, Geometry::Cartesian) => point(i / n2, i % n2, index),
    }
}

/// (k_local, l, m) of owned point `index` (eq. 17 order).
pub fn owned_point(grid: &Grid, index: usize) -> (usize, usize, usize) {
    let plane = grid.plane_len();
    (index / plane, (index % plane) / grid.n3, index % grid.n3)
}
