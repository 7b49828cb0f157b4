//! C ABI of the TDSE family: 3D time-dependent Schrödinger propagation of one active electron on a
//! cylindrical (x, ρ, θ) grid with the hybrid implicit θ-correction near the axis, or on a
//! Cartesian grid (paper: Gainullin, Comput. Phys. Commun. 210 (2017) 72,
//! tdse-cylindrical-gpu.txt), around [`crate::tdse`], whose module docs give the formulas
//! (eqs. 2-17) and the potentials' sources.
//!
//! A handle (`atomgpu_tdse`) owns a grid's planes (all of them, or one rank's slab), the scheme,
//! the potential and the wavefunction (two time levels), on the device on the CUDA backend,
//! spread over `params.n_devices` GPUs of the process when asked. Handles are checked on every
//! call; every call holds the handle's lock, so a handle may be shared between threads.
//!
//! Conventions shared by every function here:
//! - atomic units: lengths in bohr, energies in hartree, times in a.u. (2.419·10⁻¹⁷ s);
//! - points are stored as eq. 17: x plane by x plane, inside a plane the second coordinate (ρ or
//!   y) by the third (θ or z), the third fastest; point (k, l, m) of a handle owning planes
//!   `x_offset .. x_offset + nx_local` is element `(k − x_offset) n2 n3 + l n3 + m`; cylindrical
//!   points are at x_k = x0 + k dx, ρ_l = (l + ½) dρ, θ_m = m 2π/Nθ (0-based l: the paper's
//!   ρ_l = (l − ½) dρ with l from 1);
//! - wavefunctions are complex: `n_points` (re, im) pairs of doubles, C99 `double _Complex`,
//!   Fortran `complex(c_double_complex)`;
//! - every argument is checked before any work; on failure the status is nonzero,
//!   `atomgpu_last_error_arg()` gives the offending argument's 1-based position and the message
//!   names it (and the struct field); outputs and the handle are left unchanged, except that a
//!   run that fails on the way (`atomgpu_tdse_step`, `atomgpu_tdse_relax`: the norm watchdog, a
//!   device error, a failed exchange callback) leaves the handle without a wavefunction, a run
//!   stopped by the progress callback or the time limit (ATOMGPU_ERR_CANCELLED) keeps the state
//!   of its last completed step (the functions' docs say exactly what), and a device error
//!   while ψ is copied into the caller's array may leave it partly written (it lands there
//!   directly: no second host copy of gigabytes);
//! - a result that is not finite (a run that blew up, a bare Coulomb ion exactly on a grid point)
//!   is ATOMGPU_ERR_NOT_FINITE naming the output, never NaN/Inf with status 0;
//! - `atomgpu_tdse_step` and `atomgpu_tdse_relax` honour the calling thread's progress callback
//!   (`atomgpu_set_progress`: tasks "atomgpu_tdse_step" and "atomgpu_tdse_relax", done and total
//!   in steps) and time limit (`atomgpu_set_time_limit`), on every backend and with several
//!   devices; on a GPU each step is waited for while one of them is set.
//!
//! **Several ranks.** A handle owning a slab (`grid.nx_local < grid.nx`) is connected to its
//! neighbours by `atomgpu_tdse_set_communicator`: two callbacks that the caller writes with its
//! own MPI (tests/c/test_tdse_mpi.c and examples/c/tdse_jellium.c show MPI_Sendrecv and
//! MPI_Allreduce). The library calls them inside `set_wavefunction`, `step`, `relax`, `norm`,
//! `energy`, `overlap` and `population`, which are then collective: every rank calls them in the
//! same order. A rank's progress callback or time limit stops the run on every rank at the next
//! norm check (every `params.norm_check_interval` steps; every 50 steps of `relax`; and at the
//! end), where the ranks' wishes are summed, so all stop at the same step.

use super::common::{count, guard, input, output};
use super::devices::{devices_by_count, devices_by_list};
use super::handles::{self, Family};
use crate::backend::DeviceSet;
use crate::error::{Error, Result};
use crate::tdse::engine::SliceAxis;
use crate::tdse::grid::Grid;
use crate::tdse::potential::{IonPotential, Surface, Trajectory};
use crate::tdse::scheme::{Params, Storage};
use crate::tdse::{observables, Communicator, Tdse, MAX_RUN_STEPS};
use num_complex::Complex64 as C64;
use std::ffi::c_void;
use std::sync::Mutex;

