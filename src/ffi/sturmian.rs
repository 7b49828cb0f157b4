//! C ABI of the Sturmian family: Generalized Sturmian overlaps, Kronecker products, repulsion
//! integrals, angular coefficients and Hamiltonian blocks of three-body Coulomb problems (paper:
//! Mitnik et al., Comput. Phys. Commun. 2014, sturmian-hamiltonian-gpu.txt), around
//! [`crate::sturmian`], whose module docs give the formulas (eqs. 9, 12-24).
//!
//! A handle (`atomgpu_sturmian`) holds the radial grid and the channels (one radial set per
//! electron and l), on the device when the CUDA backend is in use, uploaded once. Handles are
//! checked on every call, and every call holds the handle's lock while it runs, so one handle
//! may be shared between threads (calls on it then run one after another).
//!
//! Conventions shared by every function here:
//! - a basis is real or complex (`is_complex` at creation); every array of basis values, β and
//!   results is then `double` (real) or interleaved (re, im) `double` pairs (complex: C99
//!   `double _Complex`, Fortran `complex(c_double_complex)` passed as is), and its length counts
//!   elements, not doubles; all products are bilinear (no conjugation);
//! - matrices are column-major; a matrix argument `x` comes with its leading dimension `ld_x`
//!   (>= the rows the call reads or writes, counted in elements) and, when no count argument of
//!   the call gives its columns (every output), its column count `cols_x` (>= the columns the
//!   call writes; the columns and the padding rows beyond are neither read nor written, as LAPACK
//!   lets a larger array pass); a one-dimensional output whose length the handle knows comes with
//!   `len_x` (>= that length). All are checked here (`super::common::matrix`, `length`), the
//!   message naming the argument, the rule and both numbers;
//! - `electron` is `ATOMGPU_ELECTRON_A` (r1) or `ATOMGPU_ELECTRON_B` (r2); angular momenta are
//!   physical values in [0, 200];
//! - `order` is `ATOMGPU_ORDER_A_FASTEST` (two-electron index (n'a, n'b) = n'a + N'a n'b, 0-based)
//!   or `ATOMGPU_ORDER_B_FASTEST` (n'b + N'b n'a), for rows and columns alike;
//! - radii in bohr, energies and potentials in hartree, functions S in bohr^-1/2, repulsion
//!   integrals in hartree (bohr^-1);
//! - every argument is checked before any work; on failure the status is nonzero,
//!   `atomgpu_last_error_arg()` gives the offending argument's 1-based position and
//!   `atomgpu_last_error_message` names it; outputs and the handle are left unchanged.

use super::common::{
    count, guard, input, leading_dimension, length, matrix, output, write_output, Columns, Extent, Matrix,
};
use super::devices::{devices_by_count, devices_by_list};
use super::handles::{self, Family};
use crate::backend::{self, DeviceSet};
use crate::error::{Error, Result};
use crate::math::scalar::{as_doubles, first_non_finite};
use crate::sturmian::gsf::{self, GsfSpec};
use crate::sturmian::{
    angular, solve, Central, ChannelSpec, Electron, Exchange, Grid, HamiltonianSpec, Order, Pair, Scalar, Sturmian,
    Target, MAX_L,
};
use num_complex::Complex64;
use std::sync::Mutex;

/// Electron a (coordinate r1).
pub const ATOMGPU_ELECTRON_A: i32 = 0;
/// Electron b (coordinate r2).
pub const ATOMGPU_ELECTRON_B: i32 = 1;
/// Two-electron index (n'a, n'b) = n'a + N'a n'b: electron a's index runs fastest.
pub const ATOMGPU_ORDER_A_FASTEST: i32 = 0;
/// Two-electron index (n'a, n'b) = n'b + N'b n'a: electron b's index runs fastest.
pub const ATOMGPU_ORDER_B_FASTEST: i32 = 1;
/// Product functions as they are (no exchange symmetry imposed).
pub const ATOMGPU_EXCHANGE_NONE: i32 = 0;
/// Exchange-symmetrised functions (1 + P12) Φ / √2: spatially symmetric, spin singlet.
pub const ATOMGPU_EXCHANGE_SYMMETRIC: i32 = 1;
/// Exchange-antisymmetrised functions (1 - P12) Φ / √2: spatially antisymmetric, spin triplet.
pub const ATOMGPU_EXCHANGE_ANTISYMMETRIC: i32 = 2;

enum AnyBasis {
    Real(Sturmian<f64>),
    Complex(Sturmian<Complex64>),
}

/// A Sturmian basis handle: grid and channels (on the device on the CUDA backend), behind a lock.
#[allow(non_camel_case_types)]
pub struct atomgpu_sturmian {
    inner: Mutex<AnyBasis>,
    /// The basis's devices, its first engine's first.
    devices: DeviceSet,
}

impl Family for atomgpu_sturmian {
    const NAME: &'static str = "Sturmian basis handle (atomgpu_sturmian)";

    fn devices(&self) -> Option<&DeviceSet> {
        Some(&self.devices)
    }
}

/// What a Hamiltonian is assembled for (eq. 12).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_sturmian_params {
    /// Total angular momentum L, in [0, 200].
    pub l_total: i32,
    /// Its projection M, |M| <= L (status 1 at `params`, field `m`, otherwise; INT32_MIN included).
    pub m: i32,
    /// Energies E_a, E_b of eq. 8 in hartree, finite, of the channels of electron a and b that
    /// carry no energy of their own (added by `atomgpu_sturmian_add_channel`). A channel added by
    /// `atomgpu_sturmian_add_gsf` or `atomgpu_sturmian_add_channel_at_energy` uses its own
    /// energy: eq. 9 replaces the kinetic energy only at the energy the functions were generated
    /// at, so channels generated at different energies (per l, per electron) mix correctly.
    pub energy_a: f64,
    pub energy_b: f64,
    /// Nuclear charge Z of the Hamiltonian's -Z/r, finite. Every channel whose central potential
    /// U is not this -Z/r (a U of its own, or a GSF generated for another charge) gets
    /// W = I[-Z/r - U] in the one-electron bracket of eq. 12.
    pub nuclear_charge: f64,
    /// Product of the two particles' charges (+1 for two electrons), finite.
    pub interaction_charge: f64,
    /// ATOMGPU_EXCHANGE_NONE, _SYMMETRIC or _ANTISYMMETRIC. A symmetrised basis (module docs of
    /// src/sturmian/exchange.rs) needs the same channel for both electrons at every l of the
    /// pairs and the pairs given as la <= lb; for a pair (l, l) it keeps the functions with
    /// na <= nb (na < nb when the combination of na = nb vanishes), in the block's order.
    pub exchange: i32,
}

