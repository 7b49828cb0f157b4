//! Status codes, the panic guard every entry point runs in, argument checks, the thread-local
//! last error, and the library-wide functions (version, backend choice, device information).

use crate::backend::{self, threads, BackendChoice};
use crate::error::{Error, Result};
pub use crate::error::{
    ATOMGPU_ERR_CANCELLED, ATOMGPU_ERR_CUDA, ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY, ATOMGPU_ERR_INTERNAL,
    ATOMGPU_ERR_INVALID_ARGUMENT, ATOMGPU_ERR_IO, ATOMGPU_ERR_NOT_CONVERGED, ATOMGPU_ERR_NOT_FINITE,
    ATOMGPU_ERR_NO_DEVICE, ATOMGPU_ERR_OUT_OF_MEMORY, ATOMGPU_OK,
};
use crate::progress;
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Backend choice for `atomgpu_set_backend`: CUDA when available, else the CPU.
pub const ATOMGPU_BACKEND_AUTO: i32 = 0;
/// Backend choice: always the CPU reference.
pub const ATOMGPU_BACKEND_CPU: i32 = 1;
/// Backend choice: always CUDA (calls fail with `ATOMGPU_ERR_NO_DEVICE` without a device).
pub const ATOMGPU_BACKEND_CUDA: i32 = 2;

/// Library version (semantic versioning); the ABI is stable within a major version.
pub const ATOMGPU_VERSION_MAJOR: i32 = 0;
pub const ATOMGPU_VERSION_MINOR: i32 = 8;
pub const ATOMGPU_VERSION_PATCH: i32 = 0;
/// Version of the C ABI; the Fortran module checks it on first use.
pub const ATOMGPU_ABI_VERSION: i32 = 8;

thread_local! {
    static LAST_ERROR: RefCell<(String, i32)> = const { RefCell::new((String::new(), 0)) };
    /// Entry points running on this thread (a callback may call back into the library).
    static CALL_DEPTH: Cell<u32> = const { Cell::new(0) };
}

fn set_last_error(message: String, position: i32) {
    LAST_ERROR.with(|e| *e.borrow_mut() = (message, position));
}

static QUIET_PANICS: std::sync::Once = std::sync::Once::new();

/// Makes panics inside atomgpu silent: a panic is a bug that [`guard`] turns into
/// `ATOMGPU_ERR_INTERNAL` with its message for `atomgpu_last_error_message`, and the host's
/// stderr is not atomgpu's to write on (unless `ATOMGPU_LOG` asks). Panics elsewhere in the
/// process go to the hook that was there before. To tell its own worker threads apart, atomgpu
/// starts rayon's global pool itself with its workers marked (`backend::threads`; when the host
/// has built it first, panics on its workers keep the host's hook).
fn install_quiet_panic_hook() {
    QUIET_PANICS.call_once(|| {
        threads::start_pool();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = CALL_DEPTH.with(Cell::get) > 0 || threads::is_library_worker();
            if !ours {
                previous(info);
            } else if backend::log_enabled() {
                eprintln!("atomgpu: internal error (a panic, caught and returned as ATOMGPU_ERR_INTERNAL): {info}");
            }
        }));
    });
}

/// Runs the body of an entry point: clears the last error, catches any panic
/// (`ATOMGPU_ERR_INTERNAL`, printed nowhere), and turns an [`Error`] into its status, message and
/// argument position. `arguments` names the C function's parameters in order, so that an
/// [`Error::InvalidArgument`] naming one of them reports its 1-based position.
///
/// In a child forked after atomgpu started its threads, the body runs on the child's own pool
/// (`backend::threads::run`), so that the call works there as in the parent.
pub fn guard<F: FnOnce() -> Result<()>>(arguments: &[&str], body: F) -> i32 {
    guarded(arguments, || threads::run(body).and_then(|r| r))
}

/// [`guard`] for the entry points that set the calling thread's own state (its progress callback
/// and time limit): the body always runs on the calling thread.
pub fn guard_here<F: FnOnce() -> Result<()>>(arguments: &[&str], body: F) -> i32 {
    guarded(arguments, body)
}

