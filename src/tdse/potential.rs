//! The potential U(r, t) = V_ion(|r − R(t)|) + V_surf(x) of eq. 1 and the absorbing potential of
//! eq. 2, in hartree, positions in bohr, times in atomic units (2.419·10⁻¹⁷ s).
//!
//! **Ion** (one active electron, soft-cored at r_s): with r = (|r − R|² + r_s²)^½,
//!   V_ion(r) = −[Z_c + (Z − Z_c) e^{−a1 r} + a2 r e^{−a3 r}]/r − α_d/(2 (r² + d²)²) + A e^{−b r²}.
//! The first term is the Tong-Lin form (X.M. Tong, C.D. Lin, J. Phys. B 38 (2005) 2593); the
//! polarisation and Gaussian core terms are those of Bardsley's alkali pseudopotentials (the
//! paper's ref. 9: J.N. Bardsley, Case Stud. At. Phys. 4 (1974) 299). Hydrogen is Z = Z_c = 1 and
//! everything else 0.
//!
//! **Surface**, with the metal at x < x_s and z = x − x_s the distance from the reference plane:
//! - a table V(x_k) on the global x grid;
//! - Jennings-Jones-Weinert jellium (the paper's ref. 10: P.J. Jennings, R.O. Jones, M. Weinert,
//!   Phys. Rev. B 37 (1988) 6113): V = −U0/(A e^{B(z − z_im)} + 1) for z < z_im and
//!   V = −(1 − e^{−λ(z − z_im)})/(4(z − z_im)) beyond, with A = 4U0/λ − 1, B = 2U0/A, which make V
//!   and V′ continuous at the image plane z_im (both branches give −λ/4 and λ²/8 there);
//! - Chulkov-Silkin-Echenique projected band gap (the paper's ref. 11: Surf. Sci. 437 (1999) 330):
//!   V1 = A10 + A1 cos(2πz/a_s) (z < 0), V2 = −A20 + A2 cos(βz) (0 ≤ z < z1),
//!   V3 = A3 e^{−α(z − z1)} (z1 ≤ z < z_im), V4 = (e^{−λ(z − z_im)} − 1)/(4(z − z_im)) (z ≥ z_im),
//!   from the five parameters of that paper's Table 1 as it prints them: the interlayer spacing
//!   a_s (bohr), A10, A1, A2 (eV, converted here with 1 hartree = 27.211386245988 eV, CODATA
//!   2018) and β (bohr⁻¹); e.g. Cu(111): a_s = 3.94, A10 = −11.895, A1 = 5.14, A2 = 4.3279,
//!   β = 2.9416. Continuity of V and V′ at 0, z1 and z_im gives A20 = A2 − A10 − A1,
//!   z1 = 5π/(4β), A3 = −A20 − A2/√2, α = A2 β sin(βz1)/A3, λ = 2α, z_im = z1 − ln(−α/(2A3))/α.
//!   (Before issue 28 A10, A1, A2 were taken in hartree.)
//!
//! **Absorber**: W(x, ρ) ≥ 0 (hartree) in layers of width L at both x ends and at ρ_max (and at
//! both ends of y and z on Cartesian grids), W = W0 Σ (depth/L)², entering eq. 2 as the absorbing
//! potential V = −iW, i.e. the factors e^{−iτV} = e^{−τW} and e^{−2iτV} = e^{−2τW}.
//!
//! **Trajectory** R(t): a caller table (t_i, R_i) with t increasing, linearly interpolated; a run
//! that would step past its last time is refused before it starts.

use super::grid::{Geometry, Grid};
use crate::error::{Error, Result};

/// Parameters of V_ion (see the module docs), atomic units.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IonPotential {
    pub z: f64,
    pub z_core: f64,
    pub a1: f64,
    pub a2: f64,
    pub a3: f64,
    /// Dipole polarisability α_d (bohr³) and its cut-off d (bohr).
    pub polarisability: f64,
    pub polarisation_cutoff: f64,
    /// Gaussian core term A (hartree) and exponent b (bohr⁻²).
    pub core_amplitude: f64,
    pub core_exponent: f64,
    /// Soft-core radius r_s (bohr), 0 for the bare Coulomb tail.
    pub soft_core: f64,
}