/// Parameters of a generated bound-state GSF channel (see `atomgpu_sturmian_add_gsf`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_gsf_params {
    /// Nuclear charge Z of the central potential -Z/r the functions are generated with (>= 0);
    /// the channel keeps it (an assembly for another Z adds I[(Z_gsf - Z)/r]).
    pub nuclear_charge: f64,
    /// Energy E in hartree, below the channel's lowest level -Z^2 / (2 (l+1)^2); the channel
    /// keeps it (the assembly uses it, not `params.energy_a/_b`).
    pub energy: f64,
    /// Yukawa generating potential -v0 exp(-r/a)/r: strength v0 (hartree bohr, > 0), range a (bohr, > 0).
    pub yukawa_strength: f64,
    pub yukawa_range: f64,
    /// Laguerre functions of the Galerkin solve, in [n, 400], and their exponent lambda (1/bohr, > 0).
    pub n_parent: i64,
    pub lambda: f64,
}

fn with_handle<T>(handle: *const atomgpu_sturmian, body: impl FnOnce(&mut AnyBasis) -> Result<T>) -> Result<T> {
    handles::with_locked("handle", handle, |h: &atomgpu_sturmian| &h.inner, body)
}

/// Runs `$body` with `$b` bound to the handle's basis and `$t` to its element type.
macro_rules! on_basis {
    ($any:expr, |$b:ident: $t:ident| $body:expr) => {
        match $any {
            AnyBasis::Real($b) => {
                #[allow(dead_code)]
                type $t = f64;
                $body
            }
            AnyBasis::Complex($b) => {
                #[allow(dead_code)]
                type $t = Complex64;
                $body
            }
        }
    };
}

fn electron(value: i32) -> Result<Electron> {
    match value {
        ATOMGPU_ELECTRON_A => Ok(Electron::A),
        ATOMGPU_ELECTRON_B => Ok(Electron::B),
        _ => Err(Error::invalid(
            "electron",
            format!("must be ATOMGPU_ELECTRON_A (0) or ATOMGPU_ELECTRON_B (1), got {value}"),
        )),
    }
}

fn order(value: i32) -> Result<Order> {
    match value {
        ATOMGPU_ORDER_A_FASTEST => Ok(Order::AFastest),
        ATOMGPU_ORDER_B_FASTEST => Ok(Order::BFastest),
        _ => Err(Error::invalid(
            "order",
            format!("must be ATOMGPU_ORDER_A_FASTEST (0) or ATOMGPU_ORDER_B_FASTEST (1), got {value}"),
        )),
    }
}

/// An angular momentum argument in [0, `max`].
fn angular_momentum(name: &'static str, value: i32, max: u32) -> Result<u32> {
    u32::try_from(value)
        .ok()
        .filter(|&l| l <= max)
        .ok_or_else(|| Error::invalid(name, format!("must be in [0, {max}], got {value}")))
}

/// A caller array of `len` elements of T (doubles, or (re, im) pairs).
///
/// # Safety
/// `ptr` must be NULL or point to `len` elements of T.
unsafe fn scalars<'a, T: Scalar>(name: &'static str, ptr: *const f64, len: usize) -> Result<&'a [T]> {
    let doubles =
        len.checked_mul(crate::math::scalar::width::<T>()).ok_or_else(|| Error::invalid(name, "is too large"))?;
    let d = input(name, ptr, doubles)?;
    // SAFETY: T is f64 or Complex64 (repr(C) {f64, f64}), alignment 8, `len` elements in `doubles`.
    Ok(std::slice::from_raw_parts(d.as_ptr() as *const T, len))
}

/// A caller output matrix `name` of elements of T, checked by [`matrix`]: its `m.len` elements.
///
/// # Safety
/// `ptr` must be NULL or point to the documented number of elements.
unsafe fn matrix_out<'a, T: Scalar>(name: &'static str, ptr: *mut f64, m: Matrix) -> Result<&'a mut [T]> {
    let p = output(name, ptr)?;
    // SAFETY: as in `scalars`; the caller guarantees the documented writable elements, which
    // [`matrix`] has checked to span `m.len`.
    Ok(std::slice::from_raw_parts_mut(p as *mut T, m.len))
}

/// The needed extent of an `n x n` output (`what` says what n counts).
fn square(n: usize, what: &str) -> Extent<'_> {
    Extent { rows: n, rows_are: what, cols: n, cols_are: what }
}

/// An output matrix argument (`name`, `ld_<name>`, `cols_<name>`) checked against `need`.
fn given(ld_name: &'static str, ld: i64, cols_name: &'static str, cols: i64, need: Extent<'_>) -> Result<Matrix> {
    matrix(ld_name, ld, Columns::Given(cols_name, cols), need)
}

/// Outputs up to this many bytes are computed into a scratch copy; larger ones in place.
const SCRATCH_BYTES: usize = 64 << 20;

/// A caller's host output: the `rows x cols` matrix with leading dimension `ld` at the start of
/// `data`, argument `name`.
struct HostOutput<'a, T> {
    name: &'static str,
    data: &'a mut [T],
    rows: usize,
    cols: usize,
    ld: usize,
}

impl<'a, T: Scalar> HostOutput<'a, T> {
    /// The caller's output `name`, checked by [`matrix`] for the `rows x cols` the call writes.
    ///
    /// # Safety
    /// As [`matrix_out`].
    unsafe fn new(name: &'static str, ptr: *mut f64, m: Matrix, rows: usize, cols: usize) -> Result<Self> {
        Ok(HostOutput { name, data: matrix_out::<T>(name, ptr, m)?, rows, cols, ld: m.ld })
    }

    /// Fills H (`self`) and S together by `f`, as [`Self::fill`] fills one output: each is checked
    /// for finiteness before either is landed, and a failure NaNs every in-place one.
    fn fill_with(self, s: HostOutput<'_, T>, f: impl FnOnce(Target<'_, T>, Target<'_, T>) -> Result<()>) -> Result<()> {
        fill_all([self, s], |[h, s]| f(h, s))
    }

    /// Runs `f` on the output and checks that every element of the matrix is finite (else
    /// `ATOMGPU_ERR_NOT_FINITE`). A refused argument is found before anything is written, so the
    /// output is then untouched. Other failures (device errors, cancellation, overflow): outputs of
    /// up to 64 MiB are computed into a scratch copy and stay untouched; larger ones are computed
    /// in place, so that no second copy doubles the memory or slows the landing from the device,
    /// and are set to NaN over the whole matrix, so that no partial result looks valid.
    fn fill(self, f: impl FnOnce(&mut [T]) -> Result<()>) -> Result<()> {
        fill_all([self], |[o]| match o {
            Target::Host { data, .. } => f(data),
            Target::Device { .. } => unreachable!("host outputs give host targets"),
        })
    }
}

