//! The time-stepping scheme: the leap-frog of eqs. 2-3 with the absorbing factors, the hybrid
//! θ-correction of eqs. 6-10 below ρ0, its start from one wavefunction, imaginary time, and the
//! stability limit that decides ρ0.
//!
//! Every update the kernels make is one *stage* (atomic units, τ in a.u. of time):
//!   h = P·prev + c E [H0 cur − ½ Δ1 (α h + β cur + γ prev)/(α + β + γ)]   on rings below ρ0,
//!   h = P·prev + c E [H cur]                                             elsewhere,
//! with H = −Δ/2 + U, Δ = Δ0 + Δ1 (eq. 5; Δ1 = (1/ρ²)∂²/∂θ², the θ term), E = e^{−δW},
//! P = e^{−2δW} for an absorber W (eq. 2 with V = −iW). On a ring the implicit part is the cyclic
//! system h − σα D h = f + σ D(β cur + γ prev), σ = −c E/(2(α + β + γ)(ρ dθ)²), D the periodic
//! second difference (eq. 10 multiplied out; [`super::tridiagonal`]).
//!
//! **The θ average.** The paper's eq. 8 averages the θ term over ψ^{n+1} and ψ^n (γ = 0; α = 1,
//! β = 0 in its runs). Combined with the leap-frog that is not stable: a mode with θ energy μ and
//! other energy λ0 obeys g²(1 + iτμa) + (2iτλ0 + iτμb) g − 1 = 0 (a, b the normalised α, β), and
//! at a = 1, τλ0 = τμ = ½ one root has |g| = 1.068, so round-off grows 7% per step (a packet on
//! the paper's grid blows up within ~2000 steps; `tests/tdse_cpu.rs` shows it). Averaging over
//! ψ^{n+1} and ψ^{n−1} instead (α = γ = 1, β = 0: Crank-Nicolson across the leap) gives
//! g²(1 + iτμ/2) + 2iτλ0 g − (1 − iτμ/2) = 0, whose roots have |g| = 1 exactly whenever
//! τ|λ0| ≤ (1 + τ²μ²/4)^½: stable for any μ. That is the default; γ = 0 gives the paper's scheme.
//!
//! **What it conserves.** With α = γ (a = α/(α + β + γ)) and no absorber a leap-frog step is
//! (1 + 2iτaHθ) ψ^{n+1} = (1 − 2iτaHθ) ψ^{n−1} − 2iτ(H0 + bHθ) ψ^n (Hθ = −½Δ1 on the implicit
//! rings, zero elsewhere; b = β/(α + β + γ)), every operator Hermitian in the cell-volume inner
//! product. Taking Re⟨ψ^n|·⟩ of both sides, the last term drops (⟨ψ|Hψ⟩ is real) and
//! Re⟨ψ^n|(1 − 2iτaHθ)ψ^{n−1}⟩ = Re⟨ψ^{n−1}|(1 + 2iτaHθ)ψ^n⟩, so
//! M_n = Re⟨ψ^n|(1 + 2iτaHθ)ψ^{n+1}⟩ is the same at every step, whatever U(t) does. ⟨ψ|ψ⟩ is not
//! invariant: M ≈ ⟨ψ|ψ⟩ − O(τ²⟨H²⟩), and ⟨ψ|ψ⟩ oscillates about it, bounded (`tests/tdse_cpu.rs`
//! measures both).
//! - leap-frog step n → n+1: prev = ψ^{n−1} (overwritten in place), cur = ψ^n, c = −2iτ, δ = τ;
//! - start (two stages, from ψ^0 alone): ψ^{½} = ψ^0 − i(τ/2) E H ψ^0 (c = −iτ/2, δ = τ/4, prev =
//!   cur), then the midpoint ψ^1 = P ψ^0 − iτ E H ψ^{½} (c = −iτ, δ = τ/2): second order, so the
//!   two-level scheme keeps its O(τ²) accuracy;
//! - imaginary time τ → −iτ (renormalised by the caller of the stages): h = cur − τ (H − E) cur
//!   (c = −τ, no absorber, prev = cur), with U replaced by U − E for the caller's energy
//!   estimate E (the stage's `shift`; below).
//!
//! **Imaginary time near the axis.** On an implicit ring the stage is
//! (1 + τ a Hθ) h = (1 − τ(H0 − E) − τ(1 − a) Hθ) cur with Hθ = −½Δ1 and a = α/(α + β + γ), that is
//! h = cur − τ P (H − E) cur with P = (1 + τ a Hθ)⁻¹ on the implicit rings and P = 1 elsewhere: a
//! preconditioned step. Its normalised fixed point solves P (H − E) ψ = ν ψ, i.e.
//! (H − E) ψ = ν P⁻¹ ψ; an eigenvector of H with eigenvalue E' is one only when E' = E (ν = 0)
//! or when P is a multiple of 1 on it. For m = 0 states Hθ ψ = 0 and P = 1, so every shift works;
//! for m ≠ 0, Hθ ψ = μ_l ψ with μ_l = (1 − cos m dθ)/(ρ_l dθ)² different on each ring, and without
//! the shift (E = 0, the form before issue 28) the fixed point is the generalised eigenvector of
//! (H, P⁻¹), above the true level: from the exact m = 1 eigenvector the energy rose by
//! 2.5·10⁻⁵ hartree in 2000 steps on the test grid of `tests/tdse_cpu.rs` (N_θ = 8, four implicit
//! rings, τ = 0.01); with the shift it stays within 4·10⁻¹⁵. With E the Rayleigh quotient of the
//! current iterate (updated at every renormalisation), the self-consistent fixed point has
//! ⟨ψ|(H − E)|ψ⟩ = 0 = ν⟨ψ|P⁻¹|ψ⟩, so ν = 0 and ψ is an eigenvector of H: an exact eigenvector stays
//! put to rounding. The shift also keeps the norm of the iterate near 1 between renormalisations.
//!
//! **Stability.** The leap-frog multiplies a mode of energy λ by g with g² + 2iτλg − 1 = 0, so
//! |g| = 1 only while τ|λ| ≤ 1. The largest kinetic energy on ring l is at most
//! 2/dx² + 2/dρ² + 2/(ρ_l dθ)² (Gershgorin), so the explicit part needs
//! τ (2/dx² + 2/dρ² + 2/(ρ0 dθ)²) ≤ 1 on the first explicit ring. At the paper's
//! dx = dρ = 0.2, dθ = 2π/128, τ = 0.005 that requires ρ0 ≥ 2.9 bohr: its printed ρ0 = 1 bohr
//! gives τλ = 4.6 on the ring at 1.1 bohr, where the explicit scheme grows ~9× per step. The
//! automatic ρ0 (the default) is therefore the paper's 1 bohr raised to the smallest stable ring.
//! The imaginary-time (forward Euler) stage is stable for τ(λ − E) ≤ 2, which holds wherever the
//! leap-frog is stable (τλ ≤ 1) and τ|E| ≤ 1. The potential adds |U| to λ;
//! it is not known when the handle is made, so a norm watchdog stops any run whose norm grows.