impl IonPotential {
    /// Hydrogen: −1/r.
    pub fn hydrogen() -> Self {
        IonPotential { z: 1.0, z_core: 1.0, ..Default::default() }
    }

    /// Soft-cored hydrogen for moving ions (`examples/mpi/tdse_jellium.c`):
    /// V = −[1 + (Z − 1) e^{−s}]/s, s = (r² + r_s²)^½, r_s = 0.5 bohr, a1 = 1 bohr⁻¹,
    /// Z = 1.766034308465286 — hydrogen's −1/r tail, and Z chosen so that its continuum 1s level
    /// is hydrogen's −½ hartree (computed with scipy: eigh_tridiagonal of the radial −½u″ + Vu on
    /// r ≤ 40 bohr at 20000 and 40000 points, Richardson-extrapolated, Z by brentq; the same
    /// script gives −0.50000000008 for the bare Coulomb potential).
    pub fn soft_cored_hydrogen() -> Self {
        IonPotential { z: 1.766034308465286, z_core: 1.0, a1: 1.0, soft_core: 0.5, ..Default::default() }
    }

    /// Checks the parameters; errors name the C struct fields.
    pub fn validate(&self) -> Result<()> {
        let fields = [
            ("ion.z", self.z),
            ("ion.z_core", self.z_core),
            ("ion.a1", self.a1),
            ("ion.a2", self.a2),
            ("ion.a3", self.a3),
            ("ion.polarisability", self.polarisability),
            ("ion.polarisation_cutoff", self.polarisation_cutoff),
            ("ion.core_amplitude", self.core_amplitude),
            ("ion.core_exponent", self.core_exponent),
            ("ion.soft_core", self.soft_core),
        ];
        for (name, v) in fields {
            if !(v.is_finite() && v.abs() <= 1e6) {
                return Err(Error::invalid(name, format!("must be finite and within ±1e6 (atomic units), got {v}")));
            }
        }
        for (name, v) in [
            ("ion.a1", self.a1),
            ("ion.a3", self.a3),
            ("ion.core_exponent", self.core_exponent),
            ("ion.soft_core", self.soft_core),
            ("ion.polarisability", self.polarisability),
        ] {
            if v < 0.0 {
                return Err(Error::invalid(name, format!("must not be negative, got {v}")));
            }
        }
        if self.polarisability > 0.0 && self.polarisation_cutoff <= 0.0 {
            return Err(Error::invalid("ion.polarisation_cutoff", "must be positive when ion.polarisability is"));
        }
        Ok(())
    }

    /// V_ion at squared distance `r2` (bohr²) from the ion (hartree).
    pub fn value(&self, r2: f64) -> f64 {
        let r2 = r2 + self.soft_core * self.soft_core;
        let r = r2.sqrt();
        let mut charge = self.z_core;
        if self.z != self.z_core {
            charge += (self.z - self.z_core) * (-self.a1 * r).exp();
        }
        if self.a2 != 0.0 {
            charge += self.a2 * r * (-self.a3 * r).exp();
        }
        let mut v = -charge / r;
        if self.polarisability != 0.0 {
            let s = r2 + self.polarisation_cutoff * self.polarisation_cutoff;
            v -= self.polarisability / (2.0 * s * s);
        }
        if self.core_amplitude != 0.0 {
            v += self.core_amplitude * (-self.core_exponent * r2).exp();
        }
        v
    }
}

/// The surface part of U, a function of x alone.
#[derive(Clone, Debug, PartialEq)]
pub enum Surface {
    /// No surface.
    None,
    /// V(x_k) (hartree) on the global planes k = 0 … Nx−1.
    Table(Vec<f64>),
    /// Jennings-Jones-Weinert jellium: reference plane x_s, depth U0 (hartree), λ (bohr⁻¹),
    /// image plane z_im (bohr, from x_s).
    Jellium { x_surface: f64, depth: f64, lambda: f64, image_plane: f64 },
    /// Chulkov projected band gap: reference plane x_s, a_s (bohr), A10, A1, A2 (eV, as the
    /// paper's Table 1 gives them), β (bohr⁻¹).
    Chulkov { x_surface: f64, spacing: f64, a10: f64, a1: f64, a2: f64, beta: f64 },
}

