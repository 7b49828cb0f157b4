//! C ABI of the line-strength family: half-linestrengths, line strengths, Einstein A
//! coefficients and absorption intensities of TROVE-style line lists (GAIN: Al-Refaie, Yurchenko
//! & Tennyson, Comput. Phys. Commun. 214 (2017) 216), around [`crate::linestrength`].
//!
//! An opaque handle (`atomgpu_linestrength`) holds the vibrational dipole matrix (on the GPU
//! when the CUDA backend is in use), the registered (J, Gamma) blocks with their eigenstates, and
//! the dipole products of the last lower batch. Handles are checked on every call (a destroyed
//! handle, or one of another family, is an invalid argument naming `handle`), and every call holds
//! the handle's lock while it runs, so a handle shared between threads gives each call the
//! numbers of the handle as that call finds it. The loaded lower batch is state of the handle:
//! threads that share one must not interleave `load_lower` with another thread's `half` or
//! `amplitudes` (`line_list` is one call and safe); use one handle per thread for that.
//!
//! Conventions shared by every function here:
//! - block, state, vibrational and CSR indices are 0-based (the Fortran module takes 1-based
//!   ones); ExoMol state IDs are 1-based;
//! - matrices are column-major; a matrix argument `x` comes with its leading dimension `ld_x`
//!   (>= the rows the call reads or writes) and, when no count argument of the call gives its
//!   columns (every output), its column count `cols_x` (>= the columns the call writes; the
//!   columns and the padding rows beyond are neither read nor written, as LAPACK lets a larger
//!   array pass), both checked here (`super::common::matrix`), the message naming the argument,
//!   the rule and both numbers;
//! - energies and wavenumbers in cm^-1, dipoles and amplitudes in Debye, line strengths in
//!   Debye^2, Einstein A in s^-1, intensities in cm/molecule, temperatures in K;
//! - every argument is checked (NULL pointers, sizes >= 1, leading dimensions, block indices in
//!   range, quantum numbers, NaN/Inf values) before any work; on failure the status is
//!   `ATOMGPU_ERR_INVALID_ARGUMENT`, `atomgpu_last_error_arg()` gives the 1-based position of the
//!   offending argument (for a bad field of `params`, the position of `params`) and
//!   `atomgpu_last_error_message` names it; outputs and the handle are left unchanged.
//!
//! The quantities (paper eqs. 14, 15, 1-2, in TROVE's CGS form):
//!
//! ```text
//!   h_p(i)   = sum_(v,K,tau) c^i_(v,K,tau) f(J,K,tau; J',K',tau') dipole(v, v', m)    eq. 14, Debye
//!   a(f, i)  = sum_p c^f_p h_p(i)                                                     eq. 15, Debye
//!   L        = a^2                                                                    Debye^2
//!   S        = g_ns (2J'+1)(2J''+1) L                                                 Debye^2
//!   A        = A_coef (2J''+1) L nu^3                                                 s^-1 (eq. 1)
//!   I        = I_coef S nu exp(-c2 (E''-ZPE)/T) (1 - exp(-c2 nu/T)) / Q              cm/molecule (eq. 2)
//! ```
//! with nu = E' - E'' in cm^-1, A_coef = 64 pi^4 1e-36/(3h), I_coef = 8 pi^3 1e-36/(3hc),
//! c2 = hc/k in cm K (CODATA 2018, or TROVE's constants: `atomgpu_intensity_params`), g_ns the
//! lower block's nuclear-spin weight.

use super::common::{
    at_field, count, guard, input, matrix, output, write_output, Columns, Extent, Matrix, MAX_ELEMENTS,
};
use super::devices::{devices_by_count, devices_by_list};
use super::handles::{self, Family};
use crate::backend::DeviceSet;
use crate::error::{Error, Result};
use crate::linestrength::check_threshold;
use crate::linestrength::{
    exomol,
    moments::TM_COMPONENTS,
    rotsym::RotsymBlockSpec,
    trove::{self, StatesTable},
    Action, BlockSpec, Convention, IntensityParams, LineCounts, LineFilters, LineStrength, Options, SymmetryGroup,
    Unfolding, MAX_DEGENERACY, MAX_J,
};
use crate::memory;
use std::ffi::{c_char, CStr};
use std::path::Path;
use std::sync::Mutex;

/// A line-strength handle: the dipole matrix, the blocks and their states, the last lower batch,
/// behind a lock (every call holds it while it runs).
#[allow(non_camel_case_types)]
pub struct atomgpu_linestrength {
    inner: Mutex<LineStrength>,
    /// The handle's devices, its own GPU first.
    devices: DeviceSet,
}

impl Family for atomgpu_linestrength {
    const NAME: &'static str = "line-strength handle (atomgpu_linestrength)";

    fn devices(&self) -> Option<&DeviceSet> {
        Some(&self.devices)
    }
}

/// Conditions and filters of a line list, in TROVE's INTENSITY-block meaning. With the documented
/// convention (`convention` 0), a line from lower state (E'') to upper state (E') is kept when
/// nu = E' - E'' > 0, nu lies in `freq_window`, E'' - zpe in `lower_energy`, E' - zpe in
/// `upper_energy`, S >= `thresh_line` and I >= `thresh_intens`. With TROVE's convention
/// (`convention` 1) the rules are TROVE's (dipole.f90 `intens_filter`, `dm_intensity_symmvec`):
/// nu >= -2.220446049250313e-16 (TROVE's small_) instead of nu > 0; THRESH_LINE compared with
/// the raw sum of the squared amplitudes, before the division by ndeg'' and before
/// g_ns (2J'+1)(2J''+1); lines with A <= small_ dropped (TROVE's .trans cut; counted with the
/// thresholds); pairs whose lower g_ns < small_ dropped; TROVE's J rule and degeneracy filter
/// (`atomgpu_line_filters`). Windows are closed intervals [min, max] (min <= max, infinite bounds
/// allowed).
///
/// Constants: convention 0 uses CODATA 2018 (h = 6.62607015e-27 erg s, k = 1.380649e-16 erg/K,
/// c = 2.99792458e10 cm/s, exact), convention 1 TROVE's accuracy.f90 values as TROVE holds them
/// (its literals are single precision: h = 6.626068758654977e-27, k = 1.3806580130218952e-16,
/// c = 29979246592); A_coef = 64 pi^4 1e-36/(3h) and I_coef = 8 pi^3 1e-36/(3hc) are computed
/// from them (TROVE mode: 3.136189321927909e-7 and 4.162379727631667e-19).
///
/// Emission (`action` 1; TROVE's EMISSION, for which TROVE itself writes no line list): the
/// lower block holds the emitting states I, the upper blocks the final states F, nu = E_I - E_F;
/// `lower_energy` applies to E_I - zpe, `upper_energy` to E_F - zpe; A = A_coef (2J_F+1) L nu^3
/// is A(I -> F), and the intensity is the emissivity (ExoCross, Yurchenko et al., A&A 614, A131
/// (2018)) A h c nu g_ns (2J_I+1) exp(-c2 (E_I - zpe)/T) / (4 pi Q) in erg s^-1 sr^-1 per
/// molecule, compared with `thresh_intens`. Transition moments (`action` 2) are computed by
/// `atomgpu_linestrength_transition_moments` only; the line-list functions refuse them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_intensity_params {
    /// Temperature T in K, finite and > 0.
    pub temperature: f64,
    /// Partition function Q(T) (TROVE's QSTAT), finite and > 0.
    pub partition_function: f64,
    /// Zero-point energy in cm^-1 (ZPE), finite.
    pub zpe: f64,
    /// Wavenumber window [min, max] of the lines in cm^-1 (freq-window).
    pub freq_window: [f64; 2],
    /// Window of the lower-state energy E'' - ZPE in cm^-1 (energy low).
    pub lower_energy: [f64; 2],
    /// Window of the upper-state energy E' - ZPE in cm^-1 (energy upper).
    pub upper_energy: [f64; 2],
    /// THRESH_COEFF (>= 0): lower primitive coefficients with |c| <= it, and 3j symbols smaller
    /// in magnitude (on the rotsym route: below small_ = 2.2e-16), are skipped.
    pub thresh_coeff: f64,
    /// THRESH_LINE (>= 0): smallest line strength S kept, Debye^2.
    pub thresh_line: f64,
    /// THRESH_INTES (>= 0): smallest intensity I kept, cm/molecule.
    pub thresh_intens: f64,
    /// Lower states per batch (the batch of eq. 14's products), >= 1.
    pub batch: i64,
    /// `ATOMGPU_CONVENTION_DOCUMENTED` (0: CODATA 2018, atomgpu's rules) or
    /// `ATOMGPU_CONVENTION_TROVE` (1: TROVE's constants and rules).
    pub convention: i32,
    /// `ATOMGPU_ACTION_ABSORPTION` (0), `ATOMGPU_ACTION_EMISSION` (1) or `ATOMGPU_ACTION_TM` (2,
    /// transition moments).
    pub action: i32,
}

/// `atomgpu_intensity_params.convention`: CODATA 2018 constants and atomgpu's documented rules.
pub const ATOMGPU_CONVENTION_DOCUMENTED: i32 = 0;
/// `atomgpu_intensity_params.convention`: TROVE's constants and rules.
pub const ATOMGPU_CONVENTION_TROVE: i32 = 1;
/// `atomgpu_intensity_params.action`: absorption lines.
pub const ATOMGPU_ACTION_ABSORPTION: i32 = 0;
/// `atomgpu_intensity_params.action`: emission lines (emissivities).
pub const ATOMGPU_ACTION_EMISSION: i32 = 1;
/// `atomgpu_intensity_params.action`: transition moments (`atomgpu_linestrength_transition_moments`).
pub const ATOMGPU_ACTION_TM: i32 = 2;