/// Runs `f` on `K` outputs at once ([`HostOutput::fill`] for one, [`HostOutput::fill_with`] for
/// H and S): each output of up to 64 MiB gets a scratch copy, larger ones are computed in place;
/// then every output is checked for finiteness, and only when all are finite are the scratch
/// copies landed. On a failure other than a refused argument, every in-place output is set to
/// NaN over its matrix (and the scratch ones stay untouched), so that no partial or half-landed
/// result is left behind.
fn fill_all<T: Scalar, const K: usize>(
    mut outputs: [HostOutput<'_, T>; K],
    f: impl FnOnce([Target<'_, T>; K]) -> Result<()>,
) -> Result<()> {
    let mut scratch = Vec::with_capacity(K);
    for o in &outputs {
        let small = std::mem::size_of_val(o.data) <= SCRATCH_BYTES;
        scratch.push(if small { Some(crate::memory::copy_of("a scratch copy of the output", o.data)?) } else { None });
    }
    let targets: Vec<Target<'_, T>> = outputs
        .iter_mut()
        .zip(scratch.iter_mut())
        .map(|(o, copy)| Target::Host { data: copy.as_deref_mut().unwrap_or(&mut *o.data), ld: o.ld })
        .collect();
    let Ok(targets) = <[Target<'_, T>; K]>::try_from(targets) else { unreachable!("one target per output") };
    let result = f(targets).and_then(|()| {
        for (o, copy) in outputs.iter().zip(&scratch) {
            if let Some(i) = first_non_finite(copy.as_deref().unwrap_or(&*o.data), o.rows, o.cols, o.ld) {
                return Err(Error::NotFinite {
                    name: o.name,
                    index: Some(i),
                    detail: "the basis values, potentials, energies or charges are too large for double precision"
                        .into(),
                });
            }
        }
        Ok(())
    });
    match &result {
        Ok(()) => {
            for (o, copy) in outputs.iter_mut().zip(scratch) {
                if let Some(copy) = copy {
                    o.data.copy_from_slice(&copy);
                }
            }
        }
        Err(Error::InvalidArgument { .. }) => {}
        Err(_) => {
            let nan = T::real(f64::NAN);
            for (o, copy) in outputs.iter_mut().zip(&scratch) {
                if copy.is_none() {
                    for j in 0..o.cols {
                        o.data[j * o.ld..j * o.ld + o.rows].fill(nan);
                    }
                }
            }
        }
    }
    result
}

// ---------------------------------------------------------------------------------------------
// Grid and handle.

/// The Gauss-Legendre grid of a basis (paper §3.1-3.2): Nq abscissas of [0, rmax] and their
/// weights, and all `nq + 1 + nq ns` points on which channel values are given, radially
/// ascending (Gauss point j, 0-based, at index j (ns + 1); Ns equally spaced points inside each
/// interval [r_j, r_(j+1)] of {r_1 … r_Nq, rmax}; rmax last).
///
/// - `rmax` (> 0, bohr), `nq` in [1, 1024], `ns` odd in [1, 1023];
/// - `abscissas[nq]`, `weights[nq]` (bohr), `points[nq + 1 + nq ns]` (bohr): outputs, each may be
///   NULL when it is not wanted (it is then not written; e.g. `points` NULL for the abscissas
///   and weights alone).
///
/// # Safety
/// The output pointers must be NULL or valid for the documented number of doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_grid(
    rmax: f64,
    nq: i64,
    ns: i64,
    abscissas: *mut f64,
    weights: *mut f64,
    points: *mut f64,
) -> i32 {
    guard(&["rmax", "nq", "ns", "abscissas", "weights", "points"], || {
        let nq = count("nq", nq)?;
        let ns = count("ns", ns)?;
        let grid = Grid::gauss_legendre(rmax, nq, ns)?;
        for (values, out) in [(grid.abscissas(), abscissas), (grid.weights(), weights), (grid.points(), points)] {
            if !out.is_null() {
                std::ptr::copy_nonoverlapping(values.as_ptr(), out, values.len());
            }
        }
        Ok(())
    })
}

/// Creates an empty basis on the current backend for the grid (`rmax`, `nq`, `ns`): the
/// Gauss-Legendre one of `atomgpu_sturmian_grid` when `abscissas` and `weights` are both NULL,
/// else the caller's (`abscissas[nq]` strictly increasing inside (0, rmax), `weights[nq]` > 0).
/// `is_complex` (0 or 1) chooses real or complex values. Destroy with `atomgpu_sturmian_destroy`.
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_create(
    rmax: f64,
    nq: i64,
    ns: i64,
    abscissas: *const f64,
    weights: *const f64,
    is_complex: i32,
    handle: *mut *mut atomgpu_sturmian,
) -> i32 {
    guard(&["rmax", "nq", "ns", "abscissas", "weights", "is_complex", "handle"], || {
        create(rmax, nq, ns, abscissas, weights, is_complex, || devices_by_count("n_devices", 1), handle)
    })
}

/// As `atomgpu_sturmian_create`, with `atomgpu_sturmian_hamiltonian` spread over several GPUs of
/// the node when H and S are host memory:
///
/// - `n_devices` in [1, 64]: that many GPUs by the library's one rule (README "Several GPUs":
///   from `ATOMGPU_DEVICE`, else from GPU (node-local rank x n_devices) mod visible, on
///   consecutively, so the ranks of a node get disjoint sets; `atomgpu_resolve_devices` tells
///   which). Each holds a copy of the channels; each takes the next pair block (bra, ket) not yet
///   taken, computes it with the one-GPU kernels and lands it in its place in H and S (its own
///   PCIe link; pinned buffers from `atomgpu_host_alloc` land fastest). The matrices equal one
///   GPU's. Every other call (and a Hamiltonian into device memory) runs on the first GPU. More
///   than the process sees is `ATOMGPU_ERR_INVALID_ARGUMENT` at `n_devices`. On the CPU backend,
///   n engines run the blocks on n threads.
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn atomgpu_sturmian_create_on_devices(
    rmax: f64,
    nq: i64,
    ns: i64,
    abscissas: *const f64,
    weights: *const f64,
    is_complex: i32,
    n_devices: i32,
    handle: *mut *mut atomgpu_sturmian,
) -> i32 {
    guard(&["rmax", "nq", "ns", "abscissas", "weights", "is_complex", "n_devices", "handle"], || {
        create(rmax, nq, ns, abscissas, weights, is_complex, || devices_by_count("n_devices", n_devices), handle)
    })
}

/// As `atomgpu_sturmian_create_on_devices`, on the GPUs named in `device_ids[n_devices]`
/// (distinct ordinals in [0, visible), the first being the one every other call runs on), as
/// cuSOLVER-Mg takes them. On the CPU backend, n_devices CPU engines.
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn atomgpu_sturmian_create_on_device_list(
    rmax: f64,
    nq: i64,
    ns: i64,
    abscissas: *const f64,
    weights: *const f64,
    is_complex: i32,
    n_devices: i32,
    device_ids: *const i32,
    handle: *mut *mut atomgpu_sturmian,
) -> i32 {
    guard(&["rmax", "nq", "ns", "abscissas", "weights", "is_complex", "n_devices", "device_ids", "handle"], || {
        let devices = || devices_by_list("n_devices", n_devices, "device_ids", device_ids);
        create(rmax, nq, ns, abscissas, weights, is_complex, devices, handle)
    })
}

/// The body of the create functions; `devices` resolves the device set once the other arguments
/// are checked.
#[allow(clippy::too_many_arguments)]
unsafe fn create(
    rmax: f64,
    nq: i64,
    ns: i64,
    abscissas: *const f64,
    weights: *const f64,
    is_complex: i32,
    devices: impl FnOnce() -> Result<DeviceSet>,
    handle: *mut *mut atomgpu_sturmian,
) -> Result<()> {
    let nq = count("nq", nq)?;
    let ns = count("ns", ns)?;
    if !(0..=1).contains(&is_complex) {
        return Err(Error::invalid("is_complex", format!("must be 0 (real) or 1 (complex), got {is_complex}")));
    }
    let out = output("handle", handle)?;
    let grid = if abscissas.is_null() && weights.is_null() {
        Grid::gauss_legendre(rmax, nq, ns)?
    } else {
        let nq_ok =
            if nq > crate::sturmian::grid::MAX_NQ { Err(Error::invalid("nq", "must be <= 1024")) } else { Ok(nq) }?;
        Grid::new(rmax, ns, input("abscissas", abscissas, nq_ok)?, input("weights", weights, nq_ok)?)?
    };
    let devices = devices()?;
    let inner = if is_complex == 1 {
        AnyBasis::Complex(Sturmian::new_on_devices(grid, &devices)?)
    } else {
        AnyBasis::Real(Sturmian::new_on_devices(grid, &devices)?)
    };
    *out = handles::register(atomgpu_sturmian { inner: Mutex::new(inner), devices })?;
    Ok(())
}

/// Destroys a handle and frees its host and device memory. NULL is a no-op; a handle already
/// destroyed, or one of another family, is `ATOMGPU_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `handle` may be any value: it is looked up, never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_destroy(handle: *mut atomgpu_sturmian) -> i32 {
    guard(&["handle"], || handles::remove("handle", handle))
}

/// Adds (or replaces) the channel (electron, l): N functions given by their values on the
/// grid's points, their eigenvalues β of eq. 9, the generating potential and optionally the
/// central potential U they were generated with. The channel carries no energy: the assembly
/// uses `params.energy_a` or `_b` for it (`atomgpu_sturmian_add_channel_at_energy` gives one).
///
/// - `values`: `n_points x n` elements (n_points = nq + 1 + nq ns, the grid's point order), column
///   j function j, leading dimension `ld_values` (>= n_points; its columns are the `n`),
///   bohr^-1/2, finite;
/// - `beta[n]`: β_n (dimensionless), finite;
/// - `generating[nq]`: the generating potential at the abscissas (hartree, real), finite;
/// - `central[nq]` or NULL: U at the abscissas (hartree, real); NULL means U = -Z/r with the Z
///   given to the assembly (the paper's choice).
///
/// # Safety
/// Pointers must be NULL (where allowed) or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_add_channel(
    handle: *mut atomgpu_sturmian,
    electron: i32,
    l: i32,
    n: i64,
    values: *const f64,
    ld_values: i64,
    beta: *const f64,
    generating: *const f64,
    central: *const f64,
) -> i32 {
    guard(&["handle", "electron", "l", "n", "values", "ld_values", "beta", "generating", "central"], || {
        add_channel(handle, electron, l, n, values, ld_values, beta, generating, central, None)
    })
}

/// As `atomgpu_sturmian_add_channel`, for functions generated at the energy `energy` (E_i of
/// eq. 8-9, hartree, finite): the assembly uses this energy for the channel instead of
/// `params.energy_a/_b` (eq. 9 replaces the kinetic energy only at the energy the functions
/// solve it at), so channels generated at different energies (per l, per electron) mix in one
/// Hamiltonian.
///
/// # Safety
/// Pointers must be NULL (where allowed) or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_add_channel_at_energy(
    handle: *mut atomgpu_sturmian,
    electron: i32,
    l: i32,
    n: i64,
    values: *const f64,
    ld_values: i64,
    beta: *const f64,
    generating: *const f64,
    central: *const f64,
    energy: f64,
) -> i32 {
    guard(&["handle", "electron", "l", "n", "values", "ld_values", "beta", "generating", "central", "energy"], || {
        crate::error::require_finite("energy", None, energy)?;
        add_channel(handle, electron, l, n, values, ld_values, beta, generating, central, Some(energy))
    })
}