/// 1 hartree in eV (CODATA 2018: E_h = 2 Ry = 27.211386245988 eV; the double is exactly twice
/// the rates family's Rydberg energy, 13.605693122994 eV).
pub const HARTREE_EV: f64 = 27.211_386_245_988;

/// The Chulkov potential's amplitudes in hartree and derived constants (module docs).
#[derive(Clone, Copy, Debug)]
struct ChulkovDerived {
    a10: f64,
    a1: f64,
    a2: f64,
    a20: f64,
    z1: f64,
    a3: f64,
    alpha: f64,
    lambda: f64,
    z_im: f64,
}

/// The constants of the Chulkov potential from A10, A1, A2 in eV and β in bohr⁻¹.
fn chulkov_derived(a10_ev: f64, a1_ev: f64, a2_ev: f64, beta: f64) -> ChulkovDerived {
    let (a10, a1, a2) = (a10_ev / HARTREE_EV, a1_ev / HARTREE_EV, a2_ev / HARTREE_EV);
    let a20 = a2 - a10 - a1;
    let z1 = 5.0 * std::f64::consts::PI / (4.0 * beta);
    let a3 = -a20 - a2 / std::f64::consts::SQRT_2;
    let alpha = a2 * beta * (beta * z1).sin() / a3;
    let z_im = z1 - (-alpha / (2.0 * a3)).ln() / alpha;
    ChulkovDerived { a10, a1, a2, a20, z1, a3, alpha, lambda: 2.0 * alpha, z_im }
}

/// −(1 − e^{−λd})/(4d), the saturated image tail, with its limit −λ/4 at d → 0.
fn image_tail(lambda: f64, d: f64) -> f64 {
    if (lambda * d).abs() < 1e-8 {
        -lambda / 4.0 * (1.0 - lambda * d / 2.0)
    } else {
        -(-(-lambda * d).exp_m1()) / (4.0 * d)
    }
}

