//! Backend selection: the CPU reference or a CUDA device, chosen at run time.
//!
//! Environment (read when a routine first needs a backend):
//! - `ATOMGPU_BACKEND=auto|cpu|cuda` (default `auto`: CUDA when a device, the driver and NVRTC
//!   load, otherwise the CPU);
//! - `ATOMGPU_DEVICE=N` picks GPU N; without it, the node-local MPI rank
//!   (`OMPI_COMM_WORLD_LOCAL_RANK`, `SLURM_LOCALID`, `MPI_LOCALRANKID`) modulo the device count
//!   (and a handle on n GPUs takes them by the same rule: [`DeviceSet`]);
//! - `ATOMGPU_REQUIRE_GPU=1` turns the `auto` fallback to the CPU into an error
//!   ([`Error::NoDevice`]);
//! - `ATOMGPU_LOG=1` prints one notice on stderr when `auto` falls back to the CPU, and which
//!   device was opened. Nothing else in the library prints.
//!
//! [`set_backend`] (C: `atomgpu_set_backend`) overrides `ATOMGPU_BACKEND` for the process.

mod cuda;
mod devices;
mod fanout;
pub mod threads;

pub use cuda::{compile_ptx, nvrtc_available, CudaDevice};
pub use devices::{rule as device_rule, DeviceRequest, DeviceSet, MAX_DEVICES};
pub use fanout::{fan_out, fan_out_watched, stopped_by_another, FanOut};

use crate::error::{Error, Result};
use once_cell::sync::OnceCell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Which backend the caller asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// CUDA when available, else the CPU.
    Auto,
    /// Always the CPU reference.
    Cpu,
    /// Always CUDA; an error when no device can be used.
    Cuda,
}

impl BackendChoice {
    /// Parses `auto`, `cpu` or `cuda` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(Self::Auto),
            "cpu" => Some(Self::Cpu),
            "cuda" | "gpu" => Some(Self::Cuda),
            _ => None,
        }
    }
}

/// The backend a call runs on.
#[derive(Clone)]
pub enum Backend {
    /// Multithreaded CPU reference (rayon).
    Cpu,
    /// A CUDA device with its stream and compiled kernels.
    Cuda(Arc<CudaDevice>),
}

impl Backend {
    /// `"cpu"` or `"cuda"`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Cuda(_) => "cuda",
        }
    }
}

static OVERRIDE: Mutex<Option<BackendChoice>> = Mutex::new(None);
static DEVICE: OnceCell<std::result::Result<Arc<CudaDevice>, String>> = OnceCell::new();
static FALLBACK_NOTICE: std::sync::Once = std::sync::Once::new();

/// Overrides `ATOMGPU_BACKEND` for the rest of the process (C: `atomgpu_set_backend`).
pub fn set_backend(choice: BackendChoice) {
    *OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) = Some(choice);
}

/// The choice in force: the [`set_backend`] override, else `ATOMGPU_BACKEND`, else `auto`.
pub fn choice() -> Result<BackendChoice> {
    if let Some(c) = *OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) {
        return Ok(c);
    }
    match std::env::var("ATOMGPU_BACKEND") {
        Ok(v) => BackendChoice::parse(&v)
            .ok_or_else(|| Error::invalid("ATOMGPU_BACKEND", format!("must be auto, cpu or cuda, got `{v}`"))),
        Err(_) => Ok(BackendChoice::Auto),
    }
}

fn env_flag(name: &str) -> bool {
    matches!(std::env::var(name).as_deref(), Ok("1") | Ok("true") | Ok("yes"))
}

/// True when `ATOMGPU_REQUIRE_GPU=1`.
pub fn gpu_required() -> bool {
    env_flag("ATOMGPU_REQUIRE_GPU")
}

/// True when `ATOMGPU_LOG=1`: the one case where the library writes on stderr.
pub(crate) fn log_enabled() -> bool {
    env_flag("ATOMGPU_LOG")
}

/// The process that opened a CUDA context (0: none yet).
static CUDA_PROCESS: AtomicU32 = AtomicU32::new(0);

fn note_cuda_opened() {
    let _ = CUDA_PROCESS.compare_exchange(0, std::process::id(), Ordering::SeqCst, Ordering::SeqCst);
}

/// When this process was forked from one that had opened a CUDA context: why CUDA cannot be used
/// here. The driver's state does not survive `fork()` (a child can neither use the parent's
/// context nor make its own), so such a child's calls run on the CPU under `auto`, fail with
/// [`Error::NoDevice`] under `cuda` or `ATOMGPU_REQUIRE_GPU`, and a handle the parent made on a
/// GPU fails with this sentence; a child that starts a new program (`exec`, Python's `spawn` or
/// `forkserver` start methods) can use the GPU.
pub fn cuda_forked_message() -> Option<String> {
    let opened_in = CUDA_PROCESS.load(Ordering::SeqCst);
    (opened_in != 0 && opened_in != std::process::id()).then(|| {
        format!(
            "this process was forked from process {opened_in} after that one had opened CUDA, and CUDA does not \
             survive fork(): use the CPU here (ATOMGPU_BACKEND=cpu or auto), or start the worker processes with \
             exec (Python multiprocessing's `spawn` or `forkserver` start method)"
        )
    })
}

