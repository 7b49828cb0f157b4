//! Host buffers for large outputs: page-locked ("pinned") memory on the CUDA backend, so that
//! results land from the device at the bus's full rate (a pageable buffer is copied through a
//! driver staging area, at about half that), and ordinary aligned memory on the CPU backend.
//!
//! Every live allocation is kept in a registry, so that `atomgpu_host_free` knows how to release
//! a pointer (whatever the backend is by then), refuses one it did not hand out or already freed,
//! and never releases twice.

use super::common::{guard, output};
use crate::backend::{self, Backend};
use crate::error::{Error, Memory, Result};
use cudarc::driver::PinnedHostSlice;
use once_cell::sync::Lazy;
use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// Alignment of CPU-backend buffers (bytes): a cache line, enough for any SIMD load.
const ALIGNMENT: usize = 64;

/// One live allocation.
enum Allocation {
    /// Page-locked memory of the CUDA context (released by dropping it).
    Pinned(PinnedHostSlice<u8>),
    /// `std::alloc` memory of this layout.
    Aligned(Layout),
}

/// Live allocations by address.
static LIVE: Lazy<Mutex<HashMap<usize, Allocation>>> = Lazy::new(|| Mutex::new(HashMap::new()));

fn out_of_memory(bytes: usize, detail: impl std::fmt::Display) -> Error {
    Error::OutOfMemory { memory: Memory::Host, what: format!("a host buffer ({detail})"), bytes: Some(bytes as u128) }
}

/// Allocates `bytes` (>= 1) of host memory on `backend`.
fn allocate(backend: &Backend, bytes: usize) -> Result<(usize, Allocation)> {
    if let Some(available) = crate::memory::available_bytes() {
        if bytes as u128 > available {
            return Err(out_of_memory(bytes, format!("{} available", crate::error::describe_bytes(available))));
        }
    }
    match backend {
        Backend::Cuda(device) => {
            let context = device.stream().context();
            // SAFETY: u8 has no invalid bit patterns; the caller is told the contents are undefined.
            let slice =
                unsafe { context.alloc_pinned_with_flags::<u8>(bytes, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE) }
                    .map_err(|e| out_of_memory(bytes, format!("cuMemHostAlloc: {e:?}")))?;
            let address = slice.as_ptr().map_err(|e| Error::Cuda(format!("pinned buffer: {e:?}")))? as usize;
            Ok((address, Allocation::Pinned(slice)))
        }
        Backend::Cpu => {
            let layout =
                Layout::from_size_align(bytes, ALIGNMENT).map_err(|_| Error::invalid("bytes", "is too large"))?;
            // SAFETY: the layout has a non-zero size.
            let address = unsafe { std::alloc::alloc(layout) } as usize;
            if address == 0 {
                return Err(out_of_memory(bytes, "the system allocator refused"));
            }
            Ok((address, Allocation::Aligned(layout)))
        }
    }
}

/// Allocates `bytes` (>= 1) of host memory into `*ptr`: page-locked (pinned) on the CUDA backend,
/// so that results of `atomgpu_sturmian_hamiltonian`, `_repulsion` and the other host-landing
/// calls copy at the bus's full rate; 64-byte aligned ordinary memory on the CPU backend. The
/// contents are undefined. Release with `atomgpu_host_free` (not `free`). Out of memory (status
/// 3) when the system cannot provide (or pin) that much; `*ptr` is written only on success.
///
/// # Safety
/// `ptr` must be NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_host_alloc(bytes: i64, ptr: *mut *mut c_void) -> i32 {
    guard(&["bytes", "ptr"], || {
        let bytes = usize::try_from(bytes)
            .ok()
            .filter(|&b| b >= 1 && b <= isize::MAX as usize / 2)
            .ok_or_else(|| Error::invalid("bytes", format!("must be in [1, {}], got {bytes}", isize::MAX / 2)))?;
        let out = output("ptr", ptr)?;
        let (address, allocation) = allocate(&backend::current()?, bytes)?;
        LIVE.lock().unwrap_or_else(|p| p.into_inner()).insert(address, allocation);
        *out = address as *mut c_void;
        Ok(())
    })
}

/// Releases a buffer from `atomgpu_host_alloc`. NULL is a no-op; a pointer that
/// `atomgpu_host_alloc` did not return, or that was already released, is refused (status 1,
/// argument `ptr`) and nothing is freed.
///
/// # Safety
/// No other thread may use the buffer during or after the call.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_host_free(ptr: *mut c_void) -> i32 {
    guard(&["ptr"], || {
        if ptr.is_null() {
            return Ok(());
        }
        let allocation =
            LIVE.lock().unwrap_or_else(|p| p.into_inner()).remove(&(ptr as usize)).ok_or_else(|| {
                Error::invalid("ptr", "was not returned by atomgpu_host_alloc, or was already released")
            })?;
        match allocation {
            Allocation::Pinned(slice) => drop(slice),
            // SAFETY: allocated by `allocate` with this layout, removed from the registry once.
            Allocation::Aligned(layout) => std::alloc::dealloc(ptr as *mut u8, layout),
        }
        Ok(())
    })
}