/// Cylindrical grid (x, ρ, θ): the paper's hybrid scheme.
pub const ATOMGPU_TDSE_CYLINDRICAL: i32 = 0;
/// Cartesian grid (x, y, z): the paper's earlier version.
pub const ATOMGPU_TDSE_CARTESIAN: i32 = 1;
/// Wavefunctions stored as complex double (`params.storage`, the default).
pub const ATOMGPU_TDSE_COMPLEX_DOUBLE: i32 = 0;
/// Wavefunctions stored as complex float, computed in double (`params.storage`).
pub const ATOMGPU_TDSE_COMPLEX_FLOAT: i32 = 1;
/// No surface potential.
pub const ATOMGPU_TDSE_SURFACE_NONE: i32 = 0;
/// A table V(x_k), one value per global x plane (hartree).
pub const ATOMGPU_TDSE_SURFACE_TABLE: i32 = 1;
/// Jennings-Jones-Weinert jellium (Phys. Rev. B 37 (1988) 6113).
pub const ATOMGPU_TDSE_SURFACE_JELLIUM: i32 = 2;
/// Chulkov-Silkin-Echenique projected band gap (Surf. Sci. 437 (1999) 330).
pub const ATOMGPU_TDSE_SURFACE_CHULKOV: i32 = 3;
/// Density slice: the x plane `index` (global), n2 × n3 values, the third coordinate fastest.
pub const ATOMGPU_TDSE_SLICE_X: i32 = 0;
/// Density slice: cylindrical, the meridian plane through θ_index and θ_index + π (ρ from −ρmax
/// to ρmax), 2 n2 × nx_local values, ρ fastest; Cartesian, the plane y = y_index, n3 × nx_local.
pub const ATOMGPU_TDSE_SLICE_SECOND: i32 = 1;
/// Density slice: cylindrical, the cylinder ρ = ρ_index, n3 × nx_local values; Cartesian, the
/// plane z = z_index, n2 × nx_local.
pub const ATOMGPU_TDSE_SLICE_THIRD: i32 = 2;

/// The grid and the planes a handle owns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_tdse_grid {
    /// ATOMGPU_TDSE_CYLINDRICAL or ATOMGPU_TDSE_CARTESIAN.
    pub geometry: i32,
    /// Points along x, the second (Nρ or Ny) and the third (Nθ or Nz) coordinate, each >= 2;
    /// Nθ even (the axis condition maps θ to θ + π) and <= 1024.
    pub nx: i64,
    pub n2: i64,
    pub n3: i64,
    /// Steps: dx and dρ (or dy) in bohr, in (0, 1e6]; d3 is dz (bohr) on Cartesian grids and
    /// ignored on cylindrical ones (dθ = 2π/Nθ).
    pub dx: f64,
    pub d2: f64,
    pub d3: f64,
    /// The first point (bohr): x0; y0 and z0 on Cartesian grids (ignored on cylindrical ones).
    pub x0: f64,
    pub y0: f64,
    pub z0: f64,
    /// The owned planes `x_offset .. x_offset + nx_local` (the whole grid: 0 and nx).
    pub x_offset: i64,
    pub nx_local: i64,
}

/// Parameters of the scheme; `atomgpu_tdse_default_params` gives the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_tdse_params {
    /// Time step τ (a.u.), in (0, 1e3]; default 0.005 (the paper's).
    pub dtau: f64,
    /// Radius below which the θ term is implicit (bohr); negative (default) = automatic: the
    /// paper's 1 bohr, raised to the smallest ρ0 at which τ is stable.
    pub rho0: f64,
    /// Weights of ψ^{n+1}, ψ^n, ψ^{n−1} in the implicit θ term (eq. 8 with γ added): α = γ = 1,
    /// β = 0 (default) is centred and stable; α = 1, β = γ = 0 is the paper's form.
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// Absorbing layers: width (bohr, 0 = none; default 0) and strength W0 (hartree).
    pub absorber_width: f64,
    pub absorber_strength: f64,
    /// A run stops with ATOMGPU_ERR_NOT_CONVERGED when the norm grows by more than this
    /// fraction between checks (default 1e-4), checked every `norm_check_interval` steps
    /// (default 1000) and at the end of each `atomgpu_tdse_step`.
    pub norm_growth_tolerance: f64,
    pub norm_check_interval: i64,
    /// 1 (default): refuse a τ beyond the stability limit of the grid; 0: let it run (the
    /// watchdog then stops it).
    pub check_stability: i32,
    /// Devices to spread the planes over (default 1), by the library's one rule (README "Several
    /// GPUs": from `ATOMGPU_DEVICE`, else from GPU (node-local rank x n_devices) mod visible, on
    /// consecutively; `atomgpu_tdse_create_on_device_list` names them instead); on the CPU
    /// backend, members run on threads. Each needs at least two x planes.
    pub n_devices: i32,
    /// How the wavefunctions are stored: ATOMGPU_TDSE_COMPLEX_DOUBLE (0, default; 16 bytes per
    /// point) or ATOMGPU_TDSE_COMPLEX_FLOAT (1; 8 bytes per point, half the memory and the bytes
    /// a step moves). The arithmetic is double either way (values widened on load, rounded to
    /// nearest on store) on the GPU and the CPU alike; the error in the observables is measured
    /// in README "Measured".
    pub storage: i32,
}

/// A one-active-electron ion potential (Tong-Lin + Bardsley form, soft-cored; the Rust docs of tdse::potential give the sources):
/// V(r) = −[Zc + (Z − Zc) e^{−a1 r} + a2 r e^{−a3 r}]/r − αd/(2 (r² + d²)²) + A e^{−b r²},
/// r = (|r − R(t)|² + rs²)^½. Hydrogen: z = z_core = 1, the rest 0.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_tdse_ion {
    /// Z and Zc (charge), a1 (bohr⁻¹), a2 (bohr⁻¹), a3 (bohr⁻¹).
    pub z: f64,
    pub z_core: f64,
    pub a1: f64,
    pub a2: f64,
    pub a3: f64,
    /// αd (bohr³) and d (bohr).
    pub polarisability: f64,
    pub polarisation_cutoff: f64,
    /// A (hartree) and b (bohr⁻²).
    pub core_amplitude: f64,
    pub core_exponent: f64,
    /// rs (bohr).
    pub soft_core: f64,
}