use super::grid::{Geometry, Grid};
use crate::error::{Error, Result};
use num_complex::Complex64 as C64;

/// Parameters of the scheme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Time step τ (a.u. of time, 2.419·10⁻¹⁷ s).
    pub dtau: f64,
    /// Radius below which the θ term is implicit (bohr); negative = automatic (module docs).
    pub rho0: f64,
    /// Weights of ψ^{n+1}, ψ^n and ψ^{n−1} in the implicit θ term (eq. 8 with γ added; module
    /// docs): α = γ = 1, β = 0 (the default) is centred and stable; α = 1, β = γ = 0 is the paper's.
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// Absorbing layers: width (bohr) and strength W0 (hartree); width 0 for none.
    pub absorber_width: f64,
    pub absorber_strength: f64,
    /// A run stops with an error when the norm grows by more than this fraction between checks.
    pub norm_growth_tolerance: f64,
    /// Steps between norm checks inside one `step` call (each costs a reduction and a sync).
    pub norm_check_interval: u64,
    /// Refuse a τ beyond the leap-frog limit of the grid (true, the default); false lets an
    /// unstable run start, to be stopped by the norm watchdog (for demonstrations).
    pub check_stability: bool,
    /// How the wavefunctions are stored ([`Storage`]); the arithmetic is double either way.
    pub storage: Storage,
}

/// How a handle stores its wavefunctions. Every stage loads the stored values into doubles,
/// computes in double (potential, absorber, θ-correction solve) and rounds once to the stored type;
/// reductions (norm, energy, overlap, population) sum in double. Complex float halves the bytes a
/// step moves (24 instead of 48 per point) and the memory a handle holds (8 instead of 16 bytes
/// per point and slot) at the cost of a rounding error of ~6·10⁻⁸ relative per stored value and
/// step; the error this leaves in the observables is measured in bench/RESULTS.md (issue 31) and
/// bounded in `tests/tdse_cpu.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Storage {
    /// 16 bytes per point (the default).
    #[default]
    ComplexDouble,
    /// 8 bytes per point: IEEE single re and im, rounded to nearest.
    ComplexFloat,
}