/// The fields of `atomgpu_intensity_params`, as the Rust checks name them.
const PARAMS_FIELDS: &[&str] = &[
    "temperature",
    "partition_function",
    "zpe",
    "freq_window",
    "lower_energy",
    "upper_energy",
    "thresh_coeff",
    "thresh_line",
    "thresh_intens",
    "batch",
    "convention",
    "action",
];

/// An error about a field of the params struct, reported at the argument `params`.
fn params_field(field: &str, rule: impl std::fmt::Display) -> Error {
    Error::invalid("params", format!("field `{field}` {rule}"))
}

/// Renames an error naming a field of the params struct to the argument `params` (the message
/// keeps the field's name).
fn to_params(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, index, rule } if PARAMS_FIELDS.contains(&name) => {
            let at = index.map(|i| format!("[{i}]")).unwrap_or_default();
            params_field(&format!("{name}{at}"), rule)
        }
        other => other,
    }
}

/// A block index argument: 0 <= `block` < the number of registered blocks.
fn block_index(name: &'static str, block: i32, n_blocks: usize) -> Result<usize> {
    match usize::try_from(block) {
        Ok(b) if b < n_blocks => Ok(b),
        _ => Err(Error::invalid(
            name,
            format!("must be a block index in [0, {n_blocks}) (blocks registered so far), got {block}"),
        )),
    }
}

/// Runs `body` on the handle's engine, holding its lock ([`handles::with_locked`]).
pub(super) fn with_handle<T>(
    handle: *const atomgpu_linestrength,
    body: impl FnOnce(&mut LineStrength) -> Result<T>,
) -> Result<T> {
    handles::with_locked("handle", handle, |h: &atomgpu_linestrength| &h.inner, body)
}

// ---------------------------------------------------------------------------------------------
// Handle.

/// Creates a line-strength handle on the current backend (`atomgpu_set_backend`,
/// `ATOMGPU_BACKEND`) from the vibrational (J = 0) dipole matrix.
///
/// - `n_vib` (>= 1): size of the vibrational basis.
/// - `dipole`: the dipole matrix `dipole(v, v', m)` in Debye (TROVE's `dipole_me`), lower
///   vibrational index v first, m = 0, 1, 2 the molecule-fixed components x, y, z: element
///   (v, v', m) at `dipole[v + ld_dipole * (v' + n_vib * m)]` (a column-major
///   `n_vib x 3 n_vib` matrix), finite.
/// - `ld_dipole` (>= `n_vib`): its leading dimension.
/// - `max_device_bytes` (>= 0): most device memory the dipole matrix may take on the GPU; 0 means
///   80% of the free memory. A larger matrix stays on the host and is streamed in blocks of v'
///   columns at every lower batch. Ignored on the CPU.
/// - `handle` (output): receives the new handle; destroy it with `atomgpu_linestrength_destroy`.
///
/// Fails with `ATOMGPU_ERR_NO_DEVICE` when CUDA is required but absent.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_create(
    n_vib: i64,
    dipole: *const f64,
    ld_dipole: i64,
    max_device_bytes: i64,
    handle: *mut *mut atomgpu_linestrength,
) -> i32 {
    guard(&["n_vib", "dipole", "ld_dipole", "max_device_bytes", "handle"], || {
        create(n_vib, dipole, ld_dipole, max_device_bytes, || devices_by_count("n_devices", 1), handle)
    })
}

/// As `atomgpu_linestrength_create`, with the line lists (`_line_list`, `_line_list_filtered`,
/// `_write_exomol`, `_write_trove`, the streamed batches) spread over several GPUs of the node:
///
/// - `n_devices` in [1, 64]: that many GPUs by the library's one rule (README "Several GPUs":
///   from `ATOMGPU_DEVICE`, else from GPU (node-local rank x n_devices) mod visible, on
///   consecutively, so the ranks of a node get disjoint sets; `atomgpu_resolve_devices` tells
///   which). Each holds a copy of the dipole matrix, the blocks and the states; a list's lower
///   states are cut into batches of at most `params.batch` states, a multiple of n_devices in
///   number and as even as possible (every GPU gets the same work), each GPU takes every n-th
///   batch, and the lines come back in the order one GPU gives, with its values but for the last
///   bits (other GEMM shapes). Every other call runs on the first GPU. More than the process sees
///   is `ATOMGPU_ERR_INVALID_ARGUMENT` at `n_devices`. On the CPU backend, n engines (each with
///   its own copy) run the batches on n threads.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_create_on_devices(
    n_vib: i64,
    dipole: *const f64,
    ld_dipole: i64,
    max_device_bytes: i64,
    n_devices: i32,
    handle: *mut *mut atomgpu_linestrength,
) -> i32 {
    guard(&["n_vib", "dipole", "ld_dipole", "max_device_bytes", "n_devices", "handle"], || {
        create(n_vib, dipole, ld_dipole, max_device_bytes, || devices_by_count("n_devices", n_devices), handle)
    })
}

/// As `atomgpu_linestrength_create_on_devices`, on the GPUs named in `device_ids[n_devices]`
/// (distinct ordinals in [0, visible), the first being the one every other call runs on), as
/// cuSOLVER-Mg takes them. On the CPU backend, n_devices CPU engines.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_create_on_device_list(
    n_vib: i64,
    dipole: *const f64,
    ld_dipole: i64,
    max_device_bytes: i64,
    n_devices: i32,
    device_ids: *const i32,
    handle: *mut *mut atomgpu_linestrength,
) -> i32 {
    guard(&["n_vib", "dipole", "ld_dipole", "max_device_bytes", "n_devices", "device_ids", "handle"], || {
        let devices = || devices_by_list("n_devices", n_devices, "device_ids", device_ids);
        create(n_vib, dipole, ld_dipole, max_device_bytes, devices, handle)
    })
}

/// The body of the create functions; `devices` resolves the device set once the other arguments
/// are checked.
unsafe fn create(
    n_vib: i64,
    dipole: *const f64,
    ld_dipole: i64,
    max_device_bytes: i64,
    devices: impl FnOnce() -> Result<DeviceSet>,
    handle: *mut *mut atomgpu_linestrength,
) -> Result<()> {
    let n = count("n_vib", n_vib)?;
    let cols = n
        .checked_mul(3)
        .filter(|&c| c <= MAX_ELEMENTS)
        .ok_or_else(|| Error::invalid("n_vib", format!("is too large ({n_vib})")))?;
    let need = Extent { rows: n, rows_are: "n_vib", cols, cols_are: "3 n_vib" };
    let m = matrix("ld_dipole", ld_dipole, Columns::Counted("n_vib"), need)?;
    let d = input("dipole", dipole, m.len)?;
    let max_bytes = u64::try_from(max_device_bytes)
        .map_err(|_| Error::invalid("max_device_bytes", format!("must be >= 0, got {max_device_bytes}")))?;
    let out = output("handle", handle)?;
    let devices = devices()?;
    let options = Options { max_device_bytes: max_bytes };
    let inner = LineStrength::new_on_devices(&devices, n, d, m.ld, options)?;
    *out = handles::register(atomgpu_linestrength { inner: Mutex::new(inner), devices })?;
    Ok(())
}

/// Destroys a handle and frees its host and device memory (when a call on another thread still
/// uses it, as that call returns). NULL is a no-op; a handle already destroyed, or one of another
/// family, is `ATOMGPU_ERR_INVALID_ARGUMENT` (nothing is freed twice).
///
/// # Safety
/// `handle` may be any value: it is looked up, never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_destroy(handle: *mut atomgpu_linestrength) -> i32 {
    guard(&["handle"], || handles::remove("handle", handle))
}

// ---------------------------------------------------------------------------------------------
// Blocks and states.

/// Registers a (J, Gamma) block: its primitive basis |v> |J, K, tau> and optionally the sparse
/// unfolding from the symmetrised basis. Blocks are numbered 0, 1, ... in registration order;
/// ExoMol IDs follow the same order.
///
/// - `handle`: the handle.
/// - `j` in [0, 32767]: rotational quantum number J of the block.
/// - `gns` (finite, >= 0): nuclear-spin statistical weight g_ns of the block's symmetry.
/// - `n_primitive` (>= 1): number of primitive functions.
/// - `v[n_primitive]`: vibrational index of each function, in [0, n_vib) (0-based).
/// - `k[n_primitive]`: K of each function, in [0, J].
/// - `tau[n_primitive]`: tau (Wang parity) of each function, 0 or 1, and J mod 2 when K = 0 (the
///   one Wang function with K = 0, TROVE's convention). No two functions may share (v, K, tau).
/// - `n_sym` (in [0, n_primitive]): 0 when eigenvectors are given in the primitive basis
///   (`row_start`, `col` and `value` are then ignored and may be NULL); otherwise the size of the
///   symmetrised basis, and the unfolding matrix T (`n_primitive x n_sym`, primitive coefficients
///   = T c) is given in CSR form:
/// - `row_start[n_primitive + 1]`: row p holds entries `row_start[p] .. row_start[p+1]-1`,
///   starting at 0, non-decreasing, at most n_sym entries per row;
/// - `col[row_start[n_primitive]]`: column of each entry, in [0, n_sym) (0-based);
/// - `value[row_start[n_primitive]]`: value of each entry, finite.
/// - `block` (output): the block's 0-based index.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    k: *const i32,
    tau: *const i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    block: *mut i32,
) -> i32 {
    guard(
        &["handle", "j", "gns", "n_primitive", "v", "k", "tau", "n_sym", "row_start", "col", "value", "block"],
        || {
            let species = Species { gamma: 0, ndeg: 1 };
            add_block(handle, j, species, gns, n_primitive, v, Route::Wang, k, tau, n_sym, row_start, col, value, block)
        },
    )
}