/// The body of `atomgpu_sturmian_add_channel` and `_add_channel_at_energy`.
#[allow(clippy::too_many_arguments)]
unsafe fn add_channel(
    handle: *mut atomgpu_sturmian,
    electron: i32,
    l: i32,
    n: i64,
    values: *const f64,
    ld_values: i64,
    beta: *const f64,
    generating: *const f64,
    central: *const f64,
    energy: Option<f64>,
) -> Result<()> {
    let e = self::electron(electron)?;
    let l = angular_momentum("l", l, MAX_L)?;
    let n = count("n", n)?;
    with_handle(handle, |any| {
        on_basis!(any, |b: T| {
            let (np, nq) = (b.grid().n_points(), b.grid().nq());
            let need = Extent { rows: np, rows_are: "the grid's point count", cols: n, cols_are: "n" };
            let Matrix { ld, len } = matrix("ld_values", ld_values, Columns::Counted("n"), need)?;
            let values = scalars::<T>("values", values, len)?;
            let beta = scalars::<T>("beta", beta, n)?;
            let generating = input("generating", generating, nq)?;
            let central =
                if central.is_null() { Central::Nuclear } else { Central::Values(input("central", central, nq)?) };
            b.add_channel(&ChannelSpec { electron: e, l, n, values, ld, beta, generating, central, energy })
        })
    })
}