/// The surface potential, a function of x; the metal lies at x < x_surface.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_tdse_surface {
    /// ATOMGPU_TDSE_SURFACE_NONE, _TABLE (values from the `surface_table` argument), _JELLIUM or
    /// _CHULKOV.
    pub kind: i32,
    /// Reference plane x_s (bohr), jellium and Chulkov.
    pub x_surface: f64,
    /// Jellium: depth U0 (hartree, > 0), λ (bohr⁻¹, > 0), image plane z_im (bohr from x_s).
    pub depth: f64,
    pub lambda: f64,
    pub image_plane: f64,
    /// Chulkov: a_s (bohr), A10, A1, A2 (eV, as that paper's Table 1 prints them; they were
    /// hartree before issue 28), β (bohr⁻¹); Cu(111): 3.94, −11.895, 5.14, 4.3279, 2.9416.
    pub spacing: f64,
    pub a10: f64,
    pub a1: f64,
    pub a2: f64,
    pub beta: f64,
}

/// A halo exchange callback: send `send_lower` (the first owned plane) to the rank below and
/// `send_upper` (the last) to the rank above, receive theirs into `recv_lower` and `recv_upper`,
/// each `n_values` complex values ((re, im) doubles). At an end of the grid, leave that receive
/// buffer as it is (MPI_PROC_NULL does). The first call (from `atomgpu_tdse_set_communicator`)
/// has n_values = 2, to check that neighbours agree on the grid; later ones a plane. Return 0,
/// or nonzero to stop the call (ATOMGPU_ERR_CANCELLED).
#[allow(non_camel_case_types)]
pub type atomgpu_tdse_exchange_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        send_lower: *const f64,
        send_upper: *const f64,
        recv_lower: *mut f64,
        recv_upper: *mut f64,
        n_values: i64,
    ) -> i32,
>;

/// A sum callback: replace `values[n]` by their sums over all ranks (MPI_Allreduce, MPI_SUM, in
/// place). Return 0, or nonzero to stop the call.
#[allow(non_camel_case_types)]
pub type atomgpu_tdse_sum_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, values: *mut f64, n: i64) -> i32>;

/// The function types of the two callbacks (set, never NULL, once checked).
type ExchangeFn = unsafe extern "C" fn(*mut c_void, *const f64, *const f64, *mut f64, *mut f64, i64) -> i32;
type SumFn = unsafe extern "C" fn(*mut c_void, *mut f64, i64) -> i32;

/// A TDSE propagator handle: the team of propagators behind a lock.
#[allow(non_camel_case_types)]
pub struct atomgpu_tdse {
    inner: Mutex<Tdse>,
    /// The team's devices, in x order.
    devices: DeviceSet,
}

impl Family for atomgpu_tdse {
    const NAME: &'static str = "TDSE propagator handle (atomgpu_tdse)";

    fn devices(&self) -> Option<&DeviceSet> {
        Some(&self.devices)
    }
}

fn with_handle<T>(handle: *const atomgpu_tdse, body: impl FnOnce(&mut Tdse) -> Result<T>) -> Result<T> {
    handles::with_locked("handle", handle, |h: &atomgpu_tdse| &h.inner, body)
}

/// An error about a struct field (the Rust API names it `grid.n3`) named by the C parameter with
/// the field in the message.
fn by_field(error: Error) -> Error {
    match error {
        Error::InvalidArgument { name, index, rule } => match name.split_once('.') {
            Some((parameter, field)) => {
                Error::InvalidArgument { name: parameter, index, rule: format!("field `{field}` {rule}") }
            }
            None => Error::InvalidArgument { name, index, rule },
        },
        other => other,
    }
}

fn size(name: &'static str, value: i64) -> Result<usize> {
    usize::try_from(value).map_err(|_| Error::invalid(name, format!("must not be negative, got {value}")))
}

impl atomgpu_tdse_grid {
    fn to_grid(self) -> Result<Grid> {
        let nx = size("grid.nx", self.nx)?;
        let (n2, n3) = (size("grid.n2", self.n2)?, size("grid.n3", self.n3)?);
        let grid = match self.geometry {
            ATOMGPU_TDSE_CYLINDRICAL => Grid::cylindrical(nx, n2, n3, self.dx, self.d2, self.x0)?,
            ATOMGPU_TDSE_CARTESIAN => {
                Grid::cartesian([nx, n2, n3], [self.dx, self.d2, self.d3], [self.x0, self.y0, self.z0])?
            }
            g => {
                return Err(Error::invalid(
                    "grid.geometry",
                    format!("must be ATOMGPU_TDSE_CYLINDRICAL (0) or ATOMGPU_TDSE_CARTESIAN (1), got {g}"),
                ))
            }
        };
        grid.slab(size("grid.x_offset", self.x_offset)?, size("grid.nx_local", self.nx_local)?)
    }
}

impl atomgpu_tdse_params {
    fn defaults() -> Self {
        let p = Params::default();
        atomgpu_tdse_params {
            dtau: p.dtau,
            rho0: p.rho0,
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            absorber_width: p.absorber_width,
            absorber_strength: p.absorber_strength,
            norm_growth_tolerance: p.norm_growth_tolerance,
            norm_check_interval: p.norm_check_interval as i64,
            check_stability: 1,
            n_devices: 1,
            storage: ATOMGPU_TDSE_COMPLEX_DOUBLE,
        }
    }