fn guarded<F: FnOnce() -> Result<()>>(arguments: &[&str], body: F) -> i32 {
    install_quiet_panic_hook();
    set_last_error(String::new(), 0);
    CALL_DEPTH.with(|d| d.set(d.get() + 1));
    let outcome = catch_unwind(AssertUnwindSafe(body));
    CALL_DEPTH.with(|d| d.set(d.get() - 1));
    let outcome = outcome.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Error::Internal(format!("panic inside atomgpu: {what}")))
    });
    match outcome {
        Ok(()) => ATOMGPU_OK,
        Err(e) => {
            let e = match (e, backend::cuda_forked_message()) {
                (Error::Cuda(what), Some(why)) => Error::Cuda(format!("{what} ({why})")),
                (e, _) => e,
            };
            let position = match &e {
                Error::InvalidArgument { name, .. } => {
                    arguments.iter().position(|a| a == name).map(|i| i as i32 + 1).unwrap_or(0)
                }
                _ => 0,
            };
            set_last_error(e.to_string(), position);
            e.status()
        }
    }
}

/// An [`Error::InvalidArgument`] about a field of a struct argument, as the checks name it (one
/// of `fields`), reported at the struct argument `parameter` (its position) with the field and
/// element in the message: "argument `desc`: field `charges`[2] must be >= 0, got -1". Any other
/// error passes unchanged.
pub fn at_field(e: Error, parameter: &'static str, fields: &[&str]) -> Error {
    match e {
        Error::InvalidArgument { name, index, rule } if fields.contains(&name) => {
            let at = index.map(|i| format!("[{i}]")).unwrap_or_default();
            Error::invalid(parameter, format!("field `{name}`{at} {rule}"))
        }
        other => other,
    }
}

/// Runs an infallible entry point, returning `fallback` if it panics.
pub fn guard_value<T, F: FnOnce() -> T>(fallback: T, body: F) -> T {
    install_quiet_panic_hook();
    CALL_DEPTH.with(|d| d.set(d.get() + 1));
    let outcome = catch_unwind(AssertUnwindSafe(body));
    CALL_DEPTH.with(|d| d.set(d.get() - 1));
    outcome.unwrap_or(fallback)
}

/// A count argument (`n_*`): at least 1, and small enough that an array of that many 8-byte values
/// fits in an address space; returned as `usize`.
pub fn count(name: &'static str, n: i64) -> Result<usize> {
    if n < 1 {
        return Err(Error::invalid(name, format!("must be >= 1, got {n}")));
    }
    match usize::try_from(n) {
        Ok(n) if crate::memory::bytes_of::<f64>(n) <= isize::MAX as u128 => Ok(n),
        _ => {
            Err(Error::invalid(name, format!("is too large ({n}: arrays of that many values exceed an address space)")))
        }
    }
}

/// Borrows a caller array of `len` elements; rejects NULL.
///
/// # Safety
/// `ptr` must be NULL or point to `len` readable elements.
pub unsafe fn input<'a, T>(name: &'static str, ptr: *const T, len: usize) -> Result<&'a [T]> {
    if ptr.is_null() {
        return Err(Error::invalid(name, "must not be NULL"));
    }
    if crate::memory::bytes_of::<T>(len) > isize::MAX as u128 {
        return Err(Error::invalid(name, format!("cannot hold {len} elements (more bytes than an address space)")));
    }
    Ok(std::slice::from_raw_parts(ptr, len))
}

/// Checks a caller output array pointer (NULL rejected) before any work; [`write_output`] fills
/// it once the call has succeeded.
pub fn output<T>(name: &'static str, ptr: *mut T) -> Result<*mut T> {
    if ptr.is_null() {
        Err(Error::invalid(name, "must not be NULL"))
    } else {
        Ok(ptr)
    }
}

/// Copies a finished result into a caller array checked by [`output`].
///
/// # Safety
/// `ptr` must point to `values.len()` writable elements.
pub unsafe fn write_output<T: Copy>(ptr: *mut T, values: &[T]) {
    std::ptr::copy_nonoverlapping(values.as_ptr(), ptr, values.len());
}

/// Copies `text` into a caller buffer of `capacity` bytes, truncated and NUL-terminated.
unsafe fn copy_string(text: &str, buffer: *mut c_char, capacity: usize) {
    if buffer.is_null() || capacity == 0 {
        return;
    }
    let n = text.len().min(capacity - 1);
    std::ptr::copy_nonoverlapping(text.as_ptr() as *const c_char, buffer, n);
    *buffer.add(n) = 0;
}

