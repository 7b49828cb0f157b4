//! Errors of the Rust API and the C status codes they map to.
//!
//! Every fallible routine returns [`Result`]. At the C boundary an [`Error`] becomes an `int32_t`
//! status (`ATOMGPU_ERR_*`, defined here so that `src/ffi` depends on this module and never the
//! reverse), a thread-local sentence (`atomgpu_last_error_message`) and, for invalid arguments,
//! the 1-based position of the offending argument (`atomgpu_last_error_arg`, as LAPACK's
//! `INFO = -i`).

/// Success.
pub const ATOMGPU_OK: i32 = 0;
/// An argument broke a rule (a NULL pointer, a size out of range, a non-finite or unphysical
/// value, a handle that was destroyed or belongs to another family); `atomgpu_last_error_arg`
/// gives its 1-based position.
pub const ATOMGPU_ERR_INVALID_ARGUMENT: i32 = 1;
/// No usable CUDA device where one was required (`ATOMGPU_BACKEND=cuda`, `ATOMGPU_REQUIRE_GPU=1`).
pub const ATOMGPU_ERR_NO_DEVICE: i32 = 2;
/// A host or device allocation could not be made; the message gives the bytes asked for.
pub const ATOMGPU_ERR_OUT_OF_MEMORY: i32 = 3;
/// The former name of `ATOMGPU_ERR_OUT_OF_MEMORY` (same value), kept for existing callers.
pub const ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY: i32 = 3;
/// A CUDA driver, NVRTC or library call failed.
pub const ATOMGPU_ERR_CUDA: i32 = 4;
/// An iterative solve or an integration did not converge.
pub const ATOMGPU_ERR_NOT_CONVERGED: i32 = 5;
/// A bug inside atomgpu (a caught panic).
pub const ATOMGPU_ERR_INTERNAL: i32 = 6;
/// A result is not finite (it overflowed double precision): the inputs, although finite, lie
/// outside the range where that result is representable. The message names the output and
/// element; nothing was written (except Sturmian host outputs over 64 MiB, computed in place and
/// then set to NaN: see `atomgpu_sturmian_hamiltonian`).
pub const ATOMGPU_ERR_NOT_FINITE: i32 = 7;
/// The call was stopped before it finished, by the progress callback or the time limit of the
/// calling thread (`atomgpu_set_progress`, `atomgpu_set_time_limit`); nothing was written.
pub const ATOMGPU_ERR_CANCELLED: i32 = 8;
/// A file could not be written (ExoMol output of a line list): the message names the file and
/// the system's reason; no file was left half written.
pub const ATOMGPU_ERR_IO: i32 = 9;

/// Result of every fallible atomgpu routine.
pub type Result<T> = std::result::Result<T, Error>;

/// Which memory an allocation was asked of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    Host,
    Device,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// An argument broke a rule. `name` is the argument as the C and Fortran interfaces spell it
    /// (so the C layer can turn it into a position); `index` is the element of an array argument.
    #[error("argument `{name}`{}: {rule}", index.map(|i| format!("[{i}]")).unwrap_or_default())]
    InvalidArgument { name: &'static str, index: Option<usize>, rule: String },
    /// No usable CUDA device (driver or NVRTC missing, no GPU) where one was required.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// An allocation of `bytes` (when known) for `what` could not be made.
    #[error("{} out of memory: {what}{}", match memory { Memory::Host => "host", Memory::Device => "device" },
        bytes.map(|b| format!(" needs {}", describe_bytes(b))).unwrap_or_default())]
    OutOfMemory { memory: Memory, what: String, bytes: Option<u128> },
    /// A CUDA driver, NVRTC or library call failed.
    #[error("CUDA error: {0}")]
    Cuda(String),
    /// An iterative solve did not reach its tolerance, or an integration left its domain.
    #[error("not converged: {0}")]
    NotConverged(String),
    /// A bug: a panic caught at the C boundary or a broken internal invariant.
    #[error("internal error: {0}")]
    Internal(String),
    /// Element `index` of the result `name` is not finite; `detail` says which inputs it came from.
    #[error("result `{name}`{} is not finite ({detail})", index.map(|i| format!("[{i}]")).unwrap_or_default())]
    NotFinite { name: &'static str, index: Option<usize>, detail: String },
    /// The progress callback or the time limit stopped the call.
    #[error("cancelled: {0}")]
    Cancelled(String),
    /// A file could not be written; the message names it and gives the system's reason.
    #[error("file error: {0}")]
    Io(String),
}