/// Generates a bound-state GSF channel (Yukawa generating potential, Laguerre Galerkin solve of
/// eq. 9 on [0, rmax] with S(rmax) = 0; see the Rust docs of `sturmian::gsf`) on the handle's
/// grid and adds it as the channel (electron, l) with `n` functions (β ascending). `beta[n]`
/// (output, may be NULL) receives β. The channel keeps the central potential -Z/r and the
/// energy E of `params`: an assembly for another nuclear charge adds I[(Z_gsf - Z)/r], and uses
/// this E whatever `atomgpu_sturmian_params.energy_a/_b` say. `atomgpu_sturmian_channel_values`
/// reads the functions back.
///
/// # Safety
/// `params` must be NULL or valid; `beta` NULL or valid for n doubles.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_add_gsf(
    handle: *mut atomgpu_sturmian,
    electron: i32,
    l: i32,
    n: i64,
    params: *const atomgpu_gsf_params,
    beta: *mut f64,
) -> i32 {
    guard(&["handle", "electron", "l", "n", "params", "beta"], || {
        let e = self::electron(electron)?;
        let l = angular_momentum("l", l, 40)?;
        let n = count("n", n)?;
        let p = input("params", params, 1)?[0];
        let n_parent = usize::try_from(p.n_parent).map_err(|_| {
            Error::invalid("params", format!("field `n_parent` must be in [n, 400], got {}", p.n_parent))
        })?;
        let spec = GsfSpec {
            l,
            nuclear_charge: p.nuclear_charge,
            energy: p.energy,
            yukawa_strength: p.yukawa_strength,
            yukawa_range: p.yukawa_range,
            n_parent,
            lambda: p.lambda,
            n,
        };
        with_handle(handle, |any| {
            let generated = on_basis!(any, |b: T| gsf::generate(b.grid(), &spec)).map_err(|e| match e {
                Error::InvalidArgument { name, rule, .. } if name != "n" && name != "l" => {
                    Error::invalid("params", format!("field `{name}` {rule}"))
                }
                other => other,
            })?;
            let channel = generated.channel(e);
            match any {
                AnyBasis::Real(b) => b.add_channel(&channel)?,
                AnyBasis::Complex(b) => {
                    let values: Vec<Complex64> = generated.values.iter().map(|&x| Complex64::new(x, 0.0)).collect();
                    let betas: Vec<Complex64> = generated.beta.iter().map(|&x| Complex64::new(x, 0.0)).collect();
                    let ChannelSpec { electron, l, n, ld, generating, central, energy, .. } = channel;
                    b.add_channel(&ChannelSpec {
                        electron,
                        l,
                        n,
                        values: &values,
                        ld,
                        beta: &betas,
                        generating,
                        central,
                        energy,
                    })?
                }
            }
            if !beta.is_null() {
                std::ptr::copy_nonoverlapping(generated.beta.as_ptr(), beta, n);
            }
            Ok(())
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Integrals and blocks.

/// The one-electron matrices of channel (electron, l) (eq. 19), N x N each: `overlap` = I[1]
/// (eq. 13) with leading dimension `ld_overlap` (>= N) and `cols_overlap` (>= N) columns, and
/// `generating` = I[𝒱] (eq. 14, hartree) with `ld_generating` (>= N) and `cols_generating` (>= N).
///
/// # Safety
/// Outputs must be NULL or valid for ld (cols - 1) + N elements each.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_one_electron(
    handle: *const atomgpu_sturmian,
    electron: i32,
    l: i32,
    overlap: *mut f64,
    ld_overlap: i64,
    cols_overlap: i64,
    generating: *mut f64,
    ld_generating: i64,
    cols_generating: i64,
) -> i32 {
    guard(
        &[
            "handle",
            "electron",
            "l",
            "overlap",
            "ld_overlap",
            "cols_overlap",
            "generating",
            "ld_generating",
            "cols_generating",
        ],
        || {
            let e = self::electron(electron)?;
            let l = angular_momentum("l", l, MAX_L)?;
            with_handle(handle, |any| {
                on_basis!(any, |b: T| {
                    let one = b.one_electron(e, l).map_err(|e| e.renamed("la", "l").renamed("lb", "l"))?;
                    let n = b.size(e, l).unwrap_or(0);
                    let need = square(n, "N, the channel's functions");
                    let mo = given("ld_overlap", ld_overlap, "cols_overlap", cols_overlap, need)?;
                    let mg = given("ld_generating", ld_generating, "cols_generating", cols_generating, need)?;
                    let o = matrix_out::<T>("overlap", overlap, mo)?;
                    let g = matrix_out::<T>("generating", generating, mg)?;
                    for j in 0..n {
                        o[j * mo.ld..j * mo.ld + n].copy_from_slice(&one.overlap[j * n..(j + 1) * n]);
                        g[j * mg.ld..j * mg.ld + n].copy_from_slice(&one.generating[j * n..(j + 1) * n]);
                    }
                    Ok(())
                })
            })
        },
    )
}

/// Channel (electron, l) as the handle holds it (e.g. one generated by
/// `atomgpu_sturmian_add_gsf`): every output may be NULL (not wanted), and receives
///
/// - `values`: the N functions at the grid's points (`atomgpu_sturmian_grid`), `n_points x N`
///   elements of the basis's type with leading dimension `ld_values` (>= n_points) and
///   `cols_values` (>= N) columns (both read only when `values` is not NULL), bohr^-1/2;
/// - `beta`: their eigenvalues β of eq. 9 (the basis's type), into its first N of `len_beta`
///   (>= N; read only when `beta` is not NULL) elements;
/// - `generating[nq]`: the generating potential at the abscissas (hartree);
/// - `central[nq]`: the central potential U they were generated with, at the abscissas (hartree;
///   a GSF channel: -Z/r_j of its Z). A channel added with `central` = NULL has none of its own
///   (each assembly's -Z/r): asking for it is refused, naming `central`;
/// - `energy[1]`: the energy they were generated at (hartree). A channel added by
///   `atomgpu_sturmian_add_channel` has none (the assembly's `params.energy_a/_b`): asking for it
///   is refused, naming `energy`.
///
/// # Safety
/// Each output must be NULL or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_channel_values(
    handle: *const atomgpu_sturmian,
    electron: i32,
    l: i32,
    values: *mut f64,
    ld_values: i64,
    cols_values: i64,
    beta: *mut f64,
    len_beta: i64,
    generating: *mut f64,
    central: *mut f64,
    energy: *mut f64,
) -> i32 {
    guard(
        &[
            "handle",
            "electron",
            "l",
            "values",
            "ld_values",
            "cols_values",
            "beta",
            "len_beta",
            "generating",
            "central",
            "energy",
        ],
        || {
            let e = self::electron(electron)?;
            let l = angular_momentum("l", l, MAX_L)?;
            with_handle(handle, |any| {
                on_basis!(any, |b: T| {
                    let np = b.grid().n_points();
                    let c = b.channel(e, l).map_err(|e| e.renamed("la", "l").renamed("lb", "l"))?;
                    let n = c.n;
                    let functions = "N, the channel's functions";
                    let ld = if values.is_null() {
                        0
                    } else {
                        let need =
                            Extent { rows: np, rows_are: "the grid's point count", cols: n, cols_are: functions };
                        given("ld_values", ld_values, "cols_values", cols_values, need)?.ld
                    };
                    if !beta.is_null() {
                        length("len_beta", len_beta, n, functions)?;
                    }
                    let origin = if e == Electron::A { "a" } else { "b" };
                    if !central.is_null() && c.central.is_none() {
                        return Err(Error::invalid(
                            "central",
                            format!(
                            "must be NULL: channel ({origin}, l = {l}) was added with no central potential of its own \
                             (U = -Z/r with each assembly's params.nuclear_charge)"
                        ),
                        ));
                    }
                    if !energy.is_null() && c.energy.is_none() {
                        return Err(Error::invalid(
                            "energy",
                            format!(
                                "must be NULL: channel ({origin}, l = {l}) was added by atomgpu_sturmian_add_channel, \
                             with no energy of its own (the assembly's params.energy_a/_b)"
                            ),
                        ));
                    }
                    // The caller's arrays hold doubles (or (re, im) pairs): columns of `ld` elements.
                    let (doubles, width) = (as_doubles(c.values), crate::math::scalar::width::<T>());
                    if !values.is_null() {
                        for j in 0..n {
                            write_output(values.add(j * ld * width), &doubles[j * np * width..(j + 1) * np * width]);
                        }
                    }
                    if !beta.is_null() {
                        write_output(beta, as_doubles(c.beta));
                    }
                    if !generating.is_null() {
                        write_output(generating, c.generating);
                    }
                    if let (false, Some(u)) = (central.is_null(), &c.central) {
                        write_output(central, u);
                    }
                    if let (false, Some(x)) = (energy.is_null(), c.energy) {
                        *energy = x;
                    }
                    Ok(())
                })
            })
        },
    )
}

fn spec_of(p: &atomgpu_sturmian_params, pairs: Vec<Pair>) -> Result<HamiltonianSpec> {
    let field = |e: Error| match e {
        Error::InvalidArgument { name, rule, .. } => Error::invalid("params", format!("field `{name}` {rule}")),
        other => other,
    };
    let l_total = angular_momentum("l_total", p.l_total, MAX_L).map_err(field)?;
    let exchange = match p.exchange {
        ATOMGPU_EXCHANGE_NONE => Exchange::None,
        ATOMGPU_EXCHANGE_SYMMETRIC => Exchange::Symmetric,
        ATOMGPU_EXCHANGE_ANTISYMMETRIC => Exchange::Antisymmetric,
        other => {
            let rule = "must be ATOMGPU_EXCHANGE_NONE (0), _SYMMETRIC (1) or _ANTISYMMETRIC (2)";
            return Err(Error::invalid("params", format!("field `exchange` {rule}, got {other}")));
        }
    };
    Ok(HamiltonianSpec {
        l_total,
        m: p.m,
        pairs,
        energies: [p.energy_a, p.energy_b],
        nuclear_charge: p.nuclear_charge,
        interaction_charge: p.interaction_charge,
        exchange,
    })
}

/// Maps an error about a field of the Hamiltonian spec to the argument `params`.
fn params_error(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, index, rule }
            if ["l_total", "m", "energies", "nuclear_charge", "interaction_charge", "exchange"].contains(&name) =>
        {
            let at = index.map(|i| format!("[{i}]")).unwrap_or_default();
            Error::invalid("params", format!("field `{name}{at}` {rule}"))
        }
        Error::InvalidArgument { name: "pairs", index: Some(i), rule } => Error::invalid_at("la", i, rule),
        Error::InvalidArgument { name: "pairs", index: None, rule } => Error::invalid("n_pairs", rule),
        other => other,
    }
}

/// The one-electron part of the diagonal block of pair (la, lb) (the bracket of eq. 12, with
/// the energies and charges of `params`) into `h`, and its overlap Oa ⊗ Ob (eq. 20) into `s`,
/// each Na Nb x Na Nb (leading dimensions `ld_h`, `ld_s` and column counts `cols_h`, `cols_s`,
/// each >= Na Nb), in `order`. `params` is checked as for `atomgpu_sturmian_hamiltonian` (L in
/// [0, 200], |M| <= L, finite energies and charges), and
/// (la, lb) must couple to L (|la - lb| <= L <= la + lb; else status 1 at `la`). On failure the
/// outputs are left as `atomgpu_sturmian_hamiltonian` says.
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_one_electron_block(
    handle: *const atomgpu_sturmian,
    params: *const atomgpu_sturmian_params,
    la: i32,
    lb: i32,
    order: i32,
    h: *mut f64,
    ld_h: i64,
    cols_h: i64,
    s: *mut f64,
    ld_s: i64,
    cols_s: i64,
) -> i32 {
    guard(&["handle", "params", "la", "lb", "order", "h", "ld_h", "cols_h", "s", "ld_s", "cols_s"], || {
        let p = input("params", params, 1)?[0];
        let pair = Pair { la: angular_momentum("la", la, MAX_L)?, lb: angular_momentum("lb", lb, MAX_L)? };
        let order = self::order(order)?;
        let spec = spec_of(&p, vec![pair])?;
        with_handle(handle, |any| {
            on_basis!(any, |b: T| {
                let size = b.pair_size(pair)?;
                let need = square(size, "Na Nb, the block's size");
                let (mh, ms) =
                    (given("ld_h", ld_h, "cols_h", cols_h, need)?, given("ld_s", ld_s, "cols_s", cols_s, need)?);
                let h = HostOutput::<T>::new("h", h, mh, size, size)?;
                let s = HostOutput::<T>::new("s", s, ms, size, size)?;
                h.fill_with(s, |h, s| b.one_electron_block(pair, &spec, order, h, s))
                    .map_err(|e| params_error(e.renamed("pair", "la")))
            })
        })
    })
}

/// Checks the repulsion arguments and returns (bra, ket, l, order).
fn repulsion_args(lpa: i32, lpb: i32, la: i32, lb: i32, l: i32, order: i32) -> Result<(Pair, Pair, u32, Order)> {
    Ok((
        Pair { la: angular_momentum("lpa", lpa, MAX_L)?, lb: angular_momentum("lpb", lpb, MAX_L)? },
        Pair { la: angular_momentum("la", la, MAX_L)?, lb: angular_momentum("lb", lb, MAX_L)? },
        angular_momentum("l", l, 2 * MAX_L)?,
        self::order(order)?,
    ))
}

/// The radial repulsion block R^{l'a l'b la lb l} (eq. 15; eqs. 21-24 on the device) for bra
/// channels (lpa, lpb) and ket channels (la, lb) and multipole `l`: N'a N'b x Na Nb elements
/// (hartree) into host `out` with leading dimension `ld_out` (>= N'a N'b) and `cols_out`
/// (>= Na Nb) columns, in `order`.
///
/// # Safety
/// `out` must be NULL or valid for ld_out (cols_out - 1) + N'a N'b elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_repulsion(
    handle: *const atomgpu_sturmian,
    lpa: i32,
    lpb: i32,
    la: i32,
    lb: i32,
    l: i32,
    order: i32,
    out: *mut f64,
    ld_out: i64,
    cols_out: i64,
) -> i32 {
    guard(&["handle", "lpa", "lpb", "la", "lb", "l", "order", "out", "ld_out", "cols_out"], || {
        let (bra, ket, l, order) = repulsion_args(lpa, lpb, la, lb, l, order)?;
        with_handle(handle, |any| {
            on_basis!(any, |b: T| {
                let (rows, cols) =
                    (b.pair_size(bra).map_err(|e| e.renamed("la", "lpa").renamed("lb", "lpb"))?, b.pair_size(ket)?);
                let need = Extent { rows, rows_are: "N'a N'b", cols, cols_are: "Na Nb" };
                let m = given("ld_out", ld_out, "cols_out", cols_out, need)?;
                HostOutput::<T>::new("out", out, m, rows, cols)?
                    .fill(|o| b.repulsion(bra, ket, l, order, Target::Host { data: o, ld: m.ld }))
            })
        })
    })
}