/// Registers a (J, Gamma) block of a symmetry species, degenerate or not, of the handle's group
/// (`atomgpu_linestrength_set_group`), as TROVE's `dm_intensity_symmvec` holds it: the arguments
/// of `atomgpu_linestrength_add_block`, and
///
/// - `gamma`: the block's species, 0-based in the group's order (TROVE's `igamma` - 1; C3v(M):
///   A1, A2, E; Td(M): A1, A2, E, F1, F2; D3h(M): A1', A2', E', A1'', A2'', E''; C2v(M): A1, A2,
///   B1, B2; Cs(M): A', A''; C1: A); without a group, any label >= 0 the caller numbers its
///   species by (the `gamma_pair` rule of `atomgpu_line_filters` then uses these labels);
/// - `ndeg` (in [1, 3]): the species' degeneracy (1, 2 for E, 3 for F), which must be the group's
///   when a group is set;
/// - the unfolding, required when `ndeg > 1` (`n_sym` >= 1): one matrix T_d per component d
///   (TROVE's `repres(:, ideg, :)`), stacked in one CSR matrix of `ndeg * n_primitive` rows:
///   row `d * n_primitive + p` is component d of primitive function p, so `row_start` has
///   `ndeg * n_primitive + 1` entries. A level's vector of n_sym coefficients c gives component
///   d's primitive coefficients T_d c.
///
/// The half-linestrengths of a batch of a degenerate lower block have one column per component
/// (`atomgpu_linestrength_half`), its amplitudes one per component pair
/// (`atomgpu_linestrength_amplitudes`), and line lists use L = sum over the component pairs of
/// a^2 / ndeg'' (TROVE's `linestr_deg` summed; see `atomgpu_line_filters` for REDUCED and the
/// degeneracy filter).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block_species(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    k: *const i32,
    tau: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    block: *mut i32,
) -> i32 {
    guard(
        &[
            "handle",
            "j",
            "gamma",
            "gns",
            "n_primitive",
            "v",
            "k",
            "tau",
            "ndeg",
            "n_sym",
            "row_start",
            "col",
            "value",
            "block",
        ],
        || {
            let species = Species::checked(gamma, ndeg, n_sym)?;
            add_block(handle, j, species, gns, n_primitive, v, Route::Wang, k, tau, n_sym, row_start, col, value, block)
        },
    )
}

/// Sets the symmetrised rotational basis of one J for TROVE's proper-rotational-symmetry route
/// (`job%rotsym_do`, the route TROVE needs for Td(M) spectra): what TROVE's
/// `MLrotsymmetry_generate(J, verbose, count_index, eigenvects, Ncount, Ntotal)` returns. Set it
/// for every J before adding that J's blocks with `atomgpu_linestrength_add_block_rotsym`.
///
/// - `handle`: the handle.
/// - `j` in [0, 32767]: the rotational quantum number.
/// - `e[(2J+1)^2]`: E_J [`eigenvects`], column-major: column c holds the coefficients of
///   symmetrised rotational function c on the 2J+1 Wang functions in TROVE's order (row 0: K = 0
///   with tau = J mod 2; row 2K-1+tau: K >= 1, tau = 0, 1). Finite and orthogonal:
///   |E^T E - 1| <= 1e-10 elementwise.
/// - `level_of_column[2J+1]`, `deg_of_column[2J+1]`: column c is component `deg_of_column[c]` of
///   rotational level `level_of_column[c]`, both 0-based (TROVE: `count_index(level+1, deg+1) =
///   c+1`). Each (level, deg) once; the levels used are 0..L-1, and each level's components are
///   0..ndeg-1 with ndeg <= 3 (its species' degeneracy).
///
/// The route's rotational factors are then W_m(level, deg; level', deg') = [E_J^T M_m E_J'](c, c')
/// [`wigner%rot`], with M_m the Wang-basis factors of the Wang route (TROVE's phases, 3j symbols,
/// 1/sqrt(2)) whose 3j symbols are cut at TROVE's small_ = 2.2e-16 instead of THRESH_COEFF, and
/// h(v', level', deg') = sum over lower functions (v, level, deg) with |c| > THRESH_COEFF of c
/// sum_m W_m dipole(v, v', m) (Debye) [`do_1st_half_linestrength_rotsym_symmvec`]. A J's basis can
/// be replaced only while no block of that J is registered.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_set_rotational_basis(
    handle: *mut atomgpu_linestrength,
    j: i32,
    e: *const f64,
    level_of_column: *const i32,
    deg_of_column: *const i32,
) -> i32 {
    guard(&["handle", "j", "e", "level_of_column", "deg_of_column"], || {
        let j = u32::try_from(j)
            .ok()
            .filter(|&j| j <= MAX_J)
            .ok_or_else(|| Error::invalid("j", format!("must be in [0, {MAX_J}], got {j}")))?;
        let n = 2 * j as usize + 1;
        let e = input("e", e, n * n)?;
        let level = input("level_of_column", level_of_column, n)?;
        let deg = input("deg_of_column", deg_of_column, n)?;
        with_handle(handle, |h| h.set_rotational_basis(j, e, level, deg))
    })
}

/// Registers a (J, Gamma) block of TROVE's rotsym route: as
/// `atomgpu_linestrength_add_block_species`, with the labels of J's symmetrised rotational basis
/// (`atomgpu_linestrength_set_rotational_basis`, which must come first) in place of (K, tau):
///
/// - `level[n_primitive]`: the rotational level of each function, in [0, L) of J's basis,
///   0-based (TROVE's `bset_contr(jind)%ktau` - 1 under rotsym_do);
/// - `deg[n_primitive]`: the component of that level, in [0, ndeg(level)) (TROVE's
///   `bset_contr(jind)%k` - 1 under rotsym_do).
///
/// No two functions may share (v, level, deg). A handle's blocks are all of this route or all
/// Wang blocks (TROVE's rotsym_do holds for every J): mixing them is `ATOMGPU_ERR_INVALID_ARGUMENT`
/// naming `handle`. Everything else (states, batches, half-linestrengths with one row per
/// primitive function, amplitudes, line lists, files) is as for Wang blocks.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block_rotsym(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    level: *const i32,
    deg: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    block: *mut i32,
) -> i32 {
    guard(
        &[
            "handle",
            "j",
            "gamma",
            "gns",
            "n_primitive",
            "v",
            "level",
            "deg",
            "ndeg",
            "n_sym",
            "row_start",
            "col",
            "value",
            "block",
        ],
        || {
            let species = Species::checked(gamma, ndeg, n_sym)?;
            add_block(
                handle,
                j,
                species,
                gns,
                n_primitive,
                v,
                Route::Rotsym,
                level,
                deg,
                n_sym,
                row_start,
                col,
                value,
                block,
            )
        },
    )
}

/// A block's symmetry species and its degeneracy.
pub(super) struct Species {
    gamma: u32,
    ndeg: usize,
}

impl Species {
    /// The species of `atomgpu_linestrength_add_block_species`'s arguments, checked.
    pub(super) fn checked(gamma: i32, ndeg: i32, n_sym: i64) -> Result<Self> {
        let gamma = u32::try_from(gamma).map_err(|_| Error::invalid("gamma", format!("must be >= 0, got {gamma}")))?;
        let ndeg = usize::try_from(ndeg)
            .ok()
            .filter(|d| (1..=MAX_DEGENERACY).contains(d))
            .ok_or_else(|| Error::invalid("ndeg", format!("must be in [1, {MAX_DEGENERACY}], got {ndeg}")))?;
        if ndeg > 1 && n_sym == 0 {
            return Err(Error::invalid(
                "n_sym",
                format!("must be >= 1: a block of {ndeg} components needs its unfolding (one T_d per component)"),
            ));
        }
        Ok(Species { gamma, ndeg })
    }

    /// Components of a level.
    pub(super) fn ndeg(&self) -> usize {
        self.ndeg
    }
}

/// Which rotational labels a block's two label arrays hold: (K, tau) of Wang functions, or
/// (level, deg) of the rotsym route's symmetrised rotational functions.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Route {
    Wang,
    Rotsym,
}

/// The body of the add_block functions: `first`, `second` are (k, tau) or (level, deg) by `route`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn add_block(
    handle: *mut atomgpu_linestrength,
    j: i32,
    species: Species,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    route: Route,
    first: *const i32,
    second: *const i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    block: *mut i32,
) -> Result<()> {
    let j = u32::try_from(j).map_err(|_| Error::invalid("j", format!("must be in [0, {MAX_J}], got {j}")))?;
    let n = count("n_primitive", n_primitive)?;
    if n >= MAX_ELEMENTS {
        return Err(Error::invalid("n_primitive", format!("is too large ({n_primitive})")));
    }
    let v = input("v", v, n)?;
    let names = if route == Route::Wang { ["k", "tau"] } else { ["level", "deg"] };
    let first = input(names[0], first, n)?;
    let second = input(names[1], second, n)?;
    let unfolding = match n_sym {
        0 => None,
        s if s < 0 => return Err(Error::invalid("n_sym", format!("must be >= 0, got {n_sym}"))),
        s => {
            let n_sym = count("n_sym", s)?;
            // row_start[ndeg n] sizes `col` and `value`; the rest of the CSR rules are checked by
            // the Rust API.
            let rows = species.ndeg * n;
            let starts = input("row_start", row_start, rows + 1)?;
            let nnz = usize::try_from(starts[rows])
                .ok()
                .filter(|&x| x <= MAX_ELEMENTS)
                .ok_or_else(|| Error::invalid_at("row_start", rows, format!("is too large ({})", starts[rows])))?;
            let col = input("col", col, nnz)?;
            let value = input("value", value, nnz)?;
            Some(Unfolding { ndeg: species.ndeg, n_sym, row_start: starts, col, value })
        }
    };
    let out = output("block", block)?;
    let gamma = species.gamma;
    with_handle(handle, |h| {
        if h.n_blocks() >= i32::MAX as usize {
            return Err(Error::invalid("handle", "holds the most blocks an int32_t index can name"));
        }
        *out = match route {
            Route::Wang => h.add_block(&BlockSpec { j, gamma, gns, v, k: first, tau: second, unfolding })?,
            Route::Rotsym => {
                h.add_rotsym_block(&RotsymBlockSpec { j, gamma, gns, v, level: first, deg: second, unfolding })?
            }
        } as i32;
        Ok(())
    })
}