impl Storage {
    /// Bytes of one stored point.
    pub fn bytes_per_point(self) -> usize {
        match self {
            Storage::ComplexDouble => 16,
            Storage::ComplexFloat => 8,
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            dtau: 0.005,
            rho0: -1.0,
            alpha: 1.0,
            beta: 0.0,
            gamma: 1.0,
            absorber_width: 0.0,
            absorber_strength: 0.0,
            norm_growth_tolerance: 1e-4,
            norm_check_interval: 1000,
            check_stability: true,
            storage: Storage::ComplexDouble,
        }
    }
}

/// The paper's ρ0 (bohr), the lower bound of the automatic choice.
pub const PAPER_RHO0: f64 = 1.0;

/// Largest N_θ of a cylindrical grid: one ring is solved by one thread block in shared memory.
pub const MAX_RING: usize = 1024;

/// The scheme resolved for one grid: its parameters and the number of implicit rings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scheme {
    pub params: Params,
    /// Rings l < implicit_rings are updated with the implicit θ correction (cylindrical only).
    pub implicit_rings: usize,
}

impl Scheme {
    /// Checks `params` against `grid` and fixes ρ0.
    pub fn new(params: Params, grid: &Grid) -> Result<Self> {
        let p = &params;
        if !(p.dtau.is_finite() && p.dtau > 0.0 && p.dtau <= 1e3) {
            return Err(Error::invalid("params.dtau", format!("must be in (0, 1e3] a.u., got {}", p.dtau)));
        }
        if !(p.rho0.is_finite() && p.rho0 <= 1e6) {
            return Err(Error::invalid("params.rho0", format!("must be finite (negative: automatic), got {}", p.rho0)));
        }
        for (name, v) in [("params.alpha", p.alpha), ("params.beta", p.beta), ("params.gamma", p.gamma)] {
            if !(v.is_finite() && (0.0..=1e3).contains(&v)) {
                return Err(Error::invalid(name, format!("must be in [0, 1e3], got {v}")));
            }
        }
        if p.alpha <= 0.0 {
            return Err(Error::invalid("params.alpha", "the weight of ψ^{n+1} must be positive (α = 1: implicit)"));
        }
        for (name, v) in
            [("params.absorber_width", p.absorber_width), ("params.absorber_strength", p.absorber_strength)]
        {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return Err(Error::invalid(name, format!("must be in [0, 1e6], got {v}")));
            }
        }
        if !(p.norm_growth_tolerance.is_finite() && p.norm_growth_tolerance > 0.0 && p.norm_growth_tolerance <= 1.0) {
            return Err(Error::invalid(
                "params.norm_growth_tolerance",
                format!("must be in (0, 1], got {}", p.norm_growth_tolerance),
            ));
        }
        if p.norm_check_interval == 0 {
            return Err(Error::invalid("params.norm_check_interval", "must be at least 1 step"));
        }
        if grid.geometry == Geometry::Cylindrical && grid.n3 > MAX_RING {
            return Err(Error::invalid(
                "grid.n3",
                format!("N_theta must not exceed {MAX_RING} (one ring per thread block), got {}", grid.n3),
            ));
        }
        let rings_below = |rho0: f64| (0..grid.n2).take_while(|&l| grid.coord2(l) < rho0).count();
        let implicit_rings = match grid.geometry {
            Geometry::Cartesian => 0,
            Geometry::Cylindrical if p.rho0 < 0.0 => {
                let stable = (0..grid.n2).find(|&l| p.dtau * grid.kinetic_bound(l, true) <= 1.0).unwrap_or(grid.n2);
                stable.max(rings_below(PAPER_RHO0))
            }
            Geometry::Cylindrical => rings_below(p.rho0),
        };
        let scheme = Scheme { params, implicit_rings };
        if p.check_stability {
            scheme.check_stability(grid)?;
        }
        Ok(scheme)
    }

    /// ρ0 in use (bohr): the radius between the last implicit and the first explicit ring.
    pub fn rho0(&self, grid: &Grid) -> f64 {
        match grid.geometry {
            Geometry::Cartesian => 0.0,
            Geometry::Cylindrical => self.implicit_rings as f64 * grid.d2,
        }
    }

    /// Largest kinetic energy bound over the grid of the explicit part (hartree).
    pub fn explicit_bound(&self, grid: &Grid) -> f64 {
        (0..grid.n2).map(|l| grid.kinetic_bound(l, l >= self.implicit_rings)).fold(0.0, f64::max)
    }

    fn check_stability(&self, grid: &Grid) -> Result<()> {
        let bound = self.explicit_bound(grid);
        let tau = self.params.dtau;
        if tau * bound <= 1.0 {
            return Ok(());
        }
        let mut rule = format!(
            "τ = {tau} a.u. exceeds the leap-frog stability limit 1/λ_max = {:.4e} a.u. of this grid (λ_max = {bound:.4e} hartree)",
            1.0 / bound
        );
        if grid.geometry == Geometry::Cylindrical {
            match (0..grid.n2).find(|&l| tau * grid.kinetic_bound(l, true) <= 1.0) {
                Some(l) => {
                    rule += &format!("; ρ0 ≥ {:.4} bohr (or ρ0 < 0, automatic) makes it stable", l as f64 * grid.d2)
                }
                None => rule += "; no ρ0 helps: lower τ or coarsen dx, dρ",
            }
        }
        Err(Error::invalid("params.dtau", rule))
    }
}