/// Static description of a status code (never NULL).
#[no_mangle]
pub extern "C" fn atomgpu_status_string(status: i32) -> *const c_char {
    guard_value(c"internal error".as_ptr(), || {
        match status {
            ATOMGPU_OK => c"success",
            ATOMGPU_ERR_INVALID_ARGUMENT => c"invalid argument",
            ATOMGPU_ERR_NO_DEVICE => c"no CUDA device",
            ATOMGPU_ERR_OUT_OF_MEMORY => c"out of memory",
            ATOMGPU_ERR_CUDA => c"CUDA error",
            ATOMGPU_ERR_NOT_CONVERGED => c"not converged",
            ATOMGPU_ERR_INTERNAL => c"internal error",
            ATOMGPU_ERR_NOT_FINITE => c"result not finite",
            ATOMGPU_ERR_CANCELLED => c"cancelled",
            ATOMGPU_ERR_IO => c"file error",
            _ => c"unknown status code",
        }
        .as_ptr()
    })
}

/// Copies the calling thread's last error sentence (naming the argument and the rule it broke)
/// into `buffer` (`capacity` bytes, NUL-terminated, truncated if needed) and returns the
/// sentence's full length in bytes (0 when the last call succeeded).
///
/// # Safety
/// `buffer` must be NULL (then nothing is copied) or writable for `capacity` bytes.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_last_error_message(buffer: *mut c_char, capacity: usize) -> i64 {
    guard_value(0, || {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            copy_string(&e.0, buffer, capacity);
            e.0.len() as i64
        })
    })
}

/// 1-based position of the argument that made the calling thread's last call fail with
/// `ATOMGPU_ERR_INVALID_ARGUMENT` (as LAPACK's `INFO = -i`); 0 otherwise.
#[no_mangle]
pub extern "C" fn atomgpu_last_error_arg() -> i32 {
    guard_value(0, || LAST_ERROR.with(|e| e.borrow().1))
}

/// Writes the library version.
///
/// # Safety
/// `major`, `minor` and `patch` must each be writable (NULL is refused with
/// `ATOMGPU_ERR_INVALID_ARGUMENT`).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_version(major: *mut i32, minor: *mut i32, patch: *mut i32) -> i32 {
    guard(&["major", "minor", "patch"], || {
        let (a, b, c) = (output("major", major)?, output("minor", minor)?, output("patch", patch)?);
        *a = ATOMGPU_VERSION_MAJOR;
        *b = ATOMGPU_VERSION_MINOR;
        *c = ATOMGPU_VERSION_PATCH;
        Ok(())
    })
}

/// The version as a static string, e.g. "0.3.0".
#[no_mangle]
pub extern "C" fn atomgpu_version_string() -> *const c_char {
    guard_value(c"".as_ptr(), || {
        const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
        VERSION.as_ptr() as *const c_char
    })
}

/// The C ABI version (`ATOMGPU_ABI_VERSION` of the library actually loaded).
#[no_mangle]
pub extern "C" fn atomgpu_abi_version() -> i32 {
    guard_value(ATOMGPU_ABI_VERSION, || ATOMGPU_ABI_VERSION)
}

/// Chooses the backend for the rest of the process (`ATOMGPU_BACKEND_AUTO`, `_CPU` or `_CUDA`),
/// overriding the `ATOMGPU_BACKEND` environment variable.
#[no_mangle]
pub extern "C" fn atomgpu_set_backend(backend: i32) -> i32 {
    guard(&["backend"], || {
        let choice = match backend {
            ATOMGPU_BACKEND_AUTO => BackendChoice::Auto,
            ATOMGPU_BACKEND_CPU => BackendChoice::Cpu,
            ATOMGPU_BACKEND_CUDA => BackendChoice::Cuda,
            _ => {
                return Err(Error::invalid("backend", format!("must be 0 (auto), 1 (cpu) or 2 (cuda), got {backend}")))
            }
        };
        backend::set_backend(choice);
        Ok(())
    })
}

