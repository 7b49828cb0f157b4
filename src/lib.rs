//! atomgpu: GPU offload of the hot loops of atomic and molecular physics codes.
//!
//! One library, one binary for CPU-only and GPU nodes: every routine has a multithreaded CPU
//! reference (`cpu.rs`) and a CUDA path (`cuda.rs`) that computes the same function, selected at
//! run time (see [`backend`]). The C ABI lives in [`ffi`] (header `include/atomgpu.h`), the
//! Fortran module in `fortran/atomgpu.f90`.

/// cbindgen:ignore
pub mod backend;
pub mod error;
pub mod ffi;
/// cbindgen:ignore
pub mod linestrength;
/// cbindgen:ignore
pub mod math;
/// cbindgen:ignore
pub mod memory;
/// cbindgen:ignore
pub mod progress;
/// cbindgen:ignore
pub mod rates;
/// cbindgen:ignore
pub mod scf;
/// cbindgen:ignore
pub mod sturmian;
/// cbindgen:ignore
pub mod tdse;