    fn to_params(self) -> Result<Params> {
        let check_stability = match self.check_stability {
            0 => false,
            1 => true,
            v => return Err(Error::invalid("params.check_stability", format!("must be 0 or 1, got {v}"))),
        };
        let storage = match self.storage {
            ATOMGPU_TDSE_COMPLEX_DOUBLE => Storage::ComplexDouble,
            ATOMGPU_TDSE_COMPLEX_FLOAT => Storage::ComplexFloat,
            v => {
                return Err(Error::invalid(
                    "params.storage",
                    format!("must be ATOMGPU_TDSE_COMPLEX_DOUBLE (0) or ATOMGPU_TDSE_COMPLEX_FLOAT (1), got {v}"),
                ))
            }
        };
        let norm_check_interval = u64::try_from(self.norm_check_interval).map_err(|_| {
            Error::invalid(
                "params.norm_check_interval",
                format!("must be at least 1 step, got {}", self.norm_check_interval),
            )
        })?;
        Ok(Params {
            dtau: self.dtau,
            rho0: self.rho0,
            alpha: self.alpha,
            beta: self.beta,
            gamma: self.gamma,
            absorber_width: self.absorber_width,
            absorber_strength: self.absorber_strength,
            norm_growth_tolerance: self.norm_growth_tolerance,
            norm_check_interval,
            check_stability,
            storage,
        })
    }
}

impl atomgpu_tdse_ion {
    fn to_ion(self) -> IonPotential {
        IonPotential {
            z: self.z,
            z_core: self.z_core,
            a1: self.a1,
            a2: self.a2,
            a3: self.a3,
            polarisability: self.polarisability,
            polarisation_cutoff: self.polarisation_cutoff,
            core_amplitude: self.core_amplitude,
            core_exponent: self.core_exponent,
            soft_core: self.soft_core,
        }
    }
}

/// The surface of `surface` (NULL: none), with `table` (nx values) for the table kind.
///
/// # Safety
/// `surface` NULL or valid; `table` NULL or valid for `nx` doubles.
unsafe fn to_surface(surface: *const atomgpu_tdse_surface, table: *const f64, nx: usize) -> Result<Surface> {
    if surface.is_null() {
        return Ok(Surface::None);
    }
    let s = *surface;
    match s.kind {
        ATOMGPU_TDSE_SURFACE_NONE => Ok(Surface::None),
        ATOMGPU_TDSE_SURFACE_TABLE => Ok(Surface::Table(input("surface_table", table, nx)?.to_vec())),
        ATOMGPU_TDSE_SURFACE_JELLIUM => Ok(Surface::Jellium {
            x_surface: s.x_surface,
            depth: s.depth,
            lambda: s.lambda,
            image_plane: s.image_plane,
        }),
        ATOMGPU_TDSE_SURFACE_CHULKOV => Ok(Surface::Chulkov {
            x_surface: s.x_surface,
            spacing: s.spacing,
            a10: s.a10,
            a1: s.a1,
            a2: s.a2,
            beta: s.beta,
        }),
        k => Err(Error::invalid(
            "surface.kind",
            format!("must be ATOMGPU_TDSE_SURFACE_NONE (0), _TABLE (1), _JELLIUM (2) or _CHULKOV (3), got {k}"),
        )),
    }
}

/// `n` complex values at `ptr` ((re, im) doubles).
///
/// # Safety
/// `ptr` NULL or valid for 2n doubles.
unsafe fn complex_input<'a>(name: &'static str, ptr: *const f64, n: usize) -> Result<&'a [C64]> {
    let doubles = n.checked_mul(2).ok_or_else(|| Error::invalid(name, "is too large"))?;
    let d = input(name, ptr, doubles)?;
    // SAFETY: Complex64 is repr(C) {f64, f64}, alignment 8; `n` of them in `doubles`.
    Ok(std::slice::from_raw_parts(d.as_ptr() as *const C64, n))
}

/// The number of points a handle owns, checked against the caller's `n_points`.
fn points(team: &Tdse, name: &'static str, n_points: i64) -> Result<usize> {
    let expected = team.grid().local_len();
    if usize::try_from(n_points).ok() != Some(expected) {
        return Err(Error::invalid(name, format!("must be {expected} (the points the handle owns), got {n_points}")));
    }
    Ok(expected)
}

/// Checks a slice's `index` and the caller's `n_values` against the handle; the slice's size.
fn slice_values(team: &Tdse, axis: SliceAxis, index: usize, n_values: i64) -> Result<usize> {
    observables::check_slice_index(team.grid(), axis, index)?;
    let n = observables::slice_len(team.grid(), axis);
    if usize::try_from(n_values).ok() != Some(n) {
        return Err(Error::invalid("n_values", format!("must be {n} (the slice's size), got {n_values}")));
    }
    Ok(n)
}

/// A run's length: in [1, 2^40] (`MAX_RUN_STEPS`).
fn run_length(name: &'static str, n: i64) -> Result<u64> {
    match u64::try_from(n) {
        Ok(n) if (1..=MAX_RUN_STEPS).contains(&n) => Ok(n),
        _ => Err(Error::invalid(name, format!("must be in [1, 2^40 = {MAX_RUN_STEPS}], got {n}"))),
    }
}

