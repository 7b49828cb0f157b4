//! The CUDA context, the per-process cache of NVRTC-compiled modules, and device buffers.
//!
//! The driver (`libcuda.so.1`) and NVRTC (`libnvrtc.so.13`, or `.so.12`) are loaded at run time by
//! cudarc; a missing library is reported as [`Error::NoDevice`], never a panic. Each kernel file
//! in `kernels/` is compiled once per process for the device's own architecture
//! (`compute_XY` from its compute capability) the first time a routine needs it.

use crate::error::{Error, Result};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// True when the NVRTC library can be loaded.
pub fn nvrtc_available() -> bool {
    std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() }).unwrap_or(false)
}

fn driver_available() -> bool {
    std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false)
}

/// Compiles CUDA C `source` (file `name`, for messages) to PTX for virtual architecture `arch`
/// (e.g. `"compute_90"`) with NVRTC. Needs no GPU.
pub fn compile_ptx(name: &str, source: &str, arch: &str) -> Result<String> {
    if !nvrtc_available() {
        return Err(Error::NoDevice("NVRTC (libnvrtc.so.13 or .so.12) could not be loaded".into()));
    }
    let opts = cudarc::nvrtc::CompileOptions {
        options: vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()],
        name: Some(name.to_string()),
        ..Default::default()
    };
    let src = source.to_string();
    let compiled = std::panic::catch_unwind(move || cudarc::nvrtc::compile_ptx_with_opts(src, opts))
        .map_err(|_| Error::Cuda(format!("NVRTC panicked while compiling {name}")))?;
    compiled.map(|ptx| ptx.to_src()).map_err(|e| Error::Cuda(format!("NVRTC failed to compile {name}: {e}")))
}

/// The error of a failed allocation of `len` elements of `T` on the device: out of memory with the
/// bytes asked for, or the CUDA error as it came.
fn device_error<T>(e: cudarc::driver::DriverError, len: usize) -> Error {
    match Error::from(e) {
        Error::OutOfMemory { memory, .. } => Error::OutOfMemory {
            memory,
            what: format!("a device buffer of {len} elements"),
            bytes: Some(crate::memory::bytes_of::<T>(len)),
        },
        other => other,
    }
}

/// One opened GPU: context, stream and the modules compiled for it.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    ordinal: usize,
    compute_capability: (i32, i32),
    multiprocessors: usize,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDevice").field("name", &self.name).field("ordinal", &self.ordinal).finish()
    }
}

impl CudaDevice {
    /// Opens the device chosen by `ATOMGPU_DEVICE` / the local MPI rank. The error is a sentence.
    pub(super) fn open_default() -> std::result::Result<CudaDevice, String> {
        Self::open_with(super::device_ordinal)
    }

    /// Opens GPU `ordinal` (one of [`CudaDevice::count`]). The error is a sentence.
    pub(super) fn open(ordinal: usize) -> std::result::Result<CudaDevice, String> {
        Self::open_with(|count| {
            if ordinal < count {
                Ok(ordinal)
            } else {
                Err(format!("GPU {ordinal} was asked for but only {count} CUDA device(s) are visible"))
            }
        })
    }

    /// The number of visible GPUs (0 without a driver).
    pub(super) fn count() -> usize {
        if !driver_available() {
            return 0;
        }
        std::panic::catch_unwind(|| CudaContext::device_count().ok()).ok().flatten().map_or(0, |n| n.max(0) as usize)
    }

    fn open_with(
        pick: impl FnOnce(usize) -> std::result::Result<usize, String> + std::panic::UnwindSafe,
    ) -> std::result::Result<CudaDevice, String> {
        if !driver_available() {
            return Err("the CUDA driver library (libcuda.so.1) could not be loaded".into());
        }
        if !nvrtc_available() {
            return Err("NVRTC (libnvrtc.so.13 or libnvrtc.so.12) could not be loaded".into());
        }
        let opened = std::panic::catch_unwind(|| -> std::result::Result<CudaDevice, String> {
            let count = CudaContext::device_count().map_err(|e| format!("cuDeviceGetCount: {e:?}"))?;
            if count <= 0 {
                return Err("the CUDA driver reports no device".into());
            }
            let ordinal = pick(count as usize)?;
            let ctx = CudaContext::new(ordinal).map_err(|e| format!("cuCtxCreate on device {ordinal}: {e:?}"))?;
            let name = ctx.name().map_err(|e| format!("{e:?}"))?;
            let compute_capability = ctx.compute_capability().map_err(|e| format!("{e:?}"))?;
            let multiprocessors = ctx
                .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(|e| format!("{e:?}"))?
                .max(1) as usize;
            let stream = ctx.default_stream();
            Ok(CudaDevice {
                ctx,
                stream,
                name,
                ordinal,
                compute_capability,
                multiprocessors,
                modules: Mutex::new(HashMap::new()),
            })
        });
        opened.unwrap_or_else(|_| Err("the CUDA driver panicked while opening the device".into()))
    }

