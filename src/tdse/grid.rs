//! The finite-difference grids of the propagator (paper §2.1-2.2): cylindrical (x, ρ, θ) and
//! Cartesian (x, y, z), stored as eq. 17 (the third coordinate, θ or z, runs fastest, then the
//! second, ρ or y, then x), and the slab of x planes that one rank or GPU owns.
//!
//! Lengths in bohr, angles in radians, atomic units throughout.
//!
//! **Cylindrical** (x, ρ, θ): x_k = x0 + k dx, ρ_l = (l + ½) dρ (l = 0 … Nρ−1, the paper's
//! ρ_l = (l − ½) dρ counted from 1), θ_m = m dθ with dθ = 2π/Nθ, Nθ even and θ periodic. The
//! Laplacian (eq. 4) is discretised in flux form,
//!   Δψ ≈ (ψ_{k+1} − 2ψ + ψ_{k−1})/dx²
//!      + [ρ_{l+½}(ψ_{l+1} − ψ) − ρ_{l−½}(ψ − ψ_{l−1})]/(ρ_l dρ²)
//!      + (ψ_{m+1} − 2ψ + ψ_{m−1})/(ρ_l dθ)²,
//! which is Hermitian for the volume weight ρ_l dρ dθ dx. The axis condition of §2.1 gives the
//! ghost value below the first ring as its mirror, ψ_{k,−1,m} = ψ_{k,0,m+Nθ/2}; it enters this
//! stencil with the weight ρ_{−½} = 0 (and it cancels the same way in the non-conservative form
//! ψ_ρρ + ψ_ρ/ρ at ρ = dρ/2), so across the axis the rings are coupled through θ alone — which is
//! why the θ term, 1/(ρ dθ)², makes the explicit scheme unstable near the axis. The mirror map is
//! used where a picture crosses the axis ([`super::observables`]). ψ = 0 beyond ρ_max and the x
//! ends.
//!
//! **Cartesian** (x, y, z): x_k = x0 + k dx, y_j = y0 + j dy, z_m = z0 + m dz, the seven-point
//! Laplacian, ψ = 0 outside the box (the paper's earlier "Cartesian" solver, its ref. 28).

use crate::error::{Error, Result};
use std::f64::consts::PI;

/// Which coordinates the grid uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// (x, ρ, θ), the paper's hybrid scheme.
    Cylindrical,
    /// (x, y, z), the paper's earlier version.
    Cartesian,
}

/// A grid and the slab of it that this handle owns.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub geometry: Geometry,
    /// Points of the whole grid along x, the second (ρ or y) and the third (θ or z) coordinate.
    pub nx: usize,
    pub n2: usize,
    pub n3: usize,
    /// Steps in bohr: dx, and dρ or dy; `d3` is dz (bohr) for Cartesian grids and dθ = 2π/Nθ
    /// (radians) for cylindrical ones (set by [`Grid::cylindrical`]).
    pub dx: f64,
    pub d2: f64,
    pub d3: f64,
    /// Coordinates of the first point (bohr): x0 always, y0 and z0 on Cartesian grids (0 on
    /// cylindrical ones, whose axis is the x axis).
    pub x0: f64,
    pub y0: f64,
    pub z0: f64,
    /// The owned slab: global planes `x_offset .. x_offset + nx_local`.
    pub x_offset: usize,
    pub nx_local: usize,
}

/// Largest number of points a handle may own (2^40): sizes beyond it are refused as arguments
/// before any product overflows.
const MAX_POINTS: u128 = 1 << 40;

impl Grid {
    /// A cylindrical grid of Nx × Nρ × Nθ points, dθ = 2π/Nθ, the whole of it owned.
    pub fn cylindrical(nx: usize, n_rho: usize, n_theta: usize, dx: f64, d_rho: f64, x0: f64) -> Result<Self> {
        let d3 = if n_theta > 0 { 2.0 * PI / n_theta as f64 } else { 0.0 };
        let grid = Grid {
            geometry: Geometry::Cylindrical,
            nx,
            n2: n_rho,
            n3: n_theta,
            dx,
            d2: d_rho,
            d3,
            x0,
            y0: 0.0,
            z0: 0.0,
            x_offset: 0,
            nx_local: nx,
        };
        grid.validate()?;
        Ok(grid)
    }