fn slice_axis(axis: i32) -> Result<SliceAxis> {
    match axis {
        ATOMGPU_TDSE_SLICE_X => Ok(SliceAxis::X),
        ATOMGPU_TDSE_SLICE_SECOND => Ok(SliceAxis::Second),
        ATOMGPU_TDSE_SLICE_THIRD => Ok(SliceAxis::Third),
        _ => Err(Error::invalid(
            "axis",
            format!("must be ATOMGPU_TDSE_SLICE_X (0), _SECOND (1) or _THIRD (2), got {axis}"),
        )),
    }
}

/// The caller's exchange and sum callbacks as a [`Communicator`].
struct CallbackComm {
    exchange: ExchangeFn,
    sum: SumFn,
    user_data: *mut c_void,
}

// SAFETY: the callbacks are called from the thread that makes the atomgpu call (a handle with a
// communicator has one member, so no thread of the library's calls them); the caller owns
// user_data and its thread-safety, as with MPI itself.
unsafe impl Send for CallbackComm {}

impl Communicator for CallbackComm {
    fn exchange(
        &mut self,
        send_lower: &[C64],
        send_upper: &[C64],
        recv_lower: &mut [C64],
        recv_upper: &mut [C64],
    ) -> Result<()> {
        let n = send_lower.len() as i64;
        // SAFETY: four buffers of n complex values each, as documented for the callback.
        let status = unsafe {
            (self.exchange)(
                self.user_data,
                send_lower.as_ptr() as *const f64,
                send_upper.as_ptr() as *const f64,
                recv_lower.as_mut_ptr() as *mut f64,
                recv_upper.as_mut_ptr() as *mut f64,
                n,
            )
        };
        if status != 0 {
            return Err(Error::Cancelled(format!("the halo exchange callback returned {status}")));
        }
        Ok(())
    }

    fn sum(&mut self, values: &mut [f64]) -> Result<()> {
        // A non-finite sum of finite values is the callback's fault; of non-finite ones (a run
        // that blew up) the observable's, which names itself.
        let finite_in = values.iter().all(|v| v.is_finite());
        // SAFETY: values.len() doubles, as documented for the callback.
        let status = unsafe { (self.sum)(self.user_data, values.as_mut_ptr(), values.len() as i64) };
        if status != 0 {
            return Err(Error::Cancelled(format!("the sum callback returned {status}")));
        }
        if let Some(i) = values.iter().position(|v| finite_in && !v.is_finite()) {
            return Err(Error::NotFinite {
                name: "values",
                index: Some(i),
                detail: "the sum callback returned a non-finite sum of finite values (an overflow, or a callback that does not sum)".into(),
            });
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Entry points.

/// Fills `params` with the defaults (the paper's τ = 0.005, α = 1, β = 0, automatic ρ0, centred
/// θ average, no absorber, norm watchdog 1e-4 every 1000 steps, stability check on, one device).
///
/// # Safety
/// `params` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_default_params(params: *mut atomgpu_tdse_params) -> i32 {
    guard(&["params"], || {
        *output("params", params)? = atomgpu_tdse_params::defaults();
        Ok(())
    })
}

/// Creates a propagator for `grid`'s owned planes with `params` on the current backend: no
/// potential (U = 0), no wavefunction. A τ beyond the stability limit is refused with the
/// smallest stable ρ0 in the message. Destroy with `atomgpu_tdse_destroy`.
///
/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_create(
    grid: *const atomgpu_tdse_grid,
    params: *const atomgpu_tdse_params,
    handle: *mut *mut atomgpu_tdse,
) -> i32 {
    guard(&["grid", "params", "handle"], || {
        create(grid, params, |p| devices_by_count("params.n_devices", p.n_devices), "params.n_devices", handle)
    })
}

/// As `atomgpu_tdse_create`, with the planes spread over the GPUs named in
/// `device_ids[n_devices]` (distinct ordinals in [0, visible), in x order; `n_devices` in [1,
/// 64]) instead of `params->n_devices` GPUs (that field is not read). On the CPU backend,
/// n_devices members on threads.
///
/// # Safety
/// Pointers must be NULL or valid (`device_ids` for `n_devices` elements).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_create_on_device_list(
    grid: *const atomgpu_tdse_grid,
    params: *const atomgpu_tdse_params,
    n_devices: i32,
    device_ids: *const i32,
    handle: *mut *mut atomgpu_tdse,
) -> i32 {
    guard(&["grid", "params", "n_devices", "device_ids", "handle"], || {
        let devices = |_: &atomgpu_tdse_params| devices_by_list("n_devices", n_devices, "device_ids", device_ids);
        create(grid, params, devices, "n_devices", handle)
    })
}

/// The body of the create functions: `devices` resolves the team's devices from the checked
/// parameters; `n_name` is the argument (or field) that gives their number.
unsafe fn create(
    grid: *const atomgpu_tdse_grid,
    params: *const atomgpu_tdse_params,
    devices: impl FnOnce(&atomgpu_tdse_params) -> Result<DeviceSet>,
    n_name: &'static str,
    handle: *mut *mut atomgpu_tdse,
) -> Result<()> {
    let grid = input("grid", grid, 1)?[0].to_grid().map_err(by_field)?;
    let p = input("params", params, 1)?[0];
    let scheme = p.to_params().map_err(by_field)?;
    let out = output("handle", handle)?;
    let devices = devices(&p).map_err(by_field)?;
    let team = Tdse::new(grid, scheme, &devices).map_err(|e| by_field(e.renamed("n_devices", n_name)))?;
    *out = handles::register(atomgpu_tdse { inner: Mutex::new(team), devices })?;
    Ok(())
}

/// Destroys a handle and frees its host and device memory. NULL is a no-op; a handle already
/// destroyed, or one of another family, is `ATOMGPU_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `handle` may be any value: it is looked up, never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_destroy(handle: *mut atomgpu_tdse) -> i32 {
    guard(&["handle"], || handles::remove("handle", handle))
}