/// Sets the molecule's symmetry group (TROVE's `sym%group`), before any block is added: then
/// every block's species (`atomgpu_linestrength_add_block_species`) must be one of the group's,
/// with its degeneracy, and the line filters can apply TROVE's degeneracy filter.
///
/// - `handle`: the handle, with no block yet.
/// - `group`: the group's name, NUL-terminated, as TROVE spells it (case and a trailing "(M)"
///   optional): "C1", "Cs(M)", "C2v(M)", "C3v(M)", "D3h(M)", "Td(M)".
///
/// # Safety
/// `group` must be NULL or a NUL-terminated string; `handle` may be any value (it is looked up in
/// the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_set_group(
    handle: *mut atomgpu_linestrength,
    group: *const c_char,
) -> i32 {
    guard(&["handle", "group"], || {
        let name = c_text("group", group)?;
        let group = SymmetryGroup::named(name)?;
        with_handle(handle, |h| h.set_group(group))
    })
}

/// A NUL-terminated UTF-8 string argument.
unsafe fn c_text<'a>(name: &'static str, text: *const c_char) -> Result<&'a str> {
    if text.is_null() {
        return Err(Error::invalid(name, "must not be NULL"));
    }
    CStr::from_ptr(text).to_str().map_err(|_| Error::invalid(name, "must be UTF-8 text"))
}

/// Stores the eigenstates of a block (replacing earlier ones): their energies and eigenvectors.
/// Changing the number of states of a block renumbers the ExoMol IDs of later blocks.
///
/// - `handle`: the handle.
/// - `block`: 0-based block index.
/// - `n_states` (>= 1): number of states.
/// - `energies[n_states]`: energies in cm^-1 (absolute: the ZPE is subtracted where the line list
///   needs it), finite.
/// - `vectors`: the eigenvectors as columns, `n_coefficients(block) x n_states` (symmetrised
///   coefficients when the block has an unfolding, primitive ones otherwise), column-major, finite.
/// - `ld_vectors` (>= n_coefficients(block)): the leading dimension of `vectors` (its columns are
///   the `n_states`).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_set_states(
    handle: *mut atomgpu_linestrength,
    block: i32,
    n_states: i64,
    energies: *const f64,
    vectors: *const f64,
    ld_vectors: i64,
) -> i32 {
    guard(&["handle", "block", "n_states", "energies", "vectors", "ld_vectors"], || {
        store_states(handle, block, n_states, energies, vectors, ld_vectors, false)
    })
}

/// As `atomgpu_linestrength_set_states`, with the vectors kept in host memory (a copy held by the
/// handle) instead of on the GPU: for blocks whose states do not fit beside the others. As the
/// lower block of a line list they go to the GPU one batch at a time, each batch's upload (through
/// two page-locked buffers, on a second stream) overlapped with the previous batch's products; as
/// an upper block they are uploaded whole for the line list that needs them. The numbers are those
/// of `set_states`. On the CPU backend it is `set_states`.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented at
/// `atomgpu_linestrength_set_states`; `handle` may be any value (it is looked up in the registry
/// of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_set_states_on_host(
    handle: *mut atomgpu_linestrength,
    block: i32,
    n_states: i64,
    energies: *const f64,
    vectors: *const f64,
    ld_vectors: i64,
) -> i32 {
    guard(&["handle", "block", "n_states", "energies", "vectors", "ld_vectors"], || {
        store_states(handle, block, n_states, energies, vectors, ld_vectors, true)
    })
}

/// The body of the two set_states functions.
unsafe fn store_states(
    handle: *mut atomgpu_linestrength,
    block: i32,
    n_states: i64,
    energies: *const f64,
    vectors: *const f64,
    ld_vectors: i64,
    on_host: bool,
) -> Result<()> {
    with_handle(handle, |h| {
        let v = block_vectors(h, block, ("n_states", n_states), vectors, ld_vectors)?;
        let e = input("energies", energies, v.n)?;
        if on_host {
            h.set_states_on_host(v.block, e, v.x, v.ld)
        } else {
            h.set_states(v.block, e, v.x, v.ld)
        }
    })
}

/// Vectors of a block as `set_states` and `load_lower` take them, checked.
struct BlockVectors<'a> {
    block: usize,
    /// The vectors' count (the columns).
    n: usize,
    x: &'a [f64],
    ld: usize,
}

/// The arguments `block`, the count (`n_states` or `n_lower`: its name and value), `vectors` and
/// `ld_vectors` of a block's vectors: `n` columns of n_coefficients(block) coefficients.
///
/// # Safety
/// `vectors` must be NULL or valid for the documented number of elements.
unsafe fn block_vectors<'a>(
    h: &LineStrength,
    block: i32,
    (count_name, n): (&'static str, i64),
    vectors: *const f64,
    ld_vectors: i64,
) -> Result<BlockVectors<'a>> {
    let b = block_index("block", block, h.n_blocks())?;
    let n = count(count_name, n)?;
    let need =
        Extent { rows: h.n_coefficients(b)?, rows_are: "n_coefficients of the block", cols: n, cols_are: count_name };
    let m = matrix("ld_vectors", ld_vectors, Columns::Counted(count_name), need)?;
    Ok(BlockVectors { block: b, n, x: input("vectors", vectors, m.len)?, ld: m.ld })
}

/// Gives the stored states of a block the caller's IDs and order keys: the IDs are what the
/// `.states`/`.trans` files (ExoMol's and TROVE's) and every `atomgpu_line` carry (TROVE:
/// `ilevel + nsize_base(gamma)`), the order keys sort TROVE's `.trans` file (lines by the lower
/// state's key, then the upper state's; TROVE: the level's position in its energy-sorted list).
/// Without labels a state's ID is its running number (`atomgpu_linestrength_state_id`) and its
/// key the same number. The next `set_states` of the block drops them.
///
/// - `handle`: the handle.
/// - `block`: 0-based block index (its states stored).
/// - `n_states`: the number of stored states of the block.
/// - `ids[n_states]`: state IDs, each >= 1, distinct within the block.
/// - `order[n_states]`: order keys (any integers).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_set_state_labels(
    handle: *mut atomgpu_linestrength,
    block: i32,
    n_states: i64,
    ids: *const i64,
    order: *const i64,
) -> i32 {
    guard(&["handle", "block", "n_states", "ids", "order"], || {
        with_handle(handle, |h| {
            let b = block_index("block", block, h.n_blocks())?;
            let stored = h.n_states(b)?;
            let n = count("n_states", n_states)?;
            if n != stored {
                return Err(Error::invalid(
                    "n_states",
                    format!("must be the number of states stored for block {b} ({stored}), got {n}"),
                ));
            }
            h.set_state_labels(b, input("ids", ids, n)?, input("order", order, n)?)
        })
    })
}