    /// A Cartesian grid of Nx × Ny × Nz points starting at (x0, y0, z0), the whole of it owned.
    pub fn cartesian(n: [usize; 3], d: [f64; 3], origin: [f64; 3]) -> Result<Self> {
        let grid = Grid {
            geometry: Geometry::Cartesian,
            nx: n[0],
            n2: n[1],
            n3: n[2],
            dx: d[0],
            d2: d[1],
            d3: d[2],
            x0: origin[0],
            y0: origin[1],
            z0: origin[2],
            x_offset: 0,
            nx_local: n[0],
        };
        grid.validate()?;
        Ok(grid)
    }

    /// The same grid owning only the planes `x_offset .. x_offset + nx_local`.
    pub fn slab(mut self, x_offset: usize, nx_local: usize) -> Result<Self> {
        self.x_offset = x_offset;
        self.nx_local = nx_local;
        self.validate()?;
        Ok(self)
    }

    /// Checks every rule of the grid; the error names the C argument's field.
    pub fn validate(&self) -> Result<()> {
        let cyl = self.geometry == Geometry::Cylindrical;
        for (name, n) in [("grid.nx", self.nx), ("grid.n2", self.n2), ("grid.n3", self.n3)] {
            if n < 2 {
                return Err(Error::invalid(name, format!("must be at least 2, got {n}")));
            }
        }
        if cyl && !self.n3.is_multiple_of(2) {
            return Err(Error::invalid(
                "grid.n3",
                format!("N_theta must be even (the axis condition maps θ to θ + π), got {}", self.n3),
            ));
        }
        let steps: [(&'static str, f64); 3] = [("grid.dx", self.dx), ("grid.d2", self.d2), ("grid.d3", self.d3)];
        for (name, d) in steps {
            if !(d.is_finite() && d > 0.0 && d <= 1e6) {
                return Err(Error::invalid(name, format!("must be a step in (0, 1e6] bohr, got {d}")));
            }
        }
        for (name, v) in [("grid.x0", self.x0), ("grid.y0", self.y0), ("grid.z0", self.z0)] {
            if !(v.is_finite() && v.abs() <= 1e9) {
                return Err(Error::invalid(name, format!("must be a coordinate within ±1e9 bohr, got {v}")));
            }
        }
        let points = self.nx as u128 * self.n2 as u128 * self.n3 as u128;
        if points > MAX_POINTS {
            return Err(Error::invalid("grid.nx", format!("Nx·N2·N3 = {points} exceeds 2^40 points")));
        }
        // The CUDA kernels address the points of a plane with 32-bit offsets.
        if self.n2 as u128 * self.n3 as u128 >= 1 << 31 {
            return Err(Error::invalid(
                "grid.n2",
                format!("N2·N3 = {} points per x plane must be below 2^31", self.n2 * self.n3),
            ));
        }
        if self.nx_local == 0 || self.nx_local > self.nx {
            return Err(Error::invalid(
                "grid.nx_local",
                format!("must be in 1..=nx = {}, got {}", self.nx, self.nx_local),
            ));
        }
        if self.x_offset > self.nx - self.nx_local {
            return Err(Error::invalid(
                "grid.x_offset",
                format!(
                    "x_offset + nx_local must not exceed nx = {}, got {} + {}",
                    self.nx, self.x_offset, self.nx_local
                ),
            ));
        }
        Ok(())
    }

    /// True when this handle owns only part of the x range (a rank of a split domain).
    pub fn is_split(&self) -> bool {
        self.nx_local != self.nx
    }

    /// Points of one x plane, N2·N3.
    pub fn plane_len(&self) -> usize {
        self.n2 * self.n3
    }

    /// Points owned, nx_local·N2·N3.
    pub fn local_len(&self) -> usize {
        self.nx_local * self.plane_len()
    }

    /// Length of a stored wavefunction: the owned planes and one ghost plane on each side.
    pub fn stored_len(&self) -> usize {
        (self.nx_local + 2) * self.plane_len()
    }

    /// x of global plane `k` (bohr).
    pub fn x(&self, k: usize) -> f64 {
        self.x0 + k as f64 * self.dx
    }

    /// The second coordinate of index `l`: ρ_l = (l + ½)dρ, or y_l = y0 + l dy (bohr).
    pub fn coord2(&self, l: usize) -> f64 {
        match self.geometry {
            Geometry::Cylindrical => (l as f64 + 0.5) * self.d2,
            Geometry::Cartesian => self.y0 + l as f64 * self.d2,
        }
    }

    /// The third coordinate of index `m`: θ_m = m dθ (radians) or z_m = z0 + m dz (bohr).
    pub fn coord3(&self, m: usize) -> f64 {
        match self.geometry {
            Geometry::Cylindrical => m as f64 * self.d3,
            Geometry::Cartesian => self.z0 + m as f64 * self.d3,
        }
    }

    /// Cartesian (x, y, z) of global point (k, l, m): y = ρ cos θ, z = ρ sin θ on cylindrical grids.
    pub fn position(&self, k: usize, l: usize, m: usize) -> [f64; 3] {
        match self.geometry {
            Geometry::Cylindrical => {
                let (rho, theta) = (self.coord2(l), self.coord3(m));
                [self.x(k), rho * theta.cos(), rho * theta.sin()]
            }
            Geometry::Cartesian => [self.x(k), self.coord2(l), self.coord3(m)],
        }
    }

    /// Volume of the cell of a point on line `l` (bohr³): ρ_l dρ dθ dx, or dx dy dz.
    pub fn weight(&self, l: usize) -> f64 {
        match self.geometry {
            Geometry::Cylindrical => self.coord2(l) * self.d2 * self.d3 * self.dx,
            Geometry::Cartesian => self.dx * self.d2 * self.d3,
        }
    }

    /// The Laplacian's coefficients on line `l` (bohr⁻²): towards l + 1, towards l − 1, and
    /// along the third coordinate ([`LineCoefficients`]).
    pub fn line_coefficients(&self, l: usize) -> LineCoefficients {
        match self.geometry {
            Geometry::Cylindrical => {
                let rho = self.coord2(l);
                let h2 = self.d2 * self.d2;
                LineCoefficients {
                    up: (rho + 0.5 * self.d2) / (rho * h2),
                    down: (rho - 0.5 * self.d2) / (rho * h2),
                    third: 1.0 / (rho * rho * self.d3 * self.d3),
                }
            }
            Geometry::Cartesian => {
                let c = 1.0 / (self.d2 * self.d2);
                LineCoefficients { up: c, down: c, third: 1.0 / (self.d3 * self.d3) }
            }
        }
    }

    /// Gershgorin bound of the kinetic operator −Δ/2 on line `l` (hartree), with or without
    /// its θ (or z) term: 2/dx² + (up + down) + [2 third].
    pub fn kinetic_bound(&self, l: usize, with_third: bool) -> f64 {
        let c = self.line_coefficients(l);
        2.0 / (self.dx * self.dx) + c.up + c.down + if with_third { 2.0 * c.third } else { 0.0 }
    }
}

/// Coefficients of the discrete Laplacian on one line of the grid (bohr⁻²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineCoefficients {
    /// Weight of ψ_{l+1} − ψ (ρ_{l+½}/(ρ_l dρ²), or 1/dy²).
    pub up: f64,
    /// Weight of ψ_{l−1} − ψ (ρ_{l−½}/(ρ_l dρ²): 0 on the first ring; or 1/dy²).
    pub down: f64,
    /// Weight of ψ_{m+1} − 2ψ + ψ_{m−1} (1/(ρ_l dθ)², or 1/dz²).
    pub third: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_n_theta_and_overhanging_slabs_are_refused() {
        let e = Grid::cylindrical(10, 10, 7, 0.2, 0.2, 0.0).unwrap_err();
        assert!(e.to_string().contains("grid.n3") && e.to_string().contains("even"), "{e}");
        let g = Grid::cylindrical(10, 10, 8, 0.2, 0.2, 0.0).unwrap();
        assert!(g.clone().slab(8, 3).unwrap_err().to_string().contains("grid.x_offset"));
        assert!(g.slab(0, 0).unwrap_err().to_string().contains("grid.nx_local"));
    }

    #[test]
    fn cylindrical_weights_sum_to_the_volume_of_the_cylinder() {
        // Σ_l ρ_l dρ dθ dx over l, m, k = π R² L exactly (midpoint rule of ∫ρ dρ is exact).
        let g = Grid::cylindrical(5, 40, 16, 0.3, 0.25, 0.0).unwrap();
        let total: f64 = (0..g.n2).map(|l| g.weight(l) * (g.n3 * g.nx) as f64).sum();
        let (radius, length) = (40.0 * 0.25, 5.0 * 0.3);
        assert!((total - PI * radius * radius * length).abs() < 1e-12 * total);
    }

    #[test]
    fn the_first_ring_has_no_coupling_towards_the_axis() {
        let g = Grid::cylindrical(4, 4, 8, 0.2, 0.2, 0.0).unwrap();
        assert_eq!(g.line_coefficients(0).down, 0.0);
        let c = g.line_coefficients(2);
        assert!((c.up + c.down - 2.0 / 0.04).abs() < 1e-12);
    }
}