/// As `atomgpu_sturmian_repulsion`, into device memory `out_dev` (a device pointer of the
/// handle's GPU, CUDA backend only): `len_out_dev` (>= ld_out_dev (Na Nb - 1) + N'a N'b) is its
/// size in elements, `ld_out_dev` (>= N'a N'b) its leading dimension.
///
/// # Safety
/// `out_dev` must be a device allocation of at least `len_out_dev` elements on the handle's GPU.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_repulsion_dev(
    handle: *const atomgpu_sturmian,
    lpa: i32,
    lpb: i32,
    la: i32,
    lb: i32,
    l: i32,
    order: i32,
    out_dev: *mut f64,
    len_out_dev: i64,
    ld_out_dev: i64,
) -> i32 {
    guard(&["handle", "lpa", "lpb", "la", "lb", "l", "order", "out_dev", "len_out_dev", "ld_out_dev"], || {
        let (bra, ket, l, order) = repulsion_args(lpa, lpb, la, lb, l, order)?;
        let ptr = output("out_dev", out_dev)? as u64;
        let len = count("len_out_dev", len_out_dev)?;
        with_handle(handle, |any| {
            on_basis!(any, |b: T| {
                let rows = b.pair_size(bra).map_err(|e| e.renamed("la", "lpa").renamed("lb", "lpb"))?;
                let ld = leading_dimension("ld_out_dev", ld_out_dev, rows, "N'a N'b")?;
                if b.backend_name() != "cuda" {
                    return Err(Error::invalid(
                        "out_dev",
                        "is device memory, but the handle was created on the CPU backend",
                    ));
                }
                b.repulsion(bra, ket, l, order, Target::Device::<T> { ptr, len, ld })
                    .map_err(|e| e.renamed("out", "len_out_dev"))
            })
        })
    })
}