/// Makes U analytic: U(r, t) = V_ion(r − R(t)) + V_surf(x).
///
/// - `ion`: the ion's parameters, or NULL for no ion;
/// - `surface`: the surface, or NULL for none; `surface_table[nx]` (hartree, one value per global
///   x plane) is read only for ATOMGPU_TDSE_SURFACE_TABLE (NULL otherwise allowed);
/// - `n_times` points of the trajectory R(t): `times[n_times]` (a.u., increasing) and
///   `positions[3 n_times]` ((x, y, z) per time, bohr; cylindrical y, z are across the axis),
///   linearly interpolated; one point is a fixed ion. With `ion` NULL, n_times may be 0 and the
///   arrays NULL. A later `atomgpu_tdse_step` that would pass the last time is refused.
///
/// # Safety
/// Pointers must be NULL (where allowed) or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_set_potential(
    handle: *mut atomgpu_tdse,
    ion: *const atomgpu_tdse_ion,
    surface: *const atomgpu_tdse_surface,
    surface_table: *const f64,
    n_times: i64,
    times: *const f64,
    positions: *const f64,
) -> i32 {
    guard(&["handle", "ion", "surface", "surface_table", "n_times", "times", "positions"], || {
        with_handle(handle, |team| {
            let ion = if ion.is_null() { None } else { Some((*ion).to_ion()) };
            let surface = to_surface(surface, surface_table, team.grid().nx).map_err(by_field)?;
            let trajectory = if ion.is_none() && n_times == 0 {
                Trajectory::fixed([0.0; 3])
            } else {
                let n = count("n_times", n_times)?;
                let times = input("times", times, n)?.to_vec();
                let flat = input(
                    "positions",
                    positions,
                    n.checked_mul(3).ok_or_else(|| Error::invalid("n_times", "is too large"))?,
                )?;
                let positions = flat.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
                Trajectory::new(times, positions).map_err(|e| e.renamed("n_points", "n_times"))?
            };
            team.set_analytic_potential(ion, &surface, trajectory).map_err(by_field)
        })
    })
}

/// Makes U the caller's array: `values[n_points]` (hartree, the owned points in eq. 17 order,
/// finite, |U| <= 1e6), held on the device until replaced; no ion or surface is added. Call again
/// whenever U changes (between `atomgpu_tdse_step` calls).
///
/// # Safety
/// `values` must be NULL or valid for n_points doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_set_potential_array(
    handle: *mut atomgpu_tdse,
    values: *const f64,
    n_points: i64,
) -> i32 {
    guard(&["handle", "values", "n_points"], || {
        with_handle(handle, |team| {
            let n = points(team, "n_points", n_points)?;
            team.set_potential_array(input("values", values, n)?).map_err(|e| e.renamed("potential", "values"))
        })
    })
}

/// Sets ψ^n = `psi[n_points]` (complex, the owned points, finite) at time `time` (a.u., finite,
/// |time| <= 1e12); the next step starts the two-level scheme from it (the start of the module
/// docs). Refused, naming `psi`, when its norm Σ|ψ|²ΔV over all ranks is 0 or not finite (values
/// from about 1e154 overflow it, and every observable with it). Collective on a split domain.
///
/// # Safety
/// `psi` must be NULL or valid for 2 n_points doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_set_wavefunction(
    handle: *mut atomgpu_tdse,
    psi: *const f64,
    n_points: i64,
    time: f64,
) -> i32 {
    guard(&["handle", "psi", "n_points", "time"], || {
        with_handle(handle, |team| {
            let n = points(team, "n_points", n_points)?;
            team.set_wavefunction(complex_input("psi", psi, n)?, time)
        })
    })
}

/// Copies ψ^n (complex, the owned points) into `psi[n_points]`. A refused argument leaves `psi`
/// untouched, and so does a ψ that is not finite on this rank's points (ATOMGPU_ERR_NOT_FINITE,
/// naming `psi`: a run that blew up); a device error during the copy may leave it partly written.
///
/// # Safety
/// `psi` must be NULL or valid for 2 n_points doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_get_wavefunction(handle: *mut atomgpu_tdse, psi: *mut f64, n_points: i64) -> i32 {
    guard(&["handle", "psi", "n_points"], || {
        with_handle(handle, |team| {
            let n = points(team, "n_points", n_points)?;
            let out = output("psi", psi)?;
            // SAFETY: the caller's 2 n doubles are n Complex64 (repr(C) {f64, f64}, alignment 8);
            // the download lands there directly (no host copy of what may be gigabytes).
            team.wavefunction(std::slice::from_raw_parts_mut(out as *mut C64, n))
        })
    })
}