/// Describes the backend calls will run on now: `backend` = `ATOMGPU_BACKEND_CPU` or `_CUDA`,
/// the device name copied into `name` (`name_capacity` bytes, >= 1, NUL-terminated), device
/// memory in bytes (0 on the CPU) and compute capability (0.0 on the CPU). Every output may be
/// NULL: NULL means "not wanted" (`name_capacity` is then not read). Fails with
/// `ATOMGPU_ERR_NO_DEVICE` when CUDA is required but absent.
///
/// # Safety
/// Output pointers must be NULL or writable; `name` must hold `name_capacity` bytes.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_device_info(
    backend: *mut i32,
    name: *mut c_char,
    name_capacity: i64,
    total_memory_bytes: *mut i64,
    free_memory_bytes: *mut i64,
    cc_major: *mut i32,
    cc_minor: *mut i32,
) -> i32 {
    guard(
        &["backend", "name", "name_capacity", "total_memory_bytes", "free_memory_bytes", "cc_major", "cc_minor"],
        || {
            let capacity = if name.is_null() { 0 } else { count("name_capacity", name_capacity)? };
            let info = backend::device_info()?;
            let code = if info.backend == "cuda" { ATOMGPU_BACKEND_CUDA } else { ATOMGPU_BACKEND_CPU };
            write_optional(backend, code);
            copy_string(&info.name, name, capacity);
            write_optional(total_memory_bytes, info.total_memory_bytes as i64);
            write_optional(free_memory_bytes, info.free_memory_bytes as i64);
            write_optional(cc_major, info.compute_capability.0);
            write_optional(cc_minor, info.compute_capability.1);
            Ok(())
        },
    )
}

/// Writes `value` to an output the caller may have left NULL ("not wanted").
///
/// # Safety
/// `ptr` must be NULL or writable.
unsafe fn write_optional<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        *ptr = value;
    }
}

/// A progress callback (`atomgpu_set_progress`): `stop = callback(user_data, task, done, total)`;
/// nonzero stops the running call. NULL: none.
#[allow(non_camel_case_types)]
pub type atomgpu_progress_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, task: *const c_char, done: f64, total: f64) -> i32>;

/// Sets the calling thread's progress callback for long calls (CR runs, line lists and ExoMol
/// files, Sturmian Hamiltonians, SCF supermatrices, runs and basis optimisations, TDSE steps and
/// relaxations), or removes it when `callback` is NULL. During such a call, made from this
/// thread, the library calls `callback(user_data, task, done, total)` from this thread (in a
/// forked child: from the thread that runs the call) at most every `interval_s` seconds of wall
/// clock (finite, >= 0; 0 = at every step), and once at the end: `task` is the function's name (a
/// static string), `done` of `total` its progress in the units the function documents (steps,
/// simulated seconds, lower states, blocks, SCF cycles). A nonzero return stops the call, which
/// then fails with `ATOMGPU_ERR_CANCELLED` and writes none of its outputs (TDSE `step` and
/// `relax` keep the state of their last completed step, as they document). The callback may call
/// atomgpu functions; one on the line-strength handle of the running call fails with
/// `ATOMGPU_ERR_INVALID_ARGUMENT` (that handle is locked by the call), and destroying the handle
/// of the running call frees it when the call returns.
///
/// # Safety
/// `callback` must be NULL or a function of the documented signature; `user_data` is passed to it
/// unchanged and never dereferenced by the library.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_set_progress(
    callback: atomgpu_progress_callback,
    user_data: *mut c_void,
    interval_s: f64,
) -> i32 {
    guard_here(&["callback", "user_data", "interval_s"], || progress::set_callback(callback, user_data, interval_s))
}

/// Sets the calling thread's time limit for each long call (those of `atomgpu_set_progress`): the
/// most seconds of wall clock one call may run (finite, >= 0; 0 = no limit, the default). A call
/// that runs past it stops with `ATOMGPU_ERR_CANCELLED` and writes none of its outputs (TDSE
/// `step` and `relax`: see there). The limit is
/// checked between steps (on a GPU, between launches of at most 64 RK4 steps), so a call stops
/// within one step of it; the first call on a GPU also compiles its kernels (a few seconds, once
/// per process), which no limit interrupts.
#[no_mangle]
pub extern "C" fn atomgpu_set_time_limit(seconds: f64) -> i32 {
    guard_here(&["seconds"], || progress::set_time_limit(seconds))
}