/// Where a stage reads its `prev` term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prev {
    /// From the output buffer itself, which the stage overwrites point by point (leap-frog).
    InPlace,
    /// From the `cur` buffer (start, imaginary time).
    Cur,
    /// From a third buffer (the midpoint of the start).
    Other,
}

/// One stage (module docs): its H coefficient c, absorber time δ, prev source, the time at which
/// U is evaluated (a.u.) and the energy subtracted from U (hartree; imaginary time only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stage {
    pub c: C64,
    pub delta: f64,
    pub prev: Prev,
    pub time: f64,
    pub shift: f64,
}

impl Stage {
    /// Leap-frog step from time t (cur = ψ(t)).
    pub fn leap_frog(tau: f64, t: f64) -> Self {
        Stage { c: C64::new(0.0, -2.0 * tau), delta: tau, prev: Prev::InPlace, time: t, shift: 0.0 }
    }

    /// First stage of the start: ψ(t + τ/2) by Euler.
    pub fn start_half(tau: f64, t: f64) -> Self {
        Stage { c: C64::new(0.0, -0.5 * tau), delta: 0.25 * tau, prev: Prev::Cur, time: t, shift: 0.0 }
    }

    /// Second stage of the start: ψ(t + τ) by the midpoint rule.
    pub fn start_midpoint(tau: f64, t: f64) -> Self {
        Stage { c: C64::new(0.0, -tau), delta: 0.5 * tau, prev: Prev::Other, time: t + 0.5 * tau, shift: 0.0 }
    }

    /// One imaginary-time step of H − `energy` (no absorber; module docs).
    pub fn imaginary(tau: f64, t: f64, energy: f64) -> Self {
        Stage { c: C64::new(-tau, 0.0), delta: 0.0, prev: Prev::Cur, time: t, shift: energy }
    }

    /// U itself at time t, for the reductions and the potential slice (no update is made).
    pub fn measure(t: f64) -> Self {
        Stage::imaginary(0.0, t, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn the_papers_grid_needs_rho0_near_three_bohr() {
        // dx = dρ = 0.2, dθ = 2π/128, τ = 0.005: τ(50 + 50 + 2/(ρ dθ)²) ≤ 1 ⇔ ρ ≥ 0.2/dθ·√... = 2.88.
        let grid = Grid::cylindrical(10, 100, 128, 0.2, 0.2, 0.0).unwrap();
        let auto = Scheme::new(Params::default(), &grid).unwrap();
        let exact = (2.0f64 * 0.005 / 0.5).sqrt() / (2.0 * PI / 128.0);
        let rho0 = auto.rho0(&grid);
        assert!(rho0 >= exact - 0.2 && rho0 <= exact + 0.2, "automatic ρ0 = {rho0}, bound {exact}");
        let paper = Params { rho0: 1.0, ..Params::default() };
        let e = Scheme::new(paper, &grid).unwrap_err().to_string();
        assert!(e.contains("params.dtau") && e.contains("ρ0 ≥"), "{e}");
    }

    #[test]
    fn the_cartesian_papers_grid_is_stable() {
        let grid = Grid::cartesian([10, 10, 10], [0.2; 3], [0.0; 3]).unwrap();
        let s = Scheme::new(Params::default(), &grid).unwrap();
        assert!((s.explicit_bound(&grid) - 150.0).abs() < 1e-9);
    }
}