/// Stores the reference state φ = `phi[n_points]` (complex, the owned points, finite, with a
/// finite norm Σ|φ|²ΔV on them) of `atomgpu_tdse_overlap`.
///
/// # Safety
/// `phi` must be NULL or valid for 2 n_points doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_set_reference(handle: *mut atomgpu_tdse, phi: *const f64, n_points: i64) -> i32 {
    guard(&["handle", "phi", "n_points"], || {
        with_handle(handle, |team| {
            let n = points(team, "n_points", n_points)?;
            team.set_reference(complex_input("phi", phi, n)?)
        })
    })
}

/// Advances `n_steps` (in [1, 2^40]) time steps of τ with no copy to the host but the norm
/// watchdog's reductions. A norm that grows past the tolerance stops the run with
/// ATOMGPU_ERR_NOT_CONVERGED (the message says at which step); the handle then holds no
/// wavefunction. The calling thread's progress callback (task "atomgpu_tdse_step", done and
/// total in steps) or time limit may stop it between two steps: ATOMGPU_ERR_CANCELLED, and the
/// handle keeps ψ^n, ψ^{n−1}, the time and the step count of the last completed step (the
/// message gives it; `atomgpu_tdse_state` reads it back), so that a further `atomgpu_tdse_step`
/// continues the run exactly. That run so far is kept rather than undone: undoing it would need
/// a second copy of both time levels on the device. On a split domain (MPI) the ranks stop
/// together at the next norm check (module docs).
///
/// # Safety
/// `handle` may be any value (it is looked up).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_step(handle: *mut atomgpu_tdse, n_steps: i64) -> i32 {
    guard(&["handle", "n_steps"], || {
        let n = run_length("n_steps", n_steps)?;
        with_handle(handle, |team| team.step(n))
    })
}

/// Imaginary-time relaxation of ψ^n (τ → −iτ with H shifted by the current energy estimate, so
/// that an eigenvector of the discrete H is the fixed point for every m; renormalised every 50
/// steps): at most `max_steps` (in [1, 2^40]) steps, converged when the energy changes by less
/// than `energy_tolerance` (hartree, > 0) between checks. ψ^n becomes the normalised result.
/// Outputs: `energy` (hartree), `steps` taken, `converged` (1 or 0; not converged within
/// max_steps is status 0 with 0 here). The progress callback (task "atomgpu_tdse_relax") or the
/// time limit may stop it: ATOMGPU_ERR_CANCELLED, the outputs unwritten, and the handle holds the
/// normalised iterate of the last completed step (the message gives the count), as a
/// relaxation of that many steps would leave it.
///
/// # Safety
/// Output pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_relax(
    handle: *mut atomgpu_tdse,
    max_steps: i64,
    energy_tolerance: f64,
    energy: *mut f64,
    steps: *mut i64,
    converged: *mut i32,
) -> i32 {
    guard(&["handle", "max_steps", "energy_tolerance", "energy", "steps", "converged"], || {
        let max_steps = run_length("max_steps", max_steps)?;
        let (e, s, c) = (output("energy", energy)?, output("steps", steps)?, output("converged", converged)?);
        with_handle(handle, |team| {
            let r = team.relax(max_steps, energy_tolerance)?;
            (*e, *s, *c) = (r.energy, r.steps as i64, i32::from(r.converged));
            Ok(())
        })
    })
}

/// ⟨ψ|ψ⟩ of ψ^n over the whole grid (all ranks); ATOMGPU_ERR_NOT_FINITE when it is not finite.
/// The scheme conserves a modified norm (README, "The TDSE family"), not this one exactly.
///
/// # Safety
/// `norm` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_norm(handle: *mut atomgpu_tdse, norm: *mut f64) -> i32 {
    guard(&["handle", "norm"], || {
        let out = output("norm", norm)?;
        with_handle(handle, |team| {
            *out = team.norm()?;
            Ok(())
        })
    })
}

/// ⟨ψ|H|ψ⟩/⟨ψ|ψ⟩ of ψ^n at the current time (hartree, all ranks); ATOMGPU_ERR_NOT_FINITE when it
/// is not finite.
///
/// # Safety
/// `energy` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_energy(handle: *mut atomgpu_tdse, energy: *mut f64) -> i32 {
    guard(&["handle", "energy"], || {
        let out = output("energy", energy)?;
        with_handle(handle, |team| {
            *out = team.energy()?;
            Ok(())
        })
    })
}

/// ⟨φ|ψ^n⟩ with the reference state (all ranks): `overlap[2]` = (re, im). With φ = ψ(0), |⟨φ|ψ⟩|²
/// is the survival probability. ATOMGPU_ERR_NOT_FINITE when it is not finite.
///
/// # Safety
/// `overlap` must be NULL or valid for 2 doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_overlap(handle: *mut atomgpu_tdse, overlap: *mut f64) -> i32 {
    guard(&["handle", "overlap"], || {
        let out = output("overlap", overlap)?;
        with_handle(handle, |team| {
            let s = team.overlap()?;
            (*out, *out.add(1)) = (s.re, s.im);
            Ok(())
        })
    })
}