/// Loads a batch of lower states of a block and computes their dipole products (the first
/// product of eq. 14, Y = [dipole_x dipole_y dipole_z]^T X), which `atomgpu_linestrength_half`
/// and `atomgpu_linestrength_amplitudes` then contract into any upper block with
/// |J' - J''| <= 1 and J' + J'' >= 1. The batch stays loaded until the next load_lower or
/// line_list call.
///
/// - `handle`: the handle.
/// - `block`: 0-based index of the lower block.
/// - `n_lower` (>= 1): number of lower states in the batch.
/// - `vectors`: their eigenvectors, `n_coefficients(block) x n_lower`, column-major, finite.
/// - `ld_vectors` (>= n_coefficients(block)): the leading dimension of `vectors` (its columns are
///   the `n_lower`).
/// - `thresh_coeff` (finite, >= 0): primitive coefficients with |c| <= it are skipped (TROVE's
///   THRESH_COEFF; 0 keeps all but exact zeros).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_load_lower(
    handle: *mut atomgpu_linestrength,
    block: i32,
    n_lower: i64,
    vectors: *const f64,
    ld_vectors: i64,
    thresh_coeff: f64,
) -> i32 {
    guard(&["handle", "block", "n_lower", "vectors", "ld_vectors", "thresh_coeff"], || {
        with_handle(handle, |h| {
            let v = block_vectors(h, block, ("n_lower", n_lower), vectors, ld_vectors)?;
            check_threshold("thresh_coeff", thresh_coeff)?;
            h.load_lower(v.block, v.n, v.x, v.ld, thresh_coeff)
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Half-linestrengths and amplitudes of the loaded batch.

/// Half-linestrengths (paper eq. 14) of the loaded lower batch into an upper block:
/// h_(v',K',tau')(i) = sum_(v,K,tau) c^i_(v,K,tau) f(J'',K,tau; J',K',tau') dipole(v, v', m) in
/// Debye, with f TROVE's rotational factor (phases, 3j symbol (J'' 1 J'; K, K'-K, -K') and
/// Wang-function factors) and m the dipole component it selects.
///
/// - `handle`: the handle, with a batch loaded by `atomgpu_linestrength_load_lower`.
/// - `upper_block`: 0-based index of the upper block, |J' - J''| <= 1 and J' + J'' >= 1.
/// - `thresh_coeff` (finite, >= 0): 3j symbols smaller in magnitude are skipped (TROVE; on the rotsym
///   route, `atomgpu_linestrength_add_block_rotsym`, they are cut at small_ = 2.2e-16 instead).
/// - `half` (output): `n_primitive(upper_block) x (ndeg'' n_lower)`, column-major: row p is the
///   upper block's primitive function p, column `d + ndeg'' i` component d of the batch's state i
///   (ndeg'' the lower block's degeneracy, `atomgpu_linestrength_block_ndeg`; 1: column i).
/// - `ld_half` (>= n_primitive(upper_block)): the leading dimension of `half`.
/// - `cols_half` (>= ndeg'' n_lower): the columns `half` holds; those beyond ndeg'' n_lower, and
///   the padding rows, are not written.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_half(
    handle: *mut atomgpu_linestrength,
    upper_block: i32,
    thresh_coeff: f64,
    half: *mut f64,
    ld_half: i64,
    cols_half: i64,
) -> i32 {
    guard(&["handle", "upper_block", "thresh_coeff", "half", "ld_half", "cols_half"], || {
        with_handle(handle, |h| {
            let u = block_index("upper_block", upper_block, h.n_blocks())?;
            check_threshold("thresh_coeff", thresh_coeff)?;
            let out = output("half", half)?;
            let (lower, n) = h.loaded_batch()?;
            let need = Extent {
                rows: h.n_primitive(u)?,
                rows_are: "n_primitive of the upper block",
                cols: n * h.ndeg(lower)?,
                cols_are: "ndeg'' n_lower of the loaded batch",
            };
            let m = matrix("ld_half", ld_half, Columns::Given("cols_half", cols_half), need)?;
            // The Rust routine copies into `out` only once the whole result is there: untouched on error.
            let out = std::slice::from_raw_parts_mut(out, m.len);
            h.half_linestrength(u, thresh_coeff, out, m.ld)
        })
    })
}

/// Transition amplitudes (paper eq. 15 before squaring) a(f, i) = sum_p c^f_p h_p(i), in Debye,
/// of every stored state f of an upper block with every state i of the loaded lower batch. Their
/// squares are L = a^2 (Debye^2), from which S = g_ns (2J'+1)(2J''+1) L and
/// A = A_coef (2J''+1) L nu^3 s^-1 follow. For degenerate species, one amplitude per pair of
/// components, a(f, d'; i, d'') = (T_d' c^f) . h(T_d'' c^i) (TROVE's `linestr_deg(d'', d')`), and
/// L = sum of their squares / ndeg''.
///
/// - `handle`: the handle, with a batch loaded by `atomgpu_linestrength_load_lower`.
/// - `upper_block`: 0-based index of the upper block (with stored states), |J' - J''| <= 1 and
///   J' + J'' >= 1.
/// - `thresh_coeff` (finite, >= 0): 3j symbols smaller in magnitude are skipped (TROVE; on the rotsym
///   route at small_ = 2.2e-16 instead).
/// - `amplitudes` (output): `n_states(upper_block) x (ndeg'' n_lower ndeg')`, column-major,
///   column `d'' + ndeg'' (i + n_lower d')` (ndeg'' and ndeg' the degeneracies of the lower and
///   upper blocks; for non-degenerate blocks `n_states(upper_block) x n_lower`).
/// - `ld_amplitudes` (>= n_states(upper_block)): the leading dimension of `amplitudes`.
/// - `cols_amplitudes` (>= ndeg'' n_lower ndeg'): the columns `amplitudes` holds; those beyond,
///   and the padding rows, are not written.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_amplitudes(
    handle: *mut atomgpu_linestrength,
    upper_block: i32,
    thresh_coeff: f64,
    amplitudes: *mut f64,
    ld_amplitudes: i64,
    cols_amplitudes: i64,
) -> i32 {
    guard(&["handle", "upper_block", "thresh_coeff", "amplitudes", "ld_amplitudes", "cols_amplitudes"], || {
        with_handle(handle, |h| {
            let u = block_index("upper_block", upper_block, h.n_blocks())?;
            check_threshold("thresh_coeff", thresh_coeff)?;
            let out = output("amplitudes", amplitudes)?;
            let rows = h.n_states(u)?;
            if rows == 0 {
                // Reported before the shape of `amplitudes`, whose rows this block cannot give.
                return Err(Error::invalid("upper_block", format!("block {u} has no states (set_states first)")));
            }
            let (lower, n_lower) = h.loaded_batch()?;
            let n = n_lower * h.ndeg(lower)? * h.ndeg(u)?;
            let need = Extent {
                rows,
                rows_are: "n_states of the upper block",
                cols: n,
                cols_are: "ndeg'' n_lower ndeg' of the loaded batch and the upper block",
            };
            let Matrix { ld, len } =
                matrix("ld_amplitudes", ld_amplitudes, Columns::Given("cols_amplitudes", cols_amplitudes), need)?;
            let a = h.amplitudes(u, thresh_coeff)?;
            if a.len() != rows * n {
                return Err(Error::Internal(format!("amplitudes: {} values for {rows} x {n}", a.len())));
            }
            let out = std::slice::from_raw_parts_mut(out, len);
            for i in 0..n {
                out[i * ld..i * ld + rows].copy_from_slice(&a[i * rows..(i + 1) * rows]);
            }
            Ok(())
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Line list.

/// The line list from the stored states of a lower block into the stored states of a set of upper
/// blocks, with TROVE's filters and thresholds (`params`). For each kept line:
///
/// ```text
///   nu = E' - E''                                                            cm^-1 (> 0)
///   S  = g_ns (2J'+1)(2J''+1) a^2                                            Debye^2
///   A  = A_coef (2J''+1) a^2 nu^3                                            s^-1 (eq. 1)
///   I  = I_coef S nu exp(-c2 (E''-ZPE)/T) (1 - exp(-c2 nu/T)) / Q           cm/molecule (eq. 2)
/// ```
/// with a the amplitude of eq. 15, g_ns the lower block's weight, c2 = hc/k (CODATA 2010 as in
/// TROVE). Lines come ordered by lower state, then by position of the upper block in
/// `upper_blocks`, then by upper state. The call works in batches of `params->batch` lower states
/// and replaces the batch loaded by `atomgpu_linestrength_load_lower` (also when it is then
/// refused for `lines->capacity`; a call refused by any other check keeps it).
///
/// - `handle`: the handle.
/// - `lower_block`: 0-based index of the lower block (with stored states).
/// - `n_upper_blocks` (>= 1): number of upper blocks.
/// - `upper_blocks[n_upper_blocks]`: 0-based indices of the upper blocks (with stored states),
///   each with |J' - J''| <= 1 and J' + J'' >= 1.
/// - `params`: temperature, partition function, filters and thresholds (every field checked).
/// - `lines` (`atomgpu_line_arrays`): the output arrays, `lines->capacity` entries each: the
///   upper and lower ExoMol IDs (1-based), A (s^-1), nu (cm^-1), S (Debye^2) and I (cm/molecule)
///   of line e at index e; or NULL for a count query.
/// - `n_lines` (output): number of lines.
///
/// Count query: with `lines` NULL only `*n_lines` is written; the whole list is computed to count
/// it. Otherwise every array of `lines` must be non-NULL and `capacity` >= 0; when the count
/// exceeds `capacity` the call fails with `ATOMGPU_ERR_INVALID_ARGUMENT` at `lines` (the message
/// names its field `capacity` and gives the count needed) and writes nothing.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_line_list(
    handle: *mut atomgpu_linestrength,
    lower_block: i32,
    n_upper_blocks: i32,
    upper_blocks: *const i32,
    params: *const atomgpu_intensity_params,
    lines: *const atomgpu_line_arrays,
    n_lines: *mut i64,
) -> i32 {
    guard(&["handle", "lower_block", "n_upper_blocks", "upper_blocks", "params", "lines", "n_lines"], || {
        let list = ListRequest { lower_block, n_upper_blocks, upper_blocks, params, filters: std::ptr::null() };
        line_list(handle, list, lines, n_lines, std::ptr::null_mut())
    })
}

/// The output arrays of a line list (`atomgpu_linestrength_line_list`, `_line_list_filtered`):
/// line e at index e of each, `capacity` entries each. An error about a field is reported at the
/// argument `lines`, the message naming the field.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_line_arrays {
    /// Entries each array holds (>= 0; a list longer than it is refused, nothing written).
    pub capacity: i64,
    /// ExoMol ID (1-based) of the upper state.
    pub upper_id: *mut i64,
    /// ExoMol ID (1-based) of the lower state.
    pub lower_id: *mut i64,
    /// Einstein A in s^-1.
    pub einstein_a: *mut f64,
    /// Wavenumber nu in cm^-1.
    pub wavenumber: *mut f64,
    /// Line strength S in Debye^2.
    pub linestrength: *mut f64,
    /// Intensity I in cm/molecule (emission: the emissivity, erg s^-1 sr^-1 per molecule).
    pub intensity: *mut f64,
}

/// The output arrays of `atomgpu_linestrength_transition_moments`: moment e at index e of each,
/// `capacity` entries each (`components`: 27 per moment). An error about a field is reported at
/// the argument `moments`, the message naming the field.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_moment_arrays {
    /// Moments each array holds (>= 0; more moments than it are refused, nothing written).
    pub capacity: i64,
    /// ExoMol ID (1-based) of the final state F.
    pub upper_id: *mut i64,
    /// ExoMol ID (1-based) of the initial state I.
    pub lower_id: *mut i64,
    /// nu = E_F - E_I in cm^-1.
    pub wavenumber: *mut f64,
    /// |TM| in Debye.
    pub moment: *mut f64,
    /// A_vib in s^-1.
    pub einstein_a: *mut f64,
    /// I in cm/molecule.
    pub intensity: *mut f64,
    /// tm(m, d_I, d_F) in Debye, 27 `capacity` entries: moment e's at `27 e + m + 3 (d_I + 3 d_F)`,
    /// m = 0, 1, 2 for x, y, z; zero where d_I or d_F is beyond the level's components.
    pub components: *mut f64,
}

/// The fields of the output-array structs (`atomgpu_line_arrays`, `atomgpu_moment_arrays`), as
/// the checks name them.
const ARRAY_FIELDS: &[&str] = &[
    "capacity",
    "upper_id",
    "lower_id",
    "einstein_a",
    "wavenumber",
    "linestrength",
    "intensity",
    "moment",
    "components",
];

/// The rule of an output-array struct (a capacity and parallel arrays), checked once for every
/// such struct: `capacity` >= 0 and every array (`(field, pointer is NULL)`) non-NULL. Errors name
/// the field; the caller reports them at its struct argument ([`at_field`] with [`ARRAY_FIELDS`]).
fn array_capacity(capacity: i64, arrays: &[(&'static str, bool)]) -> Result<usize> {
    let capacity =
        usize::try_from(capacity).map_err(|_| Error::invalid("capacity", format!("must be >= 0, got {capacity}")))?;
    match arrays.iter().find(|(_, null)| *null) {
        Some((field, _)) => Err(Error::invalid(field, "must not be NULL")),
        None => Ok(capacity),
    }
}

/// `n` results (`what`: lines, moments) fit in `capacity` entries, else an error naming the field
/// `capacity` with the count needed.
fn within_capacity(what: &str, n: usize, capacity: usize) -> Result<()> {
    if n > capacity {
        return Err(Error::invalid("capacity", format!("must be >= the number of {what}, {n}, got {capacity}")));
    }
    Ok(())
}

impl atomgpu_line_arrays {
    /// The arrays of a C pointer, checked ([`array_capacity`]); `None` for NULL (a count query).
    ///
    /// # Safety
    /// `lines` must be NULL or point to an `atomgpu_line_arrays`.
    unsafe fn checked(lines: *const Self) -> Result<Option<(Self, usize)>> {
        let Some(l) = lines.as_ref() else { return Ok(None) };
        let arrays = [
            ("upper_id", l.upper_id.is_null()),
            ("lower_id", l.lower_id.is_null()),
            ("einstein_a", l.einstein_a.is_null()),
            ("wavenumber", l.wavenumber.is_null()),
            ("linestrength", l.linestrength.is_null()),
            ("intensity", l.intensity.is_null()),
        ];
        let capacity = array_capacity(l.capacity, &arrays).map_err(|e| at_field(e, "lines", ARRAY_FIELDS))?;
        Ok(Some((*l, capacity)))
    }
}

impl atomgpu_moment_arrays {
    /// The arrays of a C pointer, checked ([`array_capacity`]); `None` for NULL (a count query).
    ///
    /// # Safety
    /// `moments` must be NULL or point to an `atomgpu_moment_arrays`.
    unsafe fn checked(moments: *const Self) -> Result<Option<(Self, usize)>> {
        let Some(m) = moments.as_ref() else { return Ok(None) };
        let arrays = [
            ("upper_id", m.upper_id.is_null()),
            ("lower_id", m.lower_id.is_null()),
            ("wavenumber", m.wavenumber.is_null()),
            ("moment", m.moment.is_null()),
            ("einstein_a", m.einstein_a.is_null()),
            ("intensity", m.intensity.is_null()),
            ("components", m.components.is_null()),
        ];
        let capacity = array_capacity(m.capacity, &arrays).map_err(|e| at_field(e, "moments", ARRAY_FIELDS))?;
        Ok(Some((*m, capacity)))
    }
}

/// TROVE's line-list rules beyond the windows and thresholds of `atomgpu_intensity_params`
/// (`atomgpu_linestrength_line_list_filtered`, `atomgpu_linestrength_write_exomol`); a NULL
/// pointer to it means no rule: every J, every species pair, the full sum over the component
/// pairs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_line_filters {
    /// J range [j_min, j_max] (TROVE's `J` of the INTENSITY block), 0 <= j_min <= j_max. Documented
    /// convention: a line is kept only when J'' and J' both lie in it. TROVE convention, TROVE's
    /// rule: J'' >= j_min, J' in {0} U [max(j_min, 1), j_max] (the J TROVE loads), and not
    /// J'' = J' = j_min.
    pub j_min: i32,
    pub j_max: i32,
    /// TROVE's REDUCED (0 or 1): only the upper component d' = 0 is summed, and L is not divided
    /// by ndeg'' (equal to the full L for a complete degenerate pair).
    pub reduced: i32,
    /// TROVE's `degeneracy_filter` (0 or 1): component pairs the group's rules forbid are dropped
    /// from the sum (needs `atomgpu_linestrength_set_group`). Documented convention only: with the
    /// TROVE convention the filter is applied exactly when `reduced` is 1 (TROVE's rule), and this
    /// field is not used.
    pub degeneracy_filter: i32,
    /// 0: every species pair allowed; otherwise (at most 16) one entry per species the blocks
    /// use, `gamma_pair[gamma'']` (0-based) being the one upper species each lower species
    /// reaches (TROVE's `isym_pairs`, the dipole selection rules).
    pub n_gamma_pair: i32,
    pub gamma_pair: [i32; 16],
}

/// The fields of `atomgpu_line_filters`, as the Rust checks name them.
const FILTER_FIELDS: &[&str] = &["j_range", "reduced", "degeneracy_filter", "gamma_pair"];

/// The Rust filters of a C pointer (NULL: none), errors naming the argument `filters`.
unsafe fn line_filters(filters: *const atomgpu_line_filters) -> Result<LineFilters> {
    let Some(f) = filters.as_ref() else { return Ok(LineFilters::default()) };
    let field = |name: &str, rule: String| Error::invalid("filters", format!("field `{name}` {rule}"));
    let flag = |name: &str, x: i32| match x {
        0 | 1 => Ok(x == 1),
        _ => Err(field(name, format!("must be 0 or 1, got {x}"))),
    };
    let j = |name: &str, x: i32| {
        u32::try_from(x)
            .ok()
            .filter(|&x| x <= MAX_J)
            .ok_or_else(|| field(name, format!("must be in [0, {MAX_J}], got {x}")))
    };
    let n_pairs = usize::try_from(f.n_gamma_pair)
        .ok()
        .filter(|&n| n <= f.gamma_pair.len())
        .ok_or_else(|| field("n_gamma_pair", format!("must be in [0, 16], got {}", f.n_gamma_pair)))?;
    let gamma_pair = match n_pairs {
        0 => None,
        n => Some(
            f.gamma_pair[..n]
                .iter()
                .enumerate()
                .map(|(i, &g)| {
                    u32::try_from(g).map_err(|_| field(&format!("gamma_pair[{i}]"), format!("must be >= 0, got {g}")))
                })
                .collect::<Result<Vec<u32>>>()?,
        ),
    };
    Ok(LineFilters {
        j_range: [j("j_min", f.j_min)?, j("j_max", f.j_max)?],
        reduced: flag("reduced", f.reduced)?,
        degeneracy_filter: flag("degeneracy_filter", f.degeneracy_filter)?,
        gamma_pair,
    })
}

/// Renames an error naming a field of the filters struct to the argument `filters`.
fn to_filters(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, index, rule } if FILTER_FIELDS.contains(&name) => {
            let at = index.map(|i| format!("[{i}]")).unwrap_or_default();
            Error::invalid("filters", format!("field `{name}{at}` {rule}"))
        }
        other => other,
    }
}

/// As `atomgpu_linestrength_line_list`, judged also by TROVE's further rules (`filters`: J range,
/// species pairs, REDUCED, degeneracy filter; NULL: none), with the count of the pairs judged:
///
/// - `filters`: the rules, or NULL;
/// - `counts` (output, 5 entries, may be NULL): pairs of (lower, upper) states judged, dropped by
///   the J range and species rules (whole block pairs, nothing computed), dropped by the energy
///   and frequency windows, dropped by THRESH_LINE / THRESH_INTES, kept; the four parts sum to
///   the pairs judged. Written with the lines (and on a count query, `lines` NULL; never on a
///   failure).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_line_list_filtered(
    handle: *mut atomgpu_linestrength,
    lower_block: i32,
    n_upper_blocks: i32,
    upper_blocks: *const i32,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    lines: *const atomgpu_line_arrays,
    n_lines: *mut i64,
    counts: *mut i64,
) -> i32 {
    guard(
        &["handle", "lower_block", "n_upper_blocks", "upper_blocks", "params", "filters", "lines", "n_lines", "counts"],
        || {
            let list = ListRequest { lower_block, n_upper_blocks, upper_blocks, params, filters };
            line_list(handle, list, lines, n_lines, counts)
        },
    )
}

/// What a line list is asked for (the C arguments).
struct ListRequest {
    lower_block: i32,
    n_upper_blocks: i32,
    upper_blocks: *const i32,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
}

/// The Rust params of a C pointer, errors naming the argument `params`.
unsafe fn intensity_params(params: *const atomgpu_intensity_params) -> Result<IntensityParams> {
    let p = params.as_ref().ok_or_else(|| Error::invalid("params", "must not be NULL"))?;
    let batch = usize::try_from(p.batch)
        .ok()
        .filter(|&b| b >= 1)
        .ok_or_else(|| params_field("batch", format!("must be >= 1, got {}", p.batch)))?;
    let convention = match p.convention {
        0 => Convention::Documented,
        1 => Convention::Trove,
        c => return Err(params_field("convention", format!("must be 0 (documented) or 1 (TROVE), got {c}"))),
    };
    let action = match p.action {
        0 => Action::Absorption,
        1 => Action::Emission,
        2 => Action::Tm,
        a => return Err(params_field("action", format!("must be 0 (absorption), 1 (emission) or 2 (TM), got {a}"))),
    };
    Ok(IntensityParams {
        temperature: p.temperature,
        partition_function: p.partition_function,
        zpe: p.zpe,
        freq_window: p.freq_window,
        lower_energy: p.lower_energy,
        upper_energy: p.upper_energy,
        thresh_coeff: p.thresh_coeff,
        thresh_line: p.thresh_line,
        thresh_intens: p.thresh_intens,
        batch,
        convention,
        action,
    })
}

/// The upper block indices of a C list (`n` entries at `blocks`), each checked.
unsafe fn upper_block_list(n: i32, blocks: *const i32, n_blocks: usize) -> Result<Vec<usize>> {
    let nu = count("n_upper_blocks", n as i64)?;
    let blocks = input("upper_blocks", blocks, nu)?;
    let mut uppers = memory::with_capacity("upper_blocks", nu)?;
    for (i, &b) in blocks.iter().enumerate() {
        let u = usize::try_from(b).ok().filter(|&u| u < n_blocks).ok_or_else(|| {
            Error::invalid_at("upper_blocks", i, format!("must be a block index in [0, {n_blocks}), got {b}"))
        })?;
        uppers.push(u);
    }
    Ok(uppers)
}

/// The five counts of `atomgpu_linestrength_line_list_filtered`'s `counts`, in order.
fn counts_array(c: &LineCounts) -> [i64; 5] {
    [c.pairs, c.dropped_by_rules, c.dropped_by_windows, c.dropped_by_thresholds, c.kept].map(|x| x as i64)
}

/// The body of the two line-list functions (`lines` NULL: a count query; `counts` NULL: not
/// asked for).
unsafe fn line_list(
    handle: *mut atomgpu_linestrength,
    list: ListRequest,
    lines: *const atomgpu_line_arrays,
    n_lines: *mut i64,
    counts: *mut i64,
) -> Result<()> {
    with_handle(handle, |h| {
        let lower = block_index("lower_block", list.lower_block, h.n_blocks())?;
        let uppers = upper_block_list(list.n_upper_blocks, list.upper_blocks, h.n_blocks())?;
        let rust_params = intensity_params(list.params)?;
        let filters = line_filters(list.filters)?;
        let arrays = atomgpu_line_arrays::checked(lines)?;
        let n_out = output("n_lines", n_lines)?;
        let listed =
            h.line_list_filtered(lower, &uppers, &rust_params, &filters).map_err(to_params).map_err(to_filters)?;
        let found = &listed.lines;
        if let Some((out, capacity)) = arrays {
            within_capacity("lines", found.len(), capacity).map_err(|e| at_field(e, "lines", ARRAY_FIELDS))?;
            // Straight into the caller's arrays (checked to hold them): no copy of the list.
            for (e, l) in found.iter().enumerate() {
                *out.upper_id.add(e) = l.upper_id;
                *out.lower_id.add(e) = l.lower_id;
                *out.einstein_a.add(e) = l.einstein_a;
                *out.wavenumber.add(e) = l.wavenumber;
                *out.linestrength.add(e) = l.linestrength;
                *out.intensity.add(e) = l.intensity;
            }
        }
        *n_out = found.len() as i64;
        if !counts.is_null() {
            write_output(counts, &counts_array(&listed.counts));
        }
        Ok(())
    })
}

/// The whole line list of the handle written as ExoMol files `<stem>.states` and `<stem>.trans`:
/// every block with states as the lower block, in registration order, into every block with
/// states that J' = J'' or J'' +- 1 reaches, judged by `params` and `filters` (as
/// `atomgpu_linestrength_line_list_filtered` judges) where the amplitudes are, the lines written
/// batch by batch as they are judged (the list is never held in memory). `.states`:
/// `ID  E-ZPE  g_tot  J  block  state` (g_tot = g_ns (2J+1), E in cm^-1); `.trans`:
/// `upper_ID  lower_ID  A  nu` (A in s^-1, nu in cm^-1), TROVE's formats.
///
/// The pair changes together or not at all: both files are written to temporaries in the
/// target folder (`<stem>.states.<pid>-<n>.partial`, `<stem>.trans.<pid>-<n>.partial`) and
/// synced, and only when everything succeeded are they renamed into place, `.states` first
/// (an existing `.states` keeps a second name, `<stem>.states.<pid>-<n>.previous`, until both
/// renames are done, and is put back if the `.trans` rename fails). Any failure before that (an
/// argument, the progress callback or the time limit: `ATOMGPU_ERR_CANCELLED`; a full disk or
/// other file error: `ATOMGPU_ERR_IO`) removes the temporaries and leaves an existing pair
/// untouched, byte for byte. The one window POSIX leaves: a process killed (or a machine
/// stopped) between the two renames leaves the new `.states` beside the old `.trans`, the old
/// `.states` kept as `<stem>.states.<pid>-<n>.previous` (rename it back to restore the old pair);
/// a killed run may also leave `*.partial` temporaries, which can be deleted. Progress: lower
/// states done of all stored states, task "atomgpu_linestrength_write_exomol", after each batch
/// and once more when both temporaries are synced.
///
/// - `handle`: the handle.
/// - `stem`: the path of the files without extension, NUL-terminated (its folder must exist).
/// - `params`: temperature, partition function, windows, thresholds, batch.
/// - `filters`: TROVE's further rules, or NULL for none.
/// - `counts` (output, 5 entries, may be NULL): as `atomgpu_linestrength_line_list_filtered`'s,
///   over the whole list.
///
/// A file that cannot be written is `ATOMGPU_ERR_IO` (the message names it and the system's
/// reason).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_write_exomol(
    handle: *mut atomgpu_linestrength,
    stem: *const c_char,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    counts: *mut i64,
) -> i32 {
    guard(&["handle", "stem", "params", "filters", "counts"], || {
        let stem = file_stem(stem)?;
        run_list_call(handle, params, filters, counts, |h, p, f| exomol::write_line_list(h, stem, p, f))
    })
}

/// `stem` of a file writer: a NUL-terminated path, not empty.
unsafe fn file_stem<'a>(stem: *const c_char) -> Result<&'a Path> {
    let stem = c_text("stem", stem)?;
    if stem.is_empty() {
        return Err(Error::invalid("stem", "must not be empty"));
    }
    Ok(Path::new(stem))
}

/// The rest of a line-list call (the file writers, the streamed batches): `params` and `filters`
/// converted, `write` run on the handle (its errors naming a parameter or a filter field as the
/// C struct's), its counts written to `counts` (may be NULL) when it succeeds.
pub(super) unsafe fn run_list_call(
    handle: *mut atomgpu_linestrength,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    counts: *mut i64,
    write: impl FnOnce(&mut LineStrength, &IntensityParams, &LineFilters) -> Result<LineCounts>,
) -> Result<()> {
    let rust_params = intensity_params(params)?;
    let filters = line_filters(filters)?;
    with_handle(handle, |h| {
        let written = write(h, &rust_params, &filters).map_err(to_params).map_err(to_filters)?;
        if !counts.is_null() {
            write_output(counts, &counts_array(&written));
        }
        Ok(())
    })
}

/// Writes the whole line list of the stored states as TROVE's own `<stem>.states` and
/// `<stem>.trans` (TROVE's ExoMol-format files; TROVE names them `<linelist>_<J1>_<J2>`), digit
/// for digit as TROVE's intensity step writes them:
/// - `.trans`: `(i12,1x,i12,1x,1x,es16.8,1x,f16.6)`: upper ID, lower ID, A (s^-1), nu (cm^-1);
///   lines sorted by the lower state's order key, then the upper's
///   (`atomgpu_linestrength_set_state_labels`);
/// - `.states`: one line per entry of the table below, `(i12,1x,f12.6,1x,i6,1x,i7,` + the
///   caller's text: ID, E - ZPE (cm^-1), g_total, J, then `columns` (TROVE: from the
///   symmetry label on, as tran.f90 `read_eigenval` formats them).
///
/// Use `params->convention` = 1 (TROVE) for TROVE's rules, thresholds and constants. The pair
/// changes together or not at all, as with `atomgpu_linestrength_write_exomol` (same failure
/// modes: every failure removes the temporaries and leaves an existing pair byte for byte;
/// progress task `atomgpu_linestrength_write_trove`). The lines of the list are sorted in memory
/// (about 100 bytes per kept line).
///
/// - `handle`: the handle.
/// - `stem`: NUL-terminated path without the suffixes, not empty.
/// - `n_states` (>= 0): entries of the `.states` table.
/// - `ids[n_states]` (>= 1), `energies[n_states]` (absolute, cm^-1, finite), `g_total[n_states]`
///   (total degeneracy, >= 0; TROVE: `int(gns(gamma)) (2J+1)`), `j[n_states]` (in [0, 32767]).
/// - `columns`: `n_states` fields of `column_width` bytes each (state i's at
///   `columns + i column_width`), the text after J, printable ASCII; trailing blanks and NULs of a
///   field are not written (a Fortran `character(len=column_width)` array passes as it is).
///   NULL allowed when `column_width` is 0.
/// - `column_width` (>= 0).
/// - `params`, `filters`: as for `atomgpu_linestrength_write_exomol`.
/// - `counts` (output, may be NULL): 5 counts as `atomgpu_linestrength_line_list_filtered`'s.
///
/// A file that cannot be written is `ATOMGPU_ERR_IO`.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_write_trove(
    handle: *mut atomgpu_linestrength,
    stem: *const c_char,
    n_states: i64,
    ids: *const i64,
    energies: *const f64,
    g_total: *const i64,
    j: *const i32,
    columns: *const c_char,
    column_width: i64,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    counts: *mut i64,
) -> i32 {
    guard(
        &[
            "handle",
            "stem",
            "n_states",
            "ids",
            "energies",
            "g_total",
            "j",
            "columns",
            "column_width",
            "params",
            "filters",
            "counts",
        ],
        || {
            let stem = file_stem(stem)?;
            let n = usize::try_from(n_states)
                .ok()
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| Error::invalid("n_states", format!("must be in [0, {MAX_ELEMENTS}], got {n_states}")))?;
            let width = usize::try_from(column_width)
                .map_err(|_| Error::invalid("column_width", format!("must be >= 0, got {column_width}")))?;
            let ids = input("ids", ids, n)?;
            let energies = input("energies", energies, n)?;
            let g_total = input("g_total", g_total, n)?;
            let j_in = input("j", j, n)?;
            let mut j_values = memory::with_capacity("the J values", n)?;
            for (i, &x) in j_in.iter().enumerate() {
                let x = u32::try_from(x)
                    .map_err(|_| Error::invalid_at("j", i, format!("must be in [0, {MAX_J}], got {x}")))?;
                j_values.push(x);
            }
            let text: &[u8] = if width == 0 || n == 0 {
                &[]
            } else {
                let len = n
                    .checked_mul(width)
                    .ok_or_else(|| Error::invalid("column_width", "n_states x column_width overflows"))?;
                input("columns", columns.cast::<u8>(), len)?
            };
            let mut fields = memory::with_capacity("the state columns", n)?;
            for i in 0..n {
                let raw = if width == 0 { &[][..] } else { &text[i * width..(i + 1) * width] };
                let end = raw.iter().rposition(|&c| c != b' ' && c != 0).map_or(0, |p| p + 1);
                let field = std::str::from_utf8(&raw[..end])
                    .map_err(|_| Error::invalid_at("columns", i, "must be printable ASCII on one line"))?;
                fields.push(field);
            }
            let table = StatesTable { ids, energies, g_total, j: &j_values, columns: &fields };
            run_list_call(handle, params, filters, counts, |h, p, f| trove::write_line_list(h, stem, &table, p, f))
        },
    )
}