impl Error {
    /// An [`Error::InvalidArgument`] for a scalar argument.
    pub fn invalid(name: &'static str, rule: impl Into<String>) -> Self {
        Error::InvalidArgument { name, index: None, rule: rule.into() }
    }

    /// An [`Error::InvalidArgument`] for element `index` of an array argument.
    pub fn invalid_at(name: &'static str, index: usize, rule: impl Into<String>) -> Self {
        Error::InvalidArgument { name, index: Some(index), rule: rule.into() }
    }

    /// The C status code (`ATOMGPU_ERR_*`) of this error.
    pub fn status(&self) -> i32 {
        match self {
            Error::InvalidArgument { .. } => ATOMGPU_ERR_INVALID_ARGUMENT,
            Error::NoDevice(_) => ATOMGPU_ERR_NO_DEVICE,
            Error::OutOfMemory { .. } => ATOMGPU_ERR_OUT_OF_MEMORY,
            Error::Cuda(_) => ATOMGPU_ERR_CUDA,
            Error::NotConverged(_) => ATOMGPU_ERR_NOT_CONVERGED,
            Error::Internal(_) => ATOMGPU_ERR_INTERNAL,
            Error::NotFinite { .. } => ATOMGPU_ERR_NOT_FINITE,
            Error::Cancelled(_) => ATOMGPU_ERR_CANCELLED,
            Error::Io(_) => ATOMGPU_ERR_IO,
        }
    }

    /// The same error with an [`Error::InvalidArgument`] renamed to `to` when it names `from`
    /// (the Rust API's name of a quantity, mapped to the C parameter that carries it).
    pub fn renamed(self, from: &str, to: &'static str) -> Self {
        match self {
            Error::InvalidArgument { name, index, rule } if name == from => {
                Error::InvalidArgument { name: to, index, rule }
            }
            other => other,
        }
    }
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        use cudarc::driver::sys::cudaError_enum as E;
        if e.0 == E::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory { memory: Memory::Device, what: format!("a CUDA call ({e:?})"), bytes: None }
        } else {
            Error::Cuda(format!("{e:?}"))
        }
    }
}

/// Checks that `value` is finite and strictly positive (a temperature, a density, an energy;
/// `unit` may be empty for a pure number).
pub fn require_positive(name: &'static str, index: Option<usize>, value: f64, unit: &str) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
        Err(Error::InvalidArgument { name, index, rule: format!("must be finite and > 0{unit}, got {value}") })
    }
}

/// Checks that `value` is finite (any sign).
pub fn require_finite(name: &'static str, index: Option<usize>, value: f64) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidArgument { name, index, rule: format!("must be finite, got {value}") })
    }
}

/// Checks that `value` lies in the closed range `[low, high]` (so it is also finite): a physical
/// input with a documented domain, e.g. a temperature in eV.
pub fn require_in_range(
    name: &'static str,
    index: Option<usize>,
    value: f64,
    low: f64,
    high: f64,
    unit: &str,
) -> Result<()> {
    if value >= low && value <= high {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            name,
            index,
            rule: format!("must be in [{low:e}, {high:e}] {unit}, got {value:e}"),
        })
    }
}

/// Checks a computed result: every value finite, else [`Error::NotFinite`] naming the result
/// `name`, the first bad element and `detail(index)` (the inputs it came from).
pub fn require_finite_result(name: &'static str, values: &[f64], detail: impl Fn(usize) -> String) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::NotFinite { name, index: Some(i), detail: format!("{}: {}", values[i], detail(i)) }),
    }
}

/// `bytes` as text: "123 bytes", or "1.5 GiB (1610612736 bytes)".
pub fn describe_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {} ({bytes} bytes)", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_described_in_binary_units() {
        assert_eq!(describe_bytes(100), "100 bytes");
        assert_eq!(describe_bytes(3 << 30), "3.0 GiB (3221225472 bytes)");
    }
}