/// ∫|ψ^n|² over the ball of `radius` (bohr, > 0) around the ion's position R(t) (all ranks): the
/// electron's population on the ion. ATOMGPU_ERR_NOT_FINITE when it is not finite.
///
/// # Safety
/// `population` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_population(handle: *mut atomgpu_tdse, radius: f64, population: *mut f64) -> i32 {
    guard(&["handle", "radius", "population"], || {
        let out = output("population", population)?;
        with_handle(handle, |team| {
            *out = team.population_near_ion(radius)?;
            Ok(())
        })
    })
}

/// |ψ^n|² (bohr⁻³) on a slice of the owned planes into `density[n_values]`: `axis`
/// ATOMGPU_TDSE_SLICE_X (`index` a global x plane owned here), _SECOND or _THIRD (`index` of that
/// coordinate); the constants' docs give the layouts and sizes, `n_values` must equal the size.
/// A value that is not finite is ATOMGPU_ERR_NOT_FINITE naming `density` and the element, with
/// `density` untouched. Not collective.
///
/// # Safety
/// `density` must be NULL or valid for n_values doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_density_slice(
    handle: *mut atomgpu_tdse,
    axis: i32,
    index: i64,
    density: *mut f64,
    n_values: i64,
) -> i32 {
    guard(&["handle", "axis", "index", "density", "n_values"], || {
        let axis = slice_axis(axis)?;
        let index = size("index", index)?;
        let out = output("density", density)?;
        with_handle(handle, |team| {
            let n = slice_values(team, axis, index, n_values)?;
            team.density_slice(axis, index, std::slice::from_raw_parts_mut(out, n))
        })
    })
}

/// U(r, `time`) (hartree) on a slice of the owned planes into `potential[n_values]`: the
/// potential the stages use at that time, evaluated by the backend's own code (on a GPU, the
/// device's): the caller's array, or the surface plus the ion at R(`time`) (its first or last
/// position outside the trajectory's times). The absorbing layers (−iW) are not included.
/// `axis`, `index` and `n_values` as in `atomgpu_tdse_density_slice` (the same layouts);
/// `time` (a.u.) finite, |time| <= 1e12: e.g. the current time from `atomgpu_tdse_state`, which
/// the next leap-frog step uses. Needs no wavefunction. A value that is not finite (a bare
/// Coulomb ion, soft_core = 0, exactly on a grid point) is ATOMGPU_ERR_NOT_FINITE naming
/// `potential` and the element, with `potential` untouched. Not collective.
///
/// # Safety
/// `potential` must be NULL or valid for n_values doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_potential_slice(
    handle: *mut atomgpu_tdse,
    axis: i32,
    index: i64,
    time: f64,
    potential: *mut f64,
    n_values: i64,
) -> i32 {
    guard(&["handle", "axis", "index", "time", "potential", "n_values"], || {
        let axis = slice_axis(axis)?;
        let index = size("index", index)?;
        let out = output("potential", potential)?;
        with_handle(handle, |team| {
            let n = slice_values(team, axis, index, n_values)?;
            team.potential_slice(time, axis, index, std::slice::from_raw_parts_mut(out, n))
        })
    })
}

/// The time of ψ^n (a.u.) and the steps taken since the wavefunction was set (or relaxed); the
/// ρ0 in use (bohr) and the number of implicit rings (ρ_l < ρ0).
///
/// # Safety
/// Output pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_state(
    handle: *mut atomgpu_tdse,
    time: *mut f64,
    steps: *mut i64,
    rho0: *mut f64,
    implicit_rings: *mut i64,
) -> i32 {
    guard(&["handle", "time", "steps", "rho0", "implicit_rings"], || {
        let (t, s) = (output("time", time)?, output("steps", steps)?);
        let (r, i) = (output("rho0", rho0)?, output("implicit_rings", implicit_rings)?);
        with_handle(handle, |team| {
            let (now, taken) = team.time();
            (*t, *s) = (now, taken as i64);
            (*r, *i) = (team.scheme().rho0(team.grid()), team.scheme().implicit_rings as i64);
            Ok(())
        })
    })
}

/// Connects a handle that owns a slab to the other ranks through the caller's callbacks (module
/// docs; collective: every rank calls it). The neighbours are checked to agree on the plane size
/// and the global grid and their slabs to meet; a mismatch is ATOMGPU_ERR_INVALID_ARGUMENT on the
/// ranks concerned. A handle spread over several GPUs (params.n_devices > 1) cannot be a rank.
///
/// # Safety
/// The callbacks must follow their documented contracts with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_tdse_set_communicator(
    handle: *mut atomgpu_tdse,
    exchange: atomgpu_tdse_exchange_callback,
    sum: atomgpu_tdse_sum_callback,
    user_data: *mut c_void,
) -> i32 {
    guard(&["handle", "exchange", "sum", "user_data"], || {
        let exchange = exchange.ok_or_else(|| Error::invalid("exchange", "must not be NULL"))?;
        let sum = sum.ok_or_else(|| Error::invalid("sum", "must not be NULL"))?;
        with_handle(handle, |team| {
            team.set_communicator(Box::new(CallbackComm { exchange, sum, user_data })).map_err(|e| match e {
                // A neighbour disagrees with this handle's grid: name the handle.
                Error::InvalidArgument { name, index, rule } if name.starts_with("grid.") => {
                    Error::InvalidArgument { name: "handle", index, rule: format!("(its {name}) {rule}") }
                }
                other => other,
            })
        })
    })
}