/// Transition moments between J = 0 states, TROVE's TM action (dipole.f90
/// `do_1st_half_tm_symmvec` and the TM branch of `dm_intensity_symmvec`): for every stored level
/// I of the J = 0 block `lower_block` and every stored level F of the J = 0 blocks
/// `upper_blocks`, with u^I_(d_I), u^F_(d_F) the primitive coefficients of their components,
///
/// ```text
///   tm(m, d_I, d_F) = sum_q u^F_(d_F)(q) sum_p u^I_(d_I)(p) dipole(v_p, v_q, m)       Debye
///   |TM| = sqrt(sum tm^2),  A_vib = A_coef |TM|^2 |nu|^3 (s^-1),
///   I = |TM|^2 I_coef |nu| exp(-c2 (E_I - zpe)/T) (1 - exp(-c2 |nu|/T)) / Q (cm/molecule)
/// ```
/// with nu = E_F - E_I. As TROVE: every species pair, no nuclear-spin or (2J+1) factor, no
/// THRESH_COEFF or THRESH_LINE; kept when E_I - zpe is in `lower_energy`, E_F - zpe in
/// `upper_energy`, nu in `freq_window`, nu >= -2.220446049250313e-16 (the diagonal pairs, the
/// permanent moments, included) and |TM| >= `thresh_intens` (TROVE compares the moment, in
/// Debye, with THRESH_INTES). The convention picks the constants. Order: by lower state, then
/// upper block (its position in `upper_blocks`), then upper state.
///
/// - `handle`: the handle.
/// - `lower_block`: 0-based index of a J = 0 block with states.
/// - `n_upper_blocks` (>= 0), `upper_blocks`: 0-based indices of J = 0 blocks with states.
/// - `params`: `action` must be 2 (TM); temperature, partition function, windows, `thresh_intens`,
///   `batch` and `convention` are used.
/// - `moments` (`atomgpu_moment_arrays`): the output arrays, `moments->capacity` entries each
///   (`components` 27 per moment): the ExoMol IDs of F and I, nu (cm^-1), |TM| (Debye), A_vib
///   (s^-1), I (cm/molecule) and the components tm(m, d_I, d_F) (Debye) of moment e; or NULL for
///   a count query.
/// - `n_moments` (output): the number of moments kept.
/// - `counts` (output, 5 entries, may be NULL): as `atomgpu_linestrength_line_list_filtered`'s
///   (no pair is dropped by rules).
///
/// Count query: with `moments` NULL only `*n_moments` (and `counts`) is written; the moments are
/// computed to count them. Otherwise every array of `moments` must be non-NULL and `capacity` >=
/// 0; when the count exceeds `capacity` the call fails with `ATOMGPU_ERR_INVALID_ARGUMENT` at
/// `moments` (the message names its field `capacity` and gives the count needed) and writes
/// nothing. Progress: lower states done, task "atomgpu_linestrength_transition_moments".
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_transition_moments(
    handle: *mut atomgpu_linestrength,
    lower_block: i32,
    n_upper_blocks: i32,
    upper_blocks: *const i32,
    params: *const atomgpu_intensity_params,
    moments: *const atomgpu_moment_arrays,
    n_moments: *mut i64,
    counts: *mut i64,
) -> i32 {
    guard(
        &["handle", "lower_block", "n_upper_blocks", "upper_blocks", "params", "moments", "n_moments", "counts"],
        || {
            with_handle(handle, |h| {
                let lower = block_index("lower_block", lower_block, h.n_blocks())?;
                let uppers = upper_block_list(n_upper_blocks, upper_blocks, h.n_blocks())?;
                let rust_params = intensity_params(params)?;
                let arrays = atomgpu_moment_arrays::checked(moments)?;
                let n_out = output("n_moments", n_moments)?;
                let list = h.transition_moments(lower, &uppers, &rust_params).map_err(to_params)?;
                if let Some((out, capacity)) = arrays {
                    within_capacity("moments", list.moments.len(), capacity)
                        .map_err(|e| at_field(e, "moments", ARRAY_FIELDS))?;
                    for (e, t) in list.moments.iter().enumerate() {
                        *out.upper_id.add(e) = t.upper_id;
                        *out.lower_id.add(e) = t.lower_id;
                        *out.wavenumber.add(e) = t.wavenumber;
                        *out.moment.add(e) = t.moment;
                        *out.einstein_a.add(e) = t.einstein_a;
                        *out.intensity.add(e) = t.intensity;
                        let c = out.components.add(TM_COMPONENTS * e);
                        std::ptr::copy_nonoverlapping(t.components.as_ptr(), c, TM_COMPONENTS);
                    }
                }
                *n_out = list.moments.len() as i64;
                if !counts.is_null() {
                    write_output(counts, &counts_array(&list.counts));
                }
                Ok(())
            })
        },
    )
}