/// The process's CUDA device, opened once (driver, NVRTC, context, stream).
pub fn cuda_device() -> Result<Arc<CudaDevice>> {
    if let Some(why) = cuda_forked_message() {
        return Err(Error::NoDevice(why));
    }
    DEVICE
        .get_or_init(|| {
            let opened = CudaDevice::open_default();
            if log_enabled() {
                match &opened {
                    Ok(d) => eprintln!("atomgpu: using CUDA device {} ({})", d.ordinal(), d.name()),
                    Err(e) => eprintln!("atomgpu: no CUDA device: {e}"),
                }
            }
            if opened.is_ok() {
                note_cuda_opened();
            }
            opened.map(Arc::new)
        })
        .clone()
        .map_err(Error::NoDevice)
}

/// Devices opened by [`cuda_device_at`], by ordinal (the default one of [`cuda_device`] too).
static DEVICES: Mutex<Vec<Arc<CudaDevice>>> = Mutex::new(Vec::new());

/// The number of visible GPUs (0 when there is no driver or no device, or in a child forked after
/// CUDA was opened: [`cuda_forked_message`]).
pub fn cuda_device_count() -> usize {
    if cuda_forked_message().is_some() {
        return 0;
    }
    CudaDevice::count()
}

/// GPU `ordinal`, opened once per process (the same object as [`cuda_device`] when that one has
/// this ordinal): for routines that spread one problem over several GPUs.
pub fn cuda_device_at(ordinal: usize) -> Result<Arc<CudaDevice>> {
    if let Some(why) = cuda_forked_message() {
        return Err(Error::NoDevice(why));
    }
    // The default device is opened first (it serves every single-GPU call), so that its ordinal
    // never gets a second context object and kernel cache.
    if let Ok(d) = cuda_device() {
        if d.ordinal() == ordinal {
            return Ok(d);
        }
    }
    let mut opened = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = opened.iter().find(|d| d.ordinal() == ordinal) {
        return Ok(d.clone());
    }
    let device = Arc::new(CudaDevice::open(ordinal).map_err(Error::NoDevice)?);
    note_cuda_opened();
    opened.push(device.clone());
    Ok(device)
}

/// The backend a routine should run on now, following [`choice`] and `ATOMGPU_REQUIRE_GPU`.
pub fn current() -> Result<Backend> {
    match choice()? {
        BackendChoice::Cpu => Ok(Backend::Cpu),
        BackendChoice::Cuda => cuda_device().map(Backend::Cuda),
        BackendChoice::Auto => match cuda_device() {
            Ok(d) => Ok(Backend::Cuda(d)),
            Err(e) if gpu_required() => Err(e),
            Err(e) => {
                if log_enabled() {
                    FALLBACK_NOTICE.call_once(|| eprintln!("atomgpu: falling back to the CPU ({e})"));
                }
                Ok(Backend::Cpu)
            }
        },
    }
}

/// The GPU ordinal to open: `ATOMGPU_DEVICE`, else the node-local MPI rank modulo `count` (the
/// one-GPU case of [`DeviceSet`]'s rule).
fn device_ordinal(count: usize) -> std::result::Result<usize, String> {
    devices::first_ordinal(1, count)
}

/// Description of the backend in use, for `atomgpu_device_info`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// `"cpu"` or `"cuda"`.
    pub backend: &'static str,
    /// GPU name, or the CPU's thread count description.
    pub name: String,
    /// Device memory in bytes (total, free); (0, 0) on the CPU.
    pub total_memory_bytes: u64,
    pub free_memory_bytes: u64,
    /// Compute capability (major, minor); (0, 0) on the CPU.
    pub compute_capability: (i32, i32),
    /// GPU ordinal, or -1 on the CPU.
    pub ordinal: i32,
}

/// What [`current`] resolves to, described.
pub fn device_info() -> Result<DeviceInfo> {
    match current()? {
        Backend::Cpu => Ok(DeviceInfo {
            backend: "cpu",
            name: format!("CPU ({} threads)", rayon::current_num_threads()),
            total_memory_bytes: 0,
            free_memory_bytes: 0,
            compute_capability: (0, 0),
            ordinal: -1,
        }),
        Backend::Cuda(d) => {
            let (free, total) = d.memory()?;
            Ok(DeviceInfo {
                backend: "cuda",
                name: d.name().to_string(),
                total_memory_bytes: total as u64,
                free_memory_bytes: free as u64,
                compute_capability: d.compute_capability(),
                ordinal: d.ordinal() as i32,
            })
        }
    }
}