impl Surface {
    /// Checks the parameters against the grid (`nx` global planes).
    pub fn validate(&self, nx: usize) -> Result<()> {
        let finite = |name: &'static str, v: f64| {
            if v.is_finite() && v.abs() <= 1e9 {
                Ok(())
            } else {
                Err(Error::invalid(name, format!("must be finite and within ±1e9, got {v}")))
            }
        };
        match self {
            Surface::None => Ok(()),
            Surface::Table(v) => {
                if v.len() != nx {
                    return Err(Error::invalid(
                        "surface_table",
                        format!("must hold one value per x plane, {nx}, got {}", v.len()),
                    ));
                }
                match v.iter().position(|x| !(x.is_finite() && x.abs() <= 1e6)) {
                    Some(i) => Err(Error::invalid_at("surface_table", i, "must be finite and within ±1e6 hartree")),
                    None => Ok(()),
                }
            }
            Surface::Jellium { x_surface, depth, lambda, image_plane } => {
                finite("surface.x_surface", *x_surface)?;
                finite("surface.image_plane", *image_plane)?;
                if !(depth.is_finite() && *depth > 0.0 && *depth < 100.0) {
                    return Err(Error::invalid(
                        "surface.depth",
                        format!("U0 must be in (0, 100) hartree, got {depth}"),
                    ));
                }
                if !(lambda.is_finite() && *lambda > 0.0 && *lambda < 4.0 * depth) {
                    return Err(Error::invalid(
                        "surface.lambda",
                        format!("must be in (0, 4 U0) so that A = 4U0/λ − 1 > 0, got {lambda} with U0 = {depth}"),
                    ));
                }
                Ok(())
            }
            Surface::Chulkov { x_surface, spacing, a10, a1, a2, beta } => {
                finite("surface.x_surface", *x_surface)?;
                for (name, v) in [("surface.a10", *a10), ("surface.a1", *a1)] {
                    if !(v.is_finite() && v.abs() < 1e3) {
                        return Err(Error::invalid(name, format!("must be within ±1e3 eV, got {v}")));
                    }
                }
                for (name, v, unit) in [
                    ("surface.spacing", *spacing, "bohr"),
                    ("surface.a2", *a2, "eV"),
                    ("surface.beta", *beta, "bohr⁻¹"),
                ] {
                    if !(v.is_finite() && v > 0.0 && v < 1e3) {
                        return Err(Error::invalid(name, format!("must be positive and below 1e3 {unit}, got {v}")));
                    }
                }
                let d = chulkov_derived(*a10, *a1, *a2, *beta);
                if !(d.a3 < 0.0 && d.alpha > 0.0 && d.z_im.is_finite()) {
                    return Err(Error::invalid(
                        "surface.a10",
                        format!(
                            "A10, A1, A2 (eV), β give A3 = {:.4} eV (must be negative) and α = {:.4} bohr⁻¹ (positive): not a bound surface",
                            d.a3 * HARTREE_EV, d.alpha
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// V_surf at global plane `k`, x = x_k (hartree).
    pub fn value(&self, k: usize, x: f64) -> f64 {
        match self {
            Surface::None => 0.0,
            Surface::Table(v) => v[k],
            Surface::Jellium { x_surface, depth, lambda, image_plane } => {
                let d = x - x_surface - image_plane;
                if d < 0.0 {
                    let a = 4.0 * depth / lambda - 1.0;
                    let b = 2.0 * depth / a;
                    -depth / (a * (b * d).exp() + 1.0)
                } else {
                    image_tail(*lambda, d)
                }
            }
            Surface::Chulkov { x_surface, spacing, a10, a1, a2, beta } => {
                let z = x - x_surface;
                let c = chulkov_derived(*a10, *a1, *a2, *beta);
                if z < 0.0 {
                    c.a10 + c.a1 * (2.0 * std::f64::consts::PI * z / spacing).cos()
                } else if z < c.z1 {
                    -c.a20 + c.a2 * (beta * z).cos()
                } else if z < c.z_im {
                    c.a3 * (-c.alpha * (z - c.z1)).exp()
                } else {
                    image_tail(c.lambda, z - c.z_im)
                }
            }
        }
    }

    /// V_surf on every global plane (hartree): the table the kernels read.
    pub fn tabulate(&self, grid: &Grid) -> Result<Vec<f64>> {
        crate::memory::collect("the surface potential table", (0..grid.nx).map(|k| self.value(k, grid.x(k))))
    }
}

/// The ion's path R(t): times (a.u.) and positions (bohr), linearly interpolated.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    times: Vec<f64>,
    positions: Vec<[f64; 3]>,
}

impl Trajectory {
    /// A table of `times` (strictly increasing) and `positions`; one point makes a fixed ion
    /// valid at every time.
    pub fn new(times: Vec<f64>, positions: Vec<[f64; 3]>) -> Result<Self> {
        if times.is_empty() || times.len() != positions.len() {
            return Err(Error::invalid("n_points", "must be at least 1, with one position per time"));
        }
        for (i, &t) in times.iter().enumerate() {
            if !(t.is_finite() && t.abs() <= 1e12) {
                return Err(Error::invalid_at("times", i, format!("must be finite, got {t}")));
            }
            if i > 0 && t <= times[i - 1] {
                return Err(Error::invalid_at("times", i, "must increase strictly"));
            }
        }
        for (i, p) in positions.iter().enumerate() {
            if p.iter().any(|v| !(v.is_finite() && v.abs() <= 1e9)) {
                return Err(Error::invalid_at("positions", 3 * i, "must be finite and within ±1e9 bohr"));
            }
        }
        Ok(Trajectory { times, positions })
    }

    /// An ion at rest at `position` for all times.
    pub fn fixed(position: [f64; 3]) -> Self {
        Trajectory { times: vec![0.0], positions: vec![position] }
    }

    /// Checks that R(t) is defined over [t_start, t_end] (a.u.).
    pub fn covers(&self, t_start: f64, t_end: f64) -> Result<()> {
        if self.times.len() == 1 {
            return Ok(());
        }
        let (first, last) = (self.times[0], *self.times.last().unwrap());
        let slack = 1e-9 * (t_end - t_start).abs().max(1.0);
        if t_start < first - slack || t_end > last + slack {
            return Err(Error::invalid(
                "n_steps",
                format!(
                    "the run covers t = {t_start} … {t_end} a.u. but the trajectory only {first} … {last}: give a longer trajectory or fewer steps"
                ),
            ));
        }
        Ok(())
    }

    /// R(t) (bohr), clamped to the table's ends.
    pub fn at(&self, t: f64) -> [f64; 3] {
        let n = self.times.len();
        if n == 1 || t <= self.times[0] {
            return self.positions[0];
        }
        if t >= self.times[n - 1] {
            return self.positions[n - 1];
        }
        let i = self.times.partition_point(|&ti| ti <= t) - 1;
        let f = (t - self.times[i]) / (self.times[i + 1] - self.times[i]);
        let (a, b) = (self.positions[i], self.positions[i + 1]);
        [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])]
    }
}

/// The absorbing layers (module docs): width L (bohr) and strength W0 (hartree).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Absorber {
    pub width: f64,
    pub strength: f64,
}

impl Absorber {
    /// Depth-into-layer profile (depth/L)² of a coordinate index among `n` with step `h`, for a
    /// layer at the low end (when `low`) and at the high end.
    fn profile(&self, index: usize, n: usize, h: f64, low: bool) -> f64 {
        if self.width <= 0.0 || self.strength <= 0.0 {
            return 0.0;
        }
        let from_high = (n - 1 - index) as f64 * h;
        let from_low = index as f64 * h;
        let mut w = 0.0;
        if from_high < self.width {
            w += ((self.width - from_high) / self.width).powi(2);
        }
        if low && from_low < self.width {
            w += ((self.width - from_low) / self.width).powi(2);
        }
        w
    }

    /// W on global plane `k` (hartree).
    pub fn along_x(&self, grid: &Grid, k: usize) -> f64 {
        self.strength * self.profile(k, grid.nx, grid.dx, true)
    }

    /// W on line `l` of the second coordinate (ρ: outer edge only; y: both ends).
    pub fn along_second(&self, grid: &Grid, l: usize) -> f64 {
        self.strength * self.profile(l, grid.n2, grid.d2, grid.geometry == Geometry::Cartesian)
    }

    /// W at index `m` of the third coordinate (z: both ends; none along θ).
    pub fn along_third(&self, grid: &Grid, m: usize) -> f64 {
        match grid.geometry {
            Geometry::Cylindrical => 0.0,
            Geometry::Cartesian => self.strength * self.profile(m, grid.n3, grid.d3, true),
        }
    }
}

/// What U is: analytic (ion along a trajectory plus a surface) or a caller array.
#[derive(Clone, Debug, PartialEq)]
pub enum PotentialSource {
    Analytic {
        ion: Option<IonPotential>,
        surface_table: Vec<f64>,
        trajectory: Trajectory,
    },
    /// U on the owned points (hartree), static until the caller replaces it.
    Array(Vec<f64>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jellium_is_continuous_with_its_derivative_at_the_image_plane() {
        let s = Surface::Jellium { x_surface: 0.0, depth: 0.5, lambda: 1.1, image_plane: -1.0 };
        let h = 1e-6;
        let (below, above) = (s.value(0, -1.0 - h), s.value(0, -1.0 + h));
        assert!((below - above).abs() < 1e-6 && (below + 1.1 / 4.0).abs() < 1e-5);
        let slope = |x: f64| (s.value(0, x + 1e-4) - s.value(0, x - 1e-4)) / 2e-4;
        assert!((slope(-1.0 - 1e-3) - slope(-1.0 + 1e-3)).abs() < 1e-3 * slope(-1.0 + 1e-3).abs().max(1.0));
        // Bulk depth and the image-charge tail −1/(4z) far out.
        assert!((s.value(0, -60.0) + 0.5).abs() < 1e-12);
        assert!((s.value(0, 99.0) + 1.0 / 400.0).abs() < 1e-9);
    }

    /// Cu(111) as Chulkov, Silkin and Echenique's Table 1 gives it (a_s in bohr, A in eV).
    const CU111: (f64, f64, f64, f64, f64) = (3.94, -11.895, 5.14, 4.3279, 2.9416);

    fn cu111(x_surface: f64) -> Surface {
        let (spacing, a10, a1, a2, beta) = CU111;
        Surface::Chulkov { x_surface, spacing, a10, a1, a2, beta }
    }

    #[test]
    fn chulkov_cu111_has_the_closed_forms_of_the_paper() {
        // Independent of the code's derived constants: the paper's closed forms evaluated here
        // from Table 1's Cu(111) row in eV (1 hartree = 27.211386245988 eV, CODATA 2018).
        const EV: f64 = 27.211386245988;
        let (a_s, a10, a1, a2, beta) = CU111;
        let s = cu111(0.0);
        s.validate(2).unwrap();
        let v = |z: f64| s.value(0, z);
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol;
        // Bulk: A10 + A1 cos(2πz/a_s), period a_s, maxima A10 + A1 at the planes z = −n a_s and
        // minima A10 − A1 halfway (−6.755 and −17.035 eV).
        for n in 1..6 {
            let z = -(n as f64) * a_s;
            assert!(close(v(z) * EV, a10 + a1, 1e-12), "V(−{n} a_s) = {} eV", v(z) * EV);
            assert!(close(v(z + 0.5 * a_s) * EV, a10 - a1, 1e-12));
            for f in [0.13, 0.37, 0.81] {
                assert!(close(v(z - f * a_s), v(z - f * a_s - a_s), 1e-14), "not periodic at {}", z - f * a_s);
            }
        }
        // At the surface plane V = A10 + A1 (the bulk's maximum, from both sides).
        assert!(close(v(-1e-12) * EV, a10 + a1, 1e-9) && close(v(1e-12) * EV, a10 + a1, 1e-9));
        // z1 = 5π/(4β): V2(z1) = −A20 − A2/√2 with A20 = A2 − A10 − A1, the value of V3 there.
        let z1 = 5.0 * std::f64::consts::PI / (4.0 * beta);
        let a3 = -(a2 - a10 - a1) - a2 / 2f64.sqrt();
        assert!(close(v(z1 - 1e-12) * EV, a3, 1e-9) && close(v(z1 + 1e-12) * EV, a3, 1e-9), "V(z1) = {}", v(z1) * EV);
        // V3's decay α = A2 β sin(βz1)/A3 (bohr⁻¹) and the image plane, where V = −α/2 = −λ/4.
        let alpha = a2 * beta * (beta * z1).sin() / a3;
        let z_im = z1 - (-alpha * EV / (2.0 * a3)).ln() / alpha;
        assert!(alpha > 0.0 && z_im > z1);
        assert!(close(v(z_im - 1e-12), -alpha / 2.0, 1e-9) && close(v(z_im + 1e-12), -alpha / 2.0, 1e-9));
        // Continuity of V′ at the three joins: one-sided differences agree to O(h).
        let h = 1e-6;
        for z in [0.0, z1, z_im] {
            let left = (v(z - h) - v(z - 2.0 * h)) / h;
            let right = (v(z + 2.0 * h) - v(z + h)) / h;
            assert!(close(left, right, 1e-4), "V′ jumps at z = {z}: {left} vs {right}");
        }
        // The image tail: V4 → −1/(4(z − z_im)) (hartree) once e^{−λ(z − z_im)} has died out.
        for z in [40.0, 80.0, 200.0] {
            assert!(close(v(z), -1.0 / (4.0 * (z - z_im)), 1e-15), "V({z}) = {}", v(z));
        }
    }

    #[test]
    fn chulkov_amplitudes_are_checked_in_electronvolts() {
        let e = Surface::Chulkov { x_surface: 0.0, spacing: 3.94, a10: -11.895, a1: 5.14, a2: -1.0, beta: 2.9416 }
            .validate(2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("surface.a2") && e.contains("eV"), "{e}");
    }

    #[test]
    fn hydrogen_is_minus_one_over_r_and_trajectories_interpolate() {
        let h = IonPotential::hydrogen();
        assert_eq!(h.value(4.0), -0.5);
        let t = Trajectory::new(vec![0.0, 10.0], vec![[0.0, 0.0, 0.0], [5.0, 0.0, 1.0]]).unwrap();
        assert_eq!(t.at(4.0), [2.0, 0.0, 0.4]);
        assert!(t.covers(0.0, 10.0).is_ok());
        assert!(t.covers(0.0, 10.5).unwrap_err().to_string().contains("trajectory"));
    }
}
