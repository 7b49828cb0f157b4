//! Errors of the Rust API and the C status codes they map to.
//!
//! Every fallible routine returns [`Result`]. At the C boundary an [`Error`] becomes an `int32_t`
//! status (`ATOMGPU_ERR_*`), a thread-local sentence (`atomgpu_last_error_message`) and, for
//! invalid arguments, the 1-based position of the offending argument (`atomgpu_last_error_arg`,
//! as LAPACK's `INFO = -i`).

/// Result of every fallible atomgpu routine.
pub type Result<T> = std::result::Result<T, Error>;

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
    /// A device allocation failed.
    #[error("device out of memory: {0}")]
    DeviceOutOfMemory(String),
    /// A CUDA driver, NVRTC or library call failed.
    #[error("CUDA error: {0}")]
    Cuda(String),
    /// An iterative solve did not reach its tolerance.
    #[error("not converged: {0}")]
    NotConverged(String),
    /// A bug: a panic caught at the C boundary or a broken internal invariant.
    #[error("internal error: {0}")]
    Internal(String),
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
        use crate::ffi::common as c;
        match self {
            Error::InvalidArgument { .. } => c::ATOMGPU_ERR_INVALID_ARGUMENT,
            Error::NoDevice(_) => c::ATOMGPU_ERR_NO_DEVICE,
            Error::DeviceOutOfMemory(_) => c::ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY,
            Error::Cuda(_) => c::ATOMGPU_ERR_CUDA,
            Error::NotConverged(_) => c::ATOMGPU_ERR_NOT_CONVERGED,
            Error::Internal(_) => c::ATOMGPU_ERR_INTERNAL,
        }
    }
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        use cudarc::driver::sys::cudaError_enum as E;
        if e.0 == E::CUDA_ERROR_OUT_OF_MEMORY {
            Error::DeviceOutOfMemory(format!("{e:?}"))
        } else {
            Error::Cuda(format!("{e:?}"))
        }
    }
}

/// Checks that `value` is finite and strictly positive (a temperature, a density, an energy).
pub fn require_positive(name: &'static str, index: Option<usize>, value: f64, unit: &str) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument { name, index, rule: format!("must be finite and > 0 {unit}, got {value}") })
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