/// The angular coefficient A^{LM}_{l'a l'b la lb l} of eq. 16 (dimensionless; 0 when a
/// selection rule fails) into `value`; the Hamiltonian uses 4 pi / (2l + 1) A. Computed through
/// Racah's closed form of eq. 18 (one 6j and two 3j symbols, Edmonds eq. 7.1.6) with the symbols
/// as exact integer sums: the exact value correctly rounded, tiny values and signs included, in
/// about 0.1 ms at l = 200. `l_total` in [0, 200], |m| <= l_total, `lpa`, `lpb`, `la`, `lb` in
/// [0, 200], `l` in [0, 400].
///
/// # Safety
/// `value` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_angular(
    l_total: i32,
    m: i32,
    lpa: i32,
    lpb: i32,
    la: i32,
    lb: i32,
    l: i32,
    value: *mut f64,
) -> i32 {
    guard(&["l_total", "m", "lpa", "lpb", "la", "lb", "l", "value"], || {
        let lt = angular_momentum("l_total", l_total, MAX_L)?;
        if m.unsigned_abs() > lt {
            return Err(Error::invalid("m", format!("must satisfy |m| <= l_total = {lt}, got {m}")));
        }
        let lpa = angular_momentum("lpa", lpa, MAX_L)?;
        let lpb = angular_momentum("lpb", lpb, MAX_L)?;
        let la = angular_momentum("la", la, MAX_L)?;
        let lb = angular_momentum("lb", lb, MAX_L)?;
        let l = angular_momentum("l", l, 2 * MAX_L)?;
        let out = output("value", value)?;
        *out = angular::angular_coefficient(lt, m, lpa, lpb, la, lb, l);
        Ok(())
    })
}

/// Checks the pair arrays and returns the pairs.
unsafe fn pairs_of(n_pairs: i64, la: *const i32, lb: *const i32) -> Result<Vec<Pair>> {
    let n = count("n_pairs", n_pairs)?;
    if n > 4096 {
        return Err(Error::invalid("n_pairs", format!("must be <= 4096, got {n}")));
    }
    let (a, b) = (input("la", la, n)?, input("lb", lb, n)?);
    (0..n)
        .map(|i| {
            let check = |name, v: i32| {
                u32::try_from(v)
                    .ok()
                    .filter(|&l| l <= MAX_L)
                    .ok_or_else(|| Error::invalid_at(name, i, format!("must be in [0, {MAX_L}], got {v}")))
            };
            Ok(Pair { la: check("la", a[i])?, lb: check("lb", b[i])? })
        })
        .collect()
}

