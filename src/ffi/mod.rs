//! The C ABI: one file per routine family, plus [`common`] (status codes, the panic guard,
//! argument checks, version and backend functions). The header `include/atomgpu.h` is generated
//! from these files by cbindgen.

pub mod common;
pub mod cr;
pub mod devices;
pub mod handles;
pub mod host;
pub mod linestrength;
pub mod linestrength_numbered;
pub mod linestrength_stream;
pub mod rates;
pub mod scf;
pub mod sturmian;
pub mod tdse;