/// Largest number of doubles (or 64-bit integers) an array argument may describe.
pub const MAX_ELEMENTS: usize = isize::MAX as usize / 8;

/// A leading dimension argument (`ld_<matrix>`): >= `rows` (and >= 1); `what` says what the
/// rows count, for the message.
pub fn leading_dimension(name: &'static str, ld: i64, rows: usize, what: &str) -> Result<usize> {
    match usize::try_from(ld) {
        Ok(l) if l >= rows.max(1) && l <= MAX_ELEMENTS => Ok(l),
        Ok(l) if l > MAX_ELEMENTS => Err(Error::invalid(name, format!("is too large ({ld})"))),
        _ => Err(Error::invalid(name, format!("must be >= the row count {rows} ({what}), got {ld}"))),
    }
}

/// Where the column count of a matrix argument comes from.
#[derive(Clone, Copy, Debug)]
pub enum Columns {
    /// The caller's `cols_<matrix>` argument (its name and value): the columns its array holds,
    /// at least the columns the call reads or writes; the columns beyond are neither read nor
    /// written (as LAPACK lets a larger array pass).
    Given(&'static str, i64),
    /// A count argument of the call (its name, already checked by [`count`]) gives the columns:
    /// an input matrix of that many vectors, which needs no `cols_<matrix>` of its own.
    Counted(&'static str),
}

/// The part of a matrix argument a call reads or writes: `rows` x `cols`, with what each counts
/// (for the messages, e.g. "n_primitive of the upper block").
#[derive(Clone, Copy, Debug)]
pub struct Extent<'a> {
    pub rows: usize,
    pub rows_are: &'a str,
    pub cols: usize,
    pub cols_are: &'a str,
}

/// A checked column-major matrix argument.
#[derive(Clone, Copy, Debug)]
pub struct Matrix {
    /// The leading dimension.
    pub ld: usize,
    /// Elements from the first to the last one the call reads or writes: ld (cols - 1) + rows of
    /// the needed extent (0 when it has no column).
    pub len: usize,
}

/// Checks a column-major matrix argument of the C ABI, `(pointer, ld_<matrix>, cols_<matrix>)`,
/// once, for every family: the leading dimension `ld` (named `ld_name`) must be >= the rows the
/// call needs (and >= 1), the column count (`cols`) >= the columns it needs, and the array the
/// two describe, ld (cols - 1) + rows elements, no larger than an address space. A refusal names
/// the argument, the rule and both numbers. The pointer itself is checked where it is read or
/// written ([`input`], [`output`]), for [`Matrix::len`] elements.
pub fn matrix(ld_name: &'static str, ld: i64, cols: Columns, need: Extent<'_>) -> Result<Matrix> {
    let ld = leading_dimension(ld_name, ld, need.rows, need.rows_are)?;
    let (cols_name, held) = match cols {
        Columns::Given(name, value) => match usize::try_from(value) {
            Ok(c) if c >= need.cols => (name, c),
            _ => {
                return Err(Error::invalid(
                    name,
                    format!("must be >= the column count {} ({}), got {value}", need.cols, need.cols_are),
                ))
            }
        },
        Columns::Counted(name) => (name, need.cols),
    };
    let span = |cols: usize| match cols {
        0 => Some(0),
        c => ld.checked_mul(c - 1).and_then(|x| x.checked_add(need.rows)).filter(|&n| n <= MAX_ELEMENTS),
    };
    if span(held).is_none() {
        return Err(Error::invalid(
            cols_name,
            format!("is too large ({held} columns of leading dimension {ld} exceed an address space)"),
        ));
    }
    Ok(Matrix { ld, len: span(need.cols).unwrap_or(0) })
}

/// The length argument (`len_<array>`) of a one-dimensional output whose needed length the
/// handle knows: at least the `needed` elements the call writes (`what` says what they count);
/// the elements beyond are not written.
pub fn length(name: &'static str, len: i64, needed: usize, what: &str) -> Result<usize> {
    match usize::try_from(len) {
        Ok(l) if l >= needed && l <= MAX_ELEMENTS => Ok(l),
        Ok(l) if l > MAX_ELEMENTS => Err(Error::invalid(name, format!("is too large ({len})"))),
        _ => Err(Error::invalid(name, format!("must be >= the element count {needed} ({what}), got {len}"))),
    }
}