/// The size n of the Hamiltonian of `params` and the pairs (`la[n_pairs]`, `lb[n_pairs]`) into
/// `size`: Σ_p Na(la_p) Nb(lb_p), or with an exchange symmetry the symmetrised count (Na Nb
/// for la < lb, N(N+1)/2 or N(N-1)/2 for la = lb).
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_hamiltonian_size(
    handle: *const atomgpu_sturmian,
    params: *const atomgpu_sturmian_params,
    n_pairs: i64,
    la: *const i32,
    lb: *const i32,
    size: *mut i64,
) -> i32 {
    guard(&["handle", "params", "n_pairs", "la", "lb", "size"], || {
        let p = input("params", params, 1)?[0];
        let spec = spec_of(&p, pairs_of(n_pairs, la, lb)?)?;
        let out = output("size", size)?;
        with_handle(handle, |any| {
            let n = on_basis!(any, |b: T| b.hamiltonian_size(&spec)).map_err(params_error)?;
            *out = n as i64;
            Ok(())
        })
    })
}

/// Assembles the Hamiltonian H and overlap S of eq. 12 for `params` (L, M, energies, charges,
/// exchange symmetry) and the pairs (`la[n_pairs]`, `lb[n_pairs]`) into host `h` and `s`, each n x n
/// (`atomgpu_sturmian_hamiltonian_size`; leading dimensions `ld_h`, `ld_s` >= n, columns `cols_h`,
/// `cols_s` >= n), pair blocks in the given order, each block in `order`: the generalised
/// eigenproblem H c = E S c.
///
/// Refused arguments leave `h` and `s` untouched. Outputs of up to 64 MiB (each) are computed
/// into a scratch copy; larger ones are written in place (no second copy; pinned buffers from
/// `atomgpu_host_alloc` receive the result at the bus's full rate). Both matrices are checked for
/// finiteness before either is landed (`ATOMGPU_ERR_NOT_FINITE` naming the first non-finite
/// element, e.g. from energies or charges near DBL_MAX): if the call fails after it began (a
/// device error, cancellation, an overflow), a scratch output stays untouched and an in-place one
/// holds NaN over the whole n x n matrix, whichever of H and S failed, so that no partial result
/// looks valid. Padding rows (ld > n) and columns (cols > n) are never written. The same holds for
/// `atomgpu_sturmian_repulsion` and `_one_electron_block`.
///
/// # Safety
/// Pointers must be NULL or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_hamiltonian(
    handle: *const atomgpu_sturmian,
    params: *const atomgpu_sturmian_params,
    n_pairs: i64,
    la: *const i32,
    lb: *const i32,
    order: i32,
    h: *mut f64,
    ld_h: i64,
    cols_h: i64,
    s: *mut f64,
    ld_s: i64,
    cols_s: i64,
) -> i32 {
    guard(&["handle", "params", "n_pairs", "la", "lb", "order", "h", "ld_h", "cols_h", "s", "ld_s", "cols_s"], || {
        let p = input("params", params, 1)?[0];
        let pairs = pairs_of(n_pairs, la, lb)?;
        let order = self::order(order)?;
        let spec = spec_of(&p, pairs)?;
        with_handle(handle, |any| {
            on_basis!(any, |b: T| {
                let n = b.hamiltonian_size(&spec).map_err(params_error)?;
                let need = square(n, "n, the Hamiltonian's size");
                let (mh, ms) =
                    (given("ld_h", ld_h, "cols_h", cols_h, need)?, given("ld_s", ld_s, "cols_s", cols_s, need)?);
                let h = HostOutput::<T>::new("h", h, mh, n, n)?;
                let s = HostOutput::<T>::new("s", s, ms, n, n)?;
                h.fill_with(s, |h, s| b.hamiltonian(&spec, order, h, s)).map_err(params_error)
            })
        })
    })
}

/// The `k` lowest eigenpairs of the real symmetric-definite problem H c = E S c (n x n, lower
/// triangles read, leading dimensions `ld_h`, `ld_s` >= n; e.g. from `atomgpu_sturmian_hamiltonian`
/// on a real basis): `energies[k]` ascending (hartree) and `vectors` (n x k, leading dimension
/// `ld_vectors` >= n, `cols_vectors` >= k columns, S-normalised), on the current backend
/// (cuSOLVER Dsygvd on the GPU, faer on the CPU).
///
/// `vectors` may be NULL: then only the energies are computed (no eigenvector is formed;
/// `ld_vectors` and `cols_vectors` are not read). Any finite H and S are taken, however large or small: both are scaled by powers
/// of two (exactly) so that their largest elements are of order 1 before the Cholesky
/// factorisation, and the results scaled back. Where a true eigenvalue lies beyond double
/// precision (e.g. H near DBL_MAX, or S subnormal against an H of order 1), the status is
/// `ATOMGPU_ERR_NOT_FINITE` naming `energies` (or `vectors`), and no output is written; an S that
/// is not positive definite is status 1 at `s`.
///
/// # Safety
/// Pointers must be NULL (where allowed) or valid for the documented number of elements.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_sturmian_solve(
    n: i64,
    h: *const f64,
    ld_h: i64,
    s: *const f64,
    ld_s: i64,
    k: i64,
    energies: *mut f64,
    vectors: *mut f64,
    ld_vectors: i64,
    cols_vectors: i64,
) -> i32 {
    guard(&["n", "h", "ld_h", "s", "ld_s", "k", "energies", "vectors", "ld_vectors", "cols_vectors"], || {
        let n = count("n", n)?;
        let Matrix { ld: ldh, len } = matrix("ld_h", ld_h, Columns::Counted("n"), square(n, "n"))?;
        let h = input("h", h, len)?;
        let Matrix { ld: lds, len } = matrix("ld_s", ld_s, Columns::Counted("n"), square(n, "n"))?;
        let s = input("s", s, len)?;
        let k = count("k", k)?;
        let e = output("energies", energies)?;
        let backend = backend::current()?;
        if vectors.is_null() {
            let values = solve::lowest_eigenvalues(&backend, n, h, ldh, s, lds, k)?;
            std::ptr::copy_nonoverlapping(values.as_ptr(), e, k);
            return Ok(());
        }
        let need = Extent { rows: n, rows_are: "n", cols: k, cols_are: "k" };
        let ldv = given("ld_vectors", ld_vectors, "cols_vectors", cols_vectors, need)?.ld;
        let (values, vecs) = solve::lowest_eigenpairs(&backend, n, h, ldh, s, lds, k)?;
        std::ptr::copy_nonoverlapping(values.as_ptr(), e, k);
        for j in 0..k {
            std::ptr::copy_nonoverlapping(vecs[j * n..].as_ptr(), vectors.add(j * ldv), n);
        }
        Ok(())
    })
}