// ---------------------------------------------------------------------------------------------
// Queries.

/// ExoMol ID of a stored state: 1 + the number of states stored in earlier blocks + `state`
/// (the running 1-based number of the `.states` file, blocks in registration order).
///
/// - `handle`: the handle.
/// - `block`: 0-based block index.
/// - `state`: 0-based state index in [0, n_states(block)).
/// - `id` (output): the ID.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_state_id(
    handle: *const atomgpu_linestrength,
    block: i32,
    state: i64,
    id: *mut i64,
) -> i32 {
    guard(&["handle", "block", "state", "id"], || {
        with_handle(handle, |h| {
            let b = block_index("block", block, h.n_blocks())?;
            let stored = h.n_states(b)?;
            let s = usize::try_from(state).ok().filter(|&s| s < stored).ok_or_else(|| {
                Error::invalid(
                    "state",
                    format!("must be in [0, {stored}) (the states stored for block {b}), got {state}"),
                )
            })?;
            let out = output("id", id)?;
            *out = h.state_id(b, s);
            Ok(())
        })
    })
}

/// Sizes of a block: `n_primitive` (primitive functions), `n_coefficients` (length of an
/// eigenvector: n_sym with an unfolding, n_primitive without) and `n_states` (states stored, 0
/// before `atomgpu_linestrength_set_states`).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_block_size(
    handle: *const atomgpu_linestrength,
    block: i32,
    n_primitive: *mut i64,
    n_coefficients: *mut i64,
    n_states: *mut i64,
) -> i32 {
    guard(&["handle", "block", "n_primitive", "n_coefficients", "n_states"], || {
        with_handle(handle, |h| {
            let b = block_index("block", block, h.n_blocks())?;
            let (p_out, c_out, s_out) = (
                output("n_primitive", n_primitive)?,
                output("n_coefficients", n_coefficients)?,
                output("n_states", n_states)?,
            );
            let sizes = [h.n_primitive(b)?, h.n_coefficients(b)?, h.n_states(b)?];
            *p_out = sizes[0] as i64;
            *c_out = sizes[1] as i64;
            *s_out = sizes[2] as i64;
            Ok(())
        })
    })
}