    /// Device name as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// GPU ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (i32, i32) {
        self.compute_capability
    }

    /// Streaming multiprocessors (132 on an H100 or H200 SXM).
    pub fn multiprocessors(&self) -> usize {
        self.multiprocessors
    }

    /// (free, total) device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        Ok(self.ctx.mem_get_info()?)
    }

    /// The stream every atomgpu call on this device is ordered on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Kernel `function` of kernel file `file` (its source `source`), compiling the file with NVRTC
    /// for this device's architecture the first time it is asked for in the process.
    pub fn function(&self, file: &'static str, source: &'static str, function: &str) -> Result<CudaFunction> {
        let module = {
            let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
            match modules.get(file) {
                Some(m) => m.clone(),
                None => {
                    let (major, minor) = self.compute_capability;
                    let ptx = compile_ptx(file, source, &format!("compute_{major}{minor}"))?;
                    let m = self.ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx))?;
                    modules.insert(file, m.clone());
                    m
                }
            }
        };
        module
            .load_function(function)
            .map_err(|e| Error::Cuda(format!("kernel `{function}` not found in {file}: {e:?}")))
    }

    /// A cuBLAS handle on this device's stream, FP64 in `CUBLAS_DEFAULT_MATH` (no reduced-precision
    /// tensor-core modes); [`Error::NoDevice`] when libcublas cannot be loaded.
    pub fn blas(&self) -> Result<cudarc::cublas::CudaBlas> {
        use cudarc::cublas::sys::{cublasMath_t, cublasSetMathMode, cublasStatus_t, is_culib_present};
        // SAFETY: probing for the library has no preconditions; a panic of the loader is caught.
        let present = std::panic::catch_unwind(|| unsafe { is_culib_present() }).unwrap_or(false);
        if !present {
            return Err(Error::NoDevice("cuBLAS (libcublas.so.13 or .so.12) could not be loaded".into()));
        }
        let blas =
            cudarc::cublas::CudaBlas::new(self.stream().clone()).map_err(|e| Error::Cuda(format!("cuBLAS: {e:?}")))?;
        // SAFETY: a valid handle just created.
        let status = unsafe { cublasSetMathMode(*blas.handle(), cublasMath_t::CUBLAS_DEFAULT_MATH) };
        if status != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(Error::Cuda(format!("cuBLAS: {status:?}")));
        }
        Ok(blas)
    }

    /// Copies `data` to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(data).map_err(|e| device_error::<T>(e, data.len()))
    }

    /// A new device buffer of `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros(len).map_err(|e| device_error::<T>(e, len))
    }

    /// A new device buffer of `len` elements, not initialised: for outputs that a kernel or cuBLAS
    /// (beta = 0) writes in full before anything reads them, so no memset is spent on them.
    pub fn uninit<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        // SAFETY: the buffer is valid device memory of `len` elements; its contents are
        // unspecified, and the callers (see above) write every element before reading any.
        unsafe { self.stream.alloc::<T>(len) }.map_err(|e| device_error::<T>(e, len))
    }

    /// A new stream of this device that does not wait for [`CudaDevice::stream`] (for copies
    /// overlapped with its work; cudarc's event tracking orders the buffers the two share).
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        Ok(self.ctx.new_stream()?)
    }

    /// A new page-locked host buffer of `len` elements (write-combined: for data the host writes
    /// and the device reads), not initialised.
    pub fn alloc_pinned<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<PinnedHostSlice<T>> {
        // SAFETY: the buffer's contents are unspecified; callers write what they upload.
        unsafe { self.ctx.alloc_pinned::<T>(len) }.map_err(|e| match Error::from(e) {
            Error::OutOfMemory { .. } => Error::OutOfMemory {
                memory: crate::error::Memory::Host,
                what: format!("a page-locked host buffer of {len} elements"),
                bytes: Some(crate::memory::bytes_of::<T>(len)),
            },
            other => other,
        })
    }

    /// Copies a device buffer back into `out` (which must have the buffer's length) and waits.
    pub fn download_into<T: DeviceRepr>(&self, buffer: &CudaSlice<T>, out: &mut [T]) -> Result<()> {
        self.stream.memcpy_dtoh(buffer, out)?;
        self.stream.synchronize()?;
        Ok(())
    }

    /// Hands the device memory freed on the stream back to the driver: buffers are freed in stream
    /// order into the device's memory pool, which returns them at the next synchronisation of the
    /// stream, so without one a destroyed handle's memory would stay taken (visible to
    /// `nvidia-smi` and other processes) until the next call on this GPU.
    pub fn release_freed_memory(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    /// Waits for all work queued on the stream.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }
}