/// The degeneracy of a block's species (its number of components: 1, 2 for E, 3 for F), as
/// given to `atomgpu_linestrength_add_block_species` (1 for `atomgpu_linestrength_add_block`):
/// the factor in the column counts of `_half` and `_amplitudes`.
///
/// # Safety
/// `ndeg` must be NULL or a valid pointer; `handle` may be any value (it is looked up in the
/// registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_block_ndeg(
    handle: *const atomgpu_linestrength,
    block: i32,
    ndeg: *mut i32,
) -> i32 {
    guard(&["handle", "block", "ndeg"], || {
        with_handle(handle, |h| {
            let b = block_index("block", block, h.n_blocks())?;
            let out = output("ndeg", ndeg)?;
            *out = h.ndeg(b)? as i32;
            Ok(())
        })
    })
}

/// The lower batch loaded by `atomgpu_linestrength_load_lower`: its 0-based block and number of
/// states, or `-1` and `0` when none is loaded (none yet, or `atomgpu_linestrength_line_list` has
/// replaced it). Lets a caller size the outputs of `_half` and `_amplitudes`.
///
/// # Safety
/// `block` and `n_lower` must be NULL or valid pointers; `handle` may be any value (it is looked
/// up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_loaded_batch(
    handle: *const atomgpu_linestrength,
    block: *mut i32,
    n_lower: *mut i64,
) -> i32 {
    guard(&["handle", "block", "n_lower"], || {
        with_handle(handle, |h| {
            let block_out = output("block", block)?;
            let n_out = output("n_lower", n_lower)?;
            let (b, n) = h.loaded_batch().map_or((-1, 0), |(b, n)| (b as i32, n as i64));
            *block_out = b;
            *n_out = n;
            Ok(())
        })
    })
}
